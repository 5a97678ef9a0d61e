/*
 * test_peft: the PEFT methods of rules/peft.yaml (src/memory/peft_table.h, peft.c). Every method's
 * trainable parameters, computed from Llama-3.2-3B's shape and the run's config, equal PEFT's own
 * count for that run: train_info.num_trainable_params of huggingface/peft
 * method_comparison/MetaMathQA/results/<run>.json @ 5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40 (the
 * run's adapter_config.json gives the knobs below). A formula that drifts fails here.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "peft_table.h"
#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "catalog_fixture.h"

static const struct sl_arch *llama(struct env *e)
{
	const struct sl_model *m = sl_catalog_find_model(e->cat, "llama-3.2-3b");
	assert_non_null(m);
	return &m->arch;
}

static const struct sl_peft_def *def(const char *name)
{
	int m = sl_peft_parse(name);
	assert_true(m >= SL_PEFT_TABLE);
	const struct sl_peft_def *d = sl_peft_def_of((enum sl_peft)m);
	assert_non_null(d);
	assert_string_equal(sl_peft_name((enum sl_peft)m), d->name);
	return d;
}

#define QV (SL_LORA_Q | SL_LORA_V)
#define MLP (SL_LORA_GATE | SL_LORA_UP | SL_LORA_DOWN)

static void test_counts(void **state)
{
	const struct sl_arch *a = llama(*state);
	static const struct {
		const char *method;
		uint32_t r, targets;
		const char *knobs; /* key=value,... from the run's adapter_config.json */
		uint64_t peft_count; /* num_trainable_params PEFT published for the run */
		const char *run;
	} cases[] = {
		{"adalora", 64, QV, "", 18353664, "adalora--llama-3.2-3B-rank32 (init_r 64)"},
		{"adamss", 100, QV, "num_subspaces=32", 293888, "adamss--llama-3.2-3B-rank32"},
		{"beft", 0, SL_LORA_V, "", 28672, "beft--llama-3.2-3B-target-v_proj"},
		{"c3a", 0, QV, "block_size=64", 5505024, "c3a--llama-3.2-3B-default"},
		{"deft", 32, QV, "para=1", 3670016, "deft--llama-3.2-3B-rank32-para"},
		{"deft", 32, QV, "", 9175040, "deft--llama-3.2-3B-rank32"},
		{"delora", 32, QV, "", 9175096, "delora--llama-3.2-3B-rank32"},
		{"fourierft", 0, QV, "", 56000, "fourierft--llama-3.2-3B-default"},
		{"fourierft", 0, QV, "n_frequency=5000", 280000, "fourierft--llama-3.2-3B-n_frequency-5000"},
		{"frod", 0, QV, "", 5456808, "frod--llama-3.2-3B-default"},
		{"frod", 0, QV, "sparse_rate=0.02", 10741640, "frod--llama-3.2-3B-sparse0.02-lr_0.001"},
		{"glora", 8, QV, "", 4587520, "glora--llama-3.2-3B-default"},
		{"glora", 8, QV, "ab_lora=0,ab_vector=1", 229376, "glora--llama-3.2-3B-vector-paths"},
		{"gralora", 32, QV, "", 9175040, "gralora--llama-3.2-3B-rank32"},
		{"hira", 32, QV, "", 9175040, "hira--llama-3.2-3B-rank32-lr4.5e-3"},
		{"lily", 140, MLP, "stride_A=14", 9485280, "lily--llama-3.2-3B-rank140-mlp-a2-b2-s8.0"},
		{"lily", 896, QV, "stride_A=14", 18450432, "lily--llama-3.2-3B-rank896-a2-b2-s2.0"},
		{"lokr", 32, QV, "decompose_factor=4", 2294656, "lokr--llama-3.2-3B-rank32-factor4-lr0.003"},
		{"lorafa", 32, QV, "", 3670016, "lora--llama-3.2-3B-rank32-lorafa"},
		{"miss", 64, QV, "", 7340032, "miss--llama-3.2-3B-default"},
		{"miss", 64, QV, "", 7340032, "miss--llama-3.2-3B-bat"},
		{"miss", 64, QV, "mini=1,mini_r=64", 229376, "miss--llama-3.2-3B-mini"},
		{"osf", 128, SL_LORA_ALL, "", 194535936, "osf--llama-3.2-3B-rank128 (trainable rank 128)"},
		{"peanut", 1, QV, "", 229376, "peanut--llama-3.2-3B-rank1-relu-depth0-s32.0"},
		{"peanut", 32, QV, "", 7340032, "peanut--llama-3.2-3B-rank32-relu-depth0-s2.0"},
		{"psoft", 256, QV, "", 1856512, "psoft--llama-3.2-3B-default"},
		{"pvera", 256, QV, "", 143360, "pvera--llama-3.2-3B-default"},
		{"pvera", 64, QV, "", 121856, "pvera--llama-3.2-3B-rank64"},
		{"randlora", 32, QV, "", 9289728, "randlora--llama-3.2-3B-default"},
		{"road", 0, QV, "variant=2", 229376, "road--llama-3.2-3B-lr_0.001 (road_2)"},
		{"shira", 32, QV, "", 9175040, "shira--llama-3.2-3B-lr_0.0003-random_seed_42"},
		{"tinylora", 2, QV, "", 3584, "tinylora--llama-3.2-3B-default"},
		{"tinylora", 2, QV, "weight_tying=1", 64, "tinylora--llama-3.2-3B-weight-tying"},
		{"unilora", 32, QV, "", 256, "unilora--llama-3.2-3B-default"},
		{"vblora", 4, QV, "", 1212416, "vblora--llama-3.2-3B-default"},
		{"waveft", 0, QV, "n_frequency=5000", 280000, "waveft--llama-3.2-3B-n_frequency-5000"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct sl_peft_def *d = def(cases[i].method);
		struct sl_peft_knobs k;
		sl_peft_knobs_default(d, &k);
		char buf[128];
		strncpy(buf, cases[i].knobs, sizeof buf - 1);
		buf[sizeof buf - 1] = '\0';
		for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(kv, '=');
			assert_non_null(eq);
			*eq = '\0';
			assert_int_equal(sl_peft_knobs_set(d, &k, kv, atof(eq + 1)), 0);
		}
		struct sl_peft_sizes z;
		sl_peft_sizes(a, d, cases[i].r, cases[i].targets, 2, &k, &z);
		if ((uint64_t)llround(z.params) != cases[i].peft_count)
			fail_msg("%s: computed %.0f trainable parameters, PEFT published %llu", cases[i].run, z.params,
				 (unsigned long long)cases[i].peft_count);
	}
}

/* Every row parses by name and its spellings, names itself, and sizes from its defaults. */
static void test_rows(void **state)
{
	const struct sl_arch *a = llama(*state);
	assert_true(sl_peft_table_n >= 25);
	for (unsigned i = 0; i < sl_peft_table_n; i++) {
		const struct sl_peft_def *d = &sl_peft_table[i];
		assert_int_equal(sl_peft_parse(d->name), SL_PEFT_TABLE + (int)i);
		for (const char *const *s = d->spellings; *s; s++)
			assert_int_equal(sl_peft_parse(*s), SL_PEFT_TABLE + (int)i);
		assert_non_null(d->source);
		assert_true(d->targets != 0);
		struct sl_peft_sizes z;
		sl_peft_sizes(a, d, 0, 0, 2, NULL, &z);
		assert_true(z.params >= 1);
		assert_true(z.keeps_token >= 0 && z.keeps_weight >= 0 && z.buffers >= 0);
		assert_int_equal(sl_arch_peft_params(a, (enum sl_peft)(SL_PEFT_TABLE + i), 0, 0, 0),
				 (uint64_t)llround(z.params));
	}
	assert_int_equal(sl_peft_parse("no-such-method"), -1);
	assert_null(sl_peft_def_of(SL_PEFT_LORA));
	assert_null(sl_peft_def_of((enum sl_peft)(SL_PEFT_TABLE + sl_peft_table_n)));
}

/* What a forward keeps, through the estimate: FourierFT's float32 delta per target and its input copy,
 * LoRA-FA no input (A frozen), AdaLoRA's importance scores. */
static void test_forward_terms(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = llama(e);
	double h = a->hidden, kv = (double)a->kv_heads * (a->hidden / a->heads), L = a->layers;
	struct sl_peft_sizes z;
	sl_peft_sizes(a, def("fourierft"), 0, 0, 2, NULL, &z);
	assert_true(fabs(z.keeps_weight - 4 * (h * h + h * kv)) < 1);
	assert_true(fabs(z.keeps_token - 4 * 2 * h) < 1e-6);

	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 4;
	s.seq_len = 768;
	struct sl_breakdown c3a, fourier, lora, lorafa, ada;
	s.peft_method = (enum sl_peft)sl_peft_parse("c3a");
	sl_estimate(a, &s, NULL, &e->calib, &c3a);
	s.peft_method = (enum sl_peft)sl_peft_parse("fourierft");
	sl_estimate(a, &s, NULL, &e->calib, &fourier);
	assert_int_equal(fourier.trainable, 56000);
	/* both keep the float32 input copy; FourierFT its out x in delta per target and layer too */
	assert_int_equal(fourier.activations, c3a.activations);
	double d_adapters = 4.0 * ((double)fourier.trainable - (double)c3a.trainable); /* float32 adapters */
	double d_weights = (double)fourier.weights - (double)c3a.weights;
	assert_true(fabs(d_weights - (L * 4 * (h * h + h * kv) + d_adapters)) < 64);

	s.peft_method = SL_PEFT_NONE;
	s.lora_r = 32;
	sl_estimate(a, &s, NULL, &e->calib, &lora);
	s.peft_method = (enum sl_peft)sl_peft_parse("lora-fa");
	sl_estimate(a, &s, NULL, &e->calib, &lorafa);
	assert_int_equal(lorafa.trainable, 3670016);
	assert_true(lorafa.activations < lora.activations);
	assert_true(lorafa.optimizer < lora.optimizer);

	/* VeRA: A and B frozen, so no input copy; A's r-wide and B's out-wide outputs (float32) per target.
	 * OFT rotates the input (no materialised weight): its weights are the base and its adapters only */
	struct sl_breakdown vera, beft, oft;
	s.lora_targets = QV;
	s.peft_method = (enum sl_peft)sl_peft_parse("beft");
	s.lora_r = 0;
	sl_estimate(a, &s, NULL, &e->calib, &beft);
	s.peft_method = SL_PEFT_VERA;
	s.lora_r = 256;
	sl_estimate(a, &s, NULL, &e->calib, &vera);
	double tokens = 4.0 * 768;
	assert_true(fabs(((double)vera.activations - (double)beft.activations) - tokens * L * 4 * (2 * 256 + h + kv)) < 64);
	s.peft_method = SL_PEFT_OFT;
	s.lora_r = 32;
	sl_estimate(a, &s, NULL, &e->calib, &oft);
	assert_true(fabs(((double)oft.weights - 4.0 * oft.trainable) - ((double)beft.weights - 4.0 * beft.trainable)) < 64);
	s.lora_targets = 0;

	s.peft_method = (enum sl_peft)sl_peft_parse("adalora");
	s.lora_r = 64;
	sl_estimate(a, &s, NULL, &e->calib, &ada);
	assert_int_equal(ada.trainable, 18353664);
}

/* ZeRO offload keeps the trainable parameters' fp32 master, moments and gradients on the host: those of
 * the PEFT method, not every parameter (host.c read LoRA's rank only and took the rest for full). */
static void test_host_offload(void **state)
{
	struct env *e = *state;
	const struct sl_arch *a = llama(e);
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.dtype = SL_DTYPE_BF16;
	s.batch_size = 4;
	s.seq_len = 768;
	s.zero_stage = 2;
	s.offload = SL_OFFLOAD_OPTIMIZER;
	struct sl_host_breakdown full, pt, four, none;
	sl_estimate_host(a, &s, &e->calib, &full);
	s.peft_method = SL_PEFT_PROMPT_TUNING;
	s.num_virtual_tokens = 200;
	sl_estimate_host(a, &s, &e->calib, &pt);
	s.peft_method = (enum sl_peft)sl_peft_parse("fourierft");
	sl_estimate_host(a, &s, &e->calib, &four);
	s.offload = SL_OFFLOAD_NONE;
	sl_estimate_host(a, &s, &e->calib, &none);
	/* 16 B per trainable parameter times DeepSpeed's buffer factor: 614,400 and 56,000 of them */
	double f = e->calib.host_offload_factor;
	assert_true(fabs(((double)pt.loading - (double)none.loading) - 16.0 * 614400 * f) < 64);
	assert_true(fabs(((double)four.loading - (double)none.loading) - 16.0 * 56000 * f) < 64);
	assert_true(full.loading > pt.loading + 16.0 * 1e9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_forward_terms),
		cmocka_unit_test(test_host_offload),
	};
	return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
