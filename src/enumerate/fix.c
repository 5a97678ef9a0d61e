/*
 * fix: what makes one combination fit — the largest batch (with the
 * accumulation that keeps the effective batch), gradient checkpointing,
 * ZeRO over more GPUs (sl_eval_fix).
 */
#include "sweeplint/eval.h"

#include <string.h>

/* ---- fixes ---------------------------------------------------------------------------- */

static bool fits(const struct sl_eval *ev, const struct sl_model *m, const struct sl_settings *s, uint64_t limit)
{
	struct sl_breakdown bd;
	sl_estimate(&m->arch, s, ev->gpu, &ev->cat->calib, &bd);
	return bd.total <= limit;
}

bool sl_eval_fix(const struct sl_eval *ev, const uint32_t *idx, uint64_t limit, struct sl_eval_fix *fx)
{
	memset(fx, 0, sizeof *fx);
	struct sl_settings s0;
	const struct sl_model *m;
	if (!sl_eval_settings(ev, idx, &s0, &m))
		return false;
	fx->batch = s0.batch_size;
	fx->accum = s0.grad_accum ? s0.grad_accum : 1;
	/* the largest batch that fits: memory grows with the batch, so bisect [1, batch); not where the
	 * batch is a rollout stepped over in mini-batches (TRL < 0.12 PPO: batch_size must stay a multiple
	 * of mini_batch_size x gradient_accumulation_steps, and the step does not shrink with it) */
	struct sl_rl_shape sh0;
	sl_rl_shape(&m->arch, &s0, &sh0);
	if (s0.batch_size > 1 && !sh0.mini_batches) {
		struct sl_settings s = s0;
		s.grad_accum = fx->accum > 1 ? fx->accum : 2; /* a smaller batch accumulates: gradients persist */
		uint64_t lo = 0, hi = s0.batch_size - 1;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo + 1) / 2;
			s.batch_size = mid;
			if (fits(ev, m, &s, limit))
				lo = mid;
			else
				hi = mid - 1;
		}
		/* GRPO and RLOO take whole groups of num_generations completions per generation batch
		 * (per-device batch × GPUs × steps): at the accumulation tried, a multiple of the quantum */
		struct sl_rl_shape sh;
		sl_rl_shape(&m->arch, &s, &sh);
		if (sh.batch_quantum > 1)
			lo -= lo % sh.batch_quantum;
		fx->batch_fit = lo;
		/* the largest divisor of the effective batch that fits keeps it exactly (and the generation
		 * batch: batch × accumulation stays the same) */
		uint64_t eff = s0.batch_size * fx->accum;
		for (uint64_t b = lo; b >= 1; b--) {
			if (eff % b)
				continue;
			s.batch_size = b;
			s.grad_accum = eff / b;
			if (fits(ev, m, &s, limit)) {
				fx->new_batch = b;
				fx->new_accum = eff / b;
				break;
			}
		}
	}
	if (!s0.gradient_checkpointing) {
		struct sl_settings s = s0;
		s.gradient_checkpointing = true;
		fx->gc_fits = fits(ev, m, &s, limit);
	}
	static const uint32_t gpus[] = {2, 4, 8};
	/* the ZeRO fix does not apply to an FSDP run (the estimate reads FSDP before zero_stage) */
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0] && !fx->zero_gpus && s0.fsdp == SL_FSDP_NONE; g++) {
		if (gpus[g] <= s0.num_gpus && s0.zero_stage >= 3)
			continue;
		for (uint32_t stage = 2; stage <= 3; stage++) {
			struct sl_settings s = s0;
			s.num_gpus = gpus[g] > s0.num_gpus ? gpus[g] : s0.num_gpus;
			s.zero_stage = stage > s0.zero_stage ? stage : s0.zero_stage;
			if (fits(ev, m, &s, limit)) {
				fx->zero_gpus = s.num_gpus;
				fx->zero_stage = s.zero_stage;
				break;
			}
		}
	}
	return true;
}
