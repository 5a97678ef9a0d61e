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
		bool past = ev->limit ? prod > ev->limit : i >= SL_EVAL_MAX_AXES;
		if (!at && past && ax->origin == SL_AXIS_SWEEP && ax->param && ax->param->key)
			at = ax->param->key;
	}
	const char *msg;
	if (ev->limit) {
		struct sl_count total = {.value = ev->ncombos, .saturated = ev->ncombos == UINT64_MAX};
		msg = sl_arena_printf(cx->arena,
				      "%zu memory-relevant parameters make %s combinations even at their bounds, more than "
				      "the %llu sweeplint evaluates: memory is not checked and every combination is unknown",
				      naxes, sl_count_str(cx->arena, total), (unsigned long long)ev->limit);
	} else {
		msg = sl_arena_printf(cx->arena,
				      "%zu memory-relevant keys (sweep, configs, command, --set), more than the %d sweeplint "
				      "evaluates: memory is not checked and every combination is unknown",
				      ev->naxes, SL_EVAL_MAX_AXES);
	}
	struct sl_diag *d = at ? sl_check_emit(cx, at, "%s", msg)
			       : sl_check_emit_span(cx, (struct sl_span){.line = 1, .col = 1, .end_line = 1, .end_col = 1},
						    "%s", msg);
	d->hint = "split the sweep (sweeplint split --by KEY) or fix some of these parameters with --set";
	return 0;
}
