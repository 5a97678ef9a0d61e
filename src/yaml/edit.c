/*
 * edit: splices on a source's original bytes, and the YAML-aware edits that
 * produce them (remove items and pairs, set a scalar, insert a line).
 *
 * Positions come from node spans (ydoc.h); everything between spans (commas,
 * dashes, comments, line breaks) is found by scanning the bytes around them,
 * and nothing else is touched. Removals are kept per collection and planned
 * again each time the collection's set of removed entries grows, so removals
 * from one list requested separately compose into one consistent plan.
 */
#include "sweeplint/edit.h"

#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/source.h"
#include "sweeplint/utf8.h"
#include "sweeplint/ydoc.h"

struct sl_edit_drop {
	const struct sl_node *coll; /* the sequence or mapping */
	bool *drop;                 /* coll->n flags: entry i is removed */
	struct sl_edit *v;          /* the current plan for this collection */
	size_t n;
};

/* An entry of a collection as bytes: a block item from its "-", a pair from its key. */
struct elem {
	size_t s, e;
};

/* ---- bytes and lines ------------------------------------------------------------------ */

static bool is_hspace(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_break(char c)
{
	return c == '\n' || c == '\r';
}

/* The offset of the first byte of the line holding off. */
static size_t line_begin(const struct sl_source *s, size_t off)
{
	while (off > 0 && !is_break(s->bytes[off - 1]))
		off--;
	return off;
}

/* The offset of the line break ending the line holding off (len when there is none). */
static size_t line_end(const struct sl_source *s, size_t off)
{
	while (off < s->len && !is_break(s->bytes[off]))
		off++;
	return off;
}

/* The offset just past the line break ending the line holding off. */
static size_t line_next(const struct sl_source *s, size_t off)
{
	off = line_end(s, off);
	if (off < s->len && s->bytes[off] == '\r') {
		off++;
		if (off < s->len && s->bytes[off] == '\n')
			off++;
	} else if (off < s->len && s->bytes[off] == '\n') {
		off++;
	}
	return off;
}

/* Only spaces and tabs lie between the start of off's line and off. */
static bool first_on_line(const struct sl_source *s, size_t off)
{
	/* back over blanks only (not from the line's start: a one-line list of 5,000 items asked this of
	 * each run it removes, 40 KB a time) */
	while (off > 0 && is_hspace(s->bytes[off - 1]))
		off--;
	return off == 0 || is_break(s->bytes[off - 1]);
}

/* Back from off over spaces and tabs, not past the start of the line. */
static size_t ws_back(const struct sl_source *s, size_t off)
{
	while (off > 0 && is_hspace(s->bytes[off - 1]))
		off--;
	return off;
}

/* A "#" at i starts a comment: it opens the line or follows a space or tab. */
static bool comment_at(const struct sl_source *s, size_t i)
{
	return i < s->len && s->bytes[i] == '#' && (i == 0 || is_hspace(s->bytes[i - 1]) || is_break(s->bytes[i - 1]));
}

/*
 * From off to the end of its line there is nothing but spaces, tabs and a
 * comment (after one optional "," when comma is true).
 */
static bool rest_blank(const struct sl_source *s, size_t off, bool comma)
{
	size_t i = off;
	if (comma) {
		while (i < s->len && is_hspace(s->bytes[i]))
			i++;
		if (i < s->len && s->bytes[i] == ',')
			i++;
	}
	while (i < s->len && is_hspace(s->bytes[i]))
		i++;
	return i >= s->len || is_break(s->bytes[i]) || comment_at(s, i);
}

/* Past spaces, line breaks and comments from off, not beyond limit. */
static size_t skip_gap(const struct sl_source *s, size_t off, size_t limit)
{
	while (off < limit) {
		char c = s->bytes[off];
		if (is_hspace(c) || is_break(c))
			off++;
		else if (comment_at(s, off))
			off = line_end(s, off);
		else
			break;
	}
	return off;
}

static bool ends_token(char c)
{
	return is_hspace(c) || is_break(c) || c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

/* Past a node's properties (&anchor, !tag) and the gap after them. */
static size_t skip_props(const struct sl_source *s, size_t off, size_t limit)
{
	while (off < limit && (s->bytes[off] == '&' || s->bytes[off] == '!')) {
		while (off < limit && !ends_token(s->bytes[off]))
			off++;
		off = skip_gap(s, off, limit);
	}
	return off;
}

/* ---- the edit set --------------------------------------------------------------------- */

void sl_edits_init(struct sl_edits *e, struct sl_arena *a, const struct sl_source *src)
{
	memset(e, 0, sizeof *e);
	e->arena = a;
	e->src = src;
}

static struct sl_edit make_edit(struct sl_edits *e, size_t start, size_t end, const char *text, size_t len)
{
	struct sl_edit ed = {.start = start, .end = end, .len = len, .order = e->next_order++};
	ed.text = sl_arena_strndup(e->arena, text ? text : "", text ? len : 0);
	return ed;
}

int sl_edits_splice(struct sl_edits *e, size_t start, size_t end, const char *text, size_t len)
{
	if (start > end || end > e->src->len)
		return -SL_EINTERNAL;
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 8;
		e->v = sl_arena_grow(e->arena, e->v, e->n, cap, sizeof *e->v);
		e->cap = cap;
	}
	e->v[e->n++] = make_edit(e, start, end, text, len);
	return 0;
}

static int cmp_edit(const void *pa, const void *pb)
{
	const struct sl_edit *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return 0;
}

static bool same_edit(const struct sl_edit *a, const struct sl_edit *b)
{
	return a->start == b->start && a->end == b->end && a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

int sl_edits_list(const struct sl_edits *e, struct sl_edit **out, size_t *nout)
{
	size_t total = e->n;
	for (size_t i = 0; i < e->ndrops; i++)
		total += e->drops[i].n;
	struct sl_edit *v = sl_arena_array(e->arena, total ? total : 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < e->n; i++)
		v[n++] = e->v[i];
	for (size_t i = 0; i < e->ndrops; i++)
		for (size_t j = 0; j < e->drops[i].n; j++)
			v[n++] = e->drops[i].v[j];
	qsort(v, n, sizeof *v, cmp_edit);
	/* identical duplicates collapse; then no two may overlap */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t j = k; j-- > 0 && v[j].start == v[i].start;)
			if (same_edit(&v[j], &v[i]))
				dup = true;
		if (dup)
			continue;
		if (k > 0 && v[i].start < v[k - 1].end)
			return -SL_EINTERNAL;
		v[k++] = v[i];
	}
	*out = v;
	*nout = k;
	return 0;
}

int sl_edits_apply(const struct sl_edits *e, struct sl_buf *out)
{
	sl_buf_init(out, e->arena);
	struct sl_edit *v;
	size_t n;
	int rc = sl_edits_list(e, &v, &n);
	if (rc < 0)
		return rc;
	/* offsets all refer to the original, so one forward pass equals splicing last to first */
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		sl_buf_add(out, e->src->bytes + at, v[i].start - at);
		sl_buf_add(out, v[i].text, v[i].len);
		at = v[i].end;
	}
	sl_buf_add(out, e->src->bytes + at, e->src->len - at);
	return 0;
}

/* ---- entries of a collection ---------------------------------------------------------- */

/* node's own text lies in [cur, limit): it is written here, not an alias of a node elsewhere */
static bool node_here(const struct sl_node *node, size_t cur, size_t limit)
{
	return node->span.start >= cur && node->span.end <= limit;
}

/*
 * The "*name" that stands for node (an alias) after cur: past gaps and the
 * indicators that may precede a node ("," "[" "{" and "-", "?", ":" before a
 * space).
 */
static int find_alias(const struct sl_source *s, const struct sl_node *node, size_t cur, size_t limit,
		      struct elem *out)
{
	if (!node->anchor)
		return -SL_ELIMIT;
	for (;;) {
		cur = skip_gap(s, cur, limit);
		if (cur >= limit)
			return -SL_ELIMIT;
		char c = s->bytes[cur];
		bool spaced = cur + 1 >= limit || is_hspace(s->bytes[cur + 1]) || is_break(s->bytes[cur + 1]);
		if (c == ',' || c == '[' || c == '{' || ((c == '-' || c == '?' || c == ':') && spaced))
			cur++;
		else
			break;
	}
	size_t nl = strlen(node->anchor);
	if (s->bytes[cur] != '*' || cur + 1 + nl > limit || memcmp(s->bytes + cur + 1, node->anchor, nl) != 0 ||
	    (cur + 1 + nl < limit && !ends_token(s->bytes[cur + 1 + nl])))
		return -SL_ELIMIT;
	out->s = cur;
	out->e = cur + 1 + nl;
	return 0;
}

/* The bytes of node as an entry part starting after cur: its span, or its alias token. */
static int place(const struct sl_source *s, const struct sl_node *node, size_t cur, size_t limit,
		 struct elem *out)
{
	if (node_here(node, cur, limit)) {
		out->s = node->span.start;
		out->e = node->span.end;
		return 0;
	}
	return find_alias(s, node, cur, limit, out);
}

/* Where each entry of collection c lies; *limit_out: where its content ends (a flow bracket). */
static int elements(const struct sl_edits *E, const struct sl_node *c, struct elem **out, size_t *limit_out)
{
	const struct sl_source *s = E->src;
	if (c->span.end > s->len || c->n == 0)
		return -SL_EUSAGE;
	/*
	 * A block collection's span ends with its last child's span, which for an
	 * alias is the anchored node's, elsewhere: scan to the end of the source
	 * (entries are found one after the other, so nothing past them is read).
	 */
	bool flow = c->style == SL_STYLE_FLOW;
	size_t cur = c->span.start, limit = flow ? c->span.end : s->len;
	if (flow) {
		cur = skip_props(s, cur, limit);
		if (cur >= limit || (s->bytes[cur] != '[' && s->bytes[cur] != '{') || limit < 1 ||
		    (s->bytes[limit - 1] != ']' && s->bytes[limit - 1] != '}'))
			return -SL_ELIMIT;
		cur++;
		limit--;
	}
	struct elem *v = sl_arena_array(E->arena, c->n, sizeof *v);
	for (size_t i = 0; i < c->n; i++) {
		struct elem a, b;
		int rc;
		if (c->kind == SL_NODE_SEQ) {
			size_t from = cur;
			if (!flow) {
				size_t d = skip_gap(s, skip_props(s, cur, limit), limit);
				if (d >= limit || s->bytes[d] != '-')
					return -SL_ELIMIT;
				from = d + 1;
			}
			if ((rc = place(s, c->items[i], from, limit, &a)) < 0)
				return rc;
			v[i].s = flow ? a.s : from - 1;
			v[i].e = a.e > from ? a.e : from;
		} else {
			if ((rc = place(s, c->pairs[i].key, cur, limit, &a)) < 0)
				return rc;
			if (!flow) {
				size_t q = ws_back(s, a.s);
				if (q > line_begin(s, a.s) && s->bytes[q - 1] == '?')
					return -SL_ELIMIT; /* explicit "? key" */
			}
			if ((rc = place(s, c->pairs[i].value, a.e, limit, &b)) < 0)
				return rc;
			v[i].s = a.s;
			v[i].e = b.e > a.e ? b.e : a.e;
		}
		cur = v[i].e;
	}
	*out = v;
	if (limit_out)
		*limit_out = limit;
	return 0;
}

/*
 * Where a block entry's lines end: past the line break after it, then past
 * the comment-only lines right below it that are indented deeper than it.
 */
static int block_cut_end(const struct sl_source *s, struct elem el, size_t *z_out)
{
	size_t z;
	if (el.e > 0 && el.e > el.s && is_break(s->bytes[el.e - 1])) {
		z = el.e; /* a block scalar ends at the start of a line */
	} else {
		if (!rest_blank(s, el.e, false))
			return -SL_ELIMIT;
		z = line_next(s, el.e);
	}
	size_t indent = el.s - line_begin(s, el.s);
	while (z < s->len) {
		size_t w = z;
		while (w < s->len && is_hspace(s->bytes[w]))
			w++;
		if (w - z > indent && comment_at(s, w))
			z = line_next(s, w);
		else
			break;
	}
	*z_out = z;
	return 0;
}

/* ---- removals ------------------------------------------------------------------------- */

struct plan {
	struct sl_edits *E;
	struct sl_edit *v;
	size_t n, cap;
};

static void plan_del(struct plan *p, size_t start, size_t end)
{
	if (start >= end)
		return;
	/* deletions that touch merge (lines removed one after another) */
	if (p->n && p->v[p->n - 1].end == start && p->v[p->n - 1].len == 0) {
		p->v[p->n - 1].end = end;
		return;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4;
		p->v = sl_arena_grow(p->E->arena, p->v, p->n, cap, sizeof *p->v);
		p->cap = cap;
	}
	p->v[p->n++] = make_edit(p->E, start, end, "", 0);
}

static int plan_block(struct plan *p, const struct sl_node *c, const struct elem *el, const bool *drop)
{
	const struct sl_source *s = p->E->src;
	size_t i = 0;
	if (drop[0] && !first_on_line(s, el[0].s)) {
		/* compact first entry ("- a: 1" / "- - x"): the next kept entry moves into its place */
		size_t k = 1;
		while (k < c->n && drop[k])
			k++;
		uint32_t l0, c0, lk, ck;
		sl_source_linecol(s, el[0].s, &l0, &c0);
		sl_source_linecol(s, el[k].s, &lk, &ck);
		if (k >= c->n || !first_on_line(s, el[k].s) || c0 != ck || lk == l0)
			return -SL_ELIMIT;
		plan_del(p, el[0].s, el[k].s);
		i = k + 1;
	}
	for (; i < c->n; i++) {
		if (!drop[i])
			continue;
		if (!first_on_line(s, el[i].s))
			return -SL_ELIMIT;
		size_t z;
		int rc = block_cut_end(s, el[i], &z);
		if (rc < 0)
			return rc;
		plan_del(p, line_begin(s, el[i].s), z);
	}
	/*
	 * At the end of a file without a final newline, take the line breaks
	 * before instead (blank lines included), so the file still ends without one.
	 */
	if (p->n) {
		struct sl_edit *last = &p->v[p->n - 1];
		size_t floor = p->n > 1 ? p->v[p->n - 2].end : 0;
		if (last->end == s->len && s->len && !is_break(s->bytes[s->len - 1])) {
			size_t a = last->start;
			while (a > floor && is_break(s->bytes[a - 1]))
				a--;
			last->start = a;
		}
	}
	return 0;
}

/* The "," after offset off (past gaps), or limit when the next thing is not one. */
static size_t comma_after(const struct sl_source *s, size_t off, size_t limit)
{
	size_t c = skip_gap(s, off, limit);
	return c < limit && s->bytes[c] == ',' ? c : limit;
}

/*
 * Plan the removal of the run of entries i..j of a flow collection of n entries: ei and ej are the
 * run's first and last entries, prev the entry before it (when i > 0).
 */
static int plan_flow_run(struct plan *p, size_t n, size_t i, size_t j, struct elem ei, struct elem ej,
			 struct elem prev, size_t limit)
{
	const struct sl_source *s = p->E->src;
	if (first_on_line(s, ei.s) && rest_blank(s, ej.e, true) && line_next(s, ej.e) <= limit) {
		plan_del(p, line_begin(s, ei.s), line_next(s, ej.e));
	} else if (j + 1 < n) {
		/* a kept entry follows: take the run and the comma after it */
		size_t cm = comma_after(s, ej.e, limit);
		if (cm >= limit)
			return -SL_ELIMIT;
		size_t q = cm + 1;
		while (q < limit && is_hspace(s->bytes[q]))
			q++;
		if (q >= limit || is_break(s->bytes[q]) || comment_at(s, q))
			plan_del(p, ws_back(s, ei.s), cm + 1);
		else
			plan_del(p, ei.s, q);
	} else {
		/* the run ends the collection: take the comma before it */
		if (i == 0)
			return -SL_EUSAGE; /* the whole collection: refused by the callers */
		size_t cm = comma_after(s, prev.e, limit);
		if (cm >= limit)
			return -SL_ELIMIT;
		bool same_line = true;
		for (size_t k = cm + 1; k < ei.s; k++)
			if (!is_hspace(s->bytes[k]))
				same_line = false;
		if (same_line) {
			/* with the blanks before the comma: "[ 1 , 2 ]" keeps its look */
			size_t from = ws_back(s, cm);
			plan_del(p, from > prev.e ? from : prev.e, ej.e);
		} else {
			/* on a later line: the comma before stays as a trailing comma */
			size_t t = comma_after(s, ej.e, limit);
			plan_del(p, ws_back(s, ei.s), t < limit ? t + 1 : ej.e);
		}
	}
	return 0;
}

static int plan_flow(struct plan *p, const struct sl_node *c, const struct elem *el, const bool *drop, size_t limit)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!drop[i])
			continue;
		size_t j = i;
		while (j + 1 < c->n && drop[j + 1])
			j++;
		/* the run i..j is removed */
		int rc = plan_flow_run(p, c->n, i, j, el[i], el[j], i ? el[i - 1] : el[i], limit);
		if (rc < 0)
			return rc;
		i = j;
	}
	return 0;
}

static struct sl_edit_drop *drop_record(struct sl_edits *e, const struct sl_node *c)
{
	for (size_t i = 0; i < e->ndrops; i++)
		if (e->drops[i].coll == c)
			return &e->drops[i];
	if (e->ndrops == e->drops_cap) {
		size_t cap = e->drops_cap ? e->drops_cap * 2 : 4;
		e->drops = sl_arena_grow(e->arena, e->drops, e->ndrops, cap, sizeof *e->drops);
		e->drops_cap = cap;
	}
	struct sl_edit_drop *d = &e->drops[e->ndrops++];
	d->coll = c;
	d->drop = sl_arena_array(e->arena, c->n, sizeof *d->drop);
	d->v = NULL;
	d->n = 0;
	return d;
}

static int drop_entries(struct sl_edits *e, const struct sl_node *c, const bool *drop)
{
	if (!c || (c->kind != SL_NODE_SEQ && c->kind != SL_NODE_MAP) || c->n == 0 || !drop)
		return -SL_EUSAGE;
	if (c->computed)
		return -SL_ELIMIT; /* Python: the entries are computed, not written in it */
	/* the union with what was asked before, refused whole when it would empty c */
	const struct sl_edit_drop *old = NULL;
	for (size_t i = 0; i < e->ndrops; i++)
		if (e->drops[i].coll == c)
			old = &e->drops[i];
	bool *u = sl_arena_array(e->arena, c->n, sizeof *u);
	size_t kept = 0;
	bool any = false;
	for (size_t i = 0; i < c->n; i++) {
		u[i] = drop[i] || (old && old->drop[i]);
		kept += !u[i];
		any |= u[i];
	}
	if (kept == 0)
		return -SL_EUSAGE;
	if (!any)
		return 0;
	struct elem *el;
	size_t limit;
	int rc = elements(e, c, &el, &limit);
	if (rc < 0)
		return rc;
	struct plan p = {.E = e};
	rc = c->style == SL_STYLE_FLOW ? plan_flow(&p, c, el, u, limit) : plan_block(&p, c, el, u);
	if (rc < 0)
		return rc;
	struct sl_edit_drop *d = drop_record(e, c);
	memcpy(d->drop, u, c->n * sizeof *u);
	d->v = p.v;
	d->n = p.n;
	return 0;
}

int sl_edits_remove_items(struct sl_edits *e, const struct sl_node *seq, const bool *drop)
{
	if (!seq || seq->kind != SL_NODE_SEQ)
		return -SL_EUSAGE;
	return drop_entries(e, seq, drop);
}

/*
 * Entry i of flow sequence c where its span says, inside (lo, limit): only when the span lies there
 * after the entry before it (at), so an alias (whose node is written elsewhere) never passes.
 */
static bool flow_entry(const struct sl_node *c, size_t i, size_t at, size_t limit, struct elem *out)
{
	const struct sl_node *n = c->items[i];
	if (n->span.start < at || n->span.end > limit || n->span.end < n->span.start)
		return false;
	out->s = n->span.start;
	out->e = n->span.end;
	return true;
}

/*
 * keep_one for a one-line-per-run flow list without an earlier removal: the two runs around the kept
 * entry planned from the five entries that bound them, not from every entry (split --by makes one
 * list per value of a list of thousands). 1 when this shape does not apply (the caller plans it whole).
 */
static int keep_one_flow(struct sl_edits *e, const struct sl_node *c, size_t k)
{
	const struct sl_source *s = e->src;
	for (size_t i = 0; i < e->ndrops; i++)
		if (e->drops[i].coll == c)
			return 1;
	if (c->style != SL_STYLE_FLOW || c->span.end > s->len)
		return 1;
	size_t cur = skip_props(s, c->span.start, c->span.end), limit = c->span.end;
	if (cur >= limit || s->bytes[cur] != '[' || limit < 1 || s->bytes[limit - 1] != ']')
		return 1;
	cur++;
	limit--;
	size_t n = c->n;
	struct elem first, before, kept, after, last;
	if (!flow_entry(c, 0, cur, limit, &first))
		return 1;
	if (k > 1 ? !flow_entry(c, k - 1, first.e, limit, &before) : (before = first, false))
		return 1;
	if (!flow_entry(c, k, k > 0 ? before.e : cur, limit, &kept))
		return 1;
	if (k + 1 < n && (!flow_entry(c, k + 1, kept.e, limit, &after) ||
			  (k + 2 < n ? !flow_entry(c, n - 1, after.e, limit, &last) : (last = after, false))))
		return 1;
	struct plan p = {.E = e};
	int rc = 0;
	if (k > 0)
		rc = plan_flow_run(&p, n, 0, k - 1, first, before, first, limit);
	if (rc == 0 && k + 1 < n)
		rc = plan_flow_run(&p, n, k + 1, n - 1, after, last, kept, limit);
	if (rc < 0)
		return rc;
	struct sl_edit_drop *d = drop_record(e, c);
	memset(d->drop, 1, n * sizeof *d->drop);
	d->drop[k] = false;
	d->v = p.v;
	d->n = p.n;
	return 0;
}

int sl_edits_keep_item(struct sl_edits *e, const struct sl_node *seq, size_t k)
{
	if (!seq || seq->kind != SL_NODE_SEQ || k >= seq->n)
		return -SL_EUSAGE;
	if (seq->n == 1)
		return 0;
	if (seq->computed)
		return -SL_ELIMIT;
	int rc = keep_one_flow(e, seq, k);
	if (rc <= 0)
		return rc;
	bool *drop = sl_arena_array(e->arena, seq->n, sizeof *drop);
	for (size_t i = 0; i < seq->n; i++)
		drop[i] = i != k;
	return drop_entries(e, seq, drop);
}

static int drop_one(struct sl_edits *e, const struct sl_node *c, size_t i)
{
	if (i >= c->n)
		return -SL_EUSAGE;
	bool *d = sl_arena_array(e->arena, c->n, sizeof *d);
	d[i] = true;
	return drop_entries(e, c, d);
}

int sl_edits_remove_item(struct sl_edits *e, const struct sl_node *seq, size_t i)
{
	if (!seq || seq->kind != SL_NODE_SEQ)
		return -SL_EUSAGE;
	return drop_one(e, seq, i);
}

int sl_edits_remove_pair(struct sl_edits *e, const struct sl_node *map, size_t i)
{
	if (!map || map->kind != SL_NODE_MAP)
		return -SL_EUSAGE;
	return drop_one(e, map, i);
}

int sl_edits_keep_texts(struct sl_edits *e, const struct sl_node *seq, const char *const *texts, size_t n)
{
	if (!seq || seq->kind != SL_NODE_SEQ || seq->n == 0)
		return -SL_EUSAGE;
	bool *d = sl_arena_array(e->arena, seq->n, sizeof *d);
	for (size_t i = 0; i < seq->n; i++)
		d[i] = true;
	for (size_t t = 0; t < n; t++) {
		bool found = false;
		size_t tl = strlen(texts[t]);
		for (size_t i = 0; i < seq->n; i++) {
			const struct sl_node *it = seq->items[i];
			if (it->kind == SL_NODE_SCALAR && it->text_len == tl && memcmp(it->text, texts[t], tl) == 0) {
				d[i] = false;
				found = true;
			}
		}
		if (!found)
			return -SL_EUSAGE;
	}
	return drop_entries(e, seq, d);
}

/* ---- scalars -------------------------------------------------------------------------- */

/*
 * The length of the character at t[i] when YAML does not allow it raw in a scalar (a C0 control, DEL,
 * C1 but NEL; U+FEFF, U+FFFE, U+FFFF) or a YAML 1.1 reader takes it as a line break (NEL, U+2028,
 * U+2029): such a character is written as a double-quoted escape. 0 for any other character.
 */
static size_t unprintable(const char *t, size_t n, size_t i, uint32_t *cp)
{
	size_t k = sl_utf8_decode(t + i, n - i, cp);
	if (k == 0)
		return 0; /* not UTF-8: the read-back refuses it */
	uint32_t c = *cp;
	if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || c == 0xfeff || c == 0xfffe ||
	    c == 0xffff)
		return k;
	return 0;
}

/* A cheap first test of a plain spelling; sl_edit_spell then parses it back to be sure. */
static bool plain_candidate(const char *t, size_t n, bool flow)
{
	if (n == 0 || is_hspace(t[0]) || is_hspace(t[n - 1]))
		return false;
	if (strchr("!&*|>'\"%@`#,[]{}", t[0]))
		return false;
	if ((t[0] == '-' || t[0] == '?' || t[0] == ':') && (n == 1 || is_hspace(t[1])))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		uint32_t cp;
		if (c < 0x20 || (c >= 0x7f && unprintable(t, n, i, &cp)))
			return false;
		if (c == ':' && (i + 1 == n || is_hspace(t[i + 1]) || flow))
			return false;
		if (c == '#' && is_hspace(t[i - 1]))
			return false;
		if (flow && strchr(",[]{}", c))
			return false;
	}
	return true;
}

static bool needs_double(const char *t, size_t n)
{
	uint32_t cp;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] >= 0x7f ? unprintable(t, n, i, &cp) : 0)
			return true;
	/* single quotes would fold leading/trailing blanks only across lines; none here */
	return false;
}

static const char *quote(struct sl_arena *a, const char *t, size_t n, bool dbl)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	if (!dbl) {
		sl_buf_addc(&b, '\'');
		for (size_t i = 0; i < n; i++) {
			if (t[i] == '\'')
				sl_buf_addc(&b, '\'');
			sl_buf_addc(&b, t[i]);
		}
		sl_buf_addc(&b, '\'');
		return b.buf;
	}
	sl_buf_addc(&b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		switch (c) {
		case '"':
			sl_buf_adds(&b, "\\\"");
			break;
		case '\\':
			sl_buf_adds(&b, "\\\\");
			break;
		case '\n':
			sl_buf_adds(&b, "\\n");
			break;
		case '\t':
			sl_buf_adds(&b, "\\t");
			break;
		case '\r':
			sl_buf_adds(&b, "\\r");
			break;
		case 0:
			sl_buf_adds(&b, "\\0");
			break;
		default: {
			uint32_t cp;
			size_t k = c < 0x20 || c >= 0x7f ? unprintable(t, n, i, &cp) : 0;
			if (k) {
				sl_buf_addf(&b, cp < 0x100 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
				i += k - 1;
			} else {
				sl_buf_addc(&b, (char)c);
			}
		}
		}
	}
	sl_buf_addc(&b, '"');
	return b.buf;
}

/* Parse spelling back (inside "[...]" or after "k: ") and compare with text and want. */
static bool reads_back(struct sl_arena *a, const struct sl_scalar_resolver *r, const char *spelling,
		       const char *props, bool flow, const char *text, size_t len, enum sl_vtype want)
{
	const char *doc = flow ? sl_arena_printf(a, "[%s%s%s]\n", props ? props : "", props ? " " : "", spelling)
			       : sl_arena_printf(a, "k: %s%s%s\n", props ? props : "", props ? " " : "", spelling);
	struct sl_source *src = sl_source_from_bytes(a, "<spelling>", doc, strlen(doc));
	struct sl_diags d;
	sl_diags_init(&d, a);
	struct sl_ydoc *y = sl_ydoc_parse(a, src, r, &d);
	if (!y->ok || !y->root || y->root->n != 1)
		return false;
	const struct sl_node *v = flow ? (y->root->kind == SL_NODE_SEQ ? y->root->items[0] : NULL)
				       : (y->root->kind == SL_NODE_MAP ? y->root->pairs[0].value : NULL);
	if (!v || v->kind != SL_NODE_SCALAR || v->text_len != len || memcmp(v->text, text, len) != 0)
		return false;
	bool tag_error = false;
	struct sl_value val = sl_scalar_resolve(r, v->text, v->text_len, v->style == SL_STYLE_PLAIN, v->tag, &tag_error);
	return !tag_error && val.type == want;
}

const char *sl_edit_spell(struct sl_arena *a, const struct sl_scalar_resolver *r, const char *text, size_t len,
			  enum sl_vtype want, enum sl_node_style prefer, bool flow, const char *props, int *err)
{
	if (err)
		*err = 0;
	if (!r)
		r = sl_scalar_resolver_new(a);
	bool keep_quotes = want == SL_V_STR && (prefer == SL_STYLE_SINGLE || prefer == SL_STYLE_DOUBLE);
	if (!keep_quotes && plain_candidate(text, len, flow)) {
		const char *plain = sl_arena_strndup(a, text, len);
		if (reads_back(a, r, plain, props, flow, text, len, want))
			return plain;
	}
	if (want == SL_V_STR) {
		bool dbl = needs_double(text, len) || (prefer == SL_STYLE_DOUBLE);
		const char *q = quote(a, text, len, dbl);
		if (reads_back(a, r, q, props, flow, text, len, want))
			return q;
		if (!dbl) {
			q = quote(a, text, len, true);
			if (reads_back(a, r, q, props, flow, text, len, want))
				return q;
		}
	}
	if (err)
		*err = -SL_EUSAGE;
	return NULL;
}

/*
 * A value as a Python literal, for a sweep written in Python (src->python): a string in the quotes of
 * the literal it replaces (backslash escapes for the quote, backslashes and control characters), a
 * number as written when Python reads it as that type, True / False / None. NULL (-SL_EUSAGE in *err)
 * when text cannot be written as want (a float Python has no literal for: .inf, .nan).
 */
static const char *python_spell(struct sl_arena *a, const char *text, size_t len, enum sl_vtype want,
				enum sl_node_style style, int *err)
{
	*err = 0;
	struct sl_buf b;
	sl_buf_init(&b, a);
	switch (want) {
	case SL_V_STR: {
		char q = style == SL_STYLE_SINGLE ? '\'' : '"';
		sl_buf_addc(&b, q);
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)text[i];
			if (c == (unsigned char)q || c == '\\') {
				sl_buf_addc(&b, '\\');
				sl_buf_addc(&b, (char)c);
			} else if (c == '\n') {
				sl_buf_adds(&b, "\\n");
			} else if (c == '\t') {
				sl_buf_adds(&b, "\\t");
			} else if (c == '\r') {
				sl_buf_adds(&b, "\\r");
			} else if (c < 0x20 || c == 0x7f) {
				sl_buf_addf(&b, "\\x%02x", c);
			} else {
				sl_buf_addc(&b, (char)c);
			}
		}
		sl_buf_addc(&b, q);
		return b.buf;
	}
	case SL_V_INT:
	case SL_V_FLOAT: {
		/* [-]digits[.digits][e[+-]digits]: Python's literal of that number (a float needs a dot or an
		 * exponent, an int neither) */
		size_t i = 0, digits = 0;
		bool dot = false, exp = false;
		if (i < len && (text[i] == '-' || text[i] == '+'))
			i++;
		for (; i < len; i++) {
			char c = text[i];
			if (c >= '0' && c <= '9')
				digits++;
			else if (c == '.' && !dot && !exp)
				dot = true;
			else if ((c == 'e' || c == 'E') && !exp && digits) {
				exp = true;
				if (i + 1 < len && (text[i + 1] == '-' || text[i + 1] == '+'))
					i++;
			} else
				break;
		}
		bool is_float = dot || exp;
		if (i != len || !digits || is_float != (want == SL_V_FLOAT) ||
		    (!is_float && len > 1 + (text[0] == '-') && text[text[0] == '-'] == '0')) {
			*err = -SL_EUSAGE;
			return NULL;
		}
		sl_buf_add(&b, text, len);
		return b.buf;
	}
	case SL_V_BOOL:
		if (len == 4 && memcmp(text, "true", 4) == 0)
			return "True";
		if (len == 5 && memcmp(text, "false", 5) == 0)
			return "False";
		break;
	case SL_V_NULL:
		return "None";
	default:
		break;
	}
	*err = -SL_EUSAGE;
	return NULL;
}

static bool in_flow(const struct sl_node *n)
{
	for (const struct sl_node *p = n->parent; p; p = p->parent)
		if (p->style == SL_STYLE_FLOW)
			return true;
	return false;
}

int sl_edits_set_scalar(struct sl_edits *e, const struct sl_scalar_resolver *r, const struct sl_node *node,
			const char *text, size_t len, enum sl_vtype want)
{
	if (!node || node->kind != SL_NODE_SCALAR || node->span.end > e->src->len)
		return -SL_EUSAGE;
	if (node->style == SL_STYLE_LITERAL || node->style == SL_STYLE_FOLDED || node->computed)
		return -SL_ELIMIT;
	const struct sl_source *s = e->src;
	if (s->python) {
		int perr;
		const char *py = python_spell(e->arena, text, len, want, node->style, &perr);
		return py ? sl_edits_splice(e, node->span.start, node->span.end, py, strlen(py)) : perr;
	}
	size_t own = skip_props(s, node->span.start, node->span.end);
	const char *props = NULL;
	if (own > node->span.start) {
		size_t pe = own;
		while (pe > node->span.start && (is_hspace(s->bytes[pe - 1]) || is_break(s->bytes[pe - 1])))
			pe--;
		props = sl_arena_strndup(e->arena, s->bytes + node->span.start, pe - node->span.start);
	}
	int err;
	const char *sp = sl_edit_spell(e->arena, r, text, len, want, node->style, in_flow(node), props, &err);
	if (!sp)
		return err;
	return sl_edits_splice(e, own, node->span.end, sp, strlen(sp));
}

/* ---- insertions ----------------------------------------------------------------------- */

int sl_edits_insert_line(struct sl_edits *e, const struct sl_node *map, size_t before, const char *line)
{
	if (!map || map->kind != SL_NODE_MAP || map->style != SL_STYLE_BLOCK || before > map->n || !line)
		return -SL_EUSAGE;
	const struct sl_source *s = e->src;
	struct elem *el;
	int rc = elements(e, map, &el, NULL);
	if (rc < 0)
		return rc;
	const char *nl = s->crlf ? "\r\n" : "\n";
	struct sl_buf indent;
	sl_buf_init(&indent, e->arena);
	if (first_on_line(s, el[0].s)) {
		size_t lb = line_begin(s, el[0].s);
		sl_buf_add(&indent, s->bytes + lb, el[0].s - lb);
	} else {
		uint32_t l, c;
		sl_source_linecol(s, el[0].s, &l, &c);
		for (uint32_t i = 1; i < c; i++)
			sl_buf_addc(&indent, ' ');
	}
	size_t pos;
	if (before == 0) {
		if (!first_on_line(s, el[0].s))
			return -SL_ELIMIT;
		pos = line_begin(s, el[0].s);
	} else if ((rc = block_cut_end(s, el[before - 1], &pos)) < 0) {
		return rc;
	}
	char *text;
	if (pos == s->len && s->len && !is_break(s->bytes[s->len - 1]))
		text = sl_arena_printf(e->arena, "%s%s%s", nl, indent.buf, line);
	else
		text = sl_arena_printf(e->arena, "%s%s%s", indent.buf, line, nl);
	return sl_edits_splice(e, pos, pos, text, strlen(text));
}

int sl_edits_insert_pair(struct sl_edits *e, const struct sl_scalar_resolver *r, const struct sl_node *map,
			 size_t before, const char *key, const char *value, enum sl_vtype want)
{
	if (!key || !value)
		return -SL_EUSAGE;
	int err;
	const char *k = sl_edit_spell(e->arena, r, key, strlen(key), SL_V_STR, SL_STYLE_PLAIN, false, NULL, &err);
	if (!k)
		return err;
	const char *v = sl_edit_spell(e->arena, r, value, strlen(value), want, SL_STYLE_PLAIN, false, NULL, &err);
	if (!v)
		return err;
	return sl_edits_insert_line(e, map, before, sl_arena_printf(e->arena, "%s: %s", k, v));
}
