/* duplicate-value: the same value twice in a parameter's values (compared as PyYAML loads them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "sweeplint/arena.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

/*
 * A hash that equal values share (sl_node_equal): numbers by their value as a
 * double (1 == 1.0; a big integer's double is shared by its neighbours, which
 * sl_node_equal then tells apart), other scalars by type and text, lists by
 * their items in order, mappings by their pairs in any order; a NaN by its
 * node, as it equals only itself. Collections are hashed through at most
 * HASH_BUDGET nodes (aliases may repeat a subtree many times over); past it
 * a collection hashes by kind and length only, which stays correct (equal
 * values still share it) and only costs comparisons. Only items of one hash
 * are compared, so a list of 50,000 values, or of 45,000 one-item lists,
 * costs O(n log n), not O(n^2).
 */
#define HASH_BUDGET 256

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211u;
	return h;
}

static uint64_t value_hash(const struct sl_node *x, size_t *budget)
{
	uint64_t h = mix(1469598103934665603u, &x->kind, sizeof x->kind);
	if (x->kind != SL_NODE_SCALAR) {
		if (x->kind == SL_NODE_SEQ)
			h = mix(h, &x->n, sizeof x->n); /* a mapping's length counts repeated keys: not in its hash */
		if (*budget < x->n + 1)
			return h;
		*budget -= x->n + 1;
		uint64_t sum = 0;
		for (size_t i = 0; i < x->n; i++) {
			if (x->kind == SL_NODE_SEQ) {
				uint64_t hi = value_hash(x->items[i], budget);
				h = mix(h, &hi, sizeof hi);
				continue;
			}
			/* a mapping: merge keys and repeated keys change which pairs count; stay coarse */
			const struct sl_node *k = x->pairs[i].key;
			if (k->kind != SL_NODE_SCALAR || k->value.merge)
				return mix(1469598103934665603u, &x->kind, sizeof x->kind);
			if (sl_map_pair(x, k->text) != &x->pairs[i])
				continue; /* a repeated key: only the last counts */
			uint64_t hk = value_hash(k, budget);
			sum += hk * 31 + value_hash(sl_map_get(x, k->text), budget);
		}
		return x->kind == SL_NODE_MAP ? mix(mix(1469598103934665603u, &x->kind, sizeof x->kind), &sum, sizeof sum)
					      : h;
	}
	const struct sl_value *v = &x->value;
	if (v->type == SL_V_INT || v->type == SL_V_FLOAT) {
		double f = v->type == SL_V_INT && !v->big ? (double)v->i : v->f;
		if (f == 0)
			f = 0; /* -0.0 == 0.0 */
		if (isnan(f)) /* equal to nothing but itself (an alias of it) */
			return mix(h, &x, sizeof x);
		return mix(h, &f, sizeof f);
	}
	h = mix(h, &v->type, sizeof v->type);
	if (v->type == SL_V_NULL)
		return h;
	if (v->type == SL_V_BOOL)
		return mix(h, &v->b, sizeof v->b);
	return mix(h, x->text, x->text_len);
}

struct item {
	uint64_t hash;
	size_t index;
};

static int by_hash(const void *p, const void *q)
{
	const struct item *a = p, *b = q;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

int sl_check_duplicate_value(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep)
		return 0;
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_node *v = s->params[i].values;
		if (!v || v->kind != SL_NODE_SEQ || v->n < 2)
			continue;
		struct item *items = sl_arena_array(cx->arena, v->n, sizeof *items);
		size_t *first = sl_arena_array(cx->arena, v->n, sizeof *first); /* index + 1 of the first equal one, 0: none */
		for (size_t j = 0; j < v->n; j++) {
			size_t budget = HASH_BUDGET;
			items[j] = (struct item){value_hash(v->items[j], &budget), j};
		}
		qsort(items, v->n, sizeof *items, by_hash);
		for (size_t from = 0, to; from < v->n; from = to) {
			for (to = from + 1; to < v->n && items[to].hash == items[from].hash; to++)
				;
			/* within one hash, in list order: each item against the earlier ones */
			for (size_t j = from + 1; j < to; j++)
				for (size_t k = from; k < j; k++)
					if (sl_node_equal(v->items[items[j].index], v->items[items[k].index])) {
						first[items[j].index] = items[k].index + 1;
						break;
					}
		}
		for (size_t j = 0; j < v->n; j++) {
			if (!first[j])
				continue;
			const struct sl_node *x = v->items[j];
			sl_check_emit(cx, x, "value %s of '%s' repeats the one on line %u: the sweep runs it twice",
				      x->kind == SL_NODE_SCALAR ? x->text : sl_node_describe(x), s->params[i].path,
				      (unsigned)v->items[first[j] - 1]->span.line);
		}
	}
	return 0;
}
