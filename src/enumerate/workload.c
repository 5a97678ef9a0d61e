/*
 * workload: the `mode` of a sweep (train, eval, generate) when no key states
 * it, inferred from the keys it writes — a learning rate, an optimizer,
 * epochs or steps mean training; generation keys (num_beams, max_new_tokens,
 * temperature, ...) without any of those mean generation; do_eval/do_predict
 * alone mean evaluation. The patterns are rules/workload.yaml, parsed and
 * compiled at build time (gen_catalog: the snapshot's serialised codes); a run
 * decodes them, and parses the embedded file only when this PCRE2 cannot.
 */
#include "enumerate_internal.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include "../snapshot/snapshot.h"
#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/diag.h"
#include "sweeplint/eval.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

enum { W_TRAIN, W_GENERATE, W_EVAL, W__COUNT };
static const char *const list_names[W__COUNT] = {"train", "generate", "eval"};
_Static_assert(W__COUNT == SL_WORKLOAD_LISTS, "snapshot.h counts the lists");

struct sl_workload {
	pcre2_code **codes[W__COUNT];
	size_t n[W__COUNT];
	pcre2_match_data *md;
};

static void free_code(void *p)
{
	pcre2_code_free(p);
}

static void free_md(void *p)
{
	pcre2_match_data_free(p);
}

static void match_data(struct sl_arena *a, struct sl_workload *w)
{
	w->md = pcre2_match_data_create(4, NULL);
	if (!w->md)
		sl_oom();
	sl_arena_defer(a, free_md, w->md);
}

struct sl_workload *sl_workload_parse(struct sl_arena *a, struct sl_source *src, struct sl_diags *diags)
{
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, NULL, diags);
	if (!doc->ok || !doc->root || doc->root->kind != SL_NODE_MAP)
		return NULL;
	struct sl_workload *w = sl_arena_alloc(a, sizeof *w);
	for (int k = 0; k < W__COUNT; k++) {
		const struct sl_node *seq = sl_map_get(doc->root, list_names[k]);
		if (!seq || seq->kind != SL_NODE_SEQ) {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src, doc->root->span,
				     "rules/workload.yaml has no '%s' list of patterns", list_names[k]);
			return NULL;
		}
		w->codes[k] = sl_arena_array(a, seq->n ? seq->n : 1, sizeof *w->codes[k]);
		for (size_t i = 0; i < seq->n; i++) {
			const struct sl_node *it = seq->items[i];
			int err;
			PCRE2_SIZE off;
			pcre2_code *code = it->kind == SL_NODE_SCALAR
						   ? pcre2_compile((PCRE2_SPTR)it->text, PCRE2_ZERO_TERMINATED,
								   PCRE2_UTF | PCRE2_CASELESS, &err, &off, NULL)
						   : NULL;
			if (!code) {
				sl_diags_add(diags, "config", SL_SEV_ERROR, src, it->span,
					     "rules/workload.yaml: not a PCRE2 pattern");
				return NULL;
			}
			sl_arena_defer(a, free_code, code);
			w->codes[k][w->n[k]++] = code;
		}
	}
	match_data(a, w);
	return w;
}

size_t sl_workload_codes(const struct sl_workload *w, int list, void *const **codes)
{
	*codes = (void *const *)w->codes[list];
	return w->n[list];
}

#ifndef SL_SNAPSHOT_GENERATOR
struct sl_workload *sl_workload_new(struct sl_arena *a, struct sl_diags *diags)
{
	const struct sl_snapshot *s = &sl_snapshot;
	size_t total = 0;
	for (int k = 0; k < W__COUNT; k++)
		total += s->workload_n[k];
	void **codes = sl_arena_array(a, total ? total : 1, sizeof *codes);
	if (sl_snapshot_decode(a, s->workload_codes, s->workload_codes_len, total, codes)) {
		struct sl_workload *w = sl_arena_alloc(a, sizeof *w);
		size_t at = 0;
		for (int k = 0; k < W__COUNT; k++) {
			w->codes[k] = (pcre2_code **)codes + at;
			w->n[k] = s->workload_n[k];
			at += s->workload_n[k];
		}
		match_data(a, w);
		return w;
	}
	/* another PCRE2 at run time: the embedded file, compiled here */
	const struct sl_blob *b = sl_data_get("workload.yaml");
	return b ? sl_workload_parse(a, sl_source_from_bytes(a, "rules/workload.yaml", b->bytes, b->len), diags) : NULL;
}
#endif

/* The list key matches (W_*), or -1; leading dashes and ^ are not part of the name. */
static int classify(const struct sl_workload *w, const char *key)
{
	while (*key == '-' || *key == '^')
		key++;
	for (int k = 0; k < W__COUNT; k++)
		for (size_t i = 0; i < w->n[k]; i++)
			if (pcre2_match(w->codes[k][i], (PCRE2_SPTR)key, strlen(key), 0, 0, w->md, NULL) >= 0)
				return k;
	return -1;
}

/* The option name of a bare command item such as "--do_predict" (NULL when it is not one). */
static const char *flag_name(struct sl_arena *a, const struct sl_cmd_item *c)
{
	if (c->kind == SL_CMD_OPTION)
		return c->key;
	if (c->kind != SL_CMD_LITERAL || !c->node || c->node->kind != SL_NODE_SCALAR || c->node->text[0] != '-')
		return NULL;
	const char *t = c->node->text;
	const char *eq = strchr(t, '=');
	return eq ? sl_arena_strndup(a, t, (size_t)(eq - t)) : t;
}

enum sl_mode sl_workload_infer(struct sl_arena *a, const struct sl_workload *w, const struct sl_eval *ev,
			       const char **why)
{
	const char *first[W__COUNT] = {0};
	if (w) {
		for (size_t i = 0; i < ev->nnotes; i++) {
			int k = classify(w, ev->notes[i].key);
			if (k >= 0 && !first[k])
				first[k] = ev->notes[i].key;
		}
		const struct sl_sweep *sw = ev->sweep;
		for (size_t i = 0; sw && i < sw->ncmd; i++) {
			const char *f = flag_name(a, &sw->cmd[i]);
			int k = f ? classify(w, f) : -1;
			if (k >= 0 && !first[k])
				first[k] = f;
		}
	}
	if (first[W_TRAIN]) {
		*why = sl_arena_printf(a, "train (%s trains)", first[W_TRAIN]);
		return SL_MODE_TRAIN;
	}
	if (first[W_GENERATE]) {
		*why = sl_arena_printf(a, "generate (%s is a generation key and no key trains: no learning rate, "
				       "optimizer, epochs, steps or warmup)", first[W_GENERATE]);
		return SL_MODE_GENERATE;
	}
	if (first[W_EVAL]) {
		*why = sl_arena_printf(a, "eval (%s, and no key trains or generates)", first[W_EVAL]);
		return SL_MODE_EVAL;
	}
	*why = "train (assumed: no key says what the sweep runs)";
	return SL_MODE_TRAIN;
}
