/*
 * hfconfig (private to src/memory): the keys of a Hugging Face config.json
 * that decide an architecture, as one flat record that both readers fill —
 * the libcyaml schema of rules/models.yaml (catalog.c) and the jansson
 * reader of local config.json files (config_json.c) — and the one mapping
 * from that record to struct sl_arch. The record borrows its strings from
 * whoever filled it. HF_CONFIG_KEYS lists every key once: the record's
 * fields, the readers' key table and the libcyaml schema come from it.
 */
#ifndef SWEEPLINT_MEMORY_HFCONFIG_H
#define SWEEPLINT_MEMORY_HFCONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "sweeplint/models.h"

/*
 * X(key, kind) for every key, under its HF name. Kinds: U a non-negative
 * integer, A the same or the string "auto" (read as 0), I an integer, B a
 * boolean, S a string, L a list of strings (its values and count), P a
 * non-negative integer or a sliding-window pattern ("LLLG": its period, 4), F a number (read as a
 * double), N a list of non-negative integers (its values and count), W the same or one non-negative
 * integer (read as a list of one; rules/ YAML gives the list), Z a list of anything (its
 * length alone; rules/ YAML gives the length as an integer).
 */
#define HF_CONFIG_KEYS(X)                                                                                     \
	X(model_type, S)                                                                                       \
	X(vocab_size, U)                                                                                       \
	X(hidden_size, U) X(d_model, U) X(n_embd, U)                                                           \
	X(embedding_size, U) /* electra */                                                                     \
	X(num_hidden_layers, U) X(num_layers, U) X(n_layer, U)                                                 \
	X(num_decoder_layers, U) /* t5 */                                                                      \
	X(encoder_layers, U) X(decoder_layers, U) /* bart */                                                   \
	X(num_attention_heads, U) X(num_heads, U) X(n_head, U)                                                 \
	X(encoder_attention_heads, U) /* bart */                                                               \
	X(num_key_value_heads, U)                                                                              \
	X(head_dim, U) X(d_kv, U)                                                                              \
	X(intermediate_size, U) X(d_ff, U) X(n_inner, U)                                                       \
	X(encoder_ffn_dim, U) /* bart */                                                                       \
	X(max_position_embeddings, U) X(n_positions, U)                                                        \
	X(type_vocab_size, U)                                                                                  \
	X(relative_attention_num_buckets, U)                                                                   \
	X(feed_forward_proj, S) /* t5: "relu", "gated-gelu" */                                                 \
	X(tie_word_embeddings, B)                                                                              \
	X(scale_embedding, B)                                                                                  \
	/* issue #11: the newer families' spellings and layout switches */                                     \
	X(n_embed, U) /* bloom */                                                                              \
	X(dim, U) X(n_layers, U) X(n_heads, U) X(hidden_dim, U) /* distilbert */                               \
	X(ffn_dim, U) X(word_embed_proj_dim, U) /* opt */                                                      \
	X(num_kv_heads, U) X(n_head_kv, U) X(ffn_hidden_size, U) X(num_ln_in_parallel_attn, U) /* falcon */    \
	X(num_hidden_groups, U) /* albert */                                                                   \
	X(position_buckets, U) X(conv_kernel_size, U) /* deberta-v2 */                                         \
	X(max_relative_positions, I) /* deberta-v2 (-1: max_position_embeddings) */                           \
	X(num_local_experts, U) X(num_experts, U) X(num_experts_per_tok, U) /* MoE */                          \
	X(moe_intermediate_size, U) X(shared_expert_intermediate_size, U)                                      \
	X(num_mel_bins, U) X(max_source_positions, U) X(max_target_positions, U) /* whisper */                 \
	X(multi_query, B) X(new_decoder_architecture, B) X(parallel_attn, B) X(bias, B) /* falcon, bigcode */  \
	X(position_biased_input, B) X(relative_attention, B) /* deberta-v2 */                                  \
	X(do_layer_norm_before, B) X(_remove_final_layer_norm, B) X(enable_bias, B) /* opt */                  \
	X(attention_bias, B) X(mlp_bias, B) /* llama-style */                                                  \
	X(norm_rel_ebd, S) /* deberta-v2 */                                                                    \
	/* issue #30: the 2025-2026 families */                                                                \
	X(use_bias, B) /* starcoder2, mamba */                                                                 \
	X(use_qk_norm, B) /* cohere */                                                                         \
	X(spatial_merge_size, U) X(multimodal_projector_bias, B) /* mistral3 */                               \
	X(attention_out_bias, B) /* seed_oss */                                                                \
	X(padded_vocab_size, U) X(multi_query_group_num, U) X(kv_channels, U) X(add_qkv_bias, B) /* chatglm */ \
	X(q_lora_rank, U) X(kv_lora_rank, U) X(qk_nope_head_dim, U) X(qk_rope_head_dim, U) /* MLA */          \
	X(v_head_dim, U)                                                                                       \
	X(n_routed_experts, U) X(n_shared_experts, U) X(first_k_dense_replace, U) /* deepseek */               \
	X(intermediate_size_mlp, U) X(interleave_moe_layer_step, U) /* llama4 */                               \
	X(lm_head_bias, B) /* phimoe */                                                                        \
	X(sliding_window, U) X(sliding_window_pattern, P) X(layer_types, L)                                    \
	X(state_size, U) X(expand, U) X(conv_kernel, U) X(time_step_rank, A) X(use_conv_bias, B) /* mamba */  \
	X(n_groups, U) /* mamba2 */                                                                            \
	X(mamba_d_state, U) X(mamba_d_conv, U) X(mamba_expand, U) X(mamba_dt_rank, A) /* jamba */             \
	X(mamba_conv_bias, B) X(mamba_proj_bias, B)                                                            \
	X(attn_layer_period, U) X(attn_layer_offset, U) X(expert_layer_period, U) X(expert_layer_offset, U)    \
	X(attention_hidden_size, U) /* rwkv */                                                                 \
	X(norm_bias, B) X(global_attn_every_n_layers, U) X(local_attention, U) /* modernbert */               \
	X(qkv_proj_bias, B) X(mlp_fc1_bias, B) X(mlp_fc2_bias, B) X(activation_function, S) /* nomic_bert */   \
	X(lora_adaptations, L) X(lora_rank, U) X(position_embedding_type, S) /* jina-embeddings-v3 */          \
	X(mm_tokens_per_image, U) /* gemma3 */                                                                 \
	X(block_ff_dim, U) X(block_auto_adjust_ff_dim, B) X(block_multiple_of, U) /* lfm2 */                 \
	X(block_ffn_dim_multiplier, F) X(conv_L_cache, U) X(conv_bias, B) X(tie_embedding, B)                 \
	X(full_attn_idxs, N)                                                                                   \
	X(moe_num_experts, U) X(moe_k, U) X(moe_num_shared_experts, U) /* ernie4_5_moe */                    \
	X(moe_layer_start_index, U) X(moe_layer_end_index, I) X(moe_layer_interval, U)                       \
	X(qkv_bias, B) /* internlm3 */                                                                        \
	X(scale_factor, U) /* idefics3, smolvlm */                                                             \
	X(cross_attention_layers, N) /* mllama */                                                             \
	X(shared_intermediate_size, U) X(mamba_n_heads, U) X(mamba_d_head, A) X(mamba_n_groups, U) /* granite-4 */ \
	X(mamba_d_ssm, U) X(mamba_rms_norm, B) X(projectors_bias, B) /* falcon_h1 */                          \
	X(hybrid_override_pattern, S) X(layers_block_type, L) X(mamba_num_heads, U) X(mamba_head_dim, U)     \
	X(ssm_state_size, U) X(mamba_ssm_cache_dtype, S) /* nemotron_h */                                     \
	X(image_size, U) X(patch_size, U) X(num_channels, U) X(num_classes, U) /* vit (timm / torchvision) */ \
	X(attention_window, W) /* longformer: one width for every layer, or one per layer */

/* The keys of a vision tower's vision_config (gemma3: SigLIP; qwen2_5_vl). */
#define HF_VISION_KEYS(X)                                                                                     \
	X(model_type, S)                                                                                       \
	X(hidden_size, U) X(intermediate_size, U) X(num_hidden_layers, U) X(depth, U)                          \
	X(num_attention_heads, U) X(num_heads, U)                                                              \
	X(patch_size, U) X(image_size, U) X(temporal_patch_size, U) X(spatial_merge_size, U)                   \
	X(out_hidden_size, U) X(num_channels, U) X(in_chans, U)                                                \
	X(projector_input_dim, U) X(projector_output_dim, U) X(vision_output_dim, U) /* llama4 */            \
	X(num_position_embeddings, U) X(deepstack_visual_indexes, N) /* qwen3_vl */                         \
	X(num_global_layers, U) X(max_num_tiles, U) X(supported_aspect_ratios, Z) /* mllama */

#define HF_FIELD_U(k) const uint32_t *k;
#define HF_FIELD_A(k) const uint32_t *k;
#define HF_FIELD_P(k) const uint32_t *k;
#define HF_FIELD_I(k) const int32_t *k;
#define HF_FIELD_B(k) const bool *k;
#define HF_FIELD_S(k) const char *k;
#define HF_FIELD_L(k) const char **k; unsigned k##_count;
#define HF_FIELD_F(k) const double *k;
#define HF_FIELD_N(k) const uint32_t *k; unsigned k##_count;
#define HF_FIELD_W(k) const uint32_t *k; unsigned k##_count;
#define HF_FIELD_Z(k) const uint32_t *k;
#define HF_FIELD(k, t) HF_FIELD_##t(k)

struct hf_vision {
	HF_VISION_KEYS(HF_FIELD)
};

/* Every config.json key the mapping reads, under its HF name; NULL: absent (or JSON null). */
struct hf_config {
	HF_CONFIG_KEYS(HF_FIELD)
	const char *architecture;   /* architectures[0]: "T5EncoderModel" */
	const struct hf_vision *vision_config;
};

/* One entry of the key table: for the readers (names, offsets) and for messages. */
/* HF_FIRST: the first string of a JSON list ("architectures"); a plain string in rules/ YAML. */
enum hf_kind {
	HF_UINT,
	HF_BOOL,
	HF_STR,
	HF_INT,
	HF_FIRST,
	HF_UINT_AUTO,
	HF_LIST,
	HF_PATTERN,
	HF_FLOAT,
	HF_UINT_LIST,
	HF_LIST_LEN,
	HF_UINT_OR_LIST, /* a non-negative integer (a list of one) or a list of them */
};
struct hf_key {
	const char *name;
	enum hf_kind kind;
	size_t offset; /* into struct hf_config (or struct hf_vision) */
	size_t count;  /* HF_LIST, HF_UINT_LIST, HF_UINT_OR_LIST: the offset of its count */
};

/* The keys, in struct order; *n receives the count. */
const struct hf_key *hf_keys(size_t *n);
/* The keys of vision_config (struct hf_vision). */
const struct hf_key *hf_vision_keys(size_t *n);

/* The family of an HF model_type ("xlm-roberta", "t5", ...), or -1. */
int hf_family_parse(const char *model_type);

/* "bert, roberta, ..." — the supported model_type values, for messages. */
const char *hf_family_list(void);

/* Families whose language model's keys a config.json nests under text_config (gemma3, qwen2_5_vl, llama4, mistral3, qwen3_vl). */
bool hf_family_nests_text(enum sl_family f);

/*
 * Fill *a for family f from *c: family defaults (kind, biases, norms, head
 * ties) first, then the config's values. Returns NULL on success, or the
 * name of the first required key that is missing (a static string such as
 * "hidden_size"); a missing alternative names the family's own spelling.
 */
const char *hf_config_to_arch(enum sl_family f, const struct hf_config *c, struct sl_arch *a);
/* The same for a Vision Transformer (vit.c): hidden_size, num_hidden_layers, num_attention_heads, image_size
 * and patch_size required; intermediate_size (4 x hidden), num_channels (3), num_classes (1000) optional. */
const char *hf_vit_config(const struct hf_config *c, struct sl_arch *a);

#endif
