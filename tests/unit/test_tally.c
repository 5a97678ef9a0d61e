/*
 * test_tally: the counts of an evaluation whose axes are cut to their bounds
 * (src/enumerate/tally.c) read one set, so that a finding's count and
 * the summary agree (issue 15, item 7: a finding said a bound value runs out
 * of memory in 3.8 M combinations while the summary said 0 oom).
 *
 * Over random sweeps evaluated under a small bound (sl_eval_opts.max_combos:
 * the largest axes are cut to their bounds):
 * - no value counts more combinations of a verdict than the summary;
 * - the values of an axis that is not cut split the summary exactly;
 * - a bound value's counts add up to its share of the grid (the grid with
 *   that axis at that value), and the summary adds up to the grid;
 * - every evaluated combination (a corner: each cut axis at a bound) is
 *   known: the summary and each value count at least its corners' verdicts.
 *
 * Randomised with fixed seeds: a failure names the case to replay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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

static bool finite(struct sl_count c)
{
	return !c.infinite && !c.saturated;
}

static bool cut(const struct sl_eval_axis *ax)
{
	return ax->bounds && ax->n == 2;
}

static void test_bounds_count_one_set(void **state)
{
	struct env *e = *state;
	uint64_t r = 0x2545F4914F6CDD1Dull;
	uint64_t cases = 0, with_oom = 0, disagree = 0;
	for (int i = 0; i < 3000; i++) {
		struct sl_arena *a = sl_arena_new();
		const char *config = NULL, *sets[16];
		size_t nsets = 0;
		const char *text = random_sweep(a, &r, &config, sets, &nsets);
		const struct sl_gpu *gpu = &e->cat->gpus[pick(&r, e->cat->ngpus)];
		double headroom = 0.5 + (double)pick(&r, 6) / 10;
		uint32_t gpus = (uint32_t)pick(&r, 3);
		uint64_t bound = 2 + pick(&r, 24);
		struct sl_eval *ev = random_eval(e, a, text, config, sets, nsets, gpu, headroom, gpus, bound, false, i);
		size_t nb = 0;
		for (size_t k = 0; ev->cells && k < ev->naxes; k++)
			nb += cut(&ev->axes[k]);
		if (!nb || !finite(ev->total) || !finite(ev->others)) {
			sl_arena_free(a);
			continue;
		}
		cases++;
		with_oom += ev->u[SL_VERDICT_OOM] > 0;
		disagree += ev->n[SL_VERDICT_UNKNOWN].value > ev->others.value * ev->u[SL_VERDICT_UNKNOWN];
		uint64_t sum = 0;
		for (int vd = 0; vd < SL_VERDICT__COUNT; vd++) {
			sum += ev->n[vd].value;
			/* every evaluated combination is known in the summary */
			if (vd != SL_VERDICT_UNKNOWN && ev->n[vd].value < ev->others.value * ev->u[vd])
				fail_msg("case %d: %llu combinations of verdict %d evaluated, the summary counts %llu", i,
					 (unsigned long long)(ev->others.value * ev->u[vd]), vd,
					 (unsigned long long)ev->n[vd].value);
		}
		assert_int_equal(sum, ev->total.value);
		for (size_t k = 0; k < ev->naxes; k++) {
			const struct sl_eval_axis *ax = &ev->axes[k];
			uint64_t split[SL_VERDICT__COUNT] = {0};
			for (size_t j = 0; j < ax->n; j++) {
				const struct sl_eval_value *v = &ax->values[j];
				uint64_t all = 0;
				for (int vd = 0; vd < SL_VERDICT__COUNT; vd++) {
					if (v->n[vd].value > ev->n[vd].value)
						fail_msg("case %d: %s counts %llu combinations of verdict %d, the summary %llu", i,
							 sl_eval_value_name(a, ax, v), (unsigned long long)v->n[vd].value, vd,
							 (unsigned long long)ev->n[vd].value);
					if (vd != SL_VERDICT_UNKNOWN && v->n[vd].value < ev->others.value * v->u[vd])
						fail_msg("case %d: %s: an evaluated combination is not counted", i,
							 sl_eval_value_name(a, ax, v));
					split[vd] += v->n[vd].value;
					all += v->n[vd].value;
				}
				/* a bound value stands for itself: its share of the grid */
				if (cut(ax) && finite(ax->range))
					assert_int_equal(all, ev->total.value / ax->range.value);
			}
			if (!cut(ax))
				for (int vd = 0; vd < SL_VERDICT__COUNT; vd++)
					assert_int_equal(split[vd], ev->n[vd].value);
		}
		sl_arena_free(a);
	}
	print_message("%llu cases cut to their bounds, %llu with an oom, %llu with bounds that disagree\n",
		      (unsigned long long)cases, (unsigned long long)with_oom, (unsigned long long)disagree);
	assert_true(cases > 300);
	assert_true(with_oom > 30);
	assert_true(disagree > 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds_count_one_set),
	};
	return cmocka_run_group_tests(tests, random_env_setup, random_env_teardown);
}
