/*
 * test_ydoc: the node tree — spans (BOM, CRLF, Korean, tabs), styles,
 * shared aliases, the loader's bounds (alias bomb, depth, several
 * documents), reader errors with positions, merge keys, duplicate keys,
 * and what PyYAML's constructor refuses. Expected positions are computed by
 * an independent helper (where_is) from the text itself.
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
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

struct parsed {
	struct sl_ydoc *doc;
	struct sl_diags diags;
};

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

static struct parsed parse_n(struct sl_arena *a, const char *text, size_t n)
{
	struct parsed p;
	sl_diags_init(&p.diags, a);
	struct sl_source *src = sl_source_from_bytes(a, "t.yaml", text, n);
	p.doc = sl_ydoc_parse(a, src, NULL, &p.diags);
	return p;
}

static struct parsed parse(struct sl_arena *a, const char *text)
{
	return parse_n(a, text, strlen(text));
}

/* 1-based line and character column of the first occurrence of needle (a BOM is not a column). */
static void where_is(const char *text, const char *needle, uint32_t *line, uint32_t *col)
{
	const char *at = strstr(text, needle);
	assert_non_null(at);
	*line = 1;
	*col = 1;
	const char *p = text;
	if (strncmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	for (; p < at; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else if (*p == '\r' && p[1] != '\n') {
			(*line)++;
			*col = 1;
		} else if (*p != '\r' && ((unsigned char)*p & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

static void assert_at(const struct sl_node *n, const char *text, const char *needle)
{
	uint32_t line, col;
	where_is(text, needle, &line, &col);
	assert_non_null(n);
	if (n->span.line != line || n->span.col != col)
		print_error("'%s': span %u:%u, expected %u:%u\n", needle, n->span.line, n->span.col, line, col);
	assert_int_equal(n->span.line, line);
	assert_int_equal(n->span.col, col);
	/* the byte range starts at the needle too */
	assert_int_equal(n->span.start, (size_t)(strstr(text, needle) - text));
}

static void test_spans(void **state)
{
	struct sl_arena *a = *state;
	static const char *const texts[] = {
		"method: grid\nparameters:\n  lr:\n    values: [0.1, 0.01]\n",
		"\xEF\xBB\xBFmethod: grid\nparameters:\n  lr:\n    values: [0.1, 0.01]\n",
		"method: grid\r\nparameters:\r\n  lr:\r\n    values: [0.1, 0.01]\r\n",
		"method: grid  # 격자 탐색\nparameters:\n  lr:  # 학습률\n    values: [0.1, 0.01]\n",
		"method: \"격자\"\nparameters:\n  lr:\n    values: [\"한국어\", 0.01]\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		const char *t = texts[i];
		struct parsed p = parse(a, t);
		if (!p.doc->ok)
			print_error("text %zu: %s\n", i, p.diags.v[0].message);
		assert_true(p.doc->ok);
		assert_int_equal(p.diags.n, 0);
		const struct sl_node *root = p.doc->root;
		assert_int_equal(root->kind, SL_NODE_MAP);
		assert_int_equal(root->style, SL_STYLE_BLOCK);
		assert_at(root, t, "method");
		assert_at(sl_map_pair(root, "parameters")->key, t, "parameters");
		const struct sl_node *values = sl_map_get(sl_map_get(sl_map_get(root, "parameters"), "lr"), "values");
		assert_at(values, t, "[");
		assert_int_equal(values->style, SL_STYLE_FLOW);
		assert_int_equal(values->n, 2);
		assert_at(values->items[1], t, "0.01");
		/* a flow collection's span ends after its closing bracket */
		assert_int_equal(values->span.end, (size_t)(strchr(t, ']') - t) + 1);
	}
	const char *k = "a: 1\nb: 한국어\nc: 2\n";
	struct parsed p = parse(a, k);
	assert_at(sl_map_get(p.doc->root, "b"), k, "한국어");
	assert_at(sl_map_get(p.doc->root, "c"), k, "2\n");
	assert_int_equal(sl_map_get(p.doc->root, "b")->span.end_col, 7); /* 3 characters after column 4 */
}

static void test_tabs_and_styles(void **state)
{
	struct sl_arena *a = *state;
	const char *t = "a:\t'x'\nb: \"y\\tz\"\nc: |\n  lit\nd: >\n  fold\ne: [1, {f: 2}]\n";
	struct parsed p = parse(a, t);
	assert_true(p.doc->ok);
	const struct sl_node *r = p.doc->root;
	assert_at(sl_map_get(r, "a"), t, "'x'");
	assert_int_equal(sl_map_get(r, "a")->style, SL_STYLE_SINGLE);
	assert_int_equal(sl_map_get(r, "b")->style, SL_STYLE_DOUBLE);
	assert_string_equal(sl_map_get(r, "b")->text, "y\tz");
	assert_int_equal(sl_map_get(r, "c")->style, SL_STYLE_LITERAL);
	assert_string_equal(sl_map_get(r, "c")->text, "lit\n");
	assert_int_equal(sl_map_get(r, "d")->style, SL_STYLE_FOLDED);
	const struct sl_node *e = sl_map_get(r, "e");
	assert_int_equal(e->kind, SL_NODE_SEQ);
	assert_int_equal(e->items[1]->kind, SL_NODE_MAP);
	assert_int_equal(e->items[1]->style, SL_STYLE_FLOW);
	assert_ptr_equal(e->items[1]->parent, e);
	/* a tab used for indentation is a syntax error, reported where libyaml stopped */
	p = parse(a, "a:\n\t- 1\n");
	assert_false(p.doc->ok);
	assert_null(p.doc->root);
	assert_int_equal(p.diags.n, 1);
	assert_string_equal(p.diags.v[0].rule, "syntax");
	assert_int_equal(p.diags.v[0].span.line, 2);
}

static void test_typing(void **state)
{
	struct sl_arena *a = *state;
	struct parsed p = parse(a, "a: 1e-5\nb: 1.0e-5\nc: yes\nd: '10'\ne: ! 12\nf: !!float 1e-5\ng: ~\n");
	const struct sl_node *r = p.doc->root;
	assert_true(sl_node_is(sl_map_get(r, "a"), SL_V_STR));
	assert_true(sl_map_get(r, "a")->value.looks_numeric);
	assert_true(sl_node_is(sl_map_get(r, "b"), SL_V_FLOAT));
	assert_true(sl_node_is(sl_map_get(r, "c"), SL_V_BOOL));
	assert_true(sl_node_is(sl_map_get(r, "d"), SL_V_STR));
	assert_true(sl_node_is(sl_map_get(r, "e"), SL_V_INT)); /* PyYAML resolves "!" implicitly */
	assert_true(sl_node_is(sl_map_get(r, "f"), SL_V_FLOAT));
	assert_true(sl_node_is(sl_map_get(r, "g"), SL_V_NULL));
	assert_string_equal(sl_node_describe(sl_map_get(r, "b")), "a float");
	/* what PyYAML's constructor refuses fails the whole load */
	static const char *const refused[] = {"a: !!int abc\n", "a: 2023-02-29\n", "a: =\n", "a: [<<]\n",
					      "a: {<<: 1}\n", "a: !custom x\n"};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		p = parse(a, refused[i]);
		if (p.doc->ok)
			print_error("accepted: %s", refused[i]);
		assert_false(p.doc->ok);
		assert_int_equal(p.diags.n, 1);
		assert_string_equal(p.diags.v[0].rule, "syntax");
		assert_int_equal(p.diags.v[0].span.line, 1);
	}
}

/* Python truthiness of what PyYAML builds (bool(value)): what `if config.get(key)` in W&B's code sees */
static void test_truthy(void **state)
{
	struct sl_arena *a = *state;
	struct parsed p = parse(a, "f1: ~\nf2: ''\nf3: false\nf4: 0\nf5: 0.0\nf6: []\nf7: {}\nf8: 0x0\n"
				   "t1: x\nt2: true\nt3: 1\nt4: 0.5\nt5: [0]\nt6: {a: ~}\nt7: '0'\nt8: 99999999999999999999\n");
	const struct sl_node *r = p.doc->root;
	assert_non_null(r);
	assert_false(sl_node_truthy(NULL));
	for (size_t i = 0; i < r->n; i++) {
		const char *k = r->pairs[i].key->text;
		assert_int_equal(sl_node_truthy(r->pairs[i].value), k[0] == 't');
	}
}

static void test_aliases(void **state)
{
	struct sl_arena *a = *state;
	const char *t = "base: &b {lr: 0.1, bs: 32}\nx: *b\ny: *b\n";
	struct parsed p = parse(a, t);
	assert_true(p.doc->ok);
	const struct sl_node *b = sl_map_get(p.doc->root, "base");
	assert_ptr_equal(sl_map_get(p.doc->root, "x"), b); /* shared, as PyYAML shares them */
	assert_ptr_equal(sl_map_get(p.doc->root, "y"), b);
	assert_string_equal(b->anchor, "b");
	assert_at(b, t, "&b"); /* a node's span starts with its properties (anchor, tag) */
	/* a block collection whose last item is an alias ends at the alias token, not at the anchor */
	const char *t2 = "a: &x [1, 2]\nb:\n  - 1\n  - *x\nc: 3\n";
	p = parse(a, t2);
	assert_true(p.doc->ok);
	const struct sl_node *seq = sl_map_get(p.doc->root, "b");
	assert_int_equal(seq->span.start, (size_t)(strstr(t2, "- 1") - t2));
	assert_int_equal(seq->span.end, (size_t)(strstr(t2, "*x") - t2) + 2);
	assert_int_equal(p.doc->root->span.end, strlen(t2) - 1);
	/* undefined alias */
	p = parse(a, "x: *nope\n");
	assert_false(p.doc->ok);
	assert_int_equal(p.diags.n, 1);
}

static void test_alias_bomb(void **state)
{
	struct sl_arena *a = *state;
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_adds(&b, "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 10; i++) {
		sl_buf_addf(&b, "l%d: &l%d [", i, i);
		for (int j = 0; j < 10; j++)
			sl_buf_addf(&b, "%s*l%d", j ? ", " : "", i - 1);
		sl_buf_adds(&b, "]\n");
	}
	struct parsed p = parse(a, b.buf);
	assert_false(p.doc->ok);
	assert_int_equal(p.diags.n, 1);
	assert_string_equal(p.diags.v[0].rule, "syntax");
	assert_non_null(strstr(p.diags.v[0].message, "alias"));
}

static void test_depth(void **state)
{
	struct sl_arena *a = *state;
	size_t depth = 100000;
	char *t = sl_arena_alloc(a, 2 * depth + 2);
	memset(t, '[', depth);
	memset(t + depth, ']', depth);
	struct parsed p = parse_n(a, t, 2 * depth);
	assert_false(p.doc->ok);
	assert_int_equal(p.diags.n, 1);
	assert_string_equal(p.diags.v[0].rule, "syntax");
	assert_non_null(strstr(p.diags.v[0].message, "nesting"));
	assert_int_equal(p.diags.v[0].span.line, 1);
	assert_int_equal(p.diags.v[0].span.col, SL_YDOC_MAX_DEPTH + 1);
	/* exactly at the bound is fine */
	memset(t, '[', SL_YDOC_MAX_DEPTH);
	memset(t + SL_YDOC_MAX_DEPTH, ']', SL_YDOC_MAX_DEPTH);
	p = parse_n(a, t, 2 * SL_YDOC_MAX_DEPTH);
	assert_true(p.doc->ok);
}

static void test_documents_and_bytes(void **state)
{
	struct sl_arena *a = *state;
	const char *two = "a: 1\n---\nb: 2\n";
	struct parsed p = parse(a, two);
	assert_false(p.doc->ok);
	assert_int_equal(p.diags.n, 1);
	uint32_t line, col;
	where_is(two, "---", &line, &col);
	assert_int_equal(p.diags.v[0].span.line, line);
	/* a NUL byte: a reader error at its offset */
	const char nul[] = "a: 1\nb: x\0y\n";
	p = parse_n(a, nul, sizeof nul - 1);
	assert_false(p.doc->ok);
	assert_int_equal(p.diags.n, 1);
	size_t at = (size_t)((const char *)memchr(nul, 0, sizeof nul) - nul);
	assert_int_equal(p.diags.v[0].span.start, at);
	assert_int_equal(p.diags.v[0].span.line, 2);
	assert_int_equal(p.diags.v[0].span.col, at - (size_t)(strchr(nul, '\n') - nul)); /* 1-based */
	/* invalid UTF-8 after Korean text: the column counts characters */
	const char bad[] = "a: 한국\xff\n";
	p = parse_n(a, bad, sizeof bad - 1);
	assert_false(p.doc->ok);
	assert_int_equal(p.diags.n, 1);
	assert_int_equal(p.diags.v[0].span.start, (size_t)(strchr(bad, '\xff') - bad));
	assert_int_equal(p.diags.v[0].span.line, 1);
	assert_int_equal(p.diags.v[0].span.col, 6); /* "a: " is 3 characters, then 2 Hangul syllables */
	/* after a BOM, the same (the BOM is not a column) */
	const char bombad[] = "\xEF\xBB\xBF" "a: b\n" "c: \xff\n";
	p = parse_n(a, bombad, sizeof bombad - 1);
	assert_false(p.doc->ok);
	assert_int_equal(p.diags.v[0].span.start, (size_t)(strchr(bombad, '\xff') - bombad));
	assert_int_equal(p.diags.v[0].span.line, 2);
	assert_int_equal(p.diags.v[0].span.col, 4);
	/* an empty stream: no root, no finding */
	p = parse(a, "");
	assert_true(p.doc->ok);
	assert_null(p.doc->root);
	p = parse(a, "# only a comment\n");
	assert_true(p.doc->ok);
	assert_null(p.doc->root);
}

/* The first syntax finding's line and column as a sweep is read (tabs too), or 0:0 when it loaded. */
static void first_error(struct sl_arena *a, const char *text, uint32_t *line, uint32_t *col)
{
	struct parsed p = parse(a, text);
	sl_ydoc_refuse_tabs(p.doc, &p.diags);
	*line = *col = 0;
	if (p.doc->ok)
		return;
	assert_true(p.diags.n >= 1);
	*line = p.diags.v[0].span.line;
	*col = p.diags.v[0].span.col;
}

/* What libyaml and PyYAML's safe_load read differently before any node (src/yaml/input.c). */
static void test_directives_and_boms(void **state)
{
	struct sl_arena *a = *state;
	uint32_t line, col;
	/* any 1.x version: PyYAML loads it (libyaml only 1.1 and 1.2) */
	const char *accepted[] = {
		"%YAML 1.3\n---\na: 1\n", "%YAML 1.10 # c\n---\na: 1\n", "%YAML 1.0000000001\n--- a\n",
		"%YAML 1.1\n---\na: 1\n", "%FOO bar baz\n---\na: 1\n", "# c\n%FOO\n%A-b_1 x:\t[\n--- a\n",
		"%FOO\n%YAML 1.9\n%TAG !e! tag:yaml.org,2002:\n---\na: !e!int 1\n", "\xEF\xBB\xBF%FOO 1\n---\na: 1\n",
	};
	for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++) {
		first_error(a, accepted[i], &line, &col);
		if (line)
			print_error("%s: error at %u:%u\n", accepted[i], line, col);
		assert_int_equal(line, 0);
	}
	/* and where PyYAML refuses them: the position of its error */
	struct {
		const char *text;
		uint32_t line, col;
	} refused[] = {
		{"%YAML 2.0\n---\na: 1\n", 1, 1},          /* incompatible */
		{"%FOO bar\na: 1\n", 2, 1},                 /* a directive needs '---' */
		{"%FOO bar\n", 2, 1},                        /* ... even before the end */
		{"%FOO\n# c\n\n  a: 1\n", 4, 3},
		{"%FOO bar\n  ---\n- 1\n", 2, 3},         /* '---' indented is no document start (10^6 run) */
		{"a: 1\n...\n%FOO\n---\nb: 2\n", 3, 1},   /* a second document, where its prefix starts */
		{"a: 1\n...\n%TAG !e! x\n%FOO\n---\n", 3, 1},
		{"a: 1\n...\n%FOO\nb: 2\n", 4, 1},         /* no '---' after the directive */
	};
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		first_error(a, refused[i].text, &line, &col);
		if (line != refused[i].line || col != refused[i].col)
			print_error("%s: error at %u:%u, PyYAML %u:%u\n", refused[i].text, line, col, refused[i].line,
				    refused[i].col);
		assert_int_equal(line, refused[i].line);
		assert_int_equal(col, refused[i].col);
	}
	/* U+FEFF at a line start is a character for PyYAML (libyaml skips it): the key is "\ufeffb" */
	struct parsed p = parse(a, "a: 1\n\xEF\xBB\xBF" "b: 2\nc: \xEF\xBB\xBF" "d\n");
	assert_true(p.doc->ok);
	assert_null(sl_map_get(p.doc->root, "b"));
	assert_int_equal(sl_map_get(p.doc->root, "\xEF\xBB\xBF" "b")->value.i, 2);
	assert_string_equal(sl_map_get(p.doc->root, "c")->text, "\xEF\xBB\xBF" "d");
	/* the stand-in character is one the text does not hold */
	p = parse(a, "a: \xEE\x80\x80\n\xEF\xBB\xBF" "b: 2\n");
	assert_true(p.doc->ok);
	assert_string_equal(sl_map_get(p.doc->root, "a")->text, "\xEE\x80\x80");
	assert_non_null(sl_map_get(p.doc->root, "\xEF\xBB\xBF" "b"));
	/* a BOM before a later document's '---' is text: PyYAML wants the document start there */
	first_error(a, "a: 1\n...\n\xEF\xBB\xBF---\nb: 2\n", &line, &col);
	assert_int_equal(line, 3);
	assert_int_equal(col, 1);
}

/* Where libyaml reads on and PyYAML does not, or the reverse (results of PyYAML 6.0's safe_load). */
static void test_pyyaml_differences(void **state)
{
	struct sl_arena *a = *state;
	uint32_t line, col;
	/* a tab opening a block scalar's first line: PyYAML's indentation is its column, the tab is text */
	struct parsed p = parse(a, "a: |\n  \tx\n  y\nb: 1\n");
	assert_true(p.doc->ok);
	assert_string_equal(sl_map_get(p.doc->root, "a")->text, "\tx\ny\n");
	p = parse(a, "a: >\n  \tx\n  y\n\n  z\nb: 1\n");
	assert_true(p.doc->ok);
	assert_string_equal(sl_map_get(p.doc->root, "a")->text, "\tx\ny\nz\n"); /* not folded after the tab */
	p = parse(a, "a: >\n  \tx\n  y\nb: 1\n");
	assert_true(p.doc->ok);
	assert_string_equal(sl_map_get(p.doc->root, "a")->text, "\tx\ny\n");
	/* '=' as a mapping key is the string "=" (flatten_mapping), a value it cannot load */
	p = parse(a, "=: 1\n");
	assert_true(p.doc->ok);
	assert_int_equal(sl_map_get(p.doc->root, "=")->value.i, 1);
	first_error(a, "a: =\n", &line, &col);
	assert_int_equal(col, 4);
	/* the non-specific tag on an empty scalar: null */
	p = parse(a, "[! , 0]");
	assert_true(p.doc->ok);
	assert_int_equal(p.doc->root->items[0]->value.type, SL_V_NULL);
	/* PyYAML refuses an anchor defined twice, and a '?' inside a plain scalar in brackets */
	first_error(a, "- &a 1\n- &a 2\n", &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 3);
	first_error(a, "a: [x?y]\n", &line, &col);
	assert_int_equal(line, 1);
	assert_int_equal(col, 6);
	/* a constructor's error counts only when the whole text parses (PyYAML composes first) */
	first_error(a, "a: !!str [1]\nb: @x\n", &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 4);
	/* and its first one is breadth first: b's !!str before the deeper !!int listed earlier */
	first_error(a, "a: [[!!int x]]\nb: !!str [1]\n", &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 4);
	/* in brackets ':' then ",[]{}" is a value indicator for PyYAML (libyaml refused it) */
	p = parse(a, "p: {values:[1, 2], b:, c: [d:]}\n");
	assert_true(p.doc->ok);
	const struct sl_node *m = sl_map_get(p.doc->root, "p");
	assert_int_equal(sl_map_get(m, "values")->n, 2);
	assert_int_equal(sl_map_get(m, "b")->value.type, SL_V_NULL);
	assert_at(sl_map_get(m, "values")->items[1], "p: {values:[1, 2], b:, c: [d:]}\n", "2]");
	/* PyYAML wants a space between a block scalar's indicators and a comment */
	first_error(a, "a: |-#c\n  x\n", &line, &col);
	assert_int_equal(col, 6);
	/* a control character in a reserved directive: both readers refuse it */
	p = parse(a, "%FOO bar\x7f\n---\na: 1\n");
	assert_false(p.doc->ok);
	/* a merged mapping is never built by its tag; a scalar-tagged mapping stands for its '=' value */
	p = parse(a, "<<: !!omap {a: 1}\nb: !!int {=: {=: 12}, c: 1}\n");
	assert_true(p.doc->ok);
	assert_int_equal(sl_map_get(p.doc->root, "a")->value.i, 1);
	assert_int_equal(sl_map_get(p.doc->root, "b")->value.i, 12);
	/* a key tagged !!merge is a merge key, whatever its text */
	p = parse(a, "b: 1\n!!merge m:\n  lr: 0.1\n");
	assert_true(p.doc->ok);
	assert_true(sl_map_get(p.doc->root, "lr")->value.f == 0.1);
	assert_null(sl_map_get(p.doc->root, "m"));
	/* a merge list's item that is no mapping: at the item */
	first_error(a, "a: {<<: [{x: 1}, 2]}\n", &line, &col);
	assert_int_equal(line, 1);
	assert_int_equal(col, 18);
	/* a block scalar's first-line tab after blank lines broken by LS/PS (they stay in the text) */
	p = parse(a, "lr: >+\xe2\x80\xa8\xe2\x80\xa8\xe2\x80\xa8  \tt\xe2\x80\xa8");
	assert_true(p.doc->ok);
	assert_string_equal(sl_map_get(p.doc->root, "lr")->text,
			    "\xe2\x80\xa8\xe2\x80\xa8\tt\xe2\x80\xa8");
	/* a reserved directive after a leading LS (a line break for both readers): ignored */
	p = parse(a, "\xe2\x80\xa8%A\n# c\n---\n- y\n");
	assert_true(p.doc->ok);
	assert_string_equal(p.doc->root->items[0]->text, "y");
	/* a '#' right after a %YAML version: libyaml's comment, PyYAML's error */
	first_error(a, "%YAML 1.1#c\n---\na: 1\n", &line, &col);
	assert_int_equal(line, 1);
	assert_int_equal(col, 10);
	p = parse(a, "%YAML 1.1 #c\n---\na: 1\n");
	assert_true(p.doc->ok);
	/* an escaped surrogate: PyYAML's chr() makes a lone one, libyaml refused; UTF-8 text: U+FFFD */
	p = parse(a, "a: \"x\\udece\\U0000D800\"\n");
	assert_true(p.doc->ok);
	assert_string_equal(sl_map_get(p.doc->root, "a")->text, "x\xef\xbf\xbd\xef\xbf\xbd");
}

/*
 * PyYAML's constructor builds a node only where it reaches it (src/yaml/construct.c): a merged
 * mapping, an !!omap item and the pairs of a scalar-tagged mapping but its '=' value are never built
 * by their own tags; a node built through an alias is built by its tag there. Each case checked
 * against PyYAML 6.0's safe_load.
 */
static void test_constructor_reach(void **state)
{
	struct sl_arena *a = *state;
	uint32_t line, col;
	/* a merge value is flattened whatever its tag, '=' in it included */
	struct parsed p = parse(a, "x: 1\n<<: !!binary {=: 1, a: 2}\n");
	assert_true(p.doc->ok);
	assert_int_equal(sl_map_get(p.doc->root, "a")->value.i, 2);
	/* an !!omap item's tag is never constructed */
	p = parse(a, "!!omap [!!str {a: 1}]\n");
	assert_true(p.doc->ok);
	/* but its key and value are, without flatten_mapping: a merge or value key has no constructor */
	first_error(a, "!!omap [{<<: {a: 1}}]\n", &line, &col);
	assert_int_equal(col, 10);
	first_error(a, "!!omap [{=: 1}]\n", &line, &col);
	assert_int_equal(col, 10);
	/* a merged mapping built through an alias elsewhere is built by its tag there */
	first_error(a, "-x: 1\n<<: &c !!str {}\nx_y: *c\n", &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 5);
	/* a scalar-tagged mapping merged, then used through an alias before its '=' key was flattened */
	p = parse(a, "b: {<<: &a !!str {=: 1.5}}\nc: *a\n");
	assert_true(p.doc->ok);
	assert_string_equal(sl_map_get(p.doc->root, "c")->text, "1.5");
	/* and after it: the '=' is a string by then, PyYAML finds no scalar */
	first_error(a, "- {<<: &a !!str {=: 1}}\n- x: *a\n", &line, &col);
	assert_int_equal(line, 1);
	assert_int_equal(col, 8);
	/* but !!timestamp never (PyYAML's constructor reads the mapping's pairs as text: a TypeError) */
	p = parse(a, "a: !!timestamp {=: 2001-12-14}\n");
	assert_false(p.doc->ok);
	/* a scalar-tagged mapping builds only its '=' value */
	p = parse(a, "a: !!str {=: 1, b: !!int x}\n");
	assert_true(p.doc->ok);
	assert_string_equal(sl_map_get(p.doc->root, "a")->text, "1");
	/* a collection key that builds as a scalar is hashable; a set is not */
	p = parse(a, "? !!str {=: 1}\n: v\n");
	assert_true(p.doc->ok);
	first_error(a, "? !!set {a}\n: v\n", &line, &col);
	assert_int_equal(col, 3);
	/* positions as PyYAML counts them: LS and NEL end lines, U+FEFF is no column */
	first_error(a, "a: 1\xe2\x80\xa8" "b: @x\n", &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 4);
	first_error(a, "a: 1\xc2\x85\xef\xbb\xbf\xef\xbb\xbf" "b: @x\n", &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 4);
	first_error(a, "\xef\xbb\xbf" "a: 1\n\xef\xbb\xbf" "b: [@x]\n", &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 5);
}

static void test_merge_and_duplicates(void **state)
{
	struct sl_arena *a = *state;
	const char *t = "d1: &d1 {lr: 0.1, bs: 32}\nd2: &d2 {lr: 0.2, wd: 0.01}\n"
			"p: {<<: [*d1, *d2], bs: 64}\nq: {a: 1, a: 2}\nr: {'<<': 5}\n";
	struct parsed p = parse(a, t);
	assert_true(p.doc->ok);
	const struct sl_node *m = sl_map_get(p.doc->root, "p");
	assert_int_equal(sl_map_get(m, "bs")->value.i, 64);     /* explicit keys win */
	assert_true(sl_map_get(m, "lr")->value.f == 0.1);       /* the first merged map wins */
	assert_true(sl_map_get(m, "wd")->value.f == 0.01);
	assert_null(sl_map_get(m, "<<"));
	assert_int_equal(sl_map_get(sl_map_get(p.doc->root, "q"), "a")->value.i, 2); /* last duplicate wins */
	/* a quoted '<<' is an ordinary key */
	assert_int_equal(sl_map_get(sl_map_get(p.doc->root, "r"), "<<")->value.i, 5);
	const struct sl_pair *pair = sl_map_pair(sl_map_get(p.doc->root, "q"), "a");
	assert_non_null(pair);
	assert_at(pair->key, t, "a: 2");
}

/* A chain of maps each merging the one before: PyYAML reads ~990 levels; lookups followed 32 (a false "no value"). */
static void test_merge_chain(void **state)
{
	struct sl_arena *a = *state;
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_addf(&b, "m0: &m0 {values: [1, 2]}\n");
	for (int i = 1; i <= 600; i++)
		sl_buf_addf(&b, "m%d: &m%d {<<: *m%d, k%d: %d}\n", i, i, i - 1, i, i);
	sl_buf_addf(&b, "p: {<<: *m600}\n");
	struct parsed p = parse(a, b.buf);
	assert_true(p.doc->ok);
	const struct sl_node *v = sl_map_get(sl_map_get(p.doc->root, "p"), "values");
	assert_non_null(v); /* 601 levels down */
	assert_int_equal(v->n, 2);
	assert_int_equal(sl_map_get(sl_map_get(p.doc->root, "p"), "k1")->value.i, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_spans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truthy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tabs_and_styles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_typing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aliases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alias_bomb, setup, teardown),
		cmocka_unit_test_setup_teardown(test_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_documents_and_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_and_duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directives_and_boms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pyyaml_differences, setup, teardown),
		cmocka_unit_test_setup_teardown(test_constructor_reach, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
