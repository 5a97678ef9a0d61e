/*
 * memory: run settings and the estimator of peak device memory (DESIGN §4),
 * from an architecture that model resolution gives (models.h: memory depends
 * on it, never the reverse), the run's settings and the fitted constants of
 * rules/calibration.yaml. sl_estimate() is a pure function that allocates
 * nothing.
 */
#ifndef SWEEPLINT_MEMORY_H
#define SWEEPLINT_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/calib.h"
#include "sweeplint/models.h"

struct sl_arena;
struct sl_diags;
struct sl_source;



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



enum sl_dtype { SL_DTYPE_FP32, SL_DTYPE_BF16, SL_DTYPE_FP16, SL_DTYPE__COUNT };
enum sl_amp { SL_AMP_OFF, SL_AMP_FP16, SL_AMP_BF16, SL_AMP__COUNT };

/* Modules trained in full next to an adapter (PEFT modules_to_save): the input embedding, the LM head. */
enum { SL_MTS_EMBED = 1u << 0, SL_MTS_HEAD = 1u << 1 };
/* LLaMA-Factory's freeze_trainable_layers default (hparams/finetuning_args.py FreezeArguments @ff6d4d12) */
#define SL_FREEZE_DEFAULT_LAYERS 2
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
/*
 * How the step runs (torch/optim/adamw.py @ 002d2f0b `adamw`): foreach (torch >= 2.0's default on CUDA:
 * _multi_tensor_adamw, one state-sized _foreach_sqrt temporary), fused (fused=True, HF adamw_torch_fused,
 * apex/DeepSpeed FusedAdam: one in-place kernel, no temporaries) or a loop over the parameters
 * (foreach=False, transformers' own AdamW "adamw_hf": temporaries of one parameter). sl_optim_parse or's
 * SL_OPTIM_FUSED / SL_OPTIM_LOOP onto the enum for the names that say so; role optimizer_impl sets it alone.
 */
enum sl_optim_impl {
	SL_OPTIM_IMPL_FOREACH,
	SL_OPTIM_IMPL_FUSED,
	SL_OPTIM_IMPL_LOOP,
	SL_OPTIM_IMPL__COUNT
};
#define SL_OPTIM_FUSED 0x200
#define SL_OPTIM_LOOP 0x400





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
	uint8_t optimizer_impl;    /* enum sl_optim_impl: how the step runs (its temporaries) */
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
	/* LLaMA-Factory finetuning_type freeze / full (docs/memory-model.md "Freeze tuning") */
	bool full_tuning;          /* finetuning_type (sft_type) full or freeze stated: a LoRA rank is ignored */
	bool freeze_tuning;        /* finetuning_type freeze: only some layers train */
	int32_t trainable_layers;  /* freeze: the last N layers train, the first -N when negative; 0: the default 2 */
	uint32_t trainable_modules;/* freeze: SL_FZ_* bits of what trains in each such layer (0: all) */
	uint32_t freeze_extra;     /* freeze: SL_FZX_* bits of the modules beside the layers that train */
	/* a vision-language model's vision tower and its projector frozen in a full fine-tune (LLaMA-Factory's
	 * freeze_vision_tower and freeze_multi_modal_projector, true by default; docs/memory-model.md) */
	bool freeze_vision;
	bool freeze_projector;
	enum sl_part part;         /* the part of the model that runs */
	bool separate_encoders;    /* bi-encoder: query and passage encoders with weights of their own */
	uint64_t query_len;        /* bi-encoder: the length of each example's first text (0: seq_len) */
	/* a Vision Transformer as the program builds it (SL_FAMILY_VIT; 0: the model's own) */
	uint32_t image_size;       /* the input image's side (timm img_size, torchvision image_size, a Resize) */
	uint32_t num_classes;      /* the classifier's outputs */
	uint32_t in_chans;         /* the patch projection's input channels */
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

/*
 * Bytes one sequence keeps while generating with `tokens` of context, elem bytes an element
 * (src/memory/state.c): k and v of every attention layer — only the last `window` tokens in a
 * sliding-window layer; under multi-head latent attention the per-head k and v that transformers'
 * cache stores, or the compressed latent (kv_lora + rope) when latent is set, as vLLM's MLA backends
 * keep it — and the fixed recurrent state of every state-space or RWKV layer, whatever the length.
 */
double sl_arch_cache_bytes(const struct sl_arch *a, double tokens, double elem, bool latent);
/* Trainable LoRA parameters for rank r on the target bits. */
uint64_t sl_arch_lora_params(const struct sl_arch *a, uint32_t r, uint32_t targets);
/*
 * Trainable parameters of a PEFT method (PEFT's layer classes, docs/memory-model.md "PEFT methods"):
 * per target linear for the adapter methods at rank r, or from the virtual tokens for the prompt
 * methods. SL_PEFT_NONE and SL_PEFT_LORA are sl_arch_lora_params.
 */
uint64_t sl_arch_peft_params(const struct sl_arch *a, enum sl_peft m, uint32_t r, uint32_t targets, uint32_t tokens);


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
	bool mini_batches;        /* the batch is the rollout; the step runs mini_batch_size of it (TRL < 0.12
				   * PPO): a smaller batch_size is no fix */
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


/* Names for enums (for messages, JSON and parsing). */
const char *sl_dtype_name(enum sl_dtype d);
const char *sl_amp_name(enum sl_amp a);
const char *sl_optim_name(enum sl_optim o);
/* The optimizer as settings hold it: "paged adamw_8bit" for a paged one (s->optimizer_paged). */
const char *sl_settings_optim_name(struct sl_arena *a, const struct sl_settings *s);
int sl_optim_parse(const char *s);      /* HF optim names (| SL_OPTIM_PAGED / _FUSED / _LOOP); -1 when unknown */
int sl_optim_impl_parse(const char *s); /* fused | foreach | for_loop; -1 when unknown */
const char *sl_optim_impl_name(enum sl_optim_impl i);
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
