/*
 * gc-off-large-model: gradient checkpointing off for a model of a billion
 * parameters or more whose activations are most of its peak (seed 004:
 * ZeRO shards weights, gradients and optimizer states, never activations).
 * Reported on the value that turns it off, else on the model. Not when the
 * adapter over a quantized base is assumed and nothing states checkpointing.
 */
#include <string.h>

#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

#define LARGE_PARAMS 1000000000ull
#define ACT_SHARE 0.5

int sl_check_gc_off_large_model(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	size_t mi, gi = SIZE_MAX;
	const struct sl_eval_axis *mx = sl_memrule_axis(ev, SL_ROLE_MODEL, &mi);
	const struct sl_eval_axis *gx = sl_memrule_axis(ev, SL_ROLE_GRADIENT_CHECKPOINTING, &gi);
	if (!mx)
		return 0;
	struct sl_arena *a = cx->arena;
	bool *done_model = sl_arena_array(a, mx->n, sizeof *done_model);
	bool *done_gc = gx ? sl_arena_array(a, gx->n, sizeof *done_gc) : NULL;
	for (size_t j = 0; j < mx->n; j++) {
		const struct sl_eval_value *mv = &mx->values[j];
		if (!mv->model || !mv->worst_combo)
			continue;
		/* the largest combination of this model with checkpointing off: the training step's walk */
		struct sl_eval_walk w;
		sl_eval_walk_init(a, ev, sl_eval_unread_roles(ev, SL_MEASURE_STEP), &w);
		sl_eval_walk_pin(&w, mi, (uint32_t)j);
		const uint32_t *idx = w.idx;
		uint32_t *best = NULL;
		struct sl_breakdown bb = {0};
		do {
			struct sl_settings s;
			const struct sl_model *m;
			if (!sl_eval_settings(ev, idx, &s, &m) || s.mode != SL_MODE_TRAIN || s.gradient_checkpointing || s.lora_r)
				continue;
			/* an assumed adapter over a quantized base: PEFT's prepare_model_for_kbit_training, the
			 * QLoRA recipe, turns checkpointing on by default, so "off" would rest on two guesses */
			if (!gx && (sl_eval_assumed(ev, idx) & SL_NEED_ADAPTER))
				continue;
			if (sl_arch_params_for_task(&m->arch, s.task) < LARGE_PARAMS)
				break;
			struct sl_breakdown bd;
			sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, &bd);
			if (!best || bd.total > bb.total) {
				if (!best)
					best = sl_arena_array(a, ev->naxes, sizeof *best);
				memcpy(best, idx, ev->naxes * sizeof *idx);
				bb = bd;
			}
		} while (sl_eval_walk_next(&w));
		if (!best || (double)(bb.activations + bb.logits) < ACT_SHARE * (double)bb.total)
			continue;
		struct sl_settings s;
		const struct sl_model *m;
		sl_eval_settings(ev, best, &s, &m);
		s.gradient_checkpointing = true;
		struct sl_breakdown on;
		sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, &on);
		const struct sl_eval_axis *at = mx;
		const struct sl_eval_value *v = mv;
		if (gx && gx->values[best[gi]].node) {
			if (done_gc[best[gi]])
				continue;
			done_gc[best[gi]] = true;
			at = gx;
			v = &gx->values[best[gi]];
		} else if (done_model[j]) {
			continue;
		}
		done_model[j] = true;
		const char *desc = sl_eval_describe(a, ev, best, SIZE_MAX);
		sl_memrule_emit(cx, at, v,
				"gradient checkpointing is off for %s (%s parameters): activations are %.0f%% of its %s peak%s%s; "
				"with checkpointing the peak is %s",
				m->name, sl_memrule_params(a, bb.params), 100.0 * (double)(bb.activations + bb.logits) / (double)bb.total,
				sl_bytes_str(a, bb.total), desc ? " with " : "", desc ? desc : "", sl_bytes_str(a, on.total));
	}
	return 0;
}
