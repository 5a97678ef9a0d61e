/*
 * prefer-bf16: fp16 mixed precision on a GPU with bf16 in hardware. bf16
 * takes the same memory, keeps fp32's range and needs no loss scaling
 * (seed 003: "bf16 recommended on A100").
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

static bool asks_fp16(const struct sl_eval_value *v)
{
	for (size_t k = 0; k < v->nrv; k++)
		if (v->rv[k].role == SL_ROLE_AMP && !v->rv[k].is_auto && !v->rv[k].negates && v->rv[k].u == SL_AMP_FP16)
			return true;
	return false;
}

int sl_check_prefer_bf16(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev || !ev->gpu->bf16)
		return 0;
	bool named = ev->gpu->source != NULL; /* a catalog GPU; a raw size has no source (memory.h) */
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		for (size_t j = 0; j < ax->n; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			if (!v->ok || !asks_fp16(v))
				continue;
			uint32_t *idx = sl_eval_combo(cx->arena, ev, i, (uint32_t)j);
			struct sl_settings s;
			const struct sl_model *m;
			sl_eval_settings(ev, idx, &s, &m);
			if (s.amp != SL_AMP_FP16)
				continue;
			/* a size (--gpu 48GiB) says nothing of the architecture: its bf16 is assumed, never claimed */
			struct sl_diag *d =
				named ? sl_memrule_emit(cx, ax, v,
							"%s uses fp16 mixed precision on %s, which supports bf16: bf16 "
							"takes the same memory and needs no loss scaling",
							sl_eval_value_name(cx->arena, ax, v), ev->gpu->name)
				      : sl_memrule_emit(cx, ax, v,
							"%s uses fp16 mixed precision on %s: if that GPU supports bf16 "
							"(compute capability 8.0 and later: A100, H100, RTX 30xx/40xx), bf16 "
							"takes the same memory and needs no loss scaling",
							sl_eval_value_name(cx->arena, ax, v), ev->gpu->name);
			d->hint = "use bf16: true instead of fp16: true";
		}
	}
	return 0;
}
