/*
 * edit_driver: the C half of the edit property test (run by edit_corpus.py).
 *
 *   edit_driver cases OUTDIR FILE...
 *     For each FILE that parses: check that an empty edit set reproduces it
 *     byte for byte; then for every sequence of two or more items that is the
 *     value of a "values" key, and every item i (in lists past 24 items: the
 *     first, middle, last and every n/16th), write OUTDIR/<n>.yaml with
 *     item i removed ("drop") and OUTDIR/<n+1>.yaml with only item i kept
 *     ("keep"). One JSON object per case on stdout says what was done and
 *     where (file, path of keys and indices, item and sequence lines); the
 *     script judges the results with PyYAML and the W&B schema.
 *   edit_driver all OUTDIR FILE...
 *     The same for every sequence of two or more items, and also removes
 *     each pair of every mapping of two or more pairs ("pair"). Layouts the
 *     editor refuses (-SL_ELIMIT) are reported with their rc, not failed.
 *   edit_driver drop FILE INDEX PATH...
 *     Print FILE with item INDEX of the sequence at PATH (keys; integer
 *     segments index sequences) removed; for trying cases by hand.
 *
 * Exit status: 0, or 1 when an edit failed or the no-op check did not hold.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/edit.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

struct walk {
	struct sl_arena *a;
	const char *file;
	const char *outdir;
	struct sl_source *src;
	const struct sl_scalar_resolver *r;
	const struct sl_node **seen; /* sequences already done (aliases share nodes) */
	size_t nseen, capseen;
	int failures;
	unsigned long ncase;
	bool all;        /* every sequence and every mapping pair, not only values: lists */
};

static int write_file(const char *path, const char *bytes, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(bytes, 1, len, f);
	return fclose(f) == 0 && w == len ? 0 : -1;
}

static void emit_case(struct walk *w, const char *op, json_t *path, const struct sl_node *c, size_t i,
		      const bool *drop)
{
	struct sl_edits e;
	sl_edits_init(&e, w->a, w->src);
	int rc = c->kind == SL_NODE_SEQ ? sl_edits_remove_items(&e, c, drop) : sl_edits_remove_pair(&e, c, i);
	struct sl_buf out;
	if (rc == 0)
		rc = sl_edits_apply(&e, &out);
	unsigned long id = w->ncase++;
	/* the entry's lines: an item's span, or a pair's key line through its value's last line */
	struct sl_span sp = c->kind == SL_NODE_SEQ ? c->items[i]->span : c->pairs[i].key->span;
	uint32_t end_line = sp.end_line;
	if (c->kind == SL_NODE_MAP && c->pairs[i].value->span.start >= sp.end)
		end_line = c->pairs[i].value->span.end_line;
	json_t *o = json_pack("{s:s, s:s, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:i}", "file", w->file, "op", op,
			      "id", (json_int_t)id, "path", json_deep_copy(path), "index", (json_int_t)i, "n",
			      (json_int_t)c->n, "item_line", (json_int_t)sp.line, "item_end_line",
			      (json_int_t)end_line, "seq_line", (json_int_t)c->span.line,
			      "seq_end_line", (json_int_t)c->span.end_line, "style",
			      c->style == SL_STYLE_FLOW ? "flow" : "block", "rc", rc);
	json_object_set_new(o, "item_col", json_integer((json_int_t)sp.col));
	if (c->kind == SL_NODE_MAP)
		json_object_set_new(o, "key", json_stringn(c->pairs[i].key->text, c->pairs[i].key->text_len));
	if (rc == 0) {
		char *name = sl_arena_printf(w->a, "%s/%lu.yaml", w->outdir, id);
		if (write_file(name, out.buf, out.len) < 0) {
			fprintf(stderr, "edit_driver: cannot write '%s': %s\n", name, strerror(errno));
			w->failures++;
		}
		json_object_set_new(o, "out", json_string(name));
	} else if (!(w->all && (rc == -SL_ELIMIT || rc == -SL_EUSAGE))) {
		w->failures++; /* --all: a refused layout is reported, the script counts it */
	}
	char *line = json_dumps(o, JSON_COMPACT);
	printf("%s\n", line);
	free(line);
	json_decref(o);
}

static bool seen(struct walk *w, const struct sl_node *n)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i] == n)
			return true;
	if (w->nseen == w->capseen) {
		size_t cap = w->capseen ? w->capseen * 2 : 16;
		w->seen = sl_arena_grow(w->a, w->seen, w->nseen, cap, sizeof *w->seen);
		w->capseen = cap;
	}
	w->seen[w->nseen++] = n;
	return false;
}

static void walk(struct walk *w, const struct sl_node *n, json_t *path, bool under_values, int depth)
{
	if (depth > 64)
		return;
	if (n->kind == SL_NODE_SEQ) {
		if ((under_values || w->all) && n->n >= 2 && !seen(w, n)) {
			for (size_t i = 0; i < n->n; i++) {
				/* long lists (one has 411 items): first, middle, last and every n/16th */
				if (n->n > 24 && i != 0 && i != n->n - 1 && i != n->n / 2 && i % (n->n / 16) != 0)
					continue;
				bool *d = sl_arena_array(w->a, n->n, sizeof *d);
				d[i] = true;
				emit_case(w, "drop", path, n, i, d);
				bool *k = sl_arena_array(w->a, n->n, sizeof *k);
				for (size_t j = 0; j < n->n; j++)
					k[j] = j != i;
				emit_case(w, "keep", path, n, i, k);
			}
		}
		for (size_t i = 0; i < n->n; i++) {
			json_array_append_new(path, json_integer((json_int_t)i));
			walk(w, n->items[i], path, false, depth + 1);
			json_array_remove(path, json_array_size(path) - 1);
		}
	} else if (n->kind == SL_NODE_MAP) {
		for (size_t i = 0; i < n->n; i++) {
			const struct sl_node *k = n->pairs[i].key;
			if (k->kind != SL_NODE_SCALAR || (k->style == SL_STYLE_PLAIN && strcmp(k->text, "<<") == 0))
				continue;
			/* a key that appears again later is overridden: PyYAML keeps the last */
			if (sl_map_get(n, k->text) != n->pairs[i].value)
				continue;
			if (w->all && n->n >= 2 && !seen(w, n->pairs[i].key))
				emit_case(w, "pair", path, n, i, NULL);
			json_array_append_new(path, json_stringn(k->text, k->text_len));
			walk(w, n->pairs[i].value, path, strcmp(k->text, "values") == 0, depth + 1);
			json_array_remove(path, json_array_size(path) - 1);
		}
	}
}

static struct sl_ydoc *load(struct sl_arena *a, const char *file, struct sl_source **src)
{
	int err = 0;
	*src = sl_source_read(a, file, 64u << 20, &err);
	if (!*src) {
		fprintf(stderr, "edit_driver: cannot read '%s': %s\n", file, strerror(err));
		return NULL;
	}
	struct sl_diags d;
	sl_diags_init(&d, a);
	struct sl_ydoc *doc = sl_ydoc_parse(a, *src, NULL, &d);
	return doc->ok && doc->root ? doc : NULL;
}

static int cmd_cases(int argc, char **argv, bool all)
{
	int failures = 0;
	unsigned long ncase = 0;
	for (int f = 3; f < argc; f++) {
		struct sl_arena *a = sl_arena_new();
		struct walk w = {.a = a, .file = argv[f], .outdir = argv[2], .ncase = ncase, .all = all};
		struct sl_ydoc *doc = load(a, argv[f], &w.src);
		if (doc) {
			struct sl_edits e;
			sl_edits_init(&e, a, w.src);
			struct sl_buf out;
			if (sl_edits_apply(&e, &out) != 0 || out.len != w.src->len ||
			    memcmp(out.buf, w.src->bytes, out.len) != 0) {
				fprintf(stderr, "edit_driver: %s: an empty edit set changed the text\n", argv[f]);
				w.failures++;
			}
			json_t *path = json_array();
			walk(&w, doc->root, path, false, 0);
			json_decref(path);
		}
		failures += w.failures;
		ncase = w.ncase;
		sl_arena_free(a);
	}
	return failures ? 1 : 0;
}

static int cmd_drop(int argc, char **argv)
{
	struct sl_arena *a = sl_arena_new();
	struct sl_source *src;
	struct sl_ydoc *doc = load(a, argv[2], &src);
	int rc = 1;
	if (doc) {
		const struct sl_node *n = doc->root;
		for (int i = 4; i < argc && n; i++) {
			char *end;
			long idx = strtol(argv[i], &end, 10);
			if (n->kind == SL_NODE_SEQ && *end == '\0' && idx >= 0 && (size_t)idx < n->n)
				n = n->items[idx];
			else
				n = sl_map_get(n, argv[i]);
		}
		struct sl_edits e;
		sl_edits_init(&e, a, src);
		struct sl_buf out;
		int erc = n ? sl_edits_remove_item(&e, n, strtoul(argv[3], NULL, 10)) : -SL_EUSAGE;
		if (erc == 0)
			erc = sl_edits_apply(&e, &out);
		if (erc == 0) {
			fwrite(out.buf, 1, out.len, stdout);
			rc = 0;
		} else {
			fprintf(stderr, "edit_driver: %s\n", sl_strerror(erc));
		}
	}
	sl_arena_free(a);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "cases") == 0)
		return cmd_cases(argc, argv, false);
	if (argc >= 3 && strcmp(argv[1], "all") == 0)
		return cmd_cases(argc, argv, true);
	if (argc >= 4 && strcmp(argv[1], "drop") == 0)
		return cmd_drop(argc, argv);
	fprintf(stderr, "usage: edit_driver cases|all OUTDIR FILE... | edit_driver drop FILE INDEX PATH...\n");
	return 2;
}
