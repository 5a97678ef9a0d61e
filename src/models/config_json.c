/*
 * config_json: Hugging Face config.json → struct sl_arch. The key table and
 * the mapping (hfconfig.h) serve rules/models.yaml too; the jansson reader
 * of local checkpoints (a directory or a config.json path) is here. Problems
 * are diagnostics under rule "unknown-model": the model cannot be estimated.
 */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hfconfig.h"
#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/json_bound.h"
#include "sweeplint/models.h"
#include "sweeplint/path.h"
#include "sweeplint/source.h"

#define RULE "unknown-model"

#define HF_KIND_U HF_UINT
#define HF_KIND_A HF_UINT_AUTO
#define HF_KIND_P HF_PATTERN
#define HF_KIND_I HF_INT
#define HF_KIND_B HF_BOOL
#define HF_KIND_S HF_STR
#define HF_KIND_L HF_LIST
#define HF_KIND_F HF_FLOAT
#define HF_KIND_N HF_UINT_LIST
#define HF_KIND_Z HF_LIST_LEN
#define HF_KIND_W HF_UINT_OR_LIST
#define KEY(k, t) {#k, HF_KIND_##t, offsetof(struct hf_config, k), HF_COUNT_##t(hf_config, k)},
#define VKEY(k, t) {#k, HF_KIND_##t, offsetof(struct hf_vision, k), HF_COUNT_##t(hf_vision, k)},
#define HF_COUNT_U(s, k) 0
#define HF_COUNT_A(s, k) 0
#define HF_COUNT_P(s, k) 0
#define HF_COUNT_I(s, k) 0
#define HF_COUNT_B(s, k) 0
#define HF_COUNT_S(s, k) 0
#define HF_COUNT_L(s, k) offsetof(struct s, k##_count)
#define HF_COUNT_F(s, k) 0
#define HF_COUNT_N(s, k) offsetof(struct s, k##_count)
#define HF_COUNT_Z(s, k) 0
#define HF_COUNT_W(s, k) offsetof(struct s, k##_count)
static const struct hf_key keys[] = {
	HF_CONFIG_KEYS(KEY)
	{"architectures", HF_FIRST, offsetof(struct hf_config, architecture), 0},
};
static const struct hf_key vision_keys[] = {HF_VISION_KEYS(VKEY)};
#undef KEY
#undef VKEY

const struct hf_key *hf_vision_keys(size_t *n)
{
	*n = sizeof vision_keys / sizeof vision_keys[0];
	return vision_keys;
}

const struct hf_key *hf_keys(size_t *n)
{
	*n = sizeof keys / sizeof keys[0];
	return keys;
}

int hf_family_parse(const char *model_type)
{
	return sl_family_parse(model_type);
}

const char *hf_family_list(void)
{
	return "bert, roberta, xlm-roberta, electra, deberta-v2, distilbert, albert, mpnet, t5, mt5, umt5, bart, mbart, "
	       "pegasus, "
	       "whisper, llama, mistral, qwen, qwen2, qwen3, gemma, gemma2, gemma3_text, gemma3, granite, phi, phi3, "
	       "mixtral, qwen2_moe, qwen3_moe, gpt2, gpt_bigcode, gpt_neo, gpt_neox, gptj, opt, bloom, falcon, "
	       "olmo2, smollm3, starcoder2, glm, glm4, chatglm, internlm2, exaone, apertus, deepseek_v2, deepseek_v3, "
	       "gpt_oss, phimoe, llama4, mamba, mamba2, falcon_mamba, jamba, rwkv, modernbert, m2m_100, nomic_bert, "
	       "qwen2_5_vl, olmoe, cohere, cohere2, mistral3, glm4_moe, exaone4, seed_oss, ernie4_5, ernie4_5_moe, lfm2, internlm3, "
	       "qwen3_vl, qwen3_vl_moe, idefics3, smolvlm, mllama, granitemoehybrid, falcon_h1, nemotron_h, longformer";
}

/* The spellings a family uses for the shape keys, for "missing key" messages. */
struct spelling {
	const char *hidden, *layers, *heads, *ffn;
};

static struct spelling spelling_of(enum sl_family f)
{
	switch (f) {
	case SL_FAMILY_T5:
	case SL_FAMILY_MT5:
	case SL_FAMILY_UMT5:
		return (struct spelling){"d_model", "num_layers", "num_heads", "d_ff"};
	case SL_FAMILY_BART:
	case SL_FAMILY_MBART:
	case SL_FAMILY_PEGASUS:
	case SL_FAMILY_M2M_100:
		return (struct spelling){"d_model", "encoder_layers", "encoder_attention_heads", "encoder_ffn_dim"};
	case SL_FAMILY_NOMIC_BERT:
		return (struct spelling){"n_embd", "n_layer", "n_head", "n_inner"};
	case SL_FAMILY_EXAONE:
	case SL_FAMILY_CHATGLM:
		return (struct spelling){"hidden_size", "num_layers", "num_attention_heads",
					 f == SL_FAMILY_CHATGLM ? "ffn_hidden_size" : "intermediate_size"};
	case SL_FAMILY_WHISPER:
		return (struct spelling){"d_model", "encoder_layers", "encoder_attention_heads", "encoder_ffn_dim"};
	case SL_FAMILY_GPT2:
	case SL_FAMILY_GPT_BIGCODE:
	case SL_FAMILY_GPTJ:
		return (struct spelling){"n_embd", "n_layer", "n_head", "n_inner"};
	case SL_FAMILY_GPT_NEO:
		return (struct spelling){"hidden_size", "num_layers", "num_heads", "intermediate_size"};
	case SL_FAMILY_DISTILBERT:
		return (struct spelling){"dim", "n_layers", "n_heads", "hidden_dim"};
	case SL_FAMILY_OPT:
		return (struct spelling){"hidden_size", "num_hidden_layers", "num_attention_heads", "ffn_dim"};
	case SL_FAMILY_MIXTRAL:
		return (struct spelling){"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"};
	case SL_FAMILY_QWEN2_MOE:
	case SL_FAMILY_QWEN3_MOE:
	case SL_FAMILY_QWEN3_VL_MOE:
		return (struct spelling){"hidden_size", "num_hidden_layers", "num_attention_heads",
					 "moe_intermediate_size"};
	default:
		return (struct spelling){"hidden_size", "num_hidden_layers", "num_attention_heads",
					 "intermediate_size"};
	}
}

/* The first of up to four alternatives that is present, or NULL. */
static const uint32_t *first(const uint32_t *a, const uint32_t *b, const uint32_t *c, const uint32_t *d)
{
	return a ? a : b ? b : c ? c : d;
}

static bool flag(const bool *v, bool dflt)
{
	return v ? *v : dflt;
}

/* Families whose FFN width defaults to 4 × hidden when the config leaves it out (or null). */
static bool ffn_4h(enum sl_family f)
{
	return f == SL_FAMILY_GPT2 || f == SL_FAMILY_GPT_BIGCODE || f == SL_FAMILY_GPTJ || f == SL_FAMILY_GPT_NEO ||
	       f == SL_FAMILY_BLOOM || f == SL_FAMILY_FALCON || f == SL_FAMILY_RWKV || f == SL_FAMILY_NOMIC_BERT;
}

bool hf_family_nests_text(enum sl_family f)
{
	return f == SL_FAMILY_GEMMA3 || f == SL_FAMILY_QWEN2_5_VL || f == SL_FAMILY_LLAMA4 || f == SL_FAMILY_MISTRAL3 ||
	       f == SL_FAMILY_QWEN3_VL || f == SL_FAMILY_QWEN3_VL_MOE || f == SL_FAMILY_IDEFICS3 ||
	       f == SL_FAMILY_SMOLVLM || f == SL_FAMILY_MLLAMA;
}

/* Families whose layers mix tokens without attention heads: their config has none to read. */
static bool headless(enum sl_family f)
{
	return f == SL_FAMILY_MAMBA || f == SL_FAMILY_MAMBA2 || f == SL_FAMILY_FALCON_MAMBA || f == SL_FAMILY_RWKV;
}

/* ceil(h / 16): MambaConfig / JambaConfig time_step_rank "auto" */
static uint32_t dt_rank_auto(const uint32_t *v, uint32_t h)
{
	return v && *v ? *v : (h + 15) / 16;
}

/* The layers that attend within a sliding window: layer_types' "sliding_attention" entries, else every
 * layer but each pattern-th (gemma3 sliding_window_pattern: (i + 1) % pattern != 0). */
static uint32_t window_layers(const struct hf_config *c, uint32_t layers, uint32_t pattern)
{
	if (c->layer_types) {
		uint32_t n = 0;
		for (unsigned i = 0; i < c->layer_types_count && i < layers; i++)
			n += c->layer_types[i] && strcmp(c->layer_types[i], "sliding_attention") == 0;
		return n;
	}
	return pattern > 1 ? layers - layers / pattern : layers;
}

/* The vision tower of a vision-language config (its vision_config), or a missing key's name. */
static const char *vision_switches(enum sl_family f, const struct hf_config *c, struct sl_arch *a)
{
	const struct hf_vision *v = c->vision_config;
	if (!v || !hf_family_nests_text(f))
		return NULL;
	const uint32_t *layers = first(v->num_hidden_layers, v->depth, NULL, NULL);
	const uint32_t *heads = first(v->num_attention_heads, v->num_heads, NULL, NULL);
	if (!v->hidden_size)
		return "vision_config.hidden_size";
	if (!v->intermediate_size)
		return "vision_config.intermediate_size";
	if (!layers)
		return f == SL_FAMILY_QWEN2_5_VL || f == SL_FAMILY_QWEN3_VL || f == SL_FAMILY_QWEN3_VL_MOE
			       ? "vision_config.depth"
			       : "vision_config.num_hidden_layers";
	if (!v->patch_size)
		return "vision_config.patch_size";
	a->vis_hidden = *v->hidden_size;
	a->vis_ffn = *v->intermediate_size;
	a->vis_layers = *layers;
	a->vis_heads = heads ? *heads : 0;
	a->vis_patch = *v->patch_size;
	if (f == SL_FAMILY_GEMMA3) {
		if (!v->image_size)
			return "vision_config.image_size";
		a->vis_kind = SL_VISION_SIGLIP;
		a->vis_image = *v->image_size;
		a->vis_tokens = c->mm_tokens_per_image ? *c->mm_tokens_per_image : 256; /* Gemma3Config default */
	} else if (f == SL_FAMILY_LLAMA4) {
		if (!v->image_size || !v->projector_input_dim || !v->projector_output_dim)
			return !v->image_size ? "vision_config.image_size" : "vision_config.projector_input_dim";
		a->vis_kind = SL_VISION_LLAMA4;
		a->vis_image = *v->image_size;
		a->vis_proj_in = *v->projector_input_dim;
		a->vis_proj_out = v->vision_output_dim ? *v->vision_output_dim : *v->projector_output_dim;
		if (*v->projector_output_dim != a->vis_proj_out)
			return "vision_config.vision_output_dim equal to projector_output_dim";
	} else if (f == SL_FAMILY_MISTRAL3) {
		/* Mistral3Config: spatial_merge_size and multimodal_projector_bias at the top level (2, false) */
		a->vis_kind = SL_VISION_PIXTRAL;
		a->vis_image = v->image_size ? *v->image_size : 0;
		a->vis_merge = c->spatial_merge_size ? *c->spatial_merge_size : 2;
		a->vis_proj_bias = flag(c->multimodal_projector_bias, false);
	} else if (f == SL_FAMILY_MLLAMA) {
		/* MllamaVisionConfig: num_global_layers 8, max_num_tiles 4 and its supported_aspect_ratios (the 8
		 * tile grids of at most 4 tiles), vision_output_dim hidden x (len(intermediate_layers_indices) + 1) */
		if (!v->image_size)
			return "vision_config.image_size";
		if (!v->vision_output_dim)
			return "vision_config.vision_output_dim";
		a->vis_kind = SL_VISION_MLLAMA;
		a->vis_image = *v->image_size;
		a->vis_global = v->num_global_layers ? *v->num_global_layers : 8;
		a->vis_tiles = v->max_num_tiles ? *v->max_num_tiles : 4;
		if (v->supported_aspect_ratios)
			a->vis_aspects = *v->supported_aspect_ratios;
		else if (a->vis_tiles == 4)
			a->vis_aspects = 8;
		else
			return "vision_config.supported_aspect_ratios"; /* MllamaVisionConfig refuses the default */
		a->vis_proj_in = *v->vision_output_dim;
	} else if (f == SL_FAMILY_IDEFICS3 || f == SL_FAMILY_SMOLVLM) {
		/* Idefics3Config / SmolVLMConfig: scale_factor at the top level (2); the tower's image_size
		 * sizes its position table */
		if (!v->image_size)
			return "vision_config.image_size";
		a->vis_kind = SL_VISION_IDEFICS3;
		a->vis_image = *v->image_size;
		a->vis_merge = c->scale_factor ? *c->scale_factor : 2;
	} else if (f == SL_FAMILY_QWEN3_VL || f == SL_FAMILY_QWEN3_VL_MOE) {
		/* Qwen3VLVisionConfig: num_position_embeddings 2304, out_hidden_size (the language model's width),
		 * deepstack_visual_indexes [8, 16, 24]: a merger each (configuration_qwen3_vl.py defaults) */
		a->vis_kind = SL_VISION_QWEN3;
		a->vis_temporal = v->temporal_patch_size ? *v->temporal_patch_size : 2;
		a->vis_merge = v->spatial_merge_size ? *v->spatial_merge_size : 2;
		a->vis_pos = v->num_position_embeddings ? *v->num_position_embeddings : 2304;
		a->vis_proj_out = v->out_hidden_size ? *v->out_hidden_size : a->hidden;
		a->vis_deepstack = v->deepstack_visual_indexes ? v->deepstack_visual_indexes_count : 3;
	} else {
		a->vis_kind = SL_VISION_QWEN2_5;
		a->vis_temporal = v->temporal_patch_size ? *v->temporal_patch_size : 2;
		a->vis_merge = v->spatial_merge_size ? *v->spatial_merge_size : 2;
	}
	return NULL;
}

/*
 * A decoder published as its bare model class stores no LM head: the embedding checkpoints
 * e5-mistral-7b-instruct and its fine-tunes (architectures "MistralModel"), Qwen3-Embedding-8B's weights
 * (Qwen3Model). Named one by one: "GPT2LMHeadModel", "QWenLMHeadModel" and "ChatGLMModel" end in "Model"
 * and hold a head.
 */
static bool bare_decoder_class(const char *arch)
{
	static const char *const bare[] = {"LlamaModel", "MistralModel", "Qwen2Model", "Qwen3Model", "Gemma2Model",
					   "Gemma3TextModel"};
	for (size_t i = 0; arch && i < sizeof bare / sizeof bare[0]; i++)
		if (strcmp(arch, bare[i]) == 0)
			return true;
	return false;
}

/* Families whose biases their own keys decide (issue30_switches), not llama's attention_bias/mlp_bias. */
static bool own_biases(enum sl_family f)
{
	return f == SL_FAMILY_GLM || f == SL_FAMILY_GLM4 || f == SL_FAMILY_CHATGLM || f == SL_FAMILY_DEEPSEEK_V2 ||
	       f == SL_FAMILY_DEEPSEEK_V3 || f == SL_FAMILY_GPT_OSS || f == SL_FAMILY_PHIMOE || f == SL_FAMILY_JAMBA ||
	       f == SL_FAMILY_MAMBA || f == SL_FAMILY_MAMBA2 || f == SL_FAMILY_FALCON_MAMBA || f == SL_FAMILY_GLM4_MOE ||
	       f == SL_FAMILY_SEED_OSS || f == SL_FAMILY_ERNIE4_5 || f == SL_FAMILY_LFM2 ||
	       f == SL_FAMILY_ERNIE4_5_MOE || f == SL_FAMILY_INTERNLM3 || f == SL_FAMILY_GRANITEMOEHYBRID ||
	       f == SL_FAMILY_NEMOTRON_H;
}

/* Mark layer i in a layer map (attn_map, mlp_map). */
static void map_set(uint32_t *map, uint32_t i)
{
	map[i / 32] |= 1u << (i % 32);
}

/*
 * Nemotron-H's layers (configuration_nemotron_h.py@13923c63): hybrid_override_pattern, one character a
 * layer ("M" Mamba2, "*" attention, "-" MLP, "E" MoE), or layers_block_type / layer_types, one name a layer
 * ("mamba" or "linear_attention", "attention" or "full_attention", "mlp", "moe"); the list's length is the
 * layer count. MoE blocks (Nemotron-3) are not built: the key names the config's gap.
 */
/*
 * The Mamba2 mixer keys Granite-4.0-H's and Falcon-H1's configs share (after a->ssm_inner is set): heads
 * mamba_n_heads (128), groups mamba_n_groups (1), mamba_d_state and mamba_d_conv when given, the conv's
 * bias (true) and in_proj's (false). A mamba_d_head that does not divide the width into those heads is
 * refused as both configs' classes refuse it. Returns the key at fault, or NULL.
 */
static const char *mamba2_mixer(const struct hf_config *c, struct sl_arch *a)
{
	a->ssm_heads = c->mamba_n_heads ? *c->mamba_n_heads : 128;
	a->ssm_groups = c->mamba_n_groups ? *c->mamba_n_groups : 1;
	if (c->mamba_d_state)
		a->ssm_state = *c->mamba_d_state;
	if (c->mamba_d_conv)
		a->ssm_conv = *c->mamba_d_conv;
	a->ssm_conv_bias = flag(c->mamba_conv_bias, true);
	a->ssm_proj_bias = flag(c->mamba_proj_bias, false);
	if (c->mamba_d_head && *c->mamba_d_head && (uint64_t)*c->mamba_d_head * a->ssm_heads != a->ssm_inner)
		return "mamba_d_head";
	return NULL;
}

static const char *nemotron_blocks(const struct hf_config *c, struct sl_arch *a)
{
	const char **names = c->layers_block_type ? c->layers_block_type : c->layer_types;
	unsigned count = c->layers_block_type ? c->layers_block_type_count : c->layer_types_count;
	const char *key = c->layers_block_type ? "layers_block_type" : "layer_types";
	size_t n = names ? count : c->hybrid_override_pattern ? strlen(c->hybrid_override_pattern) : 0;
	if (!names && !c->hybrid_override_pattern)
		return "hybrid_override_pattern";
	if (!names)
		key = "hybrid_override_pattern";
	if (n == 0 || n > SL_ARCH_MAX_LISTED)
		return key;
	a->layers = (uint32_t)n;
	a->attn_listed = true;
	for (uint32_t i = 0; i < n; i++) {
		char k;
		if (names) {
			const char *v = names[i] ? names[i] : "";
			k = strcmp(v, "mamba") == 0 || strcmp(v, "linear_attention") == 0       ? 'M'
			    : strcmp(v, "attention") == 0 || strcmp(v, "full_attention") == 0 ? '*'
			    : strcmp(v, "mlp") == 0                                             ? '-'
												: '?';
		} else {
			k = c->hybrid_override_pattern[i];
		}
		if (k == '*')
			map_set(a->attn_map, i);
		else if (k == '-')
			map_set(a->mlp_map, i);
		else if (k != 'M')
			return key; /* "E" / "moe" or an unknown kind */
	}
	return NULL;
}

/*
 * The layouts of the issue #30 families (docs/models.md), after the shape: each family's own
 * spellings (the configuration_<family>.py defaults where a key is absent).
 */
static const char *issue30_switches(enum sl_family f, const struct hf_config *c, struct sl_arch *a)
{
	switch (f) {
	case SL_FAMILY_GLM:
	case SL_FAMILY_GLM4:
		a->qkv_bias_only = flag(c->attention_bias, true); /* GlmConfig attention_bias=True: q/k/v only */
		break;
	case SL_FAMILY_CHATGLM:
		/* ChatGLMConfig: multi_query_group_num key/value groups when multi_query_attention, kv_channels
		 * per head, add_qkv_bias on query_key_value, ffn_hidden_size */
		if (c->multi_query_group_num)
			a->kv_heads = *c->multi_query_group_num;
		if (c->kv_channels)
			a->head_dim = *c->kv_channels;
		a->qkv_bias_only = flag(c->add_qkv_bias, false);
		break;
	case SL_FAMILY_STARCODER2:
		a->bias = flag(c->use_bias, true);
		break;
	case SL_FAMILY_COHERE:
		/* CohereAttention: q_norm / k_norm over (heads, head_dim) and (kv heads, head_dim) when use_qk_norm */
		a->qk_norm = a->qk_norm_full = flag(c->use_qk_norm, false);
		break;
	case SL_FAMILY_GLM4_MOE:
		/* modular_glm4_moe.py@0e97420c: Glm4MoeAttention q/k/v with attention_bias, o_proj without; q_norm and
		 * k_norm over head_dim when use_qk_norm; DeepseekV3's MoE (n_routed_experts of moe_intermediate_size,
		 * n_shared_experts as one MLP, a bias-free router; e_score_correction_bias is a buffer) after
		 * first_k_dense_replace dense layers of intermediate_size (Glm4MoeConfig defaults 1, 1, 8). The MTP
		 * layer the checkpoint stores past num_hidden_layers is not loaded (_keys_to_ignore_on_load_unexpected) */
		if (!c->n_routed_experts)
			return "n_routed_experts";
		if (!c->moe_intermediate_size)
			return "moe_intermediate_size";
		a->qkv_bias_only = flag(c->attention_bias, false);
		a->qk_norm = flag(c->use_qk_norm, false);
		a->experts = *c->n_routed_experts;
		a->top_k = c->num_experts_per_tok ? *c->num_experts_per_tok : 8;
		a->dense_ffn = a->intermediate;
		a->intermediate = *c->moe_intermediate_size;
		a->shared_ffn = (c->n_shared_experts ? *c->n_shared_experts : 1) * a->intermediate;
		a->moe_first = c->first_k_dense_replace ? *c->first_k_dense_replace : 1;
		break;
	case SL_FAMILY_EXAONE4:
		/* modular_exaone4.py@e7801021: Exaone4Attention q/k/v/o without bias, q_norm/k_norm over head_dim;
		 * Olmo2's decoder layer (post-attention and post-feedforward RMSNorms). Local layers: those
		 * layer_types marks sliding, else all but each sliding_window_pattern-th (an integer, or "LLLG");
		 * read only when the config gives sliding_window (EXAONE-4.0-1.2B attends globally) */
		if (c->sliding_window) {
			a->window = *c->sliding_window;
			a->window_layers =
				window_layers(c, a->layers, c->sliding_window_pattern ? *c->sliding_window_pattern : 4);
		}
		break;
	case SL_FAMILY_SEED_OSS: {
		/* modular_seed_oss.py@6e4054ae: q/k/v biased when attention_bias, o_proj when attention_out_bias, the
		 * gated MLP when mlp_bias (SeedOssConfig: true, false, false) */
		bool qkv = flag(c->attention_bias, true), o = flag(c->attention_out_bias, false), mlp = flag(c->mlp_bias, false);
		a->bias = qkv || o || mlp;
		a->no_bias = (uint8_t)((qkv ? 0 : SL_NOBIAS_Q | SL_NOBIAS_K | SL_NOBIAS_V) | (o ? 0 : SL_NOBIAS_O) |
				       (mlp ? 0 : SL_NOBIAS_MLP));
		break;
	}
	case SL_FAMILY_LFM2: {
		/* Lfm2Config (configuration_lfm2.py@05cd1ec1): the original keys block_ff_dim and tie_embedding win
		 * over intermediate_size and tie_word_embeddings; layer_types names each layer ("full_attention" or
		 * "conv"), else full_attn_idxs the attention layers, else every layer attends. Lfm2MLP
		 * (modular_lfm2.py@02f41779): with block_auto_adjust_ff_dim (true) the width is int(2 ff / 3),
		 * times block_ffn_dim_multiplier (1.0), rounded up to block_multiple_of (256) */
		if (c->tie_embedding)
			a->tied = *c->tie_embedding;
		if (flag(c->block_auto_adjust_ff_dim, true)) {
			uint64_t ff = 2 * (uint64_t)a->intermediate / 3, m = c->block_multiple_of ? *c->block_multiple_of : 256;
			double mult = c->block_ffn_dim_multiplier ? *c->block_ffn_dim_multiplier : 1.0;
			if (!(mult > 0 && mult * (double)ff < 4e9))
				return "block_ffn_dim_multiplier";
			ff = (uint64_t)(mult * (double)ff);
			ff = m ? m * ((ff + m - 1) / m) : ff;
			if (ff > UINT32_MAX)
				return "block_ff_dim";
			a->intermediate = (uint32_t)ff;
		}
		if (c->conv_L_cache)
			a->sconv_kernel = *c->conv_L_cache;
		a->sconv_bias = flag(c->conv_bias, false);
		if (c->layer_types || c->full_attn_idxs) {
			if (a->layers > SL_ARCH_MAX_LISTED)
				return "num_hidden_layers";
			a->attn_listed = true;
			for (uint32_t i = 0; c->layer_types && i < c->layer_types_count && i < a->layers; i++)
				if (c->layer_types[i] && strcmp(c->layer_types[i], "full_attention") == 0)
					a->attn_map[i / 32] |= 1u << (i % 32);
			for (uint32_t i = 0; !c->layer_types && i < c->full_attn_idxs_count; i++)
				if (c->full_attn_idxs[i] < a->layers)
					a->attn_map[c->full_attn_idxs[i] / 32] |= 1u << (c->full_attn_idxs[i] % 32);
		}
		break;
	}
	case SL_FAMILY_GRANITEMOEHYBRID: {
		/* GraniteMoeHybridConfig (configuration_granitemoehybrid.py@008f5c8c): layer_types "mamba" or
		 * "attention" (absent: every layer Mamba); BambaMixer's width mamba_expand x hidden (2) in
		 * mamba_n_heads (128) heads, mamba_n_groups (1); q/k/v/o biased by attention_bias, the MLPs never.
		 * num_local_experts (8) experts of intermediate_size beside the shared MLP of shared_intermediate_size
		 * (1024); with 0 experts the shared MLP is the layer's only feed-forward */
		a->bias = flag(c->attention_bias, false);
		a->no_bias = SL_NOBIAS_MLP;
		a->ssm_inner = (c->mamba_expand ? *c->mamba_expand : 2) * a->hidden;
		const char *bad = mamba2_mixer(c, a); /* GraniteMoeHybridConfig raises: heads x head_dim is the width */
		if (bad)
			return bad;
		uint32_t experts = c->num_local_experts ? *c->num_local_experts : 8;
		uint32_t shared = c->shared_intermediate_size ? *c->shared_intermediate_size : 1024;
		if (experts) {
			a->experts = experts;
			a->top_k = c->num_experts_per_tok ? *c->num_experts_per_tok : 2;
			a->shared_ffn = shared;
		} else {
			a->intermediate = shared;
		}
		if (a->layers > SL_ARCH_MAX_LISTED)
			return "num_hidden_layers";
		a->attn_listed = true;
		for (uint32_t i = 0; c->layer_types && i < c->layer_types_count && i < a->layers; i++)
			if (c->layer_types[i] && strcmp(c->layer_types[i], "attention") == 0)
				map_set(a->attn_map, i);
		break;
	}
	case SL_FAMILY_FALCON_H1: {
		/* FalconH1Config (configuration_falcon_h1.py@020a37d2): the mixer's width mamba_d_ssm (its default
		 * 1024 when absent, mamba_expand x hidden when null: the two cannot be told apart here, so the key is
		 * required), mamba_n_heads heads (128) of mamba_d_head, mamba_n_groups (1); the gated RMSNorm when
		 * mamba_rms_norm (false); in_proj biased by mamba_proj_bias, out_proj by projectors_bias (false) */
		if (!c->mamba_d_ssm)
			return "mamba_d_ssm";
		a->ssm_inner = *c->mamba_d_ssm;
		const char *bad = mamba2_mixer(c, a); /* FalconH1Config.validate_architecture raises */
		if (bad)
			return bad;
		a->ssm_out_bias = flag(c->projectors_bias, false);
		a->ssm_no_norm = !flag(c->mamba_rms_norm, false);
		break;
	}
	case SL_FAMILY_NEMOTRON_H: {
		/* NemotronHConfig (configuration_nemotron_h.py@13923c63): the mixer's width mamba_num_heads (128) x
		 * mamba_head_dim (64), n_groups (8), ssm_state_size (128), conv_kernel (4); in_proj and out_proj
		 * biased by use_bias (false), the conv by use_conv_bias (true); NemotronHMLP by mlp_bias (false);
		 * NemotronHAttention (Jamba's) without biases; mamba_ssm_cache_dtype "float32" */
		const char *bad = nemotron_blocks(c, a);
		if (bad)
			return bad;
		uint32_t heads = c->mamba_num_heads ? *c->mamba_num_heads : 128;
		uint32_t hd = c->mamba_head_dim ? *c->mamba_head_dim : 64;
		a->ssm_heads = heads;
		a->ssm_inner = heads * hd;
		const uint32_t *groups = first(c->n_groups, c->mamba_n_groups, NULL, NULL);
		a->ssm_groups = groups ? *groups : 8;
		const uint32_t *st = first(c->ssm_state_size, c->mamba_d_state, NULL, NULL);
		if (st)
			a->ssm_state = *st;
		const uint32_t *k = first(c->conv_kernel, c->mamba_d_conv, NULL, NULL);
		if (k)
			a->ssm_conv = *k;
		a->ssm_proj_bias = flag(c->use_bias, false);
		a->ssm_conv_bias = flag(c->use_conv_bias, flag(c->mamba_conv_bias, true));
		a->bias = flag(c->mlp_bias, false);
		a->no_bias = SL_NOBIAS_Q | SL_NOBIAS_K | SL_NOBIAS_V | SL_NOBIAS_O;
		a->ssm_state_fp32 = !c->mamba_ssm_cache_dtype || strcmp(c->mamba_ssm_cache_dtype, "float32") == 0;
		break;
	}
	case SL_FAMILY_ERNIE4_5_MOE: {
		/* modular_ernie4_5_moe.py@01187e21: ernie4_5's attention and MLP (every linear biased when use_bias);
		 * layer i is MoE when (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i <=
		 * moe_layer_end_index (-1: the last layer), else a dense MLP of intermediate_size. The MoE block:
		 * a bias-free float32 gate h -> E, moe_num_experts experts of moe_intermediate_size, the shared
		 * experts as one MLP of moe_intermediate_size x moe_num_shared_experts, and moe_statics'
		 * e_score_correction_bias (1 x E, an nn.Parameter). Ernie4_5_MoeConfig defaults (configuration_
		 * ernie4_5_moe.py@001f85b3): 64 experts, moe_k 6, 1536 wide, 2 shared, layers 1 to the last */
		a->bias = flag(c->use_bias, false);
		uint32_t start = c->moe_layer_start_index ? *c->moe_layer_start_index : 1;
		uint32_t every = c->moe_layer_interval ? *c->moe_layer_interval : 1;
		int32_t end = c->moe_layer_end_index ? *c->moe_layer_end_index : -1;
		a->experts = c->moe_num_experts ? *c->moe_num_experts : 64;
		a->top_k = c->moe_k ? *c->moe_k : 6;
		a->dense_ffn = a->intermediate;
		a->intermediate = c->moe_intermediate_size ? *c->moe_intermediate_size : 1536;
		a->shared_ffn = (c->moe_num_shared_experts ? *c->moe_num_shared_experts : 2) * a->intermediate;
		a->moe_first = start;
		a->moe_every = every;
		a->moe_offset = every - 1;
		a->moe_end = end < 0 || (uint32_t)end + 1 >= a->layers ? 0 : (uint32_t)end + 1;
		a->moe_stats = true;
		if (a->moe_end && a->moe_end <= start) { /* no MoE layer at all: dense MLPs of intermediate_size */
			a->experts = a->top_k = a->shared_ffn = 0;
			a->intermediate = a->dense_ffn;
			a->dense_ffn = 0;
			a->moe_stats = false;
		}
		break;
	}
	case SL_FAMILY_INTERNLM3: {
		/* InternLM3ForCausalLM, the checkpoint's remote modeling_internlm3.py (as copied in
		 * Vastai/VastModelZOO llm/internlm3/build_in/source_code/modeling_internlm3_vacc.py@e5f6fc67):
		 * llama's layout; q/k/v_proj biased when qkv_bias, o_proj and gate/up/down_proj when bias */
		bool qkv = flag(c->qkv_bias, false), b = flag(c->bias, false);
		a->bias = qkv || b;
		a->no_bias = (uint8_t)((qkv ? 0 : SL_NOBIAS_Q | SL_NOBIAS_K | SL_NOBIAS_V) | (b ? 0 : SL_NOBIAS_O | SL_NOBIAS_MLP));
		break;
	}
	case SL_FAMILY_MLLAMA:
		/* MllamaTextModel (modeling_mllama.py@befb7955): embed_tokens of vocab_size + 8 rows, the layers
		 * cross_attention_layers lists are MllamaCrossAttentionDecoderLayer, the rest llama's; lm_head
		 * vocab_size wide */
		a->xattn_layers = c->cross_attention_layers ? c->cross_attention_layers_count : 0;
		a->extra_vocab = 8;
		break;
	case SL_FAMILY_ERNIE4_5:
		/* modular_ernie4_5.py@7abb76c5: q/k/v/o and gate/up/down biased when use_bias (Ernie4_5Config: false) */
		a->bias = flag(c->use_bias, false);
		break;
	case SL_FAMILY_COHERE2:
		/* Cohere2Attention: a sliding window unless (layer + 1) % sliding_window_pattern == 0 (Cohere2Config
		 * sliding_window 4096, sliding_window_pattern 4; or layer_types) */
		a->window = c->sliding_window ? *c->sliding_window : 4096;
		a->window_layers = window_layers(c, a->layers, c->sliding_window_pattern ? *c->sliding_window_pattern : 4);
		break;
	case SL_FAMILY_DEEPSEEK_V2:
	case SL_FAMILY_DEEPSEEK_V3: {
		if (!c->kv_lora_rank)
			return "kv_lora_rank";
		if (!c->qk_rope_head_dim || !c->qk_nope_head_dim)
			return !c->qk_rope_head_dim ? "qk_rope_head_dim" : "qk_nope_head_dim";
		if (!c->v_head_dim)
			return "v_head_dim";
		a->kv_lora = *c->kv_lora_rank;
		a->q_lora = c->q_lora_rank ? *c->q_lora_rank : 0;
		a->rope_dim = *c->qk_rope_head_dim;
		a->head_dim = *c->qk_nope_head_dim + *c->qk_rope_head_dim; /* the config's head_dim is the rope's */
		a->v_head_dim = *c->v_head_dim;
		a->kv_heads = a->heads;
		a->bias = flag(c->attention_bias, false);
		a->no_bias = SL_NOBIAS_MLP;
		if (c->n_routed_experts) {
			if (!c->moe_intermediate_size)
				return "moe_intermediate_size";
			a->experts = *c->n_routed_experts;
			a->top_k = c->num_experts_per_tok ? *c->num_experts_per_tok : 1;
			a->dense_ffn = a->intermediate;
			a->intermediate = *c->moe_intermediate_size;
			a->shared_ffn = c->n_shared_experts ? *c->n_shared_experts * a->intermediate : 0;
			a->moe_first = c->first_k_dense_replace ? *c->first_k_dense_replace : 0;
		}
		break;
	}
	case SL_FAMILY_GPT_OSS: {
		const uint32_t *e = first(c->num_local_experts, c->num_experts, NULL, NULL);
		if (!e)
			return "num_local_experts";
		a->experts = *e;
		a->top_k = c->num_experts_per_tok ? *c->num_experts_per_tok : 4; /* GptOssConfig default */
		a->bias = flag(c->attention_bias, true);
		if (c->sliding_window) {
			a->window = *c->sliding_window;
			a->window_layers = window_layers(c, a->layers, 2); /* alternating, sliding first */
		}
		break;
	}
	case SL_FAMILY_PHIMOE: {
		const uint32_t *e = first(c->num_local_experts, c->num_experts, NULL, NULL);
		if (!e)
			return "num_local_experts";
		a->experts = *e;
		a->top_k = c->num_experts_per_tok ? *c->num_experts_per_tok : 2;
		a->bias = flag(c->attention_bias, false);
		a->no_bias = SL_NOBIAS_MLP;
		a->lm_head_bias = flag(c->lm_head_bias, false);
		break;
	}
	case SL_FAMILY_LLAMA4: {
		/* Llama4TextConfig: num_local_experts experts of intermediate_size and a shared expert of the
		 * same width in every interleave_moe_layer_step-th layer ((i + 1) % step == 0), dense layers of
		 * intermediate_size_mlp */
		if (!c->num_local_experts)
			return "num_local_experts";
		uint32_t step = c->interleave_moe_layer_step ? *c->interleave_moe_layer_step : 1;
		a->experts = *c->num_local_experts;
		a->top_k = c->num_experts_per_tok ? *c->num_experts_per_tok : 1;
		a->shared_ffn = a->intermediate;
		a->dense_ffn = c->intermediate_size_mlp ? *c->intermediate_size_mlp : a->intermediate;
		a->moe_every = step;
		a->moe_offset = step - 1;
		break;
	}
	case SL_FAMILY_MAMBA:
	case SL_FAMILY_FALCON_MAMBA:
	case SL_FAMILY_MAMBA2: {
		uint32_t expand = c->expand ? *c->expand : 2;
		a->ssm_inner = f == SL_FAMILY_MAMBA2 || !c->intermediate_size ? expand * a->hidden : *c->intermediate_size;
		a->intermediate = 0; /* no feed-forward: the mixer is the layer */
		if (c->state_size)
			a->ssm_state = *c->state_size;
		if (c->conv_kernel)
			a->ssm_conv = *c->conv_kernel;
		a->ssm_proj_bias = flag(c->use_bias, false);
		a->ssm_conv_bias = flag(c->use_conv_bias, true);
		if (f == SL_FAMILY_MAMBA2) {
			if (!c->num_heads)
				return "num_heads";
			a->ssm_heads = *c->num_heads;
			a->ssm_groups = c->n_groups ? *c->n_groups : 1;
		} else {
			a->ssm_dt_rank = dt_rank_auto(c->time_step_rank, a->hidden);
		}
		a->heads = a->kv_heads = a->head_dim = 0;
		break;
	}
	case SL_FAMILY_JAMBA:
		if (!c->num_experts)
			return "num_experts";
		a->experts = *c->num_experts;
		a->top_k = c->num_experts_per_tok ? *c->num_experts_per_tok : 2;
		if (c->expert_layer_period)
			a->moe_every = *c->expert_layer_period;
		if (c->expert_layer_offset)
			a->moe_offset = *c->expert_layer_offset;
		if (c->attn_layer_period)
			a->attn_every = *c->attn_layer_period;
		if (c->attn_layer_offset)
			a->attn_offset = *c->attn_layer_offset;
		a->ssm_inner = (c->mamba_expand ? *c->mamba_expand : 2) * a->hidden;
		if (c->mamba_d_state)
			a->ssm_state = *c->mamba_d_state;
		if (c->mamba_d_conv)
			a->ssm_conv = *c->mamba_d_conv;
		a->ssm_dt_rank = dt_rank_auto(c->mamba_dt_rank, a->hidden);
		a->ssm_conv_bias = flag(c->mamba_conv_bias, true);
		a->ssm_proj_bias = flag(c->mamba_proj_bias, false);
		break;
	case SL_FAMILY_RWKV:
		/* the attention width as one head (rwkv_layer) */
		a->heads = a->kv_heads = 1;
		a->head_dim = c->attention_hidden_size ? *c->attention_hidden_size : a->hidden;
		break;
	case SL_FAMILY_MODERNBERT:
		if (flag(c->norm_bias, false))
			a->no_bias = 0;
		a->bias = flag(c->attention_bias, false) || flag(c->mlp_bias, false);
		a->no_bias |= (uint8_t)((flag(c->attention_bias, false) ? 0
					 : SL_NOBIAS_Q | SL_NOBIAS_K | SL_NOBIAS_V | SL_NOBIAS_O) |
					(flag(c->mlp_bias, false) ? 0 : SL_NOBIAS_MLP));
		a->max_pos = 0; /* rotary */
		a->type_vocab = 0;
		if (c->local_attention) {
			/* ModernBertAttention: layer i attends globally when i % global_attn_every_n_layers == 0 */
			uint32_t every = c->global_attn_every_n_layers ? *c->global_attn_every_n_layers : 3;
			a->window = *c->local_attention;
			a->window_layers = every ? a->layers - (a->layers + every - 1) / every : 0;
		}
		break;
	case SL_FAMILY_NOMIC_BERT:
		a->max_pos = 0; /* rotary */
		a->gated_ffn = !c->activation_function || strcmp(c->activation_function, "swiglu") == 0;
		a->bias = flag(c->qkv_proj_bias, false) || flag(c->mlp_fc1_bias, false) || flag(c->mlp_fc2_bias, false);
		if (a->bias) /* one switch for both projections of each kind */
			a->no_bias = (uint8_t)((flag(c->qkv_proj_bias, false)
						? 0 : SL_NOBIAS_Q | SL_NOBIAS_K | SL_NOBIAS_V | SL_NOBIAS_O) |
					       (flag(c->mlp_fc1_bias, false) ? 0 : SL_NOBIAS_MLP));
		break;
	case SL_FAMILY_XLM_ROBERTA:
		/* jina-embeddings-v3 (XLMRobertaLoRA): rotary positions, LoRA adapters per task kept with the weights */
		if (c->position_embedding_type && strcmp(c->position_embedding_type, "rotary") == 0)
			a->max_pos = 0;
		if (c->lora_adaptations && c->lora_adaptations_count) {
			a->lora_tasks = c->lora_adaptations_count;
			a->lora_rank = c->lora_rank ? *c->lora_rank : 4;
			a->fused_qkv = true; /* the flash implementation's Wqkv */
		}
		break;
	case SL_FAMILY_GEMMA3:
		if (c->sliding_window) {
			a->window = *c->sliding_window;
			a->window_layers = window_layers(c, a->layers, c->sliding_window_pattern ? *c->sliding_window_pattern : 6);
		}
		break;
	default:
		break;
	}
	return vision_switches(f, c, a);
}

/* The layout switches of the newer families (issue #11), after the shape. */
static const char *family_switches(enum sl_family f, const struct hf_config *c, struct sl_arch *a)
{
	switch (f) {
	case SL_FAMILY_FALCON:
		/* FalconConfig: bias, multi_query (1 kv head), new_decoder_architecture (num_kv_heads, two norms) */
		a->bias = flag(c->bias, false);
		if (flag(c->new_decoder_architecture, false)) {
			const uint32_t *kv = first(c->num_kv_heads, c->n_head_kv, NULL, NULL);
			a->kv_heads = kv ? *kv : a->heads;
			a->norms = (uint8_t)(c->num_ln_in_parallel_attn && *c->num_ln_in_parallel_attn == 1 ? 1 : 2);
		} else {
			a->kv_heads = flag(c->multi_query, true) ? 1 : a->heads;
			a->norms = flag(c->parallel_attn, true) ? 1 : 2;
		}
		if (c->ffn_hidden_size)
			a->intermediate = *c->ffn_hidden_size;
		a->max_pos = 0; /* rotary or ALiBi */
		break;
	case SL_FAMILY_GPT_BIGCODE:
		a->kv_heads = flag(c->multi_query, true) ? 1 : a->heads;
		break;
	case SL_FAMILY_BLOOM:
	case SL_FAMILY_GPTJ:
	case SL_FAMILY_PHI:
		a->max_pos = 0; /* ALiBi / rotary: no table */
		break;
	case SL_FAMILY_OPT:
		if (c->word_embed_proj_dim && *c->word_embed_proj_dim != a->hidden)
			a->emb_dim = *c->word_embed_proj_dim;
		a->final_norm = flag(c->do_layer_norm_before, true) && !flag(c->_remove_final_layer_norm, false);
		a->bias = flag(c->enable_bias, true);
		break;
	case SL_FAMILY_ALBERT:
		if (c->embedding_size && *c->embedding_size != a->hidden)
			a->emb_dim = *c->embedding_size;
		a->param_layers = c->num_hidden_groups ? *c->num_hidden_groups : 1;
		if (a->param_layers > a->layers)
			a->param_layers = a->layers;
		break;
	case SL_FAMILY_DEBERTA_V2:
		if (c->embedding_size && *c->embedding_size != a->hidden)
			a->emb_dim = *c->embedding_size;
		if (!flag(c->position_biased_input, true))
			a->max_pos = 0;
		if (flag(c->relative_attention, false)) {
			/* DebertaV2Encoder: rel_embeddings(pos_ebd_size * 2, hidden) */
			int64_t span = c->max_relative_positions ? *c->max_relative_positions : -1;
			if (span < 1)
				span = c->max_position_embeddings ? *c->max_position_embeddings : 512;
			uint32_t buckets = c->position_buckets ? *c->position_buckets : 0;
			a->rel_emb = 2 * (buckets > 0 ? buckets : (uint32_t)span);
			a->rel_norm = c->norm_rel_ebd && strstr(c->norm_rel_ebd, "layer_norm");
		}
		if (c->conv_kernel_size)
			a->conv_kernel = *c->conv_kernel_size;
		break;
	case SL_FAMILY_MPNET:
		if (c->relative_attention_num_buckets)
			a->rel_buckets = *c->relative_attention_num_buckets;
		break;
	case SL_FAMILY_LONGFORMER:
		/* LongformerConfig attention_window (512): one width for every layer or one per layer, each even and
		 * positive (LongformerSelfAttention asserts both); LongformerModel._pad_to_window_size pads the input
		 * to a multiple of the largest (modeling_longformer.py@010a915c) */
		if (c->attention_window) {
			uint32_t w = 0;
			for (unsigned i = 0; i < c->attention_window_count; i++) {
				if (!c->attention_window[i] || c->attention_window[i] % 2)
					return "attention_window of even positive widths";
				w = c->attention_window[i] > w ? c->attention_window[i] : w;
			}
			if (!w)
				return "attention_window of even positive widths";
			a->window = w;
		}
		a->window_layers = a->layers;
		break;
	case SL_FAMILY_MIXTRAL:
	case SL_FAMILY_QWEN2_MOE:
	case SL_FAMILY_QWEN3_MOE:
	case SL_FAMILY_QWEN3_VL_MOE:
	case SL_FAMILY_OLMOE: {
		/* OlmoeConfig: num_experts experts of intermediate_size, num_experts_per_tok of them per token */
		const uint32_t *e = first(c->num_local_experts, c->num_experts, NULL, NULL);
		if (!e)
			return f == SL_FAMILY_MIXTRAL ? "num_local_experts" : "num_experts";
		if (!c->num_experts_per_tok)
			return "num_experts_per_tok";
		a->experts = *e;
		a->top_k = *c->num_experts_per_tok;
		if (f == SL_FAMILY_QWEN2_MOE || f == SL_FAMILY_QWEN3_MOE || f == SL_FAMILY_QWEN3_VL_MOE) {
			if (!c->moe_intermediate_size)
				return "moe_intermediate_size";
			a->intermediate = *c->moe_intermediate_size;
			if (f == SL_FAMILY_QWEN2_MOE && c->shared_expert_intermediate_size)
				a->shared_ffn = *c->shared_expert_intermediate_size;
		}
		break;
	}
	case SL_FAMILY_WHISPER:
		if (c->num_mel_bins)
			a->mel_bins = *c->num_mel_bins;
		if (c->max_source_positions)
			a->src_pos = *c->max_source_positions;
		a->max_pos = c->max_target_positions ? *c->max_target_positions : 448;
		break;
	case SL_FAMILY_T5:
	case SL_FAMILY_MT5:
	case SL_FAMILY_UMT5:
		/* T5EncoderModel (sentence-T5, GTR), UMT5EncoderModel: the encoder stack alone */
		a->enc_only = c->architecture && (strcmp(c->architecture, "T5EncoderModel") == 0 ||
						  strcmp(c->architecture, "UMT5EncoderModel") == 0);
		break;
	default:
		break;
	}
	if (a->kind == SL_ARCH_DECODER && bare_decoder_class(c->architecture))
		a->enc_only = true;
	const char *missing = issue30_switches(f, c, a);
	if (missing)
		return missing;
	/* llama-style attention_bias / mlp_bias (granite, llama, ...); the families above read their own */
	if (a->rmsnorm && a->kind == SL_ARCH_DECODER && !own_biases(f) &&
	    (flag(c->attention_bias, false) || flag(c->mlp_bias, false))) {
		a->bias = true;
		a->qkv_bias_only = false;
		a->no_bias = (uint8_t)((flag(c->attention_bias, false) ? 0
					: SL_NOBIAS_Q | SL_NOBIAS_K | SL_NOBIAS_V | SL_NOBIAS_O) |
				       (flag(c->mlp_bias, false) ? 0 : SL_NOBIAS_MLP));
	}
	return NULL;
}

const char *hf_config_to_arch(enum sl_family f, const struct hf_config *c, struct sl_arch *a)
{
	if (f == SL_FAMILY_VIT)
		return hf_vit_config(c, a);
	struct spelling sp = spelling_of(f);
	sl_arch_init(a, f);

	const uint32_t *vocab = f == SL_FAMILY_CHATGLM ? first(c->padded_vocab_size, c->vocab_size, NULL, NULL)
							 : c->vocab_size;
	if (!vocab)
		return f == SL_FAMILY_CHATGLM ? "padded_vocab_size" : "vocab_size";
	a->vocab = *vocab;

	const uint32_t *v = first(c->hidden_size, c->d_model, c->n_embd, first(c->n_embed, c->dim, NULL, NULL));
	if (!v)
		return sp.hidden;
	a->hidden = *v;

	v = first(c->num_hidden_layers, c->num_layers, c->n_layer, first(c->encoder_layers, c->n_layers, NULL, NULL));
	if (!v)
		return sp.layers;
	a->layers = *v;

	v = first(c->num_attention_heads, c->num_heads, c->n_head,
		  first(c->encoder_attention_heads, c->n_heads, NULL, NULL));
	if (!v && !headless(f))
		return sp.heads;
	a->heads = v ? *v : 0;

	if (a->kind == SL_ARCH_ENCDEC) {
		v = first(c->num_decoder_layers, c->decoder_layers, NULL, NULL);
		a->dec_layers = v ? *v : a->layers;
	}
	a->kv_heads = c->num_key_value_heads ? *c->num_key_value_heads : a->heads;

	v = first(c->head_dim, c->d_kv, NULL, NULL);
	if (v)
		a->head_dim = *v;
	else if (f == SL_FAMILY_T5 || f == SL_FAMILY_MT5 || f == SL_FAMILY_UMT5)
		a->head_dim = 64; /* T5Config default d_kv */
	else
		a->head_dim = a->heads ? a->hidden / a->heads : 0;

	if (f == SL_FAMILY_QWEN2_MOE || f == SL_FAMILY_QWEN3_MOE || f == SL_FAMILY_QWEN3_VL_MOE)
		v = c->moe_intermediate_size; /* the experts' width; intermediate_size is the dense layers' */
	else if (f == SL_FAMILY_CHATGLM)
		v = c->ffn_hidden_size;
	else if (f == SL_FAMILY_LFM2)
		v = first(c->block_ff_dim, c->intermediate_size, NULL, NULL);
	else
		v = first(c->intermediate_size, c->d_ff, c->n_inner, first(c->encoder_ffn_dim, c->ffn_dim, c->hidden_dim, NULL));
	if (v && f == SL_FAMILY_QWEN)
		a->intermediate = *v / 2; /* QWenMLP: w1, w2 and c_proj are intermediate_size // 2 wide */
	else if (v)
		a->intermediate = *v;
	else if (ffn_4h(f))
		a->intermediate = 4 * a->hidden; /* n_inner / intermediate_size null: 4 × hidden */
	else if (!headless(f) || f == SL_FAMILY_RWKV) /* RwkvConfig, NomicBertConfig: null is 4 × hidden */
		return f == SL_FAMILY_CHATGLM ? "ffn_hidden_size" : sp.ffn;

	v = first(c->max_position_embeddings, c->n_positions, NULL, NULL);
	if (v)
		a->max_pos = *v;
	else if (f == SL_FAMILY_GPT2 || f == SL_FAMILY_BART || f == SL_FAMILY_MBART || f == SL_FAMILY_PEGASUS ||
		 f == SL_FAMILY_GPT_BIGCODE)
		a->max_pos = 1024; /* GPT2Config / BartConfig / PegasusConfig defaults */
	else if (f == SL_FAMILY_GPT_NEO || f == SL_FAMILY_OPT)
		a->max_pos = 2048; /* GPTNeoConfig / OPTConfig defaults */
	else if (f == SL_FAMILY_M2M_100)
		a->max_pos = 1024; /* M2M100Config default */
	else if (a->kind == SL_ARCH_ENCODER && f != SL_FAMILY_MODERNBERT && f != SL_FAMILY_NOMIC_BERT)
		return "max_position_embeddings"; /* learned positions: the table size counts */

	if (c->type_vocab_size && a->kind == SL_ARCH_ENCODER)
		a->type_vocab = *c->type_vocab_size;
	if (c->relative_attention_num_buckets && (f == SL_FAMILY_T5 || f == SL_FAMILY_MT5 || f == SL_FAMILY_UMT5))
		a->rel_buckets = *c->relative_attention_num_buckets;
	if (c->feed_forward_proj && (f == SL_FAMILY_T5 || f == SL_FAMILY_MT5 || f == SL_FAMILY_UMT5))
		a->gated_ffn = strncmp(c->feed_forward_proj, "gated-", 6) == 0;
	if (c->tie_word_embeddings)
		a->tied = *c->tie_word_embeddings;
	if (c->scale_embedding)
		a->scale_emb = *c->scale_embedding;
	if (c->embedding_size && f == SL_FAMILY_ELECTRA && *c->embedding_size != a->hidden)
		a->emb_dim = *c->embedding_size;
	return family_switches(f, c, a);
}

/* --- local config.json (jansson) ------------------------------------------ */

/* The span of the first occurrence of "key" in the source, or of its first byte. */
static struct sl_span key_span(const struct sl_source *src, const char *key)
{
	char quoted[96];
	snprintf(quoted, sizeof quoted, "\"%s\"", key);
	const char *p = memmem(src->bytes, src->len, quoted, strlen(quoted));
	if (!p)
		return sl_source_span(src, 0, src->len ? 1 : 0);
	size_t off = (size_t)(p - src->bytes);
	return sl_source_span(src, off, off + strlen(quoted));
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* sentence-transformers' max_seq_length from DIR/sentence_bert_config.json, 0 when none. */
static uint32_t st_max_seq_len(struct sl_arena *a, const char *dir, const char *proj_root)
{
	char *path = sl_arena_printf(a, "%s/sentence_bert_config.json", dir);
	if (sl_path_contain(a, proj_root, path, NULL) != SL_CONTAIN_INSIDE)
		return 0; /* none, or outside the project: not read */
	int rerr = 0;
	struct sl_source *src = sl_source_read(a, path, SL_MAX_INPUT_BYTES, &rerr);
	if (!src)
		return 0;
	json_error_t err;
	json_t *root = sl_json_loadb_bounded(src->bytes, src->len, 0, SL_JSON_MAX_VALUES, &err);
	if (!root)
		return 0;
	json_t *v = json_object_get(root, "max_seq_length");
	uint32_t n = json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) <= UINT32_MAX
			     ? (uint32_t)json_integer_value(v)
			     : 0;
	json_decref(root);
	return n;
}

/* The last path component of dir (without trailing slashes). */
static const char *base_name(struct sl_arena *a, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	size_t s = n;
	while (s > 0 && dir[s - 1] != '/')
		s--;
	return sl_arena_strndup(a, dir + s, n - s);
}

static void json_free(void *p)
{
	json_decref(p);
}

/* The period of a sliding-window pattern string: 'L's (local layers) closed by one 'G' ("LLLG": 4); 0 if not. */
static uint32_t pattern_period(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64 || s[n - 1] != 'G')
		return 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] != 'L')
			return 0;
	return (uint32_t)n;
}

/*
 * The keys of table k from obj (from first, else obj, when first is given; "architectures" always from
 * obj) into the record at out. A value of the wrong type is a diagnostic at its key: returns false.
 */
static bool read_keys(struct sl_arena *a, const struct sl_source *src, json_t *obj, json_t *first_obj,
		      const struct hf_key *k, size_t nkeys, void *out, struct sl_diags *diags)
{
	for (size_t i = 0; i < nkeys; i++) {
		json_t *v = first_obj && k[i].kind != HF_FIRST ? json_object_get(first_obj, k[i].name) : NULL;
		if (!v || json_is_null(v))
			v = json_object_get(obj, k[i].name);
		if (!v || json_is_null(v))
			continue;
		void *slot = (char *)out + k[i].offset;
		bool ok = true;
		switch (k[i].kind) {
		case HF_PATTERN:
			/* Exaone4Config: sliding_window_pattern "LLLG" (local layers, then a global one) is the period 4 */
			if (json_is_string(v)) {
				uint32_t period = pattern_period(json_string_value(v));
				ok = period > 0;
				if (ok) {
					uint32_t *u = sl_arena_alloc(a, sizeof *u);
					*u = period;
					*(const uint32_t **)slot = u;
				}
				break;
			}
			/* fall through */
		case HF_UINT_AUTO:
			if (k[i].kind == HF_UINT_AUTO && json_is_string(v) && strcmp(json_string_value(v), "auto") == 0) {
				*(const uint32_t **)slot = sl_arena_alloc(a, sizeof(uint32_t)); /* 0: auto */
				break;
			}
			/* fall through */
		case HF_UINT:
			ok = json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= UINT32_MAX;
			if (ok) {
				uint32_t *u = sl_arena_alloc(a, sizeof *u);
				*u = (uint32_t)json_integer_value(v);
				*(const uint32_t **)slot = u;
			}
			break;
		case HF_BOOL:
			ok = json_is_boolean(v);
			if (ok) {
				bool *b = sl_arena_alloc(a, sizeof *b);
				*b = json_is_true(v);
				*(const bool **)slot = b;
			}
			break;
		case HF_INT:
			ok = json_is_integer(v) && json_integer_value(v) >= INT32_MIN && json_integer_value(v) <= INT32_MAX;
			if (ok) {
				int32_t *n = sl_arena_alloc(a, sizeof *n);
				*n = (int32_t)json_integer_value(v);
				*(const int32_t **)slot = n;
			}
			break;
		case HF_STR:
			ok = json_is_string(v);
			if (ok)
				*(const char **)slot = sl_arena_strdup(a, json_string_value(v));
			break;
		case HF_FIRST:
			ok = json_is_array(v);
			if (ok && json_is_string(json_array_get(v, 0)))
				*(const char **)slot = sl_arena_strdup(a, json_string_value(json_array_get(v, 0)));
			break;
		case HF_FLOAT:
			ok = json_is_number(v);
			if (ok) {
				double *d = sl_arena_alloc(a, sizeof *d);
				*d = json_number_value(v);
				*(const double **)slot = d;
			}
			break;
		case HF_UINT_OR_LIST:
			if (json_is_integer(v)) { /* LongformerConfig: one attention_window for every layer */
				ok = json_integer_value(v) >= 0 && json_integer_value(v) <= UINT32_MAX;
				if (ok) {
					uint32_t *one = sl_arena_alloc(a, sizeof *one);
					*one = (uint32_t)json_integer_value(v);
					*(const uint32_t **)slot = one;
					*(unsigned *)((char *)out + k[i].count) = 1;
				}
				break;
			}
			/* fall through */
		case HF_UINT_LIST: {
			ok = json_is_array(v) && json_array_size(v) <= UINT32_MAX;
			size_t n = ok ? json_array_size(v) : 0;
			uint32_t *list = sl_arena_array(a, n ? n : 1, sizeof *list);
			for (size_t j = 0; ok && j < n; j++) {
				json_t *e = json_array_get(v, j);
				ok = json_is_integer(e) && json_integer_value(e) >= 0 && json_integer_value(e) <= UINT32_MAX;
				list[j] = ok ? (uint32_t)json_integer_value(e) : 0;
			}
			if (ok) {
				*(const uint32_t **)slot = list;
				*(unsigned *)((char *)out + k[i].count) = (unsigned)n;
			}
			break;
		}
		case HF_LIST_LEN:
			ok = json_is_array(v) && json_array_size(v) <= UINT32_MAX;
			if (ok) {
				uint32_t *u = sl_arena_alloc(a, sizeof *u);
				*u = (uint32_t)json_array_size(v);
				*(const uint32_t **)slot = u;
			}
			break;
		case HF_LIST: {
			ok = json_is_array(v) && json_array_size(v) <= UINT32_MAX;
			size_t n = ok ? json_array_size(v) : 0;
			const char **list = sl_arena_array(a, n ? n : 1, sizeof *list);
			for (size_t j = 0; ok && j < n; j++) {
				ok = json_is_string(json_array_get(v, j));
				list[j] = ok ? sl_arena_strdup(a, json_string_value(json_array_get(v, j))) : NULL;
			}
			if (ok) {
				*(const char ***)slot = list;
				*(unsigned *)((char *)out + k[i].count) = (unsigned)n;
			}
			break;
		}
		}
		/* an integer of the right sign past what the field holds: say it is too large, not of the wrong kind */
		bool integral = k[i].kind == HF_UINT || k[i].kind == HF_UINT_AUTO || k[i].kind == HF_PATTERN || k[i].kind == HF_INT;
		json_int_t iv = json_is_integer(v) ? json_integer_value(v) : 0;
		if (!ok && integral && json_is_integer(v) && (iv > 0 || k[i].kind == HF_INT)) {
			long long most = k[i].kind == HF_INT ? INT32_MAX : (long long)UINT32_MAX;
			if (iv < 0)
				sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, k[i].name),
					     "'%s' is %lld, past the smallest value sweeplint reads for it (%lld)",
					     k[i].name, (long long)iv, (long long)INT32_MIN);
			else
				sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, k[i].name),
					     "'%s' is %lld, past the largest value sweeplint reads for it (%lld): no "
					     "published model is that large",
					     k[i].name, (long long)iv, most);
			return false;
		}
		if (!ok) {
			sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, k[i].name), "'%s' must be %s",
				     k[i].name,
				     k[i].kind == HF_UINT        ? "a non-negative integer"
				     : k[i].kind == HF_UINT_AUTO ? "a non-negative integer or \"auto\""
				     : k[i].kind == HF_PATTERN   ? "a non-negative integer or a pattern such as \"LLLG\""
				     : k[i].kind == HF_INT       ? "an integer"
				     : k[i].kind == HF_BOOL      ? "true or false"
				     : k[i].kind == HF_FIRST     ? "a list"
				     : k[i].kind == HF_LIST      ? "a list of strings"
				     : k[i].kind == HF_FLOAT     ? "a number"
				     : k[i].kind == HF_UINT_LIST ? "a list of non-negative integers"
				     : k[i].kind == HF_UINT_OR_LIST ? "a non-negative integer or a list of them"
				     : k[i].kind == HF_LIST_LEN  ? "a list"
								 : "a string");
			return false;
		}
	}
	return true;
}

const struct sl_model *sl_model_from_config(struct sl_arena *a, const char *path, struct sl_diags *diags)
{
	return sl_model_from_config_in(a, path, NULL, diags);
}

const struct sl_model *sl_model_from_config_in(struct sl_arena *a, const char *path, const char *proj_root,
					       struct sl_diags *diags)
{
	const char *dir = NULL, *file = path;
	if (is_dir(path)) {
		dir = path;
		file = sl_arena_printf(a, "%s/config.json", path);
	} else {
		const char *slash = strrchr(path, '/');
		dir = slash ? sl_arena_strndup(a, path, (size_t)(slash - path)) : ".";
	}

	int err = 0;
	struct sl_source *src = sl_source_read(a, file, SL_MAX_INPUT_BYTES, &err);
	if (!src) {
		struct sl_source *none = sl_source_from_bytes(a, file, "", 0);
		sl_diags_add(diags, RULE, SL_SEV_ERROR, none, sl_source_span(none, 0, 0), "cannot read '%s': %s",
			     file, sl_source_strerror(err));
		return NULL;
	}

	json_error_t jerr;
	json_t *root = sl_json_loadb_bounded(src->bytes, src->len, 0, SL_JSON_MAX_VALUES, &jerr);
	if (!root) {
		size_t off = jerr.position > 0 && (size_t)jerr.position <= src->len ? (size_t)jerr.position : 0;
		sl_diags_add(diags, RULE, SL_SEV_ERROR, src, sl_source_span(src, off, off), "invalid JSON: %s",
			     sl_json_error_what(a, &jerr));
		return NULL;
	}
	sl_arena_defer(a, json_free, root);
	if (!json_is_object(root)) {
		sl_diags_add(diags, RULE, SL_SEV_ERROR, src, sl_source_span(src, 0, src->len ? 1 : 0),
			     "config.json is not a JSON object");
		return NULL;
	}

	json_t *mt = json_object_get(root, "model_type");
	if (!json_is_string(mt)) {
		sl_diags_add(diags, RULE, SL_SEV_ERROR, src, sl_source_span(src, 0, src->len ? 1 : 0),
			     "config.json has no 'model_type'");
		return NULL;
	}
	int fam = hf_family_parse(json_string_value(mt));
	if (fam < 0) {
		struct sl_diag *d = sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, "model_type"),
						 "unsupported model_type '%s'", json_string_value(mt));
		d->hint = sl_arena_printf(a, "supported model types: %s", hf_family_list());
		return NULL;
	}

	/* the multimodal configs (gemma3, qwen2_5_vl, llama4): the language model's keys under text_config
	 * (else at the top), the vision tower's under vision_config */
	json_t *text = json_object_get(root, "text_config");
	json_t *keys_from = hf_family_nests_text((enum sl_family)fam) && json_is_object(text) ? text : NULL;
	struct hf_config cfg = {0};
	size_t nkeys;
	const struct hf_key *k = hf_keys(&nkeys);
	if (!read_keys(a, src, root, keys_from, k, nkeys, &cfg, diags))
		return NULL;
	json_t *vis = json_object_get(root, "vision_config");
	if (hf_family_nests_text((enum sl_family)fam) && json_is_object(vis)) {
		struct hf_vision *vc = sl_arena_alloc(a, sizeof *vc);
		k = hf_vision_keys(&nkeys);
		if (!read_keys(a, src, vis, NULL, k, nkeys, vc, diags))
			return NULL;
		cfg.vision_config = vc;
	}

	struct sl_model *m = sl_arena_alloc(a, sizeof *m);
	const char *missing = hf_config_to_arch((enum sl_family)fam, &cfg, &m->arch);
	if (missing) {
		/* a key that is there but holds what the family is not built for (nemotron_h's MoE blocks "E", a
		 * head width that does not divide the mixer, more layers than a layer map holds) */
		json_t *present = json_object_get(root, missing);
		if (present && !json_is_null(present))
			sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, missing),
				     "config.json's '%s' holds a layout sweeplint does not build for model_type '%s'",
				     missing, sl_family_name((enum sl_family)fam));
		else
			sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, "model_type"),
				     "config.json has no '%s' (required for model_type '%s')", missing,
				     sl_family_name((enum sl_family)fam));
		return NULL;
	}

	m->name = base_name(a, dir);
	json_t *np = json_object_get(root, "_name_or_path");
	m->hf_id = json_is_string(np) && json_string_length(np) ? sl_arena_strdup(a, json_string_value(np)) : path;
	m->source = file;
	m->st_max_seq_len = st_max_seq_len(a, dir, proj_root);
	if (m->st_max_seq_len || m->arch.enc_only)
		m->task = SL_TASK_BI_ENCODER;
	else
		m->task = m->arch.kind == SL_ARCH_ENCODER ? SL_TASK_SEQ_CLS
			  : m->arch.kind == SL_ARCH_DECODER ? SL_TASK_CAUSAL_LM
							    : SL_TASK_SEQ2SEQ;
	return m;
}
