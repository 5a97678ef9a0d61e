/*
 * bf16-unsupported: bf16 (mixed precision or weights) on a GPU without
 * bf16 in hardware (V100, T4: compute capability below 8.0). PyTorch
 * refuses or emulates it slowly; reported on each value that turns bf16
 * on in some combination.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

/* The value asks for bf16 itself ("auto" lets the GPU decide and is not reported). */
static bool asks_bf16(const struct sl_eval_value *v)
{
	for (size_t k = 0; k < v->nrv; k++) {
		const struct sl_role_value *rv = &v->rv[k];
		if (rv->is_auto || rv->negates)
			continue;
		if ((rv->role == SL_ROLE_AMP && rv->u == SL_AMP_BF16) || (rv->role == SL_ROLE_DTYPE && rv->u == SL_DTYPE_BF16))
			return true;
	}
	return false;
}

int sl_check_bf16_unsupported(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev || ev->gpu->bf16)
		return 0;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		for (size_t j = 0; j < ax->n; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			if (!v->ok || !asks_bf16(v))
				continue;
			/* does it take effect? (a later key may override it) */
			uint32_t *idx = sl_eval_combo(cx->arena, ev, i, (uint32_t)j);
			struct sl_settings s;
			const struct sl_model *m;
			sl_eval_settings(ev, idx, &s, &m);
			if (s.amp != SL_AMP_BF16 && s.dtype != SL_DTYPE_BF16)
				continue;
			struct sl_diag *d = sl_memrule_emit(cx, ax, v,
							    "%s asks for bf16 on %s, which has no bf16 support (compute "
							    "capability %u.%u, bf16 needs 8.0)",
							    sl_eval_value_name(cx->arena, ax, v), ev->gpu->name,
							    ev->gpu->cc_major, ev->gpu->cc_minor);
			d->hint = "use fp16 mixed precision (fp16: true) on this GPU, or check against a GPU with bf16";
		}
	}
	return 0;
}
