/*
 * tally: the weighted counts by verdict of the sweep and of every value
 * (times the combinations of the non-memory parameters; axes evaluated at
 * their bounds count by blocks of corners, tally_block), and blame: which
 * axis and value each combination that does not fit is attributed to, with
 * the worst such combination kept per value.
 */
#include "sweeplint/eval.h"

#include <string.h>

#include "sweeplint/arena.h"

#include "enumerate_internal.h"

/* sl_count_add of y, k times over (saturating the same way). */
static struct sl_count count_times(struct sl_count y, uint64_t k)
{
	if (k == 0)
		return (struct sl_count){0};
	struct sl_count r = {.infinite = y.infinite, .saturated = y.saturated};
	if (__builtin_mul_overflow(y.value, k, &r.value)) {
		r.value = UINT64_MAX;
		r.saturated = true;
	}
	return r;
}

/* Blame order: the value a user changes first to make a run fit. */
static int blame_rank(enum sl_role r)
{
	static const enum sl_role order[] = {
		SL_ROLE_BATCH_SIZE, SL_ROLE_SEQ_LEN, SL_ROLE_TARGET_LEN, SL_ROLE_GRADIENT_CHECKPOINTING, SL_ROLE_MODEL,
		SL_ROLE_MINI_BATCH_SIZE, SL_ROLE_TEXTS_PER_EXAMPLE, SL_ROLE_AMP, SL_ROLE_DTYPE, SL_ROLE_ATTN,
		SL_ROLE_OPTIMIZER, SL_ROLE_LORA_R, SL_ROLE_LORA_TARGETS, SL_ROLE_QUANT, SL_ROLE_ZERO_STAGE,
		SL_ROLE_OFFLOAD, SL_ROLE_NUM_GPUS, SL_ROLE_TASK,
	};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if (order[i] == r)
			return (int)i;
	return (int)(sizeof order / sizeof order[0]);
}

struct tally {
	struct sl_eval *ev;
	struct sl_arena *a;
	uint64_t held;          /* combinations per cell (hold_axes) */
	uint32_t *scratch;      /* a combination, for the held axes' values */
	size_t *order;          /* axes by blame rank */
	size_t *bounds;         /* axes evaluated at their bounds */
	size_t nbounds;
	struct sl_count block;  /* weight of one block of bound corners */
	struct sl_count *share; /* per bound axis: the block's combinations at one of its values */
	uint32_t *corner;       /* a corner of the block being counted */
	enum sl_verdict *cv;    /* the verdicts of its 2^nbounds corners */
};

/* The axis and value an OOM (vd) combination is attributed to; *hopeless when no single change fixes it. */
static size_t blame(const struct tally *T, const uint32_t *idx, uint64_t c, enum sl_verdict vd, bool *hopeless)
{
	const struct sl_eval *ev = T->ev;
	*hopeless = false;
	for (size_t k = 0; k < ev->naxes; k++) {
		const struct sl_eval_axis *ax = &ev->axes[T->order[k]];
		if (ax->n < 2)
			continue;
		uint64_t base = c - idx[T->order[k]] * ax->cell_stride;
		for (uint32_t j = 0; j < ax->n; j++) {
			if (j == idx[T->order[k]])
				continue;
			enum sl_verdict w = (enum sl_verdict)(ev->cells[base + j * ax->cell_stride] >> 14);
			if (w != SL_VERDICT_UNKNOWN && w < vd)
				return T->order[k];
		}
	}
	*hopeless = true;
	/* the model when it has a place in a file, else the first value that has one */
	for (size_t i = ev->naxes; i-- > 0;)
		if (ev->axes[i].role == SL_ROLE_MODEL && ev->axes[i].values[idx[i]].node)
			return i;
	for (size_t k = 0; k < ev->naxes; k++)
		if (ev->axes[T->order[k]].values[idx[T->order[k]]].node)
			return T->order[k];
	return ev->naxes ? T->order[0] : SIZE_MAX;
}

/* The index of a combination among all of them (sl_eval_next's order). */
static uint64_t combo_index(const struct sl_eval *ev, const uint32_t *idx)
{
	uint64_t c = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		c += idx[i] * ev->axes[i].stride;
	return c;
}

/* weight combinations like idx (peak step q) blamed on axis k: counted, and the largest first one kept. */
static void attribute(struct tally *T, const uint32_t *idx, size_t k, bool hopeless, uint16_t q, enum sl_verdict vd,
		      uint64_t weight)
{
	struct sl_eval *ev = T->ev;
	struct sl_eval_value *v = &ev->axes[k].values[idx[k]];
	v->blamed[vd] += weight;
	v->hopeless |= hopeless;
	/* with held axes the combinations are not visited in order: ties go to the first */
	if (!v->blame_combo[vd] || q > v->blame_q[vd] ||
	    (T->held > 1 && q == v->blame_q[vd] && combo_index(ev, idx) < combo_index(ev, v->blame_combo[vd]))) {
		if (!v->blame_combo[vd])
			v->blame_combo[vd] = sl_arena_array(T->a, ev->naxes, sizeof *idx);
		memcpy(v->blame_combo[vd], idx, ev->naxes * sizeof *idx);
		v->blame_q[vd] = q;
	}
}

/* The next value of the held axes (last fastest); false after the last. */
static bool next_held(const struct sl_eval *ev, uint32_t *idx)
{
	for (size_t i = ev->naxes; i-- > 0;) {
		if (ev->axes[i].cell_stride)
			continue;
		if (++idx[i] < ev->axes[i].n)
			return true;
		idx[i] = 0;
	}
	return false;
}

/*
 * Blame the combinations of cell c (idx: held axes at their first value).
 * A change that fixes them is on an axis that is not held (held values
 * share the cell), the same for all of them; when none does, the fallback
 * reads where the values are written, so each held combination is blamed
 * on its own.
 */
static void blame_one(struct tally *T, const uint32_t *idx, uint64_t c, enum sl_verdict vd)
{
	struct sl_eval *ev = T->ev;
	bool hopeless;
	size_t k = blame(T, idx, c, vd, &hopeless);
	if (k == SIZE_MAX)
		return;
	uint16_t q = ev->cells[c] & 0x3FFF;
	if (!hopeless || T->held == 1) {
		attribute(T, idx, k, hopeless, q, vd, T->held);
		return;
	}
	memcpy(T->scratch, idx, ev->naxes * sizeof *idx);
	do {
		k = blame(T, T->scratch, c, vd, &hopeless);
		attribute(T, T->scratch, k, hopeless, q, vd, 1);
	} while (next_held(ev, T->scratch));
}

/* x less y, where y is a part of x (an infinite or saturated x stays as it is). */
static struct sl_count count_less(struct sl_count x, struct sl_count y)
{
	if (x.infinite || x.saturated)
		return x;
	if (y.infinite || y.saturated || y.value >= x.value)
		return (struct sl_count){0};
	return (struct sl_count){.value = x.value - y.value};
}

/*
 * Spread a region of a block over the verdicts: whole, the combinations the
 * region stands for; corner m is in it when bit is SIZE_MAX (all) or its bit
 * equals side. When the block's corners agree, the whole region takes their
 * verdict; otherwise each corner in it counts its own (one combination of the
 * bound values times `one`) and the rest of the region is unknown.
 */
static void spread(struct sl_count *n, struct sl_count whole, struct sl_count one, const enum sl_verdict *cv,
		   size_t ncorner, bool agree, size_t bit, unsigned side)
{
	if (agree) {
		n[cv[0]] = sl_count_add(n[cv[0]], whole);
		return;
	}
	struct sl_count known = {0};
	for (size_t m = 0; m < ncorner; m++) {
		if (bit != SIZE_MAX && (m >> bit & 1) != side)
			continue;
		n[cv[m]] = sl_count_add(n[cv[m]], one);
		known = sl_count_add(known, one);
	}
	n[SL_VERDICT_UNKNOWN] = sl_count_add(n[SL_VERDICT_UNKNOWN], count_less(whole, known));
}

/*
 * The counts of one block: the bound axes' ranges at the other axes' values
 * (idx, its base corner). The summary, the values of the other axes (the
 * whole block) and each bound value (its share: the block with that axis at
 * that value) read the same set, so a finding's count and the summary agree.
 */
static void tally_block(struct tally *T, const uint32_t *idx)
{
	struct sl_eval *ev = T->ev;
	size_t n = ev->naxes, ncorner = (size_t)1 << T->nbounds;
	memcpy(T->corner, idx, n * sizeof *idx);
	bool agree = true;
	for (size_t m = 0; m < ncorner; m++) {
		for (size_t b = 0; b < T->nbounds; b++)
			T->corner[T->bounds[b]] = (uint32_t)(m >> b & 1);
		T->cv[m] = (enum sl_verdict)(ev->cells[sl_eval_cell_index(ev, T->corner)] >> 14);
		agree &= T->cv[m] == T->cv[0];
	}
	ev->total = sl_count_add(ev->total, T->block);
	spread(ev->n, T->block, ev->others, T->cv, ncorner, agree, SIZE_MAX, 0);
	for (size_t i = 0; i < n; i++)
		if (!ev->axes[i].bounds || ev->axes[i].n != 2)
			spread(ev->axes[i].values[idx[i]].n, T->block, ev->others, T->cv, ncorner, agree, SIZE_MAX, 0);
	for (size_t b = 0; b < T->nbounds; b++)
		for (unsigned s = 0; s < 2; s++)
			spread(ev->axes[T->bounds[b]].values[s].n, T->share[b], ev->others, T->cv, ncorner, agree, b, s);
}

/*
 * Counts and blame in one pass over the stored verdicts. Without bounds
 * every combination weighs `others`. Axes evaluated at their bounds group
 * their corners into blocks: a block whose corners agree takes their
 * verdict for all the values between (memory is monotone along a numeric
 * axis); in one whose corners disagree only the corners themselves (the
 * combinations evaluated) are known and the rest is unknown (tally_block).
 */
void sl_eval_tally(struct sl_eval_builder *B)
{
	struct sl_eval *ev = B->ev;
	size_t n = ev->naxes;
	struct tally T = {.ev = ev, .a = B->a, .held = ev->ncombos / ev->ncells,
			  .scratch = sl_arena_array(B->a, n ? n : 1, sizeof(uint32_t))};
	T.order = sl_arena_array(B->a, n ? n : 1, sizeof *T.order);
	T.bounds = sl_arena_array(B->a, n ? n : 1, sizeof *T.bounds);
	for (size_t i = 0; i < n; i++)
		T.order[i] = i;
	for (size_t i = 1; i < n; i++) /* stable insertion sort by rank */
		for (size_t j = i; j > 0 && blame_rank(ev->axes[T.order[j]].role) < blame_rank(ev->axes[T.order[j - 1]].role); j--) {
			size_t t = T.order[j];
			T.order[j] = T.order[j - 1];
			T.order[j - 1] = t;
		}
	T.block = ev->others;
	for (size_t i = 0; i < n; i++)
		if (ev->axes[i].bounds && ev->axes[i].n == 2) {
			T.bounds[T.nbounds++] = i;
			T.block = sl_count_mul(T.block, ev->axes[i].range);
		}

	uint32_t *idx = sl_arena_array(B->a, n ? n : 1, sizeof *idx);
	if (T.nbounds == 0) {
		/* every combination weighs one block: the weighted counts are the plain ones (enumerate's) times it */
		for (int vd = 0; vd < SL_VERDICT__COUNT; vd++) {
			ev->n[vd] = count_times(T.block, ev->u[vd]);
			for (size_t i = 0; i < n; i++)
				for (size_t j = 0; j < ev->axes[i].n; j++)
					ev->axes[i].values[j].n[vd] = count_times(T.block, ev->axes[i].values[j].u[vd]);
		}
		ev->total = count_times(T.block, ev->ncombos);
		/* blame, cell by cell in combination order (held axes at 0): only what does not fit the headroom */
		for (uint64_t c = 0; c < ev->ncells; c++) {
			enum sl_verdict vd = (enum sl_verdict)(ev->cells[c] >> 14);
			if (vd == SL_VERDICT_OOM || vd == SL_VERDICT_NEAR)
				blame_one(&T, idx, c, vd);
			for (size_t i = n; i-- > 0;) {
				if (!ev->axes[i].cell_stride)
					continue;
				if (++idx[i] < ev->axes[i].n)
					break;
				idx[i] = 0;
			}
		}
		return;
	}
	T.corner = sl_arena_array(B->a, n ? n : 1, sizeof *T.corner);
	T.cv = sl_arena_array(B->a, (size_t)1 << T.nbounds, sizeof *T.cv);
	T.share = sl_arena_array(B->a, T.nbounds, sizeof *T.share);
	for (size_t b = 0; b < T.nbounds; b++) {
		T.share[b] = ev->others;
		for (size_t o = 0; o < T.nbounds; o++)
			if (o != b)
				T.share[b] = sl_count_mul(T.share[b], ev->axes[T.bounds[o]].range);
	}
	uint64_t c = 0;
	do {
		enum sl_verdict vd = (enum sl_verdict)(ev->cells[c] >> 14);
		if (vd == SL_VERDICT_OOM || vd == SL_VERDICT_NEAR)
			blame_one(&T, idx, c, vd);
		/* weighted counts: once per block, at its base corner */
		bool base = true;
		for (size_t b = 0; b < T.nbounds; b++)
			base &= idx[T.bounds[b]] == 0;
		if (base)
			tally_block(&T, idx);
		c++;
	} while (sl_eval_next(ev, idx));
}
