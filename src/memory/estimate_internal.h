/*
 * estimate_internal: what estimate.c shares with the estimators of workloads it hands off —
 * custom.c (a custom nn.Module counted from its layer list) and vllm.c (vLLM's start-up check).
 * Pure functions over doubles, as in estimate.c; nothing allocates.
 */
#ifndef SWEEPLINT_ESTIMATE_INTERNAL_H
#define SWEEPLINT_ESTIMATE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sweeplint/memory.h"

/* Bytes as a whole number, rounded; saturating at UINT64_MAX; 0 for anything not above 0. */
uint64_t sl_est_u64(double v);

/* Bytes of the cuBLAS workspaces of `handles` handles on this GPU (PyTorch CublasHandlePool.cpp). */
double sl_est_workspace(const struct sl_gpu *gpu, double handles);

/*
 * The optimizer's device bytes for T trainable elements whose parameters have sb bytes, every tensor
 * counted as large (bitsandbytes: 8-bit states with their absmax); *paged gets a paged optimizer's
 * managed states, *temp the optimizer step's temporaries.
 */
double sl_est_optim_flat(const struct sl_settings *s, const struct sl_calib *c, double T, double sb, double *paged,
			 double *temp);

/* A custom nn.Module (a->modules) in workload mode (train, eval, generate: a no-grad forward). */
void sl_estimate_custom(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
			const struct sl_calib *c, enum sl_mode mode, struct sl_breakdown *out);

/*
 * vLLM's start-up check (vllm.c): weights as loaded (weights: their bytes on one GPU before tensor
 * parallelism) and the no-grad working set of its profile run, the KV cache of one max_model_len
 * sequence, inside gpu_memory_utilization × capacity.
 */
void sl_estimate_vllm(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
		      const struct sl_calib *c, double weights, struct sl_breakdown *out);

/* Longformer (longformer.c): the length its layers run over, n padded to a multiple of the attention window
 * (n itself for other families). */
double sl_lf_tokens(const struct sl_arch *a, double n);

/* One Longformer attention over n padded tokens of one sequence. */
struct sl_lf_shape {
	double n, heads, hq; /* tokens, heads, heads x head_dim */
	double window;       /* W: attention_window, both sides */
	double global;       /* tokens with global attention */
	double ab;           /* bytes of the activations (the scores' dtype) */
	double copies;       /* calibration eager_attn_copies: the softmax backward's float32 tensors */
	bool dropout;        /* attention_probs_dropout_prob > 0 in training */
};
struct sl_lf_attn {
	double qkv;       /* bytes kept of q, k, v as the chunked matmuls keep them */
	double scores;    /* bytes kept of the scores and probabilities (the attention term) */
	double transient; /* bytes alive at the peak of the layer's attention backward */
	double nograd;    /* bytes of the attention's working set in a no-grad forward */
};
void sl_lf_attention(const struct sl_lf_shape *z, struct sl_lf_attn *out);

#endif
