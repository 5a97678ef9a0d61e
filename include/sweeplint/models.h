/*
 * models: which model a sweep value names, and how many parameters it has —
 * the boundary between model resolution (src/models/, library sl_models) and
 * the memory estimate (src/memory/, which depends on this header and never
 * the reverse; no file of src/models/ includes a header of memory/).
 *
 * Resolution: the model and GPU catalogs (rules/models.yaml, gpus.yaml) and
 * the architecture table (rules/architectures.yaml), embedded as a snapshot
 * checked at build time (src/snapshot/); a value resolves through a local
 * config.json, the Hugging Face cache, the catalog, the table by name and the
 * opt-in Hub download (hub.h), in the order of docs/models.md. Counting: the
 * family builders read config.json's keys into struct sl_arch, and the
 * parameter counts and layer shapes follow from it (model.num_parameters() of
 * the published class). Everything that sizes memory — settings, PEFT,
 * activations, caches, optimizer states — is memory.h's.
 */
#ifndef SWEEPLINT_MODELS_H
#define SWEEPLINT_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/calib.h"

struct sl_arena;
struct sl_diags;
struct sl_hub;
struct sl_source;

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

/* struct sl_settings.frozen_layers: every layer and the embeddings (only a head trains). */
#define SL_FROZEN_BACKBONE UINT32_MAX

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
	/* issue #30, second part */
	SL_FAMILY_OLMOE,       /* OLMoE: pre-norm, q/k norms over the whole q and k widths, routed experts */
	SL_FAMILY_COHERE,      /* Command-R, Aya: one bias-free LayerNorm before parallel attention and MLP */
	SL_FAMILY_COHERE2,     /* Command-R7B, Command-A: cohere's layers, a sliding window in 3 layers of 4 */
	SL_FAMILY_MISTRAL3,    /* Mistral-Small-3.1/3.2: a mistral language model + the Pixtral tower */
	SL_FAMILY_GLM4_MOE,    /* GLM-4.5: deepseek-v3's experts and dense first layers, GQA with q/k/v biases */
	SL_FAMILY_EXAONE4,     /* EXAONE-4.0: olmo2's post-norms, q/k norms over head_dim, local layers 3 in 4 */
	SL_FAMILY_SEED_OSS,    /* Seed-OSS: llama's layout, q/k/v biases (attention_bias), o and MLP biases by their keys */
	SL_FAMILY_ERNIE4_5,    /* ERNIE-4.5 dense: llama's layout, every linear biased when use_bias */
	SL_FAMILY_LFM2,        /* LFM2: gated short convolutions in most layers, GQA with q/k norms in the rest */
	SL_FAMILY_INTERNLM3,   /* InternLM3: llama's layout, q/k/v biased by qkv_bias, o and the MLP by bias */
	SL_FAMILY_ERNIE4_5_MOE, /* ERNIE-4.5-21B-A3B: ernie4_5's attention, a dense first layer, routed + shared experts */
	SL_FAMILY_QWEN3_VL,    /* Qwen3-VL: a qwen3 language model + its vision tower with DeepStack mergers */
	SL_FAMILY_QWEN3_VL_MOE, /* Qwen3-VL MoE: a qwen3_moe language model + the same tower */
	SL_FAMILY_IDEFICS3,    /* Idefics3 / SmolVLM: a llama language model + a SigLIP tower and a pixel-shuffle projection */
	SL_FAMILY_SMOLVLM,     /* SmolVLM2: idefics3's layout under its own model_type */
	SL_FAMILY_MLLAMA,      /* Llama-3.2-Vision: llama layers with gated cross-attention layers + a tiled two-stage tower */
	/* issue #30, fifth part: the Mamba2 hybrids */
	SL_FAMILY_GRANITEMOEHYBRID, /* Granite-4.0-H: Mamba2 (Bamba's mixer) or attention per layer_types, MoE + shared MLP or dense */
	SL_FAMILY_FALCON_H1,   /* Falcon-H1: attention and a Mamba2 mixer side by side in every layer, then a SwiGLU */
	SL_FAMILY_NEMOTRON_H,  /* Nemotron-H: one block per layer (Mamba2, attention or a squared-ReLU MLP) by hybrid_override_pattern */
	SL_FAMILY_LONGFORMER,  /* Longformer: RoBERTa's layers + query/key/value_global, sliding-window attention (window) */
	SL_FAMILY_VIT,         /* a Vision Transformer as timm and torchvision build it: a patch conv, a class token,
				* learned positions over (image/patch)^2 + 1 tokens, pre-norm blocks, a final norm, a
				* linear classifier over the class token (src/models/vit.c, docs/models.md) */
	SL_FAMILY_CUSTOM,      /* a custom nn.Module counted from its layer list (struct sl_modules, modules.c) */
	SL_FAMILY__COUNT
};

enum sl_arch_kind {
	SL_ARCH_ENCODER,  /* bert-like: bidirectional self-attention */
	SL_ARCH_DECODER,  /* causal LM */
	SL_ARCH_ENCDEC,   /* t5/bart: encoder + decoder with cross-attention */
	SL_ARCH__COUNT
};

/* Hybrids whose config lists each layer's kind: the most layers such a list may name. */
#define SL_ARCH_MAX_LISTED 256u

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
	bool enc_only;           /* an encoder-decoder family used as its encoder alone (T5EncoderModel), or a
				  * decoder checkpoint of the bare model class, no LM head (MistralModel) */
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
	uint32_t moe_end;        /* MoE: layers from moe_end on are dense (ernie4_5_moe moe_layer_end_index + 1); 0: none */
	bool moe_stats;          /* MoE: a float32 score-correction vector of `experts` per MoE layer (ernie4_5_moe moe_statics) */
	uint32_t q_lora;         /* MLA: q_lora_rank (0: q_proj straight from h) */
	uint32_t kv_lora;        /* MLA: kv_lora_rank, the compressed KV; 0: no MLA */
	uint32_t rope_dim;       /* MLA: qk_rope_head_dim (head_dim is qk_nope + qk_rope) */
	uint32_t v_head_dim;     /* MLA: v_head_dim */
	uint32_t window;         /* sliding-window attention: its width in tokens; 0: none (longformer: attention_window,
	                          * both sides together, the largest of its layers': what the input is padded to) */
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
	uint32_t sconv_kernel;   /* lfm2: the short convolution's kernel (conv_L_cache); 0: none */
	bool sconv_bias;         /* lfm2 conv_bias: in_proj, conv and out_proj with biases */
	bool attn_listed;        /* hybrids: the attention layers are those of attn_map (layer_types) */
	uint32_t attn_map[SL_ARCH_MAX_LISTED / 32]; /* bit i: layer i attends (attn_listed) */
	uint32_t attn_offset;
	/* added (issue #30, fifth part): the Mamba2 hybrids of 2025-2026 (docs/models.md) */
	bool ssm_parallel;       /* falcon_h1: every layer runs attention and the SSM mixer side by side */
	bool ssm_no_norm;        /* falcon_h1 mamba_rms_norm false: the mixer has no gated RMSNorm */
	bool ssm_out_own;        /* falcon_h1: out_proj's bias follows ssm_out_bias (projectors_bias), not ssm_proj_bias */
	bool ssm_out_bias;
	bool blocks;             /* nemotron_h: each layer is one norm and one block: the SSM mixer, attention
				  * (attn_map) or a plain MLP of intermediate (mlp_map) */
	uint32_t mlp_map[SL_ARCH_MAX_LISTED / 32]; /* bit i: layer i is an MLP block (blocks) */
	bool ssm_state_fp32;     /* nemotron_h mamba_ssm_cache_dtype float32: the SSM cache state in float32 */
	uint32_t lora_tasks;     /* jina-embeddings-v3: task LoRA adapters stored with the weights (lora_adaptations) */
	uint32_t lora_rank;
	uint8_t vis_kind;        /* SL_VISION_*: the vision tower of a vision-language model; 0: none */
	uint32_t vis_layers, vis_hidden, vis_ffn, vis_heads, vis_patch;
	uint32_t vis_image;      /* the tower's image size (SigLIP: fixed); 0: dynamic resolution */
	uint32_t vis_temporal;   /* qwen2.5-vl temporal_patch_size */
	uint32_t vis_merge;      /* qwen2.5-vl spatial_merge_size; idefics3 scale_factor (the pixel shuffle) */
	uint32_t vis_tokens;     /* language-model tokens per image at vis_image (gemma3 mm_tokens_per_image); 0: from the size */
	uint32_t vis_proj_in, vis_proj_out; /* llama4: projector_input_dim, projector_output_dim (= vision_output_dim);
					      qwen3-vl: vis_proj_out is out_hidden_size */
	bool vis_proj_bias;      /* mistral3 multimodal_projector_bias: linear_1 and linear_2 with biases */
	uint32_t vis_pos;        /* qwen3-vl num_position_embeddings: the learned (interpolated) position table */
	uint32_t vis_deepstack;  /* qwen3-vl: DeepStack mergers (len(deepstack_visual_indexes)) */
	uint32_t vis_global;     /* mllama num_global_layers: the gated global encoder after vis_layers */
	uint32_t vis_tiles;      /* mllama max_num_tiles */
	uint32_t vis_aspects;    /* mllama len(supported_aspect_ratios): the tile embeddings' rows less one */
	uint32_t xattn_layers;   /* mllama: layers of `layers` that cross-attend to the image (cross_attention_layers) */
	uint32_t extra_vocab;    /* mllama: embed_tokens rows past vocab_size (8); the head keeps vocab_size */
	/* SL_FAMILY_VIT: vis_patch and vis_image are its patch and image size, hidden/layers/heads/intermediate
	 * its blocks */
	uint32_t vis_chans;      /* input channels of the patch conv (timm in_chans, torchvision 3) */
	uint32_t classes;        /* classifier outputs (num_classes); 0: no head (nn.Identity) */
	/* SL_FAMILY_CUSTOM: a custom nn.Module built from a layer list (role `modules`); NULL otherwise */
	const struct sl_modules *modules;
};

/* Vision towers (struct sl_arch.vis_kind). */
enum {
	SL_VISION_NONE,
	SL_VISION_SIGLIP,
	SL_VISION_QWEN2_5,
	SL_VISION_LLAMA4,
	SL_VISION_PIXTRAL,
	SL_VISION_QWEN3,
	SL_VISION_IDEFICS3,
	SL_VISION_MLLAMA,
	SL_VISION__COUNT
};

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

/* Quantised bases: bitsandbytes LLM.int8() and NF4 (QLoRA), and the 4-bit GPTQ / AWQ checkpoints
 * (packed int4 weights + per-group fp16 scales and packed zeros). */
enum sl_quant { SL_QUANT_NONE, SL_QUANT_INT8, SL_QUANT_NF4, SL_QUANT_GPTQ, SL_QUANT_AWQ, SL_QUANT__COUNT };

/*
 * Which part of the model runs (role `part`): the class a task loads (FULL: …ForCausalLM, …For-
 * SequenceClassification), the bare base model without any head (BASE: AutoModel, T5Model, whose
 * hidden states go into the program's own loss or head), or the encoder stack of an encoder-decoder
 * alone (ENCODER: T5EncoderModel, model.get_encoder()).
 */
enum sl_part { SL_PART_FULL, SL_PART_BASE, SL_PART_ENCODER, SL_PART__COUNT };

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
	const char *series;        /* the size series this entry is one size of ("bart": bart-base, bart-large), or
	                            * NULL: a size-less id naming the series resolves to all its sizes (byname.c) */
	/* how a value resolved (sl_model_resolve); catalog entries leave these NULL / none */
	const char *resolved_by;   /* "config", "project", "hf-cache", "catalog", "name", "family" */
	const char *resolved_from; /* the config.json read, or "rules/models.yaml#NAME" */
	const char *resolved_note; /* e.g. "resolved by name as t5-11b; give its config.json to be exact" */
	enum sl_quant quant;       /* a quantisation the id names (-bnb-4bit, -AWQ): used unless the sweep sets one */
	/*
	 * resolved_by "family": the id names a series but no size, so the model is any of these sizes
	 * (smallest first; nsizes >= 2) and this model is a copy of the largest, an upper bound. Every
	 * combination is judged at the smallest and the largest (a size's peak grows with it): a verdict only
	 * where they agree (cells.c), an oom one never sure (SL_NEED_SIZE).
	 */
	const struct sl_model *const *sizes;
	size_t nsizes;
};
/* A family's sizes as "bart-base 139M, bart-large 406M" (resolved_by "family"); "" for one model. */
const char *sl_model_sizes_str(struct sl_arena *a, const struct sl_model *m);

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

/* Parameter count of an architecture, computed from its shape (base model + task head). */
uint64_t sl_arch_params(const struct sl_arch *a);
/* Parameters with the head a task adds (lm head if untied, classifier). */
uint64_t sl_arch_params_for_task(const struct sl_arch *a, enum sl_task t);
/* Whether layer i mixes by attention (else a state-space or RWKV mixer), and whether its feed-forward is MoE. */
bool sl_arch_attn_layer(const struct sl_arch *a, uint32_t i);
bool sl_arch_moe_layer(const struct sl_arch *a, uint32_t i);
/* How many layers mix by attention (sl_arch_attn_layer) and how many are MoE (sl_arch_moe_layer), counted
 * without visiting each layer (any 32-bit layer count). */
void sl_arch_layer_counts(const struct sl_arch *a, uint64_t *n_attn, uint64_t *n_moe);
/* How many layers hold a state-space or short-convolution mixer (falcon_h1: every layer, beside its
 * attention; nemotron_h: those neither attention nor MLP blocks), and how many are nemotron_h MLP blocks. */
uint64_t sl_arch_ssm_layers(const struct sl_arch *a);
uint64_t sl_arch_mlp_blocks(const struct sl_arch *a);

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
/* LLaMA-Factory freeze_trainable_modules of a layer (0: all): attention, feed-forward, norms, one sweeplint
 * cannot size (then counted as the whole layer) */
enum { SL_FZ_ATTN = 1u << 0, SL_FZ_MLP = 1u << 1, SL_FZ_NORM = 1u << 2, SL_FZ_OTHER = 1u << 3 };
/* LLaMA-Factory freeze_extra_modules: the input embedding, the LM head, the final norm */
enum { SL_FZX_EMBED = 1u << 0, SL_FZX_HEAD = 1u << 1, SL_FZX_NORM = 1u << 2 };
/*
 * Parameters that train under LLaMA-Factory's freeze tuning: k layers (the first of them layer
 * first_id), their SL_FZ_* modules (0: all; SL_FZ_OTHER: the whole layer), the SL_FZX_* extra modules.
 * 0: not modelled (not a uniform decoder stack; expert ids that the layer ids name too).
 */
uint64_t sl_arch_freeze_params(const struct sl_arch *a, uint32_t k, uint32_t first_id, uint32_t mods, uint32_t extra);
/* Parameters of a vision-language model's vision tower with its projector (0: no vision tower). */
uint64_t sl_arch_vision_params(const struct sl_arch *a);
/* A Vision Transformer named as timm or torchvision name it (vit_base_patch16_224.augreg_in21k,
 * timm/..., hf-hub:timm/..., vit_b_16): its architecture-table entry with the tag's head, resolved_by
 * "name" (src/models/vitname.c); NULL when the value is no such name. */
const struct sl_model *sl_vit_resolve(struct sl_arena *a, const struct sl_catalog *c, const char *value);
/* A ViT's tokens per image: (image / patch)^2 patches and the class token; 0 for other families. */
uint32_t sl_arch_vit_tokens(const struct sl_arch *a);
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
/* The same, reading no file whose realpath is outside root (path.h: the sentence-transformers config
 * beside it included); root NULL: no bound. */
const struct sl_model *sl_model_from_config_in(struct sl_arena *a, const char *path, const char *root,
					       struct sl_diags *diags);

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
	const char *root;          /* the project root (path.h): a local folder or config.json whose realpath is
	                            * outside it is not read, as if absent; NULL: no bound (the command line's) */
	const char **refused;      /* when not NULL, set to the note for a path refused so (else left as is) */
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
	/*
	 * No entry matched and the value names a series (the `series` of some entries: "bart",
	 * "roberta", "t5") with no size word: series is its name and sizes its entries, smallest first
	 * (in the caller's arena). The rules above hold for it too: no foreign word, no distinct
	 * checkpoint, no data after "finetuned", no later version, and no second series as long.
	 */
	const char *series;
	const struct sl_model **sizes;
	size_t nsizes;
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

const char *sl_family_name(enum sl_family f);   /* the HF model_type: "xlm-roberta", "gpt_neox" */
int sl_family_parse(const char *s);             /* HF model_type; -1 when unknown */
const char *sl_task_name(enum sl_task t);
int sl_task_parse(const char *s);       /* -1 when unknown */

#endif
