/* not-a-sweep: a YAML file that W&B would not read as a sweep (no method, parameters or program). */
#include "checks.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int sl_check_not_a_sweep(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	if (!cx->doc || !cx->doc->ok || (s && s->is_sweep))
		return 0;
	const struct sl_node *root = cx->doc->root;
	struct sl_diag *d;
	if (!root)
		d = sl_check_emit(cx, NULL, "not a W&B sweep: the file is empty");
	else if (root->kind != SL_NODE_MAP)
		d = sl_check_emit(cx, root, "not a W&B sweep: the document is %s, not a mapping",
				  sl_node_describe(root));
	else
		d = sl_check_emit(cx, root, "not a W&B sweep: no 'method', 'parameters' or 'program' key");
	d->hint = "a sweep has method, parameters and usually program or command";
	return 0;
}
