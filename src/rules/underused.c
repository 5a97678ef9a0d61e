/*
 * underused: the sweep's largest batch peaks far below the planning headroom
 * in its largest combination: the batch could grow (seed 001: plan for
 * 70–85 % of the memory). Reported once, on the largest value of a swept
 * batch (a batch the sweep fixes is the user's choice, not an exploration).
 * A paged optimizer's states count as used: they live in the room the peak
 * leaves, and a batch that takes it pages them every step.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

/* "far below": the largest combination under this share of the plan */
#define UNDERUSED_SHARE 0.5
#define MAX_BATCH ((uint64_t)1 << 20)

int sl_check_underused(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	size_t bi;
	const struct sl_eval_axis *ax = sl_memrule_axis(ev, SL_ROLE_BATCH_SIZE, &bi);
	if (!ax || ax->origin != SL_AXIS_SWEEP || ax->n < 2)
		return 0; /* only a sweep that explores batch sizes is told to explore larger ones */
	const struct sl_eval_value *top = NULL;
	for (size_t j = 0; j < ax->n; j++)
		if (ax->values[j].ok && (!top || ax->values[j].rv->u > top->rv->u))
			top = &ax->values[j];
	if (!top || !top->worst_combo)
		return 0;
	if ((double)top->worst >= UNDERUSED_SHARE * (double)ev->plan)
		return 0;
	/* how far the batch could grow in that worst combination, within the plan */
	struct sl_settings s;
	const struct sl_model *m;
	if (!sl_eval_settings(ev, top->worst_combo, &s, &m))
		return 0;
	/* a paged optimizer's states sit on the GPU in the room the peak leaves (docs/memory-model.md
	 * "Paged optimizers"): a batch that takes that room pages them every step, so they count here */
	struct sl_breakdown bd;
	sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, &bd);
	uint64_t paged = bd.paged;
	if ((double)(top->worst + paged) >= UNDERUSED_SHARE * (double)ev->plan)
		return 0;
	uint64_t lo = s.batch_size, hi = s.batch_size;
	for (;;) {
		if (hi >= MAX_BATCH)
			break;
		s.batch_size = hi * 2;
		sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, &bd);
		if (bd.total + bd.paged > ev->plan)
			break;
		lo = hi = hi * 2;
	}
	const char *desc = sl_eval_describe(cx->arena, ev, top->worst_combo, bi);
	/* the figures rest on the defaults of what nothing states: the finding names them, as the
	 * other memory findings do */
	unsigned assumed = sl_eval_assumed(ev, top->worst_combo);
	sl_memrule_emit(cx, ax, top,
			"%s peaks at %s%s (%.0f%% of %s on %s) in its largest combination%s%s: a batch of %llu%s still "
			"fits within the %.0f%% planning headroom%s%s",
			sl_eval_value_name(cx->arena, ax, top), sl_bytes_str(cx->arena, top->worst),
			paged ? sl_arena_printf(cx->arena, " and %s of paged optimizer states", sl_bytes_str(cx->arena, paged))
			      : "",
			100.0 * (double)(top->worst + paged) / (double)ev->capacity, sl_bytes_str(cx->arena, ev->capacity),
			ev->gpu->name, desc ? " " : "", desc ? sl_arena_printf(cx->arena, "(%s)", desc) : "",
			(unsigned long long)lo, lo >= MAX_BATCH ? " or more" : "",
			100.0 * (double)ev->plan / (double)ev->capacity, assumed ? "; judged on assumed settings: " : "",
			assumed ? sl_need_describe(cx->arena, assumed, ev->mode) : "");
	return 0;
}
