"""The calibration cases: architectures as HF config dicts and the runs to measure.

Each case is a plain dict (JSON-serialisable, handed to a fresh subprocess):
  id        unique, e.g. "bgem3-b32-s512-ampfp16-gc-sdpa"
  arch      key of ARCHS (the HF config dict the model is built from, random weights)
  settings  the run in sweeplint's role names (DESIGN §3): model, task, batch_size,
            grad_accum, seq_len, target_len, dtype, amp, gradient_checkpointing,
            optimizer, lora_r, lora_targets, quant, attn, texts_per_example
  method    full | lora | qlora  (the measured.tsv column)
  pooling   bi-encoder pooling: cls | mean (None for other tasks)
  requires  optional packages the case needs (e.g. bitsandbytes); skipped without them
  capacity  None, or {"group", "frac", "probe_batches"}: the batch is chosen at run time so
            that the run needs `frac` × the GPU's total memory (see calibrate.py)
  default   part of the default set (one run of it fits in 10 minutes on an H100)
  phase     None, 'load' or 'save': the FSDP phase a case measures instead of the step (issue 33)
  alloc_conf, sdpa_backend  the case process's PYTORCH_CUDA_ALLOC_CONF; 'flash': SDPA's flash kernel only
  value     issue 33's tier (TIER_*; 0 for the earlier sets): the device plan's order (plan.py)

The cases are chosen to separate the estimator's terms: batch × length grids
(activations, attention), AMP fp16/bf16 vs fp32 (master copies, fp32 softmax/norms),
gradient checkpointing on/off, SDPA vs eager (the s² term), AdamW/Adafactor/SGD
(optimizer states), encoder vs encoder-decoder vs decoder, big vocabularies (logits),
LoRA ranks and targets, QLoRA, and runs just below and above the card's capacity
(the fits/OOM verdict).

Standard library only.
"""

import copy
import fnmatch

# ---------------------------------------------------------------------------
# Architectures: config.json contents as published on the Hugging Face Hub, with
# every argument of the config class written out (nothing is downloaded).

_ROBERTA_COMMON = {
    "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1,
    "attention_probs_dropout_prob": 0.1,
    "initializer_range": 0.02,
    "position_embedding_type": "absolute",
    "use_cache": True,
    "classifier_dropout": None,
}

_LLAMA3_COMMON = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "vocab_size": 128256,
    "hidden_act": "silu",
    "max_position_embeddings": 131072,
    "initializer_range": 0.02,
    "rms_norm_eps": 1e-05,
    "use_cache": True,
    "bos_token_id": 128000,
    "eos_token_id": 128001,
    "pretraining_tp": 1,
    "tie_word_embeddings": True,
    "rope_theta": 500000.0,
    "rope_scaling": {
        "factor": 32.0,
        "high_freq_factor": 4.0,
        "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "attention_bias": False,
    "attention_dropout": 0.0,
    "mlp_bias": False,
}

ARCHS = {
    # BAAI/bge-m3: XLM-RoBERTa large with 8194 positions (config.json of the model repo).
    "bge-m3": {
        "hf_id": "BAAI/bge-m3",
        "short": "bgem3",
        "pooling": "cls",
        "official_params": 567754752,
        "source": "huggingface.co/BAAI/bge-m3 config.json; count: research/memory-anchors.md §3",
        "config": dict(_ROBERTA_COMMON, **{
            "architectures": ["XLMRobertaModel"],
            "model_type": "xlm-roberta",
            "vocab_size": 250002,
            "hidden_size": 1024,
            "num_hidden_layers": 24,
            "num_attention_heads": 16,
            "intermediate_size": 4096,
            "max_position_embeddings": 8194,
            "type_vocab_size": 1,
            "layer_norm_eps": 1e-05,
            "pad_token_id": 1,
            "bos_token_id": 0,
            "eos_token_id": 2,
        }),
    },
    # klue/roberta-base (RoBERTa, Korean vocabulary of 32000).
    "klue-roberta-base": {
        "hf_id": "klue/roberta-base",
        "short": "kluerob",
        "pooling": "mean",
        "official_params": 110618112,
        "source": "klue/roberta-base config.json (via derived configs); count: memory-anchors §3",
        "config": dict(_ROBERTA_COMMON, **{
            "architectures": ["RobertaForMaskedLM"],
            "model_type": "roberta",
            "vocab_size": 32000,
            "hidden_size": 768,
            "num_hidden_layers": 12,
            "num_attention_heads": 12,
            "intermediate_size": 3072,
            "max_position_embeddings": 514,
            "type_vocab_size": 1,
            "layer_norm_eps": 1e-05,
            "pad_token_id": 1,
            "bos_token_id": 0,
            "eos_token_id": 2,
        }),
    },
    # sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2 (BERT, 250037 vocabulary).
    "multilingual-minilm": {
        "hf_id": "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2",
        "short": "mminilm",
        "pooling": "mean",
        "official_params": 117653760,
        "source": "paraphrase-multilingual-MiniLM-L12-v2 config.json; count: memory-anchors §3",
        "config": {
            "architectures": ["BertModel"],
            "model_type": "bert",
            "vocab_size": 250037,
            "hidden_size": 384,
            "num_hidden_layers": 12,
            "num_attention_heads": 12,
            "intermediate_size": 1536,
            "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1,
            "attention_probs_dropout_prob": 0.1,
            "max_position_embeddings": 512,
            "type_vocab_size": 2,
            "initializer_range": 0.02,
            "layer_norm_eps": 1e-12,
            "pad_token_id": 0,
            "position_embedding_type": "absolute",
            "use_cache": True,
            "classifier_dropout": None,
        },
    },
    # google/mt5-base (T5.1.1 gated-gelu, untied lm head, 250112 vocabulary).
    "mt5-base": {
        "hf_id": "google/mt5-base",
        "short": "mt5b",
        "pooling": None,
        "official_params": 582401280,
        "source": "google/mt5-base config.json; count: memory-anchors §3",
        "config": {
            "architectures": ["MT5ForConditionalGeneration"],
            "model_type": "mt5",
            "vocab_size": 250112,
            "d_model": 768,
            "d_kv": 64,
            "d_ff": 2048,
            "num_layers": 12,
            "num_decoder_layers": 12,
            "num_heads": 12,
            "relative_attention_num_buckets": 32,
            "relative_attention_max_distance": 128,
            "dropout_rate": 0.1,
            "layer_norm_epsilon": 1e-06,
            "initializer_factor": 1.0,
            "feed_forward_proj": "gated-gelu",
            "is_encoder_decoder": True,
            "use_cache": True,
            "tokenizer_class": "T5Tokenizer",
            "tie_word_embeddings": False,
            "pad_token_id": 0,
            "eos_token_id": 1,
            "decoder_start_token_id": 0,
            "classifier_dropout": 0.0,
        },
    },
    # google-t5/t5-base (T5 v1.0: ReLU FFN, lm head tied to the shared embedding, 32128 vocabulary).
    "t5-base": {
        "hf_id": "google-t5/t5-base",
        "short": "t5b",
        "pooling": None,
        "official_params": 222903552,
        "source": "huggingface.co/google-t5/t5-base config.json; 222,903,552 = T5ForConditionalGeneration"
                  ".num_parameters() (the 223M of the model card)",
        "config": {
            "architectures": ["T5ForConditionalGeneration"],
            "model_type": "t5",
            "vocab_size": 32128,
            "d_model": 768,
            "d_kv": 64,
            "d_ff": 3072,
            "num_layers": 12,
            "num_decoder_layers": 12,
            "num_heads": 12,
            "relative_attention_num_buckets": 32,
            "relative_attention_max_distance": 128,
            "dropout_rate": 0.1,
            "layer_norm_epsilon": 1e-06,
            "initializer_factor": 1.0,
            "feed_forward_proj": "relu",
            "is_encoder_decoder": True,
            "use_cache": True,
            "tie_word_embeddings": True,
            "pad_token_id": 0,
            "eos_token_id": 1,
            "decoder_start_token_id": 0,
            "classifier_dropout": 0.0,
        },
    },
    # meta-llama/Llama-3.2-1B (GQA 32/8, head_dim 64, tied embeddings, 128256 vocabulary).
    "llama-3.2-1b": {
        "hf_id": "meta-llama/Llama-3.2-1B",
        "short": "llama1b",
        "pooling": None,
        "official_params": 1235814400,
        "source": "meta-llama/Llama-3.2-1B config.json (1.24B on the model card)",
        "config": dict(_LLAMA3_COMMON, **{
            "hidden_size": 2048,
            "intermediate_size": 8192,
            "num_hidden_layers": 16,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "head_dim": 64,
        }),
    },
    # meta-llama/Llama-3.2-3B (GQA 24/8, head_dim 128, tied embeddings).
    "llama-3.2-3b": {
        "hf_id": "meta-llama/Llama-3.2-3B",
        "short": "llama3b",
        "pooling": None,
        "official_params": 3212749824,
        "source": "meta-llama/Llama-3.2-3B config.json; 3,212,749,824 in its safetensors index (3.21B)",
        "config": dict(_LLAMA3_COMMON, **{
            "hidden_size": 3072,
            "intermediate_size": 8192,
            "num_hidden_layers": 28,
            "num_attention_heads": 24,
            "num_key_value_heads": 8,
            "head_dim": 128,
        }),
    },
    # Qwen/Qwen2.5-0.5B (Qwen2: q/k/v biases, GQA 14/2, tied embeddings, 151936 vocabulary).
    "qwen2.5-0.5b": {
        "hf_id": "Qwen/Qwen2.5-0.5B",
        "short": "qwen05b",
        "pooling": None,
        "official_params": 494032768,
        "source": "huggingface.co/Qwen/Qwen2.5-0.5B config.json; 494,032,768 in its safetensors "
                  "metadata (0.49B on the model card)",
        "config": {
            "architectures": ["Qwen2ForCausalLM"],
            "model_type": "qwen2",
            "vocab_size": 151936,
            "hidden_size": 896,
            "intermediate_size": 4864,
            "num_hidden_layers": 24,
            "num_attention_heads": 14,
            "num_key_value_heads": 2,
            "hidden_act": "silu",
            "max_position_embeddings": 32768,
            "initializer_range": 0.02,
            "rms_norm_eps": 1e-06,
            "use_cache": True,
            "bos_token_id": 151643,
            "eos_token_id": 151643,
            "tie_word_embeddings": True,
            "rope_theta": 1000000.0,
            "use_sliding_window": False,
            "sliding_window": 32768,
            "max_window_layers": 24,
            "attention_dropout": 0.0,
        },
    },
    # --- issue 33: families whose activations differ (configs as fixtures/configs/<type>/config.json,
    # the published files; counts as rules/architectures.yaml and the model pages)
    # Qwen/Qwen3-0.6B: q/k RMS norms over head_dim (QK-norm), GQA 16/8 with head_dim 128, tied.
    "qwen3-0.6b": {
        "hf_id": "Qwen/Qwen3-0.6B",
        "short": "qwen3",
        "pooling": None,
        "official_params": 596049920,
        "source": "huggingface.co/Qwen/Qwen3-0.6B config.json (fixtures/configs/qwen3); 596,049,920 "
                  "(rules/architectures.yaml, the published class)",
        "config": {
            "architectures": ["Qwen3ForCausalLM"],
            "model_type": "qwen3",
            "vocab_size": 151936,
            "hidden_size": 1024,
            "intermediate_size": 3072,
            "num_hidden_layers": 28,
            "num_attention_heads": 16,
            "num_key_value_heads": 8,
            "head_dim": 128,
            "hidden_act": "silu",
            "max_position_embeddings": 40960,
            "initializer_range": 0.02,
            "rms_norm_eps": 1e-06,
            "use_cache": True,
            "bos_token_id": 151643,
            "eos_token_id": 151645,
            "tie_word_embeddings": True,
            "rope_theta": 1000000,
            "attention_bias": False,
            "attention_dropout": 0.0,
            "use_sliding_window": False,
            "max_window_layers": 28,
        },
    },
    # google/gemma-2-2b: 256000 vocabulary, attention and final logit soft-capping, sliding window
    # 4096 on every other layer, four norms per layer, head_dim 256, tied embeddings.
    "gemma-2-2b": {
        "hf_id": "google/gemma-2-2b",
        "short": "gemma2",
        "pooling": None,
        "official_params": 2614341888,
        "source": "huggingface.co/google/gemma-2-2b config.json (fixtures/configs/gemma2); 2,614,341,888 "
                  "(rules/architectures.yaml, the published class)",
        "config": {
            "architectures": ["Gemma2ForCausalLM"],
            "model_type": "gemma2",
            "vocab_size": 256000,
            "hidden_size": 2304,
            "intermediate_size": 9216,
            "num_hidden_layers": 26,
            "num_attention_heads": 8,
            "num_key_value_heads": 4,
            "head_dim": 256,
            "hidden_act": "gelu_pytorch_tanh",
            "hidden_activation": "gelu_pytorch_tanh",
            "max_position_embeddings": 8192,
            "initializer_range": 0.02,
            "rms_norm_eps": 1e-06,
            "use_cache": True,
            "pad_token_id": 0,
            "bos_token_id": 2,
            "eos_token_id": 1,
            "rope_theta": 10000.0,
            "attention_bias": False,
            "attention_dropout": 0.0,
            "query_pre_attn_scalar": 256,
            "sliding_window": 4096,
            "final_logit_softcapping": 30.0,
            "attn_logit_softcapping": 50.0,
            "cache_implementation": "hybrid",
        },
    },
    # microsoft/Phi-3-mini-4k-instruct: fused qkv_proj and gate_up_proj, MHA 32/32, untied head.
    "phi-3-mini": {
        "hf_id": "microsoft/Phi-3-mini-4k-instruct",
        "short": "phi3",
        "pooling": None,
        "official_params": 3821079552,
        "source": "huggingface.co/microsoft/Phi-3-mini-4k-instruct config.json (fixtures/configs/phi3); "
                  "3,821,079,552 (rules/architectures.yaml, the published class)",
        "config": {
            "architectures": ["Phi3ForCausalLM"],
            "model_type": "phi3",
            "vocab_size": 32064,
            "hidden_size": 3072,
            "intermediate_size": 8192,
            "num_hidden_layers": 32,
            "num_attention_heads": 32,
            "num_key_value_heads": 32,
            "hidden_act": "silu",
            "max_position_embeddings": 4096,
            "original_max_position_embeddings": 4096,
            "initializer_range": 0.02,
            "rms_norm_eps": 1e-05,
            "use_cache": True,
            "bos_token_id": 1,
            "eos_token_id": 32000,
            "pad_token_id": 32000,
            "tie_word_embeddings": False,
            "rope_theta": 10000.0,
            "attention_bias": False,
            "attention_dropout": 0.0,
            "embd_pdrop": 0.0,
            "resid_pdrop": 0.0,
            "sliding_window": 2047,
        },
    },
    # openai/whisper-small: encoder-decoder over 80 mel bins x 3000 frames (1500 positions after the
    # conv front end), decoder up to 448 tokens, proj_out tied to the token embedding.
    "whisper-small": {
        "hf_id": "openai/whisper-small",
        "short": "whispers",
        "pooling": None,
        "official_params": 241734912,
        "source": "huggingface.co/openai/whisper-small config.json (the fields of fixtures/configs/whisper, "
                  "whisper-tiny, at the small shape of rules/architectures.yaml); 241,734,912 (model page)",
        "config": {
            "architectures": ["WhisperForConditionalGeneration"],
            "model_type": "whisper",
            "vocab_size": 51865,
            "num_mel_bins": 80,
            "d_model": 768,
            "encoder_layers": 12,
            "decoder_layers": 12,
            "num_hidden_layers": 12,
            "encoder_attention_heads": 12,
            "decoder_attention_heads": 12,
            "encoder_ffn_dim": 3072,
            "decoder_ffn_dim": 3072,
            "max_source_positions": 1500,
            "max_target_positions": 448,
            "activation_function": "gelu",
            "dropout": 0.0,
            "attention_dropout": 0.0,
            "activation_dropout": 0.0,
            "encoder_layerdrop": 0.0,
            "decoder_layerdrop": 0.0,
            "init_std": 0.02,
            "scale_embedding": False,
            "is_encoder_decoder": True,
            "use_cache": True,
            "bos_token_id": 50257,
            "eos_token_id": 50257,
            "pad_token_id": 50257,
            "decoder_start_token_id": 50258,
            "begin_suppress_tokens": [220, 50257],
            "max_length": 448,
        },
    },
}

# Roles added by issue 33's cases (docs/cli.md "Roles added for issue 28", "FSDP load and save
# peaks"; the preference/RL roles of issue 31), with the value that means "not set". Every case's
# settings hold them; tsv_row writes the ones that are set into the notes as role=value tokens.
EXTRA_ROLES = {
    "frozen": "",               # backbone | N (the embeddings and the first N layers)
    "head_params": "",          # a layer list: the head the program puts on the model
    "part": "",                 # base | encoder
    "query_len": 0,             # a bi-encoder's queries at their own length
    "separate_encoders": False,  # a query encoder and a passage encoder
    "padding": "",              # max_length | longest
    "fsdp_init": "",            # device | per_unit (meta-device init, materialised unit by unit)
    "fsdp_state_dict": "",      # full | full_device | sharded
    "do_sample": False,         # generate: sampling (information: no role of sweeplint's)
    "num_return_sequences": 0,  # generate: sequences per prompt (information: no role of sweeplint's)
    "algorithm": "",            # dpo | grpo (issue 31's role)
    "ref_model": "",            # default | precomputed | a model name (a copy)
    "beta": "",                 # GRPO: 0 loads no reference
    "num_generations": 0,       # GRPO completions per prompt
    "prompt_len": 0,            # GRPO prompt length
    "completion_len": 0,        # GRPO completion length
}
# The notes tokens that are information, not sweeplint roles (no role exists for them yet).
INFO_ROLES = ("do_sample", "num_return_sequences")

LLAMA_QV = "q_proj,v_proj"
LLAMA_ALL = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"

TASK_SHORT = {"bi-encoder": "bi", "seq-cls": "cls", "seq2seq": "s2s", "causal-lm": "clm"}
OPTIM_SHORT = {"adamw_torch": "", "adafactor": "adafactor", "sgd": "sgd", "adamw_bnb_8bit": "adam8bit"}


def arch_for_model(model):
    """The ARCHS key whose hf_id is model (case-insensitive), or None."""
    for key, arch in ARCHS.items():
        if arch["hf_id"].lower() == str(model).lower():
            return key
    return None


def hf_config(arch_key):
    """A deep copy of an architecture's config dict."""
    return copy.deepcopy(ARCHS[arch_key]["config"])


def _precision_tag(dtype, amp):
    return "amp" + amp if amp != "off" else dtype


def _method(lora_r, quant):
    if quant != "none":
        return "qlora"
    return "lora" if lora_r else "full"


def make_case(arch, task, batch, seq, *, target=0, dtype="fp32", amp="off", gc=False,
              optimizer="adamw_torch", lora_r=0, lora_targets="", quant="none", attn="sdpa",
              texts=2, default=True, requires=(), capacity=None, case_id=None, mode="train",
              eval_batch=0, mini_batch=0, modules_to_save="", kbit_prepare=True, fsdp="",
              compile=False, liger=False, num_beams=0, new_tokens=0, phase=None, alloc_conf="",
              sdpa_backend="", value=0, pooling=None, **roles):
    """One case dict (see the module docstring).

    mode: train (training steps), eval (training steps, then the evaluation forward under
    no_grad at eval_batch with the optimizer state resident: the peak of that phase is
    measured), generate (model.generate with num_beams and new_tokens, no training).
    mini_batch: a bi-encoder trained with CachedMultipleNegativesRankingLoss (GradCache)
    in mini-batches of that size. fsdp: the sharding strategy of a world-size-1 FSDP run.

    Issue 33: phase 'load' / 'save' measures only FSDP's model loading (fsdp_init) or its
    checkpoint save (fsdp_state_dict) after the steps; alloc_conf is the case process's
    PYTORCH_CUDA_ALLOC_CONF; sdpa_backend 'flash' restricts SDPA to its flash kernel; value is
    the case's rank in the device plan (device_plan); roles are the sweeplint roles of EXTRA_ROLES
    (frozen, head_params, part, query_len, separate_encoders, padding, fsdp_init, fsdp_state_dict,
    do_sample, num_return_sequences and the preference/RL roles).
    """
    unknown = set(roles) - set(EXTRA_ROLES)
    if unknown:
        raise TypeError("make_case: unknown roles %s" % sorted(unknown))
    a = ARCHS[arch]
    method = _method(lora_r, quant)
    if case_id is None:
        parts = [a["short"]]
        if arch == "klue-roberta-base":
            parts.append(TASK_SHORT[task])
        parts += ["b%d" % batch, "s%d" % seq]
        if task == "seq2seq":
            parts.append("t%d" % target)
        parts += [_precision_tag(dtype, amp), "gc" if gc else "nogc", attn]
        if OPTIM_SHORT[optimizer]:
            parts.append(OPTIM_SHORT[optimizer])
        if method != "full":
            parts.append("%s%d" % (method, lora_r))
            if method == "lora" and lora_targets == LLAMA_ALL:
                parts.append("all")
        if task == "bi-encoder" and texts != 2:
            parts.append("k%d" % texts)
        if modules_to_save:
            parts.append("emb")
        if quant != "none" and not kbit_prepare:
            parts.append("noprep")
        if mini_batch:
            parts.append("cached%d" % mini_batch)
        if fsdp:
            parts.append("fsdp")
        if compile:
            parts.append("compile")
        if liger:
            parts.append("liger")
        if mode == "eval":
            parts.append("eval%d" % eval_batch)
        if mode == "generate":
            parts = [a["short"], "gen", "b%d" % batch, "p%d" % seq, "new%d" % new_tokens,
                     "beams%d" % num_beams, dtype, attn]
        case_id = "-".join(parts)
    settings = {
        "model": a["hf_id"],
        "task": task,
        "batch_size": batch,
        "grad_accum": 1,
        "seq_len": seq,
        "target_len": target if task == "seq2seq" else 0,
        "dtype": dtype,
        "amp": amp,
        "gradient_checkpointing": bool(gc),
        "optimizer": optimizer,
        "lora_r": lora_r,
        "lora_targets": lora_targets,
        "quant": quant,
        "attn": attn,
        "texts_per_example": texts if task == "bi-encoder" else 0,
        "mode": mode,
        "eval_batch_size": eval_batch if mode == "eval" else 0,
        "mini_batch_size": mini_batch,
        "modules_to_save": modules_to_save,
        "fsdp": fsdp,
        "torch_compile": bool(compile),
        "liger": bool(liger),
        "num_beams": num_beams if mode == "generate" else 0,
        "max_new_tokens": new_tokens if mode == "generate" else 0,
    }
    for role, unset in EXTRA_ROLES.items():
        settings[role] = type(unset)(roles.get(role, unset))
    extra = set()
    if attn == "flash":
        extra.add("flash_attn")
    if liger:
        extra.add("liger_kernel")
    return {
        "id": case_id,
        "arch": arch,
        "settings": settings,
        "method": method,
        "pooling": (pooling or a["pooling"]) if task == "bi-encoder" else None,
        "requires": sorted(set(requires) | extra | ({"peft"} if method != "full" else set())
                           | ({"bitsandbytes"} if quant != "none" or optimizer.endswith("bnb_8bit")
                              else set())),
        "capacity": capacity,
        "kbit_prepare": bool(kbit_prepare),
        "default": bool(default),
        "config": hf_config(arch),
        "phase": phase,
        "alloc_conf": alloc_conf,
        "sdpa_backend": sdpa_backend,
        "value": int(value),
    }


# Value tiers of issue 33's cases (device_plan orders by tier, then by estimated device time):
TIER_UNMEASURED = 1   # a term sweeplint's estimate predicts today that no row has measured
TIER_NO_ROLE = 2      # a step the estimate cannot express on main yet (issue 31's roles; no role)
TIER_UNMODELLED = 3   # an effect the estimate does not model (the allocator's configuration)

PHI3_ALL = "qkv_proj,o_proj,gate_up_proj,down_proj"
LLAMA1B_HEAD = "Linear(2048,512);ReLU;Linear(512,2)"


def _issue33(add):
    """Issue 33: the shapes real sweeps use and the phases the model now predicts (docs/calibration.md
    "Issue 33: prepared cases"). Every id is written out: the ids are the plan's and the docs' names."""
    u = dict(value=TIER_UNMEASURED)
    bf = dict(dtype="bf16")
    # what trains: a frozen backbone with the class's head, frozen bottom layers, a head the program adds
    add(make_case("klue-roberta-base", "seq-cls", 32, 512, frozen="backbone",
                  case_id="kluerob-cls-b32-s512-fp32-nogc-sdpa-frozen", **u))
    add(make_case("klue-roberta-base", "seq-cls", 32, 512, frozen="6",
                  case_id="kluerob-cls-b32-s512-fp32-nogc-sdpa-frozen6", **u))
    add(make_case("llama-3.2-1b", "seq-cls", 8, 1024, part="base", frozen="backbone", head_params=LLAMA1B_HEAD,
                  case_id="llama1b-base-b8-s1024-bf16-nogc-sdpa-frozen-head", **bf, **u))
    # T5EncoderModel as a bi-encoder (sentence-T5/GTR), two texts
    add(make_case("t5-base", "bi-encoder", 32, 256, amp="bf16", attn="eager", part="encoder", pooling="mean",
                  case_id="t5benc-bi-b32-s256-ampbf16-nogc-eager", **u))
    # a query/passage dual encoder with a hard negative: queries at their own length; shared and
    # separate (DPR-style) encoders
    add(make_case("bge-m3", "bi-encoder", 32, 256, amp="fp16", gc=True, texts=3, query_len=64,
                  case_id="bgem3-b32-q64-s256-ampfp16-gc-sdpa-k3", **u))
    add(make_case("bge-m3", "bi-encoder", 32, 256, amp="fp16", gc=True, texts=3, query_len=64,
                  separate_encoders=True, case_id="bgem3-b32-q64-s256-ampfp16-gc-sdpa-k3-sep", **u))
    # padding to max_length against dynamic padding (each step padded to its longest example, the
    # last of the length schedule at the bound) at the same batch
    for pad in ("max_length", "longest"):
        tag = "padmax" if pad == "max_length" else "padlongest"
        add(make_case("klue-roberta-base", "seq-cls", 32, 512, padding=pad,
                      case_id="kluerob-cls-b32-s512-fp32-nogc-sdpa-" + tag, **u))
        add(make_case("llama-3.2-1b", "causal-lm", 4, 2048, gc=True, padding=pad,
                      case_id="llama1b-b4-s2048-bf16-gc-sdpa-" + tag, **bf, **u))
    # HF generate at batch > 1 with beams, on a family of its own (QK-norm)
    add(make_case("qwen3-0.6b", "causal-lm", 8, 512, mode="generate", num_beams=4, new_tokens=256,
                  case_id="qwen3-gen-b8-p512-new256-beams4-bf16-sdpa", **bf, **u))
    # FSDP at world size 1: the load phase (the model built on the GPU, then wrapped; or built on the
    # meta device and materialised unit by unit) and the save phase after the steps
    fs = dict(gc=True, fsdp="full_shard", **bf, **u)
    add(make_case("llama-3.2-1b", "causal-lm", 1, 512, phase="load", fsdp_init="device",
                  case_id="llama1b-b1-s512-bf16-gc-sdpa-fsdp-load-device", **fs))
    add(make_case("llama-3.2-1b", "causal-lm", 1, 512, phase="load", fsdp_init="per_unit",
                  case_id="llama1b-b1-s512-bf16-gc-sdpa-fsdp-load-meta", **fs))
    for sd in ("full_device", "full", "sharded"):
        add(make_case("llama-3.2-1b", "causal-lm", 1, 512, phase="save", fsdp_state_dict=sd,
                      case_id="llama1b-b1-s512-bf16-gc-sdpa-fsdp-save-" + sd.replace("_", ""), **fs))
    # families whose activations differ: Qwen3 (q/k norms), Gemma-2 (256k vocabulary, soft-capping,
    # sliding window past 4096 tokens), Phi-3 (fused projections), Whisper (encoder-decoder on audio)
    add(make_case("qwen3-0.6b", "causal-lm", 8, 2048, gc=True, case_id="qwen3-b8-s2048-bf16-gc-sdpa", **bf, **u))
    add(make_case("qwen3-0.6b", "causal-lm", 4, 2048, lora_r=16, lora_targets=LLAMA_ALL,
                  case_id="qwen3-b4-s2048-bf16-nogc-sdpa-lora16-all", **bf, **u))
    add(make_case("gemma-2-2b", "causal-lm", 2, 1024, attn="eager",
                  case_id="gemma2-b2-s1024-bf16-nogc-eager", **bf, **u))
    add(make_case("gemma-2-2b", "causal-lm", 1, 8192, gc=True, attn="eager", lora_r=16, lora_targets=LLAMA_ALL,
                  case_id="gemma2-b1-s8192-bf16-gc-eager-lora16-all", **bf, **u))
    add(make_case("phi-3-mini", "causal-lm", 2, 2048, gc=True, case_id="phi3-b2-s2048-bf16-gc-sdpa", **bf, **u))
    add(make_case("phi-3-mini", "causal-lm", 4, 2048, lora_r=16, lora_targets=PHI3_ALL,
                  case_id="phi3-b4-s2048-bf16-nogc-sdpa-lora16-all", **bf, **u))
    add(make_case("whisper-small", "seq2seq", 16, 1500, target=448, amp="bf16",
                  case_id="whispers-b16-s1500-t448-ampbf16-nogc-sdpa", **u))
    add(make_case("whisper-small", "seq2seq", 32, 1500, target=448, amp="bf16", gc=True,
                  case_id="whispers-b32-s1500-t448-ampbf16-gc-sdpa", **u))
    # 8k-16k tokens with SDPA restricted to its flash kernel
    fl = dict(gc=True, sdpa_backend="flash", **bf, **u)
    add(make_case("llama-3.2-1b", "causal-lm", 1, 8192, case_id="llama1b-b1-s8192-bf16-gc-sdpa-flash", **fl))
    add(make_case("llama-3.2-1b", "causal-lm", 1, 16384, case_id="llama1b-b1-s16384-bf16-gc-sdpa-flash", **fl))
    add(make_case("qwen3-0.6b", "causal-lm", 1, 16384, case_id="qwen3-b1-s16384-bf16-gc-sdpa-flash", **fl))

    # --- tier 2: no role on main. Sampling with num_return_sequences (HF expands each prompt
    # num_return_sequences times: rows = batch x 4); DPO and GRPO as TRL f2cd577 computes them,
    # written out (TRL is not installed on the lent machine), with issue 31's roles
    n = dict(value=TIER_NO_ROLE)
    add(make_case("llama-3.2-1b", "causal-lm", 8, 512, mode="generate", new_tokens=256, do_sample=True,
                  num_return_sequences=4, case_id="llama1b-gen-b8-p512-new256-sample-nrs4-bf16-sdpa", **bf, **n))
    dpo = dict(gc=True, algorithm="dpo", beta="0.1", **bf, **n)
    add(make_case("qwen3-0.6b", "causal-lm", 2, 1024, case_id="qwen3-dpo-b2-s1024-bf16-gc-sdpa", **dpo))
    add(make_case("qwen3-0.6b", "causal-lm", 2, 1024, ref_model="precomputed",
                  case_id="qwen3-dpo-b2-s1024-bf16-gc-sdpa-precomputed", **dpo))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, lora_r=16, lora_targets=LLAMA_ALL,
                  case_id="llama1b-dpo-b4-s1024-bf16-gc-sdpa-lora16-all", **dpo))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, lora_r=16, lora_targets=LLAMA_ALL,
                  ref_model="meta-llama/Llama-3.2-1B",
                  case_id="llama1b-dpo-b4-s1024-bf16-gc-sdpa-lora16-all-refcopy", **dpo))
    grpo = dict(gc=True, algorithm="grpo", num_generations=4, prompt_len=256, completion_len=256, **bf, **n)
    add(make_case("qwen3-0.6b", "causal-lm", 8, 256, beta="0",
                  case_id="qwen3-grpo-b8-p256-c256-bf16-gc-sdpa", **grpo))
    add(make_case("qwen3-0.6b", "causal-lm", 8, 256, beta="0.04",
                  case_id="qwen3-grpo-b8-p256-c256-bf16-gc-sdpa-beta", **grpo))

    # --- tier 3: gradient checkpointing on Llama-style models under expandable_segments:True; the
    # same settings without it are rows of h100-2026.tsv (reserved - allocated 3.4-6.4 GiB there)
    e = dict(alloc_conf="expandable_segments:True", value=TIER_UNMODELLED, **bf)
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, gc=True, case_id="llama1b-b4-s1024-bf16-gc-sdpa-expseg", **e))
    add(make_case("llama-3.2-3b", "causal-lm", 2, 2048, gc=True, case_id="llama3b-b2-s2048-bf16-gc-sdpa-expseg", **e))
    add(make_case("qwen2.5-0.5b", "causal-lm", 8, 2048, gc=True, case_id="qwen05b-b8-s2048-bf16-gc-sdpa-expseg", **e))
    add(make_case("llama-3.2-3b", "causal-lm", 4, 4096, gc=True, lora_r=64, lora_targets=LLAMA_ALL,
                  case_id="llama3b-b4-s4096-bf16-gc-sdpa-lora64-all-expseg", **e))


def _build():
    cases = []
    add = cases.append

    # bge-m3 bi-encoder (MultipleNegativesRankingLoss, query + positive), AMP fp16 + GC + SDPA:
    # the batch × length grid separates per-token activations from the fixed terms.
    for batch in (8, 32, 64):
        for seq in (128, 256, 512):
            add(make_case("bge-m3", "bi-encoder", batch, seq, amp="fp16", gc=True))
    # long inputs (the 8194-position table; activations ∝ s, the s² term is gone under SDPA)
    add(make_case("bge-m3", "bi-encoder", 8, 1024, amp="fp16", gc=True))
    add(make_case("bge-m3", "bi-encoder", 4, 2048, amp="fp16", gc=True, default=False))
    # gradient checkpointing off: all layers' activations live at once
    add(make_case("bge-m3", "bi-encoder", 8, 512, amp="fp16"))
    add(make_case("bge-m3", "bi-encoder", 32, 256, amp="fp16"))
    add(make_case("bge-m3", "bi-encoder", 32, 512, amp="fp16"))
    # bf16 AMP and no AMP (fp32 activations, no half copies)
    add(make_case("bge-m3", "bi-encoder", 32, 512, amp="bf16", gc=True))
    add(make_case("bge-m3", "bi-encoder", 32, 256, amp="bf16", default=False))
    add(make_case("bge-m3", "bi-encoder", 8, 512, gc=True, default=False))
    add(make_case("bge-m3", "bi-encoder", 8, 256))
    # eager attention keeps b·a·s² scores, probabilities and dropout masks
    add(make_case("bge-m3", "bi-encoder", 8, 512, amp="fp16", gc=True, attn="eager"))
    add(make_case("bge-m3", "bi-encoder", 32, 512, amp="fp16", gc=True, attn="eager"))
    add(make_case("bge-m3", "bi-encoder", 8, 512, amp="fp16", attn="eager"))
    add(make_case("bge-m3", "bi-encoder", 8, 256, amp="fp16", attn="eager", default=False))
    # optimizers: AdamW 8 B/param vs Adafactor (factored) vs SGD (none)
    add(make_case("bge-m3", "bi-encoder", 8, 256, amp="fp16", gc=True, optimizer="adafactor"))
    add(make_case("bge-m3", "bi-encoder", 8, 256, amp="fp16", gc=True, optimizer="sgd"))
    # a hard negative per example: three texts per example
    add(make_case("bge-m3", "bi-encoder", 8, 256, amp="fp16", gc=True, texts=3))

    # klue/roberta-base: sequence classification (2 labels) and a bi-encoder run
    add(make_case("klue-roberta-base", "seq-cls", 32, 128))
    add(make_case("klue-roberta-base", "seq-cls", 32, 512))
    add(make_case("klue-roberta-base", "seq-cls", 32, 512, amp="fp16"))
    add(make_case("klue-roberta-base", "seq-cls", 32, 512, amp="fp16", gc=True))
    add(make_case("klue-roberta-base", "seq-cls", 32, 512, amp="fp16", attn="eager"))
    add(make_case("klue-roberta-base", "seq-cls", 32, 512, attn="eager", default=False))
    add(make_case("klue-roberta-base", "seq-cls", 32, 128, optimizer="adafactor"))
    add(make_case("klue-roberta-base", "seq-cls", 32, 128, optimizer="sgd", default=False))
    add(make_case("klue-roberta-base", "bi-encoder", 64, 128, amp="fp16"))

    # multilingual MiniLM bi-encoder: a small model whose parameters are 82% vocabulary
    add(make_case("multilingual-minilm", "bi-encoder", 64, 128, amp="fp16"))
    add(make_case("multilingual-minilm", "bi-encoder", 64, 256, default=False))
    add(make_case("multilingual-minilm", "bi-encoder", 64, 256, amp="fp16", attn="eager"))
    add(make_case("multilingual-minilm", "bi-encoder", 128, 128, amp="fp16", gc=True,
                  default=False))

    # mT5-base seq2seq: encoder + decoder with cross-attention, 250112-entry untied lm head;
    # T5 attention carries a position bias, so eager is the implementation every version has.
    add(make_case("mt5-base", "seq2seq", 8, 512, target=128, attn="eager", default=False))
    add(make_case("mt5-base", "seq2seq", 8, 512, target=128, amp="bf16", attn="eager"))
    add(make_case("mt5-base", "seq2seq", 8, 512, target=128, amp="bf16", gc=True, attn="eager"))
    add(make_case("mt5-base", "seq2seq", 16, 256, target=64, amp="bf16", attn="eager",
                  optimizer="adafactor"))
    add(make_case("mt5-base", "seq2seq", 8, 256, target=256, attn="eager", optimizer="adafactor"))
    add(make_case("mt5-base", "seq2seq", 8, 128, target=512, amp="bf16", gc=True, attn="eager",
                  default=False))

    # Llama-3.2-1B causal LM in bf16 weights (no AMP): full fine-tune, LoRA, QLoRA
    llama = dict(dtype="bf16")
    add(make_case("llama-3.2-1b", "causal-lm", 4, 512, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, gc=True, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, attn="eager", **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, optimizer="adafactor", **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, optimizer="sgd", **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 512, optimizer="adamw_bnb_8bit",
                  default=False, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, lora_r=8, lora_targets=LLAMA_QV, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, lora_r=64, lora_targets=LLAMA_ALL,
                  **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, gc=True, lora_r=64,
                  lora_targets=LLAMA_ALL, default=False, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, lora_r=16, lora_targets=LLAMA_ALL,
                  quant="nf4", default=False, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 1024, gc=True, lora_r=16,
                  lora_targets=LLAMA_ALL, quant="nf4", **llama))

    first_new = len(cases)
    # --- issue 16: encoders, bi-encoders, seq2seq and evaluation peaks (beyond the set above)
    # CachedMultipleNegativesRankingLoss (GradCache): embeddings of the whole batch under no_grad,
    # then each mini-batch re-run with grad; the peak follows the mini-batch, not the batch.
    add(make_case("bge-m3", "bi-encoder", 64, 256, amp="fp16", gc=True, mini_batch=16))
    add(make_case("bge-m3", "bi-encoder", 256, 256, amp="fp16", mini_batch=32))
    add(make_case("bge-m3", "bi-encoder", 512, 128, amp="bf16", mini_batch=64, default=False))
    # t5-base (T5 v1.0: ReLU FFN, tied head) seq2seq over source/target lengths
    add(make_case("t5-base", "seq2seq", 16, 512, target=128, amp="bf16", attn="eager"))
    add(make_case("t5-base", "seq2seq", 32, 256, target=64, attn="eager"))
    add(make_case("t5-base", "seq2seq", 16, 512, target=512, amp="bf16", gc=True, attn="eager"))
    # the evaluation peak: training steps, then the evaluation forward (no grad) at a larger
    # eval batch with the optimizer state still resident (HF Trainer's evaluation during training)
    add(make_case("bge-m3", "bi-encoder", 32, 512, amp="fp16", gc=True, mode="eval", eval_batch=256))
    add(make_case("klue-roberta-base", "seq-cls", 32, 512, amp="fp16", mode="eval", eval_batch=512))
    add(make_case("mt5-base", "seq2seq", 8, 512, target=128, amp="bf16", attn="eager", mode="eval",
                  eval_batch=64))
    add(make_case("multilingual-minilm", "bi-encoder", 64, 256, amp="fp16", mode="eval",
                  eval_batch=1024, default=False))

    # --- issue 17: decoders. Llama-3.2-3B: full fine-tune in bf16 (AdamW torch / 8-bit), LoRA
    # on q,v and on every linear layer, LoRA with trained embeddings and LM head, QLoRA with and
    # without prepare_model_for_kbit_training, attention implementations, 512-4096 tokens.
    l3 = dict(dtype="bf16")
    add(make_case("llama-3.2-3b", "causal-lm", 2, 512, **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 2, 2048, gc=True, **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 2, 2048, gc=True, optimizer="adamw_bnb_8bit", **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 4, 2048, lora_r=8, lora_targets=LLAMA_QV, **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 4, 2048, lora_r=64, lora_targets=LLAMA_ALL, **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 4, 4096, gc=True, lora_r=64, lora_targets=LLAMA_ALL,
                  **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 2, 2048, gc=True, lora_r=16, lora_targets=LLAMA_ALL,
                  modules_to_save="embed_tokens,lm_head", **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 4, 2048, gc=True, lora_r=16, lora_targets=LLAMA_ALL,
                  quant="nf4", **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 4, 2048, gc=True, lora_r=16, lora_targets=LLAMA_ALL,
                  quant="nf4", kbit_prepare=False, **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 2, 4096, gc=True, lora_r=16, lora_targets=LLAMA_ALL,
                  quant="nf4", **l3))
    for attn in ("sdpa", "eager", "flash"):
        add(make_case("llama-3.2-3b", "causal-lm", 2, 2048, lora_r=16, lora_targets=LLAMA_ALL,
                      attn=attn, case_id="llama3b-b2-s2048-bf16-nogc-lora16-all-" + attn, **l3))
    # Llama-3.2-1B: FSDP at world size 1 (pure bf16 vs an fp32 master with bf16 compute),
    # torch.compile, Liger's fused linear cross-entropy, long sequences
    add(make_case("llama-3.2-1b", "causal-lm", 4, 2048, gc=True, fsdp="full_shard", **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 2048, gc=True, amp="bf16", fsdp="full_shard"))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 2048, gc=True, compile=True, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 4, 2048, gc=True, liger=True, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 2, 4096, gc=True, **llama))
    add(make_case("llama-3.2-1b", "causal-lm", 2, 4096, gc=True, lora_r=16, lora_targets=LLAMA_ALL,
                  modules_to_save="embed_tokens,lm_head", **llama))
    # generation: weights + the KV cache of batch × beams × (prompt + new tokens)
    add(make_case("llama-3.2-1b", "causal-lm", 8, 1024, mode="generate", num_beams=4, new_tokens=256,
                  **llama))
    add(make_case("llama-3.2-3b", "causal-lm", 16, 2048, mode="generate", num_beams=1, new_tokens=512,
                  **l3))
    add(make_case("llama-3.2-3b", "causal-lm", 4, 4096, mode="generate", num_beams=8, new_tokens=256,
                  **l3))
    # Qwen2 architecture (q/k/v biases, 151936-entry vocabulary: the logits dominate)
    add(make_case("qwen2.5-0.5b", "causal-lm", 8, 2048, gc=True, **llama))
    add(make_case("qwen2.5-0.5b", "causal-lm", 8, 2048, lora_r=16, lora_targets=LLAMA_ALL, **llama))
    add(make_case("qwen2.5-0.5b", "causal-lm", 8, 2048, gc=True, lora_r=16, lora_targets=LLAMA_ALL,
                  quant="nf4", **llama))
    add(make_case("qwen2.5-0.5b", "causal-lm", 8, 1024, mode="generate", num_beams=4, new_tokens=256,
                  **llama))

    _issue33(add)

    # the sets of issues 16/17/33 are selected by name ('encoders', 'decoders', 'issue33'); the
    # default set stays the one that fits in a single 10-minute run
    for c in cases[first_new:]:
        c["default"] = False

    # Capacity: the batch is solved at run time so that the run needs 85% / 115% of the
    # card's total memory (sweeplint estimate, or two probe runs when it is unavailable).
    for frac, side in ((0.85, "below"), (1.15, "above")):
        add(make_case("bge-m3", "bi-encoder", 0, 512, amp="fp16", case_id="cap-bgem3-" + side,
                      capacity={"group": "cap-bgem3", "frac": frac, "probe_batches": [4, 16]}))
        add(make_case("llama-3.2-1b", "causal-lm", 0, 1024, dtype="bf16",
                      case_id="cap-llama1b-" + side,
                      capacity={"group": "cap-llama1b", "frac": frac, "probe_batches": [1, 4]}))
        add(make_case("llama-3.2-3b", "causal-lm", 0, 2048, dtype="bf16", gc=True, lora_r=16,
                      lora_targets=LLAMA_ALL, case_id="cap-llama3b-lora-" + side, default=False,
                      capacity={"group": "cap-llama3b-lora", "frac": frac, "probe_batches": [2, 8]}))
    return cases


CASES = _build()


def all_cases():
    """Every case (fresh copies)."""
    return copy.deepcopy(CASES)


ENCODER_ARCHS = ("bge-m3", "klue-roberta-base", "multilingual-minilm", "mt5-base", "t5-base", "whisper-small")
DECODER_ARCHS = ("llama-3.2-1b", "llama-3.2-3b", "qwen2.5-0.5b", "qwen3-0.6b", "gemma-2-2b", "phi-3-mini")


def suite(case):
    """'encoders' (issue 16: encoders, bi-encoders, seq2seq) or 'decoders' (issue 17)."""
    return "encoders" if case["arch"] in ENCODER_ARCHS else "decoders"


def default_cases():
    return [c for c in all_cases() if c["default"]]


def select(spec, cases=None):
    """Cases chosen by a spec: 'default', 'all', 'encoders', 'decoders', or comma-separated ids
    and fnmatch globs.

    Order follows the case list; an item that matches nothing raises KeyError.
    """
    cases = all_cases() if cases is None else cases
    spec = (spec or "default").strip()
    if spec == "default":
        return [c for c in cases if c["default"]]
    if spec == "all":
        return list(cases)
    if spec in ("encoders", "decoders"):
        return [c for c in cases if suite(c) == spec]
    if spec == "issue33":
        return [c for c in cases if c.get("value")]
    chosen = set()
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        hits = [c["id"] for c in cases if fnmatch.fnmatchcase(c["id"], item)]
        if not hits:
            raise KeyError(item)
        chosen.update(hits)
    return [c for c in cases if c["id"] in chosen]


def tsv_row(case, gpu, metric, value_mib, notes="", source="sweeplint tools/calibrate"):
    """A measured.tsv row (dict keyed by measured.COLUMNS) for a case and one metric."""
    s = case["settings"]
    note_parts = []
    if s["lora_targets"]:
        note_parts.append("lora_targets=" + s["lora_targets"])
    if s["quant"] != "none":
        note_parts.append("quant=" + s["quant"])
    if s["task"] == "bi-encoder":
        note_parts.append("texts_per_example=%d" % s["texts_per_example"])
    for role in ("mode", "eval_batch_size", "mini_batch_size", "modules_to_save", "fsdp",
                 "torch_compile", "liger", "num_beams", "max_new_tokens"):
        v = s.get(role)
        if v and v != "train":
            note_parts.append("%s=%s" % (role, str(v).lower() if isinstance(v, bool) else v))
    if s["quant"] != "none" and not case.get("kbit_prepare", True):
        note_parts.append("kbit_prepare=false")
    for role, unset in EXTRA_ROLES.items():
        v = s.get(role, unset)
        if v != unset:
            note_parts.append("%s=%s" % (role, str(v).lower() if isinstance(v, bool) else v))
    if case.get("alloc_conf"):
        note_parts.append("alloc_conf=" + case["alloc_conf"])
    if case.get("sdpa_backend"):
        note_parts.append("sdpa_backend=" + case["sdpa_backend"])
    text = " ".join(note_parts)
    if notes:
        text = (text + "; " + notes) if text else notes
    return {
        "id": case["id"],
        "source": source,
        "model": s["model"],
        "task": s["task"],
        "batch": s["batch_size"],
        "grad_accum": s["grad_accum"],
        "seq_len": s["seq_len"],
        "target_len": s["target_len"],
        "dtype": s["dtype"],
        "amp": s["amp"],
        "gc": "true" if s["gradient_checkpointing"] else "false",
        "optimizer": s["optimizer"],
        "method": case["method"],
        "lora_r": s["lora_r"],
        "attn": s["attn"],
        "gpu": gpu,
        "metric": metric,
        "value_mib": value_mib,
        "notes": text,
    }
