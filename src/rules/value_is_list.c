/* value-is-list: `value: [64, 128]` gives every run the whole list; `values:` sweeps over it. */
#include "checks.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int sl_check_value_is_list(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep)
		return 0;
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_param *p = &s->params[i];
		if (p->dist != SL_DIST_CONSTANT || !p->value || p->value->kind != SL_NODE_SEQ || p->value->n < 2)
			continue;
		struct sl_diag *d = sl_check_emit(cx, p->value,
						  "'value' of '%s' is a list of %zu items: every run gets the whole list",
						  p->path, p->value->n);
		d->hint = "write 'values:' to try each item in its own run";
	}
	return 0;
}
