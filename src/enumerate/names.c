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
	if (ax->role == SL_ROLE_MODEL && ax->modules) /* the program's custom module for one combination */
		return v->model ? sl_arena_printf(a, "%s at %s", v->model->name, v->text) : v->text;
	if (ax->role == SL_ROLE_MODEL)
		return v->model ? v->model->name : v->text;
	return sl_arena_printf(a, "%s %s", ax->key, v->text);
}

/* The later axis of ax's role whose value a run uses instead of ax's (a --set over the sweep's), or NULL. */
static const struct sl_eval_axis *replaced_by(const struct sl_eval *ev, size_t i)
{
	const struct sl_eval_axis *ax = &ev->axes[i];
	for (size_t k = ev->naxes; k-- > i + 1;)
		if (ev->axes[k].role == ax->role && ev->axes[k].n)
			return &ev->axes[k];
	return NULL;
}

/*
 * An axis another replaces is not what the run uses: its values would be blamed for the peak
 * (`--set per_device_train_batch_size=10000` read "worst: per_device_train_batch_size 8"). Such an
 * axis is described by the value that wins and where it comes from ("... 10000 (--set)").
 */
const char *sl_eval_describe(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx, size_t skip)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->n < 2 || i == skip)
			continue;
		const struct sl_eval_axis *by = replaced_by(ev, i);
		if (by && by->n > 1)
			continue; /* the replacing axis is described itself */
		if (b.len)
			sl_buf_adds(&b, " × ");
		if (by) {
			bool in_file = (by->origin == SL_AXIS_CONFIG || by->origin == SL_AXIS_PROGRAM) && by->src;
			sl_buf_addf(&b, "%s (%s)", sl_eval_value_name(a, by, &by->values[0]),
				    in_file ? by->src->display : sl_axis_origin_name(by->origin));
		} else {
			sl_buf_adds(&b, sl_eval_value_name(a, ax, &ax->values[idx[i]]));
		}
	}
	return b.len ? b.buf : NULL;
}
