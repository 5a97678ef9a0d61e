/*
 * zero3-init-peak: ZeRO-3 over several GPUs without deepspeed.zero.Init
 * (seed 004). Without it every process materialises the whole model before
 * DeepSpeed partitions it: the full weights on each GPU and in each
 * process's host RAM, a peak at load that the steady-state estimate does
 * not show. Reported when that load peak passes the planning headroom, or
 * the host memory when --host-memory is known.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"
#include "sweeplint/run.h"

static double bytes_per_param(const struct sl_settings *s)
{
	if (s->quant == SL_QUANT_NF4)
		return 0.5;
	if (s->quant == SL_QUANT_INT8)
		return 1;
	return s->dtype == SL_DTYPE_FP32 ? 4 : 2;
}

int sl_check_zero3_init_peak(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	size_t zi;
	const struct sl_eval_axis *ax = sl_memrule_axis(ev, SL_ROLE_ZERO_STAGE, &zi);
	if (!ax)
		return 0;
	uint64_t host = cx->run->opt.host_memory;
	struct sl_arena *a = cx->arena;
	bool *done = sl_arena_array(a, ax->n, sizeof *done);
	/* the load peak and host RAM read nothing host RAM does not read (walk.c) */
	struct sl_eval_walk w;
	sl_eval_walk_init(a, ev, sl_eval_unread_roles(ev, SL_MEASURE_HOST), &w);
	sl_eval_walk_keep(&w, zi);
	const uint32_t *idx = w.idx;
	do {
		uint32_t j = idx[zi];
		if (done[j])
			continue;
		struct sl_settings s;
		const struct sl_model *m;
		if (!sl_eval_settings(ev, idx, &s, &m) || s.mode != SL_MODE_TRAIN || s.zero_stage < 3 || s.num_gpus < 2 || s.zero3_init)
			continue;
		uint64_t params = sl_arch_params_for_task(&m->arch, s.task);
		uint64_t load = ev->cat->calib.cuda_context + (uint64_t)((double)params * bytes_per_param(&s));
		struct sl_host_breakdown without, with;
		sl_estimate_host(&m->arch, &s, &ev->cat->calib, &without);
		s.zero3_init = true;
		sl_estimate_host(&m->arch, &s, &ev->cat->calib, &with);
		bool gpu_peak = load > ev->plan;
		bool host_peak = host && without.total > host && with.total <= host;
		if (!gpu_peak && !host_peak)
			continue;
		done[j] = true;
		const struct sl_eval_value *v = &ax->values[j];
		const char *where = gpu_peak ? sl_arena_printf(a, "%s per GPU at load (plan %s on %s)", sl_bytes_str(a, load),
								sl_bytes_str(a, ev->plan), ev->gpu->name)
					     : sl_arena_printf(a, "%s of host RAM per node at load (host memory %s; %s with zero.Init)",
							       sl_bytes_str(a, without.total), sl_bytes_str(a, host),
							       sl_bytes_str(a, with.total));
		struct sl_diag *d = sl_memrule_emit(cx, ax, v,
						    "ZeRO-3 over %u GPUs without zero.Init loads all of %s (%s parameters) "
						    "in every process first: %s",
						    s.num_gpus, m->name, sl_memrule_params(a, params), where);
		d->hint = "set zero3_init_flag: true (accelerate) or zero3_init: true so the model is created "
			  "partitioned (deepspeed.zero.Init); the HF Trainer does it when given the DeepSpeed config "
			  "before from_pretrained";
	} while (sl_eval_walk_next(&w));
	return 0;
}
