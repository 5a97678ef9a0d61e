# pyread: the literal settings of a Python training program, read with ast.parse only.
#
# sweeplint runs this with the user's python3 as `python3 -I -S -B -c <this> PATH MAX_BYTES`
# (src/program/pyread.c: a subprocess with a time, memory and output bound). It never imports or executes the program: ast.parse builds
# a syntax tree, and only literal constants are read from it. It prints one JSON object:
#   {"settings": [{"key", "value", "line", "col", "end_line", "end_col", "how"}...],
#    "notes": [...], "trains": true|false|null, "imports": ["pkg.mod", ...],
#    "configs": [{"path", "line", "how", "dest"}...],   YAML/JSON files it loads by a literal name
#    "hydra": {"config_path", "config_name", "line"} | null}
# or {"error": "...", "line": N} when the program does not parse. Columns are UTF-8 byte offsets
# (0-based, as ast reports them). Only the standard library's ast and json modules are used.
import ast
import json
import sys

TRAINING_ARGS = {
    'TrainingArguments', 'Seq2SeqTrainingArguments', 'SentenceTransformerTrainingArguments',
    'SFTConfig', 'DPOConfig', 'GRPOConfig', 'ORPOConfig', 'KTOConfig', 'RewardConfig', 'PPOConfig',
    'CrossEncoderTrainingArguments',
}
NOT_A_MODEL = ('Tokenizer', 'Processor', 'FeatureExtractor', 'Config', 'PeftModel', 'Dataset')
DTYPES = {'float16', 'half', 'bfloat16', 'float32', 'float', 'float64', 'double'}
TRAIN_CALLS = {'backward', 'fit'}
TRAINER_CLASSES = {'Trainer', 'Seq2SeqTrainer', 'SFTTrainer', 'DPOTrainer', 'GRPOTrainer', 'ORPOTrainer',
                   'KTOTrainer', 'RewardTrainer', 'PPOTrainer', 'SentenceTransformerTrainer',
                   'CrossEncoderTrainer'}
CONFIG_SUFFIXES = ('.yaml', '.yml', '.json')
CONFIG_LOADERS = {'load', 'safe_load', 'full_load', 'open', 'load_config', 'read_config', 'load_yaml',
                  'read_yaml', 'from_yaml', 'from_json', 'parse_config', 'get_config', 'load_json', 'read_json',
                  'from_json_file', 'Path'}
OPTIMIZERS = {'Adam', 'AdamW', 'SGD', 'Adafactor', 'AdamW8bit', 'PagedAdamW', 'PagedAdamW8bit', 'Lion',
              'RMSprop', 'Adagrad', 'LAMB', 'FusedAdam', 'DeepSpeedCPUAdam'}


class Unknown(Exception):
    pass


def literal(node):
    """The value of a literal expression, or raise Unknown (names, calls, arithmetic are not literals)."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (str, int, float, bool)) or node.value is None:
            return node.value
        raise Unknown
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        v = node.operand.value
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
        raise Unknown
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) <= 64:
        out = [literal(e) for e in node.elts]
        if all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in out):
            return out
        raise Unknown
    # torch.bfloat16 and friends: a dtype is a constant of the torch module
    if isinstance(node, ast.Attribute) and node.attr in DTYPES and isinstance(node.value, ast.Name) \
            and node.value.id in ('torch', 'th'):
        return node.attr
    raise Unknown


def chain(node):
    """cfg.model.name / cfg["model"]["name"] -> ("cfg", "model.name"); None for anything else."""
    parts = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
                isinstance(node.slice.value, str):
            parts.append(node.slice.value)
            node = node.value
        elif isinstance(node, ast.Name) and parts:
            return node.id, '.'.join(reversed(parts))
        else:
            return None


def callee(call):
    f = call.func
    if isinstance(f, ast.Name):
        return f.id, None
    if isinstance(f, ast.Attribute):
        base = f.value
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        return f.attr, name
    return None, None


class Reader:
    def __init__(self, tree):
        self.tree = tree
        self.settings = []
        self.notes = []
        self.imports = []
        self.parents = {}
        self.trains = False
        self.infers = False
        self.models = []
        self.configs = []
        self.hydra = None
        self.refs = []

    def emit(self, key, node, value, how):
        self.settings.append({
            'key': key, 'value': value, 'line': node.lineno, 'col': node.col_offset,
            'end_line': getattr(node, 'end_lineno', node.lineno) or node.lineno,
            'end_col': getattr(node, 'end_col_offset', node.col_offset) or node.col_offset,
            'how': how})

    def conditional(self, node):
        """True when node sits under an if/loop/try inside its function (it may not run)."""
        p = self.parents.get(id(node))
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if isinstance(p, (ast.IfExp, ast.For, ast.While, ast.Try)):
                return True
            if isinstance(p, ast.If) and not is_main_guard(p):
                return True
            p = self.parents.get(id(p))
        return False

    # -- argparse --------------------------------------------------------------------------
    def add_argument(self, call):
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not flags:
            return
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        dest = None
        if 'dest' in kw:
            try:
                dest = literal(kw['dest'])
            except Unknown:
                return
        if not isinstance(dest, str):
            longs = [f for f in flags if f.startswith('--')]
            shorts = [f for f in flags if f.startswith('-') and not f.startswith('--')]
            name = longs[0][2:] if longs else shorts[0][1:] if shorts else flags[0]
            dest = name.replace('-', '_')
        shown = next((f for f in flags if f.startswith('--')), flags[0])
        action = None
        if 'action' in kw:
            try:
                action = literal(kw['action'])
            except Unknown:
                action = '?'
        if 'default' in kw:
            node = kw['default']
            try:
                value = literal(node)
            except Unknown:
                self.notes.append('%d: argparse default of %s is computed: not read' % (node.lineno, shown))
                return
            self.emit(dest, node, value, 'argparse default of %s' % shown)
            if isinstance(value, str) and value.endswith(CONFIG_SUFFIXES) and ('config' in dest or 'cfg' in dest):
                self.config_file(node, value, 'argparse default of %s' % shown, dest)
        elif action in ('store_true', 'store_false'):
            self.emit(dest, call, action == 'store_false', 'argparse %s flag %s (default)' % (action, shown))

    def set_defaults(self, call):
        for k in call.keywords:
            if not k.arg:
                continue
            try:
                value = literal(k.value)
            except Unknown:
                continue
            self.emit(k.arg, k.value, value, 'argparse set_defaults(%s=...)' % k.arg)

    def ref(self, key, node, how):
        """A keyword whose value is read from a config object (cfg.model.name): resolved against the configs."""
        c = chain(node)
        if c is None or c[0] == 'wandb':
            return
        self.refs.append({'key': key, 'root': c[0], 'path': c[1], 'line': node.lineno, 'col': node.col_offset,
                          'end_line': node.end_lineno, 'end_col': node.end_col_offset,
                          'how': '%s reads %s.%s' % (how, c[0], c[1])})

    def config_file(self, node, path, how, dest=None):
        self.configs.append({'path': path, 'line': node.lineno, 'how': how, 'dest': dest})

    # -- dataclasses (HfArgumentParser) --------------------------------------------------------
    def dataclass(self, cls):
        for st in cls.body:
            if not isinstance(st, ast.AnnAssign) or not isinstance(st.target, ast.Name) or st.value is None:
                continue
            node = st.value
            if isinstance(node, ast.Call) and callee(node)[0] == 'field':
                d = next((k.value for k in node.keywords if k.arg == 'default'), None)
                if d is None:
                    continue
                node = d
            try:
                value = literal(node)
            except Unknown:
                continue
            self.emit(st.target.id, node, value, 'dataclass field %s.%s' % (cls.name, st.target.id))

    # -- keyword literals ----------------------------------------------------------------------
    def keywords(self, call, prefix, how):
        for k in call.keywords:
            if not k.arg:
                continue
            try:
                value = literal(k.value)
            except Unknown:
                self.ref(prefix + k.arg, k.value, '%s(%s=...)' % (how, k.arg))
                continue
            self.emit(prefix + k.arg, k.value, value, '%s(%s=...)' % (how, k.arg))

    def from_pretrained(self, call, base):
        if base and any(w in base for w in NOT_A_MODEL):
            return
        first = call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == 'pretrained_model_name_or_path'), None)
        if first is not None:
            try:
                value = literal(first)
                if isinstance(value, str):
                    self.models.append((first, value, '%s.from_pretrained("...")' % (base or '')))
            except Unknown:
                self.ref('model_name_or_path', first, '%s.from_pretrained' % (base or ''))
        for k in call.keywords:
            if k.arg in ('torch_dtype', 'dtype', 'load_in_4bit', 'load_in_8bit', 'attn_implementation'):
                try:
                    value = literal(k.value)
                except Unknown:
                    continue
                self.emit(k.arg, k.value, value, 'from_pretrained(%s=...)' % k.arg)

    def lightning(self, call):
        for k in call.keywords:
            try:
                value = literal(k.value)
            except Unknown:
                continue
            how = 'Trainer(%s=...)' % k.arg
            if k.arg == 'precision':
                self.emit('precision', k.value, value, how)
            elif k.arg == 'accumulate_grad_batches':
                self.emit('accumulate_grad_batches', k.value, value, how)
            elif k.arg in ('devices', 'gpus') and isinstance(value, int) and not isinstance(value, bool) and value > 0:
                self.emit('num_gpus', k.value, value, how)
            elif k.arg == 'strategy' and isinstance(value, str) and value.startswith('deepspeed_stage_'):
                stage = value[len('deepspeed_stage_'):len('deepspeed_stage_') + 1]
                if stage.isdigit():
                    self.emit('zero_stage', k.value, int(stage), how)

    def fsdp_strategy(self, call):
        # Lightning's FSDPStrategy(...) (lightning.fabric / lightning.pytorch strategies): FULL_SHARD
        # unless sharding_strategy says otherwise, and use_orig_params=True unless given
        # (fabric/strategies/fsdp.py @ 2.1.0: self._fsdp_kwargs.setdefault("use_orig_params", True)),
        # which keeps the adapters inside the blocks' units (docs/memory-model.md "FSDP load and save peaks")
        given = {}
        for k in call.keywords:
            try:
                given[k.arg] = (k.value, literal(k.value))
            except Unknown:
                given[k.arg] = (k.value, None)
        node, value = given.get('sharding_strategy', (call, 'full_shard'))
        if isinstance(value, str):
            self.emit('FSDPStrategy.sharding_strategy', node, value.split('.')[-1], 'FSDPStrategy(sharding_strategy=...)')
        node, value = given.get('use_orig_params', (call, True))
        if isinstance(value, bool):
            self.emit('FSDPStrategy.use_orig_params', node, value, 'FSDPStrategy(use_orig_params=...)')
        for arg in ('state_dict_type', 'cpu_offload'):
            if arg in given and isinstance(given[arg][1], (str, bool)):
                self.emit('FSDPStrategy.' + arg, given[arg][0], given[arg][1], 'FSDPStrategy(%s=...)' % arg)

    def hydra_call(self, call, name):
        h = self.hydra or {'config_path': None, 'config_name': None, 'line': call.lineno}
        path = hydra_kw(call, 'config_path')
        cname = hydra_kw(call, 'config_name')
        if path is not None:
            h['config_path'] = path
        if cname is not None:
            h['config_name'] = cname
        self.hydra = h

    def run(self):
        stack = [self.tree]
        order = []
        while stack:
            node = stack.pop()
            order.append(node)
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
                stack.append(child)
        order.sort(key=lambda n: (getattr(n, 'lineno', 0), getattr(n, 'col_offset', 0)))
        for node in order:
            if isinstance(node, ast.ClassDef) and any(is_dataclass(d) for d in node.decorator_list):
                self.dataclass(node)
            elif isinstance(node, ast.Import):
                self.imports.extend(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                self.imports.append(node.module)
                self.imports.extend(node.module + '.' + a.name for a in node.names)
                if node.module.split('.')[0] == 'vllm':
                    self.infers = True
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == 'optim':
                self.trains = True
            elif isinstance(node, ast.Call):
                self.call(node)
        # one model literal is the model; several different ones (teacher and student, an if/else) are unknown
        names = sorted({v for _, v, _ in self.models})
        if len(names) == 1:
            node, value, how = self.models[0]
            self.emit('model_name_or_path', node, value, how)
        elif len(names) > 1:
            self.notes.append('several model literals (%s): the model is not read from the program'
                              % ', '.join(names[:4]))

    def call(self, node):
        name, base = callee(node)
        if name is None:
            return
        if name in CONFIG_LOADERS and node.args:
            try:
                path = literal(node.args[0])
            except Unknown:
                path = None
            if isinstance(path, str) and path.endswith(CONFIG_SUFFIXES):
                self.config_file(node.args[0], path, '%s("%s")' % ((base + '.' if base else '') + name, path))
        if name == 'main' and base == 'hydra' or name in ('initialize', 'compose'):
            self.hydra_call(node, name)
        if name == 'add_argument':
            self.add_argument(node)
        elif name == 'set_defaults':
            self.set_defaults(node)
        elif name in TRAINING_ARGS:
            self.keywords(node, '', name)
            self.trains = True
        elif name == 'LoraConfig':
            self.keywords(node, 'lora.', name)
        elif name == 'BitsAndBytesConfig':
            self.keywords(node, '', name)
        elif name == 'from_pretrained':
            self.from_pretrained(node, base)
        elif name == 'SentenceTransformer' and node.args:
            try:
                value = literal(node.args[0])
                if isinstance(value, str):
                    self.models.append((node.args[0], value, 'SentenceTransformer("...")'))
            except Unknown:
                pass
        elif name == 'gradient_checkpointing_enable':
            if self.conditional(node):
                self.notes.append('%d: gradient_checkpointing_enable() runs under a condition: not read'
                                  % node.lineno)
            else:
                self.emit('gradient_checkpointing', node, True, 'gradient_checkpointing_enable() call')
        elif name == 'FSDPStrategy':
            self.fsdp_strategy(node)
        elif name == 'Trainer' and base in ('pl', 'L', 'lightning', 'pytorch_lightning'):
            self.lightning(node)
            self.trains = True
        elif name in ('Trainer', 'Fabric') and any(k.arg in ('precision', 'devices', 'strategy', 'accelerator')
                                                   for k in node.keywords):
            self.lightning(node)
            self.trains = True
        # padding="max_length": every sequence is that long (dynamic padding only bounds it: not read)
        pad = next((k.value for k in node.keywords if k.arg == 'padding'), None)
        if isinstance(pad, ast.Constant) and pad.value == 'max_length':
            for k in node.keywords:
                if k.arg == 'max_length':
                    try:
                        v = literal(k.value)
                    except Unknown:
                        break
                    if isinstance(v, int) and not isinstance(v, bool):
                        self.emit('max_length', k.value, v, 'tokenizer(max_length=..., padding="max_length")')
        if name in TRAIN_CALLS or name in TRAINER_CLASSES or name in OPTIMIZERS:
            self.trains = True
        if name == 'step' and base and 'optim' in base:
            self.trains = True
        if name in ('generate', 'LLM', 'SamplingParams'):
            self.infers = True


def hydra_kw(call, key):
    for k in call.keywords:
        if k.arg == key:
            try:
                v = literal(k.value)
            except Unknown:
                return None
            return v if isinstance(v, str) else None
    return None


def is_dataclass(d):
    if isinstance(d, ast.Call):
        d = d.func
    return (isinstance(d, ast.Name) and d.id == 'dataclass') or (
        isinstance(d, ast.Attribute) and d.attr == 'dataclass')


def is_main_guard(node):
    t = node.test
    return isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == '__name__'


def main():
    with open(sys.argv[1], 'rb') as f:
        src = f.read(int(sys.argv[2]) + 1)
    if len(src) > int(sys.argv[2]):
        print(json.dumps({'error': 'larger than %s bytes: not parsed' % sys.argv[2], 'line': 0}))
        return
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        print(json.dumps({'error': 'syntax error: %s' % (e.msg,), 'line': e.lineno or 0}))
        return
    except (ValueError, RecursionError, MemoryError, UnicodeDecodeError) as e:
        print(json.dumps({'error': '%s: %s' % (type(e).__name__, str(e)[:200]), 'line': 0}))
        return
    r = Reader(tree)
    try:
        r.run()
    except (RecursionError, MemoryError) as e:
        print(json.dumps({'error': '%s while reading' % type(e).__name__, 'line': 0}))
        return
    trains = True if r.trains else (False if r.infers else None)
    print(json.dumps({'settings': r.settings, 'notes': r.notes, 'trains': trains,
                      'imports': sorted(set(r.imports)), 'configs': r.configs, 'hydra': r.hydra,
                      'refs': r.refs}))


main()
