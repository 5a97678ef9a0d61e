/*
 * pysweep: the sweeps a Python file or notebook defines, as ydoc trees (see pysweep.h).
 *
 * The code goes to the embedded reader (pysweep.py) as JSON, cell by cell; its answer comes back as
 * JSON trees whose nodes carry [cell, line, byte column] spans, turned here into spans of the code
 * source and scalars typed with the run's PyYAML resolver: the text W&B receives, read back as
 * PyYAML reads it.
 */
#include "sweeplint/pysweep.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "child.h"
#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/json_bound.h"
#include "sweeplint/notebook.h"
#include "sweeplint/program.h"
#include "sweeplint/scalar.h"
#include "sweeplint/ydoc.h"

/* The most code the reader is given: a script (or a notebook's cells together) past it is not read. */
#define MAX_CODE_BYTES ((size_t)1 << 20)
/* Evaluation steps of one read (a 5,000-line script with one sweep takes about 40,000). */
#define READ_BUDGET 400000

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

enum sl_code_kind sl_code_kind(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return SL_CODE_NONE;
	if (ends_with(path, ".py"))
		return SL_CODE_PYTHON;
	if (ends_with(path, ".ipynb"))
		return SL_CODE_NOTEBOOK;
	return SL_CODE_NONE;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Whether word (lower case) occurs in [s, s + n) in any case. */
static bool has_word(const char *s, size_t n, const char *word)
{
	size_t m = strlen(word);
	for (size_t i = 0; i + m <= n; i++) {
		const char *p = memchr(s + i, word[0], n - i - m + 1);
		const char *q = memchr(s + i, word[0] - 32, n - i - m + 1);
		if (!p || (q && q < p))
			p = q;
		if (!p)
			return false;
		i = (size_t)(p - s);
		size_t k = 1;
		while (k < m && lower((unsigned char)s[i + k]) == word[k])
			k++;
		if (k == m)
			return true;
	}
	return false;
}

static bool ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

/* A call of a name ending in "sweep" — sweep(, wandb.sweep (, not sweeps( or sweep_id( — in [s, s + n). */
static bool has_sweep_call(const char *s, size_t n)
{
	for (const char *p = s; (p = memchr(p, 's', (size_t)(s + n - p))) != NULL; p++) {
		size_t left = (size_t)(s + n - p);
		if (left < 6 || memcmp(p, "sweep", 5) != 0 || (p > s && ident_char((unsigned char)p[-1]) && p[-1] != '.'))
			continue;
		const char *q = p + 5;
		while (q < s + n && (*q == ' ' || *q == '\t'))
			q++;
		if (q < s + n && *q == '(')
			return true;
	}
	return false;
}

bool sl_code_may_define_sweep(const char *bytes, size_t len)
{
	return has_word(bytes, len, "wandb") && (has_sweep_call(bytes, len) ||
						 has_word(bytes, len, "hyperparameter_search"));
}

/* ---- positions ---- */

/* The byte of (cell, line, byte column) of the reader's answer in the code source, clamped to it. */
static size_t offset_of(const struct sl_source *code, size_t base_line, size_t bom, json_int_t line,
			json_int_t col)
{
	if (line < 1)
		return 0;
	size_t l = base_line + (size_t)line - 1;
	if (l < 1 || l > code->nlines)
		return code->len;
	size_t off = code->line_start[l - 1];
	size_t next = l < code->nlines ? code->line_start[l] : code->len;
	if (l == 1)
		off += bom;
	if (col > 0)
		off += (size_t)col;
	return off > next ? next : off;
}

struct reading {
	struct sl_arena *a;
	struct sl_source *code;
	const struct sl_notebook *nb;
	const struct sl_scalar_resolver *res;
	size_t nnodes;
	uint32_t *blank;             /* lines of the code source that are not Python (a notebook's magics) */
	size_t nblank;
};

/* The span of an "at" [cell, line, col, end_line, end_col]. */
static struct sl_span span_of(struct reading *R, const json_t *at)
{
	json_int_t v[5] = {0, 0, 0, 0, 0};
	for (size_t k = 0; k < 5 && k < json_array_size(at); k++)
		v[k] = json_integer_value(json_array_get(at, k));
	size_t base = 1, bom = R->code->bom;
	if (R->nb) {
		if (v[0] < 0 || (size_t)v[0] >= R->nb->ncells)
			return sl_source_span(R->code, 0, 0);
		base = R->nb->cells[v[0]].first_line;
		bom = 0;
	}
	size_t s = offset_of(R->code, base, bom, v[1], v[2]);
	size_t e = offset_of(R->code, base, bom, v[3], v[4]);
	if (e < s)
		e = s;
	return sl_source_span(R->code, s, e);
}

static struct sl_node *make(struct reading *R, const json_t *j, struct sl_node *parent, unsigned depth)
{
	if (!json_is_object(j) || depth > SL_YDOC_MAX_DEPTH || ++R->nnodes > SL_YDOC_MAX_NODES)
		return NULL;
	struct sl_arena *a = R->a;
	struct sl_node *n = sl_arena_alloc(a, sizeof *n);
	n->parent = parent;
	n->span = span_of(R, json_object_get(j, "at"));
	n->weight = 1;
	const char *c = json_string_value(json_object_get(j, "c"));
	if (c)
		n->computed = sl_arena_strdup(a, c);
	const char *k = json_string_value(json_object_get(j, "k"));
	if (!k)
		return NULL;
	if (strcmp(k, "m") == 0) {
		const json_t *ps = json_object_get(j, "p");
		n->kind = SL_NODE_MAP;
		n->style = SL_STYLE_FLOW;
		n->n = json_array_size(ps);
		n->pairs = sl_arena_array(a, n->n ? n->n : 1, sizeof *n->pairs);
		for (size_t i = 0; i < n->n; i++) {
			const json_t *p = json_array_get(ps, i);
			n->pairs[i].key = make(R, json_array_get(p, 0), n, depth + 1);
			n->pairs[i].value = make(R, json_array_get(p, 1), n, depth + 1);
			if (!n->pairs[i].key || !n->pairs[i].value)
				return NULL;
			n->weight += n->pairs[i].key->weight + n->pairs[i].value->weight;
		}
		return n;
	}
	if (strcmp(k, "s") == 0) {
		const json_t *is = json_object_get(j, "i");
		n->kind = SL_NODE_SEQ;
		n->style = SL_STYLE_FLOW;
		n->n = json_array_size(is);
		n->items = sl_arena_array(a, n->n ? n->n : 1, sizeof *n->items);
		for (size_t i = 0; i < n->n; i++) {
			n->items[i] = make(R, json_array_get(is, i), n, depth + 1);
			if (!n->items[i])
				return NULL;
			n->weight += n->items[i]->weight;
		}
		return n;
	}
	const char *t = json_string_value(json_object_get(j, "t"));
	const json_t *v = json_object_get(j, "v");
	if (!t || !json_is_string(v))
		return NULL;
	n->kind = SL_NODE_SCALAR;
	n->text_len = json_string_length(v);
	n->text = sl_arena_strndup(a, json_string_value(v), n->text_len);
	const char *q = json_string_value(json_object_get(j, "q"));
	bool str = strcmp(t, "str") == 0;
	n->style = !str ? SL_STYLE_PLAIN : (q && strcmp(q, "'") == 0 ? SL_STYLE_SINGLE : SL_STYLE_DOUBLE);
	/* what PyYAML reads from what W&B receives: a str stays a str (yaml.dump quotes it when it must) */
	n->value = sl_scalar_resolve(R->res, n->text, n->text_len, !str, NULL, NULL);
	if (str && n->value.type != SL_V_STR) {
		memset(&n->value, 0, sizeof n->value);
		n->value.type = SL_V_STR;
	}
	if (!str && strcmp(sl_vtype_name(n->value.type), t) != 0)
		return NULL; /* the reader's text does not read back as its type: a bug there, not a value */
	if (str)
		n->value.looks_numeric = false; /* a quoted Python string is a string on purpose */
	return n;
}

/* ---- the reader's answer ---- */

static struct sl_span at_or(struct reading *R, const json_t *at)
{
	return json_is_array(at) ? span_of(R, at) : sl_source_span(R->code, 0, 0);
}

static const char *where_line(struct reading *R, json_int_t cell, json_int_t line)
{
	if (R->nb && cell >= 0 && (size_t)cell < R->nb->ncells)
		return sl_arena_printf(R->a, "cell %u, line %lld", R->nb->cells[cell].number, (long long)line);
	return sl_arena_printf(R->a, "line %lld", (long long)line);
}

static const char *str_or(const json_t *j, const char *dflt)
{
	const char *s = json_string_value(j);
	return s ? s : dflt;
}

static void read_sweep(struct reading *R, const json_t *js, struct sl_pysweep *s)
{
	struct sl_arena *a = R->a;
	s->how = sl_arena_strdup(a, str_or(json_object_get(js, "how"), "wandb.sweep(...)"));
	s->at = at_or(R, json_object_get(js, "at"));
	const json_t *hp = json_object_get(js, "hp");
	s->hp_space = json_is_object(hp);
	if (json_is_string(json_object_get(hp, "model_init")))
		s->model_init = sl_arena_strdup(a, json_string_value(json_object_get(hp, "model_init")));
	if (json_is_string(json_object_get(hp, "args_class")))
		s->args_class = sl_arena_strdup(a, json_string_value(json_object_get(hp, "args_class")));
	const char *u = json_string_value(json_object_get(js, "unknown"));
	if (u)
		s->unknown = sl_arena_strdup(a, u);
	const json_t *f = json_object_get(js, "file");
	if (json_is_object(f) && json_is_string(json_object_get(f, "path"))) {
		s->file = sl_arena_strdup(a, json_string_value(json_object_get(f, "path")));
		s->file_at = at_or(R, json_object_get(f, "at"));
		s->file_script_dir = json_is_true(json_object_get(f, "script_dir"));
	}
	const json_t *ag = json_object_get(js, "agent");
	if (json_is_object(ag) && json_is_string(json_object_get(ag, "function"))) {
		s->function = sl_arena_strdup(a, json_string_value(json_object_get(ag, "function")));
		s->function_local = json_is_true(json_object_get(ag, "local"));
		s->function_at = at_or(R, json_object_get(ag, "at"));
	}
	const json_t *runs = json_object_get(js, "runs");
	json_int_t count = json_integer_value(json_object_get(runs, "count"));
	if (count > 0) {
		s->runs = count;
		s->runs_by = sl_arena_strdup(a, str_or(json_object_get(runs, "by"), "wandb.agent(count=...)"));
		s->runs_at = at_or(R, json_object_get(runs, "at"));
	}
	const json_t *ps = json_object_get(js, "problems");
	s->nproblems = json_array_size(ps);
	s->problems = sl_arena_array(a, s->nproblems ? s->nproblems : 1, sizeof *s->problems);
	for (size_t i = 0; i < s->nproblems; i++) {
		const json_t *p = json_array_get(ps, i);
		struct sl_pysweep_problem *pr = &s->problems[i];
		pr->at = at_or(R, json_object_get(p, "at"));
		pr->rule = sl_arena_strdup(a, str_or(json_object_get(p, "rule"), "schema"));
		pr->message = sl_arena_strdup(a, str_or(json_object_get(p, "message"), ""));
		const char *h = json_string_value(json_object_get(p, "hint"));
		pr->hint = h ? sl_arena_strdup(a, h) : NULL;
	}
	const json_t *dr = json_object_get(js, "dropped");
	s->ndropped = json_array_size(dr);
	s->dropped = sl_arena_array(a, s->ndropped ? s->ndropped : 1, sizeof *s->dropped);
	for (size_t i = 0; i < s->ndropped; i++) {
		const json_t *d = json_array_get(dr, i);
		s->dropped[i] = sl_arena_printf(a, "%s: %s", str_or(json_array_get(d, 0), "?"),
						str_or(json_array_get(d, 1), "not known"));
	}
	const json_t *tree = json_object_get(js, "tree");
	if (json_is_object(tree) && !s->unknown && !s->nproblems) {
		R->nnodes = 0;
		struct sl_node *root = make(R, tree, NULL, 0);
		if (!root) {
			s->unknown = R->nnodes > SL_YDOC_MAX_NODES ? "more nodes than the loader's bound"
								   : "the reader's tree could not be read";
			return;
		}
		struct sl_ydoc *doc = sl_arena_alloc(a, sizeof *doc);
		doc->src = R->code;
		doc->root = root;
		doc->ndocs = 1;
		doc->ok = true;
		s->doc = doc;
	}
}

static void read_answer(struct reading *R, const char *text, size_t len, struct sl_pysweeps *out)
{
	struct sl_arena *a = R->a;
	json_error_t err;
	json_t *j = sl_json_loadb_bounded(text, len, 0, 4 * SL_YDOC_MAX_NODES, &err);
	if (!json_is_object(j)) {
		out->error = sl_arena_printf(a, "the reader's answer is not JSON: %s", err.text);
		json_decref(j);
		return;
	}
	const char *e = json_string_value(json_object_get(j, "error"));
	if (e) {
		json_int_t cell = json_integer_value(json_object_get(j, "cell"));
		json_int_t line = json_integer_value(json_object_get(j, "line"));
		out->error = line ? sl_arena_printf(a, "%s: %s", where_line(R, cell, line), e) : sl_arena_strdup(a, e);
		json_decref(j);
		return;
	}
	const json_t *ss = json_object_get(j, "sweeps");
	out->n = json_array_size(ss);
	out->v = sl_arena_array(a, out->n ? out->n : 1, sizeof *out->v);
	for (size_t i = 0; i < out->n; i++)
		read_sweep(R, json_array_get(ss, i), &out->v[i]);
	const json_t *bl = json_object_get(j, "blank");
	size_t nb = json_array_size(bl);
	R->blank = sl_arena_array(a, nb ? nb : 1, sizeof *R->blank);
	for (size_t i = 0; i < nb; i++) {
		json_int_t c = json_integer_value(json_array_get(json_array_get(bl, i), 0));
		json_int_t l = json_integer_value(json_array_get(json_array_get(bl, i), 1));
		if (R->nb && c >= 0 && (size_t)c < R->nb->ncells && l >= 1)
			R->blank[R->nblank++] = R->nb->cells[c].first_line + (uint32_t)l - 1;
	}
	const json_t *ns = json_object_get(j, "notes");
	size_t nn = json_array_size(ns);
	out->notes = sl_arena_array(a, nn ? nn : 1, sizeof *out->notes);
	for (size_t i = 0; i < nn; i++) {
		const json_t *n = json_array_get(ns, i);
		json_int_t line = json_integer_value(json_array_get(n, 1));
		const char *t = str_or(json_array_get(n, 2), "");
		out->notes[out->nnotes++] = line ? sl_arena_printf(a, "%s: %s", where_line(R, json_integer_value(
											json_array_get(n, 0)), line), t)
						 : sl_arena_strdup(a, t);
	}
	json_decref(j);
}

int sl_pysweep_read(struct sl_arena *a, struct sl_source *src, const struct sl_pysweep_opts *o,
		    struct sl_pysweeps *out, const char **why, size_t *bad_at)
{
	memset(out, 0, sizeof *out);
	struct reading R = {.a = a, .res = o->res};
	enum sl_code_kind kind = sl_code_kind(src->path);
	if (kind == SL_CODE_NOTEBOOK) {
		struct sl_source *code = NULL;
		const struct sl_notebook *nb = NULL;
		if (sl_notebook_read(a, src, &code, &nb, why, bad_at) < 0)
			return -1;
		R.code = code;
		R.nb = nb;
	} else {
		src->python = true;
		R.code = src;
	}
	out->code = R.code;
	if (!sl_code_may_define_sweep(src->bytes, src->len)) {
		out->scanned = true;
		return 0;
	}
	if (R.nb && R.nb->language && strncasecmp(R.nb->language, "python", 6) != 0) {
		out->error = sl_arena_printf(a, "a notebook in %s, not Python: not read", R.nb->language);
		return 0;
	}
	if (R.code->len > MAX_CODE_BYTES) {
		out->error = sl_arena_printf(a, "more than %zu KiB of code: not read", MAX_CODE_BYTES >> 10);
		return 0;
	}
	const struct sl_blob *script = sl_data_get("pysweep.py");
	if (!script) {
		out->error = "the embedded reader is missing";
		return 0;
	}
	/* the request: each cell's text (a file is one cell, without its BOM) */
	json_t *cells = json_array(), *numbers = json_array();
	if (!cells || !numbers)
		sl_oom();
	bool utf8 = true;
	if (R.nb) {
		for (size_t i = 0; i < R.nb->ncells; i++) {
			const struct sl_nb_cell *c = &R.nb->cells[i];
			json_t *s = json_stringn(R.code->bytes + c->code_start, c->code_end - c->code_start);
			utf8 &= s != NULL;
			json_array_append_new(cells, s ? s : json_string(""));
			json_array_append_new(numbers, json_integer(c->number));
		}
	} else {
		json_t *s = json_stringn(R.code->bytes + R.code->bom, R.code->len - R.code->bom);
		utf8 = s != NULL;
		json_array_append_new(cells, s ? s : json_string(""));
		json_array_append_new(numbers, json_integer(1));
	}
	json_t *req = json_pack("{s:o,s:o,s:b,s:i}", "cells", cells, "numbers", numbers, "notebook", R.nb != NULL,
				"budget", READ_BUDGET);
	if (!req)
		sl_oom();
	if (!utf8) {
		json_decref(req);
		out->error = "the code is not UTF-8: not read";
		return 0;
	}
	char *rtext = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!rtext)
		sl_oom();
	size_t len = 0;
	const char *err = NULL;
	char *answer = sl_pychild_run(a, o->python, script->bytes, rtext, strlen(rtext), &len, &err);
	free(rtext);
	if (!answer) {
		out->error = err;
		return 0;
	}
	read_answer(&R, answer, len, out);
	out->blank = R.blank;
	out->nblank = R.nblank;
	return 0;
}

const char *sl_pysweep_program(struct sl_arena *a, struct sl_pysweeps *ps)
{
	if (ps->program || !ps->code)
		return ps->program;
	if (!ps->code->notebook)
		return ps->program = ps->code->path;
	/* a notebook: its code with the lines that are not Python blanked, byte for byte where they are */
	char *bytes = sl_arena_alloc(a, ps->code->len + 1);
	memcpy(bytes, ps->code->bytes, ps->code->len);
	for (size_t i = 0; i < ps->nblank; i++) {
		size_t len = 0;
		const char *line = sl_source_line(ps->code, ps->blank[i], &len);
		if (line)
			memset(bytes + (line - ps->code->bytes), ' ', len);
	}
	const char *tmpdir = getenv("TMPDIR");
	char *path = sl_arena_printf(a, "%s/sweeplint-notebook-XXXXXX.py", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int fd = mkstemps(path, 3);
	if (fd < 0)
		return NULL;
	size_t off = 0;
	while (off < ps->code->len) {
		ssize_t n = write(fd, bytes + off, ps->code->len - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	ps->temp = path;
	if (off != ps->code->len)
		return NULL;
	return ps->program = path;
}

void sl_pysweep_done(struct sl_pysweeps *ps)
{
	if (ps->temp)
		unlink(ps->temp);
	ps->temp = NULL;
	ps->program = NULL;
}

/* ---- positions for people and tools ---- */

struct sl_span sl_code_raw_span(const struct sl_source *src, struct sl_span span, const struct sl_source **raw)
{
	if (!src || !src->notebook) {
		*raw = src;
		return span;
	}
	const struct sl_notebook *nb = src->notebook;
	*raw = nb->raw;
	size_t s = sl_notebook_raw_offset(nb, span.start);
	size_t e = span.end > span.start ? sl_notebook_raw_offset(nb, span.end) : s;
	if (e < s)
		e = s;
	return sl_source_span(nb->raw, s, e);
}
