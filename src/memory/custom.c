/*
 * custom: the peak of a custom nn.Module counted from its layer list (struct sl_modules, modules.c;
 * docs/memory-model.md "Custom modules"). The parameters are exact (or an upper bound when the
 * layer list says "<="); what the forward keeps is an upper bound per position — each layer's input,
 * one tensor per activation or dropout, what attention keeps, the loss's input — because the
 * module's own forward (its residual adds, its reshapes) is not read. So a custom module's verdict
 * is "fits" when the bound fits and at most "at risk" when it does not (breakdown.bound).
 *
 * A position is a token for sequence models (seq_len per example) and a spatial position for a
 * convolution (seq_len then stands for H × W): the layers count per position and the batch of
 * positions is batch × seq_len.
 */
#include <string.h>

#include "estimate_internal.h"
#include "sweeplint/memory.h"

void sl_estimate_custom(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
			const struct sl_calib *c, enum sl_mode mode, struct sl_breakdown *out)
{
	const struct sl_modules *m = a->modules;
	memset(out, 0, sizeof *out);
	double wb = s->dtype == SL_DTYPE_FP32 ? 4 : 2;
	bool amp = s->amp != SL_AMP_OFF && wb == 4;
	double ab = amp ? 2 : wb;
	double sm_b = amp ? 4 : ab; /* autocast runs softmax in float32 */
	double head = (double)s->head_params;
	double P = (double)m->params + head;
	bool train = mode == SL_MODE_TRAIN;
	/* a frozen stack (frozen backbone) trains only the head the program adds */
	bool frozen = s->frozen_layers == SL_FROZEN_BACKBONE;
	double T = train ? (frozen ? head : P) : 0;
	double b = (double)(mode == SL_MODE_TRAIN || !s->eval_batch_size ? s->batch_size : s->eval_batch_size);
	if (b < 1)
		b = 1;
	double n = s->seq_len ? (double)s->seq_len : 1;
	double pos = b * n;

	double weights = wb * P;
	/* autocast caches the half copy of each trainable matmul weight for the forward */
	double copies = amp && T > 0 ? 2 * (frozen ? 0 : (double)m->matmul) : 0;
	double grads = wb * T;
	double paged = 0, temp = 0;
	double optim = T > 0 ? sl_est_optim_flat(s, c, T, wb, &paged, &temp) : 0;

	/* the forward's working set of the largest layer, and (training through the stack) what it keeps:
	 * each position's kept elements, the s x s probabilities of every math-path attention head and the
	 * logsumexp of every SDPA head */
	double work = pos * m->transient * ab;
	double kept = 0, attn = 0;
	if (train && !frozen) {
		attn = b * m->attn_heads * n * n * sm_b + b * m->sdpa_heads * n * 4;
		kept = pos * m->kept * ab + attn;
	} else if (train && head > 0) {
		kept = pos * (double)(m->width ? m->width : 1) * ab; /* the head's input, from the frozen stack */
	}
	double dyn = kept + work;
	out->cuda_context = sl_est_u64((double)(s->legacy_runtime ? c->cuda_context_legacy : c->cuda_context));
	out->workspace = sl_est_u64(sl_est_workspace(gpu, train ? 2 : 1));
	out->weights = sl_est_u64(weights + copies);
	out->gradients = sl_est_u64(grads);
	out->optimizer = sl_est_u64(optim + temp);
	out->paged = sl_est_u64(paged);
	out->activations = sl_est_u64(dyn);
	out->attention = sl_est_u64(attn);
	out->slack = sl_est_u64(c->slack_frac * dyn + (double)c->slack_min);
	out->dynamic = sl_est_u64(dyn);
	/* one phase bounds the others: every gradient, the states and their temporaries, everything kept
	 * and the largest layer's working set at once */
	uint64_t v[] = {out->cuda_context, out->workspace, out->weights, out->gradients, out->optimizer,
			out->activations, out->slack};
	uint64_t t = 0;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		t = v[i] > UINT64_MAX - t ? UINT64_MAX : t + v[i];
	out->total = t;
	out->params = sl_est_u64(P);
	out->trainable = sl_est_u64(T);
	out->phase = train ? SL_PHASE_BACKWARD : SL_PHASE_EVAL;
	out->bound = true;
}
