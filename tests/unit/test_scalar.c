/* test_scalar: sl_scalar_resolve against what PyYAML's safe_load makes of each literal (scalar_cases.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/scalar.h"

struct scalar_case {
	const char *doc;        /* the YAML document */
	const char *text;       /* the scalar's text as the parser delivers it */
	size_t len;
	bool plain;             /* plain style with implicit resolution on */
	const char *tag;        /* explicit tag or NULL */
	bool error;             /* safe_load raises */
	enum sl_vtype type;
	bool b;
	int64_t i;
	bool big;
	double f;
	bool looks_numeric;
	const char *spelling;   /* for looks-numeric strings: the spelling PyYAML reads as the number */
	double meant;           /* ... and that number */
};

#include "scalar_cases.h"

#define NCASES (sizeof scalar_cases / sizeof scalar_cases[0])
_Static_assert(NCASES >= 80, "at least 80 literals");

static bool same_double(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	return x == y && signbit(x) == signbit(y);
}

static int setup(void **state)
{
	*state = sl_arena_new();
	return 0;
}

static int teardown(void **state)
{
	sl_arena_free(*state);
	return 0;
}

static void test_pyyaml_cases(void **state)
{
	struct sl_scalar_resolver *r = sl_scalar_resolver_new(*state);
	int failures = 0;
	for (size_t k = 0; k < NCASES; k++) {
		const struct scalar_case *c = &scalar_cases[k];
		bool tag_error = false;
		struct sl_value v = sl_scalar_resolve(r, c->text, c->len, c->plain, c->tag, &tag_error);
		/* a plain "<<" is only valid as a mapping key: alone it fails to load */
		bool err = tag_error || v.merge;
		char why[200] = "";
		if (err != c->error)
			snprintf(why, sizeof why, "error %d, PyYAML %d", err, c->error);
		else if (!err && v.type != c->type)
			snprintf(why, sizeof why, "type %s, PyYAML %s", sl_vtype_name(v.type), sl_vtype_name(c->type));
		else if (!err && v.type == SL_V_BOOL && v.b != c->b)
			snprintf(why, sizeof why, "bool %d, PyYAML %d", v.b, c->b);
		else if (!err && v.type == SL_V_INT && (v.big != c->big || (!v.big && v.i != c->i)))
			snprintf(why, sizeof why, "int %lld big %d, PyYAML %lld big %d", (long long)v.i, v.big,
				 (long long)c->i, c->big);
		else if (!err && (v.type == SL_V_INT || v.type == SL_V_FLOAT) && !same_double(v.f, c->f))
			snprintf(why, sizeof why, "f %a, PyYAML %a", v.f, c->f);
		else if (!err && v.looks_numeric != c->looks_numeric)
			snprintf(why, sizeof why, "looks_numeric %d, expected %d", v.looks_numeric, c->looks_numeric);
		if (!why[0] && c->spelling) {
			char sp[64];
			if (!sl_scalar_numeric_spelling(c->text, c->len, sp, sizeof sp)) {
				snprintf(why, sizeof why, "no spelling, expected '%s'", c->spelling);
			} else if (strcmp(sp, c->spelling) != 0) {
				snprintf(why, sizeof why, "spelling '%s', expected '%s'", sp, c->spelling);
			} else {
				struct sl_value w = sl_scalar_resolve(r, sp, strlen(sp), true, NULL, NULL);
				if ((w.type != SL_V_FLOAT && w.type != SL_V_INT) || w.f != c->meant)
					snprintf(why, sizeof why, "spelling '%s' resolves to %s %g", sp,
						 sl_vtype_name(w.type), w.f);
			}
		}
		if (why[0]) {
			print_error("case %zu: %s: %s\n", k, c->doc, why);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

static void test_spelling_refuses(void **state)
{
	(void)state;
	static const char *const not_numbers[] = {"abc", "08", "1", "e5", "1e", "1.5.5", "8,11,13", "", "-", "."};
	char out[32];
	for (size_t i = 0; i < sizeof not_numbers / sizeof not_numbers[0]; i++) {
		bool ok = sl_scalar_numeric_spelling(not_numbers[i], strlen(not_numbers[i]), out, sizeof out);
		if (ok)
			print_error("'%s' spelled '%s'\n", not_numbers[i], out);
		assert_false(ok);
	}
	/* too small a buffer is a refusal, not an overflow */
	assert_false(sl_scalar_numeric_spelling("1e-5", 4, out, 4));
	assert_true(sl_scalar_numeric_spelling("1e-5", 4, out, 7));
	assert_string_equal(out, "1.0e-5");
}

static void test_text_with_nul(void **state)
{
	struct sl_scalar_resolver *r = sl_scalar_resolver_new(*state);
	/* an embedded NUL (possible in a double-quoted scalar) is data, never a terminator */
	struct sl_value v = sl_scalar_resolve(r, "12\0" "3", 4, true, NULL, NULL);
	assert_int_equal(v.type, SL_V_STR);
	v = sl_scalar_resolve(r, "12", 2, true, NULL, NULL);
	assert_int_equal(v.type, SL_V_INT);
	assert_int_equal(v.i, 12);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(sl_vtype_name(SL_V_NULL), "null");
	assert_string_equal(sl_vtype_name(SL_V_STR), "str");
	assert_string_equal(sl_vtype_name(SL_V_TIMESTAMP), "timestamp");
	assert_string_equal(sl_vtype_name(SL_V__COUNT), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pyyaml_cases, setup, teardown),
		cmocka_unit_test(test_spelling_refuses),
		cmocka_unit_test_setup_teardown(test_text_with_nul, setup, teardown),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
