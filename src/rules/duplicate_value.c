/* duplicate-value: the same value twice in a parameter's values (compared as PyYAML loads them). */
#include "checks.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int sl_check_duplicate_value(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!s || !s->is_sweep)
		return 0;
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_node *v = s->params[i].values;
		if (!v || v->kind != SL_NODE_SEQ)
			continue;
		for (size_t j = 1; j < v->n; j++)
			for (size_t k = 0; k < j; k++)
				if (sl_node_equal(v->items[j], v->items[k])) {
					sl_check_emit(cx, v->items[j],
						      "value %s of '%s' repeats the one on line %u: the sweep runs it twice",
						      v->items[j]->kind == SL_NODE_SCALAR ? v->items[j]->text
											   : sl_node_describe(v->items[j]),
						      s->params[i].path, (unsigned)v->items[k]->span.line);
					break;
				}
	}
	return 0;
}
