/*
 * rewrite/prune: boxes over an evaluation, pruning a box to the values that
 * fit somewhere in it, split --by, and the edits that narrow a sweep to a
 * box.
 */
#include "sweeplint/rewrite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/edit.h"
#include "sweeplint/roles.h"
#include "sweeplint/ydoc.h"
#include "walk.h"

enum sl_rw_class sl_rw_class_of(enum sl_verdict v)
{
	switch (v) {
	case SL_VERDICT_FIT:
	case SL_VERDICT_NEAR:
		return SL_RW_FEASIBLE;
	case SL_VERDICT_OOM:
		return SL_RW_OOM;
	default:
		return SL_RW_UNKNOWN;
	}
}

/* ---- walking the combinations of a box ---- */

bool sl_walk_start(const struct sl_rewrite *rw, const struct sl_box *b, struct sl_walk *w)
{
	struct sl_arena *a = rw->arena;
	size_t n = rw->naxes;
	w->n = n;
	w->idx = sl_arena_array(a, n ? n : 1, sizeof *w->idx);
	w->pos = sl_arena_array(a, n ? n : 1, sizeof *w->pos);
	w->cnt = sl_arena_array(a, n ? n : 1, sizeof *w->cnt);
	w->vals = sl_arena_array(a, n ? n : 1, sizeof *w->vals);
	w->c = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sl_eval_axis *ax = rw->axes[i].ax;
		if (b->view_axis == i + 1) {
			/* split --by's one value: no scan of the whole list */
			w->vals[i] = sl_arena_array(a, 1, sizeof **w->vals);
			if (!b->keep[i][b->view_value])
				return false;
			w->vals[i][w->cnt[i]++] = (uint32_t)b->view_value;
			w->idx[i] = w->vals[i][0];
			w->c += w->idx[i] * ax->stride;
			continue;
		}
		/* only the kept values: a box of one value of a 5,000-value axis holds one, not 5,000 */
		size_t kept = 0;
		for (size_t j = 0; j < ax->n; j++)
			kept += b->keep[i][j];
		w->vals[i] = sl_arena_array(a, kept ? kept : 1, sizeof **w->vals);
		for (size_t j = 0; j < ax->n; j++)
			if (b->keep[i][j])
				w->vals[i][w->cnt[i]++] = (uint32_t)j;
		if (!w->cnt[i])
			return false;
		w->idx[i] = w->vals[i][0];
		w->c += w->idx[i] * ax->stride;
	}
	return true;
}

bool sl_walk_next(const struct sl_rewrite *rw, struct sl_walk *w)
{
	for (size_t i = w->n; i-- > 0;) {
		uint64_t stride = rw->axes[i].ax->stride;
		w->c -= w->idx[i] * stride;
		if (++w->pos[i] < w->cnt[i]) {
			w->idx[i] = w->vals[i][w->pos[i]];
			w->c += w->idx[i] * stride;
			return true;
		}
		w->pos[i] = 0;
		w->idx[i] = w->vals[i][0];
		w->c += w->idx[i] * stride;
	}
	return false;
}

/* ---- setting up ---- */

/* The first kept value and one past the last: [lo, hi) (lo == hi when none is kept). */
static void kept_ends(const bool *keep, size_t m, size_t *lo, size_t *hi)
{
	*lo = 0, *hi = m;
	while (*lo < m && !keep[*lo])
		++*lo;
	while (*hi > *lo && !keep[*hi - 1])
		--*hi;
}

static bool under_anchor(const struct sl_node *n)
{
	for (; n; n = n->parent)
		if (n->anchor)
			return true;
	return false;
}

static bool text_is_int(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Why a value a sweep written in Python computes is not rewritten (ydoc.h `computed`). */
static const char *computed_why(const struct sl_rewrite *rw, const struct sl_node *n)
{
	return sl_arena_printf(rw->arena, "it is computed by the code (%s), not written as a literal there: change "
					  "the code",
			       n->computed);
}

static void classify_axis(const struct sl_rewrite *rw, struct sl_rw_axis *x)
{
	const struct sl_eval_axis *ax = x->ax;
	const struct sl_param *p = ax->param;
	x->kind = SL_RW_FIXED;
	if (ax->origin != SL_AXIS_SWEEP || !p || ax->n < 2)
		return;
	switch (p->dist) {
	case SL_DIST_CATEGORICAL:
		if (!p->values || p->values->kind != SL_NODE_SEQ || p->values->n != ax->n) {
			x->why = "its values do not match its list";
			return;
		}
		if (under_anchor(p->values)) {
			x->why = "its list is under an anchor that other parts of the file may alias";
			return;
		}
		if (p->values->computed) {
			x->why = computed_why(rw, p->values);
			return;
		}
		x->kind = SL_RW_LIST;
		for (size_t j = 0; j < p->values->n; j++)
			if (p->values->items[j]->anchor) {
				if (!x->pinned)
					x->pinned = sl_arena_array(rw->arena, ax->n, sizeof *x->pinned);
				x->pinned[j] = true; /* an alias further down refers to it */
			}
		return;
	case SL_DIST_CATEGORICAL_W_PROBABILITIES:
		x->why = "its probabilities would have to be rescaled";
		return;
	case SL_DIST_INT_UNIFORM:
	case SL_DIST_Q_UNIFORM:
	case SL_DIST_UNIFORM:
	case SL_DIST_LOG_UNIFORM_VALUES:
	case SL_DIST_INV_LOG_UNIFORM_VALUES:
	case SL_DIST_Q_LOG_UNIFORM_VALUES:
		if (!p->min || !p->max || p->min->kind != SL_NODE_SCALAR || p->max->kind != SL_NODE_SCALAR) {
			x->why = "its range has no written min and max";
			return;
		}
		if (p->min->style == SL_STYLE_LITERAL || p->min->style == SL_STYLE_FOLDED ||
		    p->max->style == SL_STYLE_LITERAL || p->max->style == SL_STYLE_FOLDED) {
			x->why = "its bounds are block scalars";
			return;
		}
		if (under_anchor(p->max) || under_anchor(p->min)) {
			x->why = "its bounds are under an anchor that other parts of the file may alias";
			return;
		}
		if (p->min->computed || p->max->computed || (p->node && p->node->computed)) {
			x->why = computed_why(rw, p->min->computed ? p->min : p->max->computed ? p->max : p->node);
			return;
		}
		if (!ax->bounds && (p->dist == SL_DIST_INT_UNIFORM || p->dist == SL_DIST_Q_UNIFORM)) {
			x->kind = SL_RW_RANGE;
			x->is_int = true;
			for (size_t j = 0; j < ax->n; j++)
				x->is_int &= text_is_int(ax->values[j].text);
			if (p->dist == SL_DIST_Q_UNIFORM)
				x->is_int &= p->q_int;
			return;
		}
		if (ax->bounds && ax->n == 2) {
			if (p->dist == SL_DIST_LOG_UNIFORM_VALUES || p->dist == SL_DIST_INV_LOG_UNIFORM_VALUES ||
			    p->dist == SL_DIST_Q_LOG_UNIFORM_VALUES) {
				x->why = "lowering the bound of a log distribution changes its shape";
				return;
			}
			x->kind = SL_RW_BOUNDS;
			x->is_int = p->max->value.type == SL_V_INT || p->dist == SL_DIST_INT_UNIFORM ||
				    p->dist == SL_DIST_Q_UNIFORM;
			return;
		}
		x->why = "its range was evaluated in an unusual way";
		return;
	default:
		x->why = "its distribution is not a list or a range";
		return;
	}
}

int sl_rewrite_init(struct sl_rewrite *rw, struct sl_arena *a, const struct sl_eval *ev,
		    const struct sl_scalar_resolver *res, const char **why)
{
	memset(rw, 0, sizeof *rw);
	rw->arena = a;
	rw->ev = ev;
	rw->sweep = ev->sweep;
	rw->res = res;
	rw->budget = 20u * 1000 * 1000;
	if (ev->too_many) {
		*why = "too many memory combinations to evaluate (rule too-many-combinations)";
		return -SL_ELIMIT;
	}
	if (!ev->cells) {
		*why = "no combination was evaluated (no GPU or model catalog)";
		return -SL_ELIMIT;
	}
	if (ev->truncated) {
		*why = sl_arena_printf(a, "too many memory combinations to rewrite value by value "
					  "(some axes were evaluated at their bounds only)");
		return -SL_ELIMIT;
	}
	rw->naxes = ev->naxes;
	rw->axes = sl_arena_array(a, ev->naxes ? ev->naxes : 1, sizeof *rw->axes);
	uint64_t total = 1;
	for (size_t i = 0; i < ev->naxes; i++) {
		rw->axes[i].ax = &ev->axes[i];
		classify_axis(rw, &rw->axes[i]);
		total *= ev->axes[i].n;
	}
	rw->ncombos = total;
	rw->vd = sl_arena_array(a, total, 1);
	uint32_t *idx = sl_eval_combo(a, ev, SIZE_MAX, 0);
	uint64_t c = 0;
	do /* one verdict per combination, held axes included (ev->cells holds one per cell) */
		rw->vd[c++] = (uint8_t)sl_rw_class_of(sl_eval_verdict(ev, idx));
	while (sl_eval_next(ev, idx));
	return 0;
}

/* ---- boxes ---- */

struct sl_box *sl_box_whole(const struct sl_rewrite *rw)
{
	struct sl_box *b = sl_arena_alloc(rw->arena, sizeof *b);
	size_t n = rw->naxes;
	b->keep = sl_arena_array(rw->arena, n ? n : 1, sizeof *b->keep);
	b->max = sl_arena_array(rw->arena, n ? n : 1, sizeof *b->max);
	for (size_t i = 0; i < n; i++) {
		size_t m = rw->axes[i].ax->n;
		b->keep[i] = sl_arena_array(rw->arena, m, sizeof **b->keep);
		for (size_t j = 0; j < m; j++)
			b->keep[i][j] = true;
	}
	b->vd = rw->vd;
	sl_box_count(rw, b);
	return b;
}

struct sl_box *sl_box_copy(const struct sl_rewrite *rw, const struct sl_box *src)
{
	struct sl_box *b = sl_arena_alloc(rw->arena, sizeof *b);
	*b = *src;
	size_t n = rw->naxes;
	b->keep = sl_arena_array(rw->arena, n ? n : 1, sizeof *b->keep);
	b->max = sl_arena_array(rw->arena, n ? n : 1, sizeof *b->max);
	for (size_t i = 0; i < n; i++) {
		size_t m = rw->axes[i].ax->n;
		b->keep[i] = sl_arena_array(rw->arena, m, sizeof **b->keep);
		memcpy(b->keep[i], src->keep[i], m * sizeof **b->keep);
		b->max[i] = src->max[i];
	}
	b->view_axis = 0; /* every array copied: the copy's own */
	return b;
}

/* src with axis `axis` a view of the shared one-hot window (only value j kept); the other axes copied. */
static struct sl_box *box_with_view(const struct sl_rewrite *rw, const struct sl_box *src, size_t axis,
				    const bool *window, size_t j)
{
	struct sl_box *b = sl_arena_alloc(rw->arena, sizeof *b);
	*b = *src;
	size_t n = rw->naxes, m = rw->axes[axis].ax->n;
	b->keep = sl_arena_array(rw->arena, n ? n : 1, sizeof *b->keep);
	b->max = sl_arena_array(rw->arena, n ? n : 1, sizeof *b->max);
	for (size_t i = 0; i < n; i++) {
		b->max[i] = src->max[i];
		if (i == axis) {
			b->keep[i] = (bool *)window + (m - 1 - j); /* keep[i][k] = window[m - 1 - j + k]: k == j */
			continue;
		}
		size_t mi = rw->axes[i].ax->n;
		b->keep[i] = sl_arena_array(rw->arena, mi, sizeof **b->keep);
		memcpy(b->keep[i], src->keep[i], mi * sizeof **b->keep);
	}
	b->view_axis = axis + 1;
	b->view_value = j;
	return b;
}

/* Axis i's keep array, the box's own (a shared view is copied first). */
static bool *keep_mut(const struct sl_rewrite *rw, struct sl_box *b, size_t i)
{
	if (b->view_axis == i + 1) {
		size_t m = rw->axes[i].ax->n;
		bool *own = sl_arena_array(rw->arena, m, sizeof *own);
		memcpy(own, b->keep[i], m * sizeof *own);
		b->keep[i] = own;
		b->view_axis = 0;
	}
	return b->keep[i];
}

void sl_box_count(const struct sl_rewrite *rw, struct sl_box *b)
{
	memset(b->n, 0, sizeof b->n);
	struct sl_walk w;
	if (!sl_walk_start(rw, b, &w))
		return;
	do
		b->n[b->vd[w.c]]++;
	while (sl_walk_next(rw, &w));
}

uint64_t sl_box_fitting_in_sweep(const struct sl_rewrite *rw, const struct sl_box *b)
{
	uint64_t n = 0;
	struct sl_walk w;
	if (!sl_walk_start(rw, b, &w))
		return 0;
	do
		n += rw->vd[w.c] == SL_RW_FEASIBLE;
	while (sl_walk_next(rw, &w));
	return n;
}

/* ---- lowering the upper bound of a range evaluated at its bounds ---- */

/* ev with the box's lowered bounds and axis i's upper bound at v. */
static struct sl_eval *with_bound(const struct sl_rewrite *rw, const struct sl_box *b, size_t i, uint64_t v)
{
	struct sl_arena *a = rw->arena;
	struct sl_eval *ev = sl_arena_alloc(a, sizeof *ev);
	*ev = *rw->ev;
	ev->axes = sl_arena_array(a, rw->naxes ? rw->naxes : 1, sizeof *ev->axes);
	memcpy(ev->axes, rw->ev->axes, rw->naxes * sizeof *ev->axes);
	for (size_t k = 0; k < rw->naxes; k++) {
		uint64_t m = k == i ? v : b->max[k];
		if (!m || rw->axes[k].kind != SL_RW_BOUNDS)
			continue;
		struct sl_eval_axis *ax = &ev->axes[k];
		struct sl_eval_value *vals = sl_arena_array(a, ax->n, sizeof *vals);
		memcpy(vals, ax->values, ax->n * sizeof *vals);
		struct sl_role_value *rv = sl_arena_array(a, vals[1].nrv ? vals[1].nrv : 1, sizeof *rv);
		if (vals[1].nrv)
			memcpy(rv, vals[1].rv, vals[1].nrv * sizeof *rv);
		else
			rv[0] = vals[0].rv[0];
		rv[0].u = m;
		vals[1].rv = rv;
		vals[1].nrv = vals[1].nrv ? vals[1].nrv : 1;
		vals[1].ok = vals[0].ok;
		ax->values = vals;
	}
	return ev;
}

static enum sl_rw_class class_at(const struct sl_eval *ev, const uint32_t *idx)
{
	struct sl_breakdown bd;
	if (!sl_eval_estimate(ev, idx, &bd))
		return SL_RW_UNKNOWN;
	return sl_rw_class_of(sl_eval_classify(ev, bd.total));
}

/* Does some combination of b with axis i at its upper bound v fit (or is unknown)? */
static bool fits_somewhere(const struct sl_rewrite *rw, const struct sl_box *b, size_t i, uint64_t v)
{
	struct sl_eval *ev = with_bound(rw, b, i, v);
	struct sl_box *top = sl_box_copy(rw, b);
	top->keep[i][0] = false;
	top->keep[i][1] = true;
	struct sl_walk w;
	if (!sl_walk_start(rw, top, &w))
		return false;
	do
		if (class_at(ev, w.idx) != SL_RW_OOM)
			return true;
	while (sl_walk_next(rw, &w));
	return false;
}

/* Lower axis i's upper bound to the largest value that fits somewhere; false when none above min does. */
static bool lower_bound(const struct sl_rewrite *rw, struct sl_box *b, size_t i)
{
	const struct sl_eval_axis *ax = rw->axes[i].ax;
	if (!ax->values[0].ok || !ax->values[1].ok || !ax->values[0].nrv || !ax->values[1].nrv)
		return false;
	uint64_t lo = ax->values[0].rv[0].u, hi = b->max[i] ? b->max[i] : ax->values[1].rv[0].u;
	if (hi <= lo + 1)
		return false;
	/* lo + 1 .. hi - 1: the largest that fits somewhere (memory grows with the value) */
	uint64_t l = lo, h = hi - 1;
	while (l < h) {
		uint64_t mid = l + (h - l + 1) / 2;
		if (fits_somewhere(rw, b, i, mid))
			l = mid;
		else
			h = mid - 1;
	}
	if (l <= lo)
		return false;
	b->max[i] = l;
	/* the box's own table: the combinations at the upper bound estimated again */
	struct sl_eval *ev = with_bound(rw, b, i, l);
	uint8_t *vd = sl_arena_array(rw->arena, rw->ncombos, 1);
	memcpy(vd, b->vd, rw->ncombos);
	struct sl_box *top = sl_box_copy(rw, b);
	for (size_t k = 0; k < rw->naxes; k++)
		for (size_t j = 0; j < rw->axes[k].ax->n; j++)
			top->keep[k][j] = true;
	top->keep[i][0] = false;
	struct sl_walk w;
	if (sl_walk_start(rw, top, &w))
		do
			vd[w.c] = (uint8_t)class_at(ev, w.idx);
		while (sl_walk_next(rw, &w));
	b->vd = vd;
	return true;
}

/* ---- pruning ---- */

size_t sl_rewrite_prune(const struct sl_rewrite *rw, struct sl_box *b)
{
	size_t n = rw->naxes;
	/* the flags of this pruning alone: a scratch arena (split --by prunes one box per value) */
	struct sl_arena *tmp = sl_arena_new();
	bool **seen = sl_arena_array(tmp, n ? n : 1, sizeof *seen);
	for (size_t i = 0; i < n; i++)
		/* a view axis keeps one value: the rest are never seen, never kept */
		seen[i] = b->view_axis == i + 1 ? NULL : sl_arena_array(tmp, rw->axes[i].ax->n, sizeof **seen);
	struct sl_walk w;
	bool any = false;
	if (sl_walk_start(rw, b, &w))
		do
			if (b->vd[w.c] != SL_RW_OOM) {
				any = true;
				for (size_t i = 0; i < n; i++)
					if (seen[i])
						seen[i][w.idx[i]] = true;
			}
		while (sl_walk_next(rw, &w));
	if (!any) {
		sl_arena_free(tmp);
		sl_box_count(rw, b);
		return 0; /* nothing fits: nothing to keep a value for */
	}
	size_t dropped = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sl_rw_axis *x = &rw->axes[i];
		size_t m = x->ax->n;
		if (!seen[i])
			continue; /* the view's one value was seen: something fits (any) and every combination holds it */
		bool *keep = keep_mut(rw, b, i);
		switch (x->kind) {
		case SL_RW_LIST:
			for (size_t j = 0; j < m; j++)
				if (keep[j] && !seen[i][j] && !(x->pinned && x->pinned[j])) {
					keep[j] = false;
					dropped++;
				}
			break;
		case SL_RW_RANGE: {
			/* a range stays a range: only its ends move */
			size_t lo, hi;
			kept_ends(keep, m, &lo, &hi);
			while (lo < hi && !seen[i][lo]) {
				keep[lo++] = false;
				dropped++;
			}
			while (hi > lo && !seen[i][hi - 1]) {
				keep[--hi] = false;
				dropped++;
			}
			break;
		}
		case SL_RW_BOUNDS:
			if (keep[0] && keep[1] && seen[i][0] && !seen[i][1] && lower_bound(rw, b, i))
				dropped++;
			break;
		default:
			break;
		}
	}
	sl_arena_free(tmp);
	sl_box_count(rw, b);
	return dropped;
}

/* ---- split --by ---- */

size_t sl_rewrite_find_key(const struct sl_rewrite *rw, const char *key, const struct sl_param **param)
{
	const struct sl_param *p = sl_sweep_param(rw->sweep, key);
	*param = p;
	if (p) {
		for (size_t i = 0; i < rw->naxes; i++)
			if (rw->axes[i].ax->param == p && rw->axes[i].ax->origin == SL_AXIS_SWEEP)
				return i;
		return SIZE_MAX;
	}
	int role = sl_role_parse(key);
	if (role < 0)
		return SIZE_MAX;
	for (size_t i = rw->naxes; i-- > 0;)
		if (rw->axes[i].ax->role == (enum sl_role)role && rw->axes[i].ax->origin == SL_AXIS_SWEEP &&
		    rw->axes[i].ax->param) {
			*param = rw->axes[i].ax->param;
			return i;
		}
	return SIZE_MAX;
}

int sl_rewrite_split_by(const struct sl_rewrite *rw, const struct sl_box *whole, const struct sl_param *p,
			size_t axis, struct sl_box ***out, size_t *n, size_t *nskipped, const char **why)
{
	*out = NULL;
	*n = 0;
	*nskipped = 0;
	if (p->dist != SL_DIST_CATEGORICAL || !p->values || p->values->kind != SL_NODE_SEQ) {
		*why = sl_arena_printf(rw->arena, "cannot split by '%s': it has no `values:` list (it is %s)", p->path,
				       sl_dist_name(p->dist));
		return -SL_EUSAGE;
	}
	if (axis != SIZE_MAX && rw->axes[axis].kind != SL_RW_LIST) {
		*why = sl_arena_printf(rw->arena, "cannot split by '%s': %s", p->path,
				       rw->axes[axis].why ? rw->axes[axis].why : "its values cannot be narrowed");
		return -SL_EUSAGE;
	}
	if (p->values->computed) {
		*why = sl_arena_printf(rw->arena, "cannot split by '%s': %s", p->path, computed_why(rw, p->values));
		return -SL_EUSAGE;
	}
	if (axis == SIZE_MAX && under_anchor(p->values)) {
		*why = sl_arena_printf(rw->arena, "cannot split by '%s': its list is under an anchor", p->path);
		return -SL_EUSAGE;
	}
	size_t m = p->values->n;
	struct sl_box **boxes = sl_arena_array(rw->arena, m ? m : 1, sizeof *boxes);
	/* one window of 2m - 1 flags, true in the middle, that every box views at its own offset */
	bool *window = NULL;
	if (axis != SIZE_MAX && m) {
		window = sl_arena_array(rw->arena, 2 * m - 1, sizeof *window);
		window[m - 1] = true;
	}
	for (size_t j = 0; j < m; j++) {
		struct sl_box *b;
		if (axis != SIZE_MAX) {
			b = box_with_view(rw, whole, axis, window, j);
		} else {
			b = sl_box_copy(rw, whole);
			b->by_param = p;
			b->by_item = j;
		}
		const struct sl_node *it = p->values->items[j];
		b->value = it->kind == SL_NODE_SCALAR ? it->text : sl_node_describe(it);
		sl_rewrite_prune(rw, b);
		if (b->n[SL_RW_FEASIBLE] + b->n[SL_RW_UNKNOWN] == 0) {
			(*nskipped)++;
			continue;
		}
		boxes[(*n)++] = b;
	}
	*out = boxes;
	return 0;
}

/* ---- edits ---- */

const char *sl_rewrite_value_text(const struct sl_rewrite *rw, size_t axis, size_t value)
{
	const struct sl_eval_value *v = &rw->axes[axis].ax->values[value];
	if (v->node && v->node->kind != SL_NODE_SCALAR)
		return sl_node_describe(v->node);
	return v->text ? v->text : "?";
}

/* A bound as the text to write: integers as integers, else the shortest spelling that reads back. */
static const char *number_text(struct sl_arena *a, double x, bool is_int)
{
	if (is_int && x == floor(x) && fabs(x) < 9e15)
		return sl_arena_printf(a, "%lld", (long long)x);
	for (int prec = 6; prec <= 17; prec++) {
		char buf[64];
		snprintf(buf, sizeof buf, "%.*g", prec, x);
		if (strtod(buf, NULL) == x || prec == 17) {
			/* a float must look like one to PyYAML: a dot before any exponent */
			if (!strpbrk(buf, ".eEn"))
				return sl_arena_printf(a, "%s.0", buf);
			if (!strchr(buf, '.') && strpbrk(buf, "eE")) {
				char *e = strpbrk(buf, "eE");
				return sl_arena_printf(a, "%.*s.0%s", (int)(e - buf), buf, e);
			}
			return sl_arena_strdup(a, buf);
		}
	}
	return sl_arena_printf(a, "%.17g", x);
}

static int set_bound(const struct sl_rewrite *rw, struct sl_edits *e, const struct sl_node *node, const char *text,
		     bool is_int, const char **why)
{
	int rc = sl_edits_set_scalar(e, rw->res, node, text, strlen(text), is_int ? SL_V_INT : SL_V_FLOAT);
	if (rc < 0)
		*why = sl_arena_printf(rw->arena, "cannot rewrite the bound on line %u to %s: %s", node->span.line, text,
				       sl_strerror(rc));
	return rc;
}

/*
 * A range written as the one value it keeps: `max:` becomes `value:`, `min:`
 * and `q:` go, a `distribution:` becomes constant (min/max of a mapping
 * parameter spec, in any layout the editor handles).
 */
static int collapse(const struct sl_rewrite *rw, struct sl_edits *e, const struct sl_param *p, const char *text,
		    bool is_int, const char **why)
{
	struct sl_arena *a = rw->arena;
	const struct sl_node *map = p->node;
	int rc = 0;
	if (!map || map->kind != SL_NODE_MAP) {
		*why = sl_arena_printf(a, "'%s' is not a mapping", p->path);
		return -SL_ELIMIT;
	}
	for (size_t i = 0; i < map->n && rc == 0; i++) {
		const struct sl_node *k = map->pairs[i].key, *v = map->pairs[i].value;
		if (k->kind != SL_NODE_SCALAR) {
			rc = -SL_ELIMIT;
			break;
		}
		if (k->value.merge || strcmp(k->text, "<<") == 0)
			rc = -SL_ELIMIT; /* merged keys: the pairs are not all here */
		else if (strcmp(k->text, "min") == 0 || strcmp(k->text, "q") == 0)
			rc = sl_edits_remove_pair(e, map, i);
		else if (strcmp(k->text, "distribution") == 0)
			rc = sl_edits_set_scalar(e, rw->res, v, "constant", 8, SL_V_STR);
		else if (strcmp(k->text, "max") == 0 && (rc = sl_edits_set_scalar(e, rw->res, k, "value", 5, SL_V_STR)) == 0)
			rc = sl_edits_set_scalar(e, rw->res, v, text, strlen(text), is_int ? SL_V_INT : SL_V_FLOAT);
	}
	if (rc < 0)
		*why = sl_arena_printf(a, "cannot write '%s' as the one value %s: %s", p->path, text, sl_strerror(rc));
	return rc;
}

static double value_number(const struct sl_eval_value *v)
{
	return v->text ? strtod(v->text, NULL) : NAN;
}

int sl_rewrite_edits(const struct sl_rewrite *rw, const struct sl_box *b, struct sl_edits *e, const char **why)
{
	struct sl_arena *a = rw->arena;
	for (size_t i = 0; i < rw->naxes; i++) {
		const struct sl_rw_axis *x = &rw->axes[i];
		const struct sl_eval_axis *ax = x->ax;
		const struct sl_param *p = ax->param;
		size_t m = ax->n;
		const bool *keep = b->keep[i];
		if (b->view_axis == i + 1) {
			/* split --by's one value: planned around it, not over the whole list */
			int rc = sl_edits_keep_item(e, p->values, b->view_value);
			if (rc < 0) {
				*why = sl_arena_printf(a, "cannot remove values of '%s': %s", p->path, sl_strerror(rc));
				return rc;
			}
			continue;
		}
		size_t nkeep = 0;
		for (size_t j = 0; j < m; j++)
			nkeep += keep[j];
		switch (x->kind) {
		case SL_RW_LIST: {
			if (nkeep == m)
				break;
			bool *drop = sl_arena_array(a, m, sizeof *drop);
			for (size_t j = 0; j < m; j++)
				drop[j] = !keep[j];
			int rc = sl_edits_remove_items(e, p->values, drop);
			if (rc < 0) {
				*why = sl_arena_printf(a, "cannot remove values of '%s': %s", p->path, sl_strerror(rc));
				return rc;
			}
			break;
		}
		case SL_RW_RANGE: {
			size_t lo, hi;
			kept_ends(keep, m, &lo, &hi);
			for (size_t j = lo; j < hi; j++)
				if (!keep[j]) {
					*why = sl_arena_printf(a, "'%s' would keep values that are not one range", p->path);
					return -SL_EINTERNAL;
				}
			if (hi - lo == 1 && hi - lo < m) {
				/* W&B wants min < max: a range down to one value becomes that constant */
				int rc = collapse(rw, e, p, number_text(a, value_number(&ax->values[lo]), x->is_int),
						  x->is_int, why);
				if (rc < 0)
					return rc;
				break;
			}
			if (lo > 0) {
				int rc = set_bound(rw, e, p->min, number_text(a, value_number(&ax->values[lo]), x->is_int),
						   x->is_int, why);
				if (rc < 0)
					return rc;
			}
			if (hi < m) {
				double top = value_number(&ax->values[hi - 1]);
				bool is_int = x->is_int;
				if (p->dist == SL_DIST_Q_UNIFORM) {
					/* W&B's grid takes arange(min, max, q) (max excluded) and random
					 * sampling rounds to a multiple of q: half a step above the last
					 * value keeps it and nothing above it */
					top += p->qv / 2;
					is_int = is_int && top == floor(top);
				}
				int rc = set_bound(rw, e, p->max, number_text(a, top, is_int), is_int, why);
				if (rc < 0)
					return rc;
			}
			break;
		}
		case SL_RW_BOUNDS:
			if (b->max[i]) {
				const char *t = x->is_int ? sl_arena_printf(a, "%llu", (unsigned long long)b->max[i])
							  : sl_arena_printf(a, "%llu.0", (unsigned long long)b->max[i]);
				int rc = set_bound(rw, e, p->max, t, x->is_int, why);
				if (rc < 0)
					return rc;
			}
			break;
		default:
			break;
		}
	}
	if (b->by_param) {
		const struct sl_node *seq = b->by_param->values;
		if (seq->n > 1) {
			int rc = sl_edits_keep_item(e, seq, b->by_item);
			if (rc < 0) {
				*why = sl_arena_printf(a, "cannot narrow '%s' to one value: %s", b->by_param->path,
						       sl_strerror(rc));
				return rc;
			}
		}
	}
	/* an anchored value removed: its aliases get its text */
	return sl_rewrite_inline_aliases(e, rw->sweep->doc, why);
}
