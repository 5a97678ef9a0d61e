/* grid-size: how many runs a grid sweep makes (W&B's grid semantics), on `method: grid`. */
#include "checks.h"
#include "sweeplint/arena.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int sl_check_grid_size(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep || s->method != SL_METHOD_GRID || !s->method_node)
		return 0;
	struct sl_count total = sl_sweep_grid_size(s);
	if (total.infinite)
		return 0; /* grid-distribution reports the continuous parameter */
	if (!total.saturated && total.value == 0)
		return 0; /* an empty grid: the schema finding at the empty list (or bounds) says why */
	struct sl_buf b;
	sl_buf_init(&b, cx->arena);
	size_t shown = 0, varying = 0;
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_param *p = &s->params[i];
		if (p->is_dict || p->dist == SL_DIST_NONE)
			continue;
		struct sl_count c = sl_param_grid_count(p);
		if (!c.saturated && c.value <= 1)
			continue;
		if (++varying > 6)
			continue;
		sl_buf_addf(&b, "%s%s %s", shown++ ? " × " : "", p->path, sl_count_str(cx->arena, c));
	}
	if (varying > 6)
		sl_buf_addf(&b, " × %zu more", varying - 6);
	if (varying > 1)
		sl_check_emit(cx, s->method_node, "grid of %s runs (%s)", sl_count_str(cx->arena, total), b.buf);
	else
		sl_check_emit(cx, s->method_node, "grid of %s run%s", sl_count_str(cx->arena, total),
			      !total.saturated && total.value == 1 ? "" : "s");
	return 0;
}
