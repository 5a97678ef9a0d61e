/*
 * test_parse_cache: program following's parse cache and time budget (src/program/cache.c,
 * pyread.c; issue 34, program-parse-time). A file parsed once is not parsed again while its realpath,
 * inode, size and mtime stay; a change parses it again; a parse stopped at a deadline is kept with that
 * deadline and not started again with no more time, but is with more; a spent budget parses nothing;
 * a run's config files are parsed once (sl_config_memo).
 * Needs python3 on PATH (skips without it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/program.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

static char dir[256];

static bool have_python(void)
{
	return system("python3 -c pass >/dev/null 2>&1") == 0;
}

static const char *put(struct sl_arena *a, const char *name, const char *text)
{
	const char *p = sl_arena_printf(a, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "%s/sweeplint-cache-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static void test_cached_until_changed(void **state)
{
	(void)state;
	if (!have_python())
		skip();
	struct sl_arena *a = sl_arena_new();
	struct sl_parse_cache *c = sl_parse_cache_new();
	long long budget = SL_PROGRAM_BUDGET_MS;
	struct sl_program_opts o = {.cache = c, .budget_ms = &budget};
	const char *p = put(a, "train.py", "from transformers import TrainingArguments\n"
					   "TrainingArguments(per_device_train_batch_size=16)\n");
	size_t hits, misses;
	struct sl_pyread *r = sl_pyread_file(a, p, &o);
	assert_null(r->error);
	assert_int_equal(r->settings->n, 1);
	long long after_first = budget;
	assert_true(after_first < SL_PROGRAM_BUDGET_MS); /* the parse spent some of the budget */
	sl_parse_cache_stats(c, &hits, &misses);
	assert_int_equal(hits, 0);
	assert_int_equal(misses, 1);
	/* again (another sweep, another lint): no python3, no time spent, the same settings */
	for (int i = 0; i < 5; i++) {
		r = sl_pyread_file(a, p, &o);
		assert_null(r->error);
		assert_int_equal(r->settings->n, 1);
		assert_int_equal(r->settings->entries[0].node->value.i, 16);
	}
	assert_int_equal(budget, after_first);
	sl_parse_cache_stats(c, &hits, &misses);
	assert_int_equal(hits, 5);
	assert_int_equal(misses, 1);
	/* an edit (same size, a newer mtime): parsed again */
	put(a, "train.py", "from transformers import TrainingArguments\n"
			   "TrainingArguments(per_device_train_batch_size=32)\n");
	struct timespec ts[2] = {{0, UTIME_OMIT}, {time(NULL) + 5, 0}};
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	r = sl_pyread_file(a, p, &o);
	assert_null(r->error);
	assert_int_equal(r->settings->entries[0].node->value.i, 32);
	sl_parse_cache_stats(c, &hits, &misses);
	assert_int_equal(misses, 2);
	sl_parse_cache_free(c);
	sl_arena_free(a);
}

static void test_budget(void **state)
{
	(void)state;
	if (!have_python())
		skip();
	struct sl_arena *a = sl_arena_new();
	struct sl_parse_cache *c = sl_parse_cache_new();
	/* quadratic f-string parsing: seconds of python 3.11 for 200 KB */
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_adds(&b, "x = f'");
	for (int i = 0; i < 66000; i++)
		sl_buf_adds(&b, "{a}");
	sl_buf_adds(&b, "'\n");
	sl_buf_addc(&b, '\0');
	const char *slow = put(a, "slow.py", b.buf);
	long long budget = 300;
	struct sl_program_opts o = {.cache = c, .budget_ms = &budget};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct sl_pyread *r = sl_pyread_file(a, slow, &o);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!r->error)
		skip(); /* a machine fast enough to parse it within 0.3 s proves nothing here */
	assert_non_null(strstr(r->error, "did not read it within the 0.3 s left"));
	assert_true(took < 2.0);
	assert_true(budget <= 0);
	/* the budget is spent: another file is not parsed at all */
	const char *quick = put(a, "quick.py", "import os\n");
	r = sl_pyread_file(a, quick, &o);
	assert_non_null(r->error);
	assert_non_null(strstr(r->error, "this run gives to reading programs is spent"));
	/* a new run (another lint) with no more time than the cut: the slow file is answered from the cache */
	size_t hits, misses, h2, m2;
	sl_parse_cache_stats(c, &hits, &misses);
	budget = 300;
	r = sl_pyread_file(a, slow, &o);
	assert_non_null(strstr(r->error, "did not read it within"));
	sl_parse_cache_stats(c, &h2, &m2);
	assert_int_equal(h2, hits + 1);
	assert_int_equal(budget, 300);
	/* with more time it is tried again */
	budget = 600;
	r = sl_pyread_file(a, slow, &o);
	sl_parse_cache_stats(c, &h2, &m2);
	assert_int_equal(m2, misses + 1);
	assert_true(budget < 600);
	sl_parse_cache_free(c);
	sl_arena_free(a);
}

/* A run's config files are parsed once: the same file gives the same config, an edited one is read again. */
static void test_config_memo(void **state)
{
	(void)state;
	struct sl_arena *run = sl_arena_new(), *sweep = sl_arena_new();
	struct sl_config_memo *m = sl_config_memo_new(run);
	const char *p = put(sweep, "cfg.yaml", "model:\n  name: gpt2\nbatch: 8\n");
	struct sl_trainer *t1 = NULL, *t2 = NULL;
	const char *why = NULL;
	assert_int_equal(sl_config_memo_load(m, sweep, p, NULL, &t1, &why), 0);
	assert_int_equal(sl_config_memo_load(m, sweep, p, NULL, &t2, &why), 0);
	assert_ptr_equal(t1, t2);
	assert_int_equal(sl_config_memo_loads(m), 1);
	assert_int_equal(t1->n, 2);
	sl_arena_free(sweep); /* the config lives in the run's arena: it outlasts the sweep that read it */
	assert_string_equal(sl_trainer_get(t1, "model.name")->node->text, "gpt2");
	sweep = sl_arena_new();
	p = put(sweep, "cfg.yaml", "model:\n  name: t5-small\nbatch: 8\n");
	struct timespec ts[2] = {{0, UTIME_OMIT}, {time(NULL) + 7, 0}};
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	assert_int_equal(sl_config_memo_load(m, sweep, p, NULL, &t2, &why), 0);
	assert_int_equal(sl_config_memo_loads(m), 2);
	assert_string_equal(sl_trainer_get(t2, "model.name")->node->text, "t5-small");
	/* a failure is kept too */
	const char *bad = put(sweep, "bad.yaml", "a: [\n");
	assert_true(sl_config_memo_load(m, sweep, bad, NULL, &t2, &why) < 0);
	assert_non_null(why);
	assert_true(sl_config_memo_load(m, sweep, bad, NULL, &t2, &why) < 0);
	assert_int_equal(sl_config_memo_loads(m), 3);
	sl_arena_free(sweep);
	sl_arena_free(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cached_until_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_memo, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
