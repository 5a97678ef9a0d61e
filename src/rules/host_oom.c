/*
 * host-oom: host RAM per node past --host-memory (seed 001's host model:
 * base process + DataLoader workers + model loading + overhead; seed 004:
 * every process loads the model unless ZeRO-3 zero.Init partitions it;
 * a paged optimizer's states that the GPU cannot hold next to the step's
 * peak). Checked only when the host memory is known. Reported on the DataLoader
 * workers value when a key sets it, else on the model.
 */

#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"
#include "sweeplint/run.h"

static uint64_t host_ram(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m)
{
	struct sl_host_breakdown hb;
	sl_estimate_host(&m->arch, s, &ev->cat->calib, &hb);
	if (s->optimizer_paged && s->mode == SL_MODE_TRAIN) {
		/* the paged optimizer states the device cannot hold next to the step's peak live in host RAM */
		struct sl_breakdown b;
		sl_estimate(&m->arch, s, ev->gpu, &ev->cat->calib, &b);
		sl_host_add_paged(s, &b, ev->capacity, &hb);
	}
	return hb.total;
}

int sl_check_host_oom(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	uint64_t host = cx->run->opt.host_memory;
	if (!ev || !host)
		return 0;
	size_t at;
	const struct sl_eval_axis *ax = sl_memrule_axis(ev, SL_ROLE_NUM_WORKERS, &at);
	if (!ax || !ax->values[0].node)
		ax = sl_memrule_axis(ev, SL_ROLE_MODEL, &at);
	if (!ax)
		return 0;
	struct sl_arena *a = cx->arena;
	struct sl_memrule_tally t;
	sl_memrule_tally(a, ev, at, host, SL_MEASURE_HOST, host_ram, &t);
	for (size_t j = 0; j < ax->n; j++) {
		if (!t.nbad[j])
			continue;
		const struct sl_eval_value *v = &ax->values[j];
		const char *desc = sl_eval_describe(a, ev, t.worst_combo[j], at);
		struct sl_diag *d = sl_memrule_emit(
			cx, ax, v, "%s needs %s of host RAM in %llu of %llu memory settings%s%s (host memory %s)",
			sl_eval_value_name(a, ax, v), sl_bytes_str(a, t.worst[j]), (unsigned long long)t.nbad[j],
			(unsigned long long)t.nall[j], desc ? ", worst with " : "", desc ? desc : "", sl_bytes_str(a, host));
		d->hint = "halve dataloader_num_workers first (seed 001), then the eval batch; with ZeRO-3 load "
			  "through zero.Init so each process holds its share of the model";
	}
	return 0;
}
