/*
 * eval-oom: the evaluation batch does not fit. An evaluation step keeps no
 * activations for backward, but a larger eval batch (and the logits of a
 * large vocabulary) can still pass the GPU's memory. Checked when a key sets
 * the eval batch; reported on its values.
 */
#include <string.h>

#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

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
	uint64_t *noom = sl_arena_array(a, ax->n, sizeof *noom), *nall = sl_arena_array(a, ax->n, sizeof *nall);
	uint64_t *worst = sl_arena_array(a, ax->n, sizeof *worst);
	uint32_t **wcombo = sl_arena_array(a, ax->n, sizeof *wcombo);
	uint32_t *idx = sl_eval_combo(a, ev, SIZE_MAX, 0);
	do {
		struct sl_settings s;
		const struct sl_model *m;
		if (!sl_eval_settings(ev, idx, &s, &m))
			continue;
		struct sl_breakdown bd;
		sl_estimate_eval(&m->arch, &s, ev->gpu, &ev->cat->calib, &bd);
		uint32_t j = idx[ei];
		nall[j]++;
		if (bd.total <= ev->capacity)
			continue;
		noom[j]++;
		if (bd.total > worst[j]) {
			worst[j] = bd.total;
			if (!wcombo[j])
				wcombo[j] = sl_arena_array(a, ev->naxes, sizeof *idx);
			memcpy(wcombo[j], idx, ev->naxes * sizeof *idx);
		}
	} while (sl_eval_next(ev, idx));
	for (size_t j = 0; j < ax->n; j++) {
		if (!noom[j])
			continue;
		const struct sl_eval_value *v = &ax->values[j];
		const char *desc = sl_eval_describe(a, ev, wcombo[j], ei);
		sl_memrule_emit(cx, ax, v,
				"%s runs out of memory in evaluation in %llu of %llu memory settings%s needs %s on %s "
				"(usable %s)",
				sl_eval_value_name(a, ax, v), (unsigned long long)noom[j], (unsigned long long)nall[j],
				desc ? sl_arena_printf(a, "; worst: %s", desc) : ": it",
				sl_bytes_str(a, worst[j]), ev->gpu->name, sl_bytes_str(a, ev->capacity));
	}
	return 0;
}
