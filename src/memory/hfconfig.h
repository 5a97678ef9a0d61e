/*
 * hfconfig (private to src/memory): the keys of a Hugging Face config.json
 * that decide an architecture, as one flat record that both readers fill —
 * the libcyaml schema of rules/models.yaml (catalog.c) and the jansson
 * reader of local config.json files (config_json.c) — and the one mapping
 * from that record to struct sl_arch. The record borrows its strings from
 * whoever filled it.
 */
#ifndef SWEEPLINT_MEMORY_HFCONFIG_H
#define SWEEPLINT_MEMORY_HFCONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "sweeplint/memory.h"

/* Every config.json key the mapping reads, under its HF name; NULL: absent (or JSON null). */
struct hf_config {
	const char *model_type;
	const uint32_t *vocab_size;
	const uint32_t *hidden_size, *d_model, *n_embd;
	const uint32_t *embedding_size;                 /* electra */
	const uint32_t *num_hidden_layers, *num_layers, *n_layer;
	const uint32_t *num_decoder_layers;             /* t5 */
	const uint32_t *encoder_layers, *decoder_layers; /* bart */
	const uint32_t *num_attention_heads, *num_heads, *n_head;
	const uint32_t *encoder_attention_heads;        /* bart */
	const uint32_t *num_key_value_heads;
	const uint32_t *head_dim, *d_kv;
	const uint32_t *intermediate_size, *d_ff, *n_inner;
	const uint32_t *encoder_ffn_dim;                /* bart */
	const uint32_t *max_position_embeddings, *n_positions;
	const uint32_t *type_vocab_size;
	const uint32_t *relative_attention_num_buckets;
	const char *feed_forward_proj;                 /* t5: "relu", "gated-gelu" */
	const bool *tie_word_embeddings;
	const bool *scale_embedding;
	/* added (issue #11): the newer families' spellings and layout switches */
	const uint32_t *n_embed;                        /* bloom */
	const uint32_t *dim, *n_layers, *n_heads, *hidden_dim; /* distilbert */
	const uint32_t *ffn_dim, *word_embed_proj_dim;  /* opt */
	const uint32_t *num_kv_heads, *n_head_kv, *ffn_hidden_size, *num_ln_in_parallel_attn; /* falcon */
	const uint32_t *num_hidden_groups;              /* albert */
	const uint32_t *position_buckets, *conv_kernel_size; /* deberta-v2 */
	const int32_t *max_relative_positions;          /* deberta-v2 (-1: max_position_embeddings) */
	const uint32_t *num_local_experts, *num_experts, *num_experts_per_tok; /* MoE */
	const uint32_t *moe_intermediate_size, *shared_expert_intermediate_size;
	const uint32_t *num_mel_bins, *max_source_positions, *max_target_positions; /* whisper */
	const bool *multi_query, *new_decoder_architecture, *parallel_attn, *bias; /* falcon, gpt_bigcode */
	const bool *position_biased_input, *relative_attention; /* deberta-v2 */
	const bool *do_layer_norm_before, *_remove_final_layer_norm, *enable_bias; /* opt */
	const bool *attention_bias, *mlp_bias;          /* llama-style */
	const char *norm_rel_ebd;                       /* deberta-v2 */
	const char *architecture;                       /* architectures[0]: "T5EncoderModel" */
};

/* One entry of the key table: for the readers (names, offsets) and for messages. */
/* HF_FIRST: the first string of a JSON list ("architectures"); a plain string in rules/ YAML. */
enum hf_kind { HF_UINT, HF_BOOL, HF_STR, HF_INT, HF_FIRST };
struct hf_key {
	const char *name;
	enum hf_kind kind;
	size_t offset; /* into struct hf_config */
};

/* The keys, in struct order; *n receives the count. */
const struct hf_key *hf_keys(size_t *n);

/* The family of an HF model_type ("xlm-roberta", "t5", ...), or -1. */
int hf_family_parse(const char *model_type);

/* "bert, roberta, ..." — the supported model_type values, for messages. */
const char *hf_family_list(void);

/*
 * Fill *a for family f from *c: family defaults (kind, biases, norms, head
 * ties) first, then the config's values. Returns NULL on success, or the
 * name of the first required key that is missing (a static string such as
 * "hidden_size"); a missing alternative names the family's own spelling.
 */
const char *hf_config_to_arch(enum sl_family f, const struct hf_config *c, struct sl_arch *a);

#endif
