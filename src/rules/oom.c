/*
 * oom: values whose combinations need more device memory than the GPU has.
 * One finding per value the OOM combinations are blamed on (src/enumerate/tally.c), with
 * the counts, the worst combination, its peak against the usable memory and
 * the computed fix.
 */
#include "checks.h"
#include "memory_rules.h"

int sl_check_oom(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (ev)
		sl_memrule_report(cx, ev, SL_VERDICT_OOM);
	return 0;
}
