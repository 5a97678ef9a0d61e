/*
 * test_fastpath: the fast paths give exactly what the reference paths give.
 *
 * - sl_estimate_at over a prepared plan (reused across batch sizes and
 *   lengths, its per-length cache hit and missed) against a fresh
 *   sl_estimate, breakdown byte for byte, over random settings;
 * - the estimator's rounding against llround;
 * - sl_eval_run's incremental enumeration (static axes outermost, plans per
 *   static combination, per-length terms cached) against sl_eval_estimate
 *   combination by combination in axis order, over random sweeps with
 *   trainer configs and --set fixes: every verdict and peak step, the
 *   counts by verdict, every value's counts, best, worst and first worst
 *   combination, the overall worst.
 *
 * Randomised with fixed seeds: a failure names the case to replay.
 * estimate.c is included to reach its rounding helper.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/memory/estimate.c"

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/eval.h"
#include "sweeplint/roles.h"
#include "sweeplint/scalar.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

struct env {
	struct sl_arena *a;
	struct sl_catalog *cat;
	struct sl_keymap *keys;
	const struct sl_scalar_resolver *res;
};

static int setup(void **state)
{
	static struct env e;
	e.a = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, e.a);
	if (sl_catalog_load(e.a, &e.cat, &d) != 0)
		return -1;
	e.keys = sl_keymap_new(e.a, &d);
	e.res = sl_scalar_resolver_new(e.a);
	*state = &e;
	return e.keys ? 0 : -1;
}

static int teardown(void **state)
{
	struct env *e = *state;
	sl_arena_free(e->a);
	return 0;
}

/* xorshift64: fixed seeds, the same cases on every machine */
static uint64_t next(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

static uint64_t pick(uint64_t *r, uint64_t n)
{
	return next(r) % n;
}

static void random_settings(uint64_t *r, struct sl_settings *s)
{
	sl_settings_default(s);
	s->task = (enum sl_task)pick(r, SL_TASK__COUNT);
	s->batch_size = pick(r, 300);
	s->eval_batch_size = pick(r, 3) * 16;
	s->grad_accum = pick(r, 4);
	s->seq_len = pick(r, 9000);
	s->target_len = pick(r, 3) ? 0 : pick(r, 2000);
	s->dtype = (enum sl_dtype)pick(r, SL_DTYPE__COUNT);
	s->amp = (enum sl_amp)pick(r, SL_AMP__COUNT);
	s->gradient_checkpointing = pick(r, 2);
	s->optimizer = (enum sl_optim)pick(r, SL_OPTIM__COUNT);
	s->lora_r = pick(r, 3) ? 0 : (uint32_t)pick(r, 128);
	s->lora_targets = (uint32_t)pick(r, SL_LORA_ALL + 1);
	s->quant = (enum sl_quant)pick(r, SL_QUANT__COUNT);
	s->attn = (enum sl_attn)pick(r, SL_ATTN__COUNT);
	s->zero_stage = (uint32_t)pick(r, 4);
	s->offload = (enum sl_offload)pick(r, SL_OFFLOAD__COUNT);
	s->zero3_init = pick(r, 2);
	s->num_gpus = 1 + (uint32_t)pick(r, 8);
	s->num_workers = (uint32_t)pick(r, 9);
	s->texts_per_example = (uint32_t)pick(r, 6);
	s->mini_batch_size = pick(r, 3) ? 0 : pick(r, 64);
	s->legacy_runtime = pick(r, 5) == 0;
}

static void test_plan_equals_estimate(void **state)
{
	struct env *e = *state;
	uint64_t r = 0x9E3779B97F4A7C15ull;
	struct sl_estimate_plan *p = sl_estimate_plan_new(e->a);
	size_t cases = 0, len_hits = 0;
	for (int i = 0; i < 4000; i++) {
		const struct sl_model *m = &e->cat->models[pick(&r, e->cat->nmodels)];
		const struct sl_gpu *g = &e->cat->gpus[pick(&r, e->cat->ngpus)];
		struct sl_settings s;
		random_settings(&r, &s);
		sl_estimate_prepare(p, &m->arch, &s, g, &e->cat->calib);
		for (int k = 0; k < 6; k++) {
			/* the batch, the length or the target length changes, or none; the plan saw s's lengths last */
			struct sl_settings t = s;
			unsigned what = (unsigned)pick(&r, 8);
			if (what & 1)
				t.batch_size = pick(&r, 300);
			if (what & 2)
				t.seq_len = pick(&r, 9000);
			if (what & 4)
				t.target_len = pick(&r, 2) ? 0 : pick(&r, 2000);
			len_hits += k > 0 && !(what & 6);
			s.seq_len = t.seq_len, s.target_len = t.target_len;
			struct sl_breakdown want, got;
			memset(&want, 0, sizeof want);
			memset(&got, 0, sizeof got);
			sl_estimate(&m->arch, &t, g, &e->cat->calib, &want);
			sl_estimate_at(p, &t, &got);
			if (memcmp(&want, &got, sizeof want) != 0)
				fail_msg("case %d.%d (%s, batch %llu, seq %llu, target %llu): %llu != %llu", i, k, m->name,
					 (unsigned long long)t.batch_size, (unsigned long long)t.seq_len,
					 (unsigned long long)t.target_len, (unsigned long long)got.total,
					 (unsigned long long)want.total);
			cases++;
		}
	}
	assert_true(cases == 24000);
	assert_true(len_hits > 1000); /* the per-length cache was exercised */
}

static void test_rounding_is_llround(void **state)
{
	(void)state;
	uint64_t r = 12345;
	/* halves, their neighbours, and values over the whole range the estimator sees */
	for (int i = 0; i < 200000; i++) {
		double v;
		switch (i % 4) {
		case 0:
			v = (double)pick(&r, (uint64_t)1 << 53) + 0.5;
			break;
		case 1:
			v = nextafter((double)pick(&r, (uint64_t)1 << 40) + 0.5, i & 8 ? 0 : 1e300);
			break;
		case 2:
			v = ldexp((double)(next(&r) >> 11), (int)pick(&r, 64) - 53);
			break;
		default:
			v = (double)pick(&r, 1u << 20) / (double)(1 + pick(&r, 1u << 10));
			break;
		}
		if (v >= 9223372036854775808.0 || !(v > 0)) /* llround's range */
			continue;
		if (u64(v) != (uint64_t)llround(v))
			fail_msg("u64(%.17g) = %llu, llround %lld", v, (unsigned long long)u64(v), llround(v));
	}
	assert_true(u64(0.49999999999999994) == 0);
	assert_true(u64(0.5) == 1);
	assert_true(u64(4503599627370495.5) == 4503599627370496ull);
	assert_true(u64(-1) == 0);
	assert_true(u64(2e19) == UINT64_MAX);
}

/* ---- the enumeration ---------------------------------------------------------------- */

struct key_choice {
	const char *key;
	const char *values[6];
};

/* Keys with a role (some roles twice: the later axis wins), and values some of which do not parse. */
static const struct key_choice keys[] = {
	{"model", {"bert-base-uncased", "t5-small", "gpt2", "bge-m3-ko", "no-such-model", "bart-base"}},
	{"model_name_or_path", {"roberta-base", "xlm-roberta-base", "multilingual-e5-small", "ko-simcse"}},
	{"batch_size", {"1", "8", "32", "x", "128", "3"}},
	{"per_device_train_batch_size", {"2", "4", "64", "16"}},
	{"max_seq_length", {"16", "128", "512", "2048", "0", "77"}},
	{"max_len", {"64", "256", "1024"}},
	{"max_target_length", {"32", "64", "300"}},
	{"gradient_checkpointing", {"true", "false", "maybe"}},
	{"attn_implementation", {"eager", "sdpa", "flash_attention_2", "default"}},
	{"fp16", {"true", "false"}},
	{"bf16", {"true", "false"}},
	{"optim", {"adamw_torch", "adafactor", "sgd", "adamw_bnb_8bit", "lion_32bit"}},
	{"lora_r", {"8", "16", "64"}},
	{"lora_target_modules", {"q_proj", "all-linear", "query,value"}},
	{"num_workers", {"0", "4", "16"}},
	{"per_device_eval_batch_size", {"8", "64", "512"}},
	{"num_negatives", {"1", "3", "7"}},
	{"mini_batch_size", {"4", "32"}},
	{"zero_stage", {"0", "2", "3"}},
	{"num_gpus", {"1", "4", "8"}},
	{"torch_dtype", {"bf16", "fp32", "auto", "float16"}},
	{"load_in_4bit", {"true", "false"}},
	{"gradient_accumulation_steps", {"1", "4"}},
	{"lr", {"1.0e-5", "3.0e-5"}},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static size_t nvalues(const struct key_choice *k)
{
	size_t n = 0;
	while (n < 6 && k->values[n])
		n++;
	return n;
}

/* A random grid sweep (and a trainer config, and --set fixes) in the arena. */
static const char *random_sweep(struct sl_arena *a, uint64_t *r, const char **config, const char **sets, size_t *nsets)
{
	struct sl_buf b, c;
	sl_buf_init(&b, a);
	sl_buf_init(&c, a);
	sl_buf_adds(&b, "program: train.py\nmethod: grid\nparameters:\n");
	size_t naxes = 3 + pick(r, 7);
	bool used[NKEYS] = {0};
	/* a model almost always, so that most combinations are known */
	if (pick(r, 8)) {
		used[pick(r, 2)] = true;
		naxes--;
	}
	for (size_t i = 0; i < naxes; i++)
		used[pick(r, NKEYS)] = true;
	for (size_t k = 0; k < NKEYS; k++) {
		if (!used[k])
			continue;
		size_t nv = nvalues(&keys[k]);
		if (pick(r, 5) == 0) { /* a single value */
			sl_buf_addf(&b, "  %s: {value: %s}\n", keys[k].key, keys[k].values[pick(r, nv)]);
			continue;
		}
		if (pick(r, 6) == 0 && k >= 2 && k <= 6) { /* an integer range */
			uint64_t lo = 1 + pick(r, 40);
			sl_buf_addf(&b, "  %s: {distribution: int_uniform, min: %llu, max: %llu}\n", keys[k].key,
				    (unsigned long long)lo, (unsigned long long)(lo + pick(r, 12)));
			continue;
		}
		sl_buf_addf(&b, "  %s: {values: [", keys[k].key);
		size_t take = 1 + pick(r, nv);
		for (size_t j = 0; j < take; j++)
			sl_buf_addf(&b, "%s%s", j ? ", " : "", keys[k].values[pick(r, nv)]);
		sl_buf_adds(&b, "]}\n");
	}
	/* a trainer config under the sweep: its values apply first */
	for (size_t k = 0; k < NKEYS; k++)
		if (pick(r, 6) == 0)
			sl_buf_addf(&c, "%s: %s\n", keys[k].key, keys[k].values[pick(r, nvalues(&keys[k]))]);
	*config = c.len ? c.buf : NULL;
	static const char *const fixes[] = {"batch_size=4",      "seq_len=256",       "target_len=48",
					    "gradient_checkpointing=true", "dtype=bf16", "amp=fp16",
					    "max_len=96",        "model=gpt2",        "num_workers=2"};
	*nsets = 0;
	for (size_t i = 0; i < sizeof fixes / sizeof fixes[0]; i++)
		if (pick(r, 10) == 0)
			sets[(*nsets)++] = fixes[i];
	return b.buf;
}

/* The reference: every combination in axis order through sl_eval_estimate. */
static void check_eval(struct env *e, struct sl_arena *a, const struct sl_eval *ev, int case_no)
{
	size_t n = ev->naxes;
	struct ref {
		uint64_t worst, best;
		uint32_t *combo;
		uint64_t u[SL_VERDICT__COUNT];
	};
	struct ref **refs = sl_arena_array(a, n ? n : 1, sizeof *refs);
	for (size_t i = 0; i < n; i++) {
		refs[i] = sl_arena_array(a, ev->axes[i].n, sizeof **refs);
		for (size_t j = 0; j < ev->axes[i].n; j++)
			refs[i][j].best = UINT64_MAX;
	}
	uint64_t worst = 0, known = 0, u[SL_VERDICT__COUNT] = {0};
	uint32_t *worst_combo = NULL;
	uint32_t *idx = sl_eval_combo(a, ev, SIZE_MAX, 0);
	uint64_t c = 0;
	do {
		struct sl_breakdown bd;
		bool ok = sl_eval_estimate(ev, idx, &bd);
		enum sl_verdict vd = ok ? sl_eval_classify(ev, bd.total) : SL_VERDICT_UNKNOWN;
		uint16_t cell = ev->cells[c];
		u[vd]++;
		for (size_t i = 0; i < n; i++)
			refs[i][idx[i]].u[vd]++;
		if ((cell >> 14) != vd)
			fail_msg("case %d combination %llu (%s): verdict %u, reference %u", case_no, (unsigned long long)c,
				 sl_eval_describe(a, ev, idx, SIZE_MAX), cell >> 14, (unsigned)vd);
		if (ok) {
			/* the peak in 1/1024 steps of capacity, saturating at 14 bits */
			double q = (double)bd.total * 1024.0 / (double)ev->capacity;
			uint16_t want = q >= 0x3FFF ? 0x3FFF : (uint16_t)q;
			if ((cell & 0x3FFF) != want)
				fail_msg("case %d combination %llu: step %u, reference %u", case_no, (unsigned long long)c,
					 cell & 0x3FFF, want);
			known++;
			if (!worst_combo || bd.total > worst) {
				worst = bd.total;
				worst_combo = sl_arena_array(a, n ? n : 1, sizeof *idx);
				memcpy(worst_combo, idx, n * sizeof *idx);
			}
			for (size_t i = 0; i < n; i++) {
				struct ref *rf = &refs[i][idx[i]];
				if (bd.total < rf->best)
					rf->best = bd.total;
				if (!rf->combo || bd.total > rf->worst) {
					rf->worst = bd.total;
					rf->combo = sl_arena_array(a, n, sizeof *idx);
					memcpy(rf->combo, idx, n * sizeof *idx);
				}
			}
		}
		c++;
	} while (sl_eval_next(ev, idx));
	assert_true(c == ev->ncombos);
	assert_true(known == ev->evaluated);
	assert_memory_equal(ev->u, u, sizeof u);
	if (worst_combo) {
		assert_true(ev->worst == worst);
		assert_memory_equal(ev->worst_combo, worst_combo, n * sizeof *idx);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ev->axes[i].n; j++) {
			const struct sl_eval_value *v = &ev->axes[i].values[j];
			const struct ref *rf = &refs[i][j];
			if (v->best != rf->best || v->worst != rf->worst || !v->worst_combo != !rf->combo ||
			    memcmp(v->u, rf->u, sizeof v->u) != 0 ||
			    (rf->combo && memcmp(v->worst_combo, rf->combo, n * sizeof *idx) != 0))
				fail_msg("case %d: %s: best %llu/%llu worst %llu/%llu", case_no,
					 sl_eval_value_name(a, &ev->axes[i], v), (unsigned long long)v->best,
					 (unsigned long long)rf->best, (unsigned long long)v->worst,
					 (unsigned long long)rf->worst);
		}
	(void)e;
}

static void test_enumeration_equals_reference(void **state)
{
	struct env *e = *state;
	uint64_t r = 0xD1B54A32D192ED03ull;
	uint64_t combos = 0, known = 0;
	for (int i = 0; i < 1000; i++) {
		struct sl_arena *a = sl_arena_new();
		const char *config = NULL, *sets[16];
		size_t nsets = 0;
		const char *text = random_sweep(a, &r, &config, sets, &nsets);
		struct sl_diags d;
		sl_diags_init(&d, a);
		struct sl_source *src = sl_source_from_bytes(a, "sweep.yaml", text, strlen(text));
		struct sl_ydoc *doc = sl_ydoc_parse(a, src, e->res, &d);
		assert_true(doc->ok);
		struct sl_sweep *sw = sl_sweep_load(a, doc);
		struct sl_trainer *tr = NULL;
		if (config)
			assert_int_equal(sl_trainer_load_bytes(a, "train.yaml", NULL, config, strlen(config), e->res, &d, &tr), 0);
		const struct sl_trainer *const configs[1] = {tr};
		struct sl_eval_opts o = {
			.cat = e->cat,
			.gpu = &e->cat->gpus[pick(&r, e->cat->ngpus)],
			.keys = e->keys,
			.configs = configs,
			.nconfigs = tr ? 1 : 0,
			.sets = sets,
			.nsets = nsets,
			.headroom = 0.5 + (double)pick(&r, 6) / 10,
			.num_gpus = (uint32_t)pick(&r, 3),
			.max_combos = 3000,
			.resolver = e->res,
		};
		struct sl_eval *ev = NULL;
		const char *why = NULL;
		if (sl_eval_run(a, sw, &o, &d, &ev, &why) != 0)
			fail_msg("case %d: %s", i, why);
		check_eval(e, a, ev, i);
		combos += ev->ncombos;
		known += ev->evaluated;
		sl_arena_free(a);
	}
	/* enough variety to mean something */
	print_message("%llu combinations, %llu known\n", (unsigned long long)combos, (unsigned long long)known);
	assert_true(combos > 50000);
	assert_true(known > combos / 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_equals_estimate),
		cmocka_unit_test(test_rounding_is_llround),
		cmocka_unit_test(test_enumeration_equals_reference),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
