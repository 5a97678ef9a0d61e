/*
 * test_walk: the walk over the combinations a measure tells apart
 * (src/enumerate/walk.c) gives what walking every combination gives.
 *
 * - the roles each measure is said not to read: over random settings (and
 *   workloads), setting any of them to any value leaves the training step,
 *   the evaluation step and host RAM byte for byte the same;
 * - over random sweeps with trainer configs and --set fixes: the tallies
 *   of sl_memrule_tally (eval-oom, host-oom) per value of every axis, under
 *   every measure, against a tally of every combination: counts, worst
 *   measure, first worst combination; a walk pinned to one value of one
 *   axis (gc-off-large-model, workers-over-cores) visits weights that add up
 *   to that value's combinations and finds the same first largest; the
 *   counts of combinations judged on stated settings (sl_eval_count_assumed);
 * - the evaluation with held axes (one cell per combination of the axes the
 *   peak reads) against the exhaustive one (sl_eval_opts.exhaustive) over
 *   random sweeps: every combination's cell, the counts by verdict, stated
 *   and assumed, every value's counts, best, worst, first worst combination,
 *   blame counts, blamed combinations and hopelessness, the overall worst.
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

#include "../../src/rules/memory_rules.h"
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

static uint64_t step_peak(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m)
{
	struct sl_breakdown bd;
	sl_estimate(&m->arch, s, ev->gpu, &ev->cat->calib, &bd);
	return bd.total;
}

static uint64_t eval_peak(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m)
{
	struct sl_breakdown bd;
	sl_estimate_eval(&m->arch, s, ev->gpu, &ev->cat->calib, &bd);
	return bd.total;
}

static uint64_t host_ram(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m)
{
	struct sl_host_breakdown hb;
	sl_estimate_host(&m->arch, s, &ev->cat->calib, &hb);
	return hb.total;
}

typedef uint64_t (*measure_fn)(const struct sl_eval *, const struct sl_settings *, const struct sl_model *);
static const measure_fn measures[] = {[SL_MEASURE_STEP] = step_peak, [SL_MEASURE_EVAL] = eval_peak,
				      [SL_MEASURE_HOST] = host_ram};
#define NMEASURES 3

/* The whole breakdown of a measure, for a byte-for-byte comparison. */
static void measure_all(const struct sl_model *m, const struct sl_settings *s, const struct sl_gpu *g,
			const struct sl_calib *c, enum sl_measure what, unsigned char out[static 512])
{
	memset(out, 0, 512);
	if (what == SL_MEASURE_HOST) {
		sl_estimate_host(&m->arch, s, c, (struct sl_host_breakdown *)(void *)out);
		return;
	}
	if (what == SL_MEASURE_STEP)
		sl_estimate(&m->arch, s, g, c, (struct sl_breakdown *)(void *)out);
	else
		sl_estimate_eval(&m->arch, s, g, c, (struct sl_breakdown *)(void *)out);
}

static void test_unread_roles_are_unread(void **state)
{
	struct env *e = *state;
	_Static_assert(sizeof(struct sl_breakdown) <= 512 && sizeof(struct sl_host_breakdown) <= 512, "buffer");
	uint64_t r = 0x2545F4914F6CDD1Dull;
	size_t changed = 0;
	for (int i = 0; i < 3000; i++) {
		const struct sl_model *m = &e->cat->models[pick(&r, e->cat->nmodels)];
		const struct sl_gpu *g = &e->cat->gpus[pick(&r, e->cat->ngpus)];
		struct sl_settings s;
		random_settings(&r, &s);
		random_workload(&r, &s);
		/* an evaluation without axes: its workload is the settings' */
		struct sl_eval ev = {.mode = s.mode};
		for (int what = 0; what < NMEASURES; what++) {
			uint64_t unread = sl_eval_unread_roles(&ev, (enum sl_measure)what);
			unsigned char want[512], got[512];
			measure_all(m, &s, g, &e->cat->calib, (enum sl_measure)what, want);
			struct sl_settings t = s;
			for (int role = 0; role < SL_ROLE__COUNT; role++) {
				if (role >= 64 || !(unread >> role & 1)) /* roles from 64 on are never unread */
					continue;
				/* any value, set alone and on top of the others */
				struct sl_role_value rv = {.role = (enum sl_role)role, .u = pick(&r, 3) ? pick(&r, 600) : next(&r)};
				struct sl_settings one = s;
				sl_settings_apply(&one, &rv, g->bf16);
				sl_settings_apply(&t, &rv, g->bf16);
				changed += memcmp(&one, &s, sizeof s) != 0;
				measure_all(m, &one, g, &e->cat->calib, (enum sl_measure)what, got);
				if (memcmp(want, got, sizeof want) != 0)
					fail_msg("case %d: measure %d reads role %s (%s, mode %d)", i, what,
						 sl_role_name((enum sl_role)role), m->name, (int)s.mode);
			}
			measure_all(m, &t, g, &e->cat->calib, (enum sl_measure)what, got);
			if (memcmp(want, got, sizeof want) != 0)
				fail_msg("case %d: measure %d reads its unread roles together (%s)", i, what, m->name);
		}
	}
	assert_true(changed > 10000); /* the settings did change */
}

/* The reference tally: every combination. */
static void full_tally(struct sl_arena *a, const struct sl_eval *ev, size_t at, uint64_t limit, measure_fn fn,
		       struct sl_memrule_tally *t)
{
	size_t n = ev->axes[at].n;
	t->nbad = sl_arena_array(a, n, sizeof *t->nbad);
	t->nall = sl_arena_array(a, n, sizeof *t->nall);
	t->worst = sl_arena_array(a, n, sizeof *t->worst);
	t->worst_combo = sl_arena_array(a, n, sizeof *t->worst_combo);
	uint32_t *idx = sl_eval_combo(a, ev, SIZE_MAX, 0);
	do {
		struct sl_settings s;
		const struct sl_model *m;
		if (!sl_eval_settings(ev, idx, &s, &m))
			continue;
		uint64_t bytes = fn(ev, &s, m);
		t->nall[idx[at]]++;
		if (bytes <= limit)
			continue;
		t->nbad[idx[at]]++;
		if (bytes > t->worst[idx[at]]) {
			t->worst[idx[at]] = bytes;
			t->worst_combo[idx[at]] = sl_arena_array(a, ev->naxes, sizeof *idx);
			memcpy(t->worst_combo[idx[at]], idx, ev->naxes * sizeof *idx);
		}
	} while (sl_eval_next(ev, idx));
}

/* The first largest measure among the combinations with value j on axis i: by a pinned walk, or by all. */
static const uint32_t *first_largest(struct sl_arena *a, const struct sl_eval *ev, size_t i, uint32_t j,
				     enum sl_measure what, bool walk, uint64_t *weight)
{
	uint32_t *best = NULL;
	uint64_t bb = 0;
	*weight = 0;
	struct sl_eval_walk w;
	sl_eval_walk_init(a, ev, walk ? sl_eval_unread_roles(ev, what) : 0, &w);
	sl_eval_walk_pin(&w, i, j);
	do {
		*weight += w.weight;
		struct sl_settings s;
		const struct sl_model *m;
		if (!sl_eval_settings(ev, w.idx, &s, &m))
			continue;
		uint64_t bytes = measures[what](ev, &s, m);
		if (!best || bytes > bb) {
			best = sl_arena_array(a, ev->naxes, sizeof *best);
			memcpy(best, w.idx, ev->naxes * sizeof *best);
			bb = bytes;
		}
	} while (sl_eval_walk_next(&w));
	return best;
}

static void check_walks(struct env *e, struct sl_arena *a, const struct sl_eval *ev, uint64_t *r, int case_no,
			uint64_t *skipped)
{
	(void)e;
	size_t n = ev->naxes;
	for (int what = 0; what < NMEASURES; what++) {
		struct sl_eval_walk w;
		sl_eval_walk_init(a, ev, sl_eval_unread_roles(ev, (enum sl_measure)what), &w);
		*skipped += w.weight > 1;
		/* a limit some combinations pass: a fraction of the capacity (host RAM: of 64 GiB) */
		uint64_t scale = what == SL_MEASURE_HOST ? (uint64_t)64 << 30 : ev->capacity;
		uint64_t limit = scale / 8 * (1 + pick(r, 12));
		for (size_t at = 0; at < n; at++) {
			struct sl_memrule_tally got, want;
			sl_memrule_tally(a, ev, at, limit, (enum sl_measure)what, measures[what], &got);
			full_tally(a, ev, at, limit, measures[what], &want);
			for (size_t j = 0; j < ev->axes[at].n; j++) {
				if (got.nall[j] != want.nall[j] || got.nbad[j] != want.nbad[j] ||
				    got.worst[j] != want.worst[j] || !got.worst_combo[j] != !want.worst_combo[j] ||
				    (want.worst_combo[j] && memcmp(got.worst_combo[j], want.worst_combo[j],
								   n * sizeof *want.worst_combo[j]) != 0))
					fail_msg("case %d measure %d axis %s value %zu: %llu/%llu of %llu/%llu, worst %llu/%llu",
						 case_no, what, ev->axes[at].key, j, (unsigned long long)got.nbad[j],
						 (unsigned long long)want.nbad[j], (unsigned long long)got.nall[j],
						 (unsigned long long)want.nall[j], (unsigned long long)got.worst[j],
						 (unsigned long long)want.worst[j]);
			}
			for (uint32_t j = 0; j < ev->axes[at].n; j++) {
				uint64_t gw, ww;
				const uint32_t *g = first_largest(a, ev, at, j, (enum sl_measure)what, true, &gw);
				const uint32_t *f = first_largest(a, ev, at, j, (enum sl_measure)what, false, &ww);
				if (gw != ww || !g != !f || (f && memcmp(g, f, n * sizeof *f) != 0))
					fail_msg("case %d measure %d axis %s value %u: pinned walk differs (weights %llu/%llu)",
						 case_no, what, ev->axes[at].key, j, (unsigned long long)gw,
						 (unsigned long long)ww);
			}
		}
	}
	/* combinations judged on stated settings, counted over every combination */
	if (!ev->cells)
		return;
	bool bounds = false;
	for (size_t i = 0; i < n; i++)
		bounds |= ev->axes[i].bounds;
	if (bounds)
		return;
	uint64_t nstated = 0;
	uint32_t *idx = sl_eval_combo(a, ev, SIZE_MAX, 0);
	do
		nstated += sl_eval_verdict(ev, idx) != SL_VERDICT_UNKNOWN && sl_eval_assumed(ev, idx) == 0;
	while (sl_eval_next(ev, idx));
	struct sl_count want = nstated ? sl_count_mul(ev->others, (struct sl_count){.value = nstated}) : (struct sl_count){0};
	if (memcmp(&want, &ev->stated, sizeof want) != 0)
		fail_msg("case %d: %llu combinations on stated settings, counted %llu", case_no,
			 (unsigned long long)want.value, (unsigned long long)ev->stated.value);
}

static void test_walks_equal_every_combination(void **state)
{
	struct env *e = *state;
	uint64_t r = 0x94D049BB133111EBull;
	uint64_t combos = 0, skipped = 0;
	for (int i = 0; i < 400; i++) {
		struct sl_arena *a = sl_arena_new();
		const char *config = NULL, *sets[16];
		size_t nsets = 0;
		const char *text = random_sweep(a, &r, &config, sets, &nsets);
		const struct sl_gpu *gpu = &e->cat->gpus[pick(&r, e->cat->ngpus)];
		double headroom = 0.5 + (double)pick(&r, 6) / 10;
		uint32_t gpus = (uint32_t)pick(&r, 3);
		struct sl_eval *ev = random_eval(e, a, text, config, sets, nsets, gpu, headroom, gpus, 600, false, i);
		if (!ev->too_many) {
			check_walks(e, a, ev, &r, i, &skipped);
			combos += ev->ncombos;
		}
		sl_arena_free(a);
	}
	print_message("%llu combinations, %llu walks held an axis\n", (unsigned long long)combos,
		      (unsigned long long)skipped);
	assert_true(combos > 20000);
	assert_true(skipped > 100); /* the walks did skip axes */
}

static bool same_combo(const uint32_t *x, const uint32_t *y, size_t n)
{
	return (!x && !y) || (x && y && memcmp(x, y, n * sizeof *x) == 0);
}

static void test_held_equals_exhaustive(void **state)
{
	struct env *e = *state;
	uint64_t r = 0xBF58476D1CE4E5B9ull;
	uint64_t combos = 0, cells = 0, oom = 0;
	for (int i = 0; i < 1500; i++) {
		struct sl_arena *a = sl_arena_new();
		const char *config = NULL, *sets[16];
		size_t nsets = 0;
		const char *text = random_sweep(a, &r, &config, sets, &nsets);
		/*
		 * axes the peak does not read, under other spellings than random_sweep's keys, first (held
		 * axes before the others: the order of the combinations is not the cells' order)
		 */
		const char *held = sl_arena_printf(a, "%s%s%s", pick(&r, 4) ? "  workers: {values: [0, 2, 8]}\n" : "",
						   pick(&r, 2) ? "  eval_batch_size: {values: [4, 64, 1024]}\n" : "",
						   pick(&r, 3) ? "" : "  pin_memory: {values: [true, false]}\n");
		const char *at = strstr(text, "parameters:\n") + strlen("parameters:\n");
		text = sl_arena_printf(a, "%.*s%s%s", (int)(at - text), text, held, at);
		if (pick(&r, 6) == 0) {
			/* nothing with a place in the file but the held axes: blame falls back to them */
			static const char *const fixed[] = {"model=gpt2", "batch_size=256", "seq_len=2048"};
			text = sl_arena_printf(a, "program: train.py\nmethod: grid\nparameters:\n%s%s", held,
					       pick(&r, 2) ? "  gradient_accumulation_steps: {values: [1, 4]}\n" : "");
			config = NULL;
			nsets = 0;
			for (size_t k = 0; k < 3; k++)
				sets[nsets++] = fixed[k];
		}
		const struct sl_gpu *gpu = &e->cat->gpus[pick(&r, e->cat->ngpus)];
		double headroom = 0.5 + (double)pick(&r, 6) / 10;
		uint32_t gpus = (uint32_t)pick(&r, 3);
		struct sl_eval *x = random_eval(e, a, text, config, sets, nsets, gpu, headroom, gpus, 3000, false, i);
		struct sl_eval *y = random_eval(e, a, text, config, sets, nsets, gpu, headroom, gpus, 3000, true, i);
		assert_int_equal(x->naxes, y->naxes);
		assert_int_equal(x->ncombos, y->ncombos);
		assert_int_equal(x->too_many, y->too_many);
		if (!y->cells) {
			assert_null(x->cells);
			sl_arena_free(a);
			continue;
		}
		size_t n = x->naxes;
		combos += x->ncombos;
		cells += x->ncells;
		oom += y->u[SL_VERDICT_OOM];
		uint32_t *idx = sl_eval_combo(a, x, SIZE_MAX, 0);
		do
			if (sl_eval_cell(x, idx) != sl_eval_cell(y, idx))
				fail_msg("case %d: combination %s: cell %u, exhaustive %u", i, sl_eval_describe(a, x, idx, SIZE_MAX),
					 sl_eval_cell(x, idx), sl_eval_cell(y, idx));
		while (sl_eval_next(x, idx));
		if (memcmp(x->n, y->n, sizeof x->n) != 0 || memcmp(x->u, y->u, sizeof x->u) != 0 ||
		    memcmp(&x->total, &y->total, sizeof x->total) != 0 ||
		    memcmp(&x->stated, &y->stated, sizeof x->stated) != 0 ||
		    memcmp(&x->assumed, &y->assumed, sizeof x->assumed) != 0 || x->worst != y->worst ||
		    !same_combo(x->worst_combo, y->worst_combo, n))
			fail_msg("case %d: the sweep's counts or worst differ", i);
		for (size_t k = 0; k < n; k++)
			for (size_t j = 0; j < x->axes[k].n; j++) {
				const struct sl_eval_value *v = &x->axes[k].values[j], *w = &y->axes[k].values[j];
				bool same = memcmp(v->n, w->n, sizeof v->n) == 0 && memcmp(v->u, w->u, sizeof v->u) == 0 &&
					    v->worst == w->worst && v->best == w->best &&
					    same_combo(v->worst_combo, w->worst_combo, n) &&
					    memcmp(v->blamed, w->blamed, sizeof v->blamed) == 0 &&
					    memcmp(v->blame_q, w->blame_q, sizeof v->blame_q) == 0 && v->hopeless == w->hopeless;
				for (int vd = 0; vd < SL_VERDICT__COUNT; vd++)
					same &= same_combo(v->blame_combo[vd], w->blame_combo[vd], n);
				if (!same)
					fail_msg("case %d: %s differs from the exhaustive evaluation", i,
						 sl_eval_value_name(a, &x->axes[k], v));
			}
		sl_arena_free(a);
	}
	print_message("%llu combinations in %llu cells, %llu oom\n", (unsigned long long)combos,
		      (unsigned long long)cells, (unsigned long long)oom);
	assert_true(combos > 100000);
	assert_true(cells * 2 < combos); /* axes were held */
	assert_true(oom > 1000);          /* blame was exercised */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unread_roles_are_unread),
		cmocka_unit_test(test_walks_equal_every_combination),
		cmocka_unit_test(test_held_equals_exhaustive),
	};
	return cmocka_run_group_tests(tests, random_env_setup, random_env_teardown);
}
