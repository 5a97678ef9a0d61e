# pysinks: the calls whose arguments are a run's settings (docs/program.md §2, "Sinks decide roles").
#
# Whatever value reaches a sink is that setting: a model loader's first argument is the model, a
# TrainingArguments keyword is that argument, a DataLoader's batch_size is the batch. A value the sweep
# gives (P) makes that sweep parameter the setting's key for this sweep; a function of one sweep
# parameter (M) is a value map; a sink under `if <sweep parameter>` holds only in the runs where it is
# true (UNSET in the others). Each sink kind is one function; SINKS maps a callee's name to it, so a new
# kind is a function and a row (see docs/program.md "Adding a sink").

TRAINING_ARGS = {
    'TrainingArguments', 'Seq2SeqTrainingArguments', 'SentenceTransformerTrainingArguments',
    'SFTConfig', 'DPOConfig', 'GRPOConfig', 'ORPOConfig', 'KTOConfig', 'RewardConfig', 'PPOConfig',
    'CrossEncoderTrainingArguments', 'CPOConfig', 'OnlineDPOConfig', 'GKDConfig', 'RLOOConfig',
}
NOT_A_MODEL = ('Tokenizer', 'Processor', 'FeatureExtractor', 'Config', 'PeftModel', 'Dataset', 'ImageProcessor')
DTYPES = {'float16', 'half', 'bfloat16', 'float32', 'float', 'float64', 'double'}
TRAIN_CALLS = {'backward', 'fit'}
TRAINER_CLASSES = {'Trainer', 'Seq2SeqTrainer', 'SFTTrainer', 'DPOTrainer', 'GRPOTrainer', 'ORPOTrainer',
                   'KTOTrainer', 'RewardTrainer', 'PPOTrainer', 'SentenceTransformerTrainer',
                   'CrossEncoderTrainer', 'CPOTrainer', 'OnlineDPOTrainer', 'GKDTrainer', 'RLOOTrainer'}
OPTIMIZERS = {'Adam', 'AdamW', 'SGD', 'Adafactor', 'AdamW8bit', 'PagedAdamW', 'PagedAdamW8bit', 'Lion',
              'RMSprop', 'Adagrad', 'LAMB', 'FusedAdam', 'DeepSpeedCPUAdam'}
LIGHTNING = ('pl', 'L', 'lightning', 'pytorch_lightning')
# what the program does with the model (issue #28; docs/program.md "What the reader emits")
# transformers' own argument classes: per_device_train_batch_size / per_device_eval_batch_size default to 8
# (rules/frameworks.yaml "transformers Trainer"): built without them, the run's batch is that default
HF_TRAINING_ARGS = {'TrainingArguments', 'Seq2SeqTrainingArguments', 'SentenceTransformerTrainingArguments'}
# vLLM's LLM(...) keywords that size its start-up (docs/memory-model.md "vLLM")
VLLM_KWARGS = ('gpu_memory_utilization', 'max_model_len', 'tensor_parallel_size', 'dtype', 'quantization',
               'max_num_seqs', 'max_num_batched_tokens')
ENCODER_CLASSES = {'T5EncoderModel', 'MT5EncoderModel', 'UMT5EncoderModel'}
ST_LOSSES = {'MultipleNegativesRankingLoss', 'MultipleNegativesSymmetricRankingLoss', 'GISTEmbedLoss',
             'MegaBatchMarginLoss', 'CachedMultipleNegativesRankingLoss',
             'CachedMultipleNegativesSymmetricRankingLoss', 'CachedGISTEmbedLoss', 'CosineSimilarityLoss',
             'ContrastiveLoss', 'OnlineContrastiveLoss', 'CoSENTLoss', 'AnglELoss', 'SoftmaxLoss', 'TripletLoss',
             'MarginMSELoss'}
FROM_PRETRAINED_KWARGS = ('torch_dtype', 'dtype', 'load_in_4bit', 'load_in_8bit', 'attn_implementation')
# Unsloth's loaders (unsloth/models/loader.py @ 015bdef0d94a241bcd94eec7a405b1700632180d): FastLanguageModel,
# FastModel and its FastVisionModel / FastTextModel; docs/program.md "Unsloth"
UNSLOTH_CLASSES = {'FastLanguageModel', 'FastModel', 'FastVisionModel', 'FastTextModel'}
# from_pretrained keywords that choose the load instead of its default load_in_4bit=True
UNSLOTH_LOADS = ('load_in_4bit', 'load_in_8bit', 'load_in_16bit', 'load_in_fp8', 'full_finetuning',
                 'quantization_config', 'qat_scheme')


class Out(object):
    """What the evaluation read: settings (with their places and provenance), the sweep parameters that
    take a setting's role, value maps, notes, and what the C side needs besides (configs, Hydra)."""

    def __init__(self, ctx):
        self.c = ctx
        self.records = []      # settings: dicts with a rank (0 declarations, 1 unreached code, 2 the run)
        self.params = []       # {"param", "key", "how", ...}: a sweep parameter is this setting
        self.maps = []         # {"param", "key", "how", "cases": [...]}: a setting is a function of one
        self.notes = []
        self.imports = []
        self.modules = []      # (dotted name, file index) of the local modules evaluated
        self.configs = []
        self.config_tracks = {}  # (path, dest) -> the CfgReads of its loads
        self.config_whole = False  # a value too deep or wide to look into was handed on: every config whole
        self.hydra = None
        self.refs = []
        self.trains = False
        self.infers = False
        self.models = []       # candidates: (value, how, node, fid, rank)
        self.model_seen = set()
        self.objects = []      # LoraConfig / BitsAndBytesConfig objects, emitted when applied (or at the end)
        self.wandb_reads = {}  # name (or '*') -> 2 when code a call reaches reads it, 1 when only unreached code
        self.wandb_bound = 0   # 2 / 1: such code takes wandb.config itself (config = wandb.config), read or not
        self.reads_argv = False  # some file may read the command line (pyread.py scan_argv)
        self.argv_words = set()  # the words of ARGV_WORDS its files hold
        self.argv_parsers = []   # argparse parsers whose parse_args() reads sys.argv where a call reaches
        self.argv_loose = False  # parse_known_args, or parse_args of a list, where a call reaches
        self.argv_hidden = False  # a module that may read the command line was not read (pyread.py argv_unknown)
        self.wandb_replaced = None  # (fid, line) of `wandb.config = ...`
        self.ext_imports = set()  # imports that are not the project's modules read here (top-level names)
        self.seq = 0
        self.infer_at = None   # (fid, node) of the first generating call (generate, LLM, SamplingParams)
        self.generation = []   # generate()'s settings, read when the program only generates
        self.model_classes = []  # (class name, fid, node) of each model loader: the part that runs
        self.quant_open = None   # "train.py:18: quantization_config is one of ...": the load's quantization is
        #                          not decided by the text (pysinks.py undecided_choice)
        self.launches = []     # commands the program launches (pylaunch.py)
        self.unsloth = None      # (fid, node) of the first Unsloth from_pretrained (pysinks.py unsloth_load)
        self.unsloth_full = False  # from_pretrained(full_finetuning=True): get_peft_model does nothing
        self.sft = []            # (fid, node, has data_collator) of each SFTTrainer call
        self.sft_packing = None  # SFTConfig(packing=...) / (padding_free=...) as the text gives them: K values
        self.sft_padding_free = None
        self.pads_to_max = False  # the program's own tokenizer(padding="max_length"): every example at max_length
        self.optimizers = []     # built_optimizer(...) of each optimizer the program builds
        self.hf_trainers = []    # per HF/TRL trainer call: whether it is given an optimizer (optimizers=)

    # -- records -------------------------------------------------------------------------------------
    def site_fields(self, rec, v, node, fid):
        site = v.site if isinstance(v, K) else None
        if site is not None and site[0] == 'cfg':
            rec['config'] = site[1]
            rec['config_key'] = site[2]
            return
        if site is not None and site[0] == 'cmd':
            rec['cmd'] = site[1]
            return
        if site is None:
            if node is None:
                return
            site = self.c.site(fid, node)
        rec['file'], rec['line'], rec['col'], rec['end_line'], rec['end_col'] = site

    def record(self, key, v, how, node, fid, rank):
        rec = {'key': key, 'value': v.v, 'how': how, 'rank': rank, 'seq': self.seq}
        self.seq += 1
        self.site_fields(rec, v, node, fid)
        if 'file' not in rec and 'config' not in rec and 'cmd' not in rec:
            return
        if v.why:
            rec['chain'] = [self.c.render(w) for w in v.why]
        self.records.append(rec)

    def declare(self, key, v, how, node=None):
        """A literal declaration: an argparse default, a dataclass field (read by its name, as before)."""
        fid = v.site[0] if isinstance(v, K) and v.site is not None and isinstance(v.site[0], int) else 0
        self.record(key, v, how, node, fid, 0)

    def config_file(self, path, line, how, dest, fid):
        if any(cf['path'] == path and cf['dest'] == dest for cf in self.configs):
            return
        self.configs.append({'path': path, 'line': line, 'how': how, 'dest': dest, 'file': fid})

    def config_reads(self, path, dest, reads):
        """What the program takes of a config it loads (CfgReads), for the C side to map only that."""
        self.config_tracks.setdefault((path, dest), []).append(reads)

    def configs_json(self):
        out = []
        for cf in self.configs:
            keys = set()
            tracks = self.config_tracks.get((cf['path'], cf['dest']), [])
            for t in tracks:
                keys |= t.keys
            # null: map it whole (taken whole, nothing seen taken, or the evaluation stopped before its end)
            whole = not tracks or not keys or '' in keys or self.c.stopped is not None or self.config_whole or \
                not all(isinstance(k, str) and '\x00' not in k and
                        not any('\ud800' <= ch <= '\udfff' for ch in k) for k in keys)
            out.append(dict(cf, reads=None if whole else sorted(keys)))
        return out

    def hydra_call(self, info):
        h = self.hydra or {'config_path': None, 'config_name': None, 'line': info.get('line'), 'fid': info.get('fid')}
        if info.get('config_path') is not None:
            h['config_path'] = info['config_path']
        if info.get('config_name') is not None:
            h['config_name'] = info['config_name']
        self.hydra = h

    def hydra_values(self, ev, info):
        return hydra_values(ev, info)

    # -- a value reaching a sink ---------------------------------------------------------------------
    def sink(self, ev, key, v, how, node, fr):
        """Setting `key` is v (in the runs fr's guard holds)."""
        g = fr.guard
        if g is not None and g is not GUARD_UNKNOWN:
            v = ev.guarded(g, v, UNSET)
        self.emit(ev, key, v, how, node, fr.fid)

    def emit(self, ev, key, v, how, node, fid, only=None):
        c = self.c
        if only and isinstance(v, K):
            # a constant in the runs where the other parameter has those values: a map over that one
            xs = (c.params.get(only['param']) or {}).get('values') or only['values']
            keys = set(pkey(x) for x in only['values'])
            v = M(only['param'], xs, dict((pkey(x), v if pkey(x) in keys else UNSET) for x in xs))
            only = None
        rank = c.phase
        if isinstance(v, OneOf):
            if all(isinstance(o, K) for o in v.opts) and len(set(const_key(o) for o in v.opts)) == 1:
                v = v.opts[0]
            else:
                shown_opts = ', '.join(shown(o.v) if isinstance(o, K) else 'unset' for o in v.opts[:4])
                c.note('%s is one of %s, which the program does not decide: not read' % (key, shown_opts),
                       fid, node)
                return
        if isinstance(v, K):
            if is_setting_value(v.v):
                # the sink's place, when the value is written elsewhere (a constant, a default, a config)
                site = v.site
                if node is not None and site is not None and (site[0] != fid or site[1] != node.lineno):
                    how = '%s at %s' % (how, c.where(fid, node))
                self.record(key, v, how, node, fid, rank)
            return
        if isinstance(v, P):
            rec = {'param': v.name, 'key': key, 'how': how, 'rank': rank}
            if only:
                rec['only'] = only
            if node is not None:
                rec['file'], rec['line'] = fid, node.lineno
            if v.why:
                rec['chain'] = [c.render(w) for w in v.why]
            self.params.append(rec)
            return
        if isinstance(v, M) and any(not isinstance(v.at(x), (K, _Unset, U, OneOf)) for x in v.xs):
            # a value of another sweep parameter q in the runs where this one (p) has some values (a guard
            # on p around r=args.rank, a quantization chosen only for some models): q's setting holds only
            # when p is one of those values, a condition on q's role (only); else read as an undecided
            # guard is (as if unconditional)
            set_vals = [v.at(x) for x in v.xs if v.at(x) is not UNSET]
            inner = [x for x in set_vals if isinstance(x, (P, M))]
            keys = set(('p', x.name) if isinstance(x, P) else ('m', x.param, repr(sorted((k, const_key(c))
                                                                                          for k, c in x.cases.items())))
                       for x in inner)
            if inner and len(inner) == len(set_vals) and len(keys) == 1 and not only:
                when = [x for x in v.xs if v.at(x) is not UNSET]
                self.emit(ev, key, inner[0], how, node, fid, only={'param': v.param, 'values': when})
                return
            if inner and len(inner) == len(set_vals) and all(isinstance(x, P) for x in inner) and not only and \
                    len(keys) <= 8:
                # another parameter per value of this one (batch = cfg.bs_a if cfg.model == "a" else cfg.bs_b):
                # each holds in the runs where this one chooses it
                for name in sorted(set(x.name for x in inner)):
                    when = [x for x in v.xs if isinstance(v.at(x), P) and v.at(x).name == name]
                    first = v.at(when[0])
                    self.emit(ev, key, first, how, node, fid, only={'param': v.param, 'values': when})
                return
            if len(set(const_key(x) if not isinstance(x, P) else ('p', x.name) for x in set_vals)) == 1:
                self.emit(ev, key, set_vals[0], how, node, fid)
            return
        if isinstance(v, M) and v.xs and all(isinstance(v.at(x), K) and pkey(v.at(x).v) == pkey(x) for x in v.xs):
            # every value is the parameter's own (the same name passed down per value): the parameter is it
            spec = c.params.get(v.param) or {'values': v.xs}
            self.emit(ev, key, P(v.param, spec, None, v.at(v.xs[0]).why[:-1]), how, node, fid, only)
            return
        if isinstance(v, M):
            cases = []
            vals = []
            for x in v.xs:
                cv = v.at(x)
                if isinstance(cv, OneOf) and len(set(const_key(o) for o in cv.opts)) == 1:
                    cv = cv.opts[0]
                case = {'when': x}
                if cv is UNSET and key == 'model_name_or_path':
                    case['unknown'] = 'the program loads no model for this value'
                elif cv is UNSET:
                    case['unset'] = True
                elif isinstance(cv, K) and is_setting_value(cv.v):
                    case['value'] = cv.v
                    self.site_fields(case, cv, node, fid)
                    if cv.why:
                        case['chain'] = [c.render(w) for w in cv.why]
                else:
                    case['unknown'] = cv.why if isinstance(cv, U) and cv.why else 'not known'
                cases.append(case)
                vals.append(const_key(cv) if isinstance(cv, (K, _Unset)) else ('u', id(cv)))
            if all(cs.get('unset') for cs in cases):
                return
            if len(set(vals)) == 1 and 'value' in cases[0]:
                self.emit(ev, key, v.at(v.xs[0]), how, node, fid, only)
                return
            rec = {'param': v.param, 'key': key, 'how': how, 'cases': cases, 'rank': rank}
            if only:
                rec['only'] = only
            if v.cond:
                rec['cond'] = v.cond
            if node is not None:
                rec['file'], rec['line'] = fid, node.lineno
            self.maps.append(rec)
            return

    def ref(self, ev, key, node, how, fid):
        """A keyword read from an object the program does not show (cfg.model.name): resolved by the C side
        against the configs it loads, as the literal reader did."""
        ch = chain_of(node)
        if ch is None or ch[0] == 'wandb':
            return
        self.refs.append({'key': key, 'root': ch[0], 'path': ch[1], 'line': node.lineno, 'file': fid,
                          'how': '%s reads %s.%s' % (how, ch[0], ch[1])})

    # -- the end of the evaluation ---------------------------------------------------------------------
    def finish(self, ev):
        c = self.c
        tables = []
        for o in self.objects:
            table = o.data.get('table')
            if not o.data['applied'] and table is not None and (table['picked'] or table['kind'] == 'bnb'):
                # one of a table's alternatives the program's lookup did not pick (or could not decide); a
                # table of quantizations no lookup the evaluation reached picks from: which one loads is open
                if table not in tables:
                    tables.append(table)
                    fid, node = table['site']
                    shown_all = ', '.join(object_shown(x) for x in self.objects if x.data.get('table') is table)
                    c.note('%s: a table of alternatives: only the one the program looks up is read' % shown_all,
                           fid, node)
                    if not table['picked'] and self.quant_open is None:
                        self.quant_open = '%s: a table of %s that no load the evaluation follows looks up' % (
                            c.where(fid, node), shown_all)
                continue
            if not o.data['applied']:
                fr = Frame({}, {}, None, o.data['fid'], o.data['guard'])
                c.phase = o.data['phase']
                apply_object(ev, o, fr, None)
        self.drop_adapter_declarations(c.trees)
        self.finish_models(ev)
        self.finish_part(ev)
        self.finish_sft(ev)
        self.finish_optimizers(ev)
        modules_finish(ev)                      # a custom nn.Module as sweeplint_modules (pymodules.py)

    def drop_adapter_declarations(self, trees):
        """A declaration (an argparse default, a dataclass field) a LoraConfig keyword takes its value from
        (`LoraConfig(r=args.lora_r)`) is read where the config is applied, under that place's conditions: not
        by its name as well, where it would size an adapter in the runs that apply none (`--lora_r 16` beside
        `if args.use_lora:` made every run LoRA, hiding a full fine-tune's out of memory; in a branch decided
        false, as `use_lora: bool = False` is when nothing passes the flag, no config is made at all). Found
        by value (its site) and by the name a config's keyword reads (args.lora_r, cfg["lora_r"])."""
        names = set()
        for t in trees:
            if t is None:
                continue
            for n in ast.walk(t):
                if isinstance(n, ast.Call) and call_name(n.func) in ADAPTER_CONFIGS:
                    for kw in n.keywords:
                        if kw.arg is None:
                            continue
                        for x in ast.walk(kw.value):
                            if isinstance(x, ast.Attribute):
                                names.add(x.attr)
                            elif isinstance(x, ast.Name):
                                names.add(x.id)
                            elif isinstance(x, ast.Constant) and isinstance(x.value, str):
                                names.add(x.value)
        if names:
            self.records = [r for r in self.records if r['rank'] != 0 or r['key'].split('.')[-1] not in names]
        used = set()
        for o in self.objects:
            if o.data.get('kind') != 'lora':
                continue
            for _, kv in o.data['kw'].values():
                site = kv.site if isinstance(kv, K) else None
                if site is not None and isinstance(site[0], int):
                    used.add(tuple(site))
        if used:
            self.records = [r for r in self.records if r['rank'] != 0 or
                            (r.get('file'), r.get('line'), r.get('col'), r.get('end_line'), r.get('end_col')) not in used]

    def finish_optimizers(self, ev):
        """The optimizer the program builds (optimizer_call): read when it is one class, or when each class is
        built under a condition the sweep decides per run (`if cfg.optim == "sgd": SGD(...) else: AdamW(...)`);
        two classes built unconditionally (a GAN's two models, a probe beside the model) are not read: which
        one steps the model is not the text's to say. Beside an HF/TRL trainer given no optimizers=, the
        program's optimizer is not the trainer's (transformers Trainer.create_optimizer builds one from
        TrainingArguments.optim): not read either."""
        c = self.c
        opts = self.optimizers
        if not opts or any(o['opt'] is None for o in opts):
            return
        first = opts[0]
        if self.hf_trainers and not any(self.hf_trainers):
            # the trainer steps with the optimizer TrainingArguments.optim names (AdamW by default)
            c.note('%s(...) is not the trainer\'s optimizer (the trainer builds its own from TrainingArguments.optim '
                   'unless given optimizers=): not read' % first['cls'], first['fid'], first['node'])
            return
        decided = all(o['guard'] is not None and o['guard'] is not GUARD_UNKNOWN for o in opts)
        if len(set((o['opt'], o['impl']) for o in opts)) > 1 and not decided:
            c.note('the program builds several optimizers (%s): not read' %
                   ', '.join(sorted(set(o['opt'] for o in opts))), first['fid'], first['node'])
            return
        if not decided:
            opts = opts[:1]
        phase = c.phase
        for o in opts:
            fr = Frame({}, {}, None, o['fid'], o['guard'] if decided else None)
            c.phase = o['phase']
            site = c.site(o['fid'], o['node'])
            how = '%s(...) call' % o['cls']
            self.sink(ev, 'optimizer', K(o['opt'], site), how, o['node'], fr)
            if o['impl'] is not None:  # rules/keys.yaml: optimizer.fused / optimizer.foreach (role optimizer_impl)
                self.sink(ev, 'optimizer.' + o['impl'], K(o['impl'] == 'fused', site), how, o['node'], fr)
        c.phase = phase

    def finish_sft(self, ev):
        """A TRL SFTTrainer without packing: each step's length is a bound, not max_length. TRL tokenizes each
        example truncated at max_length (max_seq_length before 0.20) and its default collator pads each batch
        to its longest example (trl/trainer/sft_trainer.py @ f2cd5771 DataCollatorForLanguageModeling: "Inputs
        are dynamically padded to the maximum length of a batch"; @ v0.11.0 e4935e13: tokenized with
        padding=False, transformers' DataCollatorForLanguageModeling(mlm=False) pads the same way). Under
        Unsloth, padding-free batching is on by default (unsloth/trainer.py @ 015bdef0: padding_free None ->
        configure_padding_free): a step holds the batch's real tokens, each example at most max_seq_length.
        Either way the length bounds the step (docs/memory-model.md "Dynamic padding"). A data_collator of the
        program's own, packing the text does not decide, or the program's own tokenizer(padding="max_length")
        (every example already full): not read."""
        c = self.c
        if not self.sft:
            return
        fid, node = self.sft[0][0], self.sft[0][1]
        if any(s[2] for s in self.sft):
            c.note('SFTTrainer(data_collator=...): the step\'s length is the collator\'s, not read', fid, node)
            return
        pk = self.sft_packing
        if pk is not None and not (isinstance(pk, K) and pk.v is False):
            if not (isinstance(pk, K) and pk.v is True):
                c.note('SFTConfig(packing=...) is not decided by the text: the step\'s length is not read', fid, node)
            return
        if self.pads_to_max:
            return
        how = ('SFTTrainer under Unsloth without packing: padding-free batching, each example at most '
               'max_seq_length (a bound)') if self.unsloth is not None else \
            ('SFTTrainer without packing: TRL\'s collator pads each batch to its longest example, each at most '
             'max_length (a bound)')
        self.record('sweeplint_padding', K('longest', c.site(fid, node)), how, node, fid, c.phase)

    def finish_part(self, ev):
        """The part of the model the program loads (issue #28): T5EncoderModel / get_encoder() the encoder
        alone, AutoModel or a bare *Model class the base model without a head; one answer for all loads."""
        c = self.c
        classes = set(n for n, _, _ in self.model_classes)
        if not classes:
            return
        n, fid, node = self.model_classes[0]
        site = c.site(fid, node)
        if classes <= ENCODER_CLASSES | {'get_encoder'}:
            self.record('sweeplint_part', K('encoder', site), '%s: the encoder alone' % n, node, fid, c.phase)
        elif all(x == 'AutoModel' or (x.endswith('Model') and 'For' not in x and 'LM' not in x and
                                      x not in ENCODER_CLASSES and x != 'PreTrainedModel') for x in classes):
            self.record('sweeplint_part', K('base', site), '%s.from_pretrained: the base model, no task head' % n,
                        node, fid, c.phase)

    def finish_models(self, ev):
        c = self.c
        cands = [m for m in self.models if isinstance(m[0], (K, P, M))]
        if not cands:
            return
        # one value, or values of one sweep parameter under guards that do not overlap
        merged = None
        for v, how, node, fid, rank in cands:
            if merged is None:
                merged = (v, how, node, fid, rank)
                continue
            mv = merge_model(merged[0], v)
            if mv is None:
                merged = False
                break
            merged = (mv, merged[1], merged[2], merged[3], max(merged[4], rank))
        if merged:
            v, how, node, fid, rank = merged
            saved = c.phase
            c.phase = rank
            self.emit(ev, 'model_name_or_path', v, how, node, fid)
            c.phase = saved
            return
        names = sorted(set(shown(v.v)[1:-1] if isinstance(v, K) and isinstance(v.v, str) else
                           ('the sweep\'s %s' % v.name if isinstance(v, P) else
                            'a value chosen by the sweep\'s %s' % v.param if isinstance(v, M) else '?')
                           for v, _, _, _, _ in cands))
        if all(isinstance(v, K) for v, _, _, _, _ in cands):
            c.note('several model literals (%s): the model is not read from the program' % ', '.join(names[:4]))
        else:
            c.note('several models (%s): the model is not read from the program' % ', '.join(names[:4]))

    def merged_maps(self):
        """Maps of one (parameter, setting) merged: a call made per value of the parameter (a class chosen
        by a model name) makes one map per value, each unset for the others; for each value the last map
        that sets it wins, as the later call would."""
        out = []
        index = {}
        for m in self.maps:
            only = m.get('only')
            k = (m['param'], m['key'], only['param'] if only else None,
                 json.dumps([(c['when'], c.get('value'), c.get('unset')) for c in m['cases']], sort_keys=True)
                 if only else None)
            if only and k in index:
                # the same map under another value of the guarding parameter: one map, its values joined
                into = out[index[k]]
                into['only'] = dict(into['only'], values=into['only']['values'] +
                                    [x for x in only['values'] if x not in into['only']['values']])
                continue
            if k not in index:
                index[k] = len(out)
                out.append(dict(m, cases=[dict(c) for c in m['cases']]))
                continue
            into = out[index[k]]
            by_when = dict((json.dumps(c['when'], sort_keys=True), i) for i, c in enumerate(into['cases']))
            for c in m['cases']:
                i = by_when.get(json.dumps(c['when'], sort_keys=True))
                if i is None:
                    into['cases'].append(dict(c))
                elif not c.get('unset'):
                    into['cases'][i] = dict(c)
        return out

    def merged_params(self):
        """Parameter roles under another parameter's values: one per (parameter, setting, guard), values joined."""
        out = []
        index = {}
        for r in self.params:
            only = r.get('only')
            k = (r['param'], r['key'], only['param'] if only else id(r))
            if only and k in index:
                into = out[index[k]]
                into['only'] = dict(into['only'], values=into['only']['values'] +
                                    [x for x in only['values'] if x not in into['only']['values']])
                continue
            index[k] = len(out)
            out.append(dict(r))
        return out

    def argv_flags(self):
        """The long options the program's command line accepts, when it is read only by argparse parsers
        whose every flag the text shows (parse_args() of sys.argv, reached): a flag of none of them stops the
        run ('unrecognized arguments'). None when not known so."""
        if not self.reads_argv or not self.argv_parsers or self.argv_loose or self.argv_hidden or \
                self.c.stopped is not None or not self.argv_words <= {'ArgumentParser', 'parse_args'}:
            return None
        flags = set()
        for p in self.argv_parsers:
            if p.open:
                return None
            for fl, _, _ in p.specs.values():
                flags.update(f for f in fl if f.startswith('--'))
        return sorted(flags)

    def to_json(self):
        c = self.c
        recs = sorted(self.records, key=lambda r: (r['rank'], r['seq']))
        for r in recs:
            del r['seq']
        reads = dict(self.wandb_reads)
        if self.wandb_bound and not reads:
            # wandb.config taken and no key of it read (a train() that binds it and hands it on to what the
            # text does not show): whether the sweep reaches the run is not decided, not refused
            reads['*'] = 1
        return {
            'settings': recs, 'params': self.merged_params(), 'maps': self.merged_maps(), 'notes': self.notes,
            'trains': True if self.trains else (False if self.infers else None),
            'quant_open': self.quant_open,
            'imports': sorted(set(self.imports)), 'configs': self.configs_json(),
            'hydra': self.hydra, 'refs': self.refs,
            'files': c.files, 'config_files': c.configs,
            'modules': [{'name': n, 'file': f} for n, f in self.modules],
            'wandb': {'reads': sorted(k for k, p in reads.items() if p == 2),
                      'maybe': sorted(k for k, p in reads.items() if p == 1)},
            'reads_argv': self.reads_argv,
            'argv_flags': self.argv_flags(),
            'wandb_replaced': {'fid': self.wandb_replaced[0], 'line': self.wandb_replaced[1]}
            if self.wandb_replaced else None,
            'stopped': c.stopped, 'steps': c.ops, 'launches': self.launches,
            'used_params': ['*'] if '*' in c.params.used else sorted(c.params.used),
        }


def merge_model(a, b):
    """Two model candidates as one value, or None when they disagree somewhere."""
    if const_key(a) == const_key(b) and isinstance(a, K):
        return a
    if isinstance(a, P) and isinstance(b, P) and a.name == b.name:
        return a
    if isinstance(a, M) and isinstance(b, M) and a.param == b.param:
        cases = {}
        for x in a.xs:
            k = pkey(x)
            va, vb = a.cases.get(k, UNK), b.cases.get(k, UNK)
            if va is UNSET:
                cases[k] = vb
            elif vb is UNSET or const_key(va) == const_key(vb):
                cases[k] = va
            else:
                return None
        return M(a.param, a.xs, cases, a.cond)
    return None


def chain_of(node):
    """cfg.model.name / cfg["model"]["name"] -> ("cfg", "model.name"); None for anything else."""
    parts = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            sl = node.slice.value if isinstance(node.slice, ast.Index) else node.slice
            if not (isinstance(sl, ast.Constant) and isinstance(sl.value, str)):
                return None
            parts.append(sl.value)
            node = node.value
        elif isinstance(node, ast.Name) and parts:
            return node.id, '.'.join(reversed(parts))
        else:
            return None


# ---- the sinks -------------------------------------------------------------------------------------

def first_arg(args, kwargs, *names):
    if args:
        return args[0]
    for n in names:
        if n in kwargs:
            return kwargs[n]
    return None


def sink_model(ev, value, node, how, fr):
    """A model loader's model: collected, decided at the end (one value is the model; several are not)."""
    c = ev.c
    if value is None:
        return
    vn, v = value
    g = fr.guard
    if g is not None and g is not GUARD_UNKNOWN:
        v = ev.guarded(g, v, UNSET)
    if isinstance(v, OneOf):
        for o in v.opts:
            if isinstance(o, K):
                c.out.models.append((o, how, vn, fr.fid, c.phase))
        return
    if isinstance(v, U) and vn is not None:
        c.out.ref(ev, 'model_name_or_path', vn, how, fr.fid)
        return
    key = (fr.fid, getattr(vn, 'lineno', 0), getattr(vn, 'col_offset', 0), const_key(v) if isinstance(v, K) else id(v))
    if key in c.out.model_seen:
        return
    c.out.model_seen.add(key)
    c.out.models.append((v, how, vn, fr.fid, c.phase))


def from_pretrained(ev, name, base, args, kwargs, node, fr, made):
    if base and any(w in base for w in NOT_A_MODEL):
        return None
    if base in UNSLOTH_CLASSES:
        return unsloth_load(ev, name, base, args, kwargs, node, fr, made)
    first = first_arg(args, kwargs, 'pretrained_model_name_or_path')
    literal = first is not None and isinstance(first[0], ast.Constant)
    sink_model(ev, first, node, '%s.from_pretrained%s' % (base or '', '("...")' if literal else ''), fr)
    if base:
        ev.c.out.model_classes.append((base, fr.fid, node))
    q = kwargs.get('quantization_config')
    undecided = q is not None and undecided_choice(ev, q[1], q[0], fr)
    for k in FROM_PRETRAINED_KWARGS:
        if k in kwargs:
            kn, kv = kwargs[k]
            ev.c.out.sink(ev, k, dtype_value(kv), 'from_pretrained(%s=...)' % k, kn, fr)
    if q is not None and not undecided:
        apply_value(ev, q[1], fr, q[0])
    return None


ADAPTER_CONFIGS = frozenset(('LoraConfig', 'LoHaConfig', 'LoKrConfig', 'AdaLoraConfig', 'IA3Config', 'VeraConfig',
                             'OFTConfig', 'BOFTConfig', 'get_peft_model'))


def call_name(f):
    """The last name of a call's function: LoraConfig for peft.LoraConfig(...)."""
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


def unsloth_load(ev, name, base, args, kwargs, node, fr, made):
    """Unsloth's FastLanguageModel / FastModel / FastVisionModel .from_pretrained(model_name, max_seq_length,
    dtype, load_in_4bit, ...) (unsloth/models/loader.py @ 015bdef0d94a241bcd94eec7a405b1700632180d;
    docs/program.md "Unsloth"). It loads the causal-LM (or image-text) class with its head, so no part is
    recorded. Its defaults are data (rules/frameworks.yaml "Unsloth ..."), recognised by the keys emitted
    here only where they apply: load_in_4bit=True unless the call chooses another load; FastModel's own
    use_gradient_checkpointing="unsloth", applied at load (vision.py post_patch_model), and FastLanguageModel's
    when it hands the load to FastModel (load_in_8bit / full_finetuning / qat_scheme)."""
    c = ev.c
    first = first_arg(args, kwargs, 'model_name')
    literal = first is not None and isinstance(first[0], ast.Constant)
    sink_model(ev, first, node, '%s.from_pretrained(%s)' % (base, '"..."' if literal else 'model_name=...'), fr)
    if c.out.unsloth is None:
        c.out.unsloth = (fr.fid, node)
    site = c.site(fr.fid, node)
    if 'max_seq_length' in kwargs:
        # the longest sequence the model is set up for (RoPE, the trainer's truncation): a cap; the
        # trainer's collator decides each step's length (pysinks.py Out.finish_sft)
        kn, kv = kwargs['max_seq_length']
        c.out.sink(ev, 'max_seq_length', kv, '%s.from_pretrained(max_seq_length=...)' % base, kn, fr)
    for k in ('load_in_4bit', 'load_in_8bit', 'dtype'):
        if k in kwargs:
            kn, kv = kwargs[k]
            c.out.sink(ev, k, kv, '%s.from_pretrained(%s=...)' % (base, k), kn, fr)
    full = kwargs.get('full_finetuning')
    if full is not None and isinstance(full[1], K) and full[1].v is True:
        # loader.py: "You selected full finetuning support, but 4bit / 8bit is enabled - disabling" them
        c.out.unsloth_full = True
        c.out.sink(ev, 'load_in_4bit', K(False, full[1].site), '%s.from_pretrained(full_finetuning=True): no '
                   'quantised load' % base, full[0], fr)
    elif full is not None and not (isinstance(full[1], K) and full[1].v is False):
        c.note('%s.from_pretrained(full_finetuning=...) is not decided by the text: what trains is not read' % base,
               fr.fid, node)
    q = kwargs.get('quantization_config')
    if q is not None and not undecided_choice(ev, q[1], q[0], fr):
        apply_value(ev, q[1], fr, q[0])
    fi = kwargs.get('fast_inference')
    if fi is not None and not (isinstance(fi[1], K) and fi[1].v in (False, None)):
        # loader.py: fast_inference=True starts vLLM in the same process, its KV pool a share
        # (gpu_memory_utilization, default 0.5) of the card beside the training step: not modelled
        c.note('%s.from_pretrained(fast_inference=...): vLLM inside the training process, holding a share of '
               'the GPU (gpu_memory_utilization) the estimate does not count' % base, fr.fid, node)
    if not any(k in kwargs for k in UNSLOTH_LOADS) and None not in kwargs and \
            not any(isinstance(k, ast.keyword) and k.arg is None for k in getattr(node, 'keywords', [])):
        c.out.sink(ev, 'sweeplint_unsloth_load', K(base, site),
                   '%s.from_pretrained() without load_in_4bit: its default' % base, node, fr)
    delegated = base != 'FastLanguageModel' or any(
        k in kwargs and isinstance(kwargs[k][1], K) and kwargs[k][1].v not in (False, None)
        for k in ('load_in_8bit', 'full_finetuning', 'qat_scheme'))
    if delegated:
        unsloth_gc(ev, base + '.from_pretrained', kwargs, node, fr)
    return None


def unsloth_gc(ev, what, kwargs, node, fr):
    """use_gradient_checkpointing of an Unsloth call: True / "unsloth" on, False off; not given, Unsloth's
    default "unsloth" (rules/frameworks.yaml "Unsloth gradient checkpointing")."""
    c = ev.c
    gc = kwargs.get('use_gradient_checkpointing')
    if gc is None:
        c.out.sink(ev, 'sweeplint_unsloth_gc', K(what, c.site(fr.fid, node)),
                   '%s() without use_gradient_checkpointing: its default' % what, node, fr)
        return
    c.out.sink(ev, 'use_gradient_checkpointing',
               lift(lambda x: x if isinstance(x, K) and (isinstance(x.v, bool) or x.v == 'unsloth') else UNK, gc[1])
               if not isinstance(gc[1], P) else gc[1], '%s(use_gradient_checkpointing=...)' % what, gc[0], fr)


def unsloth_peft(ev, name, base, args, kwargs, node, fr, made):
    """FastLanguageModel.get_peft_model(model, r=16, target_modules=[q,k,v,o,gate,up,down], lora_alpha=16,
    lora_dropout=0.0, use_gradient_checkpointing="unsloth") (unsloth/models/llama.py FastLlamaModel.
    get_peft_model @ 015bdef0): LoRA with those keywords; FastModel's (vision.py FastBaseModel.get_peft_model)
    defaults target_modules to every linear layer of attention and MLP (finetune_*_modules=True). Under
    from_pretrained(full_finetuning=True) it does nothing ("Full finetuning is enabled, so .get_peft_model
    has no effect")."""
    c = ev.c
    if c.out.unsloth_full:
        c.note('%s.get_peft_model after from_pretrained(full_finetuning=True): no effect (a full fine-tune)' % base,
               fr.fid, node)
        return None
    site = c.site(fr.fid, node)
    c.out.sink(ev, 'peft_method', K('lora', site), '%s.get_peft_model(...)' % base, node, fr)
    for k in ('r', 'target_modules', 'lora_dropout'):
        if k in kwargs:
            kn, kv = kwargs[k]
            if isinstance(kv, U) and kn is not None:
                c.out.ref(ev, 'lora.' + k, kn, '%s.get_peft_model(%s=...)' % (base, k), fr.fid)
                continue
            c.out.sink(ev, 'lora.' + k, kv, '%s.get_peft_model(%s=...)' % (base, k), kn, fr)
    opened = None not in kwargs and \
        not any(isinstance(k, ast.keyword) and k.arg is None for k in getattr(node, 'keywords', []))
    if opened and not args[1:] and not all(k in kwargs for k in ('r', 'target_modules', 'lora_dropout')):
        c.out.sink(ev, 'sweeplint_unsloth_peft' if base == 'FastLanguageModel' else 'sweeplint_unsloth_peft_all',
                   K(base, site), '%s.get_peft_model() defaults' % base, node, fr)
    if opened:
        unsloth_gc(ev, base + '.get_peft_model', kwargs, node, fr)
    return None


def for_inference(ev, name, base, args, kwargs, node, fr, made):
    """FastLanguageModel.for_inference(model): the model generates (a training program's sampling after
    train() stays training: whether it trains decides, pysinks.py sink_call)."""
    if base in UNSLOTH_CLASSES:
        c = ev.c
        c.out.infers = True
        if c.out.infer_at is None:
            c.out.infer_at = (fr.fid, node)
    return None


def undecided_choice(ev, v, node, fr):
    """quantization_config=TABLE.get(mode) with a mode the text does not decide (pyeval.py table_choices): a
    note naming the alternatives, none read (their table is settled: none is read at the end either)."""
    if not isinstance(v, OneOf) or not any(choice_object(o) for o in v.opts):
        return False
    for o in v.opts:
        if choice_object(o) and o.data.get('table') is not None:
            o.data['table']['picked'] = True
    what = 'quantization_config is one of %s, which the program does not decide' % \
        ', '.join(object_shown(o) for o in v.opts)
    ev.c.note(what + ': none is read, and a verdict of out of memory rests on it', fr.fid, node)
    if ev.c.out.quant_open is None:
        ev.c.out.quant_open = '%s: %s' % (ev.c.where(fr.fid, node), what)
    return True


def object_shown(o):
    if not choice_object(o):
        return 'None' if isinstance(o, K) and o.v is None else 'unknown'
    kws = []
    for k, (_, kv) in list(o.data['kw'].items())[:3]:
        kws.append('%s=%s' % (k, repr(kv.v) if isinstance(kv, K) and isinstance(kv.v, (bool, type(None))) else
                              shown(kv.v) if isinstance(kv, K) else '...'))
    return '%s(%s)' % (o.data['name'], ', '.join(kws))


def dtype_value(v):
    return v


# timm.create_model and torchvision's ViT builders (docs/program.md "Sinks"): the name reaching them is the
# model (src/models/vitname.c resolves the ViTs), their keywords the image size, the head's classes and the
# patch conv's channels (roles image_size, num_classes, in_chans under sweeplint_ keys, rules/keys.yaml).
# timm: timm/models/_factory.py create_model(model_name, pretrained, pretrained_cfg, ..., **kwargs) and
# VisionTransformer(img_size, patch_size, in_chans, num_classes, ...) (timm/models/vision_transformer.py
# @aa4b5850c1543fa488abf260f18390eda46cf85d); torchvision: vit_b_16(*, weights, progress, **kwargs) into
# VisionTransformer(image_size, ..., num_classes) and get_model(name, **config)
# (torchvision/models/vision_transformer.py, _api.py @07a929e8b851242b1c75c9016ee06a8e502961d8).
TORCHVISION_VITS = {'vit_b_16', 'vit_b_32', 'vit_l_16', 'vit_l_32', 'vit_h_14'}
VISION_KWARGS = {'img_size': 'sweeplint_image_size', 'image_size': 'sweeplint_image_size',
                 'num_classes': 'sweeplint_num_classes', 'in_chans': 'sweeplint_in_chans'}


def int_setting(v):
    """A length or count as a sink takes it: a sweep parameter as it is, a known int (not a bool) per run, else
    unknown."""
    if isinstance(v, P):
        return v
    return lift(lambda x: x if isinstance(x, K) and isinstance(x.v, int) and not isinstance(x.v, bool) else UNK, v)


def positive_int(v):
    return v if isinstance(v, K) and isinstance(v.v, int) and not isinstance(v.v, bool) and v.v > 0 else UNK


def vision_kwargs(ev, lib, kwargs, fr, skip=()):
    for k, key in VISION_KWARGS.items():
        if k in kwargs and k not in skip:
            kn, kv = kwargs[k]
            ev.c.out.sink(ev, key, kv if isinstance(kv, P) else lift(positive_int, kv), '%s(%s=...)' % (lib, k), kn, fr)


def timm_create_model(ev, args, kwargs, node, fr):
    """timm.create_model(name, pretrained=..., num_classes=..., in_chans=..., img_size=...)."""
    first = first_arg(args, kwargs, 'model_name')
    literal = first is not None and isinstance(first[0], ast.Constant)
    sink_model(ev, first, node, 'timm.create_model(%s)' % ('"..."' if literal else '...'), fr)
    vision_kwargs(ev, 'timm.create_model', kwargs, fr, skip=('image_size',))


def torchvision_model(ev, name, args, kwargs, node, fr):
    """torchvision.models.vit_b_16(weights=..., image_size=..., num_classes=...), models.get_model(name)."""
    c = ev.c
    if name == 'get_model':
        first = first_arg(args, kwargs, 'name')
        sink_model(ev, first, node, 'torchvision.models.get_model(...)', fr)
    else:
        sink_model(ev, (node, K(name, c.site(fr.fid, node))), node, 'torchvision.models.%s()' % name, fr)
    w = kwargs.get('weights')
    if w is not None and not (isinstance(w[1], K) and w[1].v is None):
        # weights set: torchvision takes num_classes and image_size from their meta (_ovewrite_named_param)
        c.note('%s(weights=...): the image size and classes are the weights\' (the model\'s defaults are '
               'used)' % name, fr.fid, node)
        return
    vision_kwargs(ev, 'torchvision.models.%s' % name, kwargs, fr, skip=('img_size', 'in_chans'))


def vision_call(ev, name, base, qual, args, kwargs, node, fr):
    """timm's and torchvision's model builders, known by the module the callee comes from."""
    q = qual or ''
    if name == 'create_model' and (base == 'timm' or q.startswith('timm.')):
        timm_create_model(ev, args, kwargs, node, fr)
    elif (name in TORCHVISION_VITS or name == 'get_model') and q.startswith('torchvision.models.'):
        torchvision_model(ev, name, args, kwargs, node, fr)
    elif name == 'reset_classifier' and vit_object(q.rsplit('.', 1)[0]):
        # timm's model.reset_classifier(num_classes): a new head Linear(h, num_classes)
        first = first_arg(args, kwargs, 'num_classes')
        if first is not None:
            ev.c.out.sink(ev, 'sweeplint_num_classes', first[1] if isinstance(first[1], P) else
                          lift(positive_int, first[1]), 'reset_classifier(num_classes)', first[0], fr)


def vit_object(qual):
    """Whether an object's qualified name is what a ViT builder made (timm.create_model(),
    torchvision.models.vit_b_16())."""
    q = (qual or '').rstrip('()')
    return (q.startswith('timm.') and q.endswith('create_model')) or \
        (q.startswith('torchvision.models.') and q.rsplit('.', 1)[-1] in TORCHVISION_VITS)


def vision_replaced(ev, obj, tgt, v, fr):
    """A ViT's head or patch conv replaced after it is built: model.head = nn.Linear(768, 10) (timm),
    model.heads = nn.Linear(768, 5) / self.vit.conv_proj = nn.Conv2d(4, 768, 16, 16) (torchvision): the
    classes and channels the run builds it with (roles num_classes, in_chans)."""
    if not (isinstance(obj, Ext) and obj.made and vit_object(obj.qual)) or not isinstance(v, Layer):
        return
    if tgt.attr in ('head', 'heads') and v.kind == 'Linear':
        key, arg = 'sweeplint_num_classes', 'out_features'
    elif tgt.attr == 'conv_proj' and v.kind == 'Conv2d':
        key, arg = 'sweeplint_in_chans', 'in_channels'
    else:
        if tgt.attr in ('head', 'heads', 'conv_proj'):
            ev.c.note('%s replaced by an nn.%s: its parameters are not counted' % (tgt.attr, v.kind), fr.fid, tgt)
        return
    x = v.kw.get(arg)
    ev.c.out.sink(ev, key, x if isinstance(x, P) else lift(positive_int, x if x is not None else UNK),
                  '%s = nn.%s(%s=...)' % (tgt.attr, v.kind, arg), tgt, fr)


def sentence_transformer(ev, name, base, args, kwargs, node, fr, made):
    first = first_arg(args, kwargs, 'model_name_or_path', 'model_name')
    literal = first is not None and isinstance(first[0], ast.Constant)
    sink_model(ev, first, node, '%s(%s)' % (name, '"..."' if literal else '...'), fr)
    for k in ('max_seq_length', 'max_length'):
        if k in kwargs:
            ev.c.out.sink(ev, 'max_seq_length', kwargs[k][1], '%s(%s=...)' % (name, k), kwargs[k][0], fr)
    # sentence-transformers tokenizes each batch with padding=True, truncating to max_seq_length
    # (sentence_transformers/models/Transformer.py tokenize @005039ff; CrossEncoder's collate likewise):
    # dynamic padding, the length a bound (issue #28)
    c = ev.c
    c.out.sink(ev, 'sweeplint_padding', K('longest', c.site(fr.fid, node)),
               '%s tokenizes with padding=True' % name, node, fr)
    return None


def st_transformer(ev, name, base, args, kwargs, node, fr, made):
    if base != 'models':
        return None
    return sentence_transformer(ev, 'models.Transformer', base, args, kwargs, node, fr, made)


def pipeline(ev, name, base, args, kwargs, node, fr, made):
    if 'model' in kwargs:
        sink_model(ev, kwargs['model'], node, 'pipeline(model=...)', fr)
    return None


def vllm(ev, name, base, args, kwargs, node, fr, made):
    """vLLM's LLM(model=..., gpu_memory_utilization=, max_model_len=, tensor_parallel_size=): its model,
    the keywords that size its start-up, and the engine (docs/memory-model.md "vLLM")."""
    c = ev.c
    c.out.infers = True
    first = first_arg(args, kwargs, 'model')
    if first is None:
        return None
    literal = isinstance(first[0], ast.Constant)
    sink_model(ev, first, node, 'LLM(model=%s)' % ('"..."' if literal else '...'), fr)
    for k in VLLM_KWARGS:
        if k in kwargs:
            kn, kv = kwargs[k]
            c.out.sink(ev, k, kv, 'LLM(%s=...)' % k, kn, fr)
    c.out.sink(ev, 'sweeplint_engine', K('vllm', c.site(fr.fid, node)), 'vLLM LLM(...) call', node, fr)
    return None


def training_args(ev, name, base, args, kwargs, node, fr, made):
    c = ev.c
    c.out.trains = True
    if name == 'SFTConfig':
        c.out.sft_packing = kwargs.get('packing', (None, K(False, None)))[1] if c.out.sft_packing is None \
            else c.out.sft_packing
    # transformers' arguments built without a per-device batch (and no ** the evaluation could not open):
    # the run's batch is the dataclass's default, a setting of the program (rules/frameworks.yaml)
    if name in HF_TRAINING_ARGS and 'per_device_train_batch_size' not in kwargs and None not in kwargs and \
            not any(isinstance(k, ast.keyword) and k.arg is None for k in getattr(node, 'keywords', [])):
        c.out.sink(ev, 'sweeplint_hf_trainer_defaults', K(name, c.site(fr.fid, node)),
                   '%s() without per_device_train_batch_size: its default' % name, node, fr)
    for k, (kn, kv) in kwargs.items():
        if not k:
            continue
        how = '%s(%s=...)' % (name, k)
        if isinstance(kv, U) and kn is not None:
            c.out.ref(ev, k, kn, how, fr.fid)
            continue
        c.out.sink(ev, k, dtype_value(kv), how, kn, fr)
    return None


def lora_config(ev, name, base, args, kwargs, node, fr, made):
    """A LoraConfig is a setting where it is applied (get_peft_model, a trainer's peft_config), under that
    guard; one never applied is read where it is made, as the literal reader did."""
    return make_object(ev, 'lora', name, kwargs, node, fr)


def bnb_config(ev, name, base, args, kwargs, node, fr, made):
    return make_object(ev, 'bnb', name, kwargs, node, fr)


def make_object(ev, kind, name, kwargs, node, fr):
    c = ev.c
    o = Ext(name, True, {'kind': kind, 'kw': dict((k, v) for k, v in kwargs.items() if k), 'fid': fr.fid,
                         'guard': fr.guard, 'phase': c.phase, 'applied': False, 'node': node, 'name': name})
    c.out.objects.append(o)
    return o


def apply_value(ev, v, fr, node):
    """A LoraConfig / BitsAndBytesConfig value applied here: its keywords are settings (per run when the
    value depends on a sweep parameter: `LoraConfig(...) if cfg.use_lora else None`)."""
    if isinstance(v, Ext) and v.data and v.data.get('kind') in ('lora', 'bnb'):
        v.data['applied'] = True
        apply_object(ev, v, fr, node)
        return
    pv = param_values(v) if isinstance(v, M) else None
    if pv is None:
        return
    objs = [v.at(x) for x in v.xs]
    kinds = set(o.data['kind'] for o in objs if isinstance(o, Ext) and o.data and 'kind' in o.data)
    if len(kinds) != 1:
        return
    for o in objs:
        if isinstance(o, Ext) and o.data:
            o.data['applied'] = True
    keys = []
    for o in objs:
        if isinstance(o, Ext) and o.data:
            for k in o.data['kw']:
                if k not in keys:
                    keys.append(k)
    kind = kinds.pop()
    if kind == 'lora':
        cases = {}
        for x in v.xs:
            o = v.at(x)
            cases[pkey(x)] = K('lora', ev.c.site(o.data['fid'], o.data['node'])) if isinstance(o, Ext) and o.data \
                else (UNSET if (isinstance(o, K) and o.v is None) or o is UNSET else UNK)
        ev.c.out.sink(ev, 'peft_method', M(v.param, v.xs, cases), 'LoraConfig(...) applied', node, fr)
    for k in keys:
        cases = {}
        for x in v.xs:
            o = v.at(x)
            if isinstance(o, Ext) and o.data and k in o.data['kw']:
                cases[pkey(x)] = o.data['kw'][k][1]
            elif isinstance(o, K) and o.v is None or o is UNSET:
                cases[pkey(x)] = UNSET
            else:
                cases[pkey(x)] = UNK
        key = ('lora.' + k) if kind == 'lora' else k
        ev.c.out.sink(ev, key, M(v.param, v.xs, cases), '%s(%s=...)' % (o_name(objs), k), node, fr)


def o_name(objs):
    for o in objs:
        if isinstance(o, Ext) and o.data:
            return o.data['name']
    return '?'


def apply_object(ev, o, fr, node):
    c = ev.c
    d = o.data
    prefix = 'lora.' if d['kind'] == 'lora' else ''
    if d['kind'] == 'lora' and d['name'] == 'LoraConfig' and 'peft_type' not in d['kw']:
        # applying a LoraConfig is LoRA, whatever keywords it sets (r defaults to 8 in PEFT)
        sub = Frame({}, {}, None, d['fid'], fr.guard)
        c.out.sink(ev, 'peft_method', K('lora', c.site(d['fid'], d['node'])), 'LoraConfig(...) applied', d['node'], sub)
    for k, (kn, kv) in d['kw'].items():
        how = '%s(%s=...)' % (d['name'], k)
        if isinstance(kv, U) and kn is not None:
            c.out.ref(ev, prefix + k, kn, how, d['fid'])
            continue
        # the keyword's own place (where the object is made), under the guard where it is applied
        sub = Frame({}, {}, None, d['fid'], fr.guard)
        c.out.sink(ev, prefix + k, kv, how, kn if kn is not None else d['node'], sub)


def get_peft_model(ev, name, base, args, kwargs, node, fr, made):
    if base in UNSLOTH_CLASSES:
        return unsloth_peft(ev, name, base, args, kwargs, node, fr, made)
    cfg = args[1] if len(args) > 1 else kwargs.get('peft_config')
    if cfg is not None:
        apply_value(ev, cfg[1], fr, node)
    return None


def trainer(ev, name, base, args, kwargs, node, fr, made):
    c = ev.c
    if name in ('Trainer', 'Fabric') and (base in LIGHTNING or any(k in kwargs for k in (
            'precision', 'devices', 'strategy', 'accelerator'))):
        return lightning(ev, name, base, args, kwargs, node, fr, made)
    if name == 'Fabric':
        return None
    c.out.trains = True
    # an HF/TRL trainer builds its own optimizer from TrainingArguments.optim unless given one (optimizers=,
    # optimizer_cls_and_kwargs=): an optimizer the program builds is then for something else
    c.out.hf_trainers.append(any(k in kwargs for k in ('optimizers', 'optimizer_cls_and_kwargs', None)))
    if name == 'SFTTrainer':
        c.out.sft.append((fr.fid, node, 'data_collator' in kwargs or None in kwargs))
        # TRL < 0.12's SFTTrainer(max_seq_length=..., packing=..., args=TrainingArguments(...)), as Unsloth's
        # notebooks long wrote it: the same settings as SFTConfig's
        if 'packing' in kwargs:
            c.out.sft_packing = kwargs['packing'][1]
        if 'max_seq_length' in kwargs:
            kn, kv = kwargs['max_seq_length']
            c.out.sink(ev, 'max_seq_length', kv, 'SFTTrainer(max_seq_length=...)', kn, fr)
    cls = made.cls.node.name if isinstance(made, Inst) else name
    c.out.sink(ev, 'trainer_class', K(name, c.site(fr.fid, node)), '%s(...)' % cls, node, fr)
    if 'peft_config' in kwargs:
        apply_value(ev, kwargs['peft_config'][1], fr, node)
    ta = kwargs.get('args')
    if ta is not None and isinstance(ta[1], D) and ta[1].kind.startswith('args'):
        for k, v in ta[1].items.items():
            if isinstance(v, (K, P, M)):
                c.out.sink(ev, k, v, 'TrainingArguments %s given to %s' % (k, name), ta[0], fr)
        # HfArgumentParser's TrainingArguments with no per-device batch from the sweep, a config or the
        # command: the dataclass's default runs
        cls = ta[1].kind.split(':')[-1]
        if cls in HF_TRAINING_ARGS and 'per_device_train_batch_size' not in ta[1].items:
            c.out.sink(ev, 'sweeplint_hf_trainer_defaults', K(cls, c.site(fr.fid, node)),
                       '%s from HfArgumentParser without per_device_train_batch_size: its default' % cls, node, fr)
    return None


def lightning(ev, name, base, args, kwargs, node, fr, made):
    c = ev.c
    c.out.trains = True
    for k, (kn, kv) in kwargs.items():
        how = 'Trainer(%s=...)' % k
        if k in ('precision', 'accumulate_grad_batches'):
            c.out.sink(ev, k, kv, how, kn, fr)
        elif k in ('devices', 'gpus'):
            c.out.sink(ev, 'num_gpus', lift(lambda x: x if isinstance(x, K) and isinstance(x.v, int) and
                                            not isinstance(x.v, bool) and x.v > 0 else UNK, kv), how, kn, fr)
        elif k == 'strategy':
            # a registered strategy name, read as a Lightning config's trainer.strategy is (the fsdp role:
            # "ddp" / "auto" shard nothing, "deepspeed_stage_3_offload" is ZeRO-3 with offload, "fsdp" full
            # shard; src/sweep/roles.c sl_fsdp_parse); a strategy object is its own sink (FSDPStrategy)
            c.out.sink(ev, 'trainer.strategy', lift(lambda x: x if isinstance(x, K) and isinstance(x.v, str)
                                                    else UNK, kv), how, kn, fr)
    return None


def fsdp_strategy(ev, name, base, args, kwargs, node, fr, made):
    """Lightning's FSDPStrategy(...) (lightning.fabric / lightning.pytorch strategies): FULL_SHARD unless
    sharding_strategy says otherwise, and use_orig_params=True unless given (fabric/strategies/fsdp.py @ 2.1.0:
    self._fsdp_kwargs.setdefault("use_orig_params", True)), which keeps the adapters inside the blocks' units
    (docs/memory-model.md "FSDP load and save peaks")."""
    c = ev.c
    site = c.site(fr.fid, node)
    ss = kwargs.get('sharding_strategy', (None, K('full_shard', site)))
    c.out.sink(ev, 'FSDPStrategy.sharding_strategy',
               lift(lambda x: K(x.v.split('.')[-1], x.site, x.why) if isinstance(x, K) and isinstance(x.v, str)
                    else UNK, ss[1]), 'FSDPStrategy(sharding_strategy=...)', ss[0] or node, fr)
    uo = kwargs.get('use_orig_params', (None, K(True, site)))
    c.out.sink(ev, 'FSDPStrategy.use_orig_params',
               lift(lambda x: x if isinstance(x, K) and isinstance(x.v, bool) else UNK, uo[1]),
               'FSDPStrategy(use_orig_params=...)', uo[0] or node, fr)
    for arg in ('state_dict_type', 'cpu_offload'):
        if arg in kwargs:
            an, av = kwargs[arg]
            c.out.sink(ev, 'FSDPStrategy.' + arg,
                       lift(lambda x: x if isinstance(x, K) and isinstance(x.v, (str, bool)) else UNK, av),
                       'FSDPStrategy(%s=...)' % arg, an, fr)
    return None


def gradient_checkpointing(ev, name, base, args, kwargs, node, fr, made):
    c = ev.c
    if fr.guard is GUARD_UNKNOWN:
        c.note('gradient_checkpointing_enable() runs under a condition: not read', fr.fid, node)
        return None
    c.out.sink(ev, 'gradient_checkpointing', K(True, c.site(fr.fid, node)), 'gradient_checkpointing_enable() call',
               node, fr)
    return None


def kbit_training(ev, name, base, args, kwargs, node, fr, made):
    """peft's prepare_model_for_kbit_training(model, use_gradient_checkpointing=True): it turns gradient
    checkpointing on unless told not to (peft/utils/other.py: use_gradient_checkpointing defaults to True)."""
    c = ev.c
    gc = kwargs.get('use_gradient_checkpointing') or (args[1] if len(args) > 1 else None)
    value = gc[1] if gc is not None else K(True, c.site(fr.fid, node))
    c.out.sink(ev, 'gradient_checkpointing',
               lift(lambda x: x if isinstance(x, K) and isinstance(x.v, bool) else UNK, value),
               'prepare_model_for_kbit_training(use_gradient_checkpointing=...)', gc[0] if gc else node, fr)
    return None


def dataloader(ev, name, base, args, kwargs, node, fr, made):
    """DataLoader(dataset, batch_size=...): the training batch when the loader shuffles or its dataset is
    named for training; the evaluation batch when named for evaluation; else not read."""
    c = ev.c
    bs = kwargs.get('batch_size') or (args[1] if len(args) > 1 else None)
    if bs is None:
        return None
    ds = args[0][0] if args else kwargs.get('dataset', (None, None))[0]
    dsname = (c.segment(fr.fid, ds) if ds is not None else '').lower()
    shuffle = kwargs.get('shuffle')
    shuffles = shuffle is not None and isinstance(shuffle[1], K) and shuffle[1].v is True
    evalish = any(w in dsname for w in ('val', 'eval', 'test', 'dev', 'valid'))
    if (shuffles or 'train' in dsname) and not evalish:
        key = 'per_device_train_batch_size'
    elif evalish and not shuffles:
        key = 'per_device_eval_batch_size'
    else:
        return None
    c.out.sink(ev, key, bs[1], 'DataLoader(%s, batch_size=...)' % (c.segment(fr.fid, ds, 30) if ds else ''),
               bs[0], fr)
    return None


def st_loss(ev, name, base, args, kwargs, node, fr, made):
    """A sentence-transformers loss: the texts of each example and whether the batch scores in-batch."""
    c = ev.c
    c.out.sink(ev, 'sweeplint_loss', K(name, c.site(fr.fid, node)), '%s(...)' % name, node, fr)
    return None


def st_fit(ev, name, base, args, kwargs, node, fr, made):
    """sentence-transformers' model.fit(train_objectives=..., use_amp=True): since v3 it builds
    TrainingArguments(fp16=use_amp) for a SentenceTransformerTrainer (sentence_transformers/fit_mixin.py
    @ 07ec204d; before, torch.cuda.amp autocast in fp16): use_amp is the run's fp16 mixed precision. Other
    fit()s (Keras, Lightning's Trainer.fit) take no use_amp."""
    if 'use_amp' not in kwargs:
        return None
    kn, kv = kwargs['use_amp']
    ev.c.out.sink(ev, 'fp16', kv, 'fit(use_amp=...)', kn, fr)
    return None


def input_example(ev, name, base, args, kwargs, node, fr, made):
    """InputExample(texts=[q, p, n]): texts per example, the list's length (the longest seen)."""
    c = ev.c
    t = kwargs.get('texts')
    if t is None or not isinstance(t[0], (ast.List, ast.Tuple)):
        return None
    n = len(t[0].elts)
    if n >= 2 and n > getattr(c.out, 'texts_seen', 0):
        c.out.texts_seen = n
        c.out.sink(ev, 'texts_per_example', K(n, c.site(fr.fid, t[0])), 'InputExample(texts=[...]) of %d texts' % n,
                   t[0], fr)
    return None


def generate(ev, name, base, args, kwargs, node, fr, made):
    """HF model.generate(..., max_new_tokens=, num_beams=): the generation's own lengths — kept until the
    end and read only when the program only generates (a training program's evaluation hook generates
    too: its lengths say nothing of the training step, and their keys would read as a generation sweep)."""
    c = ev.c
    for k in ('max_new_tokens', 'num_beams'):
        if k in kwargs:
            kn, kv = kwargs[k]
            v = lift(lambda x: x if isinstance(x, K) and isinstance(x.v, int) and not isinstance(x.v, bool) else UNK,
                     kv) if not isinstance(kv, P) else kv
            c.out.generation.append((ev, k, v, 'generate(%s=...)' % k, kn, fr))
    return None


def get_encoder(ev, name, base, args, kwargs, node, fr, made):
    ev.c.out.model_classes.append(('get_encoder', fr.fid, node))
    return None


def collator_padding(ev, name, base, args, kwargs, node, fr, made):
    """DataCollatorWithPadding pads each batch to its longest example unless told otherwise."""
    pad = kwargs.get('padding')
    if pad is not None and not (isinstance(pad[1], K) and (pad[1].v is True or pad[1].v == 'longest')):
        return None
    c = ev.c
    c.out.sink(ev, 'sweeplint_padding', K('longest', c.site(fr.fid, node)), '%s(...)' % name, node, fr)
    return None


def tokenizer_length(ev, name, base, args, kwargs, node, fr, made):
    """tokenizer(..., padding="max_length", max_length=N): every sequence is N tokens; with padding=True /
    "longest" (dynamic padding) N only bounds each batch's length: read as that bound, with
    sweeplint_padding saying so (issue #28)."""
    pad = kwargs.get('padding')
    if pad is None:
        trunc = kwargs.get('truncation')
        if trunc is None or 'max_length' not in kwargs or not (isinstance(trunc[1], K) and trunc[1].v not in
                                                              (False, None, 'do_not_truncate')):
            return None
        # truncation to max_length and no padding: each example is at most max_length tokens, and what batches
        # them pads each batch to its longest (a collator; examples of unequal length do not stack otherwise):
        # max_length bounds the length as padding=True's does
        pad = (trunc[0], K(True, trunc[1].site))
    pv = pad[1]
    # tokenizer(text_target=...) alone tokenizes the labels: its length is the decoder's (a seq2seq target)
    key = 'max_target_length' if 'text_target' in kwargs and not args and 'text' not in kwargs else 'max_length'
    if isinstance(pv, K) and (pv.v is True or pv.v == 'longest') and name != 'DataCollatorWithPadding':
        # dynamic padding: each batch as long as its longest example, at most max_length (issue #28)
        c = ev.c
        c.out.sink(ev, 'sweeplint_padding', K('longest', pv.site or c.site(fr.fid, pad[0])),
                   '%s(padding=%r)' % (name, pv.v) if 'padding' in kwargs else
                   '%s(truncation=..., no padding)' % name, pad[0], fr)
        if 'max_length' in kwargs:
            kn, kv = kwargs['max_length']
            c.out.sink(ev, key, int_setting(kv), 'tokenizer(max_length=..., padding=%r): a bound' % pv.v if 'padding' in kwargs else
                       'tokenizer(max_length=..., truncation=True): a bound', kn, fr)
        return None
    if 'max_length' not in kwargs or not (isinstance(pv, K) and pv.v == 'max_length'):
        return None
    kn, kv = kwargs['max_length']
    ev.c.out.pads_to_max = True
    ev.c.out.sink(ev, key, int_setting(kv), 'tokenizer(max_length=..., padding="max_length")', kn, fr)
    return None


# (class, attribute) -> setting: an attribute of a library object the program assigns, read as the keyword
# of the same name (sentence-transformers: SentenceTransformer.max_seq_length is its first module's
# max_seq_length, the length its tokenizer truncates to; models.Transformer keeps its own)
ATTR_SINKS = {
    ('SentenceTransformer', 'max_seq_length'): 'max_seq_length',
    ('Transformer', 'max_seq_length'): 'max_seq_length',
}


def attr_sink(ev, obj, attr, v, node, fr):
    """obj.attr = v on an object a library call made (obj.qual 'sentence_transformers.SentenceTransformer()')."""
    cls = obj.qual[:-2].split('.')[-1] if obj.qual.endswith('()') else None
    key = ATTR_SINKS.get((cls, attr))
    if key is None:
        return
    ev.c.out.sink(ev, key, int_setting(v), '%s.%s = ...' % (cls, attr), node, fr)


# callee name -> sink (None base checks inside the sink)
SINKS = {
    'from_pretrained': from_pretrained,
    'SentenceTransformer': sentence_transformer,
    'CrossEncoder': sentence_transformer,
    'Transformer': st_transformer,
    'pipeline': pipeline,
    'LLM': vllm,
    'LoraConfig': lora_config,
    'BitsAndBytesConfig': bnb_config,
    'get_peft_model': get_peft_model,
    'gradient_checkpointing_enable': gradient_checkpointing,
    'DataLoader': dataloader,
    'prepare_model_for_kbit_training': kbit_training,
    'FSDPStrategy': fsdp_strategy,
    'Fabric': trainer,
    'InputExample': input_example,
    'fit': st_fit,
    'generate': generate,
    'get_encoder': get_encoder,
    'DataCollatorWithPadding': collator_padding,
    # transformers data_collator.py: both pad each batch to its longest example by default (padding=True)
    'DataCollatorForSeq2Seq': collator_padding,
    'DataCollatorForTokenClassification': collator_padding,
    'for_inference': for_inference,
}
for _n in ST_LOSSES:
    SINKS[_n] = st_loss
for _n in TRAINING_ARGS:
    SINKS[_n] = training_args
for _n in TRAINER_CLASSES:
    SINKS[_n] = trainer


def sink_call(ev, name, base, qual, fv, args, kwargs, node, fr, made):
    """Run the sink a call names (its settings go to Out); the call's value when the sink makes one."""
    c = ev.c
    if name is None:
        return None
    launch_call(ev, name, base, qual, fv, args, kwargs, node, fr)  # subprocess.run([...]) (pylaunch.py)
    vision_call(ev, name, base, qual, args, kwargs, node, fr)      # timm / torchvision model builders
    m = module_call(ev, name, base, qual, fv, args, kwargs, node, fr, made)
    if m is not None:
        return m                                # a torch.nn module, a tensor's shape (pymodules.py)
    if name in TRAIN_CALLS or name in OPTIMIZERS or (name == 'step' and base and 'optim' in base):
        c.out.trains = True
    if qual and '.optim.' in '.' + qual + '.':
        c.out.trains = True
    if name in ('generate', 'LLM', 'SamplingParams'):
        c.out.infers = True
        if c.out.infer_at is None:
            c.out.infer_at = (fr.fid, node)
    # trainer.train(): a trainer object, whatever class an if/else chose for it; a *Trainer class called
    if (name == 'train' and base and 'trainer' in base.lower()) or (name.endswith('Trainer') and name[:1].isupper()):
        c.out.trains = True
    optimizer_call(ev, name, qual, kwargs, node, fr)
    r = None
    f = SINKS.get(name)
    if f is not None:
        r = f(ev, name, base, args, kwargs, node, fr, made)
    tokenizer_length(ev, name, base, args, kwargs, node, fr, made)
    return r


# ---- the optimizer a program builds ----------------------------------------------------------------------
# A class of these modules, by the name sweeplint's optimizer role reads (src/memory/names.c): torch.optim
# (fused=True one in-place kernel, foreach=False a loop over the parameters: torch/optim/adamw.py @ 002d2f0b),
# bitsandbytes (bnb.optim: 8-bit and paged states), transformers' own AdamW (a loop) and Adafactor,
# DeepSpeed's and apex's FusedAdam, lion-pytorch's Lion. A class of another module (a project's own, optax,
# keras) is not read: its states are not known.
OPTIMIZER_MODULES = ('torch.optim.', 'bitsandbytes.optim.', 'bitsandbytes.', 'transformers.', 'deepspeed.ops.',
                     'apex.optimizers.', 'lion_pytorch.')
OPTIMIZER_CLASSES = {
    'AdamW': 'adamw_torch', 'Adam': 'adam', 'SGD': 'sgd', 'Adagrad': 'adagrad', 'RMSprop': 'rmsprop',
    'Adafactor': 'adafactor', 'AdamW8bit': 'adamw8bit', 'Adam8bit': 'adam8bit', 'PagedAdamW8bit': 'paged_adamw_8bit',
    'PagedAdamW': 'paged_adamw', 'PagedAdamW32bit': 'paged_adamw_32bit', 'PagedAdam8bit': 'paged_adam_8bit',
    'Lion': 'lion', 'Lion8bit': 'lion_8bit', 'PagedLion8bit': 'paged_lion_8bit', 'PagedLion': 'paged_lion_32bit',
    'AdEMAMix': 'ademamix', 'AdEMAMix8bit': 'ademamix_8bit', 'FusedAdam': 'fusedadam',
}


def optimizer_call(ev, name, qual, kwargs, node, fr):
    """torch.optim.AdamW(model.parameters(), fused=True), bnb.optim.PagedAdamW8bit(...), SGD(momentum=0.9):
    kept for Out.finish_optimizers, which reads the program's one optimizer (or one per run)."""
    c = ev.c
    if name not in OPTIMIZER_CLASSES or not qual or not qual.startswith(OPTIMIZER_MODULES) or \
            qual.rsplit('.', 1)[-1] != name:
        return
    if fr.guard is GUARD_UNKNOWN:
        # which optimizer steps the model is not the text's to say: none is read (finish_optimizers)
        c.note('%s(...) runs under a condition the program does not decide: no optimizer is read' % name,
               fr.fid, node)
        c.out.optimizers.append(built_optimizer(None, None, name, fr, node, c.phase))
        return
    opt = OPTIMIZER_CLASSES[name]
    if qual.startswith('transformers.') and name == 'AdamW':
        opt = 'adamw_hf'                        # transformers.optimization.AdamW: its own per-parameter loop
    elif qual.startswith('transformers.') and name != 'Adafactor':
        return
    if name == 'SGD':
        # momentum keeps a buffer per parameter; a momentum the text does not give as 0 is counted
        m = kwargs.get('momentum')
        zero = m is None or (isinstance(m[1], K) and not isinstance(m[1].v, bool) and m[1].v == 0)
        opt = 'sgd' if zero else 'sgd_momentum'
    impl = None  # 'fused' (fused=True) or 'foreach' (foreach=False: its loop over the parameters)
    fused, foreach = kwargs.get('fused'), kwargs.get('foreach')
    if qual.startswith('torch.optim.') and fused is not None and isinstance(fused[1], K) and fused[1].v is True:
        impl = 'fused'
    elif qual.startswith('torch.optim.') and foreach is not None and isinstance(foreach[1], K) and \
            foreach[1].v is False:
        impl = 'foreach'
    c.out.optimizers.append(built_optimizer(opt, impl, name, fr, node, c.phase))


def built_optimizer(opt, impl, cls, fr, node, phase):
    """One optimizer the program builds, for Out.finish_optimizers: the name sweeplint's optimizer role reads
    (None: built under a condition the text does not decide), fused / foreach (or None), its class, where and
    under which guard and phase."""
    return {'opt': opt, 'impl': impl, 'cls': cls, 'fid': fr.fid, 'node': node, 'guard': fr.guard, 'phase': phase}


# ---- what trains: the freezing a program's statements do (issue #28) ---------------------------------
# Not a value reaching a call but a shape of statements: requires_grad_(False) on the model (or its base,
# or its first N layers), `for p in X.parameters(): p.requires_grad = False`, a forward under
# torch.no_grad() in the loop that calls backward (a feature extractor). Read from the whole text of each
# file, as whether it trains is; emitted as sweeplint_frozen (and the head it trains as
# sweeplint_head_params, when its layers are literal), never under a PEFT method (its base is frozen anyway).

BACKBONE_WORDS = {'model', 'bert', 'roberta', 'xlm_roberta', 'deberta', 'electra', 'albert', 'distilbert',
                  'base_model', 'encoder', 'backbone', 'transformer', 't5', 'llm', 'lm', 'plm', 'pretrained',
                  'feature_extractor', 'features', 'body', 'base', 'encoder_model', 'language_model',
                  'text_encoder', 'bert_model'}
EMBED_WORDS = {'embeddings', 'embed_tokens', 'wte', 'word_embeddings', 'shared', 'embedding'}
HEAD_WORDS = ('classifier', 'head', 'score', 'fc', 'proj', 'out', 'lm_head', 'pooler', 'linear', 'mlp',
              'regressor')
PEFT_CALLS = {'get_peft_model', 'LoraConfig', 'prepare_model_for_kbit_training', 'PeftModel'}
LITERAL_LAYERS = {'Linear', 'LayerNorm', 'ReLU', 'GELU', 'Tanh', 'Sigmoid', 'SiLU', 'Dropout', 'Identity',
                  'BatchNorm1d', 'Embedding', 'Conv1d', 'Conv2d', 'LSTM', 'GRU', 'MultiheadAttention',
                  'TransformerEncoderLayer'}
FREEZE_WORDS = re.compile(r'requires_grad|no_grad')


def target_text(node):
    """model.bert / backbone / self.encoder.layer as text, or None."""
    parts = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    else:
        return None
    return '.'.join(reversed(parts))


def freeze_kind(node):
    """What freezing node's parameters freezes: 'backbone', 'embeddings', or None (another part)."""
    t = target_text(node)
    if t is None:
        return None
    last = t.split('.')[-1].lower()
    if isinstance(node, ast.Name) or last in BACKBONE_WORDS or last.endswith('_model') or last.endswith('encoder'):
        return 'backbone'
    if last in EMBED_WORDS:
        return 'embeddings'
    return None


def slice_upper(node):
    """EXPR[:N] / EXPR[0:N] with a literal N: N, else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is None:
        lo, up = node.slice.lower, node.slice.upper
        if (lo is None or (isinstance(lo, ast.Constant) and lo.value == 0)) and isinstance(up, ast.Constant) \
                and isinstance(up.value, int) and not isinstance(up.value, bool) and up.value > 0:
            return up.value
    return None


def sets_requires_grad(stmt):
    """`X.requires_grad = False|True` as a statement: (target node, value), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Attribute) \
            and stmt.targets[0].attr == 'requires_grad' and isinstance(stmt.value, ast.Constant) \
            and isinstance(stmt.value.value, bool):
        return stmt.targets[0].value, stmt.value.value
    return None


def layer_spec(node, depth=0):
    """nn.Linear(768, 2) / nn.Sequential(nn.Linear(768, 256), nn.ReLU(), ...) with literal arguments as a
    layer list (docs/program.md), else None."""
    if not isinstance(node, ast.Call) or depth > 8:
        return None
    name = callee_name(node.func)[0]
    if name == 'Sequential':
        parts = [layer_spec(a, depth + 1) for a in node.args]
        return '; '.join(parts) if parts and all(parts) else None
    if name not in LITERAL_LAYERS:
        return None
    out = []
    for a in node.args:
        if not isinstance(a, ast.Constant) or isinstance(a.value, bool) or not isinstance(a.value, (int, float)):
            return None
        out.append(repr(a.value))
    for k in node.keywords:
        if not k.arg or not isinstance(k.value, ast.Constant) or not isinstance(k.value.value, (int, float, bool)):
            return None
        out.append('%s=%r' % (k.arg, k.value.value))
    return '%s(%s)' % (name, ', '.join(out))


def scan_usage(tree, text, out, fid, ctx):
    """sweeplint_frozen (and sweeplint_head_params) of one file's statements; notes for what is not read."""
    if not FREEZE_WORDS.search(text):
        return
    parents = {}
    calls = set()
    models = set()     # the names a from_pretrained model is bound to
    for node in ast.walk(tree):
        for ch in ast.iter_child_nodes(node):
            parents[id(ch)] = node
        if isinstance(node, ast.Call):
            n, b = callee_name(node.func)
            calls.add(n)
            if n == 'from_pretrained' or n == 'SentenceTransformer':
                p = None
                for cand in ast.walk(tree):
                    if isinstance(cand, ast.Assign) and cand.value is node and len(cand.targets) == 1:
                        p = target_text(cand.targets[0])
                if p:
                    models.add(p.split('.')[-1])
    if calls & PEFT_CALLS:
        return

    def conditional(node):
        p = parents.get(id(node))
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if isinstance(p, (ast.IfExp, ast.For, ast.While, ast.Try)):
                return True
            if isinstance(p, ast.If) and not (isinstance(p.test, ast.Compare) and
                                              isinstance(p.test.left, ast.Name) and p.test.left.id == '__name__'):
                return True
            p = parents.get(id(p))
        return False

    frozen, partial, unfrozen = None, None, False
    order = sorted((n for n in ast.walk(tree) if hasattr(n, 'lineno')), key=lambda n: (n.lineno, n.col_offset))
    for node in order:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'requires_grad_':
            arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == 'requires_grad'),
                                                      None)
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, bool)):
                continue
            owner = node.func.value
            if arg.value is True:
                t = (target_text(owner) or '').lower()
                unfrozen |= not any(w in t.split('.')[-1] for w in HEAD_WORDS)
                continue
            loop = parents.get(id(parents.get(id(node))))
            n = slice_upper(loop.iter) if isinstance(loop, ast.For) and isinstance(owner, ast.Name) and \
                isinstance(loop.target, ast.Name) and loop.target.id == owner.id else None
            if frozen is not None:
                continue
            if n and not conditional(loop):
                frozen = (node, n)
            elif conditional(node):
                partial = partial or (node, 'requires_grad_(False) under a condition')
            elif freeze_kind(owner):
                frozen = (node, freeze_kind(owner))
            else:
                partial = partial or (node, '%s frozen' % target_text(owner))
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and \
                callee_name(node.iter.func)[0] in ('parameters', 'named_parameters'):
            owner = node.iter.func.value if isinstance(node.iter.func, ast.Attribute) else None
            for st in node.body:
                r = sets_requires_grad(st)
                if r is not None and r[1] is True:
                    t = (target_text(owner) or '').lower() if owner is not None else ''
                    unfrozen |= not any(w in t.split('.')[-1] for w in HEAD_WORDS)
                elif r is not None and frozen is None:
                    outer = parents.get(id(node))
                    n = slice_upper(outer.iter) if isinstance(outer, ast.For) and isinstance(owner, ast.Name) and \
                        isinstance(outer.target, ast.Name) and outer.target.id == owner.id else None
                    kind = n if n else (freeze_kind(owner) if owner is not None else None)
                    if conditional(outer if n else node):
                        partial = partial or (node, 'parameters frozen under a condition')
                    elif kind:
                        frozen = (node, kind)
                    else:
                        partial = partial or (node, '%s frozen' % target_text(owner))
                elif isinstance(st, ast.If) and any(sets_requires_grad(b) for b in st.body):
                    partial = partial or (st, 'requires_grad set under a condition, parameter by parameter')
        elif isinstance(node, ast.With) and frozen is None and any(
                isinstance(i.context_expr, ast.Call) and callee_name(i.context_expr.func)[0] == 'no_grad'
                for i in node.items):
            # a feature extractor: the loaded model called under no_grad inside the loop that calls backward
            loop = parents.get(id(node))
            while loop is not None and not isinstance(loop, (ast.For, ast.While, ast.FunctionDef)):
                loop = parents.get(id(loop))
            calls_model = any(isinstance(x, ast.Call) and (target_text(x.func) or '').split('.')[-1] in models
                              for x in ast.walk(node))
            if isinstance(loop, (ast.For, ast.While)) and calls_model and any(
                    isinstance(x, ast.Call) and callee_name(x.func)[0] == 'backward' for x in ast.walk(loop)):
                frozen = (node, 'backbone')
    if frozen is None:
        if partial is not None:
            ctx.note('%s: what trains is not read' % partial[1], fid, partial[0])
        return
    node, kind = frozen
    if unfrozen:
        ctx.note('parameters frozen and others unfrozen: what trains is not read', fid, node)
        return
    site = ctx.site(fid, node)
    out.record('sweeplint_frozen', K(kind, site), 'frozen %s (%s)' % (
        kind if isinstance(kind, str) else 'bottom %d layers' % kind, type(node).__name__), node, fid, 2)
    # the head it trains: an nn.Linear / nn.Sequential of literal sizes bound to a head-like name
    for st in order:
        if isinstance(st, ast.Assign) and len(st.targets) == 1:
            t = target_text(st.targets[0]) or ''
            spec = layer_spec(st.value)
            if spec and any(w in t.split('.')[-1].lower() for w in HEAD_WORDS):
                out.record('sweeplint_head_params', K(spec, ctx.site(fid, st.value)), '%s = %s(...)' % (
                    t, callee_name(st.value.func)[0]), st.value, fid, 2)
                break


def generation_batch(tree, out, fid, ctx):
    """An inference-only program's batch: `for i in range(0, N, B)` whose body slices `[i:i + B]` and calls
    generate (HF generate's batch is the program's loop, not a trainer's default). B a literal, or a name
    bound to one at the module's top level."""
    consts = {}
    for st in getattr(tree, 'body', []):
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and \
                isinstance(st.value, ast.Constant) and isinstance(st.value.value, int) and \
                not isinstance(st.value.value, bool):
            consts[st.targets[0].id] = st.value
    for node in ast.walk(tree):
        if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call)
                and callee_name(node.iter.func)[0] == 'range' and len(node.iter.args) == 3):
            continue
        step = node.iter.args[2]
        lit = step if isinstance(step, ast.Constant) else consts.get(step.id) if isinstance(step, ast.Name) else None
        if lit is None or not isinstance(lit.value, int) or isinstance(lit.value, bool) or lit.value < 1:
            continue
        i = node.target.id

        def is_slice(s):
            if not (isinstance(s, ast.Slice) and isinstance(s.lower, ast.Name) and s.lower.id == i and
                    isinstance(s.upper, ast.BinOp) and isinstance(s.upper.op, ast.Add)):
                return False
            return any(isinstance(x, ast.Name) and x.id == i for x in (s.upper.left, s.upper.right))
        sliced = any(isinstance(x, ast.Subscript) and is_slice(x.slice) for x in ast.walk(node))
        gen = any(isinstance(x, ast.Call) and callee_name(x.func)[0] in ('generate', 'pipeline') for x in ast.walk(node))
        if sliced and gen:
            out.record('batch_size', K(lit.value, ctx.site(fid, lit)),
                       'the generation loop\'s batch: range(..., %d) sliced [%s:%s + ...]' % (lit.value, i, i),
                       lit, fid, 2)
            return
