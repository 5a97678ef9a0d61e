/*
 * near-capacity: values whose combinations fit the GPU but pass the planning
 * headroom (--headroom, default 0.85: seed 001 plans for 70–85 % of the
 * memory), where allocator fragmentation or a longer batch tips a run into
 * OOM. Blamed and counted like oom, with the fix that gets under the plan.
 */
#include "checks.h"
#include "memory_rules.h"

int sl_check_near_capacity(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (ev)
		sl_memrule_report(cx, ev, SL_VERDICT_NEAR);
	return 0;
}
