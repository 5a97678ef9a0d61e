/*
 * config_json: Hugging Face config.json → struct sl_arch. The key table and
 * the mapping (hfconfig.h) serve rules/models.yaml too; the jansson reader
 * of local checkpoints (a directory or a config.json path) is here. Problems
 * are diagnostics under rule "unknown-model": the model cannot be estimated.
 */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hfconfig.h"
#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/source.h"

#define RULE "unknown-model"
#define CONFIG_MAX_BYTES (16u << 20)

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
	return "bert, roberta, xlm-roberta, electra, t5, mt5, bart, mbart, llama, mistral, qwen2, gemma, gpt2, "
	       "gpt_neox";
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
		return (struct spelling){"d_model", "num_layers", "num_heads", "d_ff"};
	case SL_FAMILY_BART:
	case SL_FAMILY_MBART:
		return (struct spelling){"d_model", "encoder_layers", "encoder_attention_heads", "encoder_ffn_dim"};
	case SL_FAMILY_GPT2:
		return (struct spelling){"n_embd", "n_layer", "n_head", "n_inner"};
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

const char *hf_config_to_arch(enum sl_family f, const struct hf_config *c, struct sl_arch *a)
{
	struct spelling sp = spelling_of(f);
	sl_arch_init(a, f);

	if (!c->vocab_size)
		return "vocab_size";
	a->vocab = *c->vocab_size;

	const uint32_t *v = first(c->hidden_size, c->d_model, c->n_embd, NULL);
	if (!v)
		return sp.hidden;
	a->hidden = *v;

	v = first(c->num_hidden_layers, c->num_layers, c->n_layer, c->encoder_layers);
	if (!v)
		return sp.layers;
	a->layers = *v;

	v = first(c->num_attention_heads, c->num_heads, c->n_head, c->encoder_attention_heads);
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
	else if (f == SL_FAMILY_T5 || f == SL_FAMILY_MT5)
		a->head_dim = 64; /* T5Config default d_kv */
	else
		a->head_dim = a->heads ? a->hidden / a->heads : 0;

	v = first(c->intermediate_size, c->d_ff, c->n_inner, c->encoder_ffn_dim);
	if (v)
		a->intermediate = *v;
	else if (f == SL_FAMILY_GPT2)
		a->intermediate = 4 * a->hidden; /* n_inner null: 4 × n_embd */
	else
		return sp.ffn;

	v = first(c->max_position_embeddings, c->n_positions, NULL, NULL);
	if (v)
		a->max_pos = *v;
	else if (f == SL_FAMILY_GPT2 || f == SL_FAMILY_BART || f == SL_FAMILY_MBART)
		a->max_pos = 1024; /* GPT2Config / BartConfig defaults */
	else if (a->kind == SL_ARCH_ENCODER)
		return "max_position_embeddings"; /* learned positions: the table size counts */

	if (c->type_vocab_size && a->kind == SL_ARCH_ENCODER)
		a->type_vocab = *c->type_vocab_size;
	if (c->relative_attention_num_buckets && (f == SL_FAMILY_T5 || f == SL_FAMILY_MT5))
		a->rel_buckets = *c->relative_attention_num_buckets;
	if (c->feed_forward_proj && (f == SL_FAMILY_T5 || f == SL_FAMILY_MT5))
		a->gated_ffn = strncmp(c->feed_forward_proj, "gated-", 6) == 0;
	if (c->tie_word_embeddings)
		a->tied = *c->tie_word_embeddings;
	if (c->scale_embedding)
		a->scale_emb = *c->scale_embedding;
	if (c->embedding_size && f == SL_FAMILY_ELECTRA && *c->embedding_size != a->hidden)
		a->emb_dim = *c->embedding_size;
	return NULL;
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
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
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
	struct sl_source *src = sl_source_read(a, file, CONFIG_MAX_BYTES, &err);
	if (!src) {
		struct sl_source *none = sl_source_from_bytes(a, file, "", 0);
		sl_diags_add(diags, RULE, SL_SEV_ERROR, none, sl_source_span(none, 0, 0), "cannot read '%s': %s",
			     file, strerror(err));
		return NULL;
	}

	json_error_t jerr;
	json_t *root = json_loadb(src->bytes, src->len, 0, &jerr);
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

	struct hf_config cfg = {0};
	size_t nkeys;
	const struct hf_key *k = hf_keys(&nkeys);
	for (size_t i = 0; i < nkeys; i++) {
		json_t *v = json_object_get(root, k[i].name);
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
		case HF_STR:
			ok = json_is_string(v);
			if (ok)
				*(const char **)slot = sl_arena_strdup(a, json_string_value(v));
			break;
		}
		if (!ok) {
			sl_diags_add(diags, RULE, SL_SEV_ERROR, src, key_span(src, k[i].name), "'%s' must be %s",
				     k[i].name,
				     k[i].kind == HF_UINT ? "a non-negative integer"
				     : k[i].kind == HF_BOOL ? "true or false"
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
	if (m->st_max_seq_len)
		m->task = SL_TASK_BI_ENCODER;
	else
		m->task = m->arch.kind == SL_ARCH_ENCODER ? SL_TASK_SEQ_CLS
			  : m->arch.kind == SL_ARCH_DECODER ? SL_TASK_CAUSAL_LM
							    : SL_TASK_SEQ2SEQ;
	return m;
}
