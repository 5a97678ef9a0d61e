/*
 * memory: architectures, the model and GPU catalogs, run settings and the
 * estimator of peak device memory (DESIGN §4). The rules/ catalogs are read
 * with libcyaml and validated at build time (src/snapshot) and compiled in
 * as a snapshot; loading copies it into the run arena (given sources are
 * parsed with libcyaml, their objects registered for teardown).
 * sl_estimate() is a pure function that allocates nothing.
 */
#ifndef SWEEPLINT_MEMORY_H
#define SWEEPLINT_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sl_arena;
struct sl_diags;
struct sl_hub;
struct sl_source;

/* HF model_type families the architecture code knows. */
enum sl_family {
	SL_FAMILY_BERT,
	SL_FAMILY_ROBERTA,
	SL_FAMILY_XLM_ROBERTA,
	SL_FAMILY_ELECTRA,
	SL_FAMILY_T5,
	SL_FAMILY_MT5,
	SL_FAMILY_BART,
	SL_FAMILY_MBART,
	SL_FAMILY_LLAMA,
	SL_FAMILY_MISTRAL,
	SL_FAMILY_QWEN2,
	SL_FAMILY_GEMMA,
	SL_FAMILY_GPT2,
	SL_FAMILY_GPT_NEOX,
	/* added (issue #11) */
	SL_FAMILY_PHI,
	SL_FAMILY_PHI3,
	SL_FAMILY_FALCON,
	SL_FAMILY_BLOOM,
	SL_FAMILY_GPT_BIGCODE,
	SL_FAMILY_OPT,
	SL_FAMILY_GPTJ,
	SL_FAMILY_GPT_NEO,
	SL_FAMILY_GEMMA2,
	SL_FAMILY_GEMMA3,        /* gemma3_text, and the text part of gemma3 */
	SL_FAMILY_QWEN3,
	SL_FAMILY_GRANITE,
	SL_FAMILY_DEBERTA_V2,
	SL_FAMILY_DISTILBERT,
	SL_FAMILY_ALBERT,
	SL_FAMILY_MPNET,
	SL_FAMILY_MIXTRAL,
	SL_FAMILY_QWEN2_MOE,
	SL_FAMILY_QWEN3_MOE,
	SL_FAMILY_WHISPER,
	SL_FAMILY_QWEN,        /* Qwen (first generation, trust_remote_code QWenLMHeadModel) */
	SL_FAMILY_UMT5,        /* mT5 with a relative attention bias in every layer */
	SL_FAMILY_PEGASUS,     /* BART-style, sinusoidal positions, pre-norm with final layer norms */
	/* added (issue #30): the families people fine-tune in 2025-2026 (docs/models.md) */
	SL_FAMILY_OLMO2,       /* post-norm, q/k norms over the whole q and k widths */
	SL_FAMILY_SMOLLM3,     /* llama layout (NoPE layers hold no parameters) */
	SL_FAMILY_STARCODER2,  /* LayerNorm, biases, a plain GELU FFN, GQA */
	SL_FAMILY_GLM,         /* q/k/v biases, no o bias, fused gate_up */
	SL_FAMILY_GLM4,        /* glm + post-attention and post-MLP norms */
	SL_FAMILY_CHATGLM,     /* THUDM remote code: query_key_value, dense_h_to_4h (glm's counts) */
	SL_FAMILY_INTERNLM2,   /* packed wqkv, llama counts */
	SL_FAMILY_EXAONE,      /* LG EXAONE 3/3.5 remote code, llama counts */
	SL_FAMILY_APERTUS,     /* q/k norms, xIELU (two learned scalars per layer), plain up/down FFN */
	SL_FAMILY_DEEPSEEK_V2, /* multi-head latent attention, shared + routed experts, dense first layers */
	SL_FAMILY_DEEPSEEK_V3,
	SL_FAMILY_GPT_OSS,     /* MoE with biases, attention sinks, alternating sliding window */
	SL_FAMILY_PHIMOE,      /* Phi-3.5-MoE: LayerNorm, attention biases, LM head bias */
	SL_FAMILY_LLAMA4,      /* Llama-4: MoE + shared expert (interleaved), vision tower */
	SL_FAMILY_MAMBA,       /* selective state space: no attention, a recurrent state */
	SL_FAMILY_MAMBA2,
	SL_FAMILY_FALCON_MAMBA,
	SL_FAMILY_JAMBA,       /* Mamba + attention every few layers + MoE every other layer */
	SL_FAMILY_RWKV,        /* RWKV-4: time mixing and channel mixing, a recurrent state */
	SL_FAMILY_MODERNBERT,  /* fused Wqkv, GLU, bias-free LayerNorms, alternating global/local attention */
	SL_FAMILY_M2M_100,     /* NLLB / M2M100: Pegasus's layout */
	SL_FAMILY_NOMIC_BERT,  /* nomic-bert remote code: rotary, SwiGLU, no biases */
	SL_FAMILY_QWEN2_5_VL,  /* Qwen2.5-VL: a qwen2 language model + its vision tower */
	SL_FAMILY_CUSTOM,      /* a custom nn.Module counted from its layer list (struct sl_modules, modules.c) */
	SL_FAMILY__COUNT
};

enum sl_arch_kind {
	SL_ARCH_ENCODER,  /* bert-like: bidirectional self-attention */
	SL_ARCH_DECODER,  /* causal LM */
	SL_ARCH_ENCDEC,   /* t5/bart: encoder + decoder with cross-attention */
	SL_ARCH__COUNT
};

/*
 * An architecture: the hyper-parameters of an HF config.json that decide
 * parameter counts and activation shapes. Zero means "not applicable".
 */
struct sl_arch {
	enum sl_family family;
	enum sl_arch_kind kind;
	uint32_t vocab;          /* vocab_size */
	uint32_t hidden;         /* hidden_size / d_model / n_embd */
	uint32_t layers;         /* encoder layers (or decoder layers for decoder-only) */
	uint32_t dec_layers;     /* decoder layers of an encoder-decoder */
	uint32_t heads;          /* attention heads */
	uint32_t kv_heads;       /* key/value heads (GQA); == heads when absent */
	uint32_t head_dim;       /* d_kv / head_dim; hidden/heads when absent */
	uint32_t intermediate;   /* intermediate_size / d_ff / n_inner */
	uint32_t max_pos;        /* max_position_embeddings / n_positions (0: relative or unbounded) */
	uint32_t type_vocab;     /* token_type embeddings (bert) */
	uint32_t rel_buckets;    /* T5 relative_attention_num_buckets */
	bool gated_ffn;          /* three FFN matrices: T5 gated-gelu, Llama SwiGLU */
	bool tied;               /* lm head tied to the input embedding */
	bool pooler;             /* bert/roberta pooler dense layer in the base model */
	bool bias;               /* linear layers carry biases */
	bool rmsnorm;            /* RMSNorm (weight only) instead of LayerNorm (weight + bias) */
	bool final_norm;         /* a norm after the last layer (decoders, T5 stacks) */
	bool emb_norm;           /* a norm right after the embeddings (bert family) */
	bool qkv_bias_only;      /* qwen2: bias on q/k/v only */
	bool scale_emb;          /* bart/mbart scale_embedding: embeddings × sqrt(d_model); no parameters */
	uint32_t emb_dim;        /* electra embedding_size (factorised embeddings); 0: hidden */
	/* added (issue #11): the layouts of the newer families (docs/models.md) */
	uint8_t norms;           /* norms per layer (self-attention + FFN); 0: 2. 1: one norm before parallel
	                          * attention and FFN (phi, gptj, falcon-7b); 4: gemma2/3 sandwich norms */
	uint8_t no_bias;         /* SL_NOBIAS_* linears without a bias although `bias` is set */
	bool fused_qkv;          /* one q/k/v projection: LoRA adapts it as one module */
	bool qk_norm;            /* RMSNorm over head_dim on q and on k (qwen3, gemma3) */
	bool lm_head_bias;       /* the untied LM head has a bias (phi, gptj) */
	bool enc_only;           /* an encoder-decoder family used as its encoder alone (T5EncoderModel) */
	uint32_t param_layers;   /* distinct parameter layers (albert num_hidden_groups, shared); 0: layers */
	uint32_t rel_emb;        /* deberta-v2 rel_embeddings rows; 0: none */
	bool rel_norm;           /* deberta-v2 norm_rel_ebd "layer_norm": a LayerNorm over rel_embeddings */
	uint32_t conv_kernel;    /* deberta-v2 conv_kernel_size (a Conv1d + LayerNorm after layer 0); 0: none */
	uint32_t experts;        /* MoE: experts per layer, all resident; 0: dense */
	uint32_t top_k;          /* MoE: experts each token goes through */
	uint32_t shared_ffn;     /* MoE: width of the shared expert (qwen2_moe); 0: none */
	uint32_t mel_bins;       /* whisper: num_mel_bins of the conv front end */
	uint32_t src_pos;        /* whisper: max_source_positions, the audio frames after the convs (1500) */
	/* added (issue #30): the layouts of the 2025-2026 families (docs/models.md) */
	bool qk_norm_full;       /* olmo2: q_norm / k_norm over the whole q and k widths, not head_dim */
	uint8_t act_params;      /* learned scalars of each layer's activation (apertus xIELU: alpha_p, alpha_n) */
	bool shared_gate;        /* MoE: the shared expert has a sigmoid gate h -> 1 (qwen2_moe) */
	bool router_bias;        /* MoE: the router and the experts carry biases (gpt-oss) */
	bool sinks;              /* a learned attention sink per head (gpt-oss) */
	uint32_t dense_ffn;      /* MoE models: the FFN width of their dense layers; 0: intermediate */
	uint32_t moe_first;      /* MoE: the first layers are dense (deepseek first_k_dense_replace) */
	uint32_t moe_every;      /* MoE: layer i is MoE when i % moe_every == moe_offset; 0: every layer */
	uint32_t moe_offset;
	uint32_t q_lora;         /* MLA: q_lora_rank (0: q_proj straight from h) */
	uint32_t kv_lora;        /* MLA: kv_lora_rank, the compressed KV; 0: no MLA */
	uint32_t rope_dim;       /* MLA: qk_rope_head_dim (head_dim is qk_nope + qk_rope) */
	uint32_t v_head_dim;     /* MLA: v_head_dim */
	uint32_t window;         /* sliding-window attention: its width in tokens; 0: none */
	uint32_t window_layers;  /* the layers that attend within it (the rest attend globally) */
	uint32_t ssm_inner;      /* state-space mixer: its inner width (expand x hidden); 0: none */
	uint32_t ssm_state;      /* d_state / state_size */
	uint32_t ssm_conv;       /* d_conv / conv_kernel */
	uint32_t ssm_dt_rank;    /* mamba 1: time_step_rank */
	uint32_t ssm_heads;      /* mamba 2: heads of the SSM (0: mamba 1) */
	uint32_t ssm_groups;     /* mamba 2: n_groups of B and C */
	bool ssm_conv_bias, ssm_proj_bias;
	bool ssm_dt_norms;       /* jamba: RMSNorms over dt, B and C */
	uint32_t attn_every;     /* hybrids: layer i has attention when i % attn_every == attn_offset, else an SSM mixer */
	uint32_t attn_offset;
	uint32_t lora_tasks;     /* jina-embeddings-v3: task LoRA adapters stored with the weights (lora_adaptations) */
	uint32_t lora_rank;
	uint8_t vis_kind;        /* SL_VISION_*: the vision tower of a vision-language model; 0: none */
	uint32_t vis_layers, vis_hidden, vis_ffn, vis_heads, vis_patch;
	uint32_t vis_image;      /* the tower's image size (SigLIP: fixed); 0: dynamic resolution */
	uint32_t vis_temporal;   /* qwen2.5-vl temporal_patch_size */
	uint32_t vis_merge;      /* qwen2.5-vl spatial_merge_size */
	uint32_t vis_tokens;     /* language-model tokens per image at vis_image (gemma3 mm_tokens_per_image); 0: from the size */
	uint32_t vis_proj_in, vis_proj_out; /* llama4: projector_input_dim, projector_output_dim (= vision_output_dim) */
	/* SL_FAMILY_CUSTOM: a custom nn.Module built from a layer list (role `modules`); NULL otherwise */
	const struct sl_modules *modules;
};

/* Vision towers (struct sl_arch.vis_kind). */
enum { SL_VISION_NONE, SL_VISION_SIGLIP, SL_VISION_QWEN2_5, SL_VISION_LLAMA4, SL_VISION__COUNT };

/*
 * A custom nn.Module as a layer list (docs/memory-model.md "Custom modules"): the interpreter of the
 * program emits it as the value of role `modules` (or `head_params`) and sl_modules_parse counts it.
 * Format: items separated by ';', each `[N*]Layer(arg, ..., key=value)` or `N*[item; item]`, with
 * torch's positional signatures (Linear(in, out), Embedding(num, dim), Conv1d/Conv2d(in, out, kernel),
 * LayerNorm(d), MultiheadAttention(embed_dim, num_heads), TransformerEncoderLayer(d_model, nhead,
 * dim_feedforward=2048), TransformerDecoderLayer(...), LSTM/GRU/RNN(input_size, hidden_size,
 * num_layers=1, bidirectional=False), BatchNorm1d/2d(c), and width-less ReLU/GELU/Tanh/Sigmoid/SiLU/
 * Dropout/Softmax that act on the previous output); a leading "<=" says every number is an upper
 * bound (the counts are then bounds: each grows with every argument).
 */
struct sl_modules {
	uint64_t params;          /* parameters (exact, or an upper bound with `bound`) */
	uint64_t matmul;          /* of which the weights of Linear, attention projections and recurrent cells */
	uint64_t largest;         /* parameters of the largest layer */
	double kept;              /* elements kept for backward per position (upper bound: see modules.c) */
	double transient;         /* elements of the largest layer's forward working set per position */
	double attn_heads;        /* sum over attention layers of heads whose s x s probabilities are kept */
	double sdpa_heads;        /* heads of the attention layers that run SDPA (O(s) kept per head) */
	uint32_t width;           /* the last layer's output width (a head's logits) */
	uint32_t layers;          /* layers counted (repeats expanded) */
	bool bound;               /* the spec started with "<=": every count is an upper bound */
	const char *text;         /* the spec as given */
};

/*
 * Parse a layer list into *out (see struct sl_modules). Returns 0, or -1 with *why ("unknown layer
 * 'Foo' at 12", "Linear needs in and out"). Nothing but the arena is touched; the counts saturate
 * instead of wrapping.
 */
int sl_modules_parse(struct sl_arena *a, const char *spec, struct sl_modules *out, const char **why);

/*
 * A size in braces, `{expr}` (src/memory/moddims.c): computed from sweep parameters by the program that
 * builds the module. env->value gives a parameter's value in one combination (the layer list is then
 * counted for it); env->range, when set, its least and largest numeric value instead (every size is
 * then bounded over all combinations, and the counts are upper bounds).
 */
struct sl_modules_val {
	enum { SL_MV_INT, SL_MV_FLOAT, SL_MV_STR, SL_MV_BOOL } kind;
	int64_t i;
	double f;
	const char *s;
	size_t slen;
	bool b;
};

struct sl_modules_env {
	bool (*value)(void *ctx, const char *name, struct sl_modules_val *out);
	bool (*range)(void *ctx, const char *name, double *lo, double *hi);
	void *ctx;
};

/* sl_modules_parse with the sweep's values for the sizes in braces (env NULL: such a size is refused). */
int sl_modules_parse_env(struct sl_arena *a, const char *spec, const struct sl_modules_env *env,
			 struct sl_modules *out, const char **why);

/*
 * The size in braces at *p ('{'): its least and largest value under env; *p moves past its '}'.
 * False with *why when it cannot be read.
 */
bool sl_moddim_eval(struct sl_arena *a, const char **p, const struct sl_modules_env *env, double *lo, double *hi,
		    const char **why);

/* The distinct sweep parameters spec's sizes in braces name (in the arena); their count. */
size_t sl_moddim_params(struct sl_arena *a, const char *spec, const char ***names);

/* A model that is a custom module stack (family custom, name "custom-<P>-params"), or NULL. */
const struct sl_model *sl_model_from_modules(struct sl_arena *a, const struct sl_modules *m);

/* Linears without a bias in a family whose `bias` is set (struct sl_arch.no_bias). */
enum {
	SL_NOBIAS_Q = 1u << 0,
	SL_NOBIAS_K = 1u << 1,
	SL_NOBIAS_V = 1u << 2,
	SL_NOBIAS_O = 1u << 3,
	SL_NOBIAS_MLP = 1u << 4,
	SL_NOBIAS_NORM = 1u << 5, /* LayerNorms without a bias (modernbert norm_bias false) */
};

/* Fill *a with the family's defaults (kind, biases, norms, ties, pooler); shape fields zero. */
void sl_arch_init(struct sl_arch *a, enum sl_family f);

/* Tasks: what head is trained and what the loss sees. */
enum sl_task {
	SL_TASK_SEQ_CLS,
	SL_TASK_TOKEN_CLS,
	SL_TASK_QA,
	SL_TASK_MLM,
	SL_TASK_CAUSAL_LM,
	SL_TASK_SEQ2SEQ,
	SL_TASK_BI_ENCODER,
	SL_TASK__COUNT
};

enum sl_dtype { SL_DTYPE_FP32, SL_DTYPE_BF16, SL_DTYPE_FP16, SL_DTYPE__COUNT };
enum sl_amp { SL_AMP_OFF, SL_AMP_FP16, SL_AMP_BF16, SL_AMP__COUNT };
/* Quantised bases: bitsandbytes LLM.int8() and NF4 (QLoRA), and the 4-bit GPTQ / AWQ checkpoints
 * (packed int4 weights + per-group fp16 scales and packed zeros). */
enum sl_quant { SL_QUANT_NONE, SL_QUANT_INT8, SL_QUANT_NF4, SL_QUANT_GPTQ, SL_QUANT_AWQ, SL_QUANT__COUNT };

/* Modules trained in full next to an adapter (PEFT modules_to_save): the input embedding, the LM head. */
enum { SL_MTS_EMBED = 1u << 0, SL_MTS_HEAD = 1u << 1 };
enum sl_attn { SL_ATTN_DEFAULT, SL_ATTN_EAGER, SL_ATTN_SDPA, SL_ATTN_FLASH, SL_ATTN__COUNT };
enum sl_offload { SL_OFFLOAD_NONE, SL_OFFLOAD_OPTIMIZER, SL_OFFLOAD_ALL, SL_OFFLOAD__COUNT };
/*
 * FSDP sharding strategies (torch.distributed.fsdp.ShardingStrategy; role `fsdp`). FULL_SHARD
 * shards parameters, gradients and optimizer states over the world and frees each unit's gathered
 * parameters after its forward; SHARD_GRAD_OP keeps them until the unit's backward; the HYBRID
 * variants shard within a node and replicate across nodes; NO_SHARD keeps everything whole.
 */
enum sl_fsdp {
	SL_FSDP_NONE,
	SL_FSDP_FULL_SHARD,
	SL_FSDP_SHARD_GRAD_OP,
	SL_FSDP_HYBRID_SHARD,
	SL_FSDP_HYBRID_SHARD_ZERO2,
	SL_FSDP_NO_SHARD,
	SL_FSDP__COUNT
};
/*
 * How the model's parameters reach their FSDP units (role `fsdp_init`; docs/memory-model.md "FSDP load
 * and save peaks"). PER_UNIT: each unit is moved (or materialised from the meta device) to the GPU,
 * flattened and sharded in turn as FSDP wraps it bottom-up (a model built or loaded on the CPU —
 * accelerate with or without fsdp_cpu_ram_efficient_loading, Lightning's init_module(empty_init=True),
 * FSDP2 fully_shard after a meta-device init, torchtune's recipes); what the estimate assumes unless a
 * setting says otherwise. DEVICE: the whole model sits on every GPU before it is wrapped
 * (model.to(device), a device_map, device=cuda): the load peak holds all of it once.
 */
enum sl_fsdp_init {
	SL_FSDP_INIT_PER_UNIT,   /* every process builds or loads the model on its CPU */
	SL_FSDP_INIT_DEVICE,     /* the whole model on every GPU first */
	SL_FSDP_INIT_RANK0,      /* per unit, the checkpoint read by local rank 0 only, the other ranks on the meta
	                          * device (accelerate fsdp_cpu_ram_efficient_loading + sync_module_states): the
	                          * host holds the model once per node */
	SL_FSDP_INIT__COUNT
};
/*
 * The checkpoint FSDP writes (role `fsdp_state_dict`; StateDictType and its FullStateDictConfig).
 * NONE: not stated (saving is left out of the estimate's phases). FULL: FULL_STATE_DICT as accelerate,
 * the HF Trainer and Lightning configure it (offload_to_cpu=True, rank0_only=True: each unit gathered
 * on the GPU and copied to the host in turn). SHARDED / LOCAL: each rank writes its shard (a unit
 * gathered at a time while it is converted). FULL_DEVICE: FULL_STATE_DICT with torch's
 * FullStateDictConfig() defaults (offload_to_cpu=False): every unit's full parameters are cloned and
 * stay on the GPU, the whole model on each rank.
 */
enum sl_fsdp_sd {
	SL_FSDP_SD_NONE,
	SL_FSDP_SD_FULL,
	SL_FSDP_SD_SHARDED,
	SL_FSDP_SD_LOCAL,
	SL_FSDP_SD_FULL_DEVICE,
	SL_FSDP_SD__COUNT
};
/*
 * PEFT methods (role `peft_method`; PEFT's peft_type). NONE: LoRA when lora_r > 0, else a full
 * fine-tune. The adapter methods adapt the target linears (lora_targets) at rank lora_r; the
 * prompt methods train num_virtual_tokens virtual tokens; docs/memory-model.md "PEFT methods".
 */
enum sl_peft {
	SL_PEFT_NONE,
	SL_PEFT_LORA,
	SL_PEFT_DORA,            /* LoRA + a magnitude vector per target (use_dora) */
	SL_PEFT_LOHA,            /* Hadamard product of two rank-r pairs, the delta weight materialised */
	SL_PEFT_VERA,            /* frozen shared random A, B; trainable vectors d (r) and b (out) */
	SL_PEFT_IA3,             /* a scaling vector per target: out, or in for feed-forward modules */
	SL_PEFT_OFT,             /* r block-diagonal skew-symmetric blocks on the input */
	SL_PEFT_BOFT,            /* butterfly blocks of 4 on the input + a scale per output */
	SL_PEFT_PROMPT_TUNING,   /* virtual token embeddings prepended to the input */
	SL_PEFT_P_TUNING,        /* virtual tokens through an MLP prompt encoder */
	SL_PEFT_PREFIX_TUNING,   /* a key and value prefix per layer */
	SL_PEFT_ADAPTION_PROMPT, /* LLaMA-Adapter: an adaption prompt and a gate per layer */
	SL_PEFT_LN_TUNING,       /* the norms' weights */
	SL_PEFT_TRAINABLE_TOKENS,/* some rows of the input embedding */
	SL_PEFT__COUNT,
	/* the methods of rules/peft.yaml: SL_PEFT_TABLE + their index (src/memory/peft_table.h) */
	SL_PEFT_TABLE = 32,
	SL_PEFT_TABLE_END = SL_PEFT_TABLE + 64
};
/* The KL coefficient of an RL algorithm as far as memory goes (role `beta`): GRPO and RLOO load no
 * reference model when it is 0. DEFAULT: the algorithm's own default (rules/algorithms.yaml). */
enum sl_beta { SL_BETA_DEFAULT, SL_BETA_ZERO, SL_BETA_POSITIVE };
/* Where TRL runs vLLM (role `vllm_mode`): DEFAULT is colocate, TRL's default since 1.0. */
enum sl_vllm_mode { SL_VLLM_DEFAULT, SL_VLLM_COLOCATE, SL_VLLM_SERVER };
/* How the reference model is held (role `ref_model`). DEFAULT: a copy of the policy, or the PEFT base
 * with its adapter disabled; MODEL: a separate model is given (a copy even under PEFT); PRECOMPUTED:
 * precompute_ref_log_probs (no reference on the device during training); NONE: a reference-free loss
 * (LLaMA-Factory pref_loss orpo / simpo, TRL reference_free). */
enum sl_ref_model { SL_REFM_DEFAULT, SL_REFM_MODEL, SL_REFM_PRECOMPUTED, SL_REFM_NONE };
/* A PPO run's reward model (role `reward_model`): DEFAULT and MODEL a separate frozen model; ADAPTER a
 * LoRA adapter on the policy's base (LLaMA-Factory reward_model_type lora); API none on the GPU. */
enum sl_reward_model { SL_RM_DEFAULT, SL_RM_MODEL, SL_RM_ADAPTER, SL_RM_API };

/* The moments of a training step sl_estimate compares (struct sl_settings.at_phase; 0: the largest). */
enum { SL_AT_PEAK, SL_AT_FORWARD, SL_AT_BACKWARD, SL_AT_LAYER_BACKWARD, SL_AT_OPTIMIZER, SL_AT__COUNT };

/* The workload (role `mode`): a training step, an evaluation forward, or generation (prefill + decoding). */
enum sl_mode { SL_MODE_TRAIN, SL_MODE_EVAL, SL_MODE_GENERATE, SL_MODE__COUNT };

/*
 * Which part of the model runs (role `part`): the class a task loads (FULL: …ForCausalLM, …For-
 * SequenceClassification), the bare base model without any head (BASE: AutoModel, T5Model, whose
 * hidden states go into the program's own loss or head), or the encoder stack of an encoder-decoder
 * alone (ENCODER: T5EncoderModel, model.get_encoder()).
 */
enum sl_part { SL_PART_FULL, SL_PART_BASE, SL_PART_ENCODER, SL_PART__COUNT };

/*
 * The loss of a sentence-transformers bi-encoder (role `loss`), by what it needs of a step: in-batch
 * negatives over every other text of the batch (MultipleNegativesRankingLoss, GISTEmbed, MegaBatch-
 * Margin), the same under GradCache (CachedMultipleNegativesRankingLoss: mini-batches of 32 unless
 * mini_batch_size says), a score per pair (CosineSimilarity, Contrastive, OnlineContrastive, CoSENT,
 * AnglE, Softmax), or per triplet (Triplet, MarginMSE): texts per example 2, 2, 2 and 3 unless
 * texts_per_example says.
 */
enum sl_loss { SL_LOSS_NONE, SL_LOSS_IN_BATCH, SL_LOSS_CACHED, SL_LOSS_PAIR, SL_LOSS_TRIPLET, SL_LOSS__COUNT };

/* The inference engine of a generation run (role `engine`): Hugging Face generate, or vLLM's LLM. */
enum sl_engine { SL_ENGINE_HF, SL_ENGINE_VLLM, SL_ENGINE__COUNT };

/* struct sl_settings.frozen_layers: every layer and the embeddings (only a head trains). */
#define SL_FROZEN_BACKBONE UINT32_MAX

/* Optimizers by the bytes of state they keep per trainable parameter. */
enum sl_optim {
	SL_OPTIM_ADAMW,        /* adamw_torch, adamw_hf, adamw_torch_fused, adam: 8 B */
	SL_OPTIM_ADAMW_8BIT,   /* adamw_bnb_8bit, adamw_8bit, paged_adamw_8bit: 2 B */
	SL_OPTIM_ADAFACTOR,    /* factored second moments */
	SL_OPTIM_SGD,          /* no momentum: 0 B (momentum: 4 B, see sgd_momentum) */
	SL_OPTIM_SGD_MOMENTUM,
	SL_OPTIM_LION,         /* 4 B */
	SL_OPTIM_LION_8BIT,    /* bitsandbytes lion_8bit: one 8-bit state, 1 B */
	SL_OPTIM_ADEMAMIX,     /* bitsandbytes AdEMAMix: three float32 states (two EMAs and nu), 12 B */
	SL_OPTIM_ADEMAMIX_8BIT,/* its 8-bit form: 3 B */
	SL_OPTIM__COUNT
};
/*
 * sl_optim_parse's flag on a bitsandbytes paged optimizer (paged_adamw_8bit, paged_adamw_32bit,
 * paged_lion_*, paged_ademamix_*), or'ed onto the enum: the role value keeps both, sl_settings
 * splits them into optimizer and optimizer_paged.
 */
#define SL_OPTIM_PAGED 0x100

/* LoRA target module bits. */
enum {
	SL_LORA_Q = 1u << 0,
	SL_LORA_K = 1u << 1,
	SL_LORA_V = 1u << 2,
	SL_LORA_O = 1u << 3,
	SL_LORA_GATE = 1u << 4,
	SL_LORA_UP = 1u << 5,
	SL_LORA_DOWN = 1u << 6,
	SL_LORA_ALL = 0x7Fu,
};

/* A catalog model: an architecture with names. */
struct sl_model {
	const char *name;          /* catalog name, e.g. "bge-m3-ko" */
	const char *hf_id;         /* canonical Hugging Face id */
	const char **aliases;      /* PCRE2 patterns matched against a model value (anchored, caseless) */
	size_t naliases;
	struct sl_arch arch;
	enum sl_task task;         /* default task */
	uint32_t st_max_seq_len;   /* sentence-transformers max_seq_length, 0 when none */
	uint64_t official_params;  /* the published count when known (tests compare), else 0 */
	double tolerance;          /* how far the computed count may be from a rounded official one (0: exact) */
	const char **names;        /* plain names the architecture table matches by (rules/architectures.yaml) */
	size_t nnames;
	const char *source;        /* where the config came from */
	/* how a value resolved (sl_model_resolve); catalog entries leave these NULL / none */
	const char *resolved_by;   /* "config", "project", "hf-cache", "catalog", "name" */
	const char *resolved_from; /* the config.json read, or "rules/models.yaml#NAME" */
	const char *resolved_note; /* e.g. "resolved by name as t5-11b; give its config.json to be exact" */
	enum sl_quant quant;       /* a quantisation the id names (-bnb-4bit, -AWQ): used unless the sweep sets one */
};

struct sl_gpu {
	const char *name;          /* "h100-80gb" */
	const char *label;         /* "NVIDIA H100 80GB HBM3" */
	uint64_t bytes;            /* usable memory as torch.cuda.mem_get_info() reports the total */
	bool bf16;                 /* bf16 supported in hardware */
	uint32_t cc_major, cc_minor;
	uint32_t host_cores;       /* unused by the GPU model; 0 */
	const char **aliases;      /* PCRE2 patterns (anchored, caseless); NULL for a raw size */
	size_t naliases;
	const char *source;        /* where the memory figure comes from; NULL for a raw size */
};

/*
 * Fitted constants (rules/calibration.yaml). Each is documented there with
 * the measurement it was fitted to. The estimator reads nothing else that
 * is not derived from the architecture.
 */
struct sl_calib {
	uint64_t cuda_context;        /* bytes of CUDA context + lazily loaded kernels */
	uint64_t cuda_context_legacy; /* pre-lazy-loading context (CUDA < 11.7) */
	double slack_frac;            /* allocator slack, fraction of activations */
	uint64_t slack_min;           /* allocator slack floor, bytes */
	double eager_attn_copies;     /* b·a·s² tensors kept per layer by eager attention (16-bit) */
	double sdpa_attn_bytes;       /* per b·a·s element kept by SDPA/flash (logsumexp etc.) */
	double act_extra_frac;        /* fp32 softmax/layernorm share under AMP */
	double zero_reuse_distance;   /* DeepSpeed stage3_max_reuse_distance, parameter elements */
	double zero_sub_group;        /* DeepSpeed sub_group_size, elements */
	double zero_reduce_bucket;    /* reduce_bucket_size, in hidden² (HF "auto") */
	double zero_prefetch_bucket;  /* stage3_prefetch_bucket_size, in hidden² (HF "auto") */
	uint64_t nccl_buffer;         /* per-process NCCL buffers on multi-GPU runs */
	/* host RAM (seed 001) */
	uint64_t host_base;           /* base process */
	uint64_t host_per_worker;     /* per DataLoader worker */
	double host_load_factor;      /* model loading × factor */
	double host_overhead_frac;    /* overhead fraction of the total */
	/* added by the estimator (rules/calibration.yaml documents each) */
	double flash_bwd_bytes;       /* bytes per b·s·a·d element alive in one SDPA/flash backward */
	double host_offload_factor;   /* host buffers per offloaded byte (DeepSpeed additional_buffer_factor) */
	uint64_t gen_max_length;      /* generation: HF GenerationConfig max_length when max_new_tokens is unstated */
	/* bitsandbytes optimizers (bnb/optim/optimizer.py) */
	uint64_t bnb_min_8bit_size;   /* tensors under this many elements keep 32-bit states */
	uint64_t bnb_block;           /* elements per float32 absmax of an 8-bit state */
	uint64_t bnb_paged_min;       /* paged optimizers page the states of tensors of this many elements and more */
	/* vLLM's engine defaults (vllm.c; rules/calibration.yaml gives each source) */
	double vllm_utilization;      /* EngineArgs.gpu_memory_utilization */
	uint64_t vllm_batched_tokens; /* max_num_batched_tokens of the LLM class */
	uint64_t vllm_batched_tokens_large; /* the same on a GPU of vllm_large_gpu or more that is no A100 */
	uint64_t vllm_max_seqs;       /* max_num_seqs of the LLM class */
	uint64_t vllm_max_seqs_large; /* the same on a large GPU */
	uint64_t vllm_large_gpu;      /* bytes from which the large defaults apply */
	uint64_t vllm_block_size;     /* tokens per KV cache block */
	uint64_t vllm_non_torch;      /* device memory outside torch's allocator inside the share (cuBLAS, NCCL at TP 1) */
	double vllm_sampler_bytes;    /* bytes per logit of the profile run's sampler (rows x vocabulary) */
};

struct sl_name_index;

struct sl_catalog {
	const struct sl_model *models; /* read-only: the build-time snapshot's own table, or the parsed files' */
	size_t nmodels;
	const struct sl_model *archs;  /* the architecture table (rules/architectures.yaml): matched by name only */
	size_t narchs;
	const struct sl_gpu *gpus;
	size_t ngpus;
	struct sl_calib calib;
	void *priv;                /* compiled alias patterns */
	const struct sl_name_index *name_index; /* every entry's names as tokens (sl_catalog_name_index); NULL: made per match */
	struct sl_arena *index_arena; /* the loader's arena: the first match by name makes name_index there (NULL: never) */
};

/* Settings of one run: every role of DESIGN §3 that the estimator reads. */
struct sl_settings {
	enum sl_task task;
	uint64_t batch_size;       /* per device */
	uint64_t eval_batch_size;  /* 0: same as batch_size */
	uint64_t grad_accum;       /* >= 1; does not change the peak */
	uint64_t seq_len;          /* source / encoder length */
	uint64_t target_len;       /* decoder length of seq2seq; 0: seq_len */
	enum sl_dtype dtype;       /* weights as loaded */
	enum sl_amp amp;
	bool gradient_checkpointing;
	enum sl_optim optimizer;
	bool optimizer_paged;      /* bitsandbytes paged optimizer: its large states in CUDA managed memory */
	uint32_t lora_r;           /* 0: full fine-tune */
	uint32_t lora_targets;     /* SL_LORA_* bits; 0 with lora_r > 0: the PEFT default (q, v) */
	uint32_t lora_dropout_bp;  /* LoRA/DoRA lora_dropout in 1/10000 (0: PEFT's default, nn.Identity) */
	enum sl_quant quant;
	uint32_t modules_to_save;  /* SL_MTS_* bits: full trainable copies next to the adapter */
	enum sl_attn attn;
	uint32_t zero_stage;       /* 0..3 */
	enum sl_offload offload;
	bool zero3_init;           /* deepspeed.zero.Init used (seed 004) */
	enum sl_fsdp fsdp;         /* FSDP sharding strategy; NONE: no FSDP (zero_stage applies) */
	bool fsdp_offload;         /* FSDP CPUOffload(offload_params=True): shards, gradients and the step on the host */
	bool fsdp_no_wrap;         /* no auto-wrap policy: the whole model is one FSDP unit */
	enum sl_fsdp_init fsdp_init; /* how the parameters reach their units: one at a time, or the whole model on the GPU first */
	enum sl_fsdp_sd fsdp_state_dict; /* the checkpoint it saves (NONE: not stated, no save phase) */
	/*
	 * FSDP1 use_orig_params=True with the adapters inside the frozen blocks' units (Lightning's
	 * FSDPStrategy default, a block wrap policy): a unit's flat parameter requires grad when any of
	 * its parameters does, so its whole gradient is computed and kept (torch FSDP docs: "mixing
	 * frozen and non-frozen parameters ... higher than expected gradient memory usage"). False: the
	 * HF Trainer's PEFT wrap policy (adapters in units of their own), FSDP2.
	 */
	bool fsdp_orig_params;
	bool fsdp_embed_units;     /* the embeddings and the LM head are FSDP units of their own (torchtune custom_sharded_layers) */
	/*
	 * peft prepare_model_for_kbit_training on a bitsandbytes base (role `kbit_prepare`; TRL, the PEFT
	 * and Qwen QLoRA scripts call it): every non-quantised parameter in float32. Unstated: true.
	 * false: LLaMA-Factory, Lightning's BitsandbytesPrecision (the rest stays in the load dtype).
	 */
	bool kbit_prepare_off;
	/*
	 * bitsandbytes < 0.43.2 (role `bnb_legacy`): MatMul4Bit saved each 4-bit linear's input for the
	 * backward (bitsandbytes#1270 removed it in 0.43.2), so a frozen QLoRA base keeps what a trained one
	 * would. Unstated: false (today's bitsandbytes).
	 */
	bool bnb_legacy;
	/*
	 * The trainable parameters cast to float32 after the model is loaded (role `upcast_trainable`;
	 * LLaMA-Factory's cast_trainable_params_to_fp32, unless pure_bf16): over a 16-bit load a full
	 * fine-tune's weights, gradients and optimizer states are float32, its frozen parameters stay in
	 * the load dtype; a modules_to_save copy is float32 (adapters are anyway). Unstated: false.
	 */
	bool upcast_trainable;
	enum sl_peft peft_method;  /* NONE: LoRA when lora_r > 0, else a full fine-tune */
	uint32_t num_virtual_tokens; /* prompt methods: virtual tokens (adaption prompt length, trained token rows) */
	/* runtime options (docs/memory-model.md "Runtime options") */
	bool torch_compile;        /* inductor fuses RMSNorm and the gated activation: fewer saved tensors */
	bool liger;                /* Liger kernels: fused linear cross-entropy (no logits), RMSNorm, SwiGLU */
	bool chunked_ce;           /* cross-entropy over chunks of the logits (torchtune CEWithChunkedOutputLoss) */
	bool packing;              /* sequences packed to seq_len: what the estimate assumes anyway */
	bool optimizer_in_backward;/* each parameter's step in its gradient hook: no full gradient buffer */
	bool activation_offload;   /* saved activations moved to host memory as the forward goes */
	uint32_t num_gpus;         /* >= 1 */
	uint32_t num_workers;      /* DataLoader workers per process */
	uint32_t texts_per_example; /* bi-encoder: query + positive + negatives (0: the loss's, sl_settings_texts) */
	uint64_t mini_batch_size;  /* GradCache mini batch; 0: none */
	/* what the program does with the model (docs/memory-model.md "What trains", "Part of a model") */
	uint32_t frozen_layers;    /* a full fine-tune's frozen bottom layers (their embeddings too);
	                            * SL_FROZEN_BACKBONE: the whole model but its task head */
	bool frozen_embeddings;    /* the embeddings are frozen (also with frozen_layers > 0) */
	uint64_t head_params;      /* a trainable head the program puts on the model (parameters) */
	enum sl_part part;         /* the part of the model that runs */
	bool separate_encoders;    /* bi-encoder: query and passage encoders with weights of their own */
	uint64_t query_len;        /* bi-encoder: the length of each example's first text (0: seq_len) */
	uint32_t chunks_per_text;  /* bi-encoder: chunks each passage is split into, all in one step (0, 1: one) */
	enum sl_loss loss;         /* a sentence-transformers loss (NONE: in-batch negatives for a bi-encoder) */
	bool dynamic_padding;      /* padding to each batch's longest example: seq_len is an upper bound */
	/* vLLM (engine vllm; docs/memory-model.md "vLLM") */
	enum sl_engine engine;
	uint64_t max_model_len;    /* 0: the model's max_position_embeddings */
	uint32_t tensor_parallel;  /* tensor_parallel_size (0, 1: one GPU) */
	uint64_t max_num_batched_tokens; /* the profile run's tokens (0: vLLM's default for the GPU) */
	uint32_t max_num_seqs;     /* the sampler's rows in the profile run (0: vLLM's default for the GPU) */
	bool pin_memory;
	/* the workload (mode): generation reads num_beams, max_new_tokens and gpu_memory_utilization */
	enum sl_mode mode;
	uint32_t num_beams;        /* beams per prompt (0/1: greedy or sampling) */
	uint64_t max_new_tokens;   /* 0: not stated (HF's default max_length, calibration) */
	uint32_t gpu_mem_util_bp;  /* vLLM gpu_memory_utilization in 1/10000 (0: none) */
	/*
	 * Preference and RL fine-tuning (docs/memory-model.md "Preference and RL fine-tuning"): the
	 * algorithm, a row of rules/algorithms.yaml (sl_algo_parse), and what sizes it. batch_size is
	 * per_device_train_batch_size as the trainer counts it: pairs (DPO, ORPO, SimPO, reward
	 * models), examples (KTO), completions (GRPO, RLOO: prompts × generations), queries (PPO).
	 */
	uint32_t algorithm;        /* 0: sft (the model's own loss) */
	uint8_t beta;              /* enum sl_beta: whether the KL coefficient is 0 (no reference model) */
	uint32_t num_generations;  /* completions per prompt (0: the algorithm's default) */
	uint64_t prompt_len;       /* a generating algorithm's prompt tokens (0: seq_len) */
	uint64_t completion_len;   /* completion tokens (0: max_new_tokens, else the algorithm's default) */
	uint8_t vllm_mode;         /* enum sl_vllm_mode: where the engine runs when `engine` is vllm (TRL use_vllm) */
	uint32_t vllm_util_bp;     /* colocated vLLM's gpu_memory_utilization in 1/10000 (0: TRL's 0.3) */
	bool vllm_sleep;           /* vllm_enable_sleep_mode: the engine frees its share outside generation */
	uint8_t ref_model;         /* enum sl_ref_model: how the reference model is held */
	uint8_t reward_model;      /* enum sl_reward_model: a PPO run's reward model */
	uint64_t generation_batch; /* generation_batch_size: completions per generation over all GPUs (0: derived) */
	uint32_t steps_per_generation; /* optimizer micro-steps per generation (0: grad_accum) */
	/* set by sl_estimate_rl on the policy's step (not roles): how its loss holds the logits */
	uint64_t logit_tokens;     /* positions per sequence with vocabulary logits (0: every position) */
	uint8_t logit_loss;        /* 0: the model's cross-entropy; else the algorithm's loss (algo_table.h) */
	bool ref_logits;           /* a reference model's logits alive at the end of the forward */
	uint8_t at_phase;          /* SL_AT_*: the training step at that moment rather than at its peak */
	/*
	 * Added by the estimator. legacy_runtime: torch < 2.0 on CUDA < 11.7 —
	 * every kernel loaded into the context (cuda_context_legacy) and
	 * zero_grad() keeping the gradient tensors between steps.
	 */
	bool legacy_runtime;
	uint32_t gpus_per_node;    /* processes on one host (host RAM); 0: sl_procs_per_node's default */
};

/* Defaults: bi-encoder/seq-cls per model task, batch 8, seq 512, fp32, AdamW, 1 GPU. */
void sl_settings_default(struct sl_settings *s);

/* Texts per bi-encoder example: texts_per_example, else the loss's (3 for a triplet loss, else 2). */
uint32_t sl_settings_texts(const struct sl_settings *s);

/*
 * The dtype generation loads weights in when no setting states the precision: the checkpoint's
 * (transformers >= 5 loads dtype="auto"; vLLM's dtype "auto" likewise): bf16 where the GPU has it,
 * else fp16. check and estimate apply it alike (prec_stated: some dtype, amp or quant is stated).
 */
void sl_settings_workload_dtype(struct sl_settings *s, bool prec_stated, bool gpu_bf16);

/* Whether the run is served by vLLM: engine vllm, or a gpu_memory_utilization stated in generation. */
bool sl_settings_vllm(const struct sl_settings *s);

/*
 * A quantized base (int8, nf4, GPTQ, AWQ) trains only through adapters: transformers' Trainer
 * raises "You cannot perform fine-tuning on purely quantized models" when the model is quantized
 * and not a PEFT model. A training run with a quantized base and no PEFT method or rank
 * (peft_stated false: no setting names one, not even "full") becomes LoRA with PEFT's LoraConfig
 * defaults: r 8 (peft_rank) on the architecture's query and value projections
 * (TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING; fused qkv counts once). Returns true when it
 * assumed the adapter; the verdicts that rest on it say so (docs/memory-rules.md). The assumed recipe
 * is PEFT's QLoRA one, prepare_model_for_kbit_training, whose use_gradient_checkpointing defaults to
 * True: gradient checkpointing is on with it unless a setting states it (gc_stated).
 */
bool sl_settings_assume_adapter(struct sl_settings *s, bool peft_stated, bool gc_stated);

/* The device memory of one training step at its peak, by term (bytes). */
struct sl_breakdown {
	uint64_t cuda_context;
	uint64_t workspace;       /* cuBLAS/cuBLASLt workspaces */
	uint64_t weights;         /* incl. fp32 master + half copies, quantized base, adapters */
	uint64_t gradients;
	uint64_t optimizer;       /* on the device (a paged optimizer: what it keeps outside managed memory) */
	uint64_t activations;     /* saved for backward, incl. attention */
	uint64_t attention;       /* the part of activations that is attention's s² or O(s) term */
	uint64_t logits;          /* logits + loss buffers */
	uint64_t zero_gather;     /* ZeRO-3 gathered parameters, comm buffers */
	uint64_t kv_cache;        /* generation: the KV cache at the longest sequence */
	uint64_t preallocated;    /* vLLM: the rest of its gpu_memory_utilization share, pre-allocated as KV blocks
	                           * (not in total: the run fits in what total says) */
	uint64_t outside_share;   /* vLLM that does not fit its share: the (1 - utilization) × capacity it leaves */
	uint64_t slack;           /* allocator slack */
	uint64_t total;
	/*
	 * Not in total: a paged optimizer's states in CUDA managed memory (bitsandbytes get_paged:
	 * cudaMallocManaged). Outside torch's allocator, resident on the device while it has room and
	 * evicted to host RAM by the driver when a device allocation needs the room, so they slow the
	 * step rather than fail it (docs/memory-model.md "Paged optimizers").
	 */
	uint64_t paged;
	uint64_t params;          /* all parameters */
	uint64_t trainable;       /* trainable parameters */
	uint64_t frozen_ws;       /* of activations: a frozen part's no-grad forward working set (freed as it goes) */
	bool bound;               /* a custom module's activations (or counts) are upper bounds */
	uint64_t dynamic;         /* added: activations + logits + transients of the peak phase */
	int phase;                /* added: enum sl_phase, where the peak is */
	/*
	 * The phases outside the training step, each a device total like `total` (0: not modelled for
	 * these settings): loading an FSDP model whose parameters sit whole on the GPU before wrapping
	 * (SL_PHASE_LOAD), writing its checkpoint (SL_PHASE_SAVE). When one is larger than the step's
	 * peak, total, phase and the terms are that phase's.
	 */
	uint64_t load_total, save_total;
	uint64_t optimizer_states; /* the optimizer's resident states on the device (the optimizer term less
	                            * the step's temporaries), in every phase */
	/* preference and RL fine-tuning (sl_estimate_rl); 0 for other runs */
	uint64_t frozen_models;   /* in total: the reference model and a reward model (frozen copies) */
	uint64_t engine;          /* in total: a colocated vLLM engine's gpu_memory_utilization share */
	uint64_t value_model;     /* of weights + gradients + optimizer + activations: PPO's value model */
	uint64_t phase_generation; /* the generation phase's total (0: none on this GPU) */
	uint64_t phase_step;      /* the training step's total */
};

/* Parameter count of an architecture, computed from its shape (base model + task head). */
uint64_t sl_arch_params(const struct sl_arch *a);
/* Parameters with the head a task adds (lm head if untied, classifier). */
uint64_t sl_arch_params_for_task(const struct sl_arch *a, enum sl_task t);
/* Whether layer i mixes by attention (else a state-space or RWKV mixer), and whether its feed-forward is MoE. */
bool sl_arch_attn_layer(const struct sl_arch *a, uint32_t i);
bool sl_arch_moe_layer(const struct sl_arch *a, uint32_t i);
/*
 * Bytes one sequence keeps while generating with `tokens` of context, elem bytes an element
 * (src/memory/state.c): k and v of every attention layer — only the last `window` tokens in a
 * sliding-window layer; under multi-head latent attention the per-head k and v that transformers'
 * cache stores, or the compressed latent (kv_lora + rope) when latent is set, as vLLM's MLA backends
 * keep it — and the fixed recurrent state of every state-space or RWKV layer, whatever the length.
 */
double sl_arch_cache_bytes(const struct sl_arch *a, double tokens, double elem, bool latent);
/* Parameters of the part of the model that runs (SL_PART_FULL: sl_arch_params_for_task). */
uint64_t sl_arch_params_for_part(const struct sl_arch *a, enum sl_task t, enum sl_part part);
/* Parameters of one layer: an encoder's (or a decoder-only model's), and an encoder-decoder's decoder layer (0 otherwise). */
void sl_arch_layer_params(const struct sl_arch *a, uint64_t *enc, uint64_t *dec);
/*
 * Parameters frozen in a full fine-tune of that part: the embeddings (with embeddings or any layer
 * frozen) and the first `layers` layers (an encoder-decoder's encoder layers first); with
 * SL_FROZEN_BACKBONE everything but the part's task head.
 */
uint64_t sl_arch_frozen_params(const struct sl_arch *a, enum sl_task t, enum sl_part part, uint32_t layers,
			       bool embeddings);
/* Parameters of the largest single layer (ZeRO-3 gather). */
uint64_t sl_arch_largest_layer(const struct sl_arch *a);
/*
 * Matmul weights of one layer as autocast casts and bitsandbytes quantises
 * them: attention (q, k, v, o) and FFN (every expert and the router of an
 * MoE layer). Encoder-decoders: *attn is one attention block. Layers that
 * differ (dense first layers, hybrids): the average over the layers.
 */
void sl_arch_layer_matmuls(const struct sl_arch *a, uint64_t *attn, uint64_t *ffn);
/*
 * The longest input the model accepts in tokens: learned absolute positions
 * bound it (max_position_embeddings, less roberta's 2-slot padding offset);
 * 0 when positions are relative or rotary (t5, llama-like) and nothing in
 * the architecture bounds it.
 */
uint32_t sl_arch_max_seq_len(const struct sl_arch *a);
/* Trainable LoRA parameters for rank r on the target bits. */
uint64_t sl_arch_lora_params(const struct sl_arch *a, uint32_t r, uint32_t targets);
/*
 * Trainable parameters of a PEFT method (PEFT's layer classes, docs/memory-model.md "PEFT methods"):
 * per target linear for the adapter methods at rank r, or from the virtual tokens for the prompt
 * methods. SL_PEFT_NONE and SL_PEFT_LORA are sl_arch_lora_params.
 */
uint64_t sl_arch_peft_params(const struct sl_arch *a, enum sl_peft m, uint32_t r, uint32_t targets, uint32_t tokens);

/*
 * Calls fn(ctx, in, out, ff) for each target linear of one layer (a fused qkv once, the gate only when
 * gated, every expert's and the shared expert's projections; ff: a feed-forward module) and returns the
 * sum over the model's layers (the decoder layers of an encoder-decoder hold self- and cross-attention);
 * *layer, when given, gets one (encoder) layer's sum.
 */
double sl_arch_targets(const struct sl_arch *a, uint32_t targets,
		       double (*fn)(const void *ctx, double in, double out, bool ff), const void *ctx, double *layer);
/* Parameters of the norms (LayerNorm weight and bias, RMSNorm weight) of the layers and the final norm. */
uint64_t sl_arch_norm_params(const struct sl_arch *a);

/* Peak device memory of a training step. Pure; fills *out. */
void sl_estimate(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
		 const struct sl_calib *c, struct sl_breakdown *out);

/*
 * sl_estimate in two parts, for enumerations: a plan prepared once for an
 * architecture, a GPU and every setting but batch_size, seq_len and
 * target_len, then one estimate per (batch, length). sl_estimate_at(p, s)
 * equals sl_estimate(a, s, gpu, c) bit for bit whenever s differs from the
 * prepared settings in those three fields at most (sl_estimate itself runs
 * through a plan). The plan keeps the per-length terms of the last length
 * it saw, so an estimate at the same lengths costs only the batch terms.
 * A plan lives in the arena and allocates nothing after that.
 */
struct sl_estimate_plan;
struct sl_estimate_plan *sl_estimate_plan_new(struct sl_arena *a);
void sl_estimate_prepare(struct sl_estimate_plan *p, const struct sl_arch *a, const struct sl_settings *s,
			 const struct sl_gpu *gpu, const struct sl_calib *c);
void sl_estimate_at(struct sl_estimate_plan *p, const struct sl_settings *s, struct sl_breakdown *out);

/*
 * A preference or RL fine-tuning step (s->algorithm != 0; docs/memory-model.md "Preference and RL
 * fine-tuning"): the policy's step over its sequences as the algorithm batches them, the frozen
 * reference and reward models, PPO's value model, a colocated vLLM engine, and the generation phase;
 * the peak is the larger phase. sl_estimate calls it for such settings.
 */
void sl_estimate_rl(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
		    const struct sl_calib *c, struct sl_breakdown *out);

/* How an algorithm's run is shaped (sl_rl_shape): what sl_estimate_rl sizes, for fit and messages. */
struct sl_rl_shape {
	uint64_t sequences;       /* sequences in the policy's micro-batch (batch × 2 for pairs) */
	uint64_t length;          /* tokens per sequence (prompt + completion for generating algorithms) */
	uint64_t prompt, completion; /* generating algorithms: the prompt and completion lengths */
	uint32_t generations;     /* completions per prompt */
	uint64_t rollout_rows;    /* sequences generated at once on one GPU (0: no generation on it) */
	bool reference;           /* a reference model copy on the device */
	bool reference_forward;   /* the reference's logits inside the step */
	bool engine;              /* a colocated vLLM engine */
	uint64_t batch_quantum;   /* per-device batch sizes the trainer accepts are multiples of this */
};
void sl_rl_shape(const struct sl_arch *a, const struct sl_settings *s, struct sl_rl_shape *out);
/* What the frozen_models term holds: "reference model", "reward model" or "reference + reward". */
const char *sl_rl_frozen_label(const struct sl_settings *s);
struct sl_buf;
/* Appends the algorithm as estimate and the hover show it: ", grpo: 8 generations per prompt, ...". */
void sl_rl_describe(struct sl_buf *b, const struct sl_settings *s);

/* Peak device memory of an evaluation step (eval batch, no backward). */
void sl_estimate_eval(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
		      const struct sl_calib *c, struct sl_breakdown *out);

/* Where in a step the peak falls (struct sl_breakdown.phase). */
enum sl_phase {
	SL_PHASE_FORWARD,    /* end of the forward pass (AMP weight casts cached) */
	SL_PHASE_BACKWARD,   /* start of the backward pass: all saved activations, loss gradients */
	SL_PHASE_OPTIMIZER,  /* the optimizer step: gradients, states and their temporaries */
	SL_PHASE_EVAL,       /* an evaluation forward (sl_estimate_eval) */
	SL_PHASE_PREFILL,    /* generation: the prompt's forward with the cache filled to it */
	SL_PHASE_DECODE,     /* generation: the last decoding step, the cache at prompt + new tokens */
	SL_PHASE_LOAD,       /* FSDP with the whole model on the GPU before wrapping (fsdp_init device) */
	SL_PHASE_SAVE,       /* an FSDP checkpoint: the units gathered for the state dict (fsdp_state_dict) */
	SL_PHASE_VLLM,       /* vLLM's start-up: weights, its profile run, one max_model_len sequence's KV */
	SL_PHASE_ROLLOUT,    /* RL: generating the completions inside training (the policy's KV cache) */
	SL_PHASE__COUNT
};
const char *sl_phase_name(enum sl_phase p);

/*
 * Attention alone, forward + backward, at its peak (FlashAttention paper
 * Table 21 setup: random q, k, v leaves, no dropout, no mask), computed
 * with the same terms and constants sl_estimate uses for one layer. dtype
 * bytes: 2 for fp16/bf16, 4 for fp32.
 */
uint64_t sl_attention_only_bytes(enum sl_attn impl, uint64_t batch, uint32_t heads, uint32_t head_dim,
				 uint64_t seq_len, unsigned dtype_bytes, const struct sl_calib *c);

/*
 * rules/calibration.yaml into *out, from the build-time snapshot (checked
 * with libcyaml when the binary was built). A missing or invalid constant is
 * a diagnostic; returns 0 or -SL_ECONFIG.
 */
int sl_calib_load(struct sl_arena *a, struct sl_calib *out, struct sl_diags *diags);
/* The same over given bytes (name is shown in diagnostics); for tests. */
int sl_calib_parse(struct sl_arena *a, const char *name, const char *bytes, size_t len, struct sl_calib *out,
		   struct sl_diags *diags);

/* Host RAM estimate per node (seed 001 and seed 004). */
struct sl_host_breakdown {
	uint64_t base, workers, loading, pinned, overhead, total;
	uint64_t paged; /* paged optimizer states evicted to host RAM (sl_host_add_paged), in total */
};
/*
 * Training processes on one node: gpus_per_node when given (at most the GPU
 * count), else the GPU count up to SL_GPUS_PER_NODE, the GPUs of the largest
 * common node (NVIDIA DGX/HGX H100 and A100: 8 GPUs; --gpus 65536 read as
 * one node asked 4 million GiB of host RAM per node).
 */
#define SL_GPUS_PER_NODE 8
uint32_t sl_procs_per_node(const struct sl_settings *s);
void sl_estimate_host(const struct sl_arch *a, const struct sl_settings *s, const struct sl_calib *c,
		      struct sl_host_breakdown *out);
/*
 * The paged optimizer states one process cannot keep on a device of capacity bytes next to the
 * training step's peak b (b->paged past capacity - b->total; all of them when the peak alone fills
 * the device): the driver evicts them to host RAM (docs/memory-model.md "Paged optimizers").
 */
uint64_t sl_paged_spill(const struct sl_breakdown *b, uint64_t capacity);
/* Adds the spill of the node's processes (sl_procs_per_node) to h: h->paged and h->total. */
void sl_host_add_paged(const struct sl_settings *s, const struct sl_breakdown *b, uint64_t capacity,
		       struct sl_host_breakdown *h);

/*
 * Load the embedded catalogs (models, gpus, calibration). Problems in the
 * data are diagnostics in diags; returns 0 or -SL_ECONFIG.
 */
int sl_catalog_load(struct sl_arena *a, struct sl_catalog **out, struct sl_diags *diags);

/* A model by catalog name, HF id or alias pattern; NULL when unknown. */
const struct sl_model *sl_catalog_find_model(const struct sl_catalog *c, const char *name);

/*
 * A GPU by catalog name or alias ("h100", "A100-80GB"), or a raw size such
 * as "24GiB", "24GB", "80G" (a raw size gets a made-up entry in a). NULL
 * when neither.
 */
const struct sl_gpu *sl_catalog_find_gpu(struct sl_arena *a, const struct sl_catalog *c, const char *name);

/*
 * A model from a local HF directory or config.json (jansson). Problems are
 * diagnostics (an unknown model_type names the supported ones); returns NULL
 * then.
 */
const struct sl_model *sl_model_from_config(struct sl_arena *a, const char *path, struct sl_diags *diags);

/*
 * The model of a sweep value, in the documented order (docs/models.md):
 *  1. an explicit config: a local HF folder or config.json (relative to
 *     base_dir when not found as given);
 *  2. the Hugging Face cache of this machine (hf_cache: the hub folder,
 *     models--ORG--NAME/snapshots/<refs/main>/config.json);
 *  3. the catalog by name, HF id or alias (and a path's org/name suffix);
 *  4. the architecture table by name (fine-tunes by the base they name);
 *  5. unknown: NULL.
 * The result is a copy in a with resolved_by and resolved_from set. Problems
 * with an explicit local config are diagnostics; a cached config that cannot
 * be used is passed over quietly.
 */
struct sl_resolve_opts {
	const char *hf_cache;      /* the hub cache folder (sl_hf_cache_dir), or NULL */
	const char *base_dir;      /* the sweep's folder for relative paths, or NULL */
	struct sl_hub *hub;        /* --fetch: download a Hub id's config.json (hub.h) after the
	                            * other steps fail; NULL: never (the default) */
};
const struct sl_model *sl_model_resolve(struct sl_arena *a, const struct sl_catalog *c, const char *value,
					const struct sl_resolve_opts *o, struct sl_diags *diags);

/*
 * The architecture table by name (src/models/byname.c): the catalog entry or
 * table entry whose name the value holds as consecutive tokens (the longest
 * such name). model NULL: no name matched, or two entries of different sizes
 * matched equally (other then names the second), or the value names an
 * architecture these families do not build (foreign). quant: what the id
 * says of its weights (-bnb-4bit, -AWQ, -GPTQ: nf4; -8bit: int8).
 */
struct sl_name_match {
	const struct sl_model *model;
	const struct sl_model *other;
	const char *foreign;
	enum sl_quant quant;
	bool gguf;                 /* the id names a GGUF repack (llama.cpp weights; not trainable as they are) */
};
void sl_catalog_match_name(struct sl_arena *a, const struct sl_catalog *c, const char *value,
			   struct sl_name_match *out);
/* The names of c's entries as sl_catalog_match_name compares them, made once in a (catalog loading sets c->name_index). */
const struct sl_name_index *sl_catalog_name_index(struct sl_arena *a, const struct sl_catalog *c);

/*
 * The shape of a model trained from scratch, as a sweep gives it (roles
 * layers, hidden_size, heads, ffn_size, vocab_size, head_dim; the context is
 * seq_len). 0: not given.
 */
struct sl_hparams {
	uint32_t layers, hidden, heads, ffn, vocab, head_dim, context;
	const char *keys;          /* the keys read, for resolved_from: "sweep: n_layer, n_embd, n_head" */
};
/*
 * A GPT-2-style decoder of that shape (resolved_by "hyperparameters", what it
 * assumed in resolved_note), or NULL when layers, hidden or heads is missing
 * or hidden does not split into heads (without head_dim).
 */
const struct sl_model *sl_model_from_hparams(struct sl_arena *a, const struct sl_hparams *h);

/*
 * The hub cache folder huggingface_hub uses, from its environment variables
 * (each NULL or empty when unset): $HF_HUB_CACHE, else $HF_HOME/hub, else
 * $XDG_CACHE_HOME/huggingface/hub, else $HOME/.cache/huggingface/hub. NULL
 * when none can be formed.
 */
const char *sl_hf_cache_dir(struct sl_arena *a, const char *hf_hub_cache, const char *hf_home,
			    const char *xdg_cache_home, const char *home);

/* The config.json of a Hub id in the cache folder (refs/main's snapshot), or NULL. */
const char *sl_hf_cache_config(struct sl_arena *a, const char *hf_cache, const char *id);

/*
 * sl_catalog_load over given sources instead of the embedded files (tests,
 * project catalogs): models or gpus NULL takes the embedded one. Diagnostics
 * point into the given sources.
 */
int sl_catalog_load_from(struct sl_arena *a, struct sl_source *models, struct sl_source *gpus,
			 struct sl_catalog **out, struct sl_diags *diags);

/*
 * A raw memory size: "24GiB", "24GB", "24G", "16384MiB", "0.5TiB". Units
 * are binary whatever their spelling (GPU marketing "80GB" is 80 GiB):
 * K/KB/KiB = 2^10, M/MB/MiB = 2^20, G/GB/GiB = 2^30, T/TB/TiB = 2^40, case
 * ignored; a bare number is GiB. Returns false when s is not a size.
 */
bool sl_size_parse(const char *s, uint64_t *bytes);

/* Names for enums (for messages, JSON and parsing). */
const char *sl_family_name(enum sl_family f);   /* the HF model_type: "xlm-roberta", "gpt_neox" */
int sl_family_parse(const char *s);             /* HF model_type; -1 when unknown */
const char *sl_task_name(enum sl_task t);
int sl_task_parse(const char *s);       /* -1 when unknown */
const char *sl_dtype_name(enum sl_dtype d);
const char *sl_amp_name(enum sl_amp a);
const char *sl_optim_name(enum sl_optim o);
/* The optimizer as settings hold it: "paged adamw_8bit" for a paged one (s->optimizer_paged). */
const char *sl_settings_optim_name(struct sl_arena *a, const struct sl_settings *s);
int sl_optim_parse(const char *s);      /* HF optim names (| SL_OPTIM_PAGED when paged); -1 when unknown */
const char *sl_attn_name(enum sl_attn a);
const char *sl_quant_name(enum sl_quant q);
const char *sl_offload_name(enum sl_offload o);
const char *sl_fsdp_name(enum sl_fsdp f);     /* "none", "full_shard", "shard_grad_op", ... */
const char *sl_fsdp_init_name(enum sl_fsdp_init i);  /* "per_unit", "device", "rank0" */
const char *sl_fsdp_sd_name(enum sl_fsdp_sd d);      /* "none", "full", "sharded", "local", "full_device" */
const char *sl_peft_name(enum sl_peft m);     /* "lora", "dora", "ia3", "prompt_tuning", ... */
int sl_peft_parse(const char *s);             /* PEFT peft_type names in either case; -1 when unknown */
const char *sl_mode_name(enum sl_mode m);     /* "train", "eval", "generate" */
const char *sl_part_name(enum sl_part p);     /* "full", "base", "encoder" */
int sl_part_parse(const char *s);             /* also AutoModel, T5EncoderModel, get_encoder, ...; -1 */
const char *sl_loss_name(enum sl_loss l);     /* "in-batch", "cached in-batch", "pair", "triplet" */
int sl_loss_parse(const char *s);             /* sentence-transformers loss class names; -1 when unknown */
const char *sl_engine_name(enum sl_engine e); /* "hf", "vllm" */
int sl_engine_parse(const char *s);           /* hf, transformers, vllm, ...; -1 */
const char *sl_algo_name(uint32_t a);         /* a row of rules/algorithms.yaml: "sft", "dpo", "grpo", ... */
int sl_algo_parse(const char *s);             /* a row's name or spelling (DPOTrainer, stage rm, ...) in any case; -1 */
unsigned sl_algo_count(void);                 /* rows of rules/algorithms.yaml */
const char *const *sl_algo_spellings(uint32_t a); /* a row's other names, NULL-terminated */
const char *sl_vllm_mode_name(enum sl_vllm_mode m); /* "colocate", "server" */
const char *sl_ref_model_name(enum sl_ref_model r); /* "default", "model", "precomputed", "none" */
const char *sl_reward_model_name(enum sl_reward_model r); /* "default", "model", "adapter", "api" */
struct sl_buf;
/* Appends a combination's settings as estimate and the LSP hover show them:
 * ", batch B × L[→T], dtype[ + amp X], gradient checkpointing, optimizer, lora rN, …". */
void sl_settings_describe(struct sl_buf *b, const struct sl_settings *s);
int sl_mode_parse(const char *s);       /* also training/finetune/sft, evaluate/predict/test, generation/decode/inference; -1 */

#endif
