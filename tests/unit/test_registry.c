/*
 * test_registry: the rule table agrees with rules/rules.yaml (the embedded
 * copy), lookups by slug and code, and the checker really catches a
 * rules.yaml that disagrees (texts generated from the table, then broken).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/rules.h"

#include "arena_fixture.h"

static void dump_diags(void)
{
	for (size_t i = 0; i < D.n; i++)
		print_message("  %s:%u:%u: %s\n", D.v[i].src->display, D.v[i].span.line, D.v[i].span.col,
			      D.v[i].message);
}

static void test_embedded_rules_yaml_agrees(void **state)
{
	(void)state;
	const struct sl_rule_doc *docs = NULL;
	int rc = sl_rules_doc_load(A, &docs, &D);
	if (rc != 0 || D.n)
		dump_diags();
	assert_int_equal(rc, 0);
	assert_int_equal(D.n, 0);
	assert_non_null(docs);
	for (size_t i = 0; i < sl_nrules; i++) {
		assert_ptr_equal(docs[i].rule, &sl_rules[i]);
		assert_string_equal(docs[i].slug, sl_rules[i].slug);
		assert_string_equal(docs[i].code, sl_rules[i].code);
		assert_int_equal(docs[i].severity, sl_rules[i].severity);
		assert_true(strlen(docs[i].summary) > 0);
		assert_null(strchr(docs[i].summary, '\n'));
		assert_true(strlen(docs[i].help) > 40); /* a paragraph, not a stub */
	}
}

static void test_table_shape(void **state)
{
	(void)state;
	assert_true(sl_nrules >= 1);
	for (size_t i = 0; i < sl_nrules; i++) {
		const struct sl_rule *r = &sl_rules[i];
		assert_true(r->severity > SL_SEV_OFF && r->severity < SL_SEV__COUNT);
		/* kebab-case slugs */
		for (const char *p = r->slug; *p; p++)
			assert_true((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-');
		if (i)
			assert_true(strcmp(sl_rules[i - 1].code, r->code) < 0); /* code order, unique */
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(sl_rules[j].slug, r->slug);
	}
	/* the slugs other tools key on that this module owns */
	const struct sl_rule *syn = sl_rule_find("syntax");
	assert_non_null(syn);
	assert_string_equal(syn->code, "SL100");
	assert_int_equal(syn->severity, SL_SEV_ERROR);
	assert_null(syn->check); /* reported by the loader */
}

static void test_find(void **state)
{
	(void)state;
	for (size_t i = 0; i < sl_nrules; i++) {
		assert_ptr_equal(sl_rule_find(sl_rules[i].slug), &sl_rules[i]);
		assert_ptr_equal(sl_rule_find(sl_rules[i].code), &sl_rules[i]);
	}
	assert_null(sl_rule_find("no-such-rule"));
	assert_null(sl_rule_find(""));
	assert_null(sl_rule_find("SL000"));
	assert_null(sl_rule_find("Syntax"));
}

/* Every rule with a check lives in src/rules/<slug with '_'>.c (run from the source root). */
static void test_check_files_exist(void **state)
{
	(void)state;
	for (size_t i = 0; i < sl_nrules; i++) {
		if (!sl_rules[i].check)
			continue;
		char path[256];
		int n = snprintf(path, sizeof path, "src/rules/%s.c", sl_rules[i].slug);
		assert_true(n > 0 && (size_t)n < sizeof path);
		for (char *p = path + strlen("src/rules/"); *p; p++)
			if (*p == '-')
				*p = '_';
		if (access(path, R_OK) != 0)
			print_error("missing %s for rule '%s'\n", path, sl_rules[i].slug);
		assert_int_equal(access(path, R_OK), 0);
	}
}

/* ---- a rules.yaml generated from the table, then broken on purpose ---- */

enum breakage { NONE, WRONG_SEVERITY, WRONG_CODE, MISSING, EXTRA, SHARED_CODE, NO_HELP, DOTTED_SUMMARY };

static const char *generate(enum breakage b, size_t victim)
{
	struct sl_buf buf;
	sl_buf_init(&buf, A);
	sl_buf_adds(&buf, "# generated\nrules:\n");
	for (size_t i = 0; i < sl_nrules; i++) {
		const struct sl_rule *r = &sl_rules[i];
		if (b == MISSING && i == victim)
			continue;
		enum sl_severity sev = r->severity;
		if (b == WRONG_SEVERITY && i == victim)
			sev = sev == SL_SEV_ERROR ? SL_SEV_INFO : SL_SEV_ERROR;
		const char *code = r->code;
		if (b == WRONG_CODE && i == victim)
			code = "SL999";
		if (b == SHARED_CODE && i == victim)
			code = sl_rules[(victim + 1) % sl_nrules].code;
		sl_buf_addf(&buf, "  - slug: %s\n    code: %s\n    severity: %s\n    summary: the rule %s%s\n", r->slug,
			    code, sl_severity_name(sev), r->slug, b == DOTTED_SUMMARY && i == victim ? "." : "");
		if (!(b == NO_HELP && i == victim))
			sl_buf_adds(&buf, "    help: |\n      Why it matters, an example, and the fix.\n");
	}
	if (b == EXTRA)
		sl_buf_adds(&buf, "  - slug: no-such-rule\n    code: SL998\n    severity: info\n"
				  "    summary: nothing\n    help: nothing at all\n");
	return buf.buf;
}

/* The 1-based line of "  - slug: <slug>" in text. */
static uint32_t line_of_slug(const char *text, const char *slug)
{
	char needle[128];
	snprintf(needle, sizeof needle, "  - slug: %s\n", slug);
	const char *p = strstr(text, needle);
	assert_non_null(p);
	uint32_t line = 1;
	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

static int parse(const char *text, const struct sl_rule_doc **docs)
{
	return sl_rules_doc_parse(A, "gen.yaml", text, strlen(text), docs, &D);
}

static bool has_diag(const char *needle, uint32_t line)
{
	for (size_t i = 0; i < D.n; i++)
		if (strstr(D.v[i].message, needle) && (line == 0 || D.v[i].span.line == line))
			return true;
	dump_diags();
	return false;
}

static void test_generated_copy_agrees(void **state)
{
	(void)state;
	const struct sl_rule_doc *docs;
	const char *text = generate(NONE, 0);
	assert_int_equal(parse(text, &docs), 0);
	assert_int_equal(D.n, 0);
	for (size_t i = 0; i < sl_nrules; i++) {
		char want[128];
		snprintf(want, sizeof want, "the rule %s", sl_rules[i].slug);
		assert_string_equal(docs[i].summary, want);
		assert_string_equal(docs[i].help, "Why it matters, an example, and the fix.");
	}
}

static void test_wrong_severity_is_caught(void **state)
{
	(void)state;
	for (size_t v = 0; v < sl_nrules; v++) {
		const struct sl_rule_doc *docs;
		D.n = 0;
		const char *text = generate(WRONG_SEVERITY, v);
		assert_int_equal(parse(text, &docs), -SL_ECONFIG);
		assert_null(docs);
		/* reported at the entry's slug: line + 0, column of the value */
		assert_true(has_diag("severity", line_of_slug(text, sl_rules[v].slug)));
		assert_int_equal(D.v[0].span.col, strlen("  - slug: ") + 1);
	}
}

static void test_wrong_code_is_caught(void **state)
{
	(void)state;
	const struct sl_rule_doc *docs;
	const char *text = generate(WRONG_CODE, 0);
	assert_int_equal(parse(text, &docs), -SL_ECONFIG);
	assert_true(has_diag("has code 'SL999' here", line_of_slug(text, sl_rules[0].slug)));
}

static void test_missing_rule_is_caught(void **state)
{
	(void)state;
	const struct sl_rule_doc *docs;
	const char *text = generate(MISSING, sl_nrules - 1);
	assert_int_equal(parse(text, &docs), -SL_ECONFIG);
	assert_true(has_diag("but not in gen.yaml", 0));
	assert_true(has_diag(sl_rules[sl_nrules - 1].slug, 0));
}

static void test_extra_rule_is_caught(void **state)
{
	(void)state;
	const struct sl_rule_doc *docs;
	const char *text = generate(EXTRA, 0);
	assert_int_equal(parse(text, &docs), -SL_ECONFIG);
	assert_true(has_diag("'no-such-rule' is in gen.yaml but not in the table", line_of_slug(text, "no-such-rule")));
}

static void test_shared_code_is_caught(void **state)
{
	(void)state;
	if (sl_nrules < 2)
		skip();
	const struct sl_rule_doc *docs;
	const char *text = generate(SHARED_CODE, 0);
	assert_int_equal(parse(text, &docs), -SL_ECONFIG);
	assert_true(has_diag("share code", 0));
}

static void test_schema_errors_are_caught(void **state)
{
	(void)state;
	const struct sl_rule_doc *docs;
	const char *text = generate(NO_HELP, 0);
	assert_int_equal(parse(text, &docs), -SL_ECONFIG);
	assert_true(has_diag("cannot load rule metadata", 0));
	D.n = 0;
	text = generate(DOTTED_SUMMARY, 0);
	assert_int_equal(parse(text, &docs), -SL_ECONFIG);
	assert_true(has_diag("final period", line_of_slug(text, sl_rules[0].slug)));
	D.n = 0;
	text = "rules: [\n";
	assert_int_equal(parse(text, &docs), -SL_ECONFIG);
	assert_true(has_diag("cannot load rule metadata", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_embedded_rules_yaml_agrees, setup, teardown),
		cmocka_unit_test(test_table_shape),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_check_files_exist),
		cmocka_unit_test_setup_teardown(test_generated_copy_agrees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_severity_is_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_code_is_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_rule_is_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_extra_rule_is_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_code_is_caught, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema_errors_are_caught, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
