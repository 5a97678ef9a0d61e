/* test_diag: severities, error names, the diagnostic list, its order and counts. */
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
#include "sweeplint/source.h"

static struct sl_arena *A;

static int setup(void **state)
{
	(void)state;
	A = sl_arena_new();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sl_arena_free(A);
	return 0;
}

static void test_severity_names(void **state)
{
	(void)state;
	const char *names[] = {"off", "info", "warning", "error"};
	for (int i = 0; i < SL_SEV__COUNT; i++) {
		assert_string_equal(sl_severity_name((enum sl_severity)i), names[i]);
		assert_int_equal(sl_severity_parse(names[i]), i);
	}
	assert_int_equal(sl_severity_parse("fatal"), -1);
	assert_int_equal(sl_severity_parse("Error"), -1); /* exact spelling only */
	assert_int_equal(sl_severity_parse(""), -1);
	/* severities are ordered: a higher value is more severe */
	assert_true(SL_SEV_ERROR > SL_SEV_WARNING && SL_SEV_WARNING > SL_SEV_INFO && SL_SEV_INFO > SL_SEV_OFF);
}

static void test_strerror(void **state)
{
	(void)state;
	for (int e = 0; e < SL_ERR__COUNT; e++) {
		const char *s = sl_strerror(e);
		assert_non_null(s);
		assert_true(strlen(s) > 0);
		/* -SL_E* is what functions return: the same name */
		assert_string_equal(sl_strerror(-e), s);
		for (int k = 0; k < e; k++)
			assert_string_not_equal(sl_strerror(k), s);
	}
	assert_string_equal(sl_strerror(SL_ERR__COUNT + 5), "unknown error");
}

static void test_add_formats_and_keeps_fields(void **state)
{
	(void)state;
	struct sl_source *src = sl_source_from_bytes(A, "a.yaml", "x: 1\ny: 2\n", 10);
	struct sl_diags d;
	sl_diags_init(&d, A);
	struct sl_span sp = sl_source_span(src, 5, 9);
	struct sl_diag *g = sl_diags_add(&d, "oom", SL_SEV_ERROR, src, sp, "batch %d needs %s", 256, "93.4 GiB");
	assert_non_null(g);
	assert_string_equal(g->message, "batch 256 needs 93.4 GiB");
	assert_null(g->hint);
	assert_string_equal(g->rule, "oom");
	assert_int_equal(g->severity, SL_SEV_ERROR);
	assert_ptr_equal(g->src, src);
	assert_int_equal(g->span.line, 2);
	assert_int_equal(g->span.col, 1);
	assert_int_equal(d.n, 1);
}

static void test_growth_keeps_every_entry(void **state)
{
	(void)state;
	struct sl_source *src = sl_source_from_bytes(A, "a.yaml", "x\n", 2);
	struct sl_diags d;
	sl_diags_init(&d, A);
	for (int i = 0; i < 1000; i++)
		sl_diags_add(&d, "r", SL_SEV_INFO, src, sl_source_span(src, 0, 1), "n%d", i);
	assert_int_equal(d.n, 1000);
	for (int i = 0; i < 1000; i++) {
		char want[16];
		snprintf(want, sizeof want, "n%d", i);
		assert_string_equal(d.v[i].message, want);
	}
}

/* A span at (line, col) built from the source, not typed in. */
static struct sl_span at(const struct sl_source *s, uint32_t line, uint32_t col)
{
	size_t len;
	const char *l = sl_source_line(s, line, &len);
	size_t off = (size_t)(l - s->bytes) + col - 1;
	return sl_source_span(s, off, off + 1);
}

static void test_sort_by_path_line_col_rule(void **state)
{
	(void)state;
	const char *text = "aaaa\nbbbb\ncccc\n";
	struct sl_source *s1 = sl_source_from_bytes(A, "b.yaml", text, strlen(text));
	struct sl_source *s2 = sl_source_from_bytes(A, "a.yaml", text, strlen(text));
	struct sl_diags d;
	sl_diags_init(&d, A);
	sl_diags_add(&d, "zeta", SL_SEV_INFO, s1, at(s1, 2, 3), "m1");
	sl_diags_add(&d, "alpha", SL_SEV_INFO, s1, at(s1, 2, 3), "m2");
	sl_diags_add(&d, "alpha", SL_SEV_INFO, s1, at(s1, 1, 4), "m3");
	sl_diags_add(&d, "alpha", SL_SEV_INFO, s1, at(s1, 2, 1), "m4");
	sl_diags_add(&d, "alpha", SL_SEV_INFO, s1, at(s1, 2, 2), "m5");
	sl_diags_add(&d, "omega", SL_SEV_ERROR, s2, at(s2, 3, 1), "m6");
	sl_diags_sort(&d);
	const char *order[] = {"m6", "m3", "m4", "m5", "m2", "m1"};
	assert_int_equal(d.n, 6);
	for (size_t i = 0; i < d.n; i++)
		assert_string_equal(d.v[i].message, order[i]);
	/* sorting a sorted list changes nothing */
	sl_diags_sort(&d);
	for (size_t i = 0; i < d.n; i++)
		assert_string_equal(d.v[i].message, order[i]);
}

/* The same finding twice (two settings layers holding one value at one place) is said once; a finding
 * that differs in its rule, severity, message, hint, place or file is kept. */
static void test_sort_drops_repeats(void **state)
{
	(void)state;
	const char *text = "aaaa\nbbbb\n";
	struct sl_source *s1 = sl_source_from_bytes(A, "a.py", text, strlen(text));
	struct sl_source *s2 = sl_source_from_bytes(A, "b.py", text, strlen(text));
	struct sl_diags d;
	sl_diags_init(&d, A);
	sl_diags_add(&d, "prefer-bf16", SL_SEV_INFO, s1, at(s1, 2, 1), "fp16")->hint = "use bf16";
	sl_diags_add(&d, "oom", SL_SEV_ERROR, s1, at(s1, 1, 1), "too big");
	sl_diags_add(&d, "prefer-bf16", SL_SEV_INFO, s1, at(s1, 2, 1), "fp16")->hint = "use bf16";
	sl_diags_add(&d, "prefer-bf16", SL_SEV_INFO, s1, at(s1, 2, 1), "fp16")->hint = "another hint";
	sl_diags_add(&d, "prefer-bf16", SL_SEV_WARNING, s1, at(s1, 2, 1), "fp16")->hint = "use bf16";
	sl_diags_add(&d, "prefer-bf16", SL_SEV_INFO, s1, at(s1, 2, 2), "fp16")->hint = "use bf16";
	sl_diags_add(&d, "prefer-bf16", SL_SEV_INFO, s2, at(s2, 2, 1), "fp16")->hint = "use bf16";
	sl_diags_add(&d, "oom", SL_SEV_ERROR, s1, at(s1, 1, 1), "too big");
	sl_diags_add(&d, "oom", SL_SEV_ERROR, s1, at(s1, 1, 1), "too big, twice");
	sl_diags_sort(&d);
	assert_int_equal(d.n, 7);
	size_t bf16_at_2_1 = 0, oom = 0;
	for (size_t i = 0; i < d.n; i++) {
		bf16_at_2_1 += d.v[i].src == s1 && strcmp(d.v[i].rule, "prefer-bf16") == 0 && d.v[i].span.col == 1;
		oom += strcmp(d.v[i].rule, "oom") == 0;
	}
	assert_int_equal(bf16_at_2_1, 3); /* the repeat goes; another hint, another severity stay */
	assert_int_equal(oom, 2);         /* the repeat goes; another message stays */
}

static void test_count_by_severity(void **state)
{
	(void)state;
	struct sl_source *src = sl_source_from_bytes(A, "a.yaml", "x\n", 2);
	struct sl_diags d;
	sl_diags_init(&d, A);
	int want[SL_SEV__COUNT] = {0};
	unsigned seed = 7;
	for (int i = 0; i < 50; i++) {
		seed = seed * 1103515245u + 12345u;
		enum sl_severity s = (enum sl_severity)(1 + (seed >> 16) % 3);
		want[s]++;
		sl_diags_add(&d, "r", s, src, sl_source_span(src, 0, 1), "m");
	}
	for (int s = 0; s < SL_SEV__COUNT; s++)
		assert_int_equal(sl_diags_count(&d, (enum sl_severity)s), want[s]);
	assert_int_equal(sl_diags_count(&d, SL_SEV_OFF), 0);
}

/* sl_term_safe: what a terminal must not receive raw, escaped; everything else byte for byte */
static void test_term_safe(void **state)
{
	(void)state;
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"plain 한국어 text", "plain 한국어 text"},
		{"a\x1b[2Jb\x07", "a\\x1b[2Jb\\x07"},
		{"n\nr\rt\t", "n\\nr\\rt\\t"},
		{"del\x7f", "del\\x7f"},
		{"c1 \xc2\x9b" "31m", "c1 \\u009b31m"},
		{"bidi \xe2\x80\xae" "cba \xe2\x81\xa6" "x \xe2\x80\x8f" "y \xd8\x9c", "bidi \\u202ecba \\u2066x \\u200fy \\u061c"},
		{"ls \xe2\x80\xa8 ps \xe2\x80\xa9", "ls \\u2028 ps \\u2029"},
		{"bad \xff\xfe and \xc3", "bad \\xff\\xfe and \\xc3"},
		{"overlong \xc0\xaf, surrogate \xed\xa0\x80", "overlong \\xc0\\xaf, surrogate \\xed\\xa0\\x80"},
		{"nbsp \xc2\xa0 zwj \xe2\x80\x8d", "nbsp \xc2\xa0 zwj \xe2\x80\x8d"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		assert_string_equal(sl_term_safe(A, cases[i].in), cases[i].want);
	const char *clean = "as is";
	assert_ptr_equal(sl_term_safe(A, clean), clean);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_severity_names),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test_setup_teardown(test_add_formats_and_keeps_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_growth_keeps_every_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sort_by_path_line_col_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sort_drops_repeats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_by_severity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_term_safe, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
