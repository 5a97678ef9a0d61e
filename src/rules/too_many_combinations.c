/*
 * too-many-combinations: the sweep's memory-relevant parameters make more
 * combinations than sweeplint evaluates (the bound in eval.h) even with every
 * numeric axis cut to its two bounds, so nothing was estimated and every
 * combination is counted unknown. Reported at the parameter whose axis
 * passed the bound (else the sweep's first line).
 */
#include "checks.h"
#include "sweeplint/arena.h"
#include "sweeplint/eval.h"
#include "sweeplint/rules.h"
#include "sweeplint/run.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int sl_check_too_many_combinations(struct sl_check *cx)
{
	const struct sl_eval *ev = cx->file ? cx->file->eval : NULL;
	if (!ev || !ev->too_many)
		return 0;
	const struct sl_node *at = NULL;
	uint64_t prod = 1;
	size_t naxes = 0;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->n > 1)
			naxes++;
		if (__builtin_mul_overflow(prod, (uint64_t)ax->n, &prod))
			prod = UINT64_MAX;
		if (!at && prod > ev->limit && ax->origin == SL_AXIS_SWEEP && ax->param && ax->param->key)
			at = ax->param->key;
	}
	struct sl_count total = {.value = ev->ncombos, .saturated = ev->ncombos == UINT64_MAX};
	const char *msg = "%zu memory-relevant parameters make %s combinations even at their bounds, more than "
			  "the %llu sweeplint evaluates: memory is not checked and every combination is unknown";
	struct sl_diag *d;
	if (at)
		d = sl_check_emit(cx, at, msg, naxes, sl_count_str(cx->arena, total), (unsigned long long)ev->limit);
	else
		d = sl_check_emit_span(cx, (struct sl_span){.line = 1, .col = 1, .end_line = 1, .end_col = 1}, msg, naxes,
				       sl_count_str(cx->arena, total), (unsigned long long)ev->limit);
	d->hint = "split the sweep (sweeplint split --by KEY) or fix some of these parameters with --set";
	return 0;
}
