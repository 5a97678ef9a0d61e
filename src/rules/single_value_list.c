/* single-value-list: `values: [x]` sweeps nothing; `value: x` says so. */
#include "checks.h"
#include "sweeplint/arena.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int sl_check_single_value_list(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep)
		return 0;
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_param *p = &s->params[i];
		if (p->dist != SL_DIST_CATEGORICAL || p->values->n != 1)
			continue;
		const struct sl_node *only = p->values->items[0];
		struct sl_diag *d = sl_check_emit(cx, p->values, "'%s' has a single value: nothing is swept", p->path);
		if (only->kind == SL_NODE_SCALAR)
			d->hint = sl_arena_printf(cx->arena, "write 'value: %.*s'", (int)(only->span.end - only->span.start),
						  cx->src->bytes + only->span.start);
	}
	return 0;
}
