/*
 * test_fastpath: the fast paths give exactly what the reference paths give.
 *
 * - sl_estimate_at over a prepared plan (reused across batch sizes and
 *   lengths, its per-length cache hit and missed) against a fresh
 *   sl_estimate, breakdown byte for byte, over random settings;
 * - the estimator's rounding against llround;
 * - sl_eval_run's incremental enumeration (src/enumerate/cells.c: static axes outermost, plans per
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

#include "random_sweep.h"

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
		uint16_t cell = sl_eval_cell(ev, idx);
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
	assert_true(known == ev->evaluated * (ev->ncombos / ev->ncells)); /* a cell per combination of the unheld axes */
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
		const struct sl_gpu *gpu = &e->cat->gpus[pick(&r, e->cat->ngpus)];
		double headroom = 0.5 + (double)pick(&r, 6) / 10;
		uint32_t gpus = (uint32_t)pick(&r, 3);
		struct sl_eval *ev = random_eval(e, a, text, config, sets, nsets, gpu, headroom, gpus, 3000, false, i);
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
	return cmocka_run_group_tests(tests, random_env_setup, random_env_teardown);
}
