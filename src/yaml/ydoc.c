/* ydoc: libyaml events -> node tree with spans, PyYAML typing, alias and depth bounds. */
#include "sweeplint/ydoc.h"

#include <string.h>
#include <yaml.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "construct.h"
#include "input.h"

struct anchor {
	const char *name;
	struct sl_node *node;
	struct anchor *next;
};

struct frame {
	struct sl_node *node;
	size_t cap;
	struct sl_node *pending_key; /* mappings: the key waiting for its value */
	size_t last_end;             /* where the last child's text ends (an alias: its own token) */
};

struct loader {
	struct sl_arena *a;
	struct sl_source *src;
	struct sl_yaml_input in; /* the text libyaml reads (PyYAML's acceptance, src/yaml/input.c) */
	const struct sl_scalar_resolver *res;
	struct sl_diags *diags;
	struct frame *stack;
	size_t depth, stack_cap;
	struct anchor **anchors;  /* ANCHOR_BUCKETS chains by name hash (made at the first anchor) */
	uint64_t nodes; /* nodes made so far (bounded by SL_YDOC_MAX_NODES) */
	struct sl_node *root;
	uint64_t total; /* nodes that aliases expand to */
	struct sl_alias *aliases;
	size_t naliases, aliases_cap;
	bool failed;
};

/* Anchors hash into chains: a document of many anchors and aliases stays linear. */
#define ANCHOR_BUCKETS 4096

static size_t anchor_bucket(const char *name)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211u;
	return (size_t)(h % ANCHOR_BUCKETS);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static size_t mark_byte(struct loader *L, yaml_mark_t m)
{
	return sl_yaml_input_byte(&L->in, m.index);
}

static void fail_at(struct loader *L, size_t off, const char *fmt, const char *arg)
{
	if (L->failed)
		return;
	L->failed = true;
	sl_diags_add(L->diags, "syntax", SL_SEV_ERROR, L->src, sl_source_span(L->src, off, off), fmt, arg);
}

static struct sl_node *new_node(struct loader *L, enum sl_node_kind kind, yaml_mark_t start, yaml_mark_t end,
				const yaml_char_t *anchor, const yaml_char_t *tag)
{
	struct sl_node *n = sl_arena_alloc(L->a, sizeof *n);
	n->kind = kind;
	size_t s = mark_byte(L, start), e = mark_byte(L, end);
	n->span = sl_source_span(L->src, s, e);
	n->anchor = anchor ? sl_arena_strdup(L->a, (const char *)anchor) : NULL;
	n->tag = tag ? sl_arena_strdup(L->a, (const char *)tag) : NULL;
	n->weight = 1;
	if (anchor) {
		if (!L->anchors)
			L->anchors = sl_arena_array(L->a, ANCHOR_BUCKETS, sizeof *L->anchors);
		struct anchor **head = &L->anchors[anchor_bucket(n->anchor)];
		for (const struct anchor *an = *head; an; an = an->next)
			if (strcmp(an->name, n->anchor) == 0) {
				/* PyYAML's composer: "found duplicate anchor; ... second occurrence" */
				fail_at(L, s, "syntax error: %s",
					sl_arena_printf(L->a, "found duplicate anchor &%s (PyYAML refuses an anchor "
							      "defined twice in a document)", n->anchor));
				break;
			}
		struct anchor *an = sl_arena_alloc(L->a, sizeof *an);
		an->name = n->anchor;
		an->node = n;
		an->next = *head;
		*head = an;
	}
	return n;
}

/* Attach a finished (or aliased) node to the collection on top of the stack. */
static void attach(struct loader *L, struct sl_node *child, size_t text_end)
{
	if (L->depth == 0) {
		if (!L->root)
			L->root = child;
		return;
	}
	struct frame *f = &L->stack[L->depth - 1];
	if (text_end > f->last_end)
		f->last_end = text_end;
	struct sl_node *p = f->node;
	if (!child->parent && child != p)
		child->parent = p;
	if (p->kind == SL_NODE_SEQ) {
		if (p->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 4;
			p->items = sl_arena_grow(L->a, p->items, p->n, cap, sizeof *p->items);
			f->cap = cap;
		}
		p->items[p->n++] = child;
	} else if (!f->pending_key) {
		f->pending_key = child;
	} else {
		if (p->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 4;
			p->pairs = sl_arena_grow(L->a, p->pairs, p->n, cap, sizeof *p->pairs);
			f->cap = cap;
		}
		p->pairs[p->n].key = f->pending_key;
		p->pairs[p->n].value = child;
		p->n++;
		f->pending_key = NULL;
	}
}

static void push(struct loader *L, struct sl_node *n)
{
	if (L->depth == L->stack_cap) {
		size_t cap = L->stack_cap ? L->stack_cap * 2 : 16;
		L->stack = sl_arena_grow(L->a, L->stack, L->depth, cap, sizeof *L->stack);
		L->stack_cap = cap;
	}
	L->stack[L->depth].node = n;
	L->stack[L->depth].cap = 0;
	L->stack[L->depth].pending_key = NULL;
	L->stack[L->depth].last_end = 0;
	L->depth++;
}

/* A tag whose SafeConstructor builds a scalar (construct_scalar): str, int, float, bool, null, ... */
static bool scalar_tag(const char *tag)
{
	static const char *const tags[] = {"str", "int", "float", "bool", "null", "timestamp", "binary"};
	if (!tag || strncmp(tag, "tag:yaml.org,2002:", 18) != 0)
		return false;
	for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
		if (strcmp(tag + 18, tags[i]) == 0)
			return true;
	return false;
}

/*
 * SafeConstructor.construct_scalar on a mapping: the value of its first value key ('=' or !!value),
 * followed through mappings of the same kind; NULL when there is none. `!!str {=: 0}` loads as '0'.
 */
static const struct sl_node *value_key_scalar(const struct sl_node *n)
{
	for (int hop = 0; n && n->kind == SL_NODE_MAP && hop < 64; hop++) {
		const struct sl_node *next = NULL;
		for (size_t i = 0; i < n->n && !next; i++) {
			const struct sl_node *k = n->pairs[i].key;
			if (k->kind == SL_NODE_SCALAR &&
			    ((k->style == SL_STYLE_PLAIN && !k->tag && strcmp(k->text, "=") == 0) ||
			     (k->tag && strcmp(k->tag, "tag:yaml.org,2002:value") == 0)))
				next = n->pairs[i].value;
		}
		n = next;
	}
	return n && n->kind == SL_NODE_SCALAR ? n : NULL;
}

static void pop(struct loader *L, yaml_mark_t end)
{
	struct sl_node *n = L->stack[L->depth - 1].node;
	L->depth--;
	/* a block collection ends with its last child, not where the next token starts */
	size_t e;
	if (n->style == SL_STYLE_FLOW) {
		e = mark_byte(L, end);
	} else if (n->n) {
		/* not the last child's span: an alias child's span is its anchor's, elsewhere */
		e = L->stack[L->depth].last_end;
	} else {
		e = mark_byte(L, end);
	}
	if (e < n->span.start)
		e = n->span.start;
	n->span = sl_source_span(L->src, n->span.start, e);
	/*
	 * A mapping tagged as a scalar stands for the value of its '=' key (construct_scalar), where it is
	 * built in place: not as a merge key's value or an item of its list (flatten_mapping takes its
	 * pairs whatever its tag) nor as an item of !!omap/!!pairs (their items are never built). Its
	 * errors, and every other constructor's, are found after parsing (sl_yaml_construct).
	 */
	bool built = true;
	for (size_t up = 1; up <= 2 && up <= L->depth && built; up++) {
		const struct frame *f = &L->stack[L->depth - up];
		if (f->node->kind == SL_NODE_MAP) {
			built = !(f->pending_key && sl_yaml_merge_key(f->pending_key));
			break;
		}
		if (up == 1 && f->node->tag &&
		    (strcmp(f->node->tag, "tag:yaml.org,2002:omap") == 0 || strcmp(f->node->tag, "tag:yaml.org,2002:pairs") == 0))
			built = false;
	}
	const struct sl_node *inner = n->kind == SL_NODE_MAP && scalar_tag(n->tag) ? value_key_scalar(n) : NULL;
	if (inner) {
		struct sl_node *c = sl_arena_alloc(L->a, sizeof *c);
		*c = *inner;
		c->tag = n->tag;
		c->anchor = n->anchor;
		c->parent = NULL;
		c->weight = 1;
		bool err = false;
		c->value = sl_scalar_resolve(L->res, c->text, c->text_len, false, n->tag, &err);
		c->cerr = NULL;
		c->origin = n; /* the constructor reads n's '=' keys when it builds c (sl_yaml_construct) */
		for (struct anchor *an = n->anchor && L->anchors ? L->anchors[anchor_bucket(n->anchor)] : NULL; an;
		     an = an->next)
			if (an->node == n)
				an->node = c;
		if (built) {
			attach(L, c, n->span.end);
			return;
		}
		/* a merge value or an !!omap item stays a mapping there; an alias elsewhere builds the scalar */
	}
	uint64_t w = 1;
	if (n->kind == SL_NODE_SEQ)
		for (size_t i = 0; i < n->n; i++)
			w = sat_add(w, n->items[i]->weight);
	else
		for (size_t i = 0; i < n->n; i++)
			w = sat_add(sat_add(w, n->pairs[i].key->weight), n->pairs[i].value->weight);
	n->weight = w;
	attach(L, n, n->span.end);
}

static enum sl_node_style scalar_style(yaml_scalar_style_t s)
{
	switch (s) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
		return SL_STYLE_SINGLE;
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		return SL_STYLE_DOUBLE;
	case YAML_LITERAL_SCALAR_STYLE:
		return SL_STYLE_LITERAL;
	case YAML_FOLDED_SCALAR_STYLE:
		return SL_STYLE_FOLDED;
	default:
		return SL_STYLE_PLAIN;
	}
}

static void parser_error(struct loader *L, yaml_parser_t *p)
{
	size_t off;
	if (p->error == YAML_READER_ERROR) {
		off = sl_yaml_input_src(&L->in, p->problem_offset + L->src->bom);
		if (off > L->src->len)
			off = L->src->len;
		const char *what = p->problem ? p->problem : "cannot read the input";
		if (p->problem_value != -1 && strstr(what, "invalid") == NULL)
			fail_at(L, off, "syntax error: %s", what);
		else
			fail_at(L, off, "syntax error: %s", what);
		return;
	}
	if (p->problem && strcmp(p->problem, "found unknown directive name") == 0) {
		/* a reserved directive PyYAML ignores, after the first document: it fails where the next starts */
		const char *why;
		off = sl_yaml_input_late_directive(L->src, mark_byte(L, p->context_mark), &why);
		fail_at(L, off, "syntax error: %s", why);
		return;
	}
	off = mark_byte(L, p->problem_mark);
	if (off >= L->in.err) {
		fail_at(L, L->in.err, "syntax error: %s", L->in.why);
		return;
	}
	const char *problem = p->problem ? p->problem : "invalid YAML";
	if (p->context) {
		char *m = sl_arena_printf(L->a, "%s %s", problem, p->context);
		fail_at(L, off, "syntax error: %s", m);
	} else {
		fail_at(L, off, "syntax error: %s", problem);
	}
}

struct sl_ydoc *sl_ydoc_parse(struct sl_arena *a, struct sl_source *src,
			      const struct sl_scalar_resolver *resolver, struct sl_diags *diags)
{
	struct sl_ydoc *doc = sl_arena_alloc(a, sizeof *doc);
	doc->src = src;
	/* positions as PyYAML counts them: NEL, LS and PS end lines, U+FEFF is no column (JSON: as
	 * its readers and editors count, \n) */
	if (!src->json_lines)
		sl_source_yaml_lines(a, src);
	struct loader L = {.a = a, .src = src, .res = resolver, .diags = diags};
	if (!L.res)
		L.res = sl_scalar_resolver_new(a);
	yaml_parser_t parser;
	yaml_event_t ev;
	bool have_ev = false;
	if (!yaml_parser_initialize(&parser))
		sl_oom();
	/* with the encoding given, libyaml would read a BOM as a character of the first line and then
	 * misjudge the indentation of the next ones: start after it */
	sl_yaml_input_init(a, src, &L.in);
	yaml_parser_set_input_string(&parser, (const unsigned char *)L.in.view.bytes + src->bom, L.in.view.len - src->bom);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	bool done = false;
	while (!done && !L.failed) {
		if (!yaml_parser_parse(&parser, &ev)) {
			parser_error(&L, &parser);
			break;
		}
		have_ev = true;
		if (L.in.err != SIZE_MAX && ev.type != YAML_STREAM_START_EVENT && mark_byte(&L, ev.start_mark) >= L.in.err) {
			/* the directive prefix PyYAML refuses ends here */
			fail_at(&L, L.in.err, "syntax error: %s", L.in.why);
			break;
		}
		/* every node costs memory whatever its shape: a 200,000-key sweep is refused, not swallowed */
		if ((ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
		     ev.type == YAML_MAPPING_START_EVENT) &&
		    ++L.nodes > SL_YDOC_MAX_NODES) {
			fail_at(&L, mark_byte(&L, ev.start_mark), "syntax error: more than %s nodes in the document",
				"100000");
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			doc->ndocs++;
			if (doc->ndocs == 2) {
				size_t off = mark_byte(&L, ev.start_mark);
				fail_at(&L, off, "syntax error: %s",
					"expected a single document in the stream, but found another document");
			}
			break;
		case YAML_SCALAR_EVENT: {
			struct sl_node *n = new_node(&L, SL_NODE_SCALAR, ev.start_mark, ev.end_mark,
						     ev.data.scalar.anchor, ev.data.scalar.tag);
			n->style = scalar_style(ev.data.scalar.style);
			n->text_len = ev.data.scalar.length;
			const char *text = sl_yaml_input_text(a, &L.in, (const char *)ev.data.scalar.value, &n->text_len,
							      n->style == SL_STYLE_LITERAL || n->style == SL_STYLE_FOLDED,
							      sl_yaml_input_view_byte(&L.in, ev.start_mark.index),
							      sl_yaml_input_view_byte(&L.in, ev.end_mark.index));
			n->text = sl_arena_strndup(a, text, n->text_len);
			/* libyaml sets plain_implicit for plain scalars and for the non-specific tag "!",
			 * which PyYAML then resolves implicitly even on a quoted scalar */
			bool plain = ev.data.scalar.plain_implicit;
			const char *tag = n->tag;
			if (tag && strcmp(tag, "!") == 0) {
				tag = NULL;
				plain = true; /* libyaml: not for an empty scalar ("! ,"), PyYAML: null there too */
			}
			/* in brackets PyYAML ends a plain scalar at '?' (a key indicator), libyaml reads on */
			if (n->style == SL_STYLE_PLAIN && L.depth && L.stack[L.depth - 1].node->style == SL_STYLE_FLOW) {
				const char *q = memchr(src->bytes + n->span.start, '?', n->span.end - n->span.start);
				if (q && q > src->bytes + n->span.start) {
					fail_at(&L, (size_t)(q - src->bytes), "syntax error: %s",
						"expected ',' or a closing bracket, but found '?' (PyYAML ends a plain "
						"scalar in brackets at '?')");
					break;
				}
			}
			bool tag_error = false;
			n->value = sl_scalar_resolve(L.res, n->text, n->text_len, plain, tag, &tag_error);
			/* what PyYAML's constructor says where it builds this scalar (sl_yaml_construct): a value
			 * key ('=', !!value) is a string once its mapping is flattened, a merge key merges */
			if (sl_yaml_value_key(n)) {
				n->value = sl_scalar_resolve(L.res, n->text, n->text_len, false, NULL, NULL);
				n->cerr = "syntax error: could not determine a constructor for the tag "
					  "'tag:yaml.org,2002:value' (PyYAML reads '=' as a string only as a mapping key)";
			} else if (tag && strcmp(tag, "tag:yaml.org,2002:merge") == 0) {
				n->value = (struct sl_value){.type = SL_V_STR, .merge = true};
				n->cerr = "syntax error: could not determine a constructor for the tag "
					  "'tag:yaml.org,2002:merge' (a merge key is no value)";
			} else if (n->value.merge) {
				n->cerr = sl_arena_printf(a, "syntax error: PyYAML cannot load the plain scalar '%s' "
							     "(quote it to make it a string)",
							  n->text);
			} else if (tag_error) {
				n->cerr = tag ? sl_arena_printf(a, "syntax error: cannot construct %s from '%s'", n->tag, n->text)
					      : sl_arena_printf(a, "syntax error: PyYAML cannot load the plain scalar "
								   "'%s' (quote it to make it a string)",
								n->text);
			}
			attach(&L, n, n->span.end);
			break;
		}
		case YAML_ALIAS_EVENT: {
			const char *name = (const char *)ev.data.alias.anchor;
			struct anchor *an = L.anchors ? L.anchors[anchor_bucket(name)] : NULL;
			while (an && strcmp(an->name, name) != 0)
				an = an->next;
			size_t off = mark_byte(&L, ev.start_mark);
			if (!an) {
				fail_at(&L, off, "syntax error: found undefined alias %s", name);
				break;
			}
			/* an alias to a collection still open is a recursive structure */
			for (size_t i = 0; i < L.depth; i++)
				if (L.stack[i].node == an->node) {
					fail_at(&L, off, "syntax error: alias %s refers to a node that contains it",
						name);
					break;
				}
			/* what aliases expand to is bounded: consumers walk the tree as if expanded */
			L.total = sat_add(L.total, an->node->weight);
			if (!L.failed && L.total > SL_YDOC_MAX_EXPANSION)
				fail_at(&L, off, "syntax error: aliases expand to more than %s nodes (an alias bomb?)",
					"1000000");
			if (!L.failed) {
				L.aliases = sl_arena_reserve(a, L.aliases, L.naliases, &L.aliases_cap, L.naliases + 1,
							     sizeof *L.aliases);
				L.aliases[L.naliases++] = (struct sl_alias){
					an->node, off, mark_byte(&L, ev.end_mark)};
				attach(&L, an->node, mark_byte(&L, ev.end_mark));
			}
			break;
		}
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT: {
			bool seq = ev.type == YAML_SEQUENCE_START_EVENT;
			if (L.depth >= SL_YDOC_MAX_DEPTH) {
				fail_at(&L, mark_byte(&L, ev.start_mark),
					"syntax error: nesting deeper than %s levels", "512");
				break;
			}
			struct sl_node *n = new_node(&L, seq ? SL_NODE_SEQ : SL_NODE_MAP, ev.start_mark,
						     ev.end_mark, seq ? ev.data.sequence_start.anchor
								      : ev.data.mapping_start.anchor,
						     seq ? ev.data.sequence_start.tag : ev.data.mapping_start.tag);
			bool flow = seq ? ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
					: ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
			n->style = flow ? SL_STYLE_FLOW : SL_STYLE_BLOCK;
			push(&L, n);
			break;
		}
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (L.depth)
				pop(&L, ev.end_mark);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		have_ev = false;
	}
	if (have_ev)
		yaml_event_delete(&ev);
	yaml_parser_delete(&parser);
	/* PyYAML composes the whole document before it builds a value: a constructor's error counts
	 * only when the text parses, the first in its constructor's order */
	size_t coff;
	const char *cmsg;
	if (!L.failed && !sl_yaml_construct(a, L.res, L.root, &coff, &cmsg)) {
		fail_at(&L, coff, "%s", cmsg);
		doc->constructed = true;
	}
	doc->ok = !L.failed;
	doc->root = L.failed ? NULL : L.root;
	doc->aliases = L.aliases;
	doc->naliases = L.failed ? 0 : L.naliases;
	return doc;
}

static struct sl_node *map_get_rec(const struct sl_node *map, const char *key, size_t klen, int depth)
{
	if (!map || map->kind != SL_NODE_MAP || depth > SL_YDOC_MAX_MERGE_DEPTH)
		return NULL;
	for (size_t i = map->n; i-- > 0;) {
		const struct sl_node *k = map->pairs[i].key;
		if (k->kind == SL_NODE_SCALAR && k->text_len == klen && memcmp(k->text, key, klen) == 0 &&
		    !k->value.merge)
			return map->pairs[i].value;
	}
	/*
	 * merge keys as PyYAML's flatten_mapping builds the dict: explicit keys
	 * win; then the last `<<` key (its pairs are added after the earlier
	 * ones'); within a list `<<: [*a, *b]` the first listed (the list is
	 * added reversed).
	 */
	for (size_t i = map->n; i-- > 0;) {
		const struct sl_node *k = map->pairs[i].key;
		if (k->kind != SL_NODE_SCALAR || !k->value.merge)
			continue;
		const struct sl_node *v = map->pairs[i].value;
		if (v->kind == SL_NODE_MAP) {
			struct sl_node *r = map_get_rec(v, key, klen, depth + 1);
			if (r)
				return r;
		} else if (v->kind == SL_NODE_SEQ) {
			for (size_t j = 0; j < v->n; j++) {
				struct sl_node *r = map_get_rec(v->items[j], key, klen, depth + 1);
				if (r)
					return r;
			}
		}
	}
	return NULL;
}

struct sl_node *sl_map_get(const struct sl_node *map, const char *key)
{
	return map_get_rec(map, key, strlen(key), 0);
}

const struct sl_pair *sl_map_pair(const struct sl_node *map, const char *key)
{
	if (!map || map->kind != SL_NODE_MAP)
		return NULL;
	const struct sl_node *v = sl_map_get(map, key);
	if (!v)
		return NULL;
	for (size_t i = map->n; i-- > 0;)
		if (map->pairs[i].value == v && map->pairs[i].key->kind == SL_NODE_SCALAR &&
		    strcmp(map->pairs[i].key->text, key) == 0)
			return &map->pairs[i];
	return NULL;
}

bool sl_node_is(const struct sl_node *node, enum sl_vtype t)
{
	return node && node->kind == SL_NODE_SCALAR && node->value.type == t;
}

bool sl_node_has_nul(const struct sl_node *n)
{
	return n && n->kind == SL_NODE_SCALAR && n->text && n->text_len > strlen(n->text);
}

bool sl_node_truthy(const struct sl_node *n)
{
	if (!n)
		return false;
	if (n->kind != SL_NODE_SCALAR)
		return n->n > 0;
	switch (n->value.type) {
	case SL_V_NULL:
		return false;
	case SL_V_BOOL:
		return n->value.b;
	case SL_V_INT:
		return n->value.big || n->value.i != 0;
	case SL_V_FLOAT:
		return n->value.f != 0;
	case SL_V_STR:
		return n->text_len > 0;
	default:
		return true;
	}
}

const char *sl_node_describe(const struct sl_node *node)
{
	if (!node)
		return "nothing";
	switch (node->kind) {
	case SL_NODE_SEQ:
		return "a list";
	case SL_NODE_MAP:
		return "a mapping";
	default:
		break;
	}
	switch (node->value.type) {
	case SL_V_NULL:
		return "null";
	case SL_V_BOOL:
		return "a boolean";
	case SL_V_INT:
		return "an integer";
	case SL_V_FLOAT:
		return "a float";
	case SL_V_TIMESTAMP:
		return "a timestamp";
	case SL_V_BINARY:
		return "binary data";
	default:
		return "a string";
	}
}
