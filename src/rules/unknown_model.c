/*
 * unknown-model: a model value that neither the catalog (names, HF ids,
 * alias patterns) nor a local config.json resolves. Its combinations are
 * counted as unknown, never as fitting.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

int sl_check_unknown_model(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	/* the last model axis is the one a run gets */
	const struct sl_eval_axis *ax = sl_memrule_axis(ev, SL_ROLE_MODEL, NULL);
	if (!ax)
		return 0;
	for (size_t j = 0; j < ax->n; j++) {
		const struct sl_eval_value *v = &ax->values[j];
		if (v->model)
			continue;
		struct sl_diag *d = sl_memrule_emit(
			cx, ax, v, "model \"%s\" is neither in the model catalog nor a local config.json: %s %s unknown",
			v->text, sl_memrule_counts(cx->arena, ev, v, 1u << SL_VERDICT_UNKNOWN),
			v->ok ? "are" : "cannot be estimated and are");
		d->hint = "see 'sweeplint models' for the names sweeplint knows, or give a path to the model's "
			  "folder or config.json";
	}
	return 0;
}
