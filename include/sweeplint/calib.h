/*
 * calib: the record of the estimator's fitted constants (rules/calibration.yaml),
 * data only. The catalog carries it (models.h: the embedded snapshot holds it
 * beside the catalogs); memory/calib.c loads and checks it, the estimator
 * reads it.
 */
#ifndef SWEEPLINT_CALIB_H
#define SWEEPLINT_CALIB_H

#include <stdint.h>

/*
 * Fitted constants (rules/calibration.yaml). Each is documented there with
 * the measurement it was fitted to. The estimator reads nothing else that
 * is not derived from the architecture.
 */
struct sl_calib {
	uint64_t cuda_context;        /* bytes of CUDA context + lazily loaded kernels */
	uint64_t cuda_context_legacy; /* pre-lazy-loading context (CUDA < 11.7) */
	double slack_frac;            /* allocator slack, fraction of activations */
	uint64_t slack_min;           /* allocator slack floor, bytes */
	double eager_attn_copies;     /* b·a·s² tensors kept per layer by eager attention (16-bit) */
	double sdpa_attn_bytes;       /* per b·a·s element kept by SDPA/flash (logsumexp etc.) */
	double act_extra_frac;        /* fp32 softmax/layernorm share under AMP */
	double zero_reuse_distance;   /* DeepSpeed stage3_max_reuse_distance, parameter elements */
	double zero_sub_group;        /* DeepSpeed sub_group_size, elements */
	double zero_reduce_bucket;    /* reduce_bucket_size, in hidden² (HF "auto") */
	double zero_prefetch_bucket;  /* stage3_prefetch_bucket_size, in hidden² (HF "auto") */
	uint64_t nccl_buffer;         /* per-process NCCL buffers on multi-GPU runs */
	/* host RAM (seed 001) */
	uint64_t host_base;           /* base process */
	uint64_t host_per_worker;     /* per DataLoader worker */
	double host_load_factor;      /* model loading × factor */
	double host_overhead_frac;    /* overhead fraction of the total */
	/* added by the estimator (rules/calibration.yaml documents each) */
	double flash_bwd_bytes;       /* bytes per b·s·a·d element alive in one SDPA/flash backward */
	double host_offload_factor;   /* host buffers per offloaded byte (DeepSpeed additional_buffer_factor) */
	uint64_t gen_max_length;      /* generation: HF GenerationConfig max_length when max_new_tokens is unstated */
	/* bitsandbytes optimizers (bnb/optim/optimizer.py) */
	uint64_t bnb_min_8bit_size;   /* tensors under this many elements keep 32-bit states */
	uint64_t bnb_block;           /* elements per float32 absmax of an 8-bit state */
	uint64_t bnb_paged_min;       /* paged optimizers page the states of tensors of this many elements and more */
	/* vLLM's engine defaults (vllm.c; rules/calibration.yaml gives each source) */
	double vllm_utilization;      /* EngineArgs.gpu_memory_utilization */
	uint64_t vllm_batched_tokens; /* max_num_batched_tokens of the LLM class */
	uint64_t vllm_batched_tokens_large; /* the same on a GPU of vllm_large_gpu or more that is no A100 */
	uint64_t vllm_max_seqs;       /* max_num_seqs of the LLM class */
	uint64_t vllm_max_seqs_large; /* the same on a large GPU */
	uint64_t vllm_large_gpu;      /* bytes from which the large defaults apply */
	uint64_t vllm_block_size;     /* tokens per KV cache block */
	uint64_t vllm_non_torch;      /* device memory outside torch's allocator inside the share (cuBLAS, NCCL at TP 1) */
	double vllm_sampler_bytes;    /* bytes per logit of the profile run's sampler (rows x vocabulary) */
};

#endif
