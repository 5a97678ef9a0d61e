/*
 * construct: PyYAML's SafeConstructor run over a composed document for its errors only. safe_load
 * composes the whole document first and then builds it from the root; a node is built only where
 * the constructor reaches it, once (aliases share it), in the constructor's order: a collection's
 * first step (an empty list or dict) at once, its contents when its turn in a queue comes
 * (construct_document runs the queued generators in the order they were queued, those they queue
 * after them). What it reaches and how:
 *
 * - a mapping tagged map or set: flatten_mapping first — a merge key (implicit `<<` or `!!merge`)
 *   takes a mapping or a list of mappings, whatever their tags (they are never built themselves:
 *   their pairs are, in the merging mapping's order, merged pairs first, a list's last mapping first),
 *   and a value key (`=`, `!!value`) becomes a string — then each key (a list or mapping that builds
 *   as a list, dict or set cannot be a key: "found unhashable key") and each value;
 * - a list tagged seq: its items; tagged omap or pairs: each item must be a mapping of one pair,
 *   never built itself nor flattened: its key and value are (a merge or value key there has no
 *   constructor);
 * - a scalar tag on a mapping: construct_scalar follows its value keys to a scalar (the loader
 *   already replaced such a mapping by that scalar where it is built in place);
 * - anything else: "could not determine a constructor", or the scalar's own error (sl_node.cerr).
 *
 * The first error in that order is the one safe_load raises; its offset and message are returned.
 */
#include "construct.h"

#include <stdint.h>
#include <string.h>

#include "sweeplint/arena.h"

#define TAG "tag:yaml.org,2002:"

/* A set of node pointers (open addressing; grows at half full). */
struct nodeset {
	const struct sl_node **v;
	size_t cap, n;
};

static size_t slot(const struct nodeset *s, const struct sl_node *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u;
	size_t i = (size_t)(h >> 20) & (s->cap - 1);
	while (s->v[i] && s->v[i] != p)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static bool has(const struct nodeset *s, const struct sl_node *p)
{
	return s->cap && s->v[slot(s, p)] == p;
}

/* Add p; false when it was there. */
static bool add(struct sl_arena *a, struct nodeset *s, const struct sl_node *p)
{
	if (2 * (s->n + 1) > s->cap) {
		struct nodeset g = {sl_arena_array(a, s->cap ? 2 * s->cap : 64, sizeof *g.v), s->cap ? 2 * s->cap : 64, 0};
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				g.v[slot(&g, s->v[i])] = s->v[i], g.n++;
		*s = g;
	}
	size_t i = slot(s, p);
	if (s->v[i])
		return false;
	s->v[i] = p;
	s->n++;
	return true;
}

struct builder {
	struct sl_arena *a;
	const struct sl_scalar_resolver *res;
	struct nodeset built;    /* constructed_objects */
	struct nodeset retagged; /* value keys flatten_mapping made strings */
	const struct sl_node **queue;
	size_t head, n, cap;
	bool failed;
	size_t off;
	const char *msg;
};

static void fail(struct builder *B, size_t off, const char *msg)
{
	if (B->failed)
		return;
	B->failed = true;
	B->off = off;
	B->msg = msg;
}

static bool tag_is(const char *tag, const char *suffix)
{
	return tag && strncmp(tag, TAG, sizeof TAG - 1) == 0 && strcmp(tag + sizeof TAG - 1, suffix) == 0;
}

/* A collection's tag as the composer resolves it: none or "!" is map or seq. */
static const char *collection_tag(const struct sl_node *n)
{
	if (!n->tag || strcmp(n->tag, "!") == 0)
		return n->kind == SL_NODE_MAP ? TAG "map" : TAG "seq";
	return n->tag;
}

static bool scalar_tag(const char *tag)
{
	static const char *const tags[] = {"str", "int", "float", "bool", "null", "timestamp", "binary"};
	for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
		if (tag_is(tag, tags[i]))
			return true;
	return false;
}

bool sl_yaml_merge_key(const struct sl_node *k)
{
	return (k->kind == SL_NODE_SCALAR && k->value.merge) || tag_is(k->tag, "merge");
}

bool sl_yaml_value_key(const struct sl_node *k)
{
	if (tag_is(k->tag, "value"))
		return true;
	bool implicit = k->tag ? strcmp(k->tag, "!") == 0 : k->style == SL_STYLE_PLAIN;
	return k->kind == SL_NODE_SCALAR && implicit && k->text_len == 1 && k->text[0] == '=';
}

static void enqueue(struct builder *B, const struct sl_node *n)
{
	B->queue = sl_arena_reserve(B->a, B->queue, B->n, &B->cap, B->n + 1, sizeof *B->queue);
	B->queue[B->n++] = n;
}

static const char *no_constructor(struct builder *B, const char *tag)
{
	return sl_arena_printf(B->a, "syntax error: could not determine a constructor for the tag '%s' (PyYAML "
				     "refuses the file)",
			       tag);
}

/* construct_scalar on a collection tagged with a scalar tag: its value keys' values, to a scalar. */
static void construct_scalar(struct builder *B, const struct sl_node *n, const char *tag)
{
	if (tag_is(tag, "timestamp") && n->kind != SL_NODE_SCALAR) {
		/* construct_yaml_timestamp matches its regexp on node.value, a list here: a TypeError */
		fail(B, n->span.start,
		     sl_arena_printf(B->a, "syntax error: PyYAML cannot construct %s from a mapping", tag));
		return;
	}
	const struct sl_node *m = n;
	for (int hop = 0; m && m->kind == SL_NODE_MAP && hop < 64; hop++) {
		const struct sl_node *next = NULL;
		for (size_t i = 0; i < m->n && !next; i++)
			if (sl_yaml_value_key(m->pairs[i].key) && !has(&B->retagged, m->pairs[i].key))
				next = m->pairs[i].value;
		m = next;
	}
	if (!m || m->kind != SL_NODE_SCALAR) {
		fail(B, n->span.start,
		     sl_arena_printf(B->a, "syntax error: PyYAML cannot construct %s from %s", tag,
				     (m ? m : n)->kind == SL_NODE_SEQ ? "a list" : "a mapping"));
		return;
	}
	bool err = false;
	sl_scalar_resolve(B->res, m->text, m->text_len, false, tag, &err);
	if (err)
		fail(B, m->span.start, sl_arena_printf(B->a, "syntax error: cannot construct %s from '%s'", tag, m->text));
}

/* construct_object: a node's first step (the first time it is reached). */
static void construct(struct builder *B, const struct sl_node *n)
{
	if (B->failed || !add(B->a, &B->built, n))
		return;
	if (n->kind == SL_NODE_SCALAR && n->origin) {
		construct_scalar(B, n->origin, n->tag); /* `!!str {=: 1}`: its '=' keys as they are now */
		return;
	}
	if (n->kind == SL_NODE_SCALAR) {
		if (sl_yaml_value_key(n) && has(&B->retagged, n))
			return; /* a string now */
		if (n->cerr)
			fail(B, n->span.start, n->cerr);
		return;
	}
	const char *tag = collection_tag(n);
	if (tag_is(tag, "map") || tag_is(tag, "set") || tag_is(tag, "seq") || tag_is(tag, "omap") ||
	    tag_is(tag, "pairs"))
		enqueue(B, n);
	else if (scalar_tag(tag))
		construct_scalar(B, n, tag);
	else
		fail(B, n->span.start, no_constructor(B, tag));
}

/* Whether a key built from k is a list, dict or set (k built without error). */
static bool unhashable(const struct sl_node *k)
{
	return k->kind != SL_NODE_SCALAR && !scalar_tag(collection_tag(k));
}

struct pairs {
	const struct sl_pair **v;
	size_t n, cap;
};

static void push_pair(struct builder *B, struct pairs *p, const struct sl_pair *x)
{
	p->v = sl_arena_reserve(B->a, p->v, p->n, &p->cap, p->n + 1, sizeof *p->v);
	p->v[p->n++] = x;
}

/* flatten_mapping: m's pairs as construct_mapping meets them, merged pairs first. */
static void flatten(struct builder *B, const struct sl_node *m, struct pairs *out, int depth)
{
	struct pairs merge = {0}, own = {0};
	if (depth > SL_YDOC_MAX_MERGE_DEPTH) {
		/* PyYAML's recursion ends in a RecursionError well before this: a refusal */
		fail(B, m->span.start, "syntax error: merge keys nested too deep for PyYAML");
		return;
	}
	for (size_t i = 0; i < m->n && !B->failed; i++) {
		const struct sl_pair *p = &m->pairs[i];
		const struct sl_node *v = p->value;
		if (!sl_yaml_merge_key(p->key)) {
			if (sl_yaml_value_key(p->key))
				add(B->a, &B->retagged, p->key);
			push_pair(B, &own, p);
		} else if (v->kind == SL_NODE_MAP) {
			flatten(B, v, &merge, depth + 1);
		} else if (v->kind == SL_NODE_SEQ) {
			struct pairs *sub = sl_arena_array(B->a, v->n ? v->n : 1, sizeof *sub);
			for (size_t j = 0; j < v->n && !B->failed; j++) {
				if (v->items[j]->kind != SL_NODE_MAP)
					fail(B, v->items[j]->span.start,
					     "syntax error: expected a mapping for merging (a merge list holds mappings)");
				else
					flatten(B, v->items[j], &sub[j], depth + 1);
			}
			for (size_t j = v->n; j-- > 0 && !B->failed;)
				for (size_t k = 0; k < sub[j].n; k++)
					push_pair(B, &merge, sub[j].v[k]);
		} else {
			fail(B, v->span.start, "syntax error: expected a mapping or list of mappings for merging");
		}
	}
	for (size_t i = 0; i < merge.n; i++)
		push_pair(B, out, merge.v[i]);
	for (size_t i = 0; i < own.n; i++)
		push_pair(B, out, own.v[i]);
}

/* A queued generator: the collection's contents. */
static void run(struct builder *B, const struct sl_node *n)
{
	const char *tag = collection_tag(n);
	bool as_map = tag_is(tag, "map") || tag_is(tag, "set");
	if (n->kind != (as_map ? SL_NODE_MAP : SL_NODE_SEQ)) {
		fail(B, n->span.start,
		     sl_arena_printf(B->a, "syntax error: PyYAML cannot construct %s from %s", tag,
				     n->kind == SL_NODE_SEQ ? "a list" : "a mapping"));
		return;
	}
	if (as_map) {
		struct pairs all = {0};
		flatten(B, n, &all, 0);
		for (size_t i = 0; i < all.n && !B->failed; i++) {
			construct(B, all.v[i]->key);
			if (!B->failed && unhashable(all.v[i]->key))
				fail(B, all.v[i]->key->span.start,
				     "syntax error: found unhashable key (a list or mapping cannot be a key for PyYAML)");
			construct(B, all.v[i]->value);
		}
	} else if (tag_is(tag, "seq")) {
		for (size_t i = 0; i < n->n && !B->failed; i++)
			construct(B, n->items[i]);
	} else {
		/* omap, pairs: mappings of one pair, their key and value built, the mapping itself never */
		for (size_t i = 0; i < n->n && !B->failed; i++) {
			const struct sl_node *it = n->items[i];
			if (it->kind != SL_NODE_MAP || it->n != 1) {
				fail(B, it->span.start,
				     sl_arena_printf(B->a, "syntax error: PyYAML cannot construct %s from a list holding "
							   "%s (it takes mappings of one pair)",
						     tag, it->kind == SL_NODE_MAP ? "a mapping of several pairs" : "another item"));
				break;
			}
			construct(B, it->pairs[0].key);
			construct(B, it->pairs[0].value);
		}
	}
}

bool sl_yaml_construct(struct sl_arena *a, const struct sl_scalar_resolver *res, const struct sl_node *root,
		       size_t *off, const char **msg)
{
	struct builder B = {.a = a, .res = res};
	if (!root)
		return true;
	construct(&B, root);
	while (!B.failed && B.head < B.n)
		run(&B, B.queue[B.head++]);
	if (!B.failed)
		return true;
	*off = B.off;
	*msg = B.msg;
	return false;
}
