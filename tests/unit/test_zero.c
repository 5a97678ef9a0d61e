/*
 * DeepSpeed ZeRO's terms (src/memory/zero.c, docs/memory-model.md "ZeRO"), each computed by hand for a
 * small made-up model, then through sl_estimate for Llama-3.1-8B on 8 GPUs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "zero.h"
#include "catalog_fixture.h"

/* DeepSpeed's defaults and HF's "auto" values, as rules/calibration.yaml states them */
static const struct sl_calib calib = {
	.zero_reuse_distance = 1e9, .zero_sub_group = 1e9, .zero_reduce_bucket = 1, .zero_prefetch_bucket = 0.9,
};

static void near(double got, double want)
{
	if (fabs(got - want) > 0.5)
		fail_msg("%.1f != %.1f", got, want);
}

/* 16 layers of 50e6, an untied head and embedding of 100e6, hidden 1000, the largest layer module 20e6 */
static struct sl_zero_shape shape(void)
{
	return (struct sl_zero_shape){
		.stage = 3, .N = 4, .wb = 2, .mixed = true, .T = 1e9, .head = 100e6, .embed = 100e6,
		.layer = 50e6, .layers = 16, .unit = 20e6, .largest = 100e6, .hidden = 1000,
	};
}

static void test_gathered(void **state)
{
	(void)state;
	struct sl_zero_shape z = shape();
	struct sl_zero_terms t;
	sl_zero_terms(&z, &calib, &t);
	/* a layer j layers before the end is used again after 2·j·50e6 + 2·100e6 elements: kept for
	 * j = 0..7 (900e6 < 1e9), released from j = 8 (1e9) */
	near(t.retained, 8);
	/* the head, 8 layers, the prefetch bucket (0.9·1000²) and one module past it */
	near(t.gather_fwd, 2 * (100e6 + 8 * 50e6 + 0.9e6 + 20e6));
	/* the last layer's backward: the retained layers (the running one among them), no head */
	near(t.gather_layer, 2 * (8 * 50e6 + 0.9e6 + 20e6));
	/* the IPG bucket (1000² elements) and the reduce-scatter's flat copy */
	near(t.buckets, 2 * 1e6 * 2);

	/* under checkpointing each later layer is also recomputed: 3·j·50e6 + 200e6 < 1e9 for j <= 5 */
	z.gc = true;
	sl_zero_terms(&z, &calib, &t);
	near(t.retained, 6);
	near(t.gather_layer, 2 * (6 * 50e6 + 0.9e6 + 20e6));

	/* a tied head is the embedding: after its backward it waits for the embedding's (1·16·50e6 = 800e6
	 * elements of layer backwards away), so it stays through the layers' backward too */
	z.gc = false;
	z.tied = true;
	z.embed = 0;
	sl_zero_terms(&z, &calib, &t);
	near(t.gather_layer, 2 * (8 * 50e6 + 100e6 + 0.9e6 + 20e6));

	/* a small model (16 x 10e6, head 20e6): every layer and the untied embedding stay gathered */
	z = shape();
	z.layer = 10e6, z.head = 20e6, z.embed = 20e6;
	sl_zero_terms(&z, &calib, &t);
	near(t.retained, 16);
	near(t.gather_fwd, 2 * (20e6 + 16 * 10e6 + 20e6 + 0.9e6 + 20e6));

	/* a head of 600e6 elements: twice that is past the distance, only the head itself is kept */
	z = shape();
	z.head = 600e6;
	sl_zero_terms(&z, &calib, &t);
	near(t.retained, 0);
	near(t.gather_fwd, 2 * (600e6 + 0.9e6 + 20e6));
	near(t.gather_layer, 2 * (20e6 + 0.9e6 + 20e6));

	/* stages 1-2 gather nothing: the weights are whole; two IPG buffers */
	z.stage = 2;
	sl_zero_terms(&z, &calib, &t);
	near(t.gather_fwd, 0);
	near(t.gather_layer, 0);
	near(t.buckets, 4e6);
}

static void test_step(void **state)
{
	(void)state;
	struct sl_zero_shape z = shape();
	struct sl_zero_terms t;
	/* a sub-group of 1e9/4 elements: its 16-bit gradients flattened (2 B) and made float32 (4 B);
	 * the float64 norm of the largest partition (8·100e6/4) is smaller */
	sl_zero_terms(&z, &calib, &t);
	near(t.step_temp, 6 * 250e6);
	/* 8e9 over 2 ranks: sub-groups of sub_group_size = 1e9 elements, one at a time */
	z.T = 8e9, z.N = 2;
	sl_zero_terms(&z, &calib, &t);
	near(t.step_temp, 6 * 1e9);
	/* float32 training: the flattened copy is the float32 gradient */
	z.mixed = false, z.wb = 4;
	sl_zero_terms(&z, &calib, &t);
	near(t.step_temp, 4 * 1e9);
	/* few trainable parameters, one large one: the float64 copy of its partition is the larger */
	z = shape();
	z.T = 100e6, z.largest = 100e6; /* flattened: 6·25e6 */
	sl_zero_terms(&z, &calib, &t);
	near(t.step_temp, 8 * 100e6 / 4);
	/* stages 1-2 upcast a parameter group's partition (no sub-groups); the norm's pieces are partition
	 * slices, at most T/N */
	z = shape();
	z.stage = 2, z.T = 8e9, z.N = 2;
	sl_zero_terms(&z, &calib, &t);
	near(t.step_temp, 6 * 4e9);
	/* offload_optimizer: the step runs on the host; stages 1-2 keep a device buffer of the largest
	 * parameter (temp_grad_buffer_for_gpu_offload) */
	z.offload = true;
	sl_zero_terms(&z, &calib, &t);
	near(t.step_temp, 0);
	near(t.offload_buf, 2 * 100e6);
	z.stage = 3;
	sl_zero_terms(&z, &calib, &t);
	near(t.step_temp, 0);
	near(t.offload_buf, 0);
}

/* Through the estimator: Llama-3.1-8B, ZeRO-3 on 8 GPUs, bf16, no checkpointing */
static void test_estimate_llama8b(void **state)
{
	struct env *e = *state;
	const struct sl_model *m = sl_catalog_find_model(e->cat, "llama-3.1-8b");
	assert_non_null(m);
	const struct sl_arch *a = &m->arch;
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 1;
	s.zero_stage = 3;
	s.num_gpus = 8;
	double P = (double)sl_arch_params_for_task(a, SL_TASK_CAUSAL_LM);
	double h = a->hidden, vh = (double)a->vocab * h;
	double nccl = (double)e->calib.nccl_buffer;
	double buckets = 2 * h * h * 2;
	struct sl_breakdown b;

	/* one token: the optimizer step is the peak. 2 B of partition, 2 B of gradient partitions, 4 + 8 B
	 * of master and AdamW states per parameter over 8, and one sub-group of 1e9 elements (P/8 is more)
	 * flattened and upcast: 6 B each */
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_int_equal(b.phase, SL_PHASE_OPTIMIZER);
	assert_true(P / 8 > 1e9);
	near((double)b.weights, 2 * P / 8);
	near((double)b.gradients, 2 * P / 8);
	near((double)b.optimizer, 12 * P / 8 + 6e9);
	near((double)b.zero_gather, buckets + nccl); /* nothing gathered at the step */

	/* 4096 tokens: the backward. The head (V·h: 2·V·h > the reuse distance, so no layer is kept)
	 * stays gathered from its forward, with the prefetch bucket and one module past it (the FFN's
	 * h·I); the head's whole gradient next to the partitions */
	s.seq_len = 4096;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_int_equal(b.phase, SL_PHASE_BACKWARD);
	assert_true(2 * vh >= 1e9);
	double unit = h * a->intermediate;
	near((double)b.zero_gather, 2 * (vh + 0.9 * h * h + unit) + buckets + nccl);
	near((double)b.gradients, 2 * P / 8 + 2 * vh);
	near((double)b.optimizer, 12 * P / 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gathered),
		cmocka_unit_test(test_step),
		cmocka_unit_test_setup_teardown(test_estimate_llama8b, catalog_setup, catalog_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
