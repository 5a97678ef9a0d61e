/*
 * combo: one combination of the axes read back — its settings and model,
 * its estimate and verdict, its cell; the order of the combinations
 * (sl_eval_next) and their index among the cells.
 */
#include "sweeplint/eval.h"

#include "sweeplint/arena.h"

#include "enumerate_internal.h"

/* ---- one combination ------------------------------------------------------------------ */

bool sl_eval_axis_applies(const struct sl_eval *ev, size_t i, const uint32_t *idx)
{
	const struct sl_eval_axis *ax = &ev->axes[i];
	if (ev->skip_axes && ev->skip_axes[i])
		return false;
	if (ax->only_axis < 0 || (size_t)ax->only_axis >= ev->naxes)
		return true;
	const struct sl_eval_axis *g = &ev->axes[ax->only_axis];
	uint32_t j = g->n == 1 || !idx ? 0 : idx[ax->only_axis];
	return ax->only_mask[j];
}

bool sl_eval_rests_on_guess(const struct sl_eval *ev, const uint32_t *idx, uint64_t limit,
			    uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s,
						const struct sl_model *m))
{
	if (!ev->program_guess)
		return false;
	if (ev->naxes > SL_EVAL_MAX_AXES)
		return true;
	bool skip[SL_EVAL_MAX_AXES] = {false};
	bool takes = false;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (!ax->guessed)
			continue;
		skip[i] = true;
		if (takes || !sl_eval_axis_applies(ev, i, idx))
			continue;
		/* a later axis of the same role that applies replaces it (the sweep's batch over the program's) */
		bool replaced = false;
		for (size_t j = i + 1; j < ev->naxes && !replaced; j++)
			replaced = ev->axes[j].role == ax->role && !ev->axes[j].guessed && sl_eval_axis_applies(ev, j, idx);
		takes = !replaced;
	}
	if (!takes)
		return false;
	/* the same combination without the guessed program's settings: past limit whatever the settings no
	 * other key states, it runs out without the guess */
	struct sl_eval bare = *ev;
	bare.skip_axes = skip;
	bare.program_guess = NULL;
	if (sl_eval_oom_assumed(&bare, idx, 0, limit, measure))
		return true;
	struct sl_settings s;
	const struct sl_model *m;
	if (!sl_eval_settings(&bare, idx, &s, &m))
		return true;
	return sl_eval_peak(&bare, &s, m, measure) <= limit;
}

bool sl_eval_settings_adapter(const struct sl_eval *ev, const uint32_t *idx, struct sl_settings *s,
			      const struct sl_model **model, bool *adapter_assumed)
{
	sl_settings_default(s);
	s->mode = ev->mode;
	if (ev->num_gpus)
		s->num_gpus = ev->num_gpus;
	const struct sl_model *m = NULL;
	bool task_set = false, quant_set = false, seq_set = false, prec_set = false, peft_set = false, gc_set = false;
	bool known = true;
	bool bf16 = ev->gpu ? ev->gpu->bf16 : true;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		const struct sl_eval_value *v = &ax->values[ax->n == 1 ? 0 : idx[i]];
		if (sl_role_is_shape(ax->role))
			continue; /* the shape went into the model (add_shape_model); never a setting */
		if (!sl_eval_axis_applies(ev, i, idx))
			continue; /* the program makes this setting only under another parameter's guard */
		if (!v->ok) {
			known = false;
			continue;
		}
		if (ax->role == SL_ROLE_MODEL) {
			m = v->model;
			if (v->nrv <= 1)
				continue; /* a program's rules may add settings beside the model (rv[1..]) */
		}
		for (size_t k = 0; k < v->nrv; k++) {
			if (v->rv[k].role == SL_ROLE_MODEL)
				continue;
			if (v->rv[k].role == SL_ROLE_TASK)
				task_set = true;
			for (unsigned j = 0; j < v->rv[k].nalso && j < 2; j++)
				task_set |= v->rv[k].also[j].role == SL_ROLE_TASK; /* a sentence-transformers loss */
			if (v->rv[k].role == SL_ROLE_QUANT)
				quant_set = true;
			seq_set |= v->rv[k].role == SL_ROLE_SEQ_LEN;
			peft_set |= v->rv[k].role == SL_ROLE_PEFT_METHOD || v->rv[k].role == SL_ROLE_LORA_R;
			gc_set |= v->rv[k].role == SL_ROLE_GRADIENT_CHECKPOINTING;
			prec_set |= v->rv[k].role == SL_ROLE_DTYPE || v->rv[k].role == SL_ROLE_AMP ||
				    v->rv[k].role == SL_ROLE_QUANT;
			sl_settings_apply(s, &v->rv[k], bf16);
		}
	}
	if (m && !task_set)
		s->task = m->task;
	if (m && !quant_set && m->quant != SL_QUANT_NONE)
		s->quant = m->quant; /* the id names it (-bnb-4bit): a setting unless the sweep sets one */
	/* a quantized base with no adapter stated: PEFT's default LoRA (the Trainer refuses a bare one) */
	bool assumed = sl_settings_assume_adapter(s, peft_set, gc_set);
	if (adapter_assumed)
		*adapter_assumed = assumed;
	/* generation with no precision stated: the checkpoint's 16-bit dtype (sl_settings_workload_dtype) */
	sl_settings_workload_dtype(s, prec_set, bf16);
	/* no length stated: a model that bounds its input below the default runs at its maximum */
	if (!seq_set && sl_eval_model_length(m))
		s->seq_len = sl_eval_model_length(m);
	*model = m;
	return known && m != NULL;
}

bool sl_eval_settings(const struct sl_eval *ev, const uint32_t *idx, struct sl_settings *s,
		      const struct sl_model **model)
{
	return sl_eval_settings_adapter(ev, idx, s, model, NULL);
}

enum sl_verdict sl_eval_classify(const struct sl_eval *ev, uint64_t total)
{
	if (total > ev->capacity)
		return SL_VERDICT_OOM;
	if (total > ev->plan)
		return SL_VERDICT_NEAR;
	return SL_VERDICT_FIT;
}

bool sl_eval_estimate(const struct sl_eval *ev, const uint32_t *idx, struct sl_breakdown *bd)
{
	struct sl_settings s;
	const struct sl_model *m;
	if (!sl_eval_settings(ev, idx, &s, &m))
		return false;
	sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, bd);
	return true;
}

uint64_t sl_eval_cell_index(const struct sl_eval *ev, const uint32_t *idx)
{
	uint64_t c = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		c += idx[i] * ev->axes[i].cell_stride;
	return c;
}

enum sl_verdict sl_eval_verdict(const struct sl_eval *ev, const uint32_t *idx)
{
	if (!ev->cells)
		return SL_VERDICT_UNKNOWN;
	return (enum sl_verdict)(ev->cells[sl_eval_cell_index(ev, idx)] >> 14);
}

uint16_t sl_eval_cell(const struct sl_eval *ev, const uint32_t *idx)
{
	return ev->cells[sl_eval_cell_index(ev, idx)];
}

bool sl_eval_next(const struct sl_eval *ev, uint32_t *idx)
{
	for (size_t i = ev->naxes; i-- > 0;) {
		if (++idx[i] < ev->axes[i].n)
			return true;
		idx[i] = 0;
	}
	return false;
}

uint32_t *sl_eval_combo(struct sl_arena *a, const struct sl_eval *ev, size_t axis, uint32_t value)
{
	uint32_t *idx = sl_arena_array(a, ev->naxes ? ev->naxes : 1, sizeof *idx);
	if (axis < ev->naxes)
		idx[axis] = value;
	return idx;
}
