/*
 * test_rewrite: src/rewrite/ without the memory model — pruning and the
 * staircase cover over hand-made verdict tables, safe file names, run_cap
 * shares and the unified diff from splices (the writer: test_write). Every
 * expected value is written out by hand (or follows from the table's
 * definition), never produced by the code under test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/edit.h"
#include "sweeplint/rewrite.h"
#include "sweeplint/source.h"
#include "sweeplint/split.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

/* ---- a sweep and a hand-made evaluation over two of its lists ---- */

static const char grid_yaml[] = "method: grid\n"
				"parameters:\n"
				"  batch:\n"
				"    values: [8, 16, 32, 64, 128]\n"
				"  len:\n"
				"    values: [128, 256, 512]\n";

static const uint64_t batches[] = {8, 16, 32, 64, 128};
static const uint64_t lens[] = {128, 256, 512};

struct world {
	struct sl_arena *a;
	struct sl_sweep *sw;
	struct sl_eval ev;
	struct sl_eval_axis axes[2];
	struct sl_rewrite rw;
	struct sl_edits e;
	struct sl_source *src;
	struct sl_scalar_resolver *res;
};

/* fits(b, l): the verdict of batch b at length l */
static void build(struct world *w, bool (*fits)(uint64_t, uint64_t))
{
	w->a = sl_arena_new();
	w->res = sl_scalar_resolver_new(w->a);
	struct sl_diags d;
	sl_diags_init(&d, w->a);
	w->src = sl_source_from_bytes(w->a, "grid.yaml", grid_yaml, sizeof grid_yaml - 1);
	struct sl_ydoc *doc = sl_ydoc_parse(w->a, w->src, w->res, &d);
	assert_true(doc->ok);
	w->sw = sl_sweep_load(w->a, doc);
	const char *keys[2] = {"batch", "len"};
	size_t n[2] = {5, 3};
	for (size_t i = 0; i < 2; i++) {
		struct sl_eval_axis *ax = &w->axes[i];
		memset(ax, 0, sizeof *ax);
		ax->origin = SL_AXIS_SWEEP;
		ax->key = keys[i];
		ax->param = sl_sweep_param(w->sw, keys[i]);
		assert_non_null(ax->param);
		ax->n = n[i];
		ax->values = sl_arena_array(w->a, n[i], sizeof *ax->values);
		for (size_t j = 0; j < n[i]; j++) {
			ax->values[j].node = ax->param->values->items[j];
			ax->values[j].text = ax->param->values->items[j]->text;
			ax->values[j].ok = true;
		}
	}
	w->axes[0].stride = w->axes[0].cell_stride = 3; /* last axis fastest */
	w->axes[1].stride = w->axes[1].cell_stride = 1;
	memset(&w->ev, 0, sizeof w->ev);
	w->ev.sweep = w->sw;
	w->ev.axes = w->axes;
	w->ev.naxes = 2;
	w->ev.cells = sl_arena_array(w->a, 15, sizeof *w->ev.cells);
	for (size_t b = 0; b < 5; b++)
		for (size_t l = 0; l < 3; l++)
			w->ev.cells[b * 3 + l] =
				(uint16_t)((fits(batches[b], lens[l]) ? SL_VERDICT_FIT : SL_VERDICT_OOM) << 14);
	const char *why = NULL;
	assert_int_equal(sl_rewrite_init(&w->rw, w->a, &w->ev, w->res, &why), 0);
	sl_edits_init(&w->e, w->a, w->src);
}

/* tokens: batch × len <= 8192, batch 128 never */
static bool staircase(uint64_t b, uint64_t l)
{
	return b < 128 && b * l <= 8192;
}

static void test_prune_drops_values_that_fit_nowhere(void **state)
{
	(void)state;
	struct world w;
	build(&w, staircase);
	assert_int_equal(w.rw.axes[0].kind, SL_RW_LIST);
	struct sl_box *b = sl_box_whole(&w.rw);
	/* 15 combinations: fitting 4 + 3 + 2 (lengths 128, 256, 512); batch 128 fits nowhere */
	assert_int_equal(b->n[SL_RW_FEASIBLE], 9);
	assert_int_equal(b->n[SL_RW_OOM], 6);
	assert_int_equal(sl_rewrite_prune(&w.rw, b), 1);
	assert_false(b->keep[0][4]);
	for (size_t j = 0; j < 4; j++)
		assert_true(b->keep[0][j]);
	for (size_t j = 0; j < 3; j++)
		assert_true(b->keep[1][j]);
	assert_int_equal(b->n[SL_RW_FEASIBLE], 9);
	assert_int_equal(b->n[SL_RW_OOM], 3);
	/* the fixed point: a second prune changes nothing */
	assert_int_equal(sl_rewrite_prune(&w.rw, b), 0);

	const char *why = NULL;
	assert_int_equal(sl_rewrite_edits(&w.rw, b, &w.e, &why), 0);
	struct sl_buf out;
	assert_int_equal(sl_edits_apply(&w.e, &out), 0);
	assert_string_equal(out.buf, "method: grid\n"
				     "parameters:\n"
				     "  batch:\n"
				     "    values: [8, 16, 32, 64]\n"
				     "  len:\n"
				     "    values: [128, 256, 512]\n");
	sl_arena_free(w.a);
}

static void test_cover_is_the_staircase(void **state)
{
	(void)state;
	struct world w;
	build(&w, staircase);
	struct sl_box *whole = sl_box_whole(&w.rw);
	struct sl_box **parts = NULL;
	size_t n = 0;
	const char *why = NULL;
	assert_int_equal(sl_rewrite_cover(&w.rw, whole, &parts, &n, &why), 0);
	/* three steps: {8..64} × 128, {8..32} × 256, {8,16} × 512 (or the same steps cut by batch) */
	assert_int_equal(n, 3);
	uint64_t total = 0;
	bool seen[15] = {false};
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(parts[k]->n[SL_RW_OOM], 0);
		total += parts[k]->n[SL_RW_FEASIBLE];
		for (size_t b = 0; b < 5; b++)
			for (size_t l = 0; l < 3; l++)
				if (parts[k]->keep[0][b] && parts[k]->keep[1][l]) {
					assert_true(staircase(batches[b], lens[l]));
					assert_false(seen[b * 3 + l]); /* disjoint */
					seen[b * 3 + l] = true;
				}
	}
	assert_int_equal(total, 9);
	for (size_t b = 0; b < 5; b++)
		for (size_t l = 0; l < 3; l++)
			assert_int_equal(seen[b * 3 + l], staircase(batches[b], lens[l]));
	sl_arena_free(w.a);
}

/* a checkerboard is not a staircase: still covered exactly, with more boxes */
static bool checker(uint64_t b, uint64_t l)
{
	size_t bi = 0, li = 0;
	while (batches[bi] != b)
		bi++;
	while (lens[li] != l)
		li++;
	return (bi + li) % 2 == 0;
}

static void test_cover_any_pattern(void **state)
{
	(void)state;
	struct world w;
	build(&w, checker);
	struct sl_box **parts = NULL;
	size_t n = 0;
	const char *why = NULL;
	assert_int_equal(sl_rewrite_cover(&w.rw, sl_box_whole(&w.rw), &parts, &n, &why), 0);
	/* rows of equal pattern: batches {8,32,128} fit at lens {128,512}, {16,64} at {256}: two boxes */
	assert_int_equal(n, 2);
	uint64_t total = 0;
	for (size_t k = 0; k < n; k++) {
		assert_int_equal(parts[k]->n[SL_RW_OOM], 0);
		total += parts[k]->n[SL_RW_FEASIBLE];
	}
	assert_int_equal(total, 8);
	sl_arena_free(w.a);
}

static bool nothing(uint64_t b, uint64_t l)
{
	(void)b, (void)l;
	return false;
}

static void test_prune_keeps_a_sweep_where_nothing_fits(void **state)
{
	(void)state;
	struct world w;
	build(&w, nothing);
	struct sl_box *b = sl_box_whole(&w.rw);
	assert_int_equal(sl_rewrite_prune(&w.rw, b), 0);
	assert_int_equal(b->n[SL_RW_FEASIBLE], 0);
	for (size_t j = 0; j < 5; j++)
		assert_true(b->keep[0][j]); /* never an empty list */
	struct sl_box **parts = NULL;
	size_t n = 1;
	const char *why = NULL;
	assert_int_equal(sl_rewrite_cover(&w.rw, b, &parts, &n, &why), 0);
	assert_int_equal(n, 0);
	sl_arena_free(w.a);
}

/* ---- names ---- */

static void test_safe_names(void **state)
{
	(void)state;
	struct sl_arena *a = sl_arena_new();
	assert_string_equal(sl_split_safe_name(a, "BAAI/bge-m3"), "BAAI_bge-m3");
	assert_string_equal(sl_split_safe_name(a, "../../etc/passwd"), "____etc_passwd");
	assert_string_equal(sl_split_safe_name(a, "-rf"), "_rf");
	assert_string_equal(sl_split_safe_name(a, ".hidden"), "_hidden");
	assert_string_equal(sl_split_safe_name(a, "v1."), "v1_");
	assert_string_equal(sl_split_safe_name(a, "..."), "_");
	assert_string_equal(sl_split_safe_name(a, ""), "_");
	assert_string_equal(sl_split_safe_name(a, "a\x01" "b\tc d"), "a_b_c_d");
	assert_string_equal(sl_split_safe_name(a, "a\\b:c"), "a_b_c");
	assert_string_equal(sl_split_safe_name(a, "한국어-모델"), "한국어-모델");
	assert_string_equal(sl_split_safe_name(a, "bad\xff" "utf8"), "bad_utf8");
	assert_string_equal(sl_split_safe_name(a, "lr=1.0e-5"), "lr=1.0e-5");
	/* deceptive names (issue 15): no bidi control, zero-width character, combining mark or look-alike slash */
	assert_string_equal(sl_split_safe_name(a, "model\u202Elmay.exe"), "model_lmay.exe");
	assert_string_equal(sl_split_safe_name(a, "a\u2066b\u200Bc\uFEFFd"), "a_b_c_d");
	assert_string_equal(sl_split_safe_name(a, "caf\u00e9"), "caf\u00e9");       /* NFC é kept */
	assert_string_equal(sl_split_safe_name(a, "cafe\u0301"), "cafe_");           /* NFD é is not */
	assert_string_equal(sl_split_safe_name(a, "BAAI\uFF0Fbge\u2215m3\u2044x"), "BAAI_bge_m3_x");
	assert_string_equal(sl_split_safe_name(a, "\uFF0E\uFF0E\uFF0Fetc"), "___etc");
	assert_string_equal(sl_split_safe_name(a, "\u212Aelvin"), "_elvin");           /* Kelvin sign, not K */
	assert_string_equal(sl_split_safe_name(a, "x\xc2\x9b" "1m"), "x_1m");          /* C1 CSI */
	assert_string_equal(sl_split_safe_name(a, "\xed\xa0\x80" "s"), "___s"); /* a surrogate: each byte */
	assert_string_equal(sl_split_safe_name(a, "\xe0\x80\xaf" "s"), "___s"); /* overlong '/' */
	assert_string_equal(sl_split_safe_name(a, "Ti\u1EBFng-Vi\u1EC7t \u0395\u03BB\u03BB\u03B7\u03BD\u03B9\u03BA\u03AC \u0420\u0443\u0441"),
			    "Ti\u1EBFng-Vi\u1EC7t_\u0395\u03BB\u03BB\u03B7\u03BD\u03B9\u03BA\u03AC_\u0420\u0443\u0441");
	assert_string_equal(sl_split_safe_name(a, "\u65e5\u672c\u8a9e\u30e2\u30c7\u30eb"), "\u65e5\u672c\u8a9e\u30e2\u30c7\u30eb");
	char longv[201];
	memset(longv, 'a', 200);
	longv[200] = '\0';
	assert_int_equal(strlen(sl_split_safe_name(a, longv)), 80);
	sl_arena_free(a);
}

static void test_names_and_stems(void **state)
{
	(void)state;
	struct sl_arena *a = sl_arena_new();
	const char *stem, *ext;
	sl_split_stem(a, "runs/sweep.yml", &stem, &ext);
	assert_string_equal(stem, "sweep");
	assert_string_equal(ext, ".yml");
	sl_split_stem(a, "a.b.yaml", &stem, &ext);
	assert_string_equal(stem, "a.b");
	assert_string_equal(ext, ".yaml");
	sl_split_stem(a, "sweep", &stem, &ext);
	assert_string_equal(stem, "sweep");
	assert_string_equal(ext, ".yaml");

	const char *parts[] = {"BAAI/bge-m3", "BAAI_bge-m3", "Base", "base", NULL, "x"};
	const char *out[6];
	sl_split_names(a, "sweep", ".yaml", parts, 6, "sweep.x.yaml", out);
	assert_string_equal(out[0], "sweep.BAAI_bge-m3.yaml");
	assert_string_equal(out[1], "sweep.BAAI_bge-m3-2.yaml");
	assert_string_equal(out[2], "sweep.Base.yaml");
	assert_string_equal(out[3], "sweep.base-2.yaml"); /* same name on a case-blind disk */
	assert_string_equal(out[4], "sweep.yaml");
	assert_string_equal(out[5], "sweep.x-2.yaml");   /* not the reserved name */

	/* non-ASCII letters that a case-blind disk folds alike (issue 15) */
	const char *uparts[] = {"\u00c9t\u00e9", "\u00e9t\u00e9", "\u00c9T\u00c9", "\u0394", "\u03b4", "\u0416",
				"\u0436", "stra\u00dfe", "STRASSE", "\u0100", "\u0101", "\u1EA0", "\u1EA1", "\u0139", "\u013a",
				"\u00ff", "\u0178"};
	const char *uout[17];
	sl_split_names(a, "s", ".yaml", uparts, 17, "S.\u00c9T\u00c9-4.YAML", uout);
	assert_string_equal(uout[0], "s.\u00c9t\u00e9.yaml");
	assert_string_equal(uout[1], "s.\u00e9t\u00e9-2.yaml");
	assert_string_equal(uout[2], "s.\u00c9T\u00c9-3.yaml");
	for (size_t i = 3; i < 17; i += 2)
		assert_string_equal(uout[i + 1], sl_arena_printf(a, "s.%s-2.yaml", uparts[i + 1]));
	sl_split_names(a, "s", ".yaml", uparts, 4, "S.\u00c9T\u00c9-3.YAML", uout);
	assert_string_equal(uout[2], "s.\u00c9T\u00c9-4.yaml"); /* not the reserved name, in any case */
	sl_arena_free(a);
}

static void test_run_caps(void **state)
{
	(void)state;
	uint64_t caps[3];
	/* 37 spare runs over 12:4:4 = 22.2, 7.4, 7.4: floors 22, 7, 7 and one more to a .4 */
	sl_split_run_caps(40, (const uint64_t[]){12, 4, 4}, 3, caps);
	assert_int_equal(caps[0], 23);
	assert_int_equal(caps[1] + caps[2], 17);
	assert_true(caps[1] == 9 || caps[2] == 9);
	/* fewer runs than sweeps: the shares cannot sum to the cap (one each would run 3 where W&B ran 2) */
	assert_false(sl_split_run_caps(2, (const uint64_t[]){5, 5, 5}, 3, caps));
	assert_true(sl_split_run_caps(3, (const uint64_t[]){5, 5, 5}, 3, caps));
	assert_int_equal(caps[0] + caps[1] + caps[2], 3);
	assert_true(sl_split_run_caps(10, (const uint64_t[]){1, 0}, 2, caps));
	assert_int_equal(caps[0], 9);
	assert_int_equal(caps[1], 1);
}

/* ---- diff ---- */

static void diff_of(const char *text, const char *from, const char *to, const char *want)
{
	struct sl_arena *a = sl_arena_new();
	struct sl_source *src = sl_source_from_bytes(a, "f", text, strlen(text));
	struct sl_edits e;
	sl_edits_init(&e, a, src);
	const char *at = strstr(text, from);
	assert_non_null(at);
	size_t start = (size_t)(at - text);
	assert_int_equal(sl_edits_splice(&e, start, start + strlen(from), to, strlen(to)), 0);
	struct sl_edit *v;
	size_t n;
	assert_int_equal(sl_edits_list(&e, &v, &n), 0);
	struct sl_buf out;
	sl_buf_init(&out, a);
	sl_rewrite_diff(&out, src, v, n, "a/f", "b/f", 1);
	assert_string_equal(out.buf, want);
	sl_arena_free(a);
}

static void test_diff_cases(void **state)
{
	(void)state;
	/* a removed line, one line of context */
	diff_of("a\nb\nc\nd\n", "c\n", "", "--- a/f\n+++ b/f\n@@ -2,3 +2,2 @@\n b\n-c\n d\n");
	/* a changed line in the middle */
	diff_of("x: [1, 2, 3]\ny: 1\n", ", 3", "", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-x: [1, 2, 3]\n+x: [1, 2]\n y: 1\n");
	/* the last line without a final newline */
	diff_of("a\nb: 2", "2", "3",
		"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b: 2\n\\ No newline at end of file\n+b: 3\n"
		"\\ No newline at end of file\n");
	/* a deleted first line */
	diff_of("a\nb\nc\n", "a\n", "", "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-a\n b\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prune_drops_values_that_fit_nowhere),
		cmocka_unit_test(test_cover_is_the_staircase),
		cmocka_unit_test(test_cover_any_pattern),
		cmocka_unit_test(test_prune_keeps_a_sweep_where_nothing_fits),
		cmocka_unit_test(test_safe_names),
		cmocka_unit_test(test_names_and_stems),
		cmocka_unit_test(test_run_caps),
		cmocka_unit_test(test_diff_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
