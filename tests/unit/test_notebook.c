/*
 * test_notebook: a notebook's code cells as one code source (cell numbers among every cell, lines,
 * JSON escapes decoded), positions back in the file, edits of the code as edits of the JSON strings
 * (the rest of the file byte-identical, a removed line's string and one separator gone), and what is
 * not a notebook (not JSON, nbformat 3, a bad escape, nesting past the bound).
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
#include "sweeplint/edit.h"
#include "sweeplint/notebook.h"
#include "sweeplint/source.h"

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

/* A notebook as nbformat writes one (indent 1, ensure_ascii=False): a markdown cell, two code cells. */
static const char NB[] = "{\n"
			 " \"cells\": [\n"
			 "  {\n"
			 "   \"cell_type\": \"markdown\",\n"
			 "   \"metadata\": {},\n"
			 "   \"source\": [\"# Title\"]\n"
			 "  },\n"
			 "  {\n"
			 "   \"cell_type\": \"code\",\n"
			 "   \"execution_count\": 1,\n"
			 "   \"metadata\": {},\n"
			 "   \"outputs\": [{\"output_type\": \"stream\", \"text\": [\"x = 1\\n\"]}],\n"
			 "   \"source\": [\n"
			 "    \"import wandb\\n\",\n"
			 "    \"cfg = {\\\"name\\\": \\\"caf\\u00e9\\\",\\n\",\n"
			 "    \"       \\\"bs\\\": [8, 16, 32]}\"\n"
			 "   ]\n"
			 "  },\n"
			 "  {\n"
			 "   \"cell_type\": \"code\",\n"
			 "   \"metadata\": {},\n"
			 "   \"outputs\": [],\n"
			 "   \"source\": \"wandb.sweep(cfg)\"\n"
			 "  }\n"
			 " ],\n"
			 " \"metadata\": {\"kernelspec\": {\"display_name\": \"Python 3\", \"name\": \"python3\"},\n"
			 "              \"language_info\": {\"name\": \"python\"}},\n"
			 " \"nbformat\": 4,\n"
			 " \"nbformat_minor\": 5\n"
			 "}\n";

static const struct sl_notebook *read_nb(struct sl_arena *a, const char *text, struct sl_source **code)
{
	struct sl_source *raw = sl_source_from_bytes(a, "t.ipynb", text, strlen(text));
	const struct sl_notebook *nb = NULL;
	const char *why = NULL;
	size_t at = 0;
	int rc = sl_notebook_read(a, raw, code, &nb, &why, &at);
	assert_int_equal(rc, 0);
	return nb;
}

static void test_code(void **state)
{
	struct sl_arena *a = *state;
	struct sl_source *code = NULL;
	const struct sl_notebook *nb = read_nb(a, NB, &code);
	assert_string_equal(code->bytes, "import wandb\ncfg = {\"name\": \"caf\xc3\xa9\",\n       \"bs\": [8, 16, 32]}\n"
					 "wandb.sweep(cfg)\n");
	assert_ptr_equal(code->notebook, nb);
	assert_true(code->python);
	assert_string_equal(nb->language, "python");
	assert_int_equal(nb->ncells, 2);
	assert_int_equal(nb->ncells_all, 3);
	assert_int_equal(nb->cells[0].number, 2); /* the markdown cell is cell 1 */
	assert_int_equal(nb->cells[1].number, 3);
	assert_int_equal(nb->cells[0].first_line, 1);
	assert_int_equal(nb->cells[1].first_line, 4);
	assert_true(nb->cells[0].array);
	assert_false(nb->cells[1].array);
	assert_int_equal(nb->cells[0].npieces, 3);
	assert_string_equal(nb->cells[0].sep, ",\n    ");

	/* positions: line 4 of the code is line 1 of cell 3 */
	uint32_t l = 0;
	const struct sl_nb_cell *c = sl_notebook_cell(nb, 4, &l);
	assert_non_null(c);
	assert_int_equal(c->number, 3);
	assert_int_equal(l, 1);
	const char *s16 = strstr(code->bytes, "16");
	struct sl_span sp = sl_source_span(code, (size_t)(s16 - code->bytes), (size_t)(s16 - code->bytes) + 2);
	unsigned cell = 0;
	struct sl_span cs = sl_source_cell_span(code, sp, &cell);
	assert_int_equal(cell, 2);
	assert_int_equal(cs.line, 3);
	assert_int_equal(cs.col, 18);
	assert_string_equal(sl_source_where(a, code, sp), "t.ipynb:cell 2:3:18");

	/* back in the file: "16" where its JSON string holds it; é (\u00e9) is six bytes there */
	size_t raw16 = sl_notebook_raw_offset(nb, (size_t)(s16 - code->bytes));
	assert_memory_equal(NB + raw16, "16", 2);
	const char *e = strstr(code->bytes, "\xc3\xa9");
	size_t rawe = sl_notebook_raw_offset(nb, (size_t)(e - code->bytes));
	assert_memory_equal(NB + rawe, "\\u00e9", 6);
	/* the quote after é is \" in the file: the byte after é's two bytes maps past the escape */
	size_t rawq = sl_notebook_raw_offset(nb, (size_t)(e - code->bytes) + 2);
	assert_memory_equal(NB + rawq, "\\\"", 2);
}

/* The file after the code edits es[0..n) as notebook splices. */
static const char *apply(struct sl_arena *a, const struct sl_notebook *nb, const struct sl_source *code,
			 const struct sl_edit *es, size_t n)
{
	struct sl_edit *raw = NULL;
	size_t nraw = 0;
	const char *why = NULL;
	assert_int_equal(sl_notebook_splices(a, nb, code, es, n, &raw, &nraw, &why), 0);
	struct sl_edits e;
	sl_edits_init(&e, a, nb->raw);
	for (size_t i = 0; i < nraw; i++)
		assert_int_equal(sl_edits_splice(&e, raw[i].start, raw[i].end, raw[i].text, raw[i].len), 0);
	struct sl_buf out;
	assert_int_equal(sl_edits_apply(&e, &out), 0);
	return out.buf;
}

/* NB with one substring replaced (the expected file). */
static const char *replaced(struct sl_arena *a, const char *from, const char *to)
{
	const char *at = strstr(NB, from);
	assert_non_null(at);
	return sl_arena_printf(a, "%.*s%s%s", (int)(at - NB), NB, to, at + strlen(from));
}

static void test_splices(void **state)
{
	struct sl_arena *a = *state;
	struct sl_source *code = NULL;
	const struct sl_notebook *nb = read_nb(a, NB, &code);
	/* ", 32" removed from the list: that string re-encoded alone (é stays \u00e9 in its own string) */
	const char *p = strstr(code->bytes, ", 32");
	struct sl_edit e1 = {.start = (size_t)(p - code->bytes), .end = (size_t)(p - code->bytes) + 4, .text = "", .len = 0};
	assert_string_equal(apply(a, nb, code, &e1, 1), replaced(a, "[8, 16, 32]", "[8, 16]"));

	/* a whole line removed: its string and the separator before it go */
	const char *l2 = strstr(code->bytes, "cfg = ");
	const char *l3 = strstr(code->bytes, "       \"bs\"");
	struct sl_edit e2 = {.start = (size_t)(l2 - code->bytes), .end = (size_t)(l3 - code->bytes), .text = "", .len = 0};
	const char *out = apply(a, nb, code, &e2, 1);
	assert_string_equal(out, replaced(a, "    \"cfg = {\\\"name\\\": \\\"caf\\u00e9\\\",\\n\",\n", ""));

	/* an edit in a cell whose source is one string: the string re-encoded whole */
	const char *w = strstr(code->bytes, "cfg)");
	struct sl_edit e3 = {.start = (size_t)(w - code->bytes), .end = (size_t)(w - code->bytes) + 3, .text = "c",
			     .len = 1};
	assert_string_equal(apply(a, nb, code, &e3, 1), replaced(a, "\"wandb.sweep(cfg)\"", "\"wandb.sweep(c)\""));

	/* an edit that reaches past its cell is refused */
	struct sl_edit e4 = {.start = nb->cells[0].code_end - 1, .end = nb->cells[1].code_start + 1, .text = "", .len = 0};
	struct sl_edit *raw = NULL;
	size_t nraw = 0;
	const char *why = NULL;
	assert_int_equal(sl_notebook_splices(a, nb, code, &e4, 1, &raw, &nraw, &why), -1);
	assert_non_null(why);
}

/* The language: language_info.name or kernelspec.language, never the kernel's name (python3, ir). */
static void test_language(void **state)
{
	struct sl_arena *a = *state;
	static const struct {
		const char *text, *lang;
	} cases[] = {
		{"{\"cells\": [], \"metadata\": {\"kernelspec\": {\"name\": \"ir\", \"language\": \"R\"}}}", "R"},
		{"{\"cells\": [], \"metadata\": {\"kernelspec\": {\"name\": \"python3\"}}}", NULL},
		{"{\"cells\": [], \"metadata\": {\"language_info\": {\"name\": \"julia\", \"language\": \"x\"}}}", "julia"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sl_source *code = NULL;
		const struct sl_notebook *nb = read_nb(a, cases[i].text, &code);
		if (cases[i].lang)
			assert_string_equal(nb->language, cases[i].lang);
		else
			assert_null(nb->language);
	}
}

static void test_not_notebooks(void **state)
{
	struct sl_arena *a = *state;
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"not json", "not a notebook: the file is not a JSON object"},
		{"{\"worksheets\": []}", "a notebook of nbformat 3 (\"worksheets\"): sweeplint reads nbformat 4"},
		{"{\"metadata\": {}}", "not a notebook: no \"cells\""},
		{"{\"cells\": [{\"cell_type\": \"code\", \"source\": \"a\\qb\"}]}", "a bad escape in a string"},
		{"{\"cells\": [{\"cell_type\": \"code\", \"source\": [\"a\" \"b\"]}]}", "expected ',' or ']'"},
		{"{\"cells\": []} x", "text after the notebook's JSON object"},
		{"{\"cells\": [{\"cell_type\": \"code\", \"source\": \"\x01\"}]}", "a control character inside a string"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct sl_source *raw = sl_source_from_bytes(a, "t.ipynb", bad[i].text, strlen(bad[i].text));
		struct sl_source *code = NULL;
		const struct sl_notebook *nb = NULL;
		const char *why = NULL;
		size_t at = 0;
		assert_int_equal(sl_notebook_read(a, raw, &code, &nb, &why, &at), -1);
		assert_string_equal(why, bad[i].why);
		assert_true(at <= raw->len);
	}
	/* nesting past the bound in a skipped value: refused, no recursion past it */
	size_t depth = 100000;
	char *deep = malloc(2 * depth + 64);
	assert_non_null(deep);
	size_t n = (size_t)sprintf(deep, "{\"cells\": [], \"metadata\": ");
	for (size_t i = 0; i < depth; i++)
		deep[n++] = '[';
	for (size_t i = 0; i < depth; i++)
		deep[n++] = ']';
	deep[n++] = '}';
	struct sl_source *raw = sl_source_from_bytes(a, "t.ipynb", deep, n);
	free(deep);
	struct sl_source *code = NULL;
	const struct sl_notebook *nb = NULL;
	const char *why = NULL;
	size_t at = 0;
	assert_int_equal(sl_notebook_read(a, raw, &code, &nb, &why, &at), -1);
	assert_string_equal(why, "nested too deeply");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_splices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_language, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_notebooks, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
