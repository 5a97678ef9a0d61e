/*
 * ydump: what sweeplint's loader makes of many YAML texts, for the differential test against PyYAML
 * (tests/yaml/ydiff.py). stdin holds records "<length>\n<bytes>"; for each, one JSON line on stdout:
 *   {"ok": false, "line": L, "col": C, "msg": "..."}   the first syntax finding (a sweep's acceptance:
 *                                                       sl_ydoc_parse and sl_ydoc_refuse_tabs, as check)
 *   {"ok": true, "v": VALUE}                             the document as sweeplint reads it
 * VALUE mirrors what PyYAML's safe_load builds: null, booleans, integers ({"bigint": approx} past 64
 * bits), floats ({"float": "inf"|"-inf"|"nan"} when not finite), strings, {"ts": true} for timestamps,
 * {"bin": true} for binary, lists, {"set": [keys]} for !!set (its keys as for a mapping), [[key, value], ...] for !!omap and
 * !!pairs, and {"map": [[key, value], ...]} for mappings as sl_map_get reads them (merge keys "<<"
 * flattened, the last duplicate winning): every key text the mapping or its merges hold, once.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

/* Past BIG nodes dumped (ydiff.py's bound), a document's value is {"big": true}. */
#define BIG 100000
static json_t *dump(const struct sl_node *n, int depth, long *count);

static json_t *scalar(const struct sl_node *n)
{
	const struct sl_value *v = &n->value;
	switch (v->type) {
	case SL_V_NULL:
		return json_null();
	case SL_V_BOOL:
		return json_boolean(v->b);
	case SL_V_INT:
		if (v->big)
			return json_pack("{s:f}", "bigint", v->f);
		return json_integer((json_int_t)v->i);
	case SL_V_FLOAT:
		if (isnan(v->f))
			return json_pack("{s:s}", "float", "nan");
		if (isinf(v->f))
			return json_pack("{s:s}", "float", v->f > 0 ? "inf" : "-inf");
		return json_real(v->f);
	case SL_V_TIMESTAMP:
		return json_pack("{s:b}", "ts", 1);
	case SL_V_BINARY:
		return json_pack("{s:b}", "bin", 1);
	default:
		return json_stringn(n->text, n->text_len);
	}
}

/* The key texts of map and of what it merges, each once, in first-seen order. */
static void collect_keys(const struct sl_node *map, json_t *seen, json_t *order, int depth)
{
	if (!map || map->kind != SL_NODE_MAP || depth > 32)
		return;
	for (size_t i = 0; i < map->n; i++) {
		const struct sl_node *k = map->pairs[i].key, *v = map->pairs[i].value;
		if (k->kind != SL_NODE_SCALAR)
			continue;
		if (k->value.merge) {
			if (v->kind == SL_NODE_MAP)
				collect_keys(v, seen, order, depth + 1);
			for (size_t j = 0; v->kind == SL_NODE_SEQ && j < v->n; j++)
				collect_keys(v->items[j], seen, order, depth + 1);
			continue;
		}
		if (strlen(k->text) != k->text_len || json_object_get(seen, k->text))
			continue;
		json_object_set_new(seen, k->text, json_true());
		json_array_append_new(order, json_stringn(k->text, k->text_len));
	}
}

/* The key node sl_map_get's value belongs to (for the key's type). */
static const struct sl_node *key_node(const struct sl_node *map, const struct sl_node *value, const char *text,
				      int depth)
{
	if (!map || map->kind != SL_NODE_MAP || depth > 32)
		return NULL;
	for (size_t i = map->n; i-- > 0;) {
		const struct sl_pair *p = &map->pairs[i];
		if (p->key->kind == SL_NODE_SCALAR && !p->key->value.merge && p->value == value &&
		    strcmp(p->key->text, text) == 0)
			return p->key;
	}
	for (size_t i = map->n; i-- > 0;) {
		const struct sl_pair *p = &map->pairs[i];
		if (p->key->kind != SL_NODE_SCALAR || !p->key->value.merge)
			continue;
		const struct sl_node *k = key_node(p->value, value, text, depth + 1);
		for (size_t j = 0; !k && p->value->kind == SL_NODE_SEQ && j < p->value->n; j++)
			k = key_node(p->value->items[j], value, text, depth + 1);
		if (k)
			return k;
	}
	return NULL;
}

static json_t *mapping(const struct sl_node *n, int depth, long *count)
{
	/* a set's members: its keys as sl_map_get reads them (merges flattened, one of each text) */
	bool set = n->tag && strcmp(n->tag, "tag:yaml.org,2002:set") == 0;
	json_t *seen = json_object(), *order = json_array(), *pairs = json_array();
	collect_keys(n, seen, order, 0);
	size_t i;
	json_t *k;
	json_array_foreach(order, i, k) {
		const char *text = json_string_value(k);
		const struct sl_node *v = sl_map_get(n, text);
		const struct sl_node *kn = key_node(n, v, text, 0);
		json_t *key = kn ? dump(kn, depth + 1, count) : json_incref(k);
		json_array_append_new(pairs, set ? key : json_pack("[oo]", key, dump(v, depth + 1, count)));
	}
	json_decref(seen);
	json_decref(order);
	return json_pack("{s:o}", set ? "set" : "map", pairs);
}

static json_t *dump(const struct sl_node *n, int depth, long *count)
{
	if (!n)
		return json_pack("{s:b}", "missing", 1);
	if (++*count > BIG)
		return json_null();
	if (depth > 600)
		return json_pack("{s:b}", "deep", 1);
	switch (n->kind) {
	case SL_NODE_SCALAR:
		return scalar(n);
	case SL_NODE_MAP:
		return mapping(n, depth, count);
	default:
		break;
	}
	bool pairs = n->tag && (strcmp(n->tag, "tag:yaml.org,2002:omap") == 0 ||
				strcmp(n->tag, "tag:yaml.org,2002:pairs") == 0);
	json_t *a = json_array();
	for (size_t i = 0; i < n->n; i++) {
		const struct sl_node *it = n->items[i];
		if (pairs && it->kind == SL_NODE_MAP && it->n == 1)
			json_array_append_new(a, json_pack("[oo]", dump(it->pairs[0].key, depth + 1, count),
							   dump(it->pairs[0].value, depth + 1, count)));
		else
			json_array_append_new(a, dump(it, depth + 1, count));
	}
	return a;
}

static void one(const char *bytes, size_t len)
{
	struct sl_arena *a = sl_arena_new();
	struct sl_diags diags;
	sl_diags_init(&diags, a);
	struct sl_source *src = sl_source_from_bytes(a, "input.yaml", bytes, len);
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, NULL, &diags);
	sl_ydoc_refuse_tabs(doc, &diags);
	json_t *out;
	if (!doc->ok) {
		const struct sl_diag *first = NULL;
		for (size_t i = 0; i < diags.n; i++)
			if (!first || diags.v[i].span.start < first->span.start)
				first = &diags.v[i];
		out = json_pack("{s:b,s:i,s:i,s:s}", "ok", 0, "line", first ? (int)first->span.line : 0, "col",
				first ? (int)first->span.col : 0, "msg", first ? first->message : "");
	} else {
		long count = 0;
		json_t *v = doc->root ? dump(doc->root, 0, &count) : json_null();
		if (count > BIG) {
			json_decref(v);
			v = json_pack("{s:b}", "big", 1);
		}
		out = json_pack("{s:b,s:o}", "ok", 1, "v", v);
	}
	char *s = json_dumps(out, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!s) {
		printf("{\"ok\": null}\n");
	} else {
		printf("%s\n", s);
		free(s);
	}
	json_decref(out);
	sl_arena_free(a);
}

int main(void)
{
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	if (!buf)
		return 70;
	unsigned long len;
	while (scanf("%lu", &len) == 1) {
		if (getchar() != '\n')
			return 2;
		if (len + 1 > cap) {
			cap = len + 1;
			char *nb = realloc(buf, cap);
			if (!nb)
				return 70;
			buf = nb;
		}
		if (fread(buf, 1, len, stdin) != len)
			return 2;
		one(buf, len);
	}
	fflush(stdout);
	free(buf);
	return 0;
}
