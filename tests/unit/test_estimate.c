/*
 * test_estimate: the memory estimator's soundness properties (monotone in
 * batch and length; gradient checkpointing, LoRA, QLoRA, ZeRO over more GPUs
 * and SDPA each lower the peak where they should), its bookkeeping (terms
 * add up to the total, parameter counts come from the architecture), the
 * seeds' checkable claims, host RAM, and calibration.yaml loading.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "catalog_fixture.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static const struct sl_arch *arch(struct env *e, const char *name)
{
	const struct sl_model *m = sl_catalog_find_model(e->cat, name);
	assert_non_null(m);
	return &m->arch;
}

static const struct sl_gpu *gpu(struct env *e, const char *name)
{
	const struct sl_gpu *g = sl_catalog_find_gpu(e->arena, e->cat, name);
	assert_non_null(g);
	return g;
}

static uint64_t total(struct env *e, const struct sl_arch *a, const struct sl_settings *s)
{
	struct sl_breakdown b;
	sl_estimate(a, s, gpu(e, "a100-80gb"), &e->calib, &b);
	return b.total;
}

/* Settings for each model family in the catalog's tests. */
static const struct {
	const char *model;
	enum sl_task task;
	enum sl_dtype dtype;
} cases[] = {
	{"bert-large-uncased", SL_TASK_SEQ_CLS, SL_DTYPE_FP32},
	{"bge-m3-ko", SL_TASK_BI_ENCODER, SL_DTYPE_FP32},
	{"llama-3.2-3b", SL_TASK_CAUSAL_LM, SL_DTYPE_BF16},
	{"mt5-base", SL_TASK_SEQ2SEQ, SL_DTYPE_FP32},
	{"t5-small", SL_TASK_SEQ2SEQ, SL_DTYPE_FP32},
	{"bart-base", SL_TASK_SEQ2SEQ, SL_DTYPE_FP32},
};

static void base_settings(struct sl_settings *s, size_t i)
{
	sl_settings_default(s);
	s->task = cases[i].task;
	s->dtype = cases[i].dtype;
	s->batch_size = 8;
	s->seq_len = 256;
}

static void test_monotone_batch_and_len(void **state)
{
	struct env *e = *state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct sl_arch *a = arch(e, cases[i].model);
		for (int variant = 0; variant < 8; variant++) {
			struct sl_settings s;
			base_settings(&s, i);
			s.gradient_checkpointing = variant & 1;
			s.amp = (variant & 2) && s.dtype == SL_DTYPE_FP32 ? SL_AMP_BF16 : SL_AMP_OFF;
			s.attn = (variant & 4) ? SL_ATTN_EAGER : SL_ATTN_DEFAULT;
			/* never less with more; strictly more once activations dominate
			 * (the optimizer step can be the peak of a tiny batch) */
			uint64_t first = 0, prev = 0;
			for (uint64_t b = 1; b <= 512; b += b / 4 + 1) {
				s.batch_size = b;
				uint64_t t = total(e, a, &s);
				assert_true(t >= prev);
				prev = t;
				first = first ? first : t;
			}
			assert_true(prev > 2 * first);
			s.batch_size = 4;
			first = prev = 0;
			for (uint64_t n = 16; n <= 4096; n += n / 4 + 1) {
				s.seq_len = n;
				uint64_t t = total(e, a, &s);
				assert_true(t >= prev);
				prev = t;
				first = first ? first : t;
			}
			assert_true(prev > first);
		}
	}
}

static void test_savings(void **state)
{
	struct env *e = *state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct sl_arch *a = arch(e, cases[i].model);
		struct sl_settings s;
		base_settings(&s, i);
		s.batch_size = 32;
		s.seq_len = 512;
		s.attn = SL_ATTN_EAGER;
		uint64_t eager = total(e, a, &s);
		s.attn = SL_ATTN_SDPA;
		uint64_t sdpa = total(e, a, &s);
		assert_true(sdpa < eager);

		s.gradient_checkpointing = true;
		uint64_t gc = total(e, a, &s);
		assert_true(gc < sdpa);

		s.gradient_checkpointing = false;
		s.lora_r = 16;
		uint64_t lora = total(e, a, &s);
		assert_true(lora < sdpa);
		/* a bitsandbytes base left in the load dtype (kbit_prepare false: LLaMA-Factory, Lightning):
		 * NF4 saves 2 - (0.5 + 4/64) B on the layers' linears and nothing else changes */
		s.quant = SL_QUANT_NF4;
		s.dtype = SL_DTYPE_BF16;
		s.kbit_prepare_off = true;
		uint64_t qlora = total(e, a, &s);
		s.quant = SL_QUANT_NONE;
		uint64_t lora16 = total(e, a, &s);
		assert_true(qlora < lora16);
		s.kbit_prepare_off = false;
	}
}

static void test_zero_more_gpus(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.1-8b");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.amp = SL_AMP_BF16;
	s.batch_size = 1;
	s.seq_len = 2048;
	s.gradient_checkpointing = true;
	for (uint32_t stage = 1; stage <= 3; stage++) {
		s.zero_stage = stage;
		uint64_t prev = UINT64_MAX;
		for (uint32_t n = 2; n <= 64; n *= 2) {
			s.num_gpus = n;
			uint64_t t = total(e, a, &s);
			assert_true(t < prev);
			prev = t;
		}
		s.num_gpus = 8;
		uint64_t on = total(e, a, &s);
		s.offload = SL_OFFLOAD_OPTIMIZER;
		assert_true(total(e, a, &s) < on);
		s.offload = SL_OFFLOAD_NONE;
	}
	/* stage 3 shards the weights too: below stage 2 on the same GPUs */
	s.num_gpus = 8;
	s.zero_stage = 2;
	uint64_t z2 = total(e, a, &s);
	s.zero_stage = 3;
	assert_true(total(e, a, &s) < z2);
}

/* k-bit bases and modules_to_save, term by term from the architecture (docs/memory-model.md) */
static void test_kbit_and_modules_to_save(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-2-7b");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_FP16;
	s.batch_size = 1;
	s.seq_len = 512;
	s.gradient_checkpointing = true;
	s.lora_r = 8;
	struct sl_breakdown nf4, gptq, plain, mts;
	s.quant = SL_QUANT_NF4;
	sl_estimate(a, &s, NULL, &e->calib, &nf4);
	s.quant = SL_QUANT_GPTQ;
	sl_estimate(a, &s, NULL, &e->calib, &gptq);
	/* the layers' linears are quantised; embeddings, norms and the head are not */
	uint64_t attn, ffn;
	sl_arch_layer_matmuls(a, &attn, &ffn);
	double P = (double)sl_arch_params_for_task(a, SL_TASK_CAUSAL_LM);
	double Mq = (double)a->layers * (double)(attn + ffn);
	/* bitsandbytes NF4 (0.5 + 4/64 B) with the rest upcast to fp32 by prepare_model_for_kbit_training;
	 * GPTQ (0.5 + 2.5/128 B) with the rest in the load dtype */
	double want = Mq * ((0.5 + 4.0 / 64) - (0.5 + 2.5 / 128)) + (P - Mq) * (4 - 2);
	assert_true(fabs((double)nf4.weights - (double)gptq.weights - want) < 2);

	/* modules_to_save: trainable copies of the embedding and the head in the load dtype */
	s.quant = SL_QUANT_NONE;
	sl_estimate(a, &s, NULL, &e->calib, &plain);
	s.modules_to_save = SL_MTS_EMBED | SL_MTS_HEAD;
	sl_estimate(a, &s, NULL, &e->calib, &mts);
	double vh = (double)a->vocab * a->hidden;
	assert_int_equal(mts.trainable - plain.trainable, (uint64_t)(2 * vh));
	assert_true(fabs((double)mts.weights - (double)plain.weights - 2 * 2 * vh) < 2);
	assert_true(mts.total > plain.total + (uint64_t)(4 * 2 * vh)); /* + gradients and AdamW states */
}

static void test_breakdown_adds_up(void **state)
{
	struct env *e = *state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct sl_arch *a = arch(e, cases[i].model);
		struct sl_settings s;
		base_settings(&s, i);
		for (int v = 0; v < 4; v++) {
			s.lora_r = v & 1 ? 8 : 0;
			s.gradient_checkpointing = v & 2;
			struct sl_breakdown b, b2;
			sl_estimate(a, &s, gpu(e, "h100-80gb"), &e->calib, &b);
			uint64_t sum = b.cuda_context + b.workspace + b.weights + b.gradients + b.optimizer +
				       b.activations + b.logits + b.zero_gather + b.slack;
			assert_int_equal(sum, b.total);
			assert_true(b.attention <= b.activations);
			assert_int_equal(b.params, sl_arch_params_for_task(a, s.task));
			if (s.lora_r)
				assert_int_equal(b.trainable, sl_arch_lora_params(a, 8, 0));
			else
				assert_int_equal(b.trainable, b.params);
			/* pure: the same answer twice */
			sl_estimate(a, &s, gpu(e, "h100-80gb"), &e->calib, &b2);
			assert_memory_equal(&b, &b2, sizeof b);
			/* Hopper's cuBLAS workspace is 32 MiB per handle */
			struct sl_breakdown v100;
			sl_estimate(a, &s, gpu(e, "v100-16gb"), &e->calib, &v100);
			assert_true(b.workspace > v100.workspace);
		}
	}
}

static void test_model_states(void **state)
{
	/* full fp32 AdamW with grads kept (legacy zero_grad): 4 + 4 + 8 B per parameter */
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "bert-large-uncased");
	struct sl_settings s;
	sl_settings_default(&s);
	s.legacy_runtime = true;
	s.batch_size = 1;
	struct sl_breakdown b;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	uint64_t P = b.params;
	assert_int_equal(b.weights, 4 * P);
	assert_int_equal(b.gradients, 4 * P);
	assert_int_equal(b.optimizer, 8 * P);
	assert_int_equal(b.cuda_context, e->calib.cuda_context_legacy);
	/* bf16 weights: torch AdamW keeps states in the parameter dtype */
	s.dtype = SL_DTYPE_BF16;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_int_equal(b.weights, 2 * P);
	assert_int_equal(b.optimizer, 4 * P);
	/* AMP: float32 master weights plus half copies of the matmul weights */
	s.dtype = SL_DTYPE_FP32;
	s.amp = SL_AMP_FP16;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_true(b.weights > 4 * P && b.weights < 6 * P);
	/* SGD keeps no state; 8-bit Adam about 2 B */
	s.amp = SL_AMP_OFF;
	s.optimizer = SL_OPTIM_SGD;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_int_equal(b.optimizer, 0);
	s.optimizer = SL_OPTIM_ADAMW_8BIT;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_true(b.optimizer >= 2 * P && b.optimizer < 3 * P);
	s.optimizer = SL_OPTIM_ADAFACTOR;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_true(b.optimizer < P / 10);
}

static void test_seed_bge_m3(void **state)
{
	/* seeds 000/002: bge-m3-ko at batch 256 × max_len 512 on an 80 GB card */
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "bge-m3-ko");
	const struct sl_gpu *h100 = gpu(e, "h100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_BI_ENCODER;
	s.batch_size = 256;
	s.seq_len = 512;
	struct sl_breakdown b;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_true(b.total > 2 * h100->bytes); /* far beyond 80 GB without GC */
	s.amp = SL_AMP_FP16;
	struct sl_breakdown amp;
	sl_estimate(a, &s, h100, &e->calib, &amp);
	assert_true(amp.total < b.total && amp.total > h100->bytes);
	s.gradient_checkpointing = true;
	struct sl_breakdown gc;
	sl_estimate(a, &s, h100, &e->calib, &gc);
	assert_true(gc.total < amp.total);
	print_message("bge-m3-ko b256 len512: fp32 %.0f GiB, amp %.0f GiB, amp+gc %.1f GiB (seed 002: ~100/88/78 GB)\n",
		      b.total / GIB, amp.total / GIB, gc.total / GIB);
	/* the seed's kept setting fits: batch 64 × len 256 with AMP + GC */
	s.batch_size = 64;
	s.seq_len = 256;
	sl_estimate(a, &s, h100, &e->calib, &gc);
	assert_true(gc.total < h100->bytes / 4);
}

static void test_eval_below_train(void **state)
{
	struct env *e = *state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct sl_arch *a = arch(e, cases[i].model);
		struct sl_settings s;
		base_settings(&s, i);
		struct sl_breakdown tr, ev, ev2;
		sl_estimate(a, &s, NULL, &e->calib, &tr);
		sl_estimate_eval(a, &s, NULL, &e->calib, &ev);
		assert_true(ev.total < tr.total);
		s.eval_batch_size = 4 * s.batch_size;
		sl_estimate_eval(a, &s, NULL, &e->calib, &ev2);
		assert_true(ev2.total > ev.total);
	}
}

static void test_attention_only(void **state)
{
	struct env *e = *state;
	/* eager is quadratic, flash linear: doubling s ≈ ×4 vs ×2 at long lengths */
	double e1 = (double)sl_attention_only_bytes(SL_ATTN_EAGER, 16, 8, 64, 4096, 2, &e->calib);
	double e2 = (double)sl_attention_only_bytes(SL_ATTN_EAGER, 16, 8, 64, 8192, 2, &e->calib);
	double f1 = (double)sl_attention_only_bytes(SL_ATTN_FLASH, 16, 8, 64, 4096, 2, &e->calib);
	double f2 = (double)sl_attention_only_bytes(SL_ATTN_FLASH, 16, 8, 64, 8192, 2, &e->calib);
	assert_true(e2 / e1 > 3.8 && e2 / e1 < 4.01);
	assert_true(f2 / f1 > 1.99 && f2 / f1 < 2.01);
	assert_true(f1 < e1 / 10);
}

static void test_host(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.1-8b");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	struct sl_host_breakdown h0, h1;
	sl_estimate_host(a, &s, &e->calib, &h0);
	assert_int_equal(h0.total, h0.base + h0.workers + h0.loading + h0.pinned + h0.overhead);
	s.num_workers = 16;
	sl_estimate_host(a, &s, &e->calib, &h1);
	assert_true(h1.workers > h0.workers && h1.total > h0.total);
	/* seed 004: ZeRO-3 over 4 single-GPU pods without zero.Init loads the whole model per process */
	s.zero_stage = 3;
	s.num_gpus = 4;
	s.gpus_per_node = 1;
	sl_estimate_host(a, &s, &e->calib, &h0);
	s.zero3_init = true;
	sl_estimate_host(a, &s, &e->calib, &h1);
	assert_true(h0.loading > 3 * h1.loading);
	uint64_t model = 2 * sl_arch_params_for_task(a, s.task);
	assert_true(h0.loading >= model);
	/* FSDP over 8 GPUs of a node: every process loads the model on its CPU (accelerate without
	 * fsdp_cpu_ram_efficient_loading), or local rank 0 alone with it: 8 times the model × the load
	 * factor, or once */
	s.zero_stage = 0;
	s.zero3_init = false;
	s.gpus_per_node = 0;
	s.num_gpus = 8;
	s.fsdp = SL_FSDP_FULL_SHARD;
	sl_estimate_host(a, &s, &e->calib, &h0);
	s.fsdp_init = SL_FSDP_INIT_RANK0;
	sl_estimate_host(a, &s, &e->calib, &h1);
	assert_true(fabs((double)h0.loading - 8 * (double)model * e->calib.host_load_factor) < 8);
	assert_true(fabs((double)h1.loading - (double)model * e->calib.host_load_factor) < 2);
}

static void test_calib_diagnostics(void **state)
{
	struct env *e = *state;
	struct sl_diags d;
	sl_diags_init(&d, e->arena);
	struct sl_calib c;
	static const char bad[] = "constants:\n"
				  "  - {name: cuda_context, value: 512, unit: GiB, source: x, fitted: false}\n"
				  "  - {name: no_such_thing, value: 1, unit: MiB, source: x, fitted: false}\n"
				  "  - {name: slack_frac, value: -1, unit: fraction, source: x, fitted: true}\n";
	assert_int_equal(sl_calib_parse(e->arena, "bad.yaml", bad, sizeof bad - 1, &c, &d), -SL_ECONFIG);
	bool unit = false, unknown = false, range = false, missing = false;
	for (size_t i = 0; i < d.n; i++) {
		const char *m = d.v[i].message;
		unit |= strstr(m, "'cuda_context' has unit 'GiB'") != NULL;
		unknown |= strstr(m, "unknown calibration constant 'no_such_thing'") != NULL;
		range |= strstr(m, "'slack_frac' is -1") != NULL;
		missing |= strstr(m, "'eager_attn_copies' is missing") != NULL;
	}
	assert_true(unit && unknown && range && missing);
	/* the embedded file loads, every constant set */
	sl_diags_init(&d, e->arena);
	assert_int_equal(sl_calib_load(e->arena, &c, &d), 0);
	assert_int_equal(d.n, 0);
	assert_true(c.cuda_context > 0 && c.slack_frac > 0 && c.eager_attn_copies > 0);
}

/* Paged optimizers (docs/memory-model.md "Paged optimizers"): the states of tensors of bnb_paged_min
 * elements and more leave the device total for CUDA managed memory; absmax and small states stay. */
static void test_paged_optimizer(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.1-8b");
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 1024;
	s.gradient_checkpointing = true;
	s.optimizer = SL_OPTIM_ADAMW_8BIT;
	struct sl_breakdown un, pg;
	sl_estimate(a, &s, g, &e->calib, &un);
	assert_int_equal(un.paged, 0);
	s.optimizer_paged = true;
	sl_estimate(a, &s, g, &e->calib, &pg);
	double P = (double)sl_arch_params_for_task(a, s.task);
	/* 8-bit: 2 B per element of every large tensor is paged; only norms stay (under 0.1 % of P) */
	assert_true(pg.paged > 2 * 0.999 * P && pg.paged <= 2 * P);
	/* the same state, split: what is paged left the device; absmax (2 float32 per bnb_block) stays */
	double absmax = 2.0 * 4.0 * 0.999 * P / (double)e->calib.bnb_block;
	assert_true(fabs((double)(pg.paged + pg.optimizer) - (double)un.optimizer) < 4);
	assert_true((double)pg.optimizer > absmax && (double)pg.optimizer < absmax + 8 * 0.001 * P);
	assert_true(pg.total < un.total);
	/* the 8-bit embeddings: transformers' Trainer overrides nothing for bnb.optim.AdamW */
	assert_true(un.optimizer < 2.1 * P);

	/* 32-bit paged (bitsandbytes float32 states whatever the parameter dtype), no foreach temporaries */
	s.optimizer = SL_OPTIM_ADAMW;
	sl_estimate(a, &s, g, &e->calib, &pg);
	assert_true(pg.paged > 8 * 0.999 * P && pg.paged <= 8 * P);
	assert_true(pg.optimizer < 8 * 0.001 * P);

	/* LoRA: A (r x in) and B (out x r) page only from bnb_paged_min elements: r 16 on 4096-wide
	 * projections is 65,536 elements a matrix, r 64 is 262,144 */
	s.optimizer = SL_OPTIM_ADAMW_8BIT;
	s.lora_r = 16;
	sl_estimate(a, &s, g, &e->calib, &pg);
	assert_int_equal(pg.paged, 0);
	assert_true(a->hidden * 16 < e->calib.bnb_paged_min && a->hidden * 64 >= e->calib.bnb_paged_min);
	s.lora_r = 64;
	sl_estimate(a, &s, g, &e->calib, &pg);
	assert_true(pg.paged > 0 && (double)pg.paged <= 2 * (double)pg.trainable);

	/* states per element: Lion 1, AdamW 2, AdEMAMix 3 (two EMAs in one double buffer, and nu) */
	s.lora_r = 0;
	struct sl_breakdown lion, adamw, ademamix;
	s.optimizer = SL_OPTIM_LION_8BIT;
	sl_estimate(a, &s, g, &e->calib, &lion);
	s.optimizer = SL_OPTIM_ADAMW_8BIT;
	sl_estimate(a, &s, g, &e->calib, &adamw);
	s.optimizer = SL_OPTIM_ADEMAMIX_8BIT;
	sl_estimate(a, &s, g, &e->calib, &ademamix);
	assert_true(fabs(2.0 * (double)lion.paged - (double)adamw.paged) < 4);
	assert_true(fabs(2.0 * (double)ademamix.paged - 3.0 * (double)adamw.paged) < 8);
	assert_true(ademamix.optimizer > adamw.optimizer && adamw.optimizer > lion.optimizer); /* absmax */
	s.optimizer = SL_OPTIM_ADEMAMIX; /* 32-bit: float32 states, 12 B */
	s.optimizer_paged = false;
	sl_estimate(a, &s, g, &e->calib, &ademamix);
	assert_true(fabs((double)ademamix.optimizer - 12 * P) < 16);

	/* a model whose layer linears are all under bnb_paged_min: only its word embedding pages */
	const struct sl_arch *tiny = NULL;
	for (size_t i = 0; i < e->cat->narchs; i++) /* the architecture table: matched by name only */
		if (strcmp(e->cat->archs[i].name, "bert-tiny") == 0)
			tiny = &e->cat->archs[i].arch;
	assert_non_null(tiny);
	sl_settings_default(&s);
	s.optimizer = SL_OPTIM_ADAMW_8BIT;
	s.optimizer_paged = true;
	sl_estimate(tiny, &s, g, &e->calib, &pg);
	double E = tiny->emb_dim ? tiny->emb_dim : tiny->hidden;
	assert_true((double)tiny->hidden * tiny->intermediate < (double)e->calib.bnb_paged_min);
	assert_int_equal(pg.paged, (uint64_t)(2 * (double)tiny->vocab * E));

	/* a workload without an optimizer has no paged states */
	s.mode = SL_MODE_EVAL;
	sl_estimate(tiny, &s, g, &e->calib, &pg);
	assert_int_equal(pg.paged, 0);
}

/* What the device cannot hold next to the peak spills to host RAM, per process on the node. */
static void test_paged_host(void **state)
{
	struct env *e = *state;
	struct sl_breakdown b = {0};
	b.total = 20 * (uint64_t)GIB;
	b.paged = 15 * (uint64_t)GIB;
	assert_int_equal(sl_paged_spill(&b, 24 * (uint64_t)GIB), 11 * (uint64_t)GIB);
	assert_int_equal(sl_paged_spill(&b, 80 * (uint64_t)GIB), 0);
	assert_int_equal(sl_paged_spill(&b, 16 * (uint64_t)GIB), b.paged); /* the peak alone is past the device */
	const struct sl_arch *a = arch(e, "llama-3.1-8b");
	struct sl_settings s;
	sl_settings_default(&s);
	s.num_gpus = 4;
	struct sl_host_breakdown h;
	sl_estimate_host(a, &s, &e->calib, &h);
	uint64_t before = h.total;
	sl_host_add_paged(&s, &b, 24 * (uint64_t)GIB, &h);
	assert_int_equal(h.paged, 4 * 11 * (uint64_t)GIB);
	assert_int_equal(h.total, before + h.paged);
}

/*
 * The optimizer step's temporaries by implementation (torch/optim/adamw.py @ 002d2f0b): Llama-3.2-1B in
 * bf16 at one token, so the step is the peak. AdamW keeps two bf16 states (4 B per parameter); foreach's
 * _foreach_sqrt adds one state-sized list (2 B), fused nothing, the per-parameter loop two copies of the
 * largest tensor (the tied 128256 x 2048 embedding).
 */
static void test_optimizer_impl(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.2-1b");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 1;
	s.gradient_checkpointing = true;
	struct sl_breakdown b;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	uint64_t T = b.trainable;
	assert_int_equal(b.phase, SL_PHASE_OPTIMIZER);
	assert_int_equal(b.optimizer, 4 * T + 2 * T);
	s.optimizer_impl = SL_OPTIM_IMPL_FUSED;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_int_equal(b.optimizer, 4 * T);
	s.optimizer_impl = SL_OPTIM_IMPL_LOOP;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_int_equal(b.optimizer, 4 * T + 2 * 2 * (uint64_t)128256 * 2048);
	/* Lion has no fused kernel in torch: fused=True changes nothing there (its two foreach lists stay) */
	s.optimizer = SL_OPTIM_LION;
	s.optimizer_impl = SL_OPTIM_IMPL_FUSED;
	sl_estimate(a, &s, NULL, &e->calib, &b);
	assert_int_equal(b.optimizer, 2 * T + 2 * 2 * T);
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(sl_optim_parse("adamw_torch_fused"), SL_OPTIM_ADAMW | SL_OPTIM_FUSED);
	assert_int_equal(sl_optim_parse("adamw_apex_fused"), SL_OPTIM_ADAMW | SL_OPTIM_FUSED);
	assert_int_equal(sl_optim_parse("adamw_hf"), SL_OPTIM_ADAMW | SL_OPTIM_LOOP);
	assert_int_equal(sl_optim_parse("adamw_torch"), SL_OPTIM_ADAMW);
	/* class paths (torchtune's _component_): torch.optim's own classes, DeepSpeed's FusedAdam */
	assert_int_equal(sl_optim_parse("torch.optim.AdamW"), SL_OPTIM_ADAMW);
	assert_int_equal(sl_optim_parse("torch.optim.SGD"), SL_OPTIM_SGD);
	assert_int_equal(sl_optim_parse("torch.optim.Adamax"), -1);
	assert_int_equal(sl_optim_parse("torch.optim.Adam8bit"), -1);
	assert_int_equal(sl_optim_parse("deepspeed.ops.adam.FusedAdam"), SL_OPTIM_ADAMW | SL_OPTIM_FUSED);
	assert_int_equal(sl_optim_parse("deepspeed.ops.adam.DeepSpeedCPUAdam"), -1);
	assert_int_equal(sl_optim_parse("transformers.AdamW"), SL_OPTIM_ADAMW | SL_OPTIM_LOOP);
	assert_int_equal(sl_optim_impl_parse("fused"), SL_OPTIM_IMPL_FUSED);
	assert_int_equal(sl_optim_impl_parse("for_loop"), SL_OPTIM_IMPL_LOOP);
	assert_int_equal(sl_optim_impl_parse("foreach"), SL_OPTIM_IMPL_FOREACH);
	assert_int_equal(sl_optim_impl_parse("fast"), -1);
	assert_int_equal(sl_optim_parse("paged_adamw_8bit"), SL_OPTIM_ADAMW_8BIT | SL_OPTIM_PAGED);
	assert_int_equal(sl_optim_parse("adamw_bnb_8bit"), SL_OPTIM_ADAMW_8BIT);
	assert_int_equal(sl_optim_parse("paged_adamw_32bit"), SL_OPTIM_ADAMW | SL_OPTIM_PAGED);
	assert_int_equal(sl_optim_parse("paged_lion_32bit"), SL_OPTIM_LION | SL_OPTIM_PAGED);
	assert_int_equal(sl_optim_parse("paged_ademamix_8bit"), SL_OPTIM_ADEMAMIX_8BIT | SL_OPTIM_PAGED);
	assert_int_equal(sl_optim_parse("paged_ademamix_32bit"), SL_OPTIM_ADEMAMIX | SL_OPTIM_PAGED);
	assert_int_equal(sl_optim_parse("paged_lion_8bit"), SL_OPTIM_LION_8BIT | SL_OPTIM_PAGED);
	assert_int_equal(sl_optim_parse("lion_8bit"), SL_OPTIM_LION_8BIT);
	assert_int_equal(sl_optim_parse("bitsandbytes.optim.PagedAdamW8bit"), SL_OPTIM_ADAMW_8BIT | SL_OPTIM_PAGED);
	assert_int_equal(sl_optim_parse("torch.optim.PagedAdamW8bit"), -1);
	assert_int_equal(sl_optim_parse("Adafactor"), SL_OPTIM_ADAFACTOR);
	assert_int_equal(sl_optim_parse("nonsense"), -1);
	for (int o = 0; o < SL_OPTIM__COUNT; o++)
		assert_int_equal(sl_optim_parse(sl_optim_name((enum sl_optim)o)), o);
	assert_string_equal(sl_attn_name(SL_ATTN_SDPA), "sdpa");
	assert_string_equal(sl_quant_name(SL_QUANT_NF4), "nf4");
	assert_string_equal(sl_quant_name(SL_QUANT_GPTQ), "gptq");
	assert_string_equal(sl_quant_name(SL_QUANT_AWQ), "awq");
	assert_string_equal(sl_offload_name(SL_OFFLOAD_ALL), "all");
}

/* --- the families of issue #11, read from their fixtures/configs/ config.json ---------------- */

static const struct sl_arch *fixture(struct env *e, const char *dir)
{
	struct sl_diags d;
	sl_diags_init(&d, e->arena);
	char path[128];
	snprintf(path, sizeof path, "fixtures/configs/%s", dir);
	const struct sl_model *m = sl_model_from_config(e->arena, path, &d);
	assert_non_null(m);
	return &m->arch;
}

static uint64_t sum_terms(const struct sl_breakdown *b)
{
	return b->cuda_context + b->workspace + b->weights + b->gradients + b->optimizer + b->activations +
	       b->logits + b->zero_gather + b->slack;
}

static void test_new_families(void **state)
{
	struct env *e = *state;
	static const char *const dirs[] = {"phi", "phi3", "falcon", "bloom", "gpt_bigcode", "opt", "gptj",
					   "gpt_neo", "gemma2", "gemma3_text", "qwen3", "granite", "deberta-v2",
					   "distilbert", "albert", "mpnet", "mixtral", "qwen2_moe", "qwen3_moe",
					   "whisper", "t5-encoder"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		const struct sl_arch *a = fixture(e, dirs[i]);
		for (int variant = 0; variant < 4; variant++) {
			struct sl_settings s;
			sl_settings_default(&s);
			s.task = a->kind == SL_ARCH_DECODER ? SL_TASK_CAUSAL_LM
				 : a->kind == SL_ARCH_ENCODER || a->enc_only ? SL_TASK_SEQ_CLS
									      : SL_TASK_SEQ2SEQ;
			s.dtype = SL_DTYPE_BF16;
			s.gradient_checkpointing = variant & 1;
			s.lora_r = (variant & 2) ? 16 : 0;
			uint64_t prev = 0, first = 0;
			for (uint64_t b = 1; b <= 256; b += b / 4 + 1) {
				s.batch_size = b;
				s.seq_len = 256;
				struct sl_breakdown out;
				sl_estimate(a, &s, NULL, &e->calib, &out);
				if (out.total < prev || out.total != sum_terms(&out))
					print_error("%s variant %d batch %llu: %llu after %llu\n", dirs[i], variant,
						    (unsigned long long)b, (unsigned long long)out.total,
						    (unsigned long long)prev);
				assert_true(out.total >= prev);
				assert_int_equal(out.total, sum_terms(&out));
				assert_int_equal(out.params, sl_arch_params_for_task(a, s.task));
				prev = out.total;
				first = first ? first : out.total;
			}
			/* strictly more once activations dominate: with LoRA (full fine-tunes of the
			 * largest can peak at the optimizer step up to batch 256) */
			if ((variant & 2) && !(prev > first))
				print_error("%s variant %d: flat %llu\n", dirs[i], variant, (unsigned long long)prev);
			if (variant & 2)
				assert_true(prev > first);
		}
	}
}

static void test_moe(void **state)
{
	struct env *e = *state;
	struct sl_arch a = *fixture(e, "mixtral");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 1024;
	struct sl_breakdown b2, b4, dense;
	/* every expert resident: bf16 weights are 2 B per parameter of all 8 experts */
	sl_estimate(&a, &s, NULL, &e->calib, &b2);
	assert_int_equal(b2.params, sl_arch_params(&a));
	assert_int_equal(b2.weights, 2 * b2.params);
	assert_true(b2.optimizer >= 4 * b2.params); /* AdamW states (+ the step's temporaries at its peak) */
	/* the activations follow the experts each token goes through, not the expert count */
	a.top_k = 4;
	sl_estimate(&a, &s, NULL, &e->calib, &b4);
	assert_true(b4.params == b2.params);
	struct sl_breakdown f2, f4;
	s.batch_size = 8;
	s.lora_r = 16; /* a LoRA run: the peak is in the step's activations, not the optimizer's */
	a.top_k = 2;
	sl_estimate(&a, &s, NULL, &e->calib, &f2);
	a.top_k = 4;
	sl_estimate(&a, &s, NULL, &e->calib, &f4);
	assert_true(f4.activations + f4.logits > f2.activations + f2.logits);
	/* a dense model of the same shape with one FFN has far fewer parameters */
	struct sl_arch d = a;
	d.experts = 0;
	d.top_k = 0;
	sl_estimate(&d, &s, NULL, &e->calib, &dense);
	assert_true(dense.params * 5 < f2.params);
	assert_true(dense.weights * 5 < f2.weights);
	/* LoRA on the FFN adapts every expert */
	uint64_t with = sl_arch_lora_params(&a, 8, SL_LORA_ALL), without = sl_arch_lora_params(&d, 8, SL_LORA_ALL);
	assert_true(with > 4 * without / 2);
}

static void test_whisper_frames(void **state)
{
	/* the encoder sees its 1500 frames whatever the length setting (the decoder's labels) */
	struct env *e = *state;
	struct sl_arch a = *fixture(e, "whisper");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_SEQ2SEQ;
	s.batch_size = 16;
	s.seq_len = 1;
	struct sl_breakdown full, half;
	sl_estimate(&a, &s, NULL, &e->calib, &full);
	a.src_pos = 750;
	sl_estimate(&a, &s, NULL, &e->calib, &half);
	assert_true(full.activations > half.activations + half.activations / 2);
	/* the decoder length still counts */
	a.src_pos = 1500;
	s.seq_len = 448;
	struct sl_breakdown longer;
	sl_estimate(&a, &s, NULL, &e->calib, &longer);
	assert_true(longer.total > full.total);
}

/*
 * Generation (issue #12): no gradients or optimizer; the KV cache is 2 × layers × (batch × beams) ×
 * (prompt + new) × kv_heads × head_dim × dtype bytes at the last decoding step; the beams multiply it;
 * the Llama-3.1-8B decoding sweep of the issue fits an 80 GB card; vLLM's pre-allocation is a floor.
 */
static void test_generate(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.1-8b");
	const struct sl_gpu *h100 = gpu(e, "h100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.mode = SL_MODE_GENERATE;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 16;
	s.num_beams = 4;
	s.max_new_tokens = 4096;
	struct sl_breakdown b;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_int_equal(b.phase, SL_PHASE_DECODE);
	assert_int_equal(b.gradients, 0);
	assert_int_equal(b.optimizer, 0);
	assert_int_equal(b.trainable, 0);
	uint64_t kv = 2ull * a->layers * 4 * (16 + 4096) * a->kv_heads * a->head_dim * 2;
	assert_true(b.kv_cache >= kv - kv / 1000 && b.kv_cache <= kv + kv / 1000);
	/* weights as loaded: 2 bytes per parameter */
	uint64_t p = sl_arch_params_for_task(a, SL_TASK_CAUSAL_LM);
	assert_true(b.weights >= 2 * p && b.weights < 2 * p + p / 100);
	/* twice the beams: twice the cache */
	struct sl_breakdown b8;
	s.num_beams = 8;
	sl_estimate(a, &s, h100, &e->calib, &b8);
	assert_true(b8.kv_cache > 2 * b.kv_cache - kv / 1000 && b8.kv_cache < 2 * b.kv_cache + kv / 1000);
	/* the sweep: batch 8 × 4 beams × a 4096-token prompt in bf16 fits 80 GB; training would not */
	s.batch_size = 8, s.seq_len = 4096, s.num_beams = 4, s.max_new_tokens = 0;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_true(b.total < h100->bytes);
	s.mode = SL_MODE_TRAIN;
	sl_estimate(a, &s, h100, &e->calib, &b8);
	assert_true(b8.total > h100->bytes);
	/* vLLM pre-allocates the rest of gpu_memory_utilization x capacity past what its start-up needs
	 * (reported apart, docs/memory-model.md "vLLM"; test_usage checks the terms) */
	s.mode = SL_MODE_GENERATE;
	s.batch_size = 1, s.seq_len = 128, s.num_beams = 1;
	s.gpu_mem_util_bp = 9000;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_true(b.total < h100->bytes * 9 / 10 && b.preallocated > 0);
	assert_true(b.total - b.cuda_context + b.preallocated >= h100->bytes * 9 / 10 - 1);
	/* an encoder cannot generate: an evaluation forward without optimizer states */
	s.gpu_mem_util_bp = 0;
	sl_estimate(arch(e, "bert-base-uncased"), &s, h100, &e->calib, &b);
	assert_int_equal(b.kv_cache, 0);
	assert_int_equal(b.optimizer, 0);
}

/*
 * Issue #30: the cache and state terms of the 2025-2026 families against hand computations
 * (src/memory/state.c): MLA's per-head cache in transformers and its latent under vLLM, the fixed
 * recurrent state of Mamba, Mamba2 and Jamba's SSM layers, sliding-window layers (gpt-oss, gemma3).
 */
static void test_cache_terms(void **state)
{
	struct env *e = *state;
	/* DeepSeek-V2-Lite, 1000 tokens, bf16: 27 layers x 16 heads x (192 k + 128 v), or 27 x (512 + 64) */
	const struct sl_arch *ds = fixture(e, "deepseek_v2");
	assert_true(sl_arch_cache_bytes(ds, 1000, 2, false) == 27.0 * 1000 * 16 * (192 + 128) * 2);
	assert_true(sl_arch_cache_bytes(ds, 1000, 2, true) == 27.0 * 1000 * (512 + 64) * 2);
	/* mamba-130m: conv 1536 x 4 and ssm 1536 x 16 per layer, 24 layers, whatever the length */
	const struct sl_arch *mb = fixture(e, "mamba");
	assert_true(sl_arch_cache_bytes(mb, 10, 2, false) == 24.0 * (1536 * 4 + 1536 * 16) * 2);
	assert_true(sl_arch_cache_bytes(mb, 100000, 2, false) == sl_arch_cache_bytes(mb, 10, 2, false));
	/* Mamba-Codestral: conv over 8192 + 2·8·128 channels x 4, ssm 128 heads x 64 x 128; 64 layers */
	const struct sl_arch *m2 = fixture(e, "mamba2");
	assert_true(sl_arch_cache_bytes(m2, 5000, 2, false) == 64.0 * ((8192 + 2048) * 4 + 8192 * 128) * 2);
	/* gpt-oss-20b at 1000 tokens: 12 full layers x 1000 + 12 sliding x 128, 2 x 8 heads x 64 each */
	const struct sl_arch *go = fixture(e, "gpt_oss");
	assert_int_equal(go->window, 128);
	assert_int_equal(go->window_layers, 12);
	assert_true(sl_arch_cache_bytes(go, 1000, 2, false) == (12.0 * 1000 + 12.0 * 128) * 2 * 8 * 64 * 2);
	assert_true(sl_arch_cache_bytes(go, 100, 2, false) == 24.0 * 100 * 2 * 8 * 64 * 2); /* inside the window */
	/* Jamba-v0.1 at 1000: 4 attention layers (8 kv heads x 128) and 28 Mamba layers (8192 x (4 + 16)) */
	const struct sl_arch *jb = fixture(e, "jamba");
	assert_true(sl_arch_cache_bytes(jb, 1000, 2, false) == (4.0 * 1000 * 2 * 8 * 128 + 28.0 * 8192 * 20) * 2);
	/* c4ai-command-r7b (cohere2) at 8192: layers 3, 7, ..., 31 global (8), the other 24 in a 4096 window;
	 * 2 x 8 heads x 128 each */
	const struct sl_arch *c2 = fixture(e, "cohere2");
	assert_int_equal(c2->window, 4096);
	assert_int_equal(c2->window_layers, 24);
	assert_true(sl_arch_cache_bytes(c2, 8192, 2, false) == (8.0 * 8192 + 24.0 * 4096) * 2 * 8 * 128 * 2);
	/* EXAONE-4.0-32B at 8192: sliding_window_pattern "LLLG" (the period 4): 16 global layers, 48 in a 4096
	 * window; 2 x 8 heads x 128 each */
	const struct sl_arch *ex = fixture(e, "exaone4");
	assert_int_equal(ex->window, 4096);
	assert_int_equal(ex->window_layers, 48);
	assert_true(sl_arch_cache_bytes(ex, 8192, 2, false) == (16.0 * 8192 + 48.0 * 4096) * 2 * 8 * 128 * 2);
	/* LFM2-1.2B at 8192: k and v of 8 heads x 64 in its 6 attention layers, and Lfm2Cache's conv_state of
	 * 2048 x conv_L_cache 3 in every one of the 16 layers */
	const struct sl_arch *lf = fixture(e, "lfm2");
	assert_int_equal(lf->sconv_kernel, 3);
	assert_true(sl_arch_cache_bytes(lf, 8192, 2, false) == 6.0 * 8192 * 2 * 8 * 64 * 2 + 16.0 * 2048 * 3 * 2);
	/* ERNIE-4.5-21B-A3B: layer 0 dense, 1 to 27 MoE (moe_layer_start_index 1, moe_layer_end_index 27); its
	 * cache at 8192 is plain GQA, 28 layers x 2 x 4 heads x 128 */
	const struct sl_arch *er = fixture(e, "ernie4_5_moe");
	assert_false(sl_arch_moe_layer(er, 0));
	assert_true(sl_arch_moe_layer(er, 1) && sl_arch_moe_layer(er, 27));
	assert_true(sl_arch_cache_bytes(er, 8192, 2, false) == 28.0 * 8192 * 2 * 4 * 128 * 2);
	/* Qwen3-VL-8B at 8192: its text model's plain GQA, 36 layers x 2 x 8 heads x 128 (the tower keeps no cache) */
	const struct sl_arch *q3v = fixture(e, "qwen3_vl");
	assert_int_equal(q3v->vis_kind, SL_VISION_QWEN3);
	assert_int_equal(q3v->vis_deepstack, 3);
	assert_true(sl_arch_cache_bytes(q3v, 8192, 2, false) == 36.0 * 8192 * 2 * 8 * 128 * 2);
	/* SmolVLM-256M at 2048: SmolLM2-135M's GQA, 30 layers x 2 x 3 heads x 64 */
	const struct sl_arch *sv = fixture(e, "idefics3");
	assert_int_equal(sv->vis_kind, SL_VISION_IDEFICS3);
	assert_int_equal(sv->vis_merge, 4);
	assert_true(sl_arch_cache_bytes(sv, 2048, 2, false) == 30.0 * 2048 * 2 * 3 * 64 * 2);
	/* gemma-3-4b at 4096: 5 global layers (5, 11, 17, 23, 29) and 29 local ones of 1024, 2 x 4 x 256 */
	struct sl_catalog *c = NULL;
	struct sl_diags d;
	sl_diags_init(&d, e->arena);
	assert_int_equal(sl_catalog_load(e->arena, &c, &d), 0);
	const struct sl_model *g3 = NULL;
	for (size_t i = 0; i < c->narchs; i++)
		if (strcmp(c->archs[i].name, "gemma-3-4b") == 0)
			g3 = &c->archs[i];
	assert_non_null(g3);
	assert_int_equal(g3->arch.window_layers, 29);
	assert_true(sl_arch_cache_bytes(&g3->arch, 4096, 2, false) == (5.0 * 4096 + 29.0 * 1024) * 2 * 4 * 256 * 2);

	/* issue #30, fifth part: the Mamba2 hybrids at 1000 tokens, bf16. Granite-4.0-H-Tiny: k and v of 4 heads x
	 * 128 in its 4 attention layers, and in its 36 Mamba2 layers only (Bamba's HybridMambaAttentionDynamicCache)
	 * conv over 3072 + 2 x 128 channels x 4 and the ssm state 48 heads x 64 x 128 */
	const struct sl_arch *gh = fixture(e, "granitemoehybrid");
	assert_true(sl_arch_cache_bytes(gh, 1000, 2, false) ==
		    4.0 * 1000 * 2 * 4 * 128 * 2 + 36.0 * ((3072 + 256) * 4 + 3072 * 128) * 2);
	/* Falcon-H1-7B: every one of its 44 layers keeps both, k and v of 2 heads x 128 and the mixer's conv over
	 * 3072 + 2 x 256 channels x 4 and ssm state 24 x 128 x 256 (FalconHybridMambaAttentionDynamicCache) */
	const struct sl_arch *fh = fixture(e, "falcon_h1");
	assert_true(sl_arch_cache_bytes(fh, 1000, 2, false) ==
		    44.0 * 1000 * 2 * 2 * 128 * 2 + 44.0 * ((3072 + 512) * 4 + 3072 * 256) * 2);
	/* Nemotron-Nano-9B-v2: 4 attention blocks (8 kv heads x 128), 27 Mamba2 blocks (conv over 10240 + 2 x 8 x 128
	 * channels x 4 in bf16, the ssm state 128 x 80 x 128 in float32: mamba_ssm_cache_dtype), 25 MLP blocks
	 * that keep nothing */
	const struct sl_arch *nh = fixture(e, "nemotron_h");
	assert_int_equal(sl_arch_mlp_blocks(nh), 25);
	assert_int_equal(sl_arch_ssm_layers(nh), 27);
	assert_true(nh->ssm_state_fp32);
	assert_true(sl_arch_cache_bytes(nh, 1000, 2, false) ==
		    4.0 * 1000 * 2 * 8 * 128 * 2 + 27.0 * ((10240 + 2048) * 4 * 2 + 10240 * 128 * 4));

	/* generation: the estimate's cache is that of every sequence at its longest */
	const struct sl_gpu *h100 = gpu(e, "h100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.mode = SL_MODE_GENERATE;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 2;
	s.seq_len = 8;
	s.max_new_tokens = 992;
	struct sl_breakdown b;
	sl_estimate(go, &s, h100, &e->calib, &b);
	assert_int_equal(b.phase, SL_PHASE_DECODE);
	assert_true(b.kv_cache == (uint64_t)(2 * sl_arch_cache_bytes(go, 1000, 2, false)));
	sl_estimate(ds, &s, h100, &e->calib, &b);
	assert_true(b.kv_cache == (uint64_t)(2 * sl_arch_cache_bytes(ds, 1000, 2, false)));
	/* vLLM: the latent, for the one max_model_len sequence its start-up check sizes (vllm.c), in blocks
	 * of 16 tokens: 1000 -> 1008 */
	s.gpu_mem_util_bp = 9000;
	s.max_model_len = 1000;
	sl_estimate(ds, &s, h100, &e->calib, &b);
	assert_true(b.kv_cache == (uint64_t)sl_arch_cache_bytes(ds, 1008, 2, true));
	s.gpu_mem_util_bp = 0;
	s.max_model_len = 0;
	sl_estimate(mb, &s, h100, &e->calib, &b);
	assert_true(b.kv_cache == (uint64_t)(2 * 24.0 * (1536 * 4 + 1536 * 16) * 2));
}

/*
 * Issue #30: the saved activations of one Mamba layer in training (MambaInnerFn, checkpoint_lvl 1) by
 * hand: mamba-130m in bf16 without autocast, a full fine-tune, one sequence of 1024 tokens. RMSNorm
 * keeps a float32 copy and its normalised output (6 B per element) and the rstd (4 B a token);
 * in_proj keeps its input (2 B); the kernel keeps xz (2I), x_dbl (dt_rank + 2N), the contiguous B and
 * C (2N) and the scan's output (I) in bf16, and float32 chunk states I x 2N per 2048 tokens. One more
 * layer adds exactly that to the activations at the backward peak.
 */
static void test_ssm_activations(void **state)
{
	struct env *e = *state;
	const struct sl_gpu *h100 = gpu(e, "h100-80gb");
	struct sl_arch a = *fixture(e, "mamba"), a1;
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 1024;
	struct sl_breakdown b, b1;
	sl_estimate(&a, &s, h100, &e->calib, &b);
	a1 = a;
	a1.layers++;
	sl_estimate(&a1, &s, h100, &e->calib, &b1);
	assert_int_equal(b.phase, SL_PHASE_BACKWARD);
	assert_int_equal(b1.phase, SL_PHASE_BACKWARD);
	double n = 1024, h = 768, I = 1536, R = 48, N = 16;
	double layer = n * h * 6 + n * 4 + 2 * n * h + 2 * n * (2 * I + R + 4 * N + I) + 4 * I * 2 * N * 1;
	assert_true(layer == 16158720.0);
	double got = (double)b1.activations - (double)b.activations;
	assert_true(got > layer - 2 && got < layer + 2);
}

/*
 * Issue #30, fifth part: the Mamba2 hybrids' layers in training, by hand (bf16 without autocast, a full
 * fine-tune, 8 sequences of 1024 tokens; RMSNorm keeps 6 B an element and 4 B a token as above).
 * Nemotron-H: one more MLP block ("-") adds its norm, up_proj's input (2 B x h), relu2's output and
 * down_proj's input (2 x 2 B x I) — and nothing of attention or the mixer.
 * Falcon-H1: each layer holds attention, the mixer and the MLP; the mixer reads the layer's one
 * input_layernorm (counted with attention) through ssm_in_multiplier: per layer it adds in_proj's input
 * (2 B x h) and MambaSplitConv1dScanCombinedFn's zxbcdt (2I + 2GN + heads) and out_x (I) in bf16 and the
 * gated norm's rstd (4 B x groups), what a layer of the same model without the mixer lacks.
 */
static void test_hybrid_activations(void **state)
{
	struct env *e = *state;
	const struct sl_gpu *h100 = gpu(e, "h100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 8; /* 8 sequences: the backward, not the optimizer step, is the peak */
	s.seq_len = 1024;
	struct sl_breakdown b, b1;
	double n = 8 * 1024;

	struct sl_arch a = *fixture(e, "nemotron_h"), a1 = a;
	a1.layers++;
	a1.mlp_map[56 / 32] |= 1u << (56 % 32);
	assert_int_equal(sl_arch_mlp_blocks(&a1), 26);
	sl_estimate(&a, &s, h100, &e->calib, &b);
	sl_estimate(&a1, &s, h100, &e->calib, &b1);
	assert_int_equal(b.phase, SL_PHASE_BACKWARD);
	assert_int_equal(b1.phase, SL_PHASE_BACKWARD);
	double h = 4480, I = 15680;
	double mlp = n * h * 6 + n * 4 + 2 * n * h + 2 * n * I + 2 * n * I;
	double got = (double)b1.activations - (double)b.activations;
	assert_true(got > mlp - 2 && got < mlp + 2);

	struct sl_arch f = *fixture(e, "falcon_h1"), f1 = f, p = f, p1;
	f1.layers++;
	p.ssm_inner = 0; /* the same layers without the mixer: attention and the MLP */
	p.ssm_parallel = false;
	p1 = p;
	p1.layers++;
	struct sl_breakdown pb, pb1;
	sl_estimate(&f, &s, h100, &e->calib, &b);
	sl_estimate(&f1, &s, h100, &e->calib, &b1);
	sl_estimate(&p, &s, h100, &e->calib, &pb);
	sl_estimate(&p1, &s, h100, &e->calib, &pb1);
	assert_int_equal(b1.phase, SL_PHASE_BACKWARD);
	assert_int_equal(pb1.phase, SL_PHASE_BACKWARD);
	double fh = 3072, fI = 3072, G = 1, N = 256, heads = 24;
	double mixer = 2 * n * fh + 2 * n * (2 * fI + 2 * G * N + heads + fI) + 4 * n * G;
	got = ((double)b1.activations - (double)b.activations) - ((double)pb1.activations - (double)pb.activations);
	assert_true(got > mixer - 4 && got < mixer + 4);
}

/*
 * Longformer's sliding-window attention (src/memory/longformer.c; modeling_longformer.py@010a915c) by hand
 * on a small shape: hidden 64, 4 heads of 16, FFN 256, attention_window W = 8, fp32, a full fine-tune of
 * LongformerForSequenceClassification (<s> has global attention: g = 1), one sequence of 4001 tokens,
 * padded to 4008 (a multiple of W) before the embeddings. One more layer adds exactly its saved tensors:
 *  attention: the LayerNorm's input and mean/rstd; the layer input the five projections read (q, k, v and
 *  key/value_global); the q and k chunk copies ((2n - W) rows each) and v's 3w-row chunks (3n rows); per
 *  head the float32 softmax output and dropout mask over m = W + 1 + g columns and the diagonalised
 *  probabilities (1.5·W columns); the global keys and values over every token, the (g, n) global softmax
 *  (float32 output, mask, probabilities) and the global columns' clone; the output dense's input; the
 *  hidden dropout's mask. Feed-forward: LayerNorm, the dense input, GELU's input, the output dense's input,
 *  the dropout mask.
 */
static void test_longformer_attention(void **state)
{
	struct env *e = *state;
	const struct sl_gpu *h100 = gpu(e, "h100-80gb");
	struct sl_arch a = *arch(e, "longformer-base-4096"), a1;
	assert_int_equal(a.family, SL_FAMILY_LONGFORMER);
	assert_int_equal(a.window, 512);
	a.hidden = 64, a.heads = 4, a.head_dim = 16, a.intermediate = 256, a.layers = 2, a.window = 8;
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_SEQ_CLS;
	s.batch_size = 1;
	s.seq_len = 4001;
	struct sl_breakdown b, b1, bp;
	sl_estimate(&a, &s, h100, &e->calib, &b);
	a1 = a;
	a1.layers++;
	sl_estimate(&a1, &s, h100, &e->calib, &b1);
	assert_int_equal(b.phase, SL_PHASE_BACKWARD);
	assert_int_equal(b1.phase, SL_PHASE_BACKWARD);
	double n = 4008, h = 64, H = 4, hq = 64, W = 8, g = 1, m = W + 1 + g, I = 256, ab = 4;
	double norm = n * h * 4 + n * 8;
	double qkv = ab * (2 * (2 * n - W) * hq + 3 * n * hq);
	double scores = H * n * (m * (4 + 1) + 1.5 * W * ab) + ab * 2 * n * hq + H * g * n * (4 + 1 + ab) + H * n * g * ab;
	double attn = norm + 4 * n * h + qkv + scores + 4 * n * hq + n * h;
	double ffn = norm + 4 * n * h + 4 * n * I + 4 * n * I + n * h;
	assert_true(attn + ffn == 24925664.0);
	double got = (double)b1.activations - (double)b.activations;
	assert_true(got > attn + ffn - 2 && got < attn + ffn + 2);
	got = (double)b1.attention - (double)b.attention;
	assert_true(got > scores - 2 && got < scores + 2);
	/* the padded length is what runs: 4008 tokens cost what 4001 do */
	s.seq_len = 4008;
	sl_estimate(&a, &s, h100, &e->calib, &bp);
	assert_int_equal(bp.activations, b.activations);

	/* a no-grad forward (LongformerModel, no global token): the largest of the Q·K chunk scores with their
	 * padded copy, the scores with two float32 copies, the probabilities with their padded and einsum
	 * copies; plus the reshaped q and k and the mask added to the scores */
	s.mode = SL_MODE_EVAL;
	s.part = SL_PART_BASE;
	s.seq_len = 4001;
	sl_estimate(&a, &s, h100, &e->calib, &b);
	m = W + 1;
	double qk = 2 * H * (2 * n - W) * W * ab, sm = H * n * m * (ab + 8), pv = H * n * (m + 3 * W) * ab;
	double peak = qk > sm ? qk : sm;
	peak = pv > peak ? pv : peak;
	double nograd = peak + ab * (2 * n * hq + n * (W + 1));
	assert_true(peak == pv); /* at W = 8 the probabilities with their two chunk copies are the largest */
	assert_true(fabs((double)b.attention - nograd) < 2);
}

/* FSDP (docs/memory-model.md "FSDP"): shards over the group, gathered units, no float32 master in pure 16-bit */
static void test_fsdp(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-2-7b");
	const struct sl_gpu *h100 = gpu(e, "h100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 8;
	s.seq_len = 2048; /* the peak in the backward: the optimizer term without the step's temporaries */
	s.gradient_checkpointing = true;
	double P = (double)sl_arch_params_for_task(a, SL_TASK_CAUSAL_LM);
	uint64_t attn, ffn;
	sl_arch_layer_matmuls(a, &attn, &ffn);
	double layer = (double)(attn + ffn), root = P - a->layers * layer;
	double nccl = (double)e->calib.nccl_buffer;

	/* world size 1: FSDP clamps every strategy to NO_SHARD; pure bf16 is the plain run plus the process group */
	struct sl_breakdown plain, f1, f8, z3, b;
	sl_estimate(a, &s, h100, &e->calib, &plain);
	s.fsdp = SL_FSDP_FULL_SHARD;
	sl_estimate(a, &s, h100, &e->calib, &f1);
	assert_true(fabs((double)f1.total - (double)plain.total - nccl) < 2);
	assert_int_equal(f1.weights, plain.weights);
	assert_int_equal(f1.zero_gather, 0);

	/* 8 GPUs: parameters, gradients and AdamW states (bf16, the parameters' dtype) over 8; the root
	 * unit and two blocks gathered in bf16 */
	s.num_gpus = 8;
	sl_estimate(a, &s, h100, &e->calib, &f8);
	assert_int_equal(f8.phase, SL_PHASE_BACKWARD);
	assert_true(fabs((double)f8.weights - 2 * P / 8) < 2);
	assert_true(fabs((double)f8.optimizer - 2 * 2 * P / 8) < 2);
	assert_true(fabs((double)f8.zero_gather - 2 * (root + 2 * layer)) < 2);
	/* not ZeRO-3: DeepSpeed keeps a float32 master and float32 states (12 B per parameter over N; its
	 * float32 gradients exist at the optimizer step only) */
	s.fsdp = SL_FSDP_NONE;
	s.zero_stage = 3;
	sl_estimate(a, &s, h100, &e->calib, &z3);
	assert_int_equal(z3.phase, SL_PHASE_BACKWARD);
	assert_true(fabs((double)z3.optimizer - 3.0 * (double)f8.optimizer) < 8);
	assert_true(f8.total < z3.total);
	s.zero_stage = 0;

	/* fp32 parameters + bf16 compute (MixedPrecision): float32 shards and states, bf16 units */
	s.fsdp = SL_FSDP_FULL_SHARD;
	s.dtype = SL_DTYPE_FP32;
	s.amp = SL_AMP_BF16;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_int_equal(b.phase, SL_PHASE_BACKWARD);
	assert_true(fabs((double)b.weights - 4 * P / 8) < 2);
	assert_true(fabs((double)b.optimizer - 2 * 4 * P / 8) < 2);
	assert_true(fabs((double)b.zero_gather - 2 * (root + 2 * layer)) < 2);
	assert_int_equal(b.activations, f8.activations); /* the forward runs in bf16 as the pure one */
	s.dtype = SL_DTYPE_BF16;
	s.amp = SL_AMP_OFF;

	/* shard_grad_op and an unwrapped model hold every unit gathered */
	s.fsdp = SL_FSDP_SHARD_GRAD_OP;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_true(fabs((double)b.zero_gather - 2 * P) < 2);
	s.fsdp = SL_FSDP_FULL_SHARD;
	s.fsdp_no_wrap = true;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_true(fabs((double)b.zero_gather - 2 * P) < 2);
	s.fsdp_no_wrap = false;
	/* hybrid_shard: sharded within a node of 4, replicated across two */
	s.fsdp = SL_FSDP_HYBRID_SHARD;
	s.gpus_per_node = 4;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_true(fabs((double)b.weights - 2 * P / 4) < 2);
	s.gpus_per_node = 0;
	/* no_shard on 8 GPUs keeps everything whole */
	s.fsdp = SL_FSDP_NO_SHARD;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_int_equal(b.weights, plain.weights);
	/* CPU offload: shards, gradients and the step on the host */
	s.fsdp = SL_FSDP_FULL_SHARD;
	s.fsdp_offload = true;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_int_equal(b.weights, 0);
	assert_int_equal(b.optimizer, 0);
	/* only the gradients being computed (the head's, a unit's) before they go to the host */
	assert_true(b.gradients <= 2 * ((double)a->vocab * a->hidden + layer) + 2);
	assert_true(b.zero_gather > 0);
	s.fsdp_offload = false;
	/* LoRA: the frozen base is sharded too */
	s.lora_r = 8;
	sl_estimate(a, &s, h100, &e->calib, &b);
	assert_true(fabs((double)b.weights - (2 * P + 4 * (double)b.trainable) / 8) < 2);
}

/*
 * FSDP1 use_orig_params with the adapters inside the blocks' units (Lightning's FSDPStrategy): the frozen
 * block weights get gradients too. Under no_sync accumulation every block's gradient stays unsharded in
 * the compute dtype (lit-gpt finetune/lora.py: Llama-2-7B LoRA on 2 GPUs 22.18 GB against 21.30 GB on one);
 * unaccumulated, it is reduce-scattered into a shard kept to the optimizer step.
 */
static void test_fsdp_orig_params(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-2-7b");
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 1304;
	s.gradient_checkpointing = true;
	s.lora_r = 8;
	s.lora_targets = SL_LORA_Q | SL_LORA_V;
	s.fsdp = SL_FSDP_FULL_SHARD;
	s.num_gpus = 2;
	s.grad_accum = 128;
	uint64_t at, ff;
	sl_arch_layer_matmuls(a, &at, &ff);
	double frozen = (double)a->layers * (double)(at + ff) + (double)sl_arch_norm_params(a);
	struct sl_breakdown own, mixed;
	sl_estimate(a, &s, g, &e->calib, &own);
	double T = (double)own.trainable;
	/* adapters in units of their own (the HF Trainer's PEFT policy): their float32 gradient unsharded
	 * under no_sync, and the reduced shard of the synchronising micro-batch */
	assert_true(fabs((double)own.gradients - (4 * T + 4 * T / 2)) < 2);
	s.fsdp_orig_params = true;
	sl_estimate(a, &s, g, &e->calib, &mixed);
	assert_true(fabs((double)mixed.gradients - (4 * T + 4 * T / 2 + 2 * frozen)) < 2);
	assert_int_equal(mixed.weights, own.weights);
	/* one step, no accumulation: the frozen blocks' gradient sharded over the 2 GPUs at the optimizer step */
	s.grad_accum = 1;
	struct sl_breakdown b;
	sl_estimate(a, &s, g, &e->calib, &b);
	s.fsdp_orig_params = false;
	struct sl_breakdown b0;
	sl_estimate(a, &s, g, &e->calib, &b0);
	s.batch_size = 1;
	/* the step's gradients term (reported at the optimizer step, or persisting there) */
	s.seq_len = 1;
	sl_estimate(a, &s, g, &e->calib, &b0);
	s.fsdp_orig_params = true;
	sl_estimate(a, &s, g, &e->calib, &b);
	assert_int_equal(b.phase, SL_PHASE_OPTIMIZER);
	assert_true(fabs((double)b.gradients - (double)b0.gradients - 2 * frozen / 2) < 2);
	/* a full fine-tune, and a quantised base, are not mixed units */
	s.lora_r = 0;
	sl_estimate(a, &s, g, &e->calib, &b);
	s.fsdp_orig_params = false;
	sl_estimate(a, &s, g, &e->calib, &b0);
	assert_int_equal(b.total, b0.total);
}

/*
 * The FSDP load and save phases, by hand: a model on the GPU before wrapping holds all of itself as
 * loaded plus the largest unit being flattened; torch's default FULL_STATE_DICT config clones the whole
 * model on the GPU next to the shards and the optimizer states; accelerate's (offload_to_cpu) gathers
 * the root unit and one block at a time.
 */
static void test_fsdp_load_save(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-2-7b");
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 512;
	s.gradient_checkpointing = true;
	s.fsdp = SL_FSDP_FULL_SHARD;
	s.num_gpus = 8;
	double P = (double)sl_arch_params_for_task(a, SL_TASK_CAUSAL_LM);
	uint64_t at, ff;
	sl_arch_layer_matmuls(a, &at, &ff);
	double layer = (double)(at + ff), root = P - a->layers * layer;
	double floor = (double)e->calib.cuda_context + (double)e->calib.nccl_buffer + (double)e->calib.slack_min;
	struct sl_breakdown step, b;
	sl_estimate(a, &s, g, &e->calib, &step);
	assert_int_equal(step.load_total, 0);
	assert_int_equal(step.save_total, 0);
	double ws = (double)step.workspace;

	s.fsdp_init = SL_FSDP_INIT_DEVICE;
	sl_estimate(a, &s, g, &e->calib, &b);
	double load = floor + ws + 2 * P + 2 * (root > layer ? root : layer);
	assert_true(fabs((double)b.load_total - load) < 4);
	assert_int_equal(b.phase, SL_PHASE_LOAD); /* 13 GB on one GPU before sharding: more than the step */
	assert_int_equal(b.total, b.load_total);
	assert_int_equal(b.activations, 0);
	assert_true(fabs((double)b.weights - 2 * P) < 2);
	s.fsdp_init = SL_FSDP_INIT_PER_UNIT;

	/* accelerate's FULL_STATE_DICT: the root unit and a block in the parameters' dtype */
	s.fsdp_state_dict = SL_FSDP_SD_FULL;
	sl_estimate(a, &s, g, &e->calib, &b);
	/* shards 2P/8 and AdamW's two bf16 states 4P/8 (no gradients, no step temporaries) */
	double shards = 2 * P / 8, states = 4 * P / 8;
	double save = floor + ws + shards + states + 2 * (root + layer);
	assert_true(fabs((double)b.save_total - save) < 4);
	assert_int_equal(b.phase, step.phase); /* below the step's peak */
	assert_int_equal(b.total, step.total);
	/* torch's FullStateDictConfig() defaults: every unit's clone stays on the GPU */
	s.fsdp_state_dict = SL_FSDP_SD_FULL_DEVICE;
	sl_estimate(a, &s, g, &e->calib, &b);
	save = floor + ws + shards + states + 2 * P;
	assert_true(fabs((double)b.save_total - save) < 4);
	assert_int_equal(b.phase, SL_PHASE_SAVE);
	assert_int_equal(b.total, b.save_total);
	assert_int_equal(b.gradients, 0);
	assert_string_equal(sl_phase_name(SL_PHASE_SAVE), "checkpoint save");
	assert_string_equal(sl_phase_name(SL_PHASE_LOAD), "model loading");
	/* at world size 1 nothing is gathered for a per-unit state dict */
	s.fsdp_state_dict = SL_FSDP_SD_SHARDED;
	s.num_gpus = 1;
	sl_estimate(a, &s, g, &e->calib, &b);
	assert_int_equal(b.save_total, 0);

	/* torchtune's custom_sharded_layers: the embeddings and the head resharded after their forward */
	s.fsdp_state_dict = SL_FSDP_SD_NONE;
	s.num_gpus = 8;
	s.fsdp_embed_units = true;
	sl_estimate(a, &s, g, &e->calib, &b);
	double E = (double)a->vocab * a->hidden;
	double small = root - 2 * E;
	assert_true(fabs((double)b.zero_gather - 2 * (small + (E > layer ? E : layer) + layer)) < 2);
	assert_true(b.zero_gather < step.zero_gather);
}

/*
 * QLoRA after prepare_model_for_kbit_training: the float32 rest of the model (weights: 4 B instead of
 * the load dtype's 2 on every non-quantised parameter), under autocast the float32 head cast to half
 * and kept (2·V·h), a float32 residual stream (the checkpointed inputs at 4 B); without the preparation
 * (LLaMA-Factory, Lightning) none of it. bitsandbytes < 0.43.2 kept every 4-bit linear's input.
 */
static void test_kbit_residual(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-2-7b");
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.amp = SL_AMP_BF16;
	s.batch_size = 8;
	s.seq_len = 4096;
	s.gradient_checkpointing = true;
	s.lora_r = 16;
	s.lora_targets = SL_LORA_ALL;
	s.quant = SL_QUANT_NF4;
	double P = (double)sl_arch_params_for_task(a, SL_TASK_CAUSAL_LM);
	uint64_t at, ff;
	sl_arch_layer_matmuls(a, &at, &ff);
	double rest = P - (double)a->layers * (double)(at + ff), V = (double)a->vocab * a->hidden;
	struct sl_breakdown prep, off, noamp;
	sl_estimate(a, &s, g, &e->calib, &prep);
	s.kbit_prepare_off = true;
	sl_estimate(a, &s, g, &e->calib, &off);
	/* weights: the rest in float32 and, at the end of forward, the head's half copy */
	double dw = (double)prep.weights - (double)off.weights;
	assert_true(fabs(dw - 2 * rest - (prep.phase == SL_PHASE_FORWARD ? 2 * V : 0)) < 4);
	/* the checkpointed layer inputs: b·s·h per layer, 4 B against 2 */
	double ckpt = 8.0 * 4096 * a->hidden * a->layers;
	assert_true((double)prep.activations - (double)off.activations >= 2 * ckpt - 1);
	/* the bf16 LoRA run it was compared with: the QLoRA peak is not a quarter below it any more */
	s.quant = SL_QUANT_NONE;
	s.kbit_prepare_off = false;
	struct sl_breakdown lora;
	sl_estimate(a, &s, g, &e->calib, &lora);
	assert_true((double)prep.total > 0.85 * (double)lora.total);
	assert_true((double)off.total < 0.85 * (double)lora.total);
	/* without autocast the prepared model's forward is float32 throughout */
	s.quant = SL_QUANT_NF4;
	s.amp = SL_AMP_OFF;
	sl_estimate(a, &s, g, &e->calib, &noamp);
	assert_true(noamp.activations > prep.activations);
	/* DeepSpeed casts the module back to 16 bits: no float32 rest, no float32 stream */
	s.amp = SL_AMP_BF16;
	s.zero_stage = 2;
	struct sl_breakdown ds, ds_off;
	sl_estimate(a, &s, g, &e->calib, &ds);
	s.kbit_prepare_off = true;
	sl_estimate(a, &s, g, &e->calib, &ds_off);
	assert_int_equal(ds.total, ds_off.total);

	/* bitsandbytes < 0.43.2: per layer and token the inputs of q/k/v (one tensor), o, gate/up (one)
	 * and down in bf16, none of which a frozen linear keeps today (no checkpointing, LoRA on q, v) */
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 2;
	s.seq_len = 1024;
	s.lora_r = 8;
	s.quant = SL_QUANT_NF4;
	s.kbit_prepare_off = true;
	struct sl_breakdown now, legacy;
	sl_estimate(a, &s, g, &e->calib, &now);
	s.bnb_legacy = true;
	sl_estimate(a, &s, g, &e->calib, &legacy);
	assert_int_equal(now.phase, legacy.phase);
	double h = a->hidden, I = a->intermediate;
	double kept = 2.0 * 1024 * a->layers * 2 * (h + h + h + I);
	assert_true(fabs((double)legacy.activations - (double)now.activations - kept) < 4);
	/* only the 4-bit kernels */
	s.quant = SL_QUANT_NONE;
	sl_estimate(a, &s, g, &e->calib, &legacy);
	s.bnb_legacy = false;
	sl_estimate(a, &s, g, &e->calib, &now);
	assert_int_equal(legacy.total, now.total);
}

/* DeepSpeed casts the module to its 16-bit dtype and the HF Trainer runs no autocast under it: float32
 * weights with amp train like bf16 weights without (the same activations). */
static void test_deepspeed_pure_half(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.2-3b");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.batch_size = 4;
	s.seq_len = 1024;
	s.zero_stage = 2;
	s.num_gpus = 4;
	s.dtype = SL_DTYPE_FP32;
	s.amp = SL_AMP_BF16;
	struct sl_breakdown mixed, pure;
	sl_estimate(a, &s, gpu(e, "a100-80gb"), &e->calib, &mixed);
	s.dtype = SL_DTYPE_BF16;
	s.amp = SL_AMP_OFF;
	sl_estimate(a, &s, gpu(e, "a100-80gb"), &e->calib, &pure);
	assert_int_equal(mixed.activations, pure.activations);
	assert_int_equal(mixed.logits, pure.logits);
	assert_int_equal(mixed.total, pure.total);
}

/*
 * PEFT methods: trainable parameters computed from Llama-3.2-3B's shape equal PEFT's own count
 * (train_info.num_trainable_params of huggingface/peft method_comparison/MetaMathQA/results/
 * <method>--llama-3.2-3B-*.json @ 5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40), and each keeps what
 * its forward keeps (docs/memory-model.md "PEFT methods").
 */
static void test_peft_methods(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.2-3b");
	static const struct {
		enum sl_peft m;
		uint32_t r, targets, tokens;
		uint64_t peft_count; /* published by PEFT for that configuration */
	} counts[] = {
		{SL_PEFT_LORA, 32, 0, 0, 9175040},            /* lora--llama-3.2-3B-rank32 */
		{SL_PEFT_DORA, 32, 0, 0, 9289728},            /* lora--llama-3.2-3B-rank32-dora */
		{SL_PEFT_LOHA, 32, 0, 0, 18350080},           /* loha--llama-3.2-3B-rank32 */
		{SL_PEFT_VERA, 256, 0, 0, 129024},            /* vera--llama-3.2-3B-default */
		{SL_PEFT_IA3, 0, 0, 0, 286720},               /* ia3--llama-3.2-3B-default (k, v, down) */
		{SL_PEFT_IA3, 0, SL_LORA_ALL, 0, 630784},     /* ia3--llama-3.2-3B-all-attn-5k-lr0.005 */
		{SL_PEFT_OFT, 32, 0, 0, 8171520},             /* oft--llama-3.2-3B-rank32 */
		{SL_PEFT_BOFT, 0, 0, 0, 802816},              /* boft--llama-3.2-3B-default */
		{SL_PEFT_PROMPT_TUNING, 0, 0, 200, 614400},   /* prompt_tuning--llama-3.2-3B-default */
		{SL_PEFT_P_TUNING, 0, 0, 20, 28382208},       /* ptuning--llama-3.2-3B-default */
		{SL_PEFT_PREFIX_TUNING, 0, 0, 200, 11468800}, /* prefixtuning--llama-3.2-3B-lr_0.001 */
		{SL_PEFT_ADAPTION_PROMPT, 0, 0, 100, 8601628},/* adaptionprompt--llama-3.2-3B-lr_0.0005 */
		{SL_PEFT_LN_TUNING, 0, 0, 0, 175104},         /* ln_tuning--llama-3.2-3B-default */
		{SL_PEFT_TRAINABLE_TOKENS, 0, 0, 2, 6144},    /* trainable_tokens--llama-3.2-3B-sos+eos */
	};
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		assert_int_equal(sl_arch_peft_params(a, counts[i].m, counts[i].r, counts[i].targets, counts[i].tokens),
				 counts[i].peft_count);

	/* through the estimate: trainable = the count; IA3 and DoRA keep more than LoRA's adapters alone */
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 4;
	s.seq_len = 768;
	struct sl_breakdown lora, dora, ia3, pt;
	s.lora_r = 32;
	sl_estimate(a, &s, NULL, &e->calib, &lora);
	assert_int_equal(lora.trainable, 9175040);
	s.peft_method = SL_PEFT_DORA;
	sl_estimate(a, &s, NULL, &e->calib, &dora);
	assert_int_equal(dora.trainable, 9289728);
	/* DoRA keeps each target's base output (b·s·(q + v) in bf16, per layer) on top of LoRA's */
	double extra = 2.0 * 4 * 768 * (a->layers * (double)(a->hidden + a->kv_heads * (a->hidden / a->heads)));
	assert_true(fabs((double)dora.activations - (double)lora.activations - extra) < 4);
	s.peft_method = SL_PEFT_IA3;
	s.lora_r = 0;
	sl_estimate(a, &s, NULL, &e->calib, &ia3);
	assert_int_equal(ia3.trainable, 286720);
	assert_true(ia3.optimizer < lora.optimizer);
	/* prompt tuning lengthens every sequence by its virtual tokens */
	s.peft_method = SL_PEFT_PROMPT_TUNING;
	s.num_virtual_tokens = 200;
	sl_estimate(a, &s, NULL, &e->calib, &pt);
	assert_int_equal(pt.trainable, 614400);
	struct sl_breakdown longer;
	s.peft_method = SL_PEFT_TRAINABLE_TOKENS;
	s.seq_len = 968;
	sl_estimate(a, &s, NULL, &e->calib, &longer);
	assert_int_equal(pt.activations, longer.activations);
}

/*
 * The loss of an encoder-decoder (T5ForConditionalGeneration, BART): CrossEntropyLoss on the logits as
 * they are, so half weights without autocast keep no float32 copy — backward starts from the half
 * log_softmax output, its gradient and the logits' gradient (3 x 2 B per logit); under autocast
 * cross_entropy runs in float32 (3 x 4 B), as for a causal LM's ForCausalLMLoss (.float()).
 */
static void test_seq2seq_loss_dtype(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "mt5-small");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_SEQ2SEQ;
	s.batch_size = 16;
	s.seq_len = 128;
	s.target_len = 128;
	double logits = 16.0 * 128 * (double)a->vocab;
	struct sl_breakdown half, amp;
	s.dtype = SL_DTYPE_BF16;
	sl_estimate(a, &s, NULL, &e->calib, &half);
	assert_int_equal(half.phase, SL_PHASE_BACKWARD);
	assert_true(fabs((double)half.logits - logits * 3 * 2) < 4);
	s.dtype = SL_DTYPE_FP32;
	s.amp = SL_AMP_BF16;
	sl_estimate(a, &s, NULL, &e->calib, &amp);
	assert_int_equal(amp.phase, SL_PHASE_BACKWARD);
	assert_true(fabs((double)amp.logits - logits * 3 * 4) < 4);
	/* bf16 weights under autocast: the logits are bf16 but log_softmax and nll_loss run in float32
	 * (autocast_mode.h AT_FORALL_FP32_SET_OPT_DTYPE / AT_FORALL_FP32): backward starts from the float32
	 * log-softmax, its gradient and the logits' (12 B), as over float32 weights */
	s.dtype = SL_DTYPE_BF16;
	s.amp = SL_AMP_BF16;
	sl_estimate(a, &s, NULL, &e->calib, &amp);
	assert_int_equal(amp.phase, SL_PHASE_BACKWARD);
	assert_true(fabs((double)amp.logits - logits * 3 * 4) < 4);
	/* a causal LM in bf16 upcasts (ForCausalLMLoss: logits.float()) */
	const struct sl_arch *l = arch(e, "llama-3.2-1b");
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 2;
	s.seq_len = 1024;
	sl_estimate(l, &s, NULL, &e->calib, &half);
	assert_int_equal(half.phase, SL_PHASE_BACKWARD);
	assert_true(fabs((double)half.logits - 2.0 * 1024 * (double)l->vocab * 12) < 4);
}

/* Runtime options (docs/memory-model.md "Runtime options"): each changes only its own terms */
static void test_runtime_options(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.2-3b");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.attn = SL_ATTN_SDPA;
	s.batch_size = 2;
	s.seq_len = 4096;
	double b = 2, n = 4096, h = a->hidden, I = a->intermediate, L = a->layers, V = a->vocab;
	struct sl_breakdown base, o;
	sl_estimate(a, &s, NULL, &e->calib, &base);
	assert_int_equal(base.phase, SL_PHASE_BACKWARD);
	/* torch.compile: each RMSNorm keeps its bf16 input and rstd instead of a float32 copy and the
	 * normalised tensor (2 per layer + the final one), SwiGLU its two inputs instead of three tensors */
	s.torch_compile = true;
	sl_estimate(a, &s, NULL, &e->calib, &o);
	double saved = b * ((2 * L + 1) * 4 * n * h + L * 2 * n * I);
	assert_true(fabs((double)base.activations - (double)o.activations - saved) < 4);
	assert_int_equal(o.logits, base.logits);
	assert_int_equal(o.weights, base.weights);
	s.torch_compile = false;
	/* chunked cross-entropy: bf16 logits whole, the float32 upcast one chunk in 8 at a time */
	s.chunked_ce = true;
	sl_estimate(a, &s, NULL, &e->calib, &o);
	assert_true(o.logits < base.logits / 2);
	assert_true(fabs((double)o.logits - b * n * V * (2 + (8.0 + 2) / 8)) < 4 || o.phase != SL_PHASE_BACKWARD);
	s.chunked_ce = false;
	/* Liger's fused linear cross-entropy: no vocabulary-sized tensor at all */
	s.liger = true;
	sl_estimate(a, &s, NULL, &e->calib, &o);
	assert_true(o.logits <= (uint64_t)(b * n * h * (2 * 2 + 8)) + 4);
	assert_true(o.activations < base.activations); /* its RMSNorm and SwiGLU too */
	s.liger = false;
	/* optimizer step in backward: no full gradient buffer, no state-sized step temporaries */
	s.gradient_checkpointing = true;
	struct sl_breakdown gc, small;
	s.seq_len = 512; /* the optimizer step is the peak */
	sl_estimate(a, &s, NULL, &e->calib, &small);
	assert_int_equal(small.phase, SL_PHASE_OPTIMIZER);
	s.optimizer_in_backward = true;
	sl_estimate(a, &s, NULL, &e->calib, &o);
	assert_true(o.gradients <= 2 * (uint64_t)sl_arch_largest_layer(a) + 2 * (uint64_t)(V * h) + 4);
	assert_true((double)o.total < (double)small.total - 2 * 0.9 * (double)small.params); /* no full gradient */
	s.optimizer_in_backward = false;
	s.seq_len = 4096;
	sl_estimate(a, &s, NULL, &e->calib, &gc);
	/* activation offloading: two layers' checkpoints on the device instead of all */
	s.activation_offload = true;
	sl_estimate(a, &s, NULL, &e->calib, &o);
	if (o.phase == gc.phase)
		assert_true(fabs((double)gc.activations - (double)o.activations - (L - 2) * b * n * h * 2) < 4);
	s.activation_offload = false;
	/* packing: what the estimate assumes anyway */
	s.packing = true;
	sl_estimate(a, &s, NULL, &e->calib, &o);
	assert_int_equal(o.total, gc.total);
}

/*
 * lora_dropout > 0: PEFT's Linear.forward runs lora_A(dropout(x)) per adapter, so each adapter keeps
 * its dropout output (in the adapter's input dtype, what the cast copy was) and a bool mask: one byte
 * per input element per adapter more than without dropout; with autocast the same (the fp32 dropout
 * output is dropped after the half cast lora_A keeps). Nothing else changes, and a full fine-tune or
 * IA3 has no LoRA dropout.
 */
/*
 * The framework's float32 upcast of the trainable parameters after a 16-bit load (upcast_trainable:
 * LLaMA-Factory's cast_trainable_params_to_fp32): a full fine-tune is the float32 load's estimate but
 * for its frozen parameters, which stay 16-bit; a LoRA run's adapters are float32 anyway, only its
 * modules_to_save copy grows (weight, gradient, two AdamW states); outside training nothing is cast.
 */
static void test_upcast_trainable(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3-8b");
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.batch_size = 1;
	s.seq_len = 1024;
	s.gradient_checkpointing = true;
	s.amp = SL_AMP_BF16;
	struct sl_breakdown f32, half, up;
	s.dtype = SL_DTYPE_FP32;
	sl_estimate(a, &s, g, &e->calib, &f32);
	s.dtype = SL_DTYPE_BF16;
	sl_estimate(a, &s, g, &e->calib, &half);
	s.upcast_trainable = true;
	sl_estimate(a, &s, g, &e->calib, &up);
	assert_int_equal(up.total, f32.total);
	assert_int_equal(up.weights, f32.weights);
	assert_int_equal(up.optimizer, f32.optimizer);
	assert_true(half.total + 6 * (double)up.params < up.total); /* pure bf16: 2 + 2 + 4 bytes less per parameter */

	/* the bottom 16 layers frozen: their parameters in bf16 instead of float32 */
	s.frozen_layers = 16;
	struct sl_breakdown upf, f32f;
	sl_estimate(a, &s, g, &e->calib, &upf);
	s.dtype = SL_DTYPE_FP32;
	s.upcast_trainable = false;
	sl_estimate(a, &s, g, &e->calib, &f32f);
	double frozen = (double)upf.params - (double)upf.trainable;
	assert_true(frozen > 0.4 * (double)upf.params);
	assert_true(fabs((double)f32f.weights - (double)upf.weights - 2 * frozen) < 4);
	assert_int_equal(upf.gradients, f32f.gradients);
	assert_int_equal(upf.optimizer, f32f.optimizer);

	/* LoRA: the adapters are float32 either way; a modules_to_save head copy is float32 when upcast */
	s.frozen_layers = 0;
	s.dtype = SL_DTYPE_BF16;
	s.lora_r = 16;
	s.lora_targets = SL_LORA_ALL;
	struct sl_breakdown lo, lo_up;
	sl_estimate(a, &s, g, &e->calib, &lo);
	s.upcast_trainable = true;
	sl_estimate(a, &s, g, &e->calib, &lo_up);
	assert_int_equal(lo.total, lo_up.total);
	s.modules_to_save = SL_MTS_HEAD;
	sl_estimate(a, &s, g, &e->calib, &lo_up);
	s.upcast_trainable = false;
	sl_estimate(a, &s, g, &e->calib, &lo);
	double V = (double)a->vocab * a->hidden;
	assert_true(fabs((double)lo_up.weights - (double)lo.weights - 2 * V) < 4);
	assert_true(fabs((double)lo_up.optimizer - (double)lo.optimizer - 4 * V) < 4);

	/* generation: the model as loaded */
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.mode = SL_MODE_GENERATE;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 1;
	s.seq_len = 1024;
	sl_estimate(a, &s, g, &e->calib, &half);
	s.upcast_trainable = true;
	sl_estimate(a, &s, g, &e->calib, &up);
	assert_int_equal(half.total, up.total);
}

/*
 * Autocast over a 16-bit base: PEFT casts each adapter's input to the float32 adapter and autocast
 * casts it back for A's matmul, so A keeps a half copy (and its r-wide output in half); without
 * autocast both are float32. Per token and layer of a llama without checkpointing, LoRA on every
 * linear: q/k/v's adapters on h, o's on the attention width, gate/up's on h, down's on I, 7 outputs of r.
 */
static void test_lora_autocast_half_base(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3-8b");
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 2;
	s.seq_len = 512;
	s.lora_r = 16;
	s.lora_targets = SL_LORA_ALL;
	struct sl_breakdown off, on;
	sl_estimate(a, &s, g, &e->calib, &off);
	s.amp = SL_AMP_BF16;
	sl_estimate(a, &s, g, &e->calib, &on);
	double h = a->hidden, hq = (double)a->heads * (a->head_dim ? a->head_dim : a->hidden / a->heads);
	double want = 2.0 * 1024 * a->layers * (5 * h + hq + (double)a->intermediate + 7 * 16);
	assert_true(fabs((double)off.activations - (double)on.activations - want) < 4);
}

static void test_lora_dropout(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = arch(e, "llama-3.2-3b");
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.attn = SL_ATTN_SDPA;
	s.batch_size = 2;
	s.seq_len = 1024;
	s.lora_r = 16;
	s.lora_targets = SL_LORA_Q | SL_LORA_K | SL_LORA_V | SL_LORA_O | SL_LORA_GATE | SL_LORA_UP | SL_LORA_DOWN;
	double n = 2 * 1024, h = a->hidden, hq = (double)a->heads * a->head_dim, I = a->intermediate, L = a->layers;
	double masks = L * n * (5 * h + hq + I); /* q, k, v, gate, up read h; o reads the heads; down reads I */
	for (int amp = 0; amp < 2; amp++) {
		s.amp = amp ? SL_AMP_BF16 : SL_AMP_OFF;
		s.dtype = amp ? SL_DTYPE_FP32 : SL_DTYPE_BF16;
		struct sl_breakdown base, o;
		s.lora_dropout_bp = 0;
		sl_estimate(a, &s, NULL, &e->calib, &base);
		s.lora_dropout_bp = 500;
		sl_estimate(a, &s, NULL, &e->calib, &o);
		assert_int_equal(base.phase, SL_PHASE_BACKWARD);
		assert_int_equal(o.phase, SL_PHASE_BACKWARD);
		assert_true(fabs((double)o.activations - (double)base.activations - masks) < 4);
		assert_int_equal(o.weights, base.weights);
		assert_int_equal(o.logits, base.logits);
	}
	/* q and v only: the two adapters' masks */
	s.amp = SL_AMP_OFF;
	s.dtype = SL_DTYPE_BF16;
	s.lora_targets = SL_LORA_Q | SL_LORA_V;
	struct sl_breakdown base, o;
	s.lora_dropout_bp = 0;
	sl_estimate(a, &s, NULL, &e->calib, &base);
	s.lora_dropout_bp = 1000;
	sl_estimate(a, &s, NULL, &e->calib, &o);
	assert_true(fabs((double)o.activations - (double)base.activations - L * n * h * 2) < 4); /* 2 masks */
	/* a full fine-tune: no adapters, nothing changes */
	s.lora_r = 0;
	sl_estimate(a, &s, NULL, &e->calib, &o);
	s.lora_dropout_bp = 0;
	sl_estimate(a, &s, NULL, &e->calib, &base);
	assert_int_equal(o.total, base.total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_monotone_batch_and_len),
		cmocka_unit_test(test_savings),
		cmocka_unit_test(test_zero_more_gpus),
		cmocka_unit_test(test_kbit_and_modules_to_save),
		cmocka_unit_test(test_fsdp),
		cmocka_unit_test(test_fsdp_orig_params),
		cmocka_unit_test(test_fsdp_load_save),
		cmocka_unit_test(test_kbit_residual),
		cmocka_unit_test(test_deepspeed_pure_half),
		cmocka_unit_test(test_peft_methods),
		cmocka_unit_test(test_lora_dropout),
		cmocka_unit_test(test_upcast_trainable),
		cmocka_unit_test(test_lora_autocast_half_base),
		cmocka_unit_test(test_runtime_options),
		cmocka_unit_test(test_seq2seq_loss_dtype),
		cmocka_unit_test(test_breakdown_adds_up),
		cmocka_unit_test(test_model_states),
		cmocka_unit_test(test_seed_bge_m3),
		cmocka_unit_test(test_eval_below_train),
		cmocka_unit_test(test_attention_only),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_calib_diagnostics),
		cmocka_unit_test(test_paged_optimizer),
		cmocka_unit_test(test_paged_host),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_optimizer_impl),
		cmocka_unit_test(test_new_families),
		cmocka_unit_test(test_moe),
		cmocka_unit_test(test_whisper_frames),
		cmocka_unit_test(test_generate),
		cmocka_unit_test(test_cache_terms),
		cmocka_unit_test(test_ssm_activations),
		cmocka_unit_test(test_hybrid_activations),
		cmocka_unit_test(test_longformer_attention),
	};
	return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
