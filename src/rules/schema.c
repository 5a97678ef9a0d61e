/* schema: what W&B's validation rejects (its JSON schema and wandb/sweeps' extra checks), at the offending node. */
#include "checks.h"
#include "sweeplint/sweep.h"

int sl_check_schema(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep)
		return 0;
	for (size_t i = 0; i < s->nproblems; i++) {
		const struct sl_sweep_problem *p = &s->problems[i];
		struct sl_diag *d = sl_check_emit(cx, p->at, "%s", p->message);
		d->hint = p->hint;
	}
	return 0;
}
