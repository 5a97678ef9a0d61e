/*
 * paged-optimizer-spill: a bitsandbytes paged optimizer whose states do not fit on the GPU next
 * to the training step's peak. They live in CUDA managed memory, outside the device total: the
 * driver evicts what does not fit to host RAM and the step prefetches it back for each
 * parameter's update, so the run does not fail, it moves the spilled states over PCIe every step
 * (docs/memory-model.md "Paged optimizers"). Combinations that run out of memory anyway are the
 * oom rule's. Reported on the optimizer value.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"
#include "sweeplint/run.h"

static uint64_t spill(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m)
{
	if (!s->optimizer_paged || s->mode != SL_MODE_TRAIN)
		return 0;
	struct sl_breakdown b;
	sl_estimate(&m->arch, s, ev->gpu, &ev->cat->calib, &b);
	if (b.total > ev->capacity)
		return 0;
	return sl_paged_spill(&b, ev->capacity);
}

int sl_check_paged_optimizer_spill(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	size_t at;
	const struct sl_eval_axis *ax = sl_memrule_axis(ev, SL_ROLE_OPTIMIZER, &at);
	if (!ax)
		return 0; /* unstated: the default optimizer is not paged */
	struct sl_arena *a = cx->arena;
	struct sl_memrule_tally t;
	sl_memrule_tally(a, ev, at, 0, SL_MEASURE_STEP, spill, &t);
	for (size_t j = 0; j < ax->n; j++) {
		if (!t.nbad[j] || !t.worst_combo[j])
			continue;
		struct sl_settings s;
		const struct sl_model *m;
		if (!sl_eval_settings(ev, t.worst_combo[j], &s, &m))
			continue;
		struct sl_breakdown b;
		sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, &b);
		const struct sl_eval_value *v = &ax->values[j];
		const char *desc = sl_eval_describe(a, ev, t.worst_combo[j], at);
		struct sl_diag *d = sl_memrule_emit(
			cx, ax, v,
			"%s keeps %s of optimizer states in CUDA managed memory, and up to %s of them do not fit on %s "
			"next to the step's peak of %s in %llu of %llu memory settings%s%s: the driver pages them "
			"between host RAM and the GPU every step (slower, not an out-of-memory)",
			sl_eval_value_name(a, ax, v), sl_bytes_str(a, b.paged), sl_bytes_str(a, t.worst[j]),
			ev->gpu->name, sl_bytes_str(a, b.total), (unsigned long long)t.nbad[j],
			(unsigned long long)t.nall[j], desc ? ", worst with " : "", desc ? desc : "");
		d->hint = "the run works; to keep the states on the GPU leave them room (a smaller batch or "
			  "length, gradient checkpointing, a larger GPU), and count the spilled states in the "
			  "node's host RAM";
	}
	return 0;
}
