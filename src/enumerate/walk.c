/*
 * walk: the combinations a measure can tell apart. A measure of one
 * combination (the training step's peak, the evaluation step's peak, host
 * RAM) reads some settings and not others; an axis whose values set only
 * roles the measure does not read, and which are all readable, leaves the
 * measure unchanged whichever value it takes. The walk holds such axes at
 * their first value and steps the others in the order sl_eval_next steps
 * them (last axis fastest); each combination it visits stands for `weight`
 * combinations, the product of the held axes' sizes. So a tally over a walk
 * costs the product of the axes the measure reads, not of every axis, and
 * gives the same counts (times the weight) and the same "first worst"
 * combination: the first in combination order among those with the largest
 * measure has every held axis at its first value.
 */
#include "sweeplint/eval.h"

#include <string.h>

#include "sweeplint/arena.h"

/*
 * A role's bit in a 64-bit mask. The roles a measure may leave unread are all below 64
 * (asserted below); a role from 64 on has no bit: never unread, always read, so an axis of it
 * is stepped (the cautious side: a walk over more combinations, never a wrong count).
 */
#define BIT(r) ((unsigned)(r) < 64 ? (uint64_t)1 << (r) : (uint64_t)0)

/*
 * Roles no measure may skip: sl_eval_settings reads whether they are set at
 * all (the task and quantisation of the model, the model's length, the
 * checkpoint's dtype for generation), the model, and the workload; dynamic
 * padding decides whether a verdict rests on a bound (sl_eval_assumed).
 */
#define NEVER_SKIPPED                                                                                      \
	(BIT(SL_ROLE_MODEL) | BIT(SL_ROLE_TASK) | BIT(SL_ROLE_QUANT) | BIT(SL_ROLE_SEQ_LEN) |             \
	 BIT(SL_ROLE_DTYPE) | BIT(SL_ROLE_AMP) | BIT(SL_ROLE_MODE) | BIT(SL_ROLE_DEEPSPEED) |              \
	 BIT(SL_ROLE_PADDING))

_Static_assert(SL_ROLE_NUM_WORKERS < 64 && SL_ROLE_PIN_MEMORY < 64 && SL_ROLE_EVAL_BATCH_SIZE < 64 &&
		       SL_ROLE_GRAD_ACCUM < 64 && SL_ROLE_TARGET_LEN < 64 && SL_ROLE_GRADIENT_CHECKPOINTING < 64 &&
		       SL_ROLE_OPTIMIZER < 64 && SL_ROLE_ATTN < 64 && SL_ROLE_MINI_BATCH_SIZE < 64 &&
		       SL_ROLE_NUM_BEAMS < 64 && SL_ROLE_MAX_NEW_TOKENS < 64 && SL_ROLE_GPU_MEMORY_UTILIZATION < 64 &&
		       SL_ROLE_LORA_DROPOUT < 64,
	       "the roles a measure may leave unread have a bit in the 64-bit masks");

/* Whether every combination's workload is a training step (no value of any axis says otherwise). */
static bool all_train(const struct sl_eval *ev)
{
	if (ev->mode != SL_MODE_TRAIN)
		return false;
	for (size_t i = 0; i < ev->naxes; i++)
		for (size_t j = 0; j < ev->axes[i].n; j++) {
			const struct sl_eval_value *v = &ev->axes[i].values[j];
			for (size_t k = 0; v->ok && k < v->nrv; k++)
				if (v->rv[k].role == SL_ROLE_MODE && v->rv[k].u != SL_MODE_TRAIN)
					return false;
		}
	return true;
}

/* Whether some value names a paged optimizer (sl_optim_parse's SL_OPTIM_PAGED). */
static bool any_paged(const struct sl_eval *ev)
{
	for (size_t i = 0; i < ev->naxes; i++)
		for (size_t j = 0; j < ev->axes[i].n; j++) {
			const struct sl_eval_value *v = &ev->axes[i].values[j];
			for (size_t k = 0; v->ok && k < v->nrv; k++)
				if (v->rv[k].role == SL_ROLE_OPTIMIZER && (v->rv[k].u & SL_OPTIM_PAGED))
					return true;
		}
	return false;
}

uint64_t sl_eval_unread_roles(const struct sl_eval *ev, enum sl_measure m)
{
	switch (m) {
	case SL_MEASURE_STEP:
		/*
		 * sl_estimate of a training step: the DataLoader (workers, pinned
		 * batches) is host memory; the eval batch is read only when the
		 * workload is an evaluation (estimate_mode)
		 */
		return BIT(SL_ROLE_NUM_WORKERS) | BIT(SL_ROLE_PIN_MEMORY) |
		       (all_train(ev) ? BIT(SL_ROLE_EVAL_BATCH_SIZE) : 0);
	case SL_MEASURE_EVAL:
		/* sl_estimate_eval: no optimizer step, so no accumulation (grads_persist is the training step's) */
		return BIT(SL_ROLE_NUM_WORKERS) | BIT(SL_ROLE_PIN_MEMORY) | BIT(SL_ROLE_GRAD_ACCUM);
	case SL_MEASURE_HOST:
		/* a paged optimizer's states spill to host RAM past the training step's peak (host_oom.c):
		 * host RAM then reads what the step reads */
		if (any_paged(ev))
			return all_train(ev) ? BIT(SL_ROLE_EVAL_BATCH_SIZE) : 0;
		/* sl_estimate_host: processes, workers, the model as loaded, pinned batches, offloaded states */
		return BIT(SL_ROLE_EVAL_BATCH_SIZE) | BIT(SL_ROLE_GRAD_ACCUM) | BIT(SL_ROLE_TARGET_LEN) |
		       BIT(SL_ROLE_GRADIENT_CHECKPOINTING) | BIT(SL_ROLE_OPTIMIZER) | BIT(SL_ROLE_ATTN) |
		       BIT(SL_ROLE_MINI_BATCH_SIZE) | BIT(SL_ROLE_NUM_BEAMS) | BIT(SL_ROLE_MAX_NEW_TOKENS) |
		       BIT(SL_ROLE_GPU_MEMORY_UTILIZATION) | BIT(SL_ROLE_LORA_DROPOUT);
	}
	return 0;
}

/* Whether no value of ax matters to a measure that does not read `unread`. */
static bool held(const struct sl_eval_axis *ax, uint64_t unread)
{
	if (ax->n < 2 || (BIT(ax->role) & NEVER_SKIPPED))
		return false;
	for (size_t j = 0; j < ax->n; j++) {
		const struct sl_eval_value *v = &ax->values[j];
		if (!v->ok)
			return false; /* its combinations are unknown: the value matters */
		for (size_t k = 0; k < v->nrv; k++)
			if (!(BIT(v->rv[k].role) & unread) || (BIT(v->rv[k].role) & NEVER_SKIPPED))
				return false;
	}
	return true;
}

void sl_eval_walk_init(struct sl_arena *a, const struct sl_eval *ev, uint64_t unread, struct sl_eval_walk *w)
{
	size_t n = ev->naxes ? ev->naxes : 1;
	w->ev = ev;
	w->idx = sl_arena_array(a, n, sizeof *w->idx);
	w->steps = sl_arena_array(a, n, sizeof *w->steps);
	w->weight = 1;
	for (size_t i = 0; i < ev->naxes; i++) {
		w->steps[i] = !held(&ev->axes[i], unread);
		if (!w->steps[i])
			w->weight *= ev->axes[i].n; /* at most the product of the axes, which fits (limit_axes) */
	}
}

void sl_eval_walk_pin(struct sl_eval_walk *w, size_t axis, uint32_t value)
{
	if (axis >= w->ev->naxes)
		return;
	if (!w->steps[axis])
		w->weight /= w->ev->axes[axis].n;
	w->steps[axis] = false;
	w->idx[axis] = value;
}

void sl_eval_walk_keep(struct sl_eval_walk *w, size_t axis)
{
	if (axis >= w->ev->naxes || w->steps[axis])
		return;
	w->weight /= w->ev->axes[axis].n;
	w->steps[axis] = true;
}

bool sl_eval_walk_next(struct sl_eval_walk *w)
{
	const struct sl_eval *ev = w->ev;
	for (size_t i = ev->naxes; i-- > 0;) {
		if (!w->steps[i])
			continue;
		if (++w->idx[i] < ev->axes[i].n)
			return true;
		w->idx[i] = 0;
	}
	return false;
}
