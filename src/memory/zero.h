/*
 * memory/zero: what DeepSpeed ZeRO keeps on a rank beyond the partitioned model states
 * (docs/memory-model.md "ZeRO"), read from deepspeed/runtime/zero/stage3.py,
 * partitioned_param_coordinator.py and stage_1_and_2.py @ edaa7221. Internal to the estimator
 * (estimate.c fills the shape from the architecture); the unit tests compute each term by hand.
 */
#ifndef SL_MEMORY_ZERO_H
#define SL_MEMORY_ZERO_H

#include <stdbool.h>
#include <stdint.h>

#include "sweeplint/memory.h"

/* The model as ZeRO sees it, in parameter elements (bytes only in wb). */
struct sl_zero_shape {
	uint32_t stage;    /* 1..3 */
	double N;          /* data-parallel ranks the states are partitioned over */
	double wb;         /* bytes of a model element: 2 under fp16/bf16, 4 in float32 */
	bool mixed;        /* fp16/bf16: a float32 master partition and float32 gradients at the step */
	bool offload;      /* offload_optimizer (or param): the master, the states and the step on the host */
	bool gc;           /* reentrant gradient checkpointing: each layer's forward runs again in backward */
	double T;          /* trainable parameters */
	double head;       /* the LM head's weight (V·h, the tied embedding's when tied); 0: no vocabulary head */
	bool tied;         /* the head is the input embedding */
	double embed;      /* an untied input embedding (0 when tied or absent) */
	double layer;      /* one layer's parameters */
	double layers;     /* layers in the trace (encoder + decoder) */
	double unit;       /* the largest module of a layer: one leaf's gathered parameters */
	double largest;    /* the largest trainable parameter */
	double hidden;
};

struct sl_zero_terms {
	double retained;     /* layers whose gathered parameters stay from their forward to their backward */
	double gather_fwd;   /* bytes gathered at the end of the forward and the start of the backward */
	double gather_layer; /* bytes gathered during the last layer's backward */
	double buckets;      /* the IPG bucket(s) and the reduce-scatter's flat copy, bytes */
	double step_temp;    /* the optimizer step's transients on the device, bytes */
	double offload_buf;  /* stages 1-2 with offload: the device staging buffer, bytes */
};

void sl_zero_terms(const struct sl_zero_shape *z, const struct sl_calib *c, struct sl_zero_terms *out);

#endif
