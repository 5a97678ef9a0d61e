/*
 * deprecated-distribution: log_uniform, inv_log_uniform and q_log_uniform
 * take natural-log exponents as min and max; W&B flags them and points to
 * the *_values forms, which take the real bounds.
 */
#include <math.h>
#include <string.h>

#include "checks.h"
#include "sweeplint/arena.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int sl_check_deprecated_distribution(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep)
		return 0;
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_param *p = &s->params[i];
		const struct sl_node *dn = p->distribution;
		if (!dn || !sl_node_is(dn, SL_V_STR))
			continue;
		enum sl_dist d = sl_dist_parse(dn->text);
		if (!sl_dist_deprecated(d))
			continue;
		const char *repl = sl_dist_name(sl_dist_replacement(d));
		struct sl_diag *diag = sl_check_emit(
			cx, dn, "distribution '%s' of '%s' is deprecated: its min and max are natural-log exponents", dn->text,
			p->path);
		if (d != SL_DIST_INV_LOG_UNIFORM && !isnan(p->minv) && !isnan(p->maxv))
			diag->hint = sl_arena_printf(cx->arena, "use '%s' with the real bounds: min %.6g, max %.6g", repl,
						     exp(p->minv), exp(p->maxv));
		else
			diag->hint = sl_arena_printf(cx->arena, "use '%s' with the real bounds", repl);
	}
	return 0;
}
