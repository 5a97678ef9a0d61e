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
#include "sweeplint/memory.h"
#include "sweeplint/source.h"

#define RULE "unknown-model"

#define KEY(k, kind) {#k, kind, offsetof(struct hf_config, k)}
static const struct hf_key keys[] = {
	KEY(model_type, HF_STR),
	KEY(vocab_size, HF_UINT),
	KEY(hidden_size, HF_UINT),
	KEY(d_model, HF_UINT),
	KEY(n_embd, HF_UINT),
	KEY(embedding_size, HF_UINT),
	KEY(num_hidden_layers, HF_UINT),
	KEY(num_layers, HF_UINT),
	KEY(n_layer, HF_UINT),
	KEY(num_decoder_layers, HF_UINT),
	KEY(encoder_layers, HF_UINT),
	KEY(decoder_layers, HF_UINT),
	KEY(num_attention_heads, HF_UINT),
	KEY(num_heads, HF_UINT),
	KEY(n_head, HF_UINT),
	KEY(encoder_attention_heads, HF_UINT),
	KEY(num_key_value_heads, HF_UINT),
	KEY(head_dim, HF_UINT),
	KEY(d_kv, HF_UINT),
	KEY(intermediate_size, HF_UINT),
	KEY(d_ff, HF_UINT),
	KEY(n_inner, HF_UINT),
	KEY(encoder_ffn_dim, HF_UINT),
	KEY(max_position_embeddings, HF_UINT),
	KEY(n_positions, HF_UINT),
	KEY(type_vocab_size, HF_UINT),
	KEY(relative_attention_num_buckets, HF_UINT),
	KEY(feed_forward_proj, HF_STR),
	KEY(tie_word_embeddings, HF_BOOL),
	KEY(scale_embedding, HF_BOOL),
	KEY(n_embed, HF_UINT),
	KEY(dim, HF_UINT),
	KEY(n_layers, HF_UINT),
	KEY(n_heads, HF_UINT),
	KEY(hidden_dim, HF_UINT),
	KEY(ffn_dim, HF_UINT),
	KEY(word_embed_proj_dim, HF_UINT),
	KEY(num_kv_heads, HF_UINT),
	KEY(n_head_kv, HF_UINT),
	KEY(ffn_hidden_size, HF_UINT),
	KEY(num_ln_in_parallel_attn, HF_UINT),
	KEY(num_hidden_groups, HF_UINT),
	KEY(position_buckets, HF_UINT),
	KEY(conv_kernel_size, HF_UINT),
	KEY(max_relative_positions, HF_INT),
	KEY(num_local_experts, HF_UINT),
	KEY(num_experts, HF_UINT),
	KEY(num_experts_per_tok, HF_UINT),
	KEY(moe_intermediate_size, HF_UINT),
	KEY(shared_expert_intermediate_size, HF_UINT),
	KEY(num_mel_bins, HF_UINT),
	KEY(max_source_positions, HF_UINT),
	KEY(max_target_positions, HF_UINT),
	KEY(multi_query, HF_BOOL),
	KEY(new_decoder_architecture, HF_BOOL),
	KEY(parallel_attn, HF_BOOL),
	KEY(bias, HF_BOOL),
	KEY(position_biased_input, HF_BOOL),
	KEY(relative_attention, HF_BOOL),
	KEY(do_layer_norm_before, HF_BOOL),
	KEY(_remove_final_layer_norm, HF_BOOL),
	KEY(enable_bias, HF_BOOL),
	KEY(attention_bias, HF_BOOL),
	KEY(mlp_bias, HF_BOOL),
	KEY(norm_rel_ebd, HF_STR),
	{"architectures", HF_FIRST, offsetof(struct hf_config, architecture)},
};
#undef KEY

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
	       "mixtral, qwen2_moe, qwen3_moe, gpt2, gpt_bigcode, gpt_neo, gpt_neox, gptj, opt, bloom, falcon";
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
		return (struct spelling){"d_model", "encoder_layers", "encoder_attention_heads", "encoder_ffn_dim"};
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
	       f == SL_FAMILY_BLOOM || f == SL_FAMILY_FALCON;
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
	case SL_FAMILY_MIXTRAL:
	case SL_FAMILY_QWEN2_MOE:
	case SL_FAMILY_QWEN3_MOE: {
		const uint32_t *e = first(c->num_local_experts, c->num_experts, NULL, NULL);
		if (!e)
			return f == SL_FAMILY_MIXTRAL ? "num_local_experts" : "num_experts";
		if (!c->num_experts_per_tok)
			return "num_experts_per_tok";
		a->experts = *e;
		a->top_k = *c->num_experts_per_tok;
		if (f != SL_FAMILY_MIXTRAL) {
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
	/* llama-style attention_bias / mlp_bias (granite, llama, ...) */
	if (a->rmsnorm && a->kind == SL_ARCH_DECODER && (flag(c->attention_bias, false) || flag(c->mlp_bias, false))) {
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
	struct spelling sp = spelling_of(f);
	sl_arch_init(a, f);

	if (!c->vocab_size)
		return "vocab_size";
	a->vocab = *c->vocab_size;

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
	if (!v)
		return sp.heads;
	a->heads = *v;

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

	if (f == SL_FAMILY_QWEN2_MOE || f == SL_FAMILY_QWEN3_MOE)
		v = c->moe_intermediate_size; /* the experts' width; intermediate_size is the dense layers' */
	else
		v = first(c->intermediate_size, c->d_ff, c->n_inner, first(c->encoder_ffn_dim, c->ffn_dim, c->hidden_dim, NULL));
	if (v && f == SL_FAMILY_QWEN)
		a->intermediate = *v / 2; /* QWenMLP: w1, w2 and c_proj are intermediate_size // 2 wide */
	else if (v)
		a->intermediate = *v;
	else if (ffn_4h(f))
		a->intermediate = 4 * a->hidden; /* n_inner / intermediate_size null: 4 × hidden */
	else
		return sp.ffn;

	v = first(c->max_position_embeddings, c->n_positions, NULL, NULL);
	if (v)
		a->max_pos = *v;
	else if (f == SL_FAMILY_GPT2 || f == SL_FAMILY_BART || f == SL_FAMILY_MBART || f == SL_FAMILY_PEGASUS ||
		 f == SL_FAMILY_GPT_BIGCODE)
		a->max_pos = 1024; /* GPT2Config / BartConfig / PegasusConfig defaults */
	else if (f == SL_FAMILY_GPT_NEO || f == SL_FAMILY_OPT)
		a->max_pos = 2048; /* GPTNeoConfig / OPTConfig defaults */
	else if (a->kind == SL_ARCH_ENCODER)
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
static uint32_t st_max_seq_len(struct sl_arena *a, const char *dir)
{
	char *path = sl_arena_printf(a, "%s/sentence_bert_config.json", dir);
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

const struct sl_model *sl_model_from_config(struct sl_arena *a, const char *path, struct sl_diags *diags)
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
			     jerr.text);
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

	/* the multimodal gemma3: the language model's keys are under text_config (the vision tower is not counted) */
	json_t *keys_from = root;
	json_t *text = json_object_get(root, "text_config");
	if (fam == SL_FAMILY_GEMMA3 && json_is_object(text))
		keys_from = text;

	struct hf_config cfg = {0};
	size_t nkeys;
	const struct hf_key *k = hf_keys(&nkeys);
	for (size_t i = 0; i < nkeys; i++) {
		json_t *v = json_object_get(k[i].kind == HF_FIRST ? root : keys_from, k[i].name);
		if (!v || json_is_null(v))
			continue;
		void *slot = (char *)&cfg + k[i].offset;
		bool ok = true;
		switch (k[i].kind) {
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
		}
		if (!ok) {
			sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, k[i].name), "'%s' must be %s",
				     k[i].name,
				     k[i].kind == HF_UINT   ? "a non-negative integer"
				     : k[i].kind == HF_INT  ? "an integer"
				     : k[i].kind == HF_BOOL ? "true or false"
				     : k[i].kind == HF_FIRST ? "a list"
							     : "a string");
			return NULL;
		}
	}

	struct sl_model *m = sl_arena_alloc(a, sizeof *m);
	const char *missing = hf_config_to_arch((enum sl_family)fam, &cfg, &m->arch);
	if (missing) {
		sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, "model_type"),
			     "config.json has no '%s' (required for model_type '%s')", missing,
			     sl_family_name((enum sl_family)fam));
		return NULL;
	}

	m->name = base_name(a, dir);
	json_t *np = json_object_get(root, "_name_or_path");
	m->hf_id = json_is_string(np) && json_string_length(np) ? sl_arena_strdup(a, json_string_value(np)) : path;
	m->source = file;
	m->st_max_seq_len = st_max_seq_len(a, dir);
	if (m->st_max_seq_len || m->arch.enc_only)
		m->task = SL_TASK_BI_ENCODER;
	else
		m->task = m->arch.kind == SL_ARCH_ENCODER ? SL_TASK_SEQ_CLS
			  : m->arch.kind == SL_ARCH_DECODER ? SL_TASK_CAUSAL_LM
							    : SL_TASK_SEQ2SEQ;
	return m;
}
