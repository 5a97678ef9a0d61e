/*
 * workers-over-cores: more DataLoader workers on a node than a third of its
 * cores (seed 001: "권장 워커 수 = 코어 수 / 3"). Each worker is a process
 * with its own copy of the dataset state; past cores/3 they compete with
 * the training processes and inflate host RAM. Checked when --cores is known.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"
#include "sweeplint/run.h"

int sl_check_workers_over_cores(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	uint32_t cores = cx->run->opt.cores;
	if (!ev || !cores)
		return 0;
	size_t wi;
	const struct sl_eval_axis *ax = sl_memrule_axis(ev, SL_ROLE_NUM_WORKERS, &wi);
	if (!ax)
		return 0;
	uint64_t budget = cores / 3 ? cores / 3 : 1;
	for (size_t j = 0; j < ax->n; j++) {
		const struct sl_eval_value *v = &ax->values[j];
		if (!v->ok)
			continue;
		/* processes on the node: the largest GPU count of the combinations holding this value */
		uint64_t procs = 1;
		struct sl_eval_walk w; /* the GPU counts: read by host RAM (walk.c) */
		sl_eval_walk_init(cx->arena, ev, sl_eval_unread_roles(ev, SL_MEASURE_HOST), &w);
		sl_eval_walk_pin(&w, wi, (uint32_t)j);
		const uint32_t *idx = w.idx;
		do {
			struct sl_settings s;
			const struct sl_model *m;
			sl_eval_settings(ev, idx, &s, &m);
			uint64_t p = sl_procs_per_node(&s);
			if (p > procs)
				procs = p;
		} while (sl_eval_walk_next(&w));
		uint64_t total = v->rv->u * procs;
		if (total <= budget)
			continue;
		sl_memrule_emit(cx, ax, v, "%s%s is more than a third of the %u cores (%llu): seed 001 keeps DataLoader "
					   "workers at most cores/3",
				sl_eval_value_name(cx->arena, ax, v),
				procs > 1 ? sl_arena_printf(cx->arena, " × %llu processes", (unsigned long long)procs) : "",
				cores, (unsigned long long)budget);
	}
	return 0;
}
