/*
 * test_report: the text and JSON formatters over files built by hand,
 * captured with open_memstream. Expected text follows the format of DESIGN
 * §3 (`path:line:col: severity: message [slug]`, then the summary); JSON is
 * read back with jansson and checked key by key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/report.h"
#include "sweeplint/rules.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"

static struct sl_run *R;
static char *OUT;
static size_t OUTLEN;
static FILE *SINK;

static int setup(void **state)
{
	(void)state;
	R = sl_run_new();
	SINK = open_memstream(&OUT, &OUTLEN);
	return SINK ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	if (SINK)
		fclose(SINK);
	free(OUT);
	OUT = NULL;
	SINK = NULL;
	sl_run_free(R);
	return 0;
}

static struct sl_count count(uint64_t v)
{
	struct sl_count c = {.value = v};
	return c;
}

/* A file over text with no checks run; the caller adds findings. */
static struct sl_file *file(const char *path, const char *text)
{
	struct sl_file *f = sl_arena_alloc(R->arena, sizeof *f);
	f->run = R;
	f->src = sl_source_from_bytes(R->arena, path, text, strlen(text));
	sl_diags_init(&f->diags, R->arena);
	f->gpu_name = SL_DEFAULT_GPU;
	f->gpu_assumed = true;
	return f;
}

/* A finding at the first occurrence of needle in the file. */
static struct sl_diag *finding(struct sl_file *f, const char *rule, enum sl_severity sev, const char *needle,
			       const char *msg)
{
	const char *p = strstr(f->src->bytes, needle);
	assert_non_null(p);
	size_t off = (size_t)(p - f->src->bytes);
	return sl_diags_add(&f->diags, rule, sev, f->src, sl_source_span(f->src, off, off + strlen(needle)), "%s",
			    msg);
}

/* Start a fresh capture. */
static void reset(void)
{
	fclose(SINK);
	free(OUT);
	OUT = NULL;
	SINK = open_memstream(&OUT, &OUTLEN);
	assert_non_null(SINK);
}

static const char *render(void)
{
	fflush(SINK);
	return OUT;
}

static const char *SWEEP = "method: grid\n"
			   "parameters:\n"
			   "  batch_size:\n"
			   "    values: [32, 256]\n"
			   "  lr:\n"
			   "    value: 1e-5\n";

static void test_text_lines_and_summary(void **state)
{
	(void)state;
	struct sl_file *f = file("sweep.yaml", SWEEP);
	finding(f, "syntax", SL_SEV_ERROR, "256", "batch 256 needs 93.4 GiB");
	finding(f, "bad-suppression", SL_SEV_WARNING, "1e-5", "a warning");
	f->combos.total = count(12);
	f->combos.fit = count(10);
	f->combos.oom = count(2);
	sl_diags_sort(&f->diags);
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	assert_int_equal(sl_report_finish(r), 0);
	assert_string_equal(render(), "sweep.yaml:4:18: error: batch 256 needs 93.4 GiB [syntax]\n"
				      "sweep.yaml:6:12: warning: a warning [bad-suppression]\n"
				      "1 error, 1 warning, 0 info in 1 file (12 combinations: 10 fit, 2 oom, 0 unknown)\n");
	/* an oom verdict resting on a guess is its own count, shown when there is one */
	f->combos.oom = count(1);
	f->combos.at_risk = count(1);
	r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	assert_int_equal(sl_report_finish(r), 0);
	assert_non_null(strstr(render(), "(12 combinations: 10 fit, 1 oom, 1 at risk, 0 unknown)\n"));
	const struct sl_report_totals *t = sl_report_totals(r);
	assert_int_equal(t->files, 1);
	assert_int_equal(t->by_severity[SL_SEV_ERROR], 1);
	assert_int_equal(t->by_severity[SL_SEV_WARNING], 1);
	assert_int_equal(t->by_severity[SL_SEV_INFO], 0);
}

static void test_text_color(void **state)
{
	(void)state;
	R->opt.color = true;
	struct sl_file *f = file("s.yaml", SWEEP);
	finding(f, "syntax", SL_SEV_ERROR, "grid", "e");
	finding(f, "syntax", SL_SEV_WARNING, "values", "w");
	finding(f, "syntax", SL_SEV_INFO, "value:", "i");
	sl_diags_sort(&f->diags);
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	sl_report_finish(r);
	/* ESC[2m dim position, bold red / yellow / cyan severity, ESC[0m reset */
	assert_string_equal(render(), "\033[2ms.yaml:1:9:\033[0m \033[1;31merror\033[0m: e [syntax]\n"
				      "\033[2ms.yaml:4:5:\033[0m \033[1;33mwarning\033[0m: w [syntax]\n"
				      "\033[2ms.yaml:6:5:\033[0m \033[1;36minfo\033[0m: i [syntax]\n"
				      "1 error, 1 warning, 1 info in 1 file (0 combinations: 0 fit, 0 oom, 0 unknown)\n");
}

static void test_text_escapes_control_characters(void **state)
{
	(void)state;
	struct sl_file *f = file("a\tb.yaml", SWEEP);
	finding(f, "syntax", SL_SEV_ERROR, "grid", "value \"x\ny\033[31m\x7f\"");
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	sl_report_finish(r);
	assert_string_equal(render(), "a\\tb.yaml:1:9: error: value \"x\\ny\\x1b[31m\\x7f\" [syntax]\n"
				      "1 error, 0 warnings, 0 info in 1 file (0 combinations: 0 fit, 0 oom, 0 unknown)\n");
}

static void test_text_verbose_quiet_and_plurals(void **state)
{
	(void)state;
	R->opt.verbose = 1;
	struct sl_file *f = file("a.yaml", SWEEP);
	struct sl_diag *d = finding(f, "syntax", SL_SEV_INFO, "lr", "m");
	d->hint = "use 1.0e-5";
	f->combos.total = count(1);
	f->combos.unknown = count(1);
	struct sl_file *g = file("b.yaml", SWEEP);
	g->combos.total = count(2);
	g->combos.fit = count(2);
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	sl_report_file(r, g);
	sl_report_finish(r);
	assert_string_equal(render(), "a.yaml:5:3: info: m [syntax]\n"
				      "    hint: use 1.0e-5\n"
				      "0 errors, 0 warnings, 1 info in 2 files (3 combinations: 2 fit, 0 oom, 1 unknown)\n");

	/* one combination is singular; quiet drops the summary */
	R->opt.verbose = 0;
	struct sl_report *r1 = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r1, f);
	assert_string_equal(sl_report_summary(R->arena, sl_report_totals(r1)),
			    "0 errors, 0 warnings, 1 info in 1 file (1 combination: 0 fit, 0 oom, 1 unknown)");
	reset();
	R->opt.quiet = true;
	struct sl_report *rq = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(rq, f);
	sl_report_finish(rq);
	assert_string_equal(render(), "a.yaml:5:3: info: m [syntax]\n");
}

static void test_text_gpu_note_only_when_evaluated(void **state)
{
	(void)state;
	struct sl_file *f = file("a.yaml", SWEEP);
	f->combos.total = count(4);
	f->combos.unknown = count(4);
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	sl_report_finish(r);
	assert_null(strstr(render(), "note:"));

	reset();
	f->evaluated = true;
	struct sl_report *r2 = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r2, f);
	sl_report_finish(r2);
	assert_string_equal(render(), "note: no GPU given; checked against " SL_DEFAULT_GPU " (set one with --gpu)\n"
				      "0 errors, 0 warnings, 0 info in 1 file (4 combinations: 0 fit, 0 oom, 4 unknown)\n");
}

static void test_text_no_files_no_summary(void **state)
{
	(void)state;
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	assert_int_equal(sl_report_finish(r), 0);
	assert_string_equal(render(), "");
}

static void test_summary_counts_past_uint64(void **state)
{
	(void)state;
	struct sl_report_totals t = {0};
	t.files = 1;
	t.combos.total.value = UINT64_MAX;
	t.combos.total.saturated = true;
	t.combos.unknown = t.combos.total;
	const char *s = sl_report_summary(R->arena, &t);
	assert_non_null(strstr(s, "(more than 18446744073709551615 combinations: 0 fit"));
	t.combos.total.infinite = true;
	t.combos.unknown.infinite = true;
	s = sl_report_summary(R->arena, &t);
	assert_non_null(strstr(s, "(infinite combinations: 0 fit, 0 oom, infinite unknown)"));
}

/* ---- JSON ---- */

static json_t *render_json(void)
{
	json_error_t e;
	json_t *j = json_loads(render(), 0, &e);
	if (!j)
		print_error("not JSON: %s at %d:%d\n%s\n", e.text, e.line, e.column, OUT);
	assert_non_null(j);
	return j;
}

static void test_json_document(void **state)
{
	(void)state;
	R->opt.format = SL_FORMAT_JSON;
	struct sl_file *f = file("sweep.yaml", SWEEP);
	struct sl_diag *d = finding(f, "syntax", SL_SEV_ERROR, "[32, 256]", "needs more");
	d->hint = "drop 256";
	finding(f, "bad-suppression", SL_SEV_WARNING, "1e-5", "w");
	sl_diags_sort(&f->diags);
	f->combos.total = count(12);
	f->combos.fit = count(8);
	f->combos.oom = count(2);
	f->combos.at_risk = count(1);
	f->combos.unknown = count(1);
	f->combos.stated = count(8);
	f->combos.assumed = count(3);
	f->gpu_name = "h100-80gb";
	f->gpu_bytes = 85045379072ull;
	f->gpu_assumed = false;
	struct sl_file *g = file("-", "x: 1\n");
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	sl_report_file(r, g);
	assert_int_equal(sl_report_finish(r), 0);
	json_t *j = render_json();
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 1);
	json_t *files = json_object_get(j, "files");
	assert_int_equal(json_array_size(files), 2);

	json_t *f0 = json_array_get(files, 0);
	assert_string_equal(json_string_value(json_object_get(f0, "path")), "sweep.yaml");
	json_t *gpu = json_object_get(f0, "gpu");
	assert_string_equal(json_string_value(json_object_get(gpu, "name")), "h100-80gb");
	assert_int_equal(json_integer_value(json_object_get(gpu, "bytes")), 85045379072ll);
	assert_true(json_is_false(json_object_get(gpu, "assumed")));
	json_t *co = json_object_get(f0, "combinations");
	assert_int_equal(json_integer_value(json_object_get(co, "total")), 12);
	assert_int_equal(json_integer_value(json_object_get(co, "fit")), 8);
	assert_int_equal(json_integer_value(json_object_get(co, "oom")), 2);
	assert_int_equal(json_integer_value(json_object_get(co, "unknown")), 1);
	assert_null(json_object_get(co, "saturated"));
	assert_int_equal(json_integer_value(json_object_get(co, "stated")), 8);
	assert_int_equal(json_integer_value(json_object_get(co, "assumed")), 3);
	assert_int_equal(json_integer_value(json_object_get(co, "at_risk")), 1);
	assert_int_equal(json_object_size(co), 7);

	json_t *ds = json_object_get(f0, "diagnostics");
	assert_int_equal(json_array_size(ds), 2);
	json_t *d0 = json_array_get(ds, 0);
	assert_string_equal(json_string_value(json_object_get(d0, "rule")), "syntax");
	assert_string_equal(json_string_value(json_object_get(d0, "code")), sl_rule_find("syntax")->code);
	assert_string_equal(json_string_value(json_object_get(d0, "severity")), "error");
	assert_int_equal(json_integer_value(json_object_get(d0, "line")), 4);
	assert_int_equal(json_integer_value(json_object_get(d0, "column")), 13);
	assert_int_equal(json_integer_value(json_object_get(d0, "end_line")), 4);
	assert_int_equal(json_integer_value(json_object_get(d0, "end_column")), 13 + strlen("[32, 256]"));
	assert_string_equal(json_string_value(json_object_get(d0, "message")), "needs more");
	assert_string_equal(json_string_value(json_object_get(d0, "hint")), "drop 256");
	json_t *d1 = json_array_get(ds, 1);
	assert_string_equal(json_string_value(json_object_get(d1, "severity")), "warning");
	assert_null(json_object_get(d1, "hint"));
	assert_null(json_object_get(d1, "path"));

	json_t *f1 = json_array_get(files, 1);
	assert_string_equal(json_string_value(json_object_get(f1, "path")), "<stdin>");
	assert_true(json_is_true(json_object_get(json_object_get(f1, "gpu"), "assumed")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(f1, "gpu"), "name")), SL_DEFAULT_GPU);
	assert_int_equal(json_array_size(json_object_get(f1, "diagnostics")), 0);
	json_decref(j);

	/* the key order of DESIGN §3 is kept */
	const char *s = OUT;
	const char *keys[] = {"\"version\"", "\"files\"", "\"path\"", "\"gpu\"", "\"combinations\"", "\"diagnostics\""};
	for (size_t i = 1; i < sizeof keys / sizeof keys[0]; i++)
		assert_true(strstr(s, keys[i - 1]) < strstr(s, keys[i]));
}

static void test_json_invalid_utf8_and_huge_counts(void **state)
{
	(void)state;
	R->opt.format = SL_FORMAT_JSON;
	struct sl_file *f = file("bad\xff.yaml", SWEEP);
	finding(f, "syntax", SL_SEV_ERROR, "grid", "value '\xc3\x28' and \xed\xa0\x80 and 한국어");
	f->combos.total.value = UINT64_MAX;
	f->combos.total.saturated = true;
	f->combos.unknown.infinite = true;
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	assert_int_equal(sl_report_finish(r), 0);
	json_t *j = render_json();
	json_t *f0 = json_array_get(json_object_get(j, "files"), 0);
	assert_string_equal(json_string_value(json_object_get(f0, "path")), "bad\xEF\xBF\xBD.yaml");
	json_t *d0 = json_array_get(json_object_get(f0, "diagnostics"), 0);
	assert_string_equal(json_string_value(json_object_get(d0, "message")),
			    "value '\xEF\xBF\xBD(' and \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD and 한국어");
	json_t *co = json_object_get(f0, "combinations");
	/* no sentinel number: an infinite count is "infinite", one past 2^63 - 1 null; the flags say why */
	assert_true(json_is_null(json_object_get(co, "total")));
	assert_string_equal(json_string_value(json_object_get(co, "unknown")), "infinite");
	assert_int_equal(json_integer_value(json_object_get(co, "fit")), 0);
	assert_true(json_is_integer(json_object_get(co, "fit")));
	assert_true(json_is_true(json_object_get(co, "saturated")));
	assert_true(json_is_true(json_object_get(co, "infinite")));
	assert_null(strstr(OUT, "9223372036854775807"));
	json_decref(j);
}

static void test_json_no_files(void **state)
{
	(void)state;
	R->opt.format = SL_FORMAT_JSON;
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	assert_int_equal(sl_report_finish(r), 0);
	json_t *j = render_json();
	assert_int_equal(json_array_size(json_object_get(j, "files")), 0);
	json_decref(j);
}

static void test_write_failure_is_reported(void **state)
{
	(void)state;
	char small[16];
	FILE *tiny = fmemopen(small, sizeof small, "w");
	assert_non_null(tiny);
	setvbuf(tiny, NULL, _IONBF, 0);
	struct sl_file *f = file("sweep.yaml", SWEEP);
	finding(f, "syntax", SL_SEV_ERROR, "grid", "a message longer than sixteen bytes");
	struct sl_report *r = sl_report_new(R->arena, &R->opt, tiny);
	sl_report_file(r, f);
	assert_int_equal(sl_report_finish(r), -SL_EIO);
	fclose(tiny);
}

/* -f html: text from input is escaped wherever it lands (a file nothing evaluated: findings only). */
static void test_html_escapes_input(void **state)
{
	(void)state;
	struct sl_file *f = file("<x>&'q'.yaml", SWEEP);
	struct sl_diag *d = finding(f, "syntax", SL_SEV_ERROR, "grid", "value \"<script>alert(1)</script>\"\x01");
	d->hint = "use <b>&amp;</b>";
	R->opt.format = SL_FORMAT_HTML;
	struct sl_report *r = sl_report_new(R->arena, &R->opt, SINK);
	sl_report_file(r, f);
	assert_int_equal(sl_report_finish(r), 0);
	const char *out = render();
	assert_non_null(strstr(out, "<!DOCTYPE html>"));
	assert_non_null(strstr(out, "</html>\n"));
	assert_null(strstr(out, "<script"));
	assert_null(strstr(out, "<b>&amp;"));
	assert_non_null(strstr(out, "<h2>&lt;x&gt;&amp;&#39;q&#39;.yaml</h2>"));
	assert_non_null(strstr(out, "&lt;x&gt;&amp;&#39;q&#39;.yaml:1:9"));
	assert_non_null(strstr(out, "value &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#xFFFD;"));
	assert_non_null(strstr(out, "use &lt;b&gt;&amp;amp;&lt;/b&gt;"));
	/* nothing was evaluated: no heatmap, and the assumptions say so */
	assert_null(strstr(out, "<figure"));
	assert_non_null(strstr(out, "No memory evaluation ran"));
}

static void test_format_names(void **state)
{
	(void)state;
	for (int i = 0; i < SL_FORMAT__COUNT; i++)
		assert_int_equal(sl_format_parse(sl_format_name((enum sl_format)i)), i);
	assert_int_equal(sl_format_parse("text"), SL_FORMAT_TEXT);
	assert_int_equal(sl_format_parse("json"), SL_FORMAT_JSON);
	assert_int_equal(sl_format_parse("html"), SL_FORMAT_HTML);
	assert_int_equal(sl_format_parse("xml"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_text_lines_and_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_color, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_escapes_control_characters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_verbose_quiet_and_plurals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_gpu_note_only_when_evaluated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_no_files_no_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_counts_past_uint64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_document, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_invalid_utf8_and_huge_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_no_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failure_is_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_escapes_input, setup, teardown),
		cmocka_unit_test(test_format_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
