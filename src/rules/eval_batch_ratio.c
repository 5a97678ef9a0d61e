/*
 * eval-batch-ratio: an evaluation batch more than 1.3× the training batch
 * (seed 001: "평가 배치 = 트레이닝 배치 × 1.3 이하"). Evaluation holds no
 * gradients, yet a much larger eval batch is where runs that trained fine
 * die at the first evaluation. Informational.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

#define EVAL_RATIO 1.3

int sl_check_eval_batch_ratio(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	const struct sl_eval_axis *ex = sl_memrule_axis(ev, SL_ROLE_EVAL_BATCH_SIZE, NULL);
	const struct sl_eval_axis *bx = sl_memrule_axis(ev, SL_ROLE_BATCH_SIZE, NULL);
	if (!ex || !bx)
		return 0;
	uint64_t bmin = 0;
	for (size_t j = 0; j < bx->n; j++)
		if (bx->values[j].ok && (!bmin || bx->values[j].rv->u < bmin))
			bmin = bx->values[j].rv->u;
	if (!bmin)
		return 0;
	for (size_t j = 0; j < ex->n; j++) {
		const struct sl_eval_value *v = &ex->values[j];
		if (!v->ok || (double)v->rv->u <= EVAL_RATIO * (double)bmin)
			continue;
		sl_memrule_emit(cx, ex, v, "%s is %.1f× the train batch %s %llu (seed 001 keeps eval at most 1.3× train)",
				sl_eval_value_name(cx->arena, ex, v), (double)v->rv->u / (double)bmin, bx->key,
				(unsigned long long)bmin);
	}
	return 0;
}
