"""What a calibration case runs beyond a plain training step (issue 33), in the case subprocess.

calibrate.py's child builds the model and runs the steps; this module holds the workloads that
differ from `model(**batch).loss`: a frozen backbone and a head the program adds, an encoder
stack alone, a dual encoder with queries at their own length, padded batches (to max_length, or
dynamically to each batch's longest example), FSDP's load and save phases, generation by
sampling, and DPO and GRPO as TRL computes them (written out: TRL is not installed on the lent
machine, and its trainers need a tokenizer and a dataset this harness does not have).

Sources of what is written out (read, not copied): huggingface/trl @ f2cd57710ae345ea6428ae95363267fcf38a3dc8
trl/trainer/dpo_trainer.py `_compute_loss`, trl/trainer/grpo_trainer.py `_generate_single_turn`,
`_get_per_token_logps_and_entropies`, `_compute_loss`, trl/trainer/utils.py `selective_log_softmax`,
`entropy_from_logits`; torch/distributed/fsdp (FSDP1) `state_dict_type`, `param_init_fn`.

torch and transformers are handed in by the caller (imported in the child only); nothing here
imports them at module level, so the parent and the tests import this file with the standard
library alone.
"""

import contextlib
import re

# --------------------------------------------------------------------------------------------
# Building

# The encoder stack alone of an encoder-decoder (role part=encoder): transformers' classes.
_ENCODER_ONLY = {"t5": "T5EncoderModel", "mt5": "MT5EncoderModel", "umt5": "UMT5EncoderModel"}


def model_class_name(case, default):
    """The transformers class a case builds: the encoder stack for part=encoder, the bare model
    (no task head) for part=base, Whisper's speech seq2seq class, else the task's Auto class."""
    s = case["settings"]
    mt = case["config"]["model_type"]
    if s.get("part") == "encoder":
        if mt not in _ENCODER_ONLY:
            raise ValueError("part=encoder: no encoder-only class for %s" % mt)
        return _ENCODER_ONLY[mt]
    if s.get("part") == "base":
        return "AutoModel"
    if mt == "whisper":
        return "AutoModelForSpeechSeq2Seq"
    return default


def _layers(base):
    """The block list of a bare model (BERT-style encoder.layer, decoder-style layers)."""
    enc = getattr(base, "encoder", None)
    for holder in (enc, base):
        for name in ("layer", "layers", "block"):
            blocks = getattr(holder, name, None) if holder is not None else None
            if blocks is not None:
                return blocks
    raise ValueError("no layer list found on %s" % type(base).__name__)


def apply_frozen(model, case):
    """Role frozen: 'backbone' freezes the bare model (a classifier keeps its head trainable;
    under part=base the whole model, the program's head trains); N freezes the embeddings and
    the first N layers (docs/memory-model.md "What trains")."""
    frozen = case["settings"].get("frozen") or ""
    if not frozen:
        return
    base = getattr(model, "base_model", model)
    if frozen == "backbone":
        base.requires_grad_(False)
        return
    n = int(frozen)
    emb = getattr(base, "embeddings", None) or getattr(base, "embed_tokens", None)
    if emb is None:
        raise ValueError("frozen=%s: no embeddings found" % frozen)
    emb.requires_grad_(False)
    for block in list(_layers(base))[:n]:
        block.requires_grad_(False)


_HEAD_ITEM = re.compile(r"^\s*(Linear)\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$|^\s*(ReLU|GELU|Tanh|Dropout)\s*$")


def parse_head(spec):
    """A head_params layer list as the harness builds it: [('Linear', in, out) | ('ReLU',) ...]."""
    items = []
    for part in spec.split(";"):
        m = _HEAD_ITEM.match(part)
        if not m:
            raise ValueError("head_params item %r is not Linear(in,out), ReLU, GELU, Tanh or Dropout" % part)
        items.append(("Linear", int(m.group(2)), int(m.group(3))) if m.group(1) else (m.group(4),))
    return items


def build_head(spec, torch, dtype, dev):
    """The program's head (role head_params) as torch.nn layers, in the weights' dtype on dev."""
    nn = torch.nn
    layers = []
    for item in parse_head(spec):
        if item[0] == "Linear":
            layers.append(nn.Linear(item[1], item[2]))
        else:
            layers.append(getattr(nn, item[0])())
    return nn.Sequential(*layers).to(device=dev, dtype=dtype)


class Built:
    """What a case holds on the device beside the trained model: the program's head, a second
    (passage) encoder, a reference model. Plain attributes: nothing here is an nn.Module tree
    of the trained model, so its parameters are counted and optimised only where stated."""

    def __init__(self):
        self.head = None
        self.passage = None
        self.reference = None

    def trainable(self):
        """The parameters beside the model's that the optimizer trains (head, passage encoder)."""
        out = []
        for m in (self.head, self.passage):
            if m is not None:
                out += [p for p in m.parameters() if p.requires_grad]
        return out

    def params(self):
        return sum(p.numel() for m in (self.head, self.passage, self.reference) if m is not None
                   for p in m.parameters())


def finish_model(case, model, torch, dev, dtype, build_again):
    """What the case needs besides the model: frozen parts, the program's head, a passage encoder
    (separate_encoders), the reference copy of DPO/GRPO. build_again() builds the model's base once
    more (random weights, the same dtype and device)."""
    s = case["settings"]
    built = Built()
    apply_frozen(model, case)
    if s.get("head_params"):
        built.head = build_head(s["head_params"], torch, dtype, dev)
    if s.get("separate_encoders"):
        built.passage = build_again()
        built.passage.train()
    if needs_reference_copy(case):
        ref = build_again()
        ref.requires_grad_(False)
        ref.eval()
        built.reference = ref
    return built


def needs_reference_copy(case):
    """DPO: a copy unless the policy is a PEFT adapter (the adapter is disabled instead) or the
    reference log-probs are precomputed; a named ref_model is a copy even under PEFT. GRPO: a
    reference only when beta != 0, under PEFT the disabled adapter."""
    s = case["settings"]
    algo, ref = s.get("algorithm"), s.get("ref_model") or "default"
    if algo == "dpo":
        if ref == "precomputed" or ref == "none":
            return False
        return ref != "default" or not s["lora_r"]
    if algo == "grpo":
        return float(s.get("beta") or 0) != 0.0 and not s["lora_r"]
    return False


def uses_disabled_adapter(case):
    """The reference pass runs the policy with its adapter disabled (TRL: use_adapter(model, None))."""
    s = case["settings"]
    if s.get("algorithm") == "dpo":
        return bool(s["lora_r"]) and (s.get("ref_model") or "default") == "default"
    if s.get("algorithm") == "grpo":
        return bool(s["lora_r"]) and float(s.get("beta") or 0) != 0.0
    return False


# --------------------------------------------------------------------------------------------
# Batches

# Dynamic padding: each step's batch is padded to its longest example, this share of seq_len; the
# second step reaches the bound, after the optimizer states exist (the order a real epoch can take).
LONGEST_SCHEDULE = (0.5, 1.0, 0.75, 0.625, 0.875)


def step_length(case, step):
    """The padded length of a step's batch: seq_len, or the schedule's share of it under padding=longest."""
    s = case["settings"]
    L = int(s["seq_len"])
    if s.get("padding") == "longest":
        return max(8, int(L * LONGEST_SCHEDULE[step % len(LONGEST_SCHEDULE)]))
    return L


def padded_mask(torch, g, dev, b, length, bound):
    """An attention mask of b examples padded to `length`: example lengths drawn in
    [bound/4, length], the first example exactly `length` long (so the batch is padded to it)."""
    lo = max(1, min(length, bound // 4))
    lens = torch.randint(lo, length + 1, (b,), device=dev, generator=g)
    lens[0] = length
    pos = torch.arange(length, device=dev).unsqueeze(0)
    return torch.lt(pos, lens.unsqueeze(1)).long()


def special_batch(case, config, torch, dev, g, ids, step):
    """The batch of a case whose inputs are not b x seq_len ones (None: calibrate.make_batch's
    own). ids(n, length) draws token ids."""
    s = case["settings"]
    b, L = int(s["batch_size"]), int(s["seq_len"])
    task = s["task"]
    if case["config"]["model_type"] == "whisper":
        mel = int(case["config"]["num_mel_bins"])
        frames = 2 * int(case["config"]["max_source_positions"])
        dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[s["dtype"]]
        return {"input_features": torch.randn((b, mel, frames), device=dev, dtype=dtype, generator=g),
                "labels": ids(b, int(s["target_len"]))}
    if s.get("algorithm") == "dpo":
        # [chosen, rejected]: 2 x batch sequences of seq_len, the second half of each the completion
        x = ids(2 * b, L)
        cm = torch.zeros((2 * b, L), dtype=torch.long, device=dev)
        cm[:, L // 2:] = 1
        out = {"input_ids": x, "attention_mask": torch.ones_like(x), "completion_mask": cm}
        if s.get("ref_model") == "precomputed":
            out["ref_chosen_logps"] = torch.randn((b,), device=dev, generator=g)
            out["ref_rejected_logps"] = torch.randn((b,), device=dev, generator=g)
        return out
    if s.get("algorithm") == "grpo":
        # batch_size completions: batch / num_generations prompts, each repeated num_generations times
        gens = int(s["num_generations"]) or 1
        prompts = ids(max(1, b // gens), int(s.get("prompt_len") or L))
        return {"prompt_ids": prompts.repeat_interleave(gens, dim=0)}
    if task == "bi-encoder" and s.get("query_len"):
        ones = torch.ones((b, L), dtype=torch.long, device=dev)
        q = int(s["query_len"])
        texts = [(ids(b, q), torch.ones((b, q), dtype=torch.long, device=dev))]
        texts += [(ids(b, L), ones) for _ in range(int(s["texts_per_example"]) - 1)]
        return {"texts": texts}
    if s.get("padding") in ("max_length", "longest"):
        length = step_length(case, step)
        mask = padded_mask(torch, g, dev, b, length, L)
        x = ids(b, length)
        if task == "seq-cls":
            return {"input_ids": x, "attention_mask": mask,
                    "labels": torch.randint(0, 2, (b,), device=dev, generator=g)}
        labels = x.masked_fill(mask == 0, -100)  # DataCollatorForLanguageModeling: padding ignored
        return {"input_ids": x, "attention_mask": mask, "labels": labels}
    if s.get("head_params"):
        return {"input_ids": ids(b, L), "attention_mask": torch.ones((b, L), dtype=torch.long, device=dev),
                "labels": torch.randint(0, 2, (b,), device=dev, generator=g)}
    return None


def per_step_batches(case):
    """Whether each step draws its own batch (its length changes, or GRPO generates it)."""
    s = case["settings"]
    return s.get("padding") == "longest" or s.get("algorithm") == "grpo"


# --------------------------------------------------------------------------------------------
# Losses

def head_loss(model, built, batch, torch):
    """A frozen bare model and the program's head: mean-pooled hidden states through the head,
    cross-entropy over its classes."""
    import torch.nn.functional as F
    h = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
    m = batch["attention_mask"].unsqueeze(-1).to(h.dtype)
    pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
    return F.cross_entropy(built.head(pooled).float(), batch["labels"])


def selective_log_softmax(logits, index, torch):
    """log_softmax(logits)[index] as TRL's selective_log_softmax computes it: float32 logits by
    logsumexp one sequence at a time, 16-bit ones by a log_softmax per sequence."""
    import torch.nn.functional as F
    idx = index.unsqueeze(-1)
    if logits.dtype in (torch.float32, torch.float64):
        picked = torch.gather(logits, dim=-1, index=idx).squeeze(-1)
        lse = torch.stack([torch.logsumexp(seq, dim=-1) for seq in logits])
        return picked - lse
    rows = [F.log_softmax(seq, dim=-1).gather(dim=-1, index=i).squeeze(-1) for seq, i in zip(logits, idx)]
    return torch.stack(rows)


def _sequence_logps(logits, input_ids, completion_mask, torch):
    logps = selective_log_softmax(logits[..., :-1, :], input_ids[..., 1:], torch)
    logps[completion_mask[..., 1:] == 0] = 0.0
    return logps.sum(dim=1)


def _reference_context(model, case):
    """The reference pass: the policy with its adapter disabled (PEFT), or nothing to change."""
    if uses_disabled_adapter(case):
        return model.disable_adapter()
    return contextlib.nullcontext()


def dpo_loss(model, built, case, batch, torch):
    """One DPO loss (sigmoid) over [chosen, rejected] as TRL's DPOTrainer._compute_loss: the
    policy's forward, its per-token log-probs of the completion, the reference's forward under
    no_grad (a copy, or the policy with its adapter disabled) unless precomputed, its logits
    alive to the end of the loss."""
    import torch.nn.functional as F
    s = case["settings"]
    kw = {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"], "use_cache": False}
    out = model(**kw)
    chosen, rejected = _sequence_logps(out.logits, batch["input_ids"], batch["completion_mask"], torch).chunk(2, dim=0)
    if s.get("ref_model") == "precomputed":
        ref_chosen, ref_rejected = batch["ref_chosen_logps"], batch["ref_rejected_logps"]
    else:
        with torch.no_grad(), _reference_context(model, case):
            ref_out = (built.reference or model)(**kw)
        ref_chosen, ref_rejected = _sequence_logps(ref_out.logits, batch["input_ids"], batch["completion_mask"],
                                                   torch).chunk(2, dim=0)
    beta = float(s.get("beta") or 0.1)
    delta = (chosen - ref_chosen) - (rejected - ref_rejected)
    return -F.logsigmoid(beta * delta).mean()


def entropy_from_logits(logits, torch, chunk=128):
    """Per-token entropy in chunks of rows (TRL entropy_from_logits), under the caller's no_grad."""
    flat = logits.reshape(-1, logits.size(-1))
    parts = []
    for i in range(0, flat.size(0), chunk):
        part = flat[i:i + chunk].float()
        logp = torch.log_softmax(part, dim=-1)
        parts.append(-(logp.exp() * logp).sum(-1))
    return torch.cat(parts).reshape(logits.shape[:-1])


def grpo_rollout(model, case, batch, torch):
    """GRPO's generation without vLLM (TRL _generate_single_turn): model.generate over the
    generation batch under no_grad, sampling exactly completion_len tokens (min_new_tokens: the
    worst case the estimate sizes), in the mode training left the model in (train, gradient
    checkpointing on, as TRL calls it). Returns the step's batch: prompt + completion ids."""
    s = case["settings"]
    prompts = batch["prompt_ids"]
    new = int(s["completion_len"])
    with torch.no_grad():
        seq = model.generate(input_ids=prompts, attention_mask=torch.ones_like(prompts), do_sample=True,
                             temperature=1.0, top_p=1.0, top_k=0, max_new_tokens=new, min_new_tokens=new,
                             pad_token_id=0)
    return {"input_ids": seq, "attention_mask": torch.ones_like(seq), "completion_len": new,
            "advantages": torch.randn((seq.size(0),), device=seq.device)}


def grpo_loss(model, built, case, rollout, torch):
    """GRPO's loss (beta 0: no KL; else the k3 estimator against the reference) as TRL's
    _compute_loss: prompt + completion through the model with logits for the completion only
    (logits_to_keep + 1), divided by the temperature in place, selective_log_softmax, entropies
    under no_grad; the reference's log-probs under no_grad before the step when beta != 0."""
    s = case["settings"]
    ids, mask, keep = rollout["input_ids"], rollout["attention_mask"], int(rollout["completion_len"])
    beta = float(s.get("beta") or 0)
    ref_logps = None
    if beta != 0.0:
        with torch.no_grad(), _reference_context(model, case):
            ref_out = (built.reference or model)(input_ids=ids, attention_mask=mask, use_cache=False,
                                                 logits_to_keep=keep + 1)
            ref_logps = selective_log_softmax(ref_out.logits[:, :-1, :][:, -keep:, :], ids[:, -keep:], torch)
            del ref_out
    out = model(input_ids=ids, attention_mask=mask, use_cache=False, logits_to_keep=keep + 1)
    logits = out.logits[:, :-1, :][:, -keep:, :]
    logits.div_(1.0)
    logps = selective_log_softmax(logits, ids[:, -keep:], torch)
    with torch.no_grad():
        entropy_from_logits(logits, torch)
    adv = rollout["advantages"].unsqueeze(1)
    per_token = -torch.exp(logps - logps.detach()) * adv
    if ref_logps is not None:
        diff = ref_logps - logps
        per_token = per_token + beta * (torch.exp(diff) - diff - 1)
    return per_token.mean()


def separate_embeddings(model, built, case, batch, embed):
    """A dual encoder: the queries through the query encoder (the model), every other text through
    the passage encoder."""
    texts = batch["texts"]
    embs = [embed(model, case, *texts[0])]
    other = built.passage if built.passage is not None else model
    embs += [embed(other, case, ids, mask) for ids, mask in texts[1:]]
    return embs


# --------------------------------------------------------------------------------------------
# Generation, SDPA backend, FSDP phases

def generate_kwargs(case):
    """model.generate's decoding settings: beam search / greedy, or sampling with
    num_return_sequences (HF expands each prompt that many times before the prefill)."""
    s = case["settings"]
    if s.get("do_sample"):
        return {"do_sample": True, "num_return_sequences": int(s.get("num_return_sequences") or 1),
                "temperature": 1.0, "top_k": 50, "top_p": 1.0}
    return {"do_sample": False, "num_beams": int(s["num_beams"]) or 1}


def sdpa_context(case, torch):
    """SDPA restricted to one kernel (sdpa_backend=flash): an error, not a silent fallback, when
    the flash kernel cannot run the case."""
    if case.get("sdpa_backend") == "flash":
        from torch.nn.attention import SDPBackend, sdpa_kernel
        return sdpa_kernel([SDPBackend.FLASH_ATTENTION])
    return contextlib.nullcontext()


def fsdp_param_init(case, dev):
    """FSDP1's param_init_fn for a model built on the meta device (fsdp_init=per_unit): each
    unit's module materialised on the GPU as FSDP reaches it (uninitialised: memory is what is
    measured)."""
    if case["settings"].get("fsdp_init") != "per_unit":
        return None
    return lambda module: module.to_empty(device=dev, recurse=False)


def fsdp_state_dict(model, case, torch):
    """The checkpoint save's state dict under FSDP1 (fsdp_state_dict): full_device is torch's
    FullStateDictConfig() defaults (every clone kept on the GPU), full is accelerate's and the HF
    Trainer's (offload_to_cpu, rank0_only), sharded is accelerate's ShardedStateDictConfig
    (offload_to_cpu). Returns the state dict (the caller keeps it alive to the measurement)."""
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp import FullStateDictConfig, ShardedStateDictConfig, StateDictType
    kind = case["settings"]["fsdp_state_dict"]
    if kind == "full_device":
        ctx = FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT,
                                   FullStateDictConfig(offload_to_cpu=False, rank0_only=False))
    elif kind == "full":
        ctx = FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT,
                                   FullStateDictConfig(offload_to_cpu=True, rank0_only=True))
    elif kind == "sharded":
        ctx = FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT,
                                   ShardedStateDictConfig(offload_to_cpu=True))
    else:
        raise ValueError("fsdp_state_dict %r is not one the harness runs" % kind)
    with ctx:
        return model.state_dict()
