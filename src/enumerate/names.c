/*
 * names: an evaluation in words — bytes as GiB/MiB, a value's name, a
 * combination described by the axes that vary, the axis of a role.
 */
#include "sweeplint/eval.h"

#include "sweeplint/arena.h"

const char *sl_bytes_str(struct sl_arena *a, uint64_t b)
{
	double gib = (double)b / (1024.0 * 1024.0 * 1024.0);
	if (gib >= 1000)
		return sl_arena_printf(a, "%.0f GiB", gib);
	if (gib >= 1)
		return sl_arena_printf(a, "%.1f GiB", gib);
	return sl_arena_printf(a, "%.0f MiB", (double)b / (1024.0 * 1024.0));
}

/* ---- lookups and text ----------------------------------------------------------------- */

const struct sl_eval_axis *sl_eval_axis_for(const struct sl_eval *ev, enum sl_role r)
{
	const struct sl_eval_axis *any = NULL;
	for (size_t i = ev->naxes; i-- > 0;) {
		if (ev->axes[i].role != r)
			continue;
		if (ev->axes[i].origin == SL_AXIS_SWEEP)
			return &ev->axes[i];
		if (!any)
			any = &ev->axes[i];
	}
	return any;
}

const char *sl_eval_value_name(struct sl_arena *a, const struct sl_eval_axis *ax, const struct sl_eval_value *v)
{
	if (ax->role == SL_ROLE_MODEL)
		return v->model ? v->model->name : v->text;
	return sl_arena_printf(a, "%s %s", ax->key, v->text);
}

const char *sl_eval_describe(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx, size_t skip)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->n < 2 || i == skip)
			continue;
		if (b.len)
			sl_buf_adds(&b, " × ");
		sl_buf_adds(&b, sl_eval_value_name(a, ax, &ax->values[idx[i]]));
	}
	return b.len ? b.buf : NULL;
}
