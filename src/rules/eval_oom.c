/*
 * eval-oom: the evaluation batch does not fit. An evaluation step keeps no
 * activations for backward, but a larger eval batch (and the logits of a
 * large vocabulary) can still pass the GPU's memory. Checked when a key sets
 * the eval batch; reported on its values.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

static uint64_t eval_peak(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m)
{
	struct sl_breakdown bd;
	sl_estimate_eval(&m->arch, s, ev->gpu, &ev->cat->calib, &bd);
	return bd.total;
}

int sl_check_eval_oom(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	size_t ei;
	const struct sl_eval_axis *ax = sl_memrule_axis(ev, SL_ROLE_EVAL_BATCH_SIZE, &ei);
	if (!ax)
		return 0;
	struct sl_arena *a = cx->arena;
	struct sl_memrule_tally t;
	sl_memrule_tally(a, ev, ei, ev->capacity, SL_MEASURE_EVAL, eval_peak, &t);
	for (size_t j = 0; j < ax->n; j++) {
		if (!t.nbad[j])
			continue;
		const struct sl_eval_value *v = &ax->values[j];
		const char *desc = sl_eval_describe(a, ev, t.worst_combo[j], ei);
		struct sl_diag *d = sl_memrule_emit(cx, ax, v,
				"%s runs out of memory in evaluation in %llu of %llu memory settings%s needs %s on %s "
				"(usable %s)",
				sl_eval_value_name(a, ax, v), (unsigned long long)t.nbad[j], (unsigned long long)t.nall[j],
				desc ? sl_arena_printf(a, "; worst: %s", desc) : ": it",
				sl_bytes_str(a, t.worst[j]), ev->gpu->name, sl_bytes_str(a, ev->capacity));
		sl_memrule_assumed(cx, d, ev, t.worst_combo[j], SL_NEED_BATCH, ev->capacity, eval_peak);
	}
	return 0;
}
