/*
 * test_edit: byte-exact tests of src/yaml/edit.c. Every expected output is
 * written out by hand here; none was produced by the code under test.
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
#include "sweeplint/edit.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

struct fx {
	struct sl_arena *a;
	struct sl_source *src;
	struct sl_ydoc *doc;
	struct sl_scalar_resolver *r;
	struct sl_edits e;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	f->a = sl_arena_new();
	f->r = sl_scalar_resolver_new(f->a);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	sl_arena_free(f->a);
	free(f);
	return 0;
}

static void load_n(struct fx *f, const char *text, size_t len)
{
	f->src = sl_source_from_bytes(f->a, "t.yaml", text, len);
	struct sl_diags d;
	sl_diags_init(&d, f->a);
	f->doc = sl_ydoc_parse(f->a, f->src, f->r, &d);
	assert_true(f->doc->ok);
	assert_non_null(f->doc->root);
	sl_edits_init(&f->e, f->a, f->src);
}

static void load(struct fx *f, const char *text)
{
	load_n(f, text, strlen(text));
}

/* The node at a dotted path: keys, and integers indexing sequences ("" is the root). */
static const struct sl_node *at(struct fx *f, const char *path)
{
	const struct sl_node *n = f->doc->root;
	char *copy = sl_arena_strdup(f->a, path);
	for (char *seg = strtok(copy, "."); seg && n; seg = strtok(NULL, ".")) {
		char *end;
		long i = strtol(seg, &end, 10);
		if (n->kind == SL_NODE_SEQ && *end == '\0')
			n = i >= 0 && (size_t)i < n->n ? n->items[i] : NULL;
		else
			n = sl_map_get(n, seg);
	}
	assert_non_null(n);
	return n;
}

static void expect_n(struct fx *f, const char *want, size_t wlen)
{
	struct sl_buf out;
	int rc = sl_edits_apply(&f->e, &out);
	assert_int_equal(rc, 0);
	if (out.len != wlen || memcmp(out.buf, want, wlen) != 0) {
		print_error("want:\n[%.*s]\ngot:\n[%.*s]\n", (int)wlen, want, (int)out.len, out.buf);
		fail();
	}
	/* the result is YAML again */
	struct sl_source *s2 = sl_source_from_bytes(f->a, "out.yaml", out.buf, out.len);
	struct sl_diags d;
	sl_diags_init(&d, f->a);
	assert_true(sl_ydoc_parse(f->a, s2, f->r, &d)->ok);
}

static void expect(struct fx *f, const char *want)
{
	expect_n(f, want, strlen(want));
}

/* Remove item i of the sequence at path from text and compare with want. */
static void drop_case(struct fx *f, const char *text, const char *path, size_t i, const char *want)
{
	load(f, text);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, path), i), 0);
	expect(f, want);
}

/* ---- splices -------------------------------------------------------------------------- */

static void test_noop(void **state)
{
	struct fx *f = *state;
	static const char text[] = "\xEF\xBB\xBF# bom\r\nkey: [1, 2]\r\nname: \xEB\xAA\xA8\xEB\x8D\xB8\tx";
	load_n(f, text, sizeof text - 1);
	expect_n(f, text, sizeof text - 1);
	/* applying twice gives the same text */
	expect_n(f, text, sizeof text - 1);
}

static void test_splice_order(void **state)
{
	struct fx *f = *state;
	load(f, "abcdef: 1\n");
	assert_int_equal(sl_edits_splice(&f->e, 4, 6, "", 0), 0);      /* "ef" gone */
	assert_int_equal(sl_edits_splice(&f->e, 0, 1, "AA", 2), 0);    /* a -> AA */
	assert_int_equal(sl_edits_splice(&f->e, 8, 9, "42", 2), 0);    /* 1 -> 42 */
	assert_int_equal(sl_edits_splice(&f->e, 4, 4, "<", 1), 0);     /* insertion before the deletion */
	assert_int_equal(sl_edits_splice(&f->e, 4, 4, "=", 1), 0);     /* same offset: order kept */
	expect(f, "AAbcd<=: 42\n");
	assert_int_equal(sl_edits_splice(&f->e, 3, 11, "", 0), -SL_EINTERNAL); /* past the end */
	assert_int_equal(sl_edits_splice(&f->e, 5, 4, "", 0), -SL_EINTERNAL);
}

static void test_overlap(void **state)
{
	struct fx *f = *state;
	load(f, "abcdef: 1\n");
	assert_int_equal(sl_edits_splice(&f->e, 2, 5, "x", 1), 0);
	assert_int_equal(sl_edits_splice(&f->e, 4, 6, "y", 1), 0);
	struct sl_buf out;
	assert_int_equal(sl_edits_apply(&f->e, &out), -SL_EINTERNAL);
	assert_int_equal(out.len, 0);

	/* an insertion strictly inside a replaced range overlaps too */
	sl_edits_init(&f->e, f->a, f->src);
	assert_int_equal(sl_edits_splice(&f->e, 2, 5, "", 0), 0);
	assert_int_equal(sl_edits_splice(&f->e, 3, 3, "z", 1), 0);
	assert_int_equal(sl_edits_apply(&f->e, &out), -SL_EINTERNAL);

	/* identical duplicates merge */
	sl_edits_init(&f->e, f->a, f->src);
	assert_int_equal(sl_edits_splice(&f->e, 2, 5, "x", 1), 0);
	assert_int_equal(sl_edits_splice(&f->e, 2, 5, "x", 1), 0);
	assert_int_equal(sl_edits_splice(&f->e, 9, 9, "# y", 3), 0);
	assert_int_equal(sl_edits_splice(&f->e, 9, 9, "# y", 3), 0);
	expect(f, "abxf: 1# y\n");

	/* a removed pair and an edit inside it collide */
	load(f, "a:\n  values: [1, 2, 3]\nb: 1\n");
	assert_int_equal(sl_edits_remove_pair(&f->e, f->doc->root, 0), 0);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "a.values"), 1), 0);
	assert_int_equal(sl_edits_apply(&f->e, &out), -SL_EINTERNAL);
}

/* ---- flow sequences ------------------------------------------------------------------- */

static void test_flow_positions(void **state)
{
	struct fx *f = *state;
	const char *in = "batch_size:\n  values: [16, 32, 64, 128, 256]\n";
	drop_case(f, in, "batch_size.values", 0, "batch_size:\n  values: [32, 64, 128, 256]\n");
	drop_case(f, in, "batch_size.values", 2, "batch_size:\n  values: [16, 32, 128, 256]\n");
	drop_case(f, in, "batch_size.values", 4, "batch_size:\n  values: [16, 32, 64, 128]\n");
	/* no spaces, trailing comma, odd spacing */
	drop_case(f, "v: [1,2,3]\n", "v", 1, "v: [1,3]\n");
	drop_case(f, "v: [1,2,3]\n", "v", 2, "v: [1,2]\n");
	drop_case(f, "v: [ 1 , 2 , 3 ]\n", "v", 0, "v: [ 2 , 3 ]\n");
	drop_case(f, "v: [ 1 , 2 , 3 ]\n", "v", 2, "v: [ 1 , 2 ]\n");
	drop_case(f, "v: [a, b, c,]\n", "v", 2, "v: [a, b,]\n");
	drop_case(f, "v: ['a', \"b, c\", d]  # keep\n", "v", 1, "v: ['a', d]  # keep\n");
}

static void test_flow_sets(void **state)
{
	struct fx *f = *state;
	const char *in = "v: [16, 32, 64, 128, 256]\n";
	load(f, in);
	bool d1[5] = {true, false, false, false, true};
	assert_int_equal(sl_edits_remove_items(&f->e, at(f, "v"), d1), 0);
	expect(f, "v: [32, 64, 128]\n");

	load(f, in);
	bool d2[5] = {false, true, true, false, false};
	assert_int_equal(sl_edits_remove_items(&f->e, at(f, "v"), d2), 0);
	expect(f, "v: [16, 128, 256]\n");

	/* separate requests on one list compose (neighbours share a comma) */
	load(f, in);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "v"), 3), 0);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "v"), 4), 0);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "v"), 0), 0);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "v"), 0), 0); /* asked twice: same */
	expect(f, "v: [32, 64]\n");

	/* split: keep only the given texts */
	load(f, in);
	const char *keep[] = {"128"};
	assert_int_equal(sl_edits_keep_texts(&f->e, at(f, "v"), keep, 1), 0);
	expect(f, "v: [128]\n");
	load(f, in);
	const char *missing[] = {"512"};
	assert_int_equal(sl_edits_keep_texts(&f->e, at(f, "v"), missing, 1), -SL_EUSAGE);
}

static void test_flow_multiline(void **state)
{
	struct fx *f = *state;
	const char *in = "batch_size:\n"
			 "  values: [\n"
			 "    16,   # small\n"
			 "    32,\n"
			 "    64,  # big\n"
			 "  ]\n"
			 "lr: 1\n";
	drop_case(f, in, "batch_size.values", 0,
		  "batch_size:\n  values: [\n    32,\n    64,  # big\n  ]\nlr: 1\n");
	drop_case(f, in, "batch_size.values", 1,
		  "batch_size:\n  values: [\n    16,   # small\n    64,  # big\n  ]\nlr: 1\n");
	drop_case(f, in, "batch_size.values", 2,
		  "batch_size:\n  values: [\n    16,   # small\n    32,\n  ]\nlr: 1\n");

	/* the closing bracket on the last item's line: the comma before stays as a trailing comma */
	const char *in2 = "values: [16,\n         32,\n         64]\n";
	drop_case(f, in2, "values", 2, "values: [16,\n         32,\n]\n");
	drop_case(f, in2, "values", 1, "values: [16,\n         64]\n");
	drop_case(f, in2, "values", 0, "values: [\n         32,\n         64]\n");

	/* items sharing lines, a comment between them */
	const char *in3 = "v: [1, 2,  # two\n    3, 4]\n";
	drop_case(f, in3, "v", 1, "v: [1,  # two\n    3, 4]\n");
	drop_case(f, in3, "v", 2, "v: [1, 2,  # two\n    4]\n");
	drop_case(f, in3, "v", 3, "v: [1, 2,  # two\n    3]\n");

	/* leading commas */
	drop_case(f, "v: [a\n   , b\n   , c]\n", "v", 1, "v: [a\n   , c]\n");
}

/* ---- block sequences ------------------------------------------------------------------ */

static void test_block_items(void **state)
{
	struct fx *f = *state;
	const char *in = "parameters:\n"
			 "  batch_size:\n"
			 "    values:\n"
			 "      - 16\n"
			 "      - 256  # too big\n"
			 "      # - 512\n"
			 "      - 32\n"
			 "  lr:\n"
			 "    value: 1\n";
	drop_case(f, in, "parameters.batch_size.values", 1,
		  "parameters:\n  batch_size:\n    values:\n      - 16\n      # - 512\n      - 32\n"
		  "  lr:\n    value: 1\n");
	drop_case(f, in, "parameters.batch_size.values", 0,
		  "parameters:\n  batch_size:\n    values:\n      - 256  # too big\n      # - 512\n      - 32\n"
		  "  lr:\n    value: 1\n");
	drop_case(f, in, "parameters.batch_size.values", 2,
		  "parameters:\n  batch_size:\n    values:\n      - 16\n      - 256  # too big\n      # - 512\n"
		  "  lr:\n    value: 1\n");

	/* indentless sequence, nested mapping items, a literal block, a comment that belongs */
	const char *in2 = "values:\n"
			  "- name: a\n"
			  "  size: 1\n"
			  "  # about a\n"
			  "- |\n"
			  "  text\n"
			  "\n"
			  "- last\n";
	drop_case(f, in2, "values", 0, "values:\n- |\n  text\n\n- last\n");
	drop_case(f, in2, "values", 1, "values:\n- name: a\n  size: 1\n  # about a\n- last\n");
	drop_case(f, in2, "values", 2, "values:\n- name: a\n  size: 1\n  # about a\n- |\n  text\n\n");
}

static void test_crlf(void **state)
{
	struct fx *f = *state;
	const char *in = "a:\r\n  values:\r\n  - 1\r\n  - 2  # x\r\n  - 3\r\nb: [1, 2]\r\n";
	drop_case(f, in, "a.values", 1, "a:\r\n  values:\r\n  - 1\r\n  - 3\r\nb: [1, 2]\r\n");
	drop_case(f, in, "b", 0, "a:\r\n  values:\r\n  - 1\r\n  - 2  # x\r\n  - 3\r\nb: [2]\r\n");
	load(f, in);
	assert_int_equal(sl_edits_insert_line(&f->e, f->doc->root, 1, "run_cap: 12"), 0);
	expect(f, "a:\r\n  values:\r\n  - 1\r\n  - 2  # x\r\n  - 3\r\nrun_cap: 12\r\nb: [1, 2]\r\n");
}

static void test_no_final_newline(void **state)
{
	struct fx *f = *state;
	drop_case(f, "values:\n- 1\n- 2", "values", 1, "values:\n- 1");
	drop_case(f, "values:\r\n- 1\r\n- 2", "values", 1, "values:\r\n- 1");
	drop_case(f, "values:\n- 1\n- 2\n- 3", "values", 0, "values:\n- 2\n- 3");
	load(f, "values:\n- 1\n- 2\n- 3");
	bool d[3] = {false, true, true};
	assert_int_equal(sl_edits_remove_items(&f->e, at(f, "values"), d), 0);
	expect(f, "values:\n- 1");
	drop_case(f, "v: [1, 2]", "v", 0, "v: [2]");
	load(f, "a: 1\nb: 2");
	assert_int_equal(sl_edits_insert_line(&f->e, f->doc->root, 2, "run_cap: 12"), 0);
	expect(f, "a: 1\nb: 2\nrun_cap: 12");
	load(f, "a: 1\nb: 2");
	assert_int_equal(sl_edits_remove_pair(&f->e, f->doc->root, 1), 0);
	expect(f, "a: 1");
	/* blank lines before the removed last lines go too, or the file would end with a newline */
	load(f, "a: 1\r\n\r\nb:\r\n  - 2");
	assert_int_equal(sl_edits_remove_pair(&f->e, f->doc->root, 1), 0);
	expect(f, "a: 1");
}

static void test_korean_and_tabs(void **state)
{
	struct fx *f = *state;
	const char *in = "# 배치 크기: 256은 OOM\n"
			 "batch_size:\n"
			 "  values: [16, 32, 256]  # 256은 A100에서 OOM\n"
			 "model:\n"
			 "  values:\n"
			 "    - \"모델-가\"   # 첫째\n"
			 "    - 모델-나\n";
	drop_case(f, in, "batch_size.values", 2,
		  "# 배치 크기: 256은 OOM\nbatch_size:\n  values: [16, 32]  # 256은 A100에서 OOM\n"
		  "model:\n  values:\n    - \"모델-가\"   # 첫째\n    - 모델-나\n");
	drop_case(f, in, "model.values", 0,
		  "# 배치 크기: 256은 OOM\nbatch_size:\n  values: [16, 32, 256]  # 256은 A100에서 OOM\n"
		  "model:\n  values:\n    - 모델-나\n");
	drop_case(f, "v: [16,\t32,\t64]\t# tab\n", "v", 1, "v: [16,\t64]\t# tab\n");
	drop_case(f, "v: [16,\t32,\t64]\t# tab\n", "v", 2, "v: [16,\t32]\t# tab\n");
	drop_case(f, "v:\n  - 1\t# one\n  - 2\n", "v", 0, "v:\n  - 2\n");
}

/* ---- mappings ------------------------------------------------------------------------- */

static void test_pairs(void **state)
{
	struct fx *f = *state;
	const char *in = "parameters:\n"
			 "  optimizer:\n"
			 "    parameters:\n"
			 "      lr:\n"
			 "        values: [0.1, 0.01]\n"
			 "      momentum:   # sgd only\n"
			 "        value: 0.9\n"
			 "        # value: 0.95\n"
			 "  epochs:\n"
			 "    value: 3\n";
	load(f, in);
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "parameters.optimizer.parameters"), 1), 0);
	expect(f, "parameters:\n  optimizer:\n    parameters:\n      lr:\n        values: [0.1, 0.01]\n"
		  "  epochs:\n    value: 3\n");
	load(f, in);
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "parameters"), 0), 0);
	expect(f, "parameters:\n  epochs:\n    value: 3\n");
	load(f, in);
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "parameters"), 1), 0);
	expect(f, "parameters:\n  optimizer:\n    parameters:\n      lr:\n        values: [0.1, 0.01]\n"
		  "      momentum:   # sgd only\n        value: 0.9\n        # value: 0.95\n");

	/* flow mappings */
	load(f, "lr: {min: 0.0001, max: 0.01}  # range\n");
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "lr"), 0), 0);
	expect(f, "lr: {max: 0.01}  # range\n");
	load(f, "lr: {min: 0.0001, max: 0.01}  # range\n");
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "lr"), 1), 0);
	expect(f, "lr: {min: 0.0001}  # range\n");

	/* a compact mapping in a sequence item: the next key moves up */
	load(f, "- a: 1  # x\n  b: 2\n  c: 3\n");
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "0"), 0), 0);
	expect(f, "- b: 2\n  c: 3\n");
	load(f, "- a: 1\n  b: 2\n  c: 3\n");
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "0"), 1), 0);
	expect(f, "- a: 1\n  c: 3\n");

	/* never empty */
	load(f, "a:\n  b: 1\n");
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "a"), 0), -SL_EUSAGE);
	assert_int_equal(sl_edits_remove_pair(&f->e, at(f, "a"), 1), -SL_EUSAGE);
}

static void test_remove_all_refused(void **state)
{
	struct fx *f = *state;
	load(f, "v: [1, 2]\nw:\n- 1\n");
	bool all[2] = {true, true};
	assert_int_equal(sl_edits_remove_items(&f->e, at(f, "v"), all), -SL_EUSAGE);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "w"), 0), -SL_EUSAGE);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "v"), 2), -SL_EUSAGE);
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "v"), 0), 0);
	/* the union with the first request would empty v: refused, the first one stands */
	assert_int_equal(sl_edits_remove_item(&f->e, at(f, "v"), 1), -SL_EUSAGE);
	assert_int_equal(sl_edits_remove_item(&f->e, f->doc->root, 0), -SL_EUSAGE); /* not a sequence */
	expect(f, "v: [2]\nw:\n- 1\n");
}

static void test_anchors(void **state)
{
	struct fx *f = *state;
	/* the alias is the same list: removing from it edits the anchored definition */
	const char *in = "sizes: &sizes [16, 32, 64]\n"
			 "parameters:\n"
			 "  batch_size:\n"
			 "    values: *sizes\n"
			 "  eval_batch_size:\n"
			 "    values: *sizes\n";
	load(f, in);
	const struct sl_node *v = at(f, "parameters.batch_size.values");
	assert_ptr_equal(v, at(f, "parameters.eval_batch_size.values"));
	assert_int_equal(sl_edits_remove_item(&f->e, v, 2), 0);
	expect(f, "sizes: &sizes [16, 32]\nparameters:\n  batch_size:\n    values: *sizes\n"
		  "  eval_batch_size:\n    values: *sizes\n");

	/* alias items go as "*name"; the anchors stay */
	const char *in2 = "a: &a 1\nb: &b 2\nv: [*a, *b, 3]\nw:\n  - *a\n  - &c 4\n  - *c\n";
	drop_case(f, in2, "v", 0, "a: &a 1\nb: &b 2\nv: [*b, 3]\nw:\n  - *a\n  - &c 4\n  - *c\n");
	drop_case(f, in2, "v", 1, "a: &a 1\nb: &b 2\nv: [*a, 3]\nw:\n  - *a\n  - &c 4\n  - *c\n");
	drop_case(f, in2, "w", 2, "a: &a 1\nb: &b 2\nv: [*a, *b, 3]\nw:\n  - *a\n  - &c 4\n");
	drop_case(f, in2, "w", 0, "a: &a 1\nb: &b 2\nv: [*a, *b, 3]\nw:\n  - &c 4\n  - *c\n");

	/* an anchored block sequence keeps its anchor */
	drop_case(f, "v: &x\n  - 1\n  - 2\nw: *x\n", "v", 0, "v: &x\n  - 2\nw: *x\n");
}

/* ---- scalars -------------------------------------------------------------------------- */

/*
 * sl_edits_keep_item (split --by: one value of a list) gives the bytes of removing every other item
 * (sl_edits_remove_items), for every item of flow lists in the layouts split meets (the keep-one plan
 * of a flow list reads only the entries around the kept one), block lists, anchors and aliases.
 */
static void test_keep_item(void **state)
{
	struct fx *f = *state;
	static const char *const texts[] = {
		"v: [a, b, c, d, e]\n",
		"v: [ a , b , c ]\n",
		"v: [a]\n",
		"v: [a, b]\n",
		"v: [\n  a,   # one\n  b,\n  c,  # three\n]\n",
		"v: [a,\n    b,\n    c]\n",
		"v: !!seq [a, \"b\", 'c', {x: 1}, [1, 2]]\n",
		"v: [&m a, b, c]\nw: *m\n",
		"t: &m x\nv: [a, *m, c]\n",
		"v: [&m a, *m, c]\n",
		"v: [a, b, c,]\n",
		"v:\n  - a\n  - b  # two\n  - c\n",
		"v:\n- a\n- b\n- c",
	};
	for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
		load(f, texts[t]);
		size_t n = at(f, "v")->n;
		for (size_t k = 0; k < n; k++) {
			load(f, texts[t]);
			const struct sl_node *v = at(f, "v");
			bool *drop = sl_arena_array(f->a, n, sizeof *drop);
			bool some = false;
			for (size_t i = 0; i < n; i++)
				some |= drop[i] = i != k;
			struct sl_buf want = {0};
			int wrc = some ? sl_edits_remove_items(&f->e, v, drop) : 0;
			if (wrc == 0)
				assert_int_equal(sl_edits_apply(&f->e, &want), 0);
			sl_edits_init(&f->e, f->a, f->src);
			int rc = sl_edits_keep_item(&f->e, v, k);
			assert_int_equal(rc, wrc);
			if (rc != 0)
				continue;
			/* the same bytes (an alias of a removed anchor may dangle: the rewrite inlines it later) */
			struct sl_buf got;
			assert_int_equal(sl_edits_apply(&f->e, &got), 0);
			if (got.len != want.len || memcmp(got.buf, want.buf, want.len) != 0) {
				print_error("text %zu, item %zu: want:\n[%s]\ngot:\n[%s]\n", t, k, want.buf, got.buf);
				fail();
			}
		}
	}
	load(f, texts[0]);
	assert_int_equal(sl_edits_keep_item(&f->e, at(f, "v"), 5), -SL_EUSAGE);
}

static void set_case(struct fx *f, const char *text, const char *path, const char *value, enum sl_vtype want,
		     const char *expected)
{
	load(f, text);
	assert_int_equal(sl_edits_set_scalar(&f->e, f->r, at(f, path), value, strlen(value), want), 0);
	expect(f, expected);
}

static void test_set_scalar(void **state)
{
	struct fx *f = *state;
	set_case(f, "lr:\n  min: 1\n  max: 512  # tokens\n", "lr.max", "256", SL_V_INT,
		 "lr:\n  min: 1\n  max: 256  # tokens\n");
	set_case(f, "name: foo\n", "name", "foo (bge-m3-ko)", SL_V_STR, "name: foo (bge-m3-ko)\n");
	set_case(f, "name: \"foo\"\n", "name", "bar", SL_V_STR, "name: \"bar\"\n");
	set_case(f, "name: 'foo'\n", "name", "it's", SL_V_STR, "name: 'it''s'\n");
	set_case(f, "name: 모델\n", "name", "모델 (bge-m3-ko)", SL_V_STR, "name: 모델 (bge-m3-ko)\n");
	/* strings PyYAML would read as something else are quoted */
	set_case(f, "x: a\n", "x", "1.0", SL_V_STR, "x: '1.0'\n");
	set_case(f, "x: a\n", "x", "yes", SL_V_STR, "x: 'yes'\n");
	set_case(f, "x: a\n", "x", "010", SL_V_STR, "x: '010'\n");
	set_case(f, "x: a\n", "x", "~", SL_V_STR, "x: '~'\n");
	set_case(f, "x: a\n", "x", "2024-01-01", SL_V_STR, "x: '2024-01-01'\n");
	/* 1e-5 is a string to PyYAML already: no quotes needed */
	set_case(f, "x: a\n", "x", "1e-5", SL_V_STR, "x: 1e-5\n");
	/* ... and a float needs the dot */
	set_case(f, "x: 1e-4\n", "x", "1.0e-5", SL_V_FLOAT, "x: 1.0e-5\n");
	load(f, "x: 1\n");
	assert_int_equal(sl_edits_set_scalar(&f->e, f->r, at(f, "x"), "1e-5", 4, SL_V_FLOAT), -SL_EUSAGE);
	assert_int_equal(sl_edits_set_scalar(&f->e, f->r, at(f, "x"), "abc", 3, SL_V_INT), -SL_EUSAGE);
	/* an int written quoted becomes plain when an int is wanted */
	set_case(f, "x: \"512\"\n", "x", "256", SL_V_INT, "x: 256\n");
	/* text that is not plain-safe */
	set_case(f, "x: a\n", "x", "a: b", SL_V_STR, "x: 'a: b'\n");
	set_case(f, "x: a\n", "x", "a #b", SL_V_STR, "x: 'a #b'\n");
	set_case(f, "x: a\n", "x", "- a", SL_V_STR, "x: '- a'\n");
	set_case(f, "x: a\n", "x", "line\nbreak", SL_V_STR, "x: \"line\\nbreak\"\n");
	set_case(f, "x: [a, b]\n", "x.0", "c, d", SL_V_STR, "x: ['c, d', b]\n");
	set_case(f, "x: [a, b]\n", "x.1", "c", SL_V_STR, "x: [a, c]\n");
	/* anchor and tag stay */
	set_case(f, "x: &a !!str 3\ny: *a\n", "x", "4", SL_V_STR, "x: &a !!str 4\ny: *a\n");
	/* block scalars are not rewritten */
	load(f, "x: |\n  a\n");
	assert_int_equal(sl_edits_set_scalar(&f->e, f->r, at(f, "x"), "b", 1, SL_V_STR), -SL_ELIMIT);
	load(f, "x: [a]\n");
	assert_int_equal(sl_edits_set_scalar(&f->e, f->r, at(f, "x"), "b", 1, SL_V_STR), -SL_EUSAGE);

	/* sl_edit_spell on its own */
	int err = 1;
	assert_string_equal(sl_edit_spell(f->a, f->r, "true", 4, SL_V_STR, SL_STYLE_PLAIN, false, NULL, &err),
			    "'true'");
	assert_int_equal(err, 0);
	assert_string_equal(sl_edit_spell(f->a, f->r, "true", 4, SL_V_BOOL, SL_STYLE_DOUBLE, false, NULL, &err),
			    "true");
	assert_string_equal(sl_edit_spell(f->a, f->r, "a\"b", 3, SL_V_STR, SL_STYLE_DOUBLE, false, NULL, &err),
			    "\"a\\\"b\"");
	assert_null(sl_edit_spell(f->a, f->r, "x", 1, SL_V_INT, SL_STYLE_PLAIN, false, NULL, &err));
	assert_int_equal(err, -SL_EUSAGE);
	/* characters YAML does not allow raw (C1, U+FEFF, U+FFFE) or reads as line breaks (NEL, U+2028):
	 * escaped in double quotes (a sweep name "\x9b" made split exit 70: the raw spelling did not parse) */
	static const struct {
		const char *text, *want;
	} odd[] = {
		{"a\xc2\x9b" "b", "\"a\\x9bb\""},
		{"a\xc2\x85" "b", "\"a\\x85b\""},
		{"a\xe2\x80\xa8" "b", "\"a\\u2028b\""},
		{"\xef\xbb\xbf" "b", "\"\\ufeffb\""},
		{"a\xef\xbf\xbe", "\"a\\ufffe\""},
		{"a\x7f", "\"a\\x7f\""},
		{"\xe2\x80\xae" "rtl", "\xe2\x80\xae" "rtl"}, /* bidi controls are printable YAML: kept */
		{"\xea\xb0\x80", "\xea\xb0\x80"},
	};
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
		const char *got = sl_edit_spell(f->a, f->r, odd[i].text, strlen(odd[i].text), SL_V_STR, SL_STYLE_PLAIN,
						false, NULL, &err);
		assert_non_null(got);
		assert_string_equal(got, odd[i].want);
		assert_non_null(sl_edit_spell(f->a, f->r, odd[i].text, strlen(odd[i].text), SL_V_STR, SL_STYLE_PLAIN,
					      true, NULL, &err));
	}
}

/* ---- insertions ----------------------------------------------------------------------- */

static void test_insert(void **state)
{
	struct fx *f = *state;
	const char *in = "# sweep\n"
			 "method: grid\n"
			 "parameters:\n"
			 "    lr:\n"
			 "        value: 1\n"
			 "        # value: 2\n"
			 "    bs:\n"
			 "        values: [1, 2]\n";
	load(f, in);
	assert_int_equal(sl_edits_insert_line(&f->e, f->doc->root, 0, "# generated by sweeplint split --by bs"), 0);
	assert_int_equal(sl_edits_insert_line(&f->e, f->doc->root, 1, "run_cap: 12"), 0);
	assert_int_equal(sl_edits_insert_line(&f->e, at(f, "parameters"), 1, "wd:"), 0);
	assert_int_equal(sl_edits_insert_line(&f->e, at(f, "parameters"), 2, "ep: {value: 3}"), 0);
	expect(f, "# sweep\n"
		  "# generated by sweeplint split --by bs\n"
		  "method: grid\n"
		  "run_cap: 12\n"
		  "parameters:\n"
		  "    lr:\n"
		  "        value: 1\n"
		  "        # value: 2\n"
		  "    wd:\n"
		  "    bs:\n"
		  "        values: [1, 2]\n"
		  "    ep: {value: 3}\n");

	load(f, "- a: 1\n  b: 2\n");
	assert_int_equal(sl_edits_insert_pair(&f->e, f->r, at(f, "0"), 2, "name", "yes", SL_V_STR), 0);
	assert_int_equal(sl_edits_insert_pair(&f->e, f->r, at(f, "0"), 1, "n", "12", SL_V_INT), 0);
	expect(f, "- a: 1\n  n: 12\n  b: 2\n  name: 'yes'\n");
	load(f, "- a: 1\n");
	assert_int_equal(sl_edits_insert_line(&f->e, at(f, "0"), 0, "z: 0"), -SL_ELIMIT);
	assert_int_equal(sl_edits_insert_line(&f->e, at(f, "0"), 2, "z: 0"), -SL_EUSAGE);
	load(f, "a: {b: 1}\n");
	assert_int_equal(sl_edits_insert_line(&f->e, at(f, "a"), 1, "z: 0"), -SL_EUSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_noop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_splice_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_positions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_sets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_multiline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_item, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_items, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crlf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_final_newline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_korean_and_tabs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_all_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_anchors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_scalar, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insert, setup, teardown),
	};
	return cmocka_run_group_tests_name("edit", tests, NULL, NULL);
}
