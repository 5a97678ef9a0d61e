/*
 * missing-run-cap: random and bayes searches run until someone stops them; run_cap bounds them. A sweep
 * whose code runs its own agent with a count (wandb.agent(sweep_id, train, count=5);
 * Trainer.hyperparameter_search's n_trials) is bounded by it: that agent stops after count runs.
 */
#include "checks.h"
#include "sweeplint/pysweep.h"
#include "sweeplint/run.h"
#include "sweeplint/sweep.h"

int sl_check_missing_run_cap(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep || !s->method_node || s->run_cap)
		return 0;
	if (s->method != SL_METHOD_RANDOM && s->method != SL_METHOD_BAYES)
		return 0;
	if (cx->file && cx->file->pysweep && cx->file->pysweep->runs > 0)
		return 0;
	struct sl_diag *d = sl_check_emit(cx, s->method_node, "%s search has no run_cap: it runs until it is stopped",
					  sl_method_name(s->method));
	d->hint = "add 'run_cap: N' to bound the number of runs";
	return 0;
}
