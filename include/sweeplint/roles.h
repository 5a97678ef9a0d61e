/*
 * roles: which sweep and trainer-config keys the memory model reads. Keys
 * map to roles (DESIGN §3) through PCRE2 patterns from rules/keys.yaml,
 * extended and overridden per project (.sweeplint.yaml); values are parsed
 * into role values that sl_settings_apply() folds into a run's settings.
 * The key map, its compiled patterns and parsed strings live in the run
 * arena (PCRE2 codes are registered for teardown).
 */
#ifndef SWEEPLINT_ROLES_H
#define SWEEPLINT_ROLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/scalar.h"

struct sl_arena;
struct sl_diags;
struct sl_node;
struct sl_source;

enum sl_role {
	SL_ROLE_MODEL,
	SL_ROLE_TASK,
	SL_ROLE_BATCH_SIZE,
	SL_ROLE_EVAL_BATCH_SIZE,
	SL_ROLE_GRAD_ACCUM,
	SL_ROLE_SEQ_LEN,
	SL_ROLE_TARGET_LEN,
	SL_ROLE_DTYPE,
	SL_ROLE_AMP,
	SL_ROLE_GRADIENT_CHECKPOINTING,
	SL_ROLE_OPTIMIZER,
	SL_ROLE_LORA_R,
	SL_ROLE_LORA_TARGETS,
	SL_ROLE_QUANT,
	SL_ROLE_ATTN,
	SL_ROLE_ZERO_STAGE,
	SL_ROLE_OFFLOAD,
	SL_ROLE_NUM_GPUS,
	SL_ROLE_NUM_WORKERS,
	SL_ROLE_TEXTS_PER_EXAMPLE,
	SL_ROLE_MINI_BATCH_SIZE,
	SL_ROLE_ZERO3_INIT,
	SL_ROLE_PIN_MEMORY,
	SL_ROLE_DEEPSPEED,
	SL_ROLE_MODULES_TO_SAVE,  /* embed_tokens,lm_head: modules trained in full next to the adapter */
	/*
	 * The shape of a model trained from scratch (issue #11): read only when no
	 * key sets the model, and then only when layers, hidden_size and heads are
	 * each one value; a value they cannot use is ignored, never a finding.
	 */
	SL_ROLE_LAYERS,           /* n_layer, num_layers, depth */
	SL_ROLE_HIDDEN_SIZE,      /* n_embd, d_model, dim, hidden_size */
	SL_ROLE_HEADS,            /* n_head, num_heads, heads */
	SL_ROLE_FFN_SIZE,         /* n_inner, d_ff, mlp_dim, ffn_dim, intermediate_size */
	SL_ROLE_VOCAB_SIZE,       /* vocab_size, n_vocab */
	SL_ROLE_HEAD_DIM,         /* dim_head, head_dim */
	SL_ROLE_MODE,             /* train / eval / generate (inferred from the keys when no key states it) */
	SL_ROLE_NUM_BEAMS,        /* beams per prompt in generation */
	SL_ROLE_MAX_NEW_TOKENS,   /* tokens generated after the prompt */
	SL_ROLE_GPU_MEMORY_UTILIZATION, /* vLLM: the fraction of the GPU the engine pre-allocates */
	SL_ROLE_FSDP,             /* FSDP sharding strategy: full_shard | shard_grad_op | hybrid_shard | no_shard | none */
	SL_ROLE_FSDP_OFFLOAD,     /* FSDP CPU offload of parameters (and with them gradients and the step) */
	SL_ROLE_FSDP_AUTO_WRAP,   /* FSDP auto-wrap: true (a unit per block) or false (the whole model one unit) */
	SL_ROLE_PEFT_METHOD,      /* lora | dora | loha | vera | ia3 | oft | boft | prompt_tuning | p_tuning | ... */
	SL_ROLE_NUM_VIRTUAL_TOKENS, /* prompt methods: virtual tokens (adapter_len, trained token rows) */
	SL_ROLE_TORCH_COMPILE,    /* torch.compile of the model */
	SL_ROLE_LIGER,            /* Liger kernels (use_liger_kernel) */
	SL_ROLE_CHUNKED_CE,       /* chunked cross-entropy */
	SL_ROLE_PACKING,          /* packed sequences */
	SL_ROLE_OPTIMIZER_IN_BACKWARD, /* the optimizer step fused into backward */
	SL_ROLE_ACTIVATION_OFFLOAD, /* activations offloaded to the host */
	SL_ROLE_LORA_DROPOUT,     /* LoRA dropout probability (LoraConfig lora_dropout): > 0 keeps a copy per adapter */
	SL_ROLE_FSDP_INIT,        /* how parameters reach their FSDP units: per_unit (cpu, meta) | device (whole model on the GPU first) */
	SL_ROLE_FSDP_STATE_DICT,  /* the FSDP checkpoint: full | sharded | local | full_device (torch's FullStateDictConfig defaults) */
	SL_ROLE_FSDP_USE_ORIG_PARAMS, /* FSDP1 use_orig_params with adapters inside the blocks' units (Lightning's FSDPStrategy) */
	SL_ROLE_KBIT_PREPARE,     /* peft prepare_model_for_kbit_training on a bitsandbytes base (true unless stated) */
	SL_ROLE_FSDP_EMBEDDING_UNITS, /* the embeddings and the head wrapped as FSDP units of their own (torchtune custom_sharded_layers) */
	SL_ROLE_BNB_LEGACY,       /* bitsandbytes < 0.43.2: each 4-bit linear keeps its input (bitsandbytes#1270) */
	SL_ROLE_UPCAST_TRAINABLE, /* the trainable parameters cast to float32 after a 16-bit load (LLaMA-Factory) */
	/* what the program does with the model (issue #28; docs/memory-model.md "What trains") */
	SL_ROLE_FROZEN,           /* none | embeddings | backbone | N (the embeddings and the first N layers) */
	SL_ROLE_HEAD_PARAMS,      /* a trainable head's parameters: a count, or a layer list (struct sl_modules) */
	SL_ROLE_PART,             /* full | base (AutoModel) | encoder (T5EncoderModel, get_encoder()) */
	SL_ROLE_SEPARATE_ENCODERS,/* bi-encoder: query and passage encoders with their own weights */
	SL_ROLE_QUERY_LEN,        /* bi-encoder: the query's (first text's) length */
	SL_ROLE_CHUNKS_PER_TEXT,  /* bi-encoder: overflow chunks per passage, encoded in the same step */
	SL_ROLE_LOSS,             /* a sentence-transformers loss class (texts per example, in-batch scores) */
	SL_ROLE_PADDING,          /* max_length (every sequence at seq_len) | longest (dynamic: seq_len a bound) */
	SL_ROLE_ENGINE,           /* generation engine: hf | vllm */
	SL_ROLE_MAX_MODEL_LEN,    /* vLLM max_model_len */
	SL_ROLE_TENSOR_PARALLEL,  /* vLLM tensor_parallel_size */
	SL_ROLE_MAX_NUM_BATCHED_TOKENS, /* vLLM max_num_batched_tokens (the profile run's tokens) */
	SL_ROLE_MAX_NUM_SEQS,     /* vLLM max_num_seqs (the profile sampler's rows) */
	SL_ROLE_MODULES,          /* a custom nn.Module's layer list: the model (struct sl_modules) */
	/* LLaMA-Factory freeze tuning (docs/memory-model.md "Freeze tuning") */
	SL_ROLE_TRAINABLE_LAYERS, /* freeze_trainable_layers: the last N layers train (the first -N when negative) */
	SL_ROLE_TRAINABLE_MODULES,/* freeze_trainable_modules: all, or the modules of each such layer (SL_FZ_*) */
	SL_ROLE_FREEZE_EXTRA,     /* freeze_extra_modules: embeddings, LM head, final norm (SL_FZX_*) */
	SL_ROLE_FREEZE_VISION,    /* a vision-language model's vision tower frozen (freeze_vision_tower) */
	SL_ROLE_FREEZE_PROJECTOR, /* its multi-modal projector frozen (freeze_multi_modal_projector) */
	/* preference and RL fine-tuning (issue #31; docs/memory-model.md "Preference and RL fine-tuning") */
	SL_ROLE_ALGORITHM,        /* sft | dpo | orpo | simpo | kto | grpo | rloo | ppo | reward (rules/algorithms.yaml) */
	SL_ROLE_BETA,             /* the KL coefficient: 0 loads no reference model (GRPO, RLOO) */
	SL_ROLE_NUM_GENERATIONS,  /* completions generated per prompt */
	SL_ROLE_PROMPT_LEN,       /* a generating algorithm's prompt length */
	SL_ROLE_COMPLETION_LEN,   /* the completion length it generates */
	SL_ROLE_VLLM_MODE,        /* colocate (the training GPUs) | server (other GPUs) */
	SL_ROLE_VLLM_GPU_MEMORY_UTILIZATION, /* a colocated engine's share of the GPU */
	SL_ROLE_VLLM_SLEEP,       /* vllm_enable_sleep_mode: the engine frees its share between generations */
	SL_ROLE_REF_MODEL,        /* default | model (a separate reference) | precomputed | none (reference-free) */
	SL_ROLE_REWARD_MODEL,     /* PPO's reward model: model | adapter | api */
	SL_ROLE_GENERATION_BATCH_SIZE, /* completions per generation over all GPUs */
	SL_ROLE_STEPS_PER_GENERATION,  /* micro-steps per generation */
	/* a Vision Transformer as the program builds it (docs/memory-model.md "Vision Transformers") */
	SL_ROLE_IMAGE_SIZE,       /* the input image's side: (image / patch)^2 + 1 tokens, the position table */
	SL_ROLE_NUM_CLASSES,      /* the classifier's outputs (timm num_classes, a replaced head) */
	SL_ROLE_IN_CHANS,         /* the patch projection's input channels (timm in_chans, a replaced conv) */
	SL_ROLE_OPTIMIZER_IMPL,   /* how the optimizer step runs: foreach | fused | for_loop (enum sl_optim_impl) */
	SL_ROLE__COUNT
};

/* peft_method values "full" and "freeze" (LLaMA-Factory finetuning_type, ms-swift sft_type): no adapter,
 * and a LoRA rank beside them is ignored (LLaMA-Factory reads its LoRA arguments only for lora and oft) */
#define SL_PEFT_FULL_ROLE ((uint64_t)SL_PEFT_TABLE_END + 1)
#define SL_PEFT_FREEZE_ROLE ((uint64_t)SL_PEFT_TABLE_END + 2)

/*
 * A key map entry `role: none` (rules/keys.yaml): keys the map knows to have no role, so neither a
 * later pattern nor the word vocabulary gives them one (verl's data.train_batch_size counts prompts
 * over all GPUs, not a GPU's batch; a critic's model path is not the model). sl_keymap_match and
 * sl_keymap_match_limited return NULL for them; sl_keymap_match_patterns returns the rule.
 */
#define SL_ROLE_NONE ((enum sl_role)SL_ROLE__COUNT)

/* A frozen value that freezes the embeddings alone (struct sl_role_value.u of role frozen). */
#define SL_FROZEN_EMBEDDINGS_ROLE ((uint64_t)UINT32_MAX + 1)

/* "batch_size", ...; sl_role_parse returns -1 for an unknown name. */
const char *sl_role_name(enum sl_role r);
int sl_role_parse(const char *name);

/*
 * One case of a key's value map: the value a key's value stands for (the rules a program's sinks make,
 * program.h: `"org/a" if cfg.kind == "A" else "org/b"` maps kind's A to org/a). if_true / if_false
 * are the two-case map of a boolean key; cases generalise them to any values.
 */
struct sl_key_case {
	const struct sl_node *when;   /* the key's value (a scalar, compared typed) */
	const struct sl_node *to;     /* the value it stands for; NULL: none (unset, or unknown when unknown) */
	const char *unknown;          /* with to == NULL: why its value is not known; NULL: the key sets nothing */
};

/* One key rule: a pattern, its role, and how its values translate. */
struct sl_key_rule {
	const char *pattern;      /* PCRE2, matched against the full dotted key */
	enum sl_role role;
	const char *if_true;      /* role value text when the key's value is true (e.g. fp16: true -> "fp16") */
	const char *if_false;     /* ... when false ("off"); NULL: booleans are taken as they are */
	int add;                  /* added to an integer value (num_negatives: 3 -> texts_per_example 5) */
	const char *origin;       /* "rules/keys.yaml", "rules/words.yaml" or the project config path */
	void *code;               /* compiled pattern (pcre2_code *); NULL for a rule made by words */
	/* a rule found through the key's words (rules/words.yaml): how, for -v and the hover —
	 * "read as per_device_train_batch_size" (a keys.yaml pattern on the key re-spelled) or
	 * "by words per/device/bs" (pattern then names the vocabulary entry); NULL otherwise */
	const char *by;
	/* a value map (a program's: sl_key_rule_program): each value of the key translated case by case,
	 * before if_true / if_false / add; a value no case names cannot be read */
	const struct sl_key_case *cases;
	size_t ncases;
};

struct sl_keywords; /* rules/words.yaml, compiled at build time (src/sweep/words_table.h) */

struct sl_keymap {
	struct sl_key_rule *rules; /* in priority order: project rules first */
	size_t n, cap;
	void *match_data;          /* pcre2_match_data * shared by matches */
	void *match_context;       /* pcre2_match_context *: the match and depth limits below */
	struct sl_arena *arena;    /* the keymap's arena: word matches allocate their rules there */
	const struct sl_keywords *words; /* NULL until first needed (then the snapshot's) */
	bool words_tried;          /* words loaded (or failed to: then no mapping by words) */
};

/*
 * Every key-pattern match runs under these PCRE2 limits: a project pattern
 * such as `(a|aa)+$` backtracks exponentially (9 s on 64 keys of 25 "a"s).
 * 10^4 steps take about 0.1 ms; the longest key of ../shared/corpus needs far fewer.
 */
#define SL_KEYMAP_MATCH_LIMIT 10000
#define SL_KEYMAP_DEPTH_LIMIT 1000

/*
 * The built-in key map: rules/keys.yaml as compiled in at build time (the
 * patterns serialised; compiled from their text when this PCRE2 cannot
 * decode them). Problems are diagnostics in diags (with positions in
 * keys.yaml); returns NULL then.
 */
struct sl_keymap *sl_keymap_new(struct sl_arena *a, struct sl_diags *diags);

/*
 * Add a rule ahead of the built-in ones (project overrides). On a bad
 * pattern returns -SL_ECONFIG and sets *why (PCRE2's message and offset).
 */
int sl_keymap_prepend(struct sl_arena *a, struct sl_keymap *km, const char *pattern, enum sl_role role,
		      const char *if_true, const char *if_false, const char *origin, const char **why);

/*
 * The first rule whose pattern matches key[0..len); else the rule the key's
 * words give (rules/words.yaml: the key re-spelled from its words against the
 * patterns, then the role vocabulary); else NULL (not memory-relevant).
 */
const struct sl_key_rule *sl_keymap_match(const struct sl_keymap *km, const char *key, size_t len);

/*
 * The same, telling a pattern that hit its match or depth limit apart from
 * one that does not match: then NULL with *limited set to that rule (the
 * later rules are not tried: which rule applies is unknown). *limited is
 * NULL otherwise. sl_keymap_match treats a limit hit as no match; callers
 * that can report it use this.
 */
const struct sl_key_rule *sl_keymap_match_limited(const struct sl_keymap *km, const char *key, size_t len,
						  const struct sl_key_rule **limited);

/*
 * Why a key has r's role, for -v and the hover: "PATTERN from ORIGIN", "read as
 * per_device_train_batch_size: PATTERN from rules/keys.yaml" or "by words
 * per/device/bs from rules/words.yaml".
 */
const char *sl_key_rule_describe(struct sl_arena *a, const struct sl_key_rule *r);

/* The `role: none` rule that matches key, or NULL: why a key the map knows has no role (-v notes). */
const struct sl_key_rule *sl_keymap_match_none(const struct sl_keymap *km, const char *key, size_t len);

/*
 * A rule a program makes for a sweep key (its value reaches a sink, program.h): base's role and value
 * translation (the rule of the setting's own key, e.g. model_name_or_path's), with the program's value
 * map (cases, may be NULL) and `by` saying why ("the program passes it to SentenceTransformer(...) at
 * train.py:7"); sl_key_rule_describe shows `by` alone.
 */
struct sl_key_rule *sl_key_rule_program(struct sl_arena *a, const struct sl_key_rule *base, const char *by,
					const struct sl_key_case *cases, size_t ncases);

/* Whether two scalar nodes hold the same typed value (a value map's case matching a key's value). */
bool sl_node_same_value(const struct sl_node *x, const struct sl_node *y);

/* The patterns only (no words): for words.c, which matches the re-spelled key with it; a `role: none`
 * rule is returned as it is (role SL_ROLE_NONE). */
const struct sl_key_rule *sl_keymap_match_patterns(const struct sl_keymap *km, const char *key, size_t len,
						   const struct sl_key_rule **limited);

/*
 * words.c: a key's words — split on '.', '_', '-', spaces and case changes,
 * lower-cased, a leading '^', '-', '+' or '~' dropped; seg[i] is the dotted
 * part word i is from. At most max words (the rest are ignored: the return
 * value says how many there were).
 */
size_t sl_key_words(struct sl_arena *a, const char *key, size_t len, const char **words, unsigned *seg, size_t max);

/* rules/words.yaml parsed from bytes (name in diagnostics); NULL and diagnostics when bad. */
struct sl_keywords *sl_keywords_parse(struct sl_arena *a, const char *name, const char *bytes, size_t len,
				      struct sl_diags *diags);

/* The rule km's words give key (step 1 and 2 of rules/words.yaml), or NULL. */
const struct sl_key_rule *sl_keywords_match(const struct sl_keymap *km, const char *key, size_t len,
					    const struct sl_key_rule **limited);

/* What a count role accepts: whole numbers up to max (0 too when zero_ok). */
struct sl_role_count {
	const char *what;     /* "a positive integer", for messages */
	uint64_t max;
	bool zero_ok;
	/* the frameworks refuse a value below the range (0 or less; negative where zero_ok): DataLoader's
	 * batch_size, tokenizers' max_length, PEFT's r, generate's num_beams and max_new_tokens, DataLoader's
	 * num_workers. false: below it is a script's own convention (-1 accumulation or GPUs: "auto", "all") */
	bool below_refused;
};

/*
 * How sure an unusable count is to fail the run: SL_SEV_ERROR where the
 * frameworks refuse it (fractional, not finite, past the role's maximum, or
 * below the range where below_refused), SL_SEV_WARNING where its meaning may
 * be the script's own (text that is no number, such as "auto"; -1 in a key
 * whose frameworks do not check it). text is the value as written, typed
 * its YAML value when it has one (.inf, .nan), else NULL.
 */
enum sl_severity sl_role_count_refusal(enum sl_role r, const char *text, const struct sl_value *typed);

/* The count rule of r, or NULL when r is not a count (names, booleans, the model). */
const struct sl_role_count *sl_role_count(enum sl_role r);

/* A parsed role value. */
struct sl_role_value {
	enum sl_role role;
	uint64_t u;           /* counts and sizes; booleans as 0/1; enums as their value */
	const char *s;        /* model names and paths (arena) */
	bool is_auto;         /* amp/dtype "auto": decided by the GPU (bf16 when supported) */
	bool negates;         /* a boolean key set false (fp16: false): clears only its own value */
	uint64_t negated;     /* with negates: the value it clears (amp fp16) */
	/*
	 * Settings one value implies beside its own role, applied after it: Lightning's precision
	 * "bf16-true" / "16-true" (amp off; the weights, gradients and optimizer states in that dtype:
	 * dtype), its strategy "deepspeed_stage_2[_offload]" (fsdp none; zero_stage, offload).
	 */
	struct {
		enum sl_role role;
		uint64_t u;
	} also[2];
	uint8_t nalso;
	bool unset;           /* a value map's case that makes no setting: nothing to apply (sl_settings_apply skips it) */
};

/*
 * Parse a value for role r from a YAML scalar (text + PyYAML typing) or, for
 * lora_targets, a sequence. rule may be NULL (a --set or estimate argument).
 * On failure returns -SL_EPARSE and sets *why to a message such as
 * "batch_size must be a positive integer, not \"abc\"".
 */
/* The from-scratch shape roles (SL_ROLE_LAYERS ... SL_ROLE_HEAD_DIM): not run settings. */
bool sl_role_is_shape(enum sl_role r);

int sl_role_value_from_text(struct sl_arena *a, enum sl_role r, const struct sl_key_rule *rule,
			    const char *text, const struct sl_value *typed, struct sl_role_value *out,
			    const char **why);
int sl_role_value_from_node(struct sl_arena *a, enum sl_role r, const struct sl_key_rule *rule,
			    const struct sl_node *node, struct sl_role_value *out, const char **why);

/*
 * Fold v into settings. amp/dtype "auto" resolve against gpu_bf16 (bf16 when
 * the GPU supports it, else fp16). Model, deepspeed and task-by-model are not
 * settings fields: the caller handles SL_ROLE_MODEL and SL_ROLE_DEEPSPEED.
 */
void sl_settings_apply(struct sl_settings *s, const struct sl_role_value *v, bool gpu_bf16);

/*
 * An FSDP value: a strategy word (full_shard, SHARD_GRAD_OP, accelerate's 1-5, fsdp, FSDP), with
 * HF TrainingArguments' space- or list-separated options (offload, auto_wrap), or a word that names
 * no FSDP (none, ddp, DEEPSPEED, MULTI_GPU, ...). Returns the strategy (enum sl_fsdp) with
 * SL_FSDP_OFFLOAD_BIT when the value says offload; -1 when a word is not one of these.
 */
#define SL_FSDP_OFFLOAD_BIT 0x10
int sl_fsdp_parse(const char *text);

/* LoRA target names (q_proj, query, wi, all-linear, ...) to SL_LORA_* bits; 0 when none known. */
uint32_t sl_lora_targets_parse(const char *list);
/* modules_to_save names (embed_tokens, wte, lm_head, ...) as SL_MTS_* bits; -1 when one is not a
 * module sweeplint can size. */
int sl_modules_to_save_parse(const char *list);
/* LLaMA-Factory freeze_trainable_modules (extra false: SL_FZ_* bits, 0 for all) or freeze_extra_modules
 * (extra true: SL_FZX_* bits); -1 for an extra module sweeplint cannot size. */
int sl_freeze_modules_parse(const char *list, bool extra);

#endif
