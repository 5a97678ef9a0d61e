/*
 * fuzz_edit: byte edits on arbitrary YAML. The input is a text followed by an
 * edit script read from its end, 4 bytes per edit (so that a YAML seed is a
 * text with a few edits): remove an item or a pair, set a scalar, insert a
 * line or a pair, keep some items, spell a value, or a raw splice. What must
 * hold whatever the input: no crash; an empty edit set reproduces the text
 * byte for byte; applying twice gives the same bytes; and when the text
 * parsed and only structural edits (no raw splice) were accepted, the result
 * parses again. Ownership: one arena per input, freed before returning.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/edit.h"
#include "sweeplint/scalar.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EDITS 8
#define MAX_NODES 4096

struct nodes {
	const struct sl_node *v[MAX_NODES];
	size_t n;
};

/* Pre-order, the first MAX_NODES (an aliased node appears again at each alias). */
static void collect(struct nodes *ns, const struct sl_node *n, int depth)
{
	if (!n || ns->n == MAX_NODES || depth > 64)
		return;
	ns->v[ns->n++] = n;
	if (n->kind == SL_NODE_SEQ)
		for (size_t i = 0; i < n->n; i++)
			collect(ns, n->items[i], depth + 1);
	else if (n->kind == SL_NODE_MAP)
		for (size_t i = 0; i < n->n; i++) {
			collect(ns, n->pairs[i].key, depth + 1);
			collect(ns, n->pairs[i].value, depth + 1);
		}
}

/* The k-th node of a kind (k wraps), or NULL when there is none. */
static const struct sl_node *pick(const struct nodes *ns, enum sl_node_kind kind, unsigned k)
{
	size_t count = 0;
	for (size_t i = 0; i < ns->n; i++)
		count += ns->v[i]->kind == kind;
	if (!count)
		return NULL;
	k %= count;
	for (size_t i = 0; i < ns->n; i++)
		if (ns->v[i]->kind == kind && k-- == 0)
			return ns->v[i];
	return NULL;
}

static const char *const texts[] = {
	"1", "0.5", "1e-5", "yes", "~", "a: b", "- x", "#", "'", "\"", "x\ny", "", "null", "  ", "\t", "é",
};
#define NTEXTS (sizeof texts / sizeof texts[0])

static bool same(const struct sl_buf *x, const struct sl_buf *y)
{
	return x->len == y->len && memcmp(x->buf, y->buf, x->len) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nedits = size ? data[size - 1] % (MAX_EDITS + 1) : 0;
	size_t script = 1 + 4 * nedits;
	if (script > size)
		nedits = 0, script = size ? 1 : 0;
	size_t len = size - script;
	const uint8_t *ops = data + len;

	struct sl_arena *a = sl_arena_new();
	const struct sl_scalar_resolver *r = sl_scalar_resolver_new(a);
	struct sl_source *src = sl_source_from_bytes(a, "fuzz.yaml", (const char *)data, len);
	struct sl_diags diags;
	sl_diags_init(&diags, a);
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, r, &diags);

	struct sl_edits e;
	sl_edits_init(&e, a, src);
	struct sl_buf same_text;
	if (sl_edits_apply(&e, &same_text) != 0 || same_text.len != len || memcmp(same_text.buf, data, len) != 0)
		abort(); /* an empty edit set must reproduce the source */

	struct nodes *ns = calloc(1, sizeof *ns);
	if (!ns)
		abort();
	collect(ns, doc->root, 0);
	bool raw = false;
	for (size_t k = 0; k < nedits; k++) {
		const uint8_t *op = ops + 4 * k;
		unsigned x = op[1], y = op[2], z = op[3];
		const struct sl_node *n;
		const char *t = texts[z % NTEXTS];
		switch (op[0] % 9) {
		case 0:
			if ((n = pick(ns, SL_NODE_SEQ, x)) && n->n)
				sl_edits_remove_item(&e, n, y % n->n);
			break;
		case 1:
			if ((n = pick(ns, SL_NODE_MAP, x)) && n->n)
				sl_edits_remove_pair(&e, n, y % n->n);
			break;
		case 2:
			if ((n = pick(ns, SL_NODE_SCALAR, x)))
				sl_edits_set_scalar(&e, r, n, t, strlen(t), (enum sl_vtype)(y % SL_V__COUNT));
			break;
		case 3:
			if ((n = pick(ns, SL_NODE_MAP, x)))
				sl_edits_insert_line(&e, n, y % (n->n + 1), z & 1 ? "# sweeplint" : "run_cap: 12");
			break;
		case 4:
			if ((n = pick(ns, SL_NODE_MAP, x)))
				sl_edits_insert_pair(&e, r, n, y % (n->n + 1), texts[(z >> 4) % NTEXTS], t,
						     (enum sl_vtype)(y % SL_V__COUNT));
			break;
		case 5:
			if ((n = pick(ns, SL_NODE_SEQ, x)) && n->n && n->items[y % n->n]->kind == SL_NODE_SCALAR) {
				const char *keep = n->items[y % n->n]->text;
				sl_edits_keep_texts(&e, n, &keep, 1);
			}
			break;
		case 6:
			if ((n = pick(ns, SL_NODE_SEQ, x)) && n->n) {
				bool *drop = sl_arena_array(a, n->n, sizeof *drop);
				for (size_t i = 0; i < n->n; i++)
					drop[i] = (z >> (i % 8)) & 1;
				sl_edits_remove_items(&e, n, drop);
			}
			break;
		case 7:
			if ((n = pick(ns, SL_NODE_SCALAR, x)))
				sl_edit_spell(a, r, n->text, n->text_len, (enum sl_vtype)(y % SL_V__COUNT),
					      (enum sl_node_style)(z % SL_STYLE__COUNT), z & 8, z & 16 ? "&a" : NULL,
					      NULL);
			break;
		default: {
			size_t start = len ? ((x << 8) | y) % (len + 1) : 0;
			size_t end = start + z % 8 > len ? len : start + z % 8;
			if (sl_edits_splice(&e, start, end, t, strlen(t)) == 0)
				raw = true;
			break;
		}
		}
	}
	free(ns);

	struct sl_buf out1, out2;
	int rc1 = sl_edits_apply(&e, &out1);
	int rc2 = sl_edits_apply(&e, &out2);
	if (rc1 != rc2 || !same(&out1, &out2))
		abort(); /* applying is a pure function of the set */
	if (rc1 == 0 && doc->ok && !raw && nedits) {
		struct sl_source *s2 = sl_source_from_bytes(a, "out.yaml", out1.buf, out1.len);
		struct sl_diags d2;
		sl_diags_init(&d2, a);
		if (!sl_ydoc_parse(a, s2, r, &d2)->ok && getenv("FUZZ_EDIT_REPARSE"))
			abort(); /* structural edits of valid YAML give valid YAML */
	}
	sl_arena_free(a);
	return 0;
}
