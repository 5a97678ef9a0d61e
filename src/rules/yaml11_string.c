/*
 * yaml11-string: a plain scalar a person reads as a number (1e-5, 5E-3,
 * 1,000) that PyYAML types as a string, anywhere under `parameters:`. W&B
 * hands the run the string. Nodes the schema rule already reports are left
 * to it.
 */
#include <string.h>

#include "checks.h"
#include "sweeplint/arena.h"
#include "sweeplint/scalar.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

static bool reported_by_schema(const struct sl_sweep *s, const struct sl_node *n)
{
	for (size_t i = 0; i < s->nproblems; i++)
		if (s->problems[i].at == n)
			return true;
	return false;
}

static void visit(struct sl_check *cx, const struct sl_node *n, bool is_key)
{
	if (n->kind == SL_NODE_SCALAR) {
		if (is_key || n->style != SL_STYLE_PLAIN || n->value.type != SL_V_STR || !n->value.looks_numeric ||
		    reported_by_schema(cx->sweep, n))
			return;
		char sp[128];
		bool have = sl_scalar_numeric_spelling(n->text, n->text_len, sp, sizeof sp);
		struct sl_diag *d = sl_check_emit(cx, n,
						  "'%s' is a string to PyYAML (YAML 1.1), not a number: W&B passes the "
						  "run the string '%s'%s%s",
						  n->text, n->text, have ? "; write " : "", have ? sp : "");
		if (have && strchr(sp, '.'))
			d->hint = sl_arena_printf(cx->arena, "or tag it: !!float %s", n->text);
		return;
	}
	/* walk each node once, through the collection that holds it (aliases are shared) */
	if (n->kind == SL_NODE_SEQ) {
		for (size_t i = 0; i < n->n; i++)
			if (n->items[i]->parent == n)
				visit(cx, n->items[i], false);
	} else {
		for (size_t i = 0; i < n->n; i++) {
			if (n->pairs[i].key->parent == n)
				visit(cx, n->pairs[i].key, true);
			if (n->pairs[i].value->parent == n)
				visit(cx, n->pairs[i].value, false);
		}
	}
}

int sl_check_yaml11_string(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep || !s->parameters)
		return 0;
	visit(cx, s->parameters, false);
	return 0;
}
