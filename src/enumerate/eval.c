/*
 * eval: the enumerate stage's driver (sl_eval_run). The memory axes of a
 * sweep come from its trainer configs, command, parameters and --set
 * (axes.c); past the evaluation bound the largest are cut to their bounds,
 * and the product of the axes is evaluated once per combination
 * (incrementally), a verdict per cell kept in two bytes (cells.c; one
 * combination read back: combo.c); then counts, per-value statistics and
 * blame in one pass over those verdicts (tally.c). Fixes (fix.c) and names
 * in words (names.c) read the result; provenance.c says where a setting
 * comes from, workload.c the mode, walk.c walks what a measure tells apart.
 * Nothing of the non-memory parameters is enumerated: they only multiply
 * the counts; nor are the memory axes the peak does not read (DataLoader
 * workers, a training sweep's eval batch), whose values share one cell per
 * combination of the other axes.
 */
#include "sweeplint/eval.h"

#include "sweeplint/arena.h"

#include "enumerate_internal.h"

int sl_eval_run(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_eval_opts *o,
		struct sl_diags *diags, struct sl_eval **out, const char **why)
{
	struct sl_eval *ev = sl_arena_alloc(a, sizeof *ev);
	*out = ev;
	ev->sweep = sw;
	ev->gpu = o->gpu;
	ev->cat = o->cat;
	ev->hub = o->hub;
	ev->num_gpus = o->num_gpus;
	ev->quant_open = o->quant_open;
	ev->program_guess = o->program_guess;
	ev->capacity = o->gpu ? o->gpu->bytes : 0;
	double h = o->headroom > 0 && o->headroom <= 1 ? o->headroom : 1.0;
	ev->plan = (uint64_t)((double)ev->capacity * h);
	struct sl_eval_builder B = {.a = a, .ev = ev, .o = o, .diags = diags,
			    .res = o->resolver ? o->resolver : sl_scalar_resolver_new(a)};
	int rc = sl_eval_build_axes(&B, why);
	if (rc < 0)
		return rc;
	if (!sl_eval_axis_for(ev, SL_ROLE_MODE)) {
		const char *mwhy = NULL;
		ev->mode = sl_workload_infer(a, o->workload ? o->workload : sl_workload_new(a, diags), ev, &mwhy);
		sl_eval_add_note(&B, "mode", "inferred", SL_ROLE_MODE, mwhy);
	}
	/* empty axes (a malformed parameter) contribute nothing */
	size_t k = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		if (ev->axes[i].n)
			ev->axes[k++] = ev->axes[i];
	ev->naxes = k;
	for (size_t i = 0; i < ev->naxes; i++)
		for (size_t j = 0; j < ev->axes[i].n; j++)
			ev->axes[i].values[j].best = UINT64_MAX;
	if (ev->naxes > SL_EVAL_MAX_AXES) {
		/* every value's worst combination holds an index per axis: bounded before it is quadratic */
		ev->too_many = true;
		ev->limit = 0;
		ev->ncombos = sl_eval_axes_product(ev);
		return 0;
	}
	sl_eval_limit_axes(&B, o->max_combos ? o->max_combos : sl_eval_bound(ev));
	sl_eval_resolve_only(&B);
	if (!ev->cat || !ev->gpu || ev->too_many)
		return 0; /* nothing to estimate against: the caller counts every combination unknown */
	sl_eval_enumerate(&B);
	sl_eval_tally(&B);
	sl_eval_count_assumed(a, ev);
	sl_eval_count_at_risk(a, ev);
	return 0;
}
