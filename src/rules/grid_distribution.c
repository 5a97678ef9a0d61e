/* grid-distribution: grid search with a parameter W&B's grid refuses (grid_search.py raises). */
#include "checks.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int sl_check_grid_distribution(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep || s->method != SL_METHOD_GRID)
		return 0;
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_param *p = &s->params[i];
		if (p->is_dict || p->dist == SL_DIST_NONE || sl_dist_grid_allowed(p->dist))
			continue;
		struct sl_diag *d;
		if (p->dist == SL_DIST_CATEGORICAL_W_PROBABILITIES) {
			d = sl_check_emit(cx, p->probabilities,
					  "grid search does not take probabilities ('%s'): W&B refuses the sweep",
					  p->path);
			d->hint = "remove 'probabilities', or use method: random";
			continue;
		}
		d = sl_check_emit(cx, p->distribution ? p->distribution : p->key,
				  "grid search cannot sweep the %s parameter '%s': W&B's grid takes only categorical, "
				  "constant, int_uniform and q_uniform parameters",
				  sl_dist_name(p->dist), p->path);
		d->hint = "list the values to try (values: [...]), or use method: random or bayes";
	}
	return 0;
}
