/*
 * cells: the product of the axes, evaluated. The evaluation bound (work =
 * combinations × axes, SL_EVAL_MAX_WORK) cuts the largest numeric axes to
 * their bounds; then every combination of the axes the peak reads is
 * estimated once, incrementally (only what a changed axis touches is
 * recomputed), its verdict and peak kept in a two-byte cell; the axes the
 * peak does not read are held (one cell per combination of the others).
 * Per-value statistics (best, worst, first worst combination) and the plain
 * counts by verdict come out of the same pass.
 */
#include "sweeplint/eval.h"

#include <math.h>
#include <stdlib.h>

#include <string.h>

#include "sweeplint/arena.h"

#include "enumerate_internal.h"

/* The product of the axes' value counts, saturating at UINT64_MAX (64 two-valued axes overflow 64 bits). */
uint64_t sl_eval_axes_product(const struct sl_eval *ev)
{
	uint64_t prod = 1;
	for (size_t i = 0; i < ev->naxes; i++)
		if (__builtin_mul_overflow(prod, (uint64_t)ev->axes[i].n, &prod))
			return UINT64_MAX;
	return prod;
}

/* The combinations this sweep's axes may make (SL_EVAL_MAX_WORK / axes, clamped). */
uint64_t sl_eval_bound(const struct sl_eval *ev)
{
	uint64_t axes = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		axes += ev->axes[i].n > 1;
	uint64_t bound = SL_EVAL_MAX_WORK / (axes ? axes : 1);
	return bound < SL_EVAL_MIN_COMBOS ? SL_EVAL_MIN_COMBOS : bound > SL_EVAL_MAX_COMBOS ? SL_EVAL_MAX_COMBOS : bound;
}

/*
 * Cut the largest numeric axes to their bounds until the product fits the
 * bound. When only two-valued axes are left and the product still does not
 * fit (many memory-relevant parameters), nothing is evaluated: too_many is
 * set and every combination stays unknown (rule too-many-combinations).
 */
void sl_eval_limit_axes(struct sl_eval_builder *B, uint64_t limit)
{
	struct sl_eval *ev = B->ev;
	for (;;) {
		uint64_t prod = sl_eval_axes_product(ev);
		if (prod <= limit)
			return;
		struct sl_eval_axis *big = NULL;
		for (size_t i = 0; i < ev->naxes; i++)
			if (ev->axes[i].n > 2 && (!big || ev->axes[i].n > big->n))
				big = &ev->axes[i];
		if (!big) {
			ev->too_many = true;
			ev->limit = limit;
			ev->ncombos = prod;
			return;
		}
		/* keep the smallest and largest value of a numeric axis; for others, the first and last */
		size_t lo = 0, hi = 0;
		for (size_t j = 0; j < big->n; j++) {
			if (!big->values[j].ok)
				continue;
			if (big->values[j].rv->u < big->values[lo].rv->u)
				lo = j;
			if (big->values[j].rv->u > big->values[hi].rv->u)
				hi = j;
		}
		if (lo == hi)
			hi = big->n - 1;
		struct sl_eval_value keep[2] = {big->values[lo], big->values[hi]};
		big->range = (struct sl_count){.value = big->n};
		big->values[0] = keep[0];
		big->values[1] = keep[1];
		big->n = 2;
		big->bounds = true;
		ev->truncated = true;
		sl_eval_add_note(B, big->key, "evaluation", (int)big->role,
		     sl_arena_printf(B->a, "too many combinations: %s values cut to their bounds",
				     sl_count_str(B->a, big->range)));
	}
}

/* ---- the product of the axes ---------------------------------------------------------- */

/*
 * A cell: the verdict in the top two bits, the peak in the other 14 as a step
 * that only orders peaks (the worst and blamed combinations; the heatmap
 * recomputes the figure): 1/1024 of capacity below 12 x capacity, then 256
 * steps per doubling up to 12 x 2^16 x capacity. A flat cap at 16 x capacity
 * made every peak past it tie, so a far-out sweep named its first combination
 * as the worst (batch 10000 at length 128 and 256: "worst: 128").
 */
enum { CELL_LINEAR = 12 * 1024, CELL_MAX = 0x3FFF };

static uint16_t cell_of(const struct sl_eval *ev, enum sl_verdict vd, uint64_t total)
{
	uint64_t q = CELL_MAX;
	if (ev->capacity) {
		double r = (double)total / (double)ev->capacity;
		if (r < CELL_LINEAR / 1024.0)
			q = (uint64_t)(r * 1024.0);
		else
			q = CELL_LINEAR + (uint64_t)(256.0 * log2(r * 1024.0 / CELL_LINEAR));
		if (q > CELL_MAX)
			q = CELL_MAX;
	}
	return (uint16_t)((unsigned)vd << 14 | (unsigned)q);
}

/*
 * The enumeration. A combination's settings are the fold of its axes'
 * role values in application order (sl_eval_settings). Batch size, sequence
 * length and target length are plain overwrites that read nothing, and no
 * other role reads them, so they commute with everything else: the
 * settings are those of the other ("static") axes with the three fields
 * taken from the last axis that sets each. The combinations are therefore
 * visited static axes outermost, then the axes deciding the lengths, then
 * the rest: the estimator's plan (sl_estimate_prepare) is made once per
 * static combination, its per-length terms once per length, and each
 * combination costs only its batch terms. Results do not depend on the
 * order: cells are indexed, and "the first worst" ties are broken by the
 * combination index, as the original order (last axis fastest) would.
 * tests/unit/test_fastpath.c compares every result with sl_eval_estimate.
 */
enum { F_BATCH, F_SEQ, F_TARGET, F__COUNT };

static int field_of(enum sl_role r)
{
	switch (r) {
	case SL_ROLE_BATCH_SIZE:
		return F_BATCH;
	case SL_ROLE_SEQ_LEN:
		return F_SEQ;
	case SL_ROLE_TARGET_LEN:
		return F_TARGET;
	default:
		return -1;
	}
}

/* The value a field takes from one axis value: its last role value for it; false when it has none. */
static bool value_field(const struct sl_eval_value *v, int f, uint64_t *u)
{
	bool has = false;
	for (size_t k = 0; k < v->nrv; k++)
		if (field_of(v->rv[k].role) == f) {
			*u = v->rv[k].u;
			has = true;
		}
	return has;
}

struct order {
	size_t *axis;            /* axes in visiting order (held axes are not visited) */
	size_t nvisit;           /* axes visited */
	size_t nstatic;          /* axis[0..nstatic) are static */
	size_t field_axis[F__COUNT]; /* the axis deciding each field, or SIZE_MAX */
	uint64_t *field_u[F__COUNT]; /* its value per value index */
};

/* The visiting order; false when some axis decides a field in only some of its values (then: in axis order). */
static bool plan_order(struct sl_eval_builder *B, struct order *O)
{
	struct sl_eval *ev = B->ev;
	size_t n = ev->naxes;
	O->axis = sl_arena_array(B->a, n ? n : 1, sizeof *O->axis);
	for (size_t i = 0; i < n; i++)
		if (ev->axes[i].only_axis >= 0)
			return false; /* a setting that holds under another axis's values: no field has one axis */
	bool *dyn = sl_arena_array(B->a, n ? n : 1, sizeof *dyn);
	bool *len = sl_arena_array(B->a, n ? n : 1, sizeof *len);
	for (int f = 0; f < F__COUNT; f++) {
		O->field_axis[f] = SIZE_MAX;
		for (size_t i = n; i-- > 0 && O->field_axis[f] == SIZE_MAX;) {
			const struct sl_eval_axis *ax = &ev->axes[i];
			size_t with = 0, ok = 0;
			uint64_t u;
			for (size_t j = 0; j < ax->n; j++) {
				ok += ax->values[j].ok;
				with += ax->values[j].ok && value_field(&ax->values[j], f, &u);
			}
			if (with == 0)
				continue;
			if (with != ok)
				return false;
			O->field_axis[f] = i;
			O->field_u[f] = sl_arena_array(B->a, ax->n, sizeof *O->field_u[f]);
			for (size_t j = 0; j < ax->n; j++)
				if (ax->values[j].ok)
					value_field(&ax->values[j], f, &O->field_u[f][j]);
			if (f != F_BATCH)
				len[i] = true;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		dyn[i] = ax->n > 1 && ax->role != SL_ROLE_MODEL && ax->only_axis < 0;
		for (size_t j = 0; j < ax->n && dyn[i]; j++)
			for (size_t k = 0; ax->values[j].ok && k < ax->values[j].nrv; k++)
				if (field_of(ax->values[j].rv[k].role) < 0)
					dyn[i] = false;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!dyn[i] && ev->axes[i].cell_stride)
			O->axis[k++] = i;
	O->nstatic = k;
	for (size_t i = 0; i < n; i++)
		if (dyn[i] && len[i] && ev->axes[i].cell_stride)
			O->axis[k++] = i;
	for (size_t i = 0; i < n; i++)
		if (dyn[i] && !len[i] && ev->axes[i].cell_stride)
			O->axis[k++] = i;
	O->nvisit = k;
	return true;
}

/* Per-value results while enumerating: the first worst by combination index. */
struct vstat {
	uint64_t worst, best;
	uint64_t worst_c;        /* UINT64_MAX: no known combination yet */
	uint64_t u[SL_VERDICT__COUNT];
};

static void note_value(struct vstat *st, uint64_t total, uint64_t c)
{
	if (total < st->best)
		st->best = total;
	if (st->worst_c == UINT64_MAX || total > st->worst || (total == st->worst && c < st->worst_c)) {
		st->worst = total;
		st->worst_c = c;
	}
}

/* Fold the results of a block of combinations into st. */
static void merge_stat(struct vstat *st, const struct vstat *blk)
{
	if (blk->worst_c != UINT64_MAX) {
		note_value(st, blk->worst, blk->worst_c);
		if (blk->best < st->best)
			st->best = blk->best;
	}
	for (int v = 0; v < SL_VERDICT__COUNT; v++)
		st->u[v] += blk->u[v];
}

/* The combination of cell c (held axes at their first value). */
static void decode_combo(const struct sl_eval *ev, uint64_t c, uint32_t *idx)
{
	for (size_t i = 0; i < ev->naxes; i++) {
		uint64_t st = ev->axes[i].cell_stride;
		idx[i] = st ? (uint32_t)(c / st) : 0;
		if (st)
			c %= st;
	}
}

/* Fold the results of one static combination (block) into its static values and the total; reset it. */
static void flush_block(const struct order *O, const size_t *first, const uint32_t *idx, struct vstat *vs,
			struct vstat *all, struct vstat *blk)
{
	for (size_t k = 0; k < O->nstatic; k++)
		merge_stat(&vs[first[O->axis[k]] + idx[O->axis[k]]], blk);
	merge_stat(all, blk);
	*blk = (struct vstat){.best = UINT64_MAX, .worst_c = UINT64_MAX};
}

/* The static part of a combination: its settings, model and whether its static values are known. */
static bool static_settings(const struct sl_eval *ev, const struct order *O, const uint32_t *idx,
			    struct sl_settings *s, const struct sl_model **m)
{
	sl_eval_settings(ev, idx, s, m);
	bool known = *m != NULL;
	for (size_t k = 0; k < O->nstatic; k++) {
		const struct sl_eval_axis *ax = &ev->axes[O->axis[k]];
		known &= ax->values[ax->n == 1 ? 0 : idx[O->axis[k]]].ok;
	}
	return known;
}

/* Settings fields the estimator does not read, cleared to compare plans. */
static void plan_key(struct sl_settings *k)
{
	k->batch_size = k->seq_len = k->target_len = 0;
	k->eval_batch_size = 0;
	k->num_workers = 0;
	k->pin_memory = false;
}

/*
 * Hold the axes the peak does not read (walk.c: the DataLoader's workers and
 * pinning, a training sweep's eval batch) when no axis is cut to its bounds
 * (their corners are counted as blocks, tally): their values share one cell
 * per combination of the other axes, which are all that is estimated. Sets
 * every axis's stride and cell stride, ncombos and ncells.
 */
static void hold_axes(struct sl_eval_builder *B)
{
	struct sl_eval *ev = B->ev;
	size_t n = ev->naxes;
	bool bounds = false;
	for (size_t i = 0; i < n; i++)
		bounds |= ev->axes[i].bounds;
	struct sl_eval_walk w;
	sl_eval_walk_init(B->a, ev, bounds || B->o->exhaustive ? 0 : sl_eval_unread_roles(ev, SL_MEASURE_STEP), &w);
	uint64_t stride = 1, cell = 1;
	for (size_t i = n; i-- > 0;) {
		struct sl_eval_axis *ax = &ev->axes[i];
		ax->stride = stride;
		stride *= ax->n;
		ax->cell_stride = w.steps[i] ? cell : 0;
		if (w.steps[i])
			cell *= ax->n;
	}
	ev->ncombos = stride;
	ev->ncells = cell;
}

void sl_eval_enumerate(struct sl_eval_builder *B)
{
	struct sl_eval *ev = B->ev;
	struct sl_arena *a = B->a;
	size_t n = ev->naxes;
	hold_axes(B);
	ev->cells = malloc(ev->ncells * sizeof *ev->cells);
	if (!ev->cells)
		sl_oom();
	sl_arena_defer(a, free, ev->cells);
	ev->worst_combo = sl_arena_array(a, n ? n : 1, sizeof *ev->worst_combo);

	struct order O;
	bool fast = plan_order(B, &O);
	if (!fast) {
		/* some axis sets a length or the batch in only some of its values: the axes in order */
		O.nvisit = 0;
		for (size_t i = 0; i < n; i++)
			if (ev->axes[i].cell_stride)
				O.axis[O.nvisit++] = i;
		O.nstatic = O.nvisit;
	}
	size_t nv = O.nvisit;
	/* per-value statistics, flattened */
	size_t *first = sl_arena_array(a, n ? n : 1, sizeof *first);
	size_t nvalues = 0;
	for (size_t i = 0; i < n; i++) {
		first[i] = nvalues;
		nvalues += ev->axes[i].n;
	}
	struct vstat *vs = malloc((nvalues ? nvalues : 1) * sizeof *vs);
	if (!vs)
		sl_oom();
	for (size_t i = 0; i < nvalues; i++)
		vs[i] = (struct vstat){.best = UINT64_MAX, .worst_c = UINT64_MAX};
	struct vstat all = {.best = UINT64_MAX, .worst_c = UINT64_MAX};
	struct vstat blk = all;      /* the current static combination's results */

	uint32_t *idx = sl_arena_array(a, n ? n : 1, sizeof *idx);
	struct sl_estimate_plan *plan = sl_estimate_plan_new(a);
	struct sl_settings s, key, plan_s;
	const struct sl_model *m = NULL, *plan_m = NULL;
	bool have_plan = false, static_known = false;
	size_t bad_dyn = 0;          /* dynamic axes at a value that is not ok */
	for (size_t k = O.nstatic; k < nv; k++)
		bad_dyn += !ev->axes[O.axis[k]].values[0].ok;
	size_t changed = 0;          /* axes O.axis[changed..] moved since the last combination */
	uint64_t c = 0;
	/* a family's combinations whose sizes disagree (fit at the smallest, not at the largest): unknown */
	uint64_t disagree = 0, disagree_lo = 0, disagree_hi = 0;
	const struct sl_model *disagree_m = NULL;
	for (;;) {
		if (changed < O.nstatic) {
			static_known = static_settings(ev, &O, idx, &s, &m);
			if (static_known && fast) {
				memcpy(&key, &s, sizeof key);
				plan_key(&key);
				if (!have_plan || m != plan_m || memcmp(&key, &plan_s, sizeof key) != 0) {
					sl_estimate_prepare(plan, &m->arch, &s, ev->gpu, &ev->cat->calib);
					memcpy(&plan_s, &key, sizeof key);
					plan_m = m;
					have_plan = true;
				}
			}
		}
		uint64_t total = 0;
		bool known = static_known && bad_dyn == 0;
		if (known) {
			struct sl_breakdown bd;
			if (fast) {
				for (int f = 0; f < F__COUNT; f++)
					if (O.field_axis[f] != SIZE_MAX) {
						uint64_t u = O.field_u[f][idx[O.field_axis[f]]];
						if (f == F_BATCH)
							s.batch_size = u;
						else if (f == F_SEQ)
							s.seq_len = u;
						else
							s.target_len = u;
					}
				sl_estimate_at(plan, &s, &bd);
			} else {
				sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, &bd);
			}
			total = bd.total;
			ev->evaluated++;
		}
		enum sl_verdict vd = known ? sl_eval_classify(ev, total) : SL_VERDICT_UNKNOWN;
		if (vd == SL_VERDICT_OOM && m->nsizes > 1) {
			/* a family of sizes, estimated at its largest: out of memory there, and at its smallest? A
			 * size's peak grows with it, so the two settle every size; where they disagree, no verdict */
			struct sl_breakdown lo;
			sl_estimate(&m->sizes[0]->arch, &s, ev->gpu, &ev->cat->calib, &lo);
			if (sl_eval_classify(ev, lo.total) != SL_VERDICT_OOM) {
				vd = SL_VERDICT_UNKNOWN;
				known = false;
				disagree++;
				if (!disagree_m || lo.total < disagree_lo) {
					disagree_m = m;
					disagree_lo = lo.total;
				}
				if (total > disagree_hi)
					disagree_hi = total;
			}
		}
		ev->cells[c] = cell_of(ev, vd, total);
		/* the static axes' values are those of the whole block: their results are the block's */
		blk.u[vd]++;
		if (known)
			note_value(&blk, total, c);
		for (size_t k = O.nstatic; k < nv; k++) {
			struct vstat *st = &vs[first[O.axis[k]] + idx[O.axis[k]]];
			st->u[vd]++;
			if (known)
				note_value(st, total, c);
		}
		/* the next combination: O.axis[nv-1] fastest */
		size_t k = nv;
		while (k-- > 0) {
			size_t i = O.axis[k];
			if (k + 1 == O.nstatic) { /* the block ends */
				flush_block(&O, first, idx, vs, &all, &blk);
			}
			const struct sl_eval_axis *ax = &ev->axes[i];
			bool was_bad = !ax->values[idx[i]].ok;
			if (++idx[i] < ax->n) {
				c += ax->cell_stride;
			} else {
				c -= (uint64_t)(ax->n - 1) * ax->cell_stride;
				idx[i] = 0;
			}
			if (k >= O.nstatic)
				bad_dyn += (size_t)!ax->values[idx[i]].ok - (size_t)was_bad;
			if (idx[i] != 0)
				break;
		}
		if (k == SIZE_MAX)
			break;
		changed = k;
	}
	if (O.nstatic == 0) /* one block, never ended by a static axis */
		flush_block(&O, first, idx, vs, &all, &blk);
	const char *model_key = "model";
	for (size_t i = 0; i < n && disagree; i++)
		if (ev->axes[i].role == SL_ROLE_MODEL) {
			model_key = ev->axes[i].key;
			break;
		}
	if (disagree)
		sl_eval_add_note(B, model_key, "evaluation", -1,
				 sl_arena_printf(a, "%llu combination%s unknown: %s fit%s at the smallest size of the %s family "
						    "(%s, from %s) but not at its largest (up to %s of %s usable); the "
						    "model's config.json says which",
						 (unsigned long long)(disagree * (ev->ncombos / ev->ncells)),
						 disagree * (ev->ncombos / ev->ncells) == 1 ? " is" : "s are",
						 disagree == 1 ? "it" : "they", disagree == 1 ? "s" : "",
						 disagree_m->sizes[0]->series ? disagree_m->sizes[0]->series : "model's",
						 disagree_m->sizes[0]->name, sl_bytes_str(a, disagree_lo),
						 sl_bytes_str(a, disagree_hi), sl_bytes_str(a, ev->capacity)));
	/*
	 * Each cell stands for `held` combinations, one per value of the held
	 * axes. A held axis's value takes part in held / n of them in every
	 * cell: its results are those of all the cells. The first worst
	 * combination holds every held axis at its first value (the cells are
	 * visited in combination order with those at 0), or at the value itself.
	 */
	uint64_t held = ev->ncombos / ev->ncells;
	for (int v = 0; v < SL_VERDICT__COUNT; v++)
		ev->u[v] = all.u[v] * held;

	if (all.worst_c != UINT64_MAX) {
		ev->worst = all.worst;
		decode_combo(ev, all.worst_c, ev->worst_combo);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ev->axes[i].n; j++) {
			struct sl_eval_axis *ax = &ev->axes[i];
			struct sl_eval_value *v = &ax->values[j];
			const struct vstat *st = ax->cell_stride ? &vs[first[i] + j] : &all;
			uint64_t times = ax->cell_stride ? held : held / ax->n;
			v->best = st->best;
			for (int vd = 0; vd < SL_VERDICT__COUNT; vd++)
				v->u[vd] = st->u[vd] * times;
			if (st->worst_c == UINT64_MAX)
				continue;
			v->worst = st->worst;
			v->worst_combo = sl_arena_array(a, n, sizeof *v->worst_combo);
			decode_combo(ev, st->worst_c, v->worst_combo);
			v->worst_combo[i] = (uint32_t)j;
		}
	free(vs);
}
