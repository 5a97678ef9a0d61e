/*
 * memory/zero: DeepSpeed ZeRO's terms beyond the partitioned model states (docs/memory-model.md
 * "ZeRO"). Sources, deepspeedai/DeepSpeed @ edaa72212:
 *
 *  - gathered parameters (stage 3): partitioned_param_coordinator.py fetch_sub_module all-gathers a
 *    module's parameters before it runs and prefetches the modules that follow until it holds
 *    stage3_prefetch_bucket_size elements (a large parameter is taken whole: up to one module more); release_sub_module frees them after it, except those
 *    __params_to_release finds used again within stage3_max_reuse_distance elements of the recorded
 *    trace (forward and backward), which stay gathered until that use. The LM head runs last in the
 *    forward and first in the backward, so it is always kept from one to the other; a layer j layers
 *    before the end is used again after j later layers' forward and backward (and, under reentrant
 *    checkpointing, their recomputed forward) and both passes of the head: kept when
 *    (2 or 3)·j·layer + 2·head < distance. Small models (under ~0.5e9 parameters) keep most of their
 *    layers gathered through the step;
 *  - buckets: stage3.py _setup_for_real_optimizer allocates one IPG buffer of reduce_bucket_size
 *    elements per communication dtype (contiguous_gradients), and reduce_scatter_coalesced
 *    (runtime/comm/coalesced_collectives.py) torch.cat's the bucket into a padded flat copy;
 *    stage_1_and_2.py setup_buckets allocates two (buf_0, buf_1) under overlap_comm;
 *  - the optimizer step: stage3.py step() computes the gradient norm one partition at a time in
 *    float64 (get_grad_norm_direct: g.double().norm(2)), then per sub-group of sub_group_size elements
 *    _prepare_fp32_grad_for_sub_group flattens the 16-bit gradient partitions (a copy) and converts
 *    the copy to float32 (.to(fp32)): 2 + 4 bytes per element at once, the float32 gradient alive
 *    through the sub-group's update and freed by _release_sub_group. stage_1_and_2.py step() does the
 *    same per parameter group (flatten, .to(fp32), del flat). DeepSpeed's FusedAdam updates in place;
 *  - offload_optimizer: the master, the states, the float32 gradients and the step live on the host
 *    (stage3.py: self.device is the CPU; grad_partitions_flat_buffer pinned there); stage_1_and_2.py
 *    keeps a device staging buffer of the largest parameter (temp_grad_buffer_for_gpu_offload).
 */
#include "zero.h"

#include <math.h>

void sl_zero_terms(const struct sl_zero_shape *z, const struct sl_calib *c, struct sl_zero_terms *out)
{
	*out = (struct sl_zero_terms){0};
	double N = z->N > 1 ? z->N : 1;
	double hh = z->hidden * z->hidden;
	double wb = z->wb;

	/* the IPG bucket and its reduce copy (stage 3), or the two IPG buffers (stages 1-2) */
	out->buckets = 2 * c->zero_reduce_bucket * hh * wb;

	if (z->stage >= 3) {
		double D = c->zero_reuse_distance;
		double F = c->zero_prefetch_bucket * hh;
		double x = z->gc ? 3 : 2; /* a later layer's forward, backward (and recomputed forward) */
		double H = z->head;
		double k = 0;
		if (2 * H < D && z->layer > 0) {
			k = floor((D - 2 * H - 1) / (x * z->layer)) + 1;
			if (k > z->layers)
				k = z->layers;
		}
		out->retained = k;
		/* an untied input embedding is used again at the very end of the backward */
		double E = x * z->layers * z->layer + 2 * H < D ? z->embed : 0;
		/* the tied head's weight is the embedding's: after the head's backward, used again there */
		double Ht = z->tied && (x - 1) * z->layers * z->layer < D ? H : 0;
		/* the prefetch adds parameters until it holds F elements: up to one module's more */
		double pre = F + z->unit;
		double cur = z->gc ? z->layer : z->unit;
		out->gather_fwd = wb * (H + k * z->layer + E + pre);
		out->gather_layer = wb * ((k * z->layer > cur ? k * z->layer : cur) + E + Ht + pre);
	}

	if (z->offload) {
		if (z->stage < 3)
			out->offload_buf = wb * z->largest;
		return;
	}
	double G = z->T / N;
	if (z->stage >= 3 && G > c->zero_sub_group)
		G = c->zero_sub_group;
	double piece = z->stage >= 3 ? z->largest / N : (z->largest < z->T / N ? z->largest : z->T / N);
	double norm = 8 * piece;
	double flat = z->mixed ? (wb + 4) * G : 4 * G;
	out->step_temp = norm > flat ? norm : flat;
}
