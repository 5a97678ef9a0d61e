/*
 * schema: what W&B's validation rejects (its JSON schema and wandb/sweeps' extra
 * checks), at the offending node; what it only warns about (and replaces by its
 * default) is reported as a warning.
 */
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
		/* W&B accepts it with a warning and uses its default: the run happens, not as written */
		if (p->accepted && d->severity == SL_SEV_ERROR)
			d->severity = SL_SEV_WARNING;
	}
	return 0;
}
