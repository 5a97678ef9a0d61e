#!/usr/bin/env python3
"""Score `sweeplint estimate` against calibration/published.tsv (published peak-memory figures).

  published.py [--sweeplint PATH] [-f text|json] [--min-expressible PCT] [--median-bar PCT]
               [--bias-bar PCT] [--confidence LIST] FILE.tsv

published.tsv is written by people reading benchmark tables, so its fields carry words as well
as values ("nf4 (quant_storage bf16)", "adamw_torch (step fused into backward)", "~64 (tweets,
dynamic padding)"). Each row is read into sweeplint roles by the rules below, or left out with
the reason: a setting sweeplint has no role for yet (PEFT methods it does not size, optimizer
step in backward, ...), a model it cannot build, or a field the source did not
state. Nothing is guessed that the row does not say, except what its `notes`/`confidence` already
mark as inferred.

Each expressible row is compared on what its metric means (the same mapping as compare.py):

  torch_max_allocated, torch_peak_active       total - cuda_context - slack  (live tensors)
  torch_max_reserved                           total - cuda_context
  torch_max_reserved_minus_init                total - cuda_context, when the notes say the
                                               reserved memory after init was ~0 (PEFT's
                                               MetaMathQA runs measure before loading); else
                                               also minus the weights as loaded
  nvml_used, "W&B system GPU memory"           total (whole device)
  unspecified (torchtune peak ...)            total - cuda_context (a torch peak)
  unspecified, unspecified (VRAM)              total (whole device, as nvidia-smi shows it)

The report: one line per row (id, measured, predicted, signed error, peak phase), the rows left
out with their reasons, and the median |error| and median signed error (bias) by method (full,
lora, qlora, fsdp, peft: the other PEFT methods), by model family and by confidence.

Bars (exit 1 when one is missed): --min-expressible (% of rows that can be estimated),
--median-bar (median |error| of the estimated rows), --bias-bar (|median signed error| of each
method group with at least --bias-min-rows rows). Exit 2 on usage or I/O problems.

Standard library only.
"""

import argparse
import csv
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import compare  # noqa: E402
import measured  # noqa: E402

COLUMNS = ("id", "source", "quote", "model", "task", "batch", "grad_accum", "seq_len", "target_len",
           "dtype", "amp", "gc", "optimizer", "method", "lora_r", "lora_targets", "attn", "zero_stage",
           "num_gpus", "gpu", "metric", "value_mib", "confidence", "notes")

# GPU values that name no card exactly: the estimate depends on the card only through the
# cuBLAS workspace (Hopper or not) and the capacity (the fits verdict, not scored here).
GPU_FALLBACK = "a100-80gb"

# Optimizer spellings of published.tsv -> sweeplint optimizer role values.
OPTIMIZERS = {
    "adamw_torch": "adamw_torch",
    "adamw_hf": "adamw_hf",
    "adamw_deepspeed": "adamw_torch",   # DeepSpeed FusedAdam: fp32 m and v, as torch AdamW
    "paged_adamw_32bit": "paged_adamw_32bit", # bitsandbytes paged: large states in managed memory
    "paged_adamw_8bit": "paged_adamw_8bit",
    "adamw_bnb_8bit": "adamw_bnb_8bit",
}

# Model families by the model id (for the summary only).
FAMILIES = (("qwen", "qwen"), ("llama", "llama"), ("mistral", "mistral"), ("t0_", "t5"), ("mt0", "t5"),
            ("t5", "t5"), ("bloom", "bloom"), ("bart", "bart"), ("roberta", "roberta"))

# Settings that published.tsv states in `notes` (or the id) rather than in a column: (name, pattern
# over the lowercased notes). Each is either passed to sweeplint as the role it maps to
# (NOTE_ROLES) or, while sweeplint has no role for it, the reason the row is left out.
# torchtune's Llama 3.2 3B ladder adds each technique "on top of the previous one": a later row's
# notes name only the technique it adds ("on top of AC", "on top of everything above"), so the earlier
# techniques are read from those phrases too.
_LADDER = r"|on top of ac\b|activation offloading to cpu on top|on top of everything above"
NOTE_SETTINGS = (
    ("modules_to_save", r"modules_to_save=\[['\"]?wte"),
    ("torch_compile", r"torch[. ]compile|uses torch compile|on top of (compile|chunked|activation checkpointing)"
                      r"|packed\+compile|[(,] ?compile," + _LADDER),
    ("chunked_ce", r"chunkedoutputloss|chunked ce|chunked cross|on top of (chunked|activation checkpointing)"
                   + _LADDER),
    ("activation_offload", r"activation offload|on top of everything above"),
    ("cpu_offload", r"cpu offload|fsdp_cpu_offload|offload \(params"),
    ("optimizer_in_backward", r"optimizer_in_bwd=true|optimizer_in_bwd \(|opt-in-bwd=true"),
    # torch.optim.AdamW(fused=True): the ladder's collector read "AdamW (torch, fused per config style)"
    # (torchtune's AdamW configs say fused: True); its rows after packing say "on top of" it
    ("optimizer_fused", r"fused per config style|on top of (packed|compile|chunked|activation checkpointing)"
                        + _LADDER),
)
# settings of the FSDP load/save peaks and the QLoRA upcast that the notes state as role=value tokens
# (docs/memory-model.md "FSDP load and save peaks"): passed on as they are
NOTE_TOKENS = re.compile(r"\b(fsdp_init|fsdp_state_dict|fsdp_use_orig_params|kbit_prepare|bnb_legacy"
                         # preference and RL fine-tuning (docs/cli.md "Roles of preference and RL fine-tuning")
                         r"|algorithm|num_generations|prompt_len|completion_len|engine|vllm_mode"
                         r"|vllm_gpu_memory_utilization|vllm_sleep_mode|beta|ref_model|reward_model"
                         r"|generation_batch_size|steps_per_generation)=([a-z0-9_.]+)\b")
# a row that its collector read but that no setting can express: "left out: REASON" in its notes
LEFT_OUT = re.compile(r"\bleft out: ([^;]+)")
# bitsandbytes before 0.43.2 kept each 4-bit linear's input (bitsandbytes#1270): a version the row states
BNB_LEGACY = re.compile(r"bitsandbytes[ =v]*0\.(?:[0-3]?\d|4[0-2]|43\.[01])(?:\.\d+)?\b")

# What a framework named in the row's source does that no column states, read from its code:
# (pattern over the lowercased source, the roles, the roles that only apply under FSDP).
#  - Lightning Fabric / lit-gpt: FSDPStrategy sets use_orig_params=True (lightning/fabric/strategies/
#    fsdp.py @ 2.1.0 6f6c07dd: self._fsdp_kwargs.setdefault("use_orig_params", True)) and wraps each
#    Block with its LoRA layers inside; lit-gpt's finetune scripts quantise through Lightning's
#    BitsandbytesPrecision (no prepare_model_for_kbit_training) and compute the head and the loss over
#    chunks of 128 tokens (finetune/lora.py @ 8641822: model(input_ids, lm_head_chunk_size=128),
#    chunked_cross_entropy)
#  - LLaMA-Factory never calls peft's prepare_model_for_kbit_training (its bases stay 16-bit)
SOURCE_DEFAULTS = (
    (r"lit-gpt|litgpt", ["kbit_prepare=false", "chunked_ce=true"], ["fsdp_use_orig_params=true"]),
    (r"llama-factory|llamafactory", ["kbit_prepare=false"], []),
)

# The Qwen (v1) README's "Profiling of Memory and Speed" table, whose "G" is 10^9 bytes (read_row)
QWEN_PROFILE = "QwenLM/Qwen README.md 'Profiling of Memory and Speed'"
GB_PER_GIB = 1e9 / 2 ** 30

# lit-gpt's resource tables (tutorials/resource-tables.md @ 0cc02afa): "with a minibatch size of 128"
LITGPT_MINIBATCH = 128

# torchtune configs a row names, as they were at the commit its README table cites (pytorch/torchtune
# recipes/configs/<name>.yaml @ 30b8519e8): settings no column holds
TORCHTUNE_CONFIGS = {
    "llama3_1/70b_lora": ["chunked_ce=true"],       # loss: CEWithChunkedOutputLoss
    # loss: CEWithChunkedOutputLoss; custom_sharded_layers: ['tok_embeddings', 'output'] (fsdp_cpu_offload: True)
    "llama3_1/70b_full": ["chunked_ce=true", "fsdp_embedding_units=true"],
    "llama3_1/8b_lora_single_device": ["chunked_ce=true"],  # loss: CEWithChunkedOutputLoss
}

# note settings -> sweeplint roles, for those sweeplint has a role for
NOTE_ROLES = {"cpu_offload": "offload=all", "modules_to_save": "modules_to_save=embed_tokens,lm_head",
              "torch_compile": "torch_compile=true", "chunked_ce": "chunked_ce=true",
              "activation_offload": "activation_offload=true",
              "optimizer_in_backward": "optimizer_in_backward=true", "optimizer_fused": "optimizer_impl=fused"}

# published `method` -> sweeplint's peft_method (docs/cli.md); the methods of RANKED_METHODS adapt
# the target linears at rank lora_r, the others train virtual tokens or norms
PEFT_METHODS = {"lora-dora": "dora", "dora": "dora", "loha": "loha", "vera": "vera", "ia3": "ia3", "oft": "oft",
                "boft": "boft", "prompt_tuning": "prompt_tuning", "p_tuning": "p_tuning",
                "prefix_tuning": "prefix_tuning", "adaption_prompt": "adaption_prompt", "ln_tuning": "ln_tuning",
                "trainable_tokens": "trainable_tokens"}
# the methods of rules/peft.yaml, by their peft_method name
TABLE_METHODS = ("adalora", "adamss", "beft", "c3a", "deft", "delora", "fourierft", "frod", "glora", "gralora",
                 "hira", "lily", "lokr", "miss", "osf", "peanut", "psoft", "pvera", "randlora", "road", "shira",
                 "tinylora", "unilora", "vblora", "waveft")
PEFT_METHODS.update((m, m) for m in TABLE_METHODS)
RANKED_METHODS = ("dora", "loha", "vera", "ia3", "oft", "boft")
# rules/peft.yaml methods whose `lora_r` role is PEFT's `r` (rank_key: r), the key published.tsv's lora_r
# column holds; AdaLoRA sizes by init_r (the column's r is unused there), FourierFT, WaveFT, C3A, ROAD,
# BEFT and FRoD have no rank
TABLE_RANK_R = ("adamss", "deft", "delora", "glora", "gralora", "hira", "lily", "lokr", "miss", "peanut", "psoft",
                "pvera", "randlora", "shira", "tinylora", "unilora", "vblora")
# Method variants a row's id states that change what the forward keeps and that no role expresses
# (rules/peft.yaml sizes the defaults): DeFT para=true trains no R and keeps no input copy (2 GB less
# on the MetaMathQA run); MiSS init_weights="bat" materialises each target's weight
PEFT_VARIANTS = (("deft", r"-para\b", "DeFT para=true (PaRa)"),
                 ("miss", r"-bat\b", "MiSS init_weights='bat'"))
# OSF's rank is the trainable rank (min(in, out) - effective_rank), named in the run's id (rank128)
RANK_FROM_ID = ("osf",)
# The virtual tokens of the PEFT MetaMathQA default experiments when the row does not name them
# (huggingface/peft method_comparison/MetaMathQA/experiments/<method>/llama-3.2-3B-default/
# adapter_config.json @ 5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40: num_virtual_tokens 200 for prompt
# and prefix tuning, 20 for P-tuning, adapter_len 100 for the adaption prompt; trainable_tokens
# "sos+eos" trains two token rows)
PEFT_TOKENS = {"prompt_tuning": 200, "prefix_tuning": 200, "p_tuning": 20, "adaption_prompt": 100}


def virtual_tokens(raw, peft):
    """The virtual tokens of a prompt-method row: named in its id (tokens50, sos+eos), else the default."""
    m = re.search(r"tokens(\d+)", raw["id"])
    if m:
        return int(m.group(1))
    if peft == "trainable_tokens":
        return 2 if "sos+eos" in raw["id"] else None
    return PEFT_TOKENS.get(peft)


# the fsdp role's strategies (docs/cli.md)
FSDP_STRATEGIES = ("full_shard", "shard_grad_op", "hybrid_shard", "hybrid_shard_zero2", "no_shard")

_LEADING_INT = re.compile(r"^\s*(?:~|<=|>=|<|>)?\s*(\d+)")


class Row:
    """One published row read into roles, or left out with a reason."""

    def __init__(self, raw):
        self.raw = raw
        self.id = raw["id"]
        self.roles = []
        self.metric = None
        self.reason = None
        self.assumed = []
        self.roles_extra = []
        self.method = method_group(raw)
        self.family = family_of(raw["model"])
        self.confidence = raw.get("confidence", "")
        try:
            self.measured = float(raw["value_mib"])
        except ValueError:
            self.measured = None


def first_word(text):
    return (text or "").strip().split(" ")[0].strip().lower()


def method_group(raw):
    """full | lora | qlora | fsdp | peft (another PEFT method): the groups the bias bar is per."""
    if raw["zero_stage"].strip().lower().startswith("fsdp"):
        return "fsdp"
    m = raw["method"].strip().lower()
    if m in ("full", "lora", "qlora"):
        return m
    return "peft"


def family_of(model):
    low = model.lower()
    for key, fam in FAMILIES:
        if key in low:
            return fam
    return "other"


def leading_int(text):
    m = _LEADING_INT.match(text or "")
    return int(m.group(1)) if m else None


def lora_targets(text):
    """The row's LoRA targets as a sweeplint lora_targets value, or None when they say nothing."""
    t = (text or "").strip()
    if t in ("", "-"):
        return None
    low = t.lower()
    if low.startswith("all linear") or low.startswith("all-linear") or "all linear" in low:
        return "all-linear"
    if "peft t5 default" in low or "peft mt5 default" in low:
        return "q,v"
    t = re.sub(r"\(.*?\)", "", t)                 # drop remarks: "mlp(w1,w2,w3)" keeps "mlp"
    names = [n.strip() for n in t.split(",") if n.strip()]
    out = []
    for n in names:
        if n == "mlp":                             # torchtune apply_lora_to_mlp: w1, w2, w3
            out += ["gate_proj", "up_proj", "down_proj"]
        elif n == "output":                        # torchtune apply_lora_to_output: the LM head
            return None
        else:
            out.append(n.split(" ")[0])
    return ",".join(out)


def metric_of(raw):
    """The compare.py metric a published metric stands for, or None."""
    m = raw["metric"].strip().lower()
    notes = raw.get("notes", "").lower()
    if m.startswith("torch_max_reserved_minus_init"):
        return "torch_reserved" if "so ~= peak reserved" in notes else "reserved_minus_init"
    if m.startswith("torch_max_reserved"):
        return "torch_reserved"
    if m.startswith("torch_max_allocated") or m.startswith("torch_peak_active"):
        return "torch_allocated"
    if m.startswith("nvml_used") or "nvml-like" in m:
        return "nvml_used"
    if m.startswith("unspecified"):
        # a figure the source does not say how it read: a torch peak when it names torch's
        # statistics (torchtune's log_memory_stats: peak active/alloc/reserved), else the whole
        # device as nvidia-smi shows it (README "GPU memory" / "VRAM" tables): those rows read
        # 7-10 % under as torch peaks while every row naming a torch statistic reads within
        # ±4 % (docs/calibration.md "Published measurements")
        return "torch_peak" if "torch" in m else "nvml_used"
    return None


def read_row(raw):
    """A Row with roles and metric, or with reason set when the row cannot be estimated."""
    r = Row(raw)

    def out(reason):
        r.reason = reason
        return r

    if r.measured is None or r.measured <= 0:
        return out("value_mib %r is not a measurement" % raw["value_mib"])
    if QWEN_PROFILE in raw.get("source", "") and re.search(r"converted as gib", raw.get("notes", "").lower()):
        # the Qwen (v1) README's fine-tuning profile prints "G": its text says "the memory (GB)", and read
        # as GiB its Qwen-7B full-parameter cell at 1024 tokens (162.0G over 2 A100-80GB) is 81.0 GiB per
        # GPU, more than the card holds (80 GiB): the table is in 10^9 bytes, not the GiB published.tsv
        # converted it to (docs/calibration.md "Published measurements")
        r.measured *= GB_PER_GIB
        r.assumed.append("'G' = 10^9 bytes")
    r.metric = metric_of(raw)
    if r.metric is None:
        return out("metric %r has no counterpart in the estimate" % raw["metric"])

    zs = raw["zero_stage"].strip().lower()
    fsdp = None
    if zs.startswith("fsdp"):
        # "fsdp-full-shard" -> the fsdp role's full_shard
        fsdp = zs[len("fsdp"):].strip("-_ ").replace("-", "_") or "full_shard"
        if fsdp not in FSDP_STRATEGIES:
            return out("FSDP strategy %r: not a value sweeplint reads" % raw["zero_stage"])

    # --- settings stated in the notes ---
    notes = raw.get("notes", "").lower()
    m = LEFT_OUT.search(raw.get("notes", ""))
    if m:
        return out(m.group(1).strip())
    if "actual lengths may be shorter" in notes:
        # torchtune's 2024-05 README table: seq_len is the configs' cap over unpacked alpaca; the
        # LoRA run on 2 x 4090 without activation checkpointing at 16.2 GB could not hold 4 x 2048
        # tokens of Llama-2-7B activations, so the rows' lengths are not the ones that ran
        return out("seq_len %s is the config's cap: the source ran unpacked data of shorter, unstated "
                   "lengths" % raw["seq_len"].strip())
    for name, pattern in NOTE_SETTINGS:
        if re.search(pattern, notes):
            if name not in NOTE_ROLES:
                return out("%s (stated in notes): no role yet" % name)
            role = NOTE_ROLES[name]
            if fsdp and name == "cpu_offload":
                role = "fsdp_offload=true"  # FSDP CPUOffload(offload_params=True)
            if role not in r.roles_extra:
                r.roles_extra.append(role)

    # --- what trains ---
    method = raw["method"].strip().lower()
    peft = PEFT_METHODS.get(method)
    if method not in ("full", "lora", "qlora") and peft is None:
        return out("peft_method %s: not a method sweeplint sizes" % method)
    for m, pattern, what in PEFT_VARIANTS:
        if peft == m and re.search(pattern, r.id):
            return out("%s (stated in the id): no role for the variant" % what)

    # --- the optimizer ---
    opt_text = raw["optimizer"].strip().lower()
    if "backward" in opt_text and "optimizer_in_backward=true" not in r.roles_extra:
        r.roles_extra.append("optimizer_in_backward=true")  # "adamw_torch (step fused into backward)"
    opt = OPTIMIZERS.get(first_word(opt_text))
    lorafa = method == "lora" and first_word(opt_text) == "lora-fa"
    if lorafa:
        # peft.optimizers.create_lorafa_optimizer: AdamW over lora_B, lora_A frozen (the `lorafa`
        # method of rules/peft.yaml)
        opt = "adamw_torch"
    if opt is None:
        return out("optimizer %r: not a spelling sweeplint reads" % raw["optimizer"])

    # --- dtype and quantisation ---
    dtype_text = raw["dtype"].strip().lower()
    quant = None
    if dtype_text.startswith("gptq") or dtype_text.startswith("awq"):
        quant = "gptq" if dtype_text.startswith("gptq") else "awq"
        dtype = "bf16" if "bf16 compute" in dtype_text else "fp16"
    elif dtype_text.startswith("nf4"):
        quant = "nf4"
        dtype = "bf16"
        if "torchao" in dtype_text or "nf4 via torchao" in notes:
            return out("torchao NF4 (torchtune): not the bitsandbytes layout sweeplint models")
    elif dtype_text.startswith("int8"):
        quant, dtype = "int8", "bf16"
    elif first_word(dtype_text) in ("bf16", "fp16", "fp32"):
        dtype = first_word(dtype_text)
    else:
        return out("dtype %r: not a value sweeplint reads" % raw["dtype"])
    amp = first_word(raw["amp"])
    if amp not in ("off", "bf16", "fp16"):
        return out("amp %r: not a value sweeplint reads" % raw["amp"])
    if quant and amp == "fp16":
        dtype = "fp16"

    # --- shapes ---
    batch = leading_int(raw["batch"])
    seq = leading_int(raw["seq_len"])
    if batch is None:
        return out("batch size not stated")
    if seq is None:
        return out("sequence length not stated")
    if not re.match(r"^\s*\d+\s*$", raw["seq_len"]):
        r.assumed.append("seq_len %d (%s)" % (seq, raw["seq_len"].split("(")[0].strip()))
    ngpu = leading_int(raw["num_gpus"]) or 1
    gc = first_word(raw["gc"])
    if gc not in ("true", "false"):
        return out("gradient checkpointing %r not stated" % raw["gc"])
    gpu = first_word(raw["gpu"])
    if not re.match(r"^[a-z0-9]+-\d+gb$", gpu):
        r.assumed.append("gpu %s" % GPU_FALLBACK)
        gpu = GPU_FALLBACK

    roles = [("model", raw["model"].strip()), ("task", raw["task"].strip()), ("batch_size", batch),
             ("seq_len", seq)]
    tl = leading_int(raw["target_len"])
    if tl:
        roles.append(("target_len", tl))
    # gradient accumulation: the gradients stay resident between micro-batches (and FSDP accumulates
    # them unsharded under no_sync)
    accum = leading_int(raw["grad_accum"])
    if (not accum or accum <= 1) and re.search(r"lit-gpt|litgpt", raw.get("source", "").lower()) and \
            "resource-tables" in raw.get("source", "").lower() and batch < LITGPT_MINIBATCH:
        # lit-gpt's resource tables: "conducted ... with a minibatch size of 128" over the micro-batch
        # column, finetune/lora.py @ 8641822: gradient_accumulation_iters = batch_size // micro_batch_size
        accum = LITGPT_MINIBATCH // batch
        r.assumed.append("grad_accum %d (the table's minibatch of %d)" % (accum, LITGPT_MINIBATCH))
    if accum and accum > 1:
        roles.append(("grad_accum", accum))
    roles += [("dtype", dtype), ("amp", amp), ("gradient_checkpointing", gc), ("optimizer", opt),
              ("attn", first_word(raw["attn"]) or "sdpa"), ("num_gpus", ngpu)]
    if method in ("lora", "qlora"):
        rank = leading_int(raw["lora_r"])
        if rank is None:
            return out("LoRA rank not stated")
        roles.append(("lora_r", rank))
        targets = lora_targets(raw["lora_targets"])
        if targets is None and raw["lora_targets"].strip() not in ("", "-"):
            return out("LoRA targets %r include the LM head: no role yet" % raw["lora_targets"])
        if targets:
            roles.append(("lora_targets", targets))
        if lorafa:
            roles.append(("peft_method", "lorafa"))
    elif peft is not None:
        roles.append(("peft_method", peft))
        if peft in RANKED_METHODS or peft in TABLE_METHODS:
            rank = None
            if peft in RANKED_METHODS or peft in TABLE_RANK_R:
                rank = leading_int(raw["lora_r"])
            elif peft in RANK_FROM_ID:
                m = re.search(r"rank(\d+)", r.id)
                rank = int(m.group(1)) if m else None
            if rank is not None:
                roles.append(("lora_r", rank))
            targets = lora_targets(raw["lora_targets"])
            if targets:
                roles.append(("lora_targets", targets))
        else:
            tokens = virtual_tokens(raw, peft)
            if tokens:
                roles.append(("num_virtual_tokens", tokens))
    if method in ("lora", "qlora") or peft == "dora":
        # LoraConfig lora_dropout as the notes state it ("lora_alpha 16, dropout 0.05"); unstated: PEFT's 0
        m = re.search(r"\bdropout *[=:]? *([0-9]*\.?[0-9]+)", notes)
        if m and float(m.group(1)) > 0:
            roles.append(("lora_dropout", m.group(1)))
    if quant:
        roles.append(("quant", quant))
    if zs in ("1", "2", "3"):
        roles.append(("zero_stage", zs))
    elif zs == "3+offload":
        roles += [("zero_stage", "3"), ("offload", "all")]
    elif zs in ("1+offload_optimizer", "2+offload_optimizer", "3+offload_optimizer"):
        roles += [("zero_stage", zs[0]), ("offload", "optimizer")]  # offload_optimizer only
    elif fsdp:
        roles.append(("fsdp", fsdp))
    elif "zeropp" in zs:
        return out("ZeRO++ (quantised weights and gradients, secondary partitions): no role")
    elif zs not in ("0", ""):
        return out("zero_stage %r: not a value sweeplint reads" % raw["zero_stage"])
    # roles the notes state as tokens, the framework of the source, the torchtune config named
    for name, value in NOTE_TOKENS.findall(notes):
        r.roles_extra.append("%s=%s" % (name, value))
    # lit-gpt's resource tables state their versions in the file's header ("Bitsandbytes 0.41.1")
    litgpt_tables = re.search(r"lit-gpt|litgpt", raw.get("source", "").lower()) and \
        "resource-tables" in raw.get("source", "").lower()
    if quant == "nf4" and (BNB_LEGACY.search(notes) or BNB_LEGACY.search(raw.get("source", "").lower())
                           or litgpt_tables):
        r.roles_extra.append("bnb_legacy=true")
    source = raw.get("source", "").lower()
    for pattern, always, under_fsdp in SOURCE_DEFAULTS:
        if re.search(pattern, source):
            r.roles_extra += [x for x in always if x.split("=")[0] != "kbit_prepare" or quant]
            if fsdp:
                r.roles_extra += under_fsdp
    for name, extra in TORCHTUNE_CONFIGS.items():
        if re.search(r"\b%s\b" % re.escape(name), notes):
            r.roles_extra += extra
    seen = set()
    r.roles_extra = [x for x in r.roles_extra if not (x.split("=")[0] in seen or seen.add(x.split("=")[0]))]
    r.roles = ["%s=%s" % kv for kv in roles]
    r.roles += [x for x in r.roles_extra if x not in r.roles and x.split("=")[0] not in dict(roles)]
    r.gpu = gpu
    return r


def read(path):
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise compare.UsageError("%s: header is %r, expected %r" % (path, reader.fieldnames, COLUMNS))
        return list(reader)


def score(rows, sweeplint, runner=compare.run_estimate):
    """Estimate every expressible row: fills r.predicted, r.error (signed, %), r.phase or r.reason."""
    cache = {}
    for r in rows:
        if r.reason:
            continue
        key = (tuple(r.roles), r.gpu)
        try:
            if key not in cache:
                cache[key] = runner(sweeplint, r.roles, r.gpu)
            est = cache[key]
            loaded = None
            if r.metric == "reserved_minus_init":
                off = tuple(x if not x.startswith("amp=") else "amp=off" for x in r.roles)
                if (off, r.gpu) not in cache:
                    cache[(off, r.gpu)] = runner(sweeplint, list(off), r.gpu)
                loaded = cache[(off, r.gpu)]
        except compare.EstimateError as e:
            text = str(e)
            if "unknown model" in text:
                r.reason = "model %s: not in sweeplint's catalog" % r.raw["model"].strip()
            else:
                r.reason = "sweeplint cannot estimate it: %s" % text
            continue
        pred = compare.predicted_bytes(r.metric, est, None, loaded)
        r.predicted = pred / measured.MIB
        r.error = (r.predicted - r.measured) / r.measured * 100.0
        r.phase = est.get("peak_phase", "?")


def group_stats(rows, key):
    groups = {}
    for r in rows:
        groups.setdefault(key(r), []).append(r)
    out = {}
    for name, rs in sorted(groups.items()):
        errs = [r.error for r in rs]
        out[name] = {"rows": len(rs), "median_abs_pct": statistics.median(abs(e) for e in errs),
                     "median_signed_pct": statistics.median(errs),
                     "within_20_pct": sum(abs(e) <= 20 for e in errs)}
    return out


def summarize(rows, args):
    scored = [r for r in rows if not r.reason]
    left = [r for r in rows if r.reason]
    s = {"rows": len(rows), "expressible": len(scored),
         "expressible_pct": 100.0 * len(scored) / len(rows) if rows else 0.0,
         "median_abs_pct": None, "p90_abs_pct": None, "by_method": {}, "by_family": {}, "by_confidence": {},
         "by_algorithm": {},
         "left_out": {}, "failures": []}
    for r in left:
        s["left_out"].setdefault(r.reason.split(":")[0], []).append(r.id)
    if scored:
        errs = sorted(abs(r.error) for r in scored)
        s["median_abs_pct"] = statistics.median(errs)
        s["p90_abs_pct"] = errs[min(len(errs) - 1, int(round(0.9 * (len(errs) - 1))))]
        s["by_method"] = group_stats(scored, lambda r: r.method)
        s["by_family"] = group_stats(scored, lambda r: r.family)
        s["by_confidence"] = group_stats(scored, lambda r: r.confidence)
        # preference and RL rows: by the algorithm their notes name
        algos = [r for r in scored if any(x.startswith("algorithm=") for x in r.roles)]
        s["by_algorithm"] = group_stats(algos, lambda r: next(x for x in r.roles if x.startswith("algorithm="))[10:])
    if s["expressible_pct"] < args.min_expressible:
        s["failures"].append("expressible %.1f%% < %.1f%%" % (s["expressible_pct"], args.min_expressible))
    if s["median_abs_pct"] is None or s["median_abs_pct"] > args.median_bar:
        s["failures"].append("median |error| %s > %.1f%%" % (
            "-" if s["median_abs_pct"] is None else "%.1f%%" % s["median_abs_pct"], args.median_bar))
    for name, g in s["by_method"].items():
        if g["rows"] >= args.bias_min_rows and abs(g["median_signed_pct"]) > args.bias_bar:
            s["failures"].append("method %s biased %+.1f%% (bar ±%.1f%%)" % (name, g["median_signed_pct"],
                                                                            args.bias_bar))
    return s


def format_text(rows, s, args):
    lines = []
    scored = [r for r in rows if not r.reason]
    if scored:
        w = max(len(r.id) for r in scored)
        lines.append("%-*s  %-6s %-7s %-17s %9s %9s %8s  %s" % (w, "row", "method", "family", "metric",
                                                               "measured", "predicted", "error", "peak phase"))
        for r in scored:
            lines.append("%-*s  %-6s %-7s %-17s %9.0f %9.0f %+7.1f%%  %s%s" % (
                w, r.id, r.method, r.family, r.metric, r.measured, r.predicted, r.error, r.phase,
                ("  (assumed: %s)" % "; ".join(r.assumed)) if r.assumed else ""))
    lines.append("")
    lines.append("left out (%d):" % (s["rows"] - s["expressible"]))
    for r in rows:
        if r.reason:
            lines.append("  %s: %s" % (r.id, r.reason))
    lines.append("")
    for title, key in (("method", "by_method"), ("family", "by_family"), ("confidence", "by_confidence"),
                       ("algorithm", "by_algorithm")):
        if key == "by_algorithm" and not s[key]:
            continue
        lines.append("by %s:%s" % (title, "" if s[key] else " -"))
        for name, g in s[key].items():
            lines.append("  %-10s rows %3d  median |error| %5.1f%%  median signed %+6.1f%%  within 20%%: %d" % (
                name, g["rows"], g["median_abs_pct"], g["median_signed_pct"], g["within_20_pct"]))
    lines.append("expressible: %d of %d rows (%.1f%%, bar %.0f%%)" % (s["expressible"], s["rows"],
                                                                       s["expressible_pct"], args.min_expressible))
    if s["median_abs_pct"] is not None:
        lines.append("median |error| %.1f%% (bar %.1f%%), p90 |error| %.1f%%" % (s["median_abs_pct"],
                                                                             args.median_bar, s["p90_abs_pct"]))
    for f in s["failures"]:
        lines.append("FAIL: " + f)
    lines.append("result: %s" % ("FAIL" if s["failures"] else "pass"))
    return "\n".join(lines) + "\n"


def main(argv=None, out=sys.stdout, err=sys.stderr, runner=compare.run_estimate):
    ap = argparse.ArgumentParser(prog="published.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("tsv", help="published.tsv (calibration/README.md layout)")
    ap.add_argument("--sweeplint", default=None)
    ap.add_argument("--min-expressible", type=float, default=80.0)
    ap.add_argument("--median-bar", type=float, default=12.0)
    ap.add_argument("--bias-bar", type=float, default=10.0)
    ap.add_argument("--bias-min-rows", type=int, default=3)
    ap.add_argument("--confidence", default=None, help="score only rows of these confidences (comma list)")
    ap.add_argument("-f", "--format", choices=("text", "json"), default="text")
    args = ap.parse_args(argv)
    try:
        sweeplint = compare.find_sweeplint(args.sweeplint)
        raws = read(args.tsv)
    except (OSError, compare.UsageError) as e:
        err.write("published.py: %s\n" % e)
        return 2
    if args.confidence:
        keep = set(args.confidence.split(","))
        raws = [x for x in raws if x.get("confidence") in keep]
    rows = [read_row(x) for x in raws]
    try:
        score(rows, sweeplint, runner)
    except compare.UsageError as e:
        err.write("published.py: %s\n" % e)
        return 2
    s = summarize(rows, args)
    if args.format == "json":
        json.dump({"rows": [{"id": r.id, "method": r.method, "family": r.family, "confidence": r.confidence,
                             "metric": r.metric, "measured_mib": r.measured,
                             "predicted_mib": getattr(r, "predicted", None), "error_pct": getattr(r, "error", None),
                             "peak_phase": getattr(r, "phase", None), "assumed": r.assumed,
                             "left_out": r.reason, "roles": r.roles} for r in rows],
                   "summary": s, "pass": not s["failures"]}, out, indent=1)
        out.write("\n")
    else:
        out.write(format_text(rows, s, args))
    return 1 if s["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
