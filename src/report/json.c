/*
 * json: the JSON document of DESIGN §3 (a contract), written as files arrive:
 *   {"version": 1, "files": [{"path", "gpu": {"name", "bytes", "assumed"},
 *    "combinations": {"total", "fit", "oom", "unknown"},
 *    "diagnostics": [{"rule", "severity", "line", "column", "end_line",
 *                     "end_column", "message", "hint"?, "code", "path"?}]}]}
 * ("path" in a diagnostic only when it is about another file: a -c config).
 * A count that is infinite is the string "infinite"; one past 2^63 - 1 is null
 * (never a sentinel number); "infinite": true or "saturated": true next to it. Text that
 * is not valid UTF-8 (a path, a value quoted from the file) is written with
 * U+FFFD in place of each bad byte, since JSON strings must be UTF-8.
 *
 * The document is streamed: its head at the first file, each file's object
 * dumped by jansson with its "diagnostics" array left open, then each
 * diagnostic dumped alone, each shifted to its depth (sl_report_jput), so
 * memory does not grow with the files or the findings and the bytes are those
 * of one json_dumpf of the whole document (JSON_INDENT(2), keys in order).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "sweeplint/json_out.h"
#include "sweeplint/arena.h"
#include "sweeplint/eval.h"
#include "sweeplint/memory.h"
#include "sweeplint/program.h"
#include "sweeplint/pysweep.h"
#include "sweeplint/ydoc.h"
#include "sweeplint/rules.h"
#include "sweeplint/source.h"

/* The length of the valid UTF-8 sequence at p (n bytes left), or 0 (RFC 3629: no overlongs, surrogates). */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	if (p[0] < 0x80)
		return 1;
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
		len = 3;
		if (p[0] == 0xE0)
			lo = 0xA0;
		else if (p[0] == 0xED)
			hi = 0x9F;
	} else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
		len = 4;
		if (p[0] == 0xF0)
			lo = 0x90;
		else if (p[0] == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

static json_t *jstr(struct sl_arena *a, const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	/* not UTF-8: replace each bad byte */
	struct sl_buf b;
	sl_buf_init(&b, a);
	size_t n = strlen(s);
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq(p + i, n - i);
		if (k) {
			sl_buf_add(&b, p + i, k);
			i += k;
		} else {
			sl_buf_adds(&b, "\xEF\xBF\xBD");
			i++;
		}
	}
	j = json_string(b.buf);
	if (!j)
		sl_oom();
	return j;
}

json_t *sl_report_jstr(struct sl_arena *a, const char *s)
{
	return jstr(a, s);
}

#define DIAGS_MARK "@@sweeplint-diagnostics@@"

char *sl_report_jdump(json_t *v)
{
	char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(v);
	if (!s)
		sl_oom();
	return s;
}

void sl_report_jput(FILE *out, const char *s, size_t n, size_t indent)
{
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t k = nl ? (size_t)(nl - s) + 1 - i : n - i;
		sl_json_write(out, s + i, k); /* C1, bidi controls, U+2028/9 as \u escapes (json_out.h) */
		i += k;
		if (nl)
			fprintf(out, "%*s", (int)indent, "");
	}
}

size_t sl_jarray_next(FILE *out, struct sl_jarray *arr, size_t indent)
{
	fputs(arr->n++ ? ",\n" : "[\n", out);
	fprintf(out, "%*s", (int)(indent + 2), "");
	return indent + 2;
}

void sl_jarray_close(FILE *out, struct sl_jarray *arr, size_t indent)
{
	if (arr->n)
		fprintf(out, "\n%*s]", (int)indent, "");
	else
		fputs("[]", out);
}

static void set(json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) != 0)
		sl_oom();
}

/*
 * A count as a JSON integer; the string "infinite" when it is infinite (a continuous distribution
 * with no run_cap: a truthy value, as the text summary's word), null when it is finite but not exact
 * below 2^63 (no sentinel number).
 */
static void set_count(json_t *obj, const char *key, struct sl_count c, bool *saturated, bool *infinite)
{
	bool big = !c.infinite && (c.saturated || c.value > (uint64_t)INT64_MAX);
	set(obj, key,
	    c.infinite ? json_string("infinite") : big ? json_null() : json_integer((json_int_t)c.value));
	*saturated = *saturated || big;
	*infinite = *infinite || c.infinite;
}

/* The program followed (program.h): where it is, and each setting read from it with its place and how. */
static json_t *program_json(struct sl_arena *a, const struct sl_file *f)
{
	const struct sl_program *p = f->program;
	json_t *jp = json_object();
	if (!jp)
		sl_oom();
	if (p->ref.path)
		set(jp, "path", jstr(a, p->ref.shown ? p->ref.shown : p->ref.path));
	if (p->ref.how)
		set(jp, "found_by", jstr(a, p->ref.how));
	set(jp, "trains", p->trains < 0 ? json_null() : json_boolean(p->trains == 1));
	/* whether the sweep's values reach the runs (false: the command passes no ${args} and the program
	 * reads no wandb.config), and why not */
	set(jp, "reaches", p->reaches < 0 ? json_null() : json_boolean(p->reaches == 1));
	if (p->reaches == 0 && p->reach_why)
		set(jp, "reach_why", jstr(a, p->reach_why));
	json_t *ss = json_array();
	set(jp, "settings", ss);
	const struct sl_eval *ev = f->eval;
	for (size_t i = 0; ev && i < ev->nnotes; i++) {
		const struct sl_eval_note *n = &ev->notes[i];
		if (!n->how || n->role < 0)
			continue;
		json_t *js = json_object();
		if (!js || json_array_append_new(ss, js) != 0)
			sl_oom();
		set(js, "key", jstr(a, n->key));
		set(js, "role", json_string(sl_role_name((enum sl_role)n->role)));
		set(js, "value", jstr(a, n->detail ? n->detail : ""));
		set(js, "at", jstr(a, n->where));
		set(js, "how", jstr(a, n->how));
		if (n->chain)
			set(js, "chain", jstr(a, n->chain));
		set(js, "used", json_boolean(n->overridden_by == NULL));
		if (n->overridden_by)
			set(js, "overridden_by", jstr(a, n->overridden_by));
	}
	/* sweep parameters the program makes a setting of: the sink, and the value map when there is one */
	json_t *ps = json_array();
	set(jp, "params", ps);
	for (size_t i = 0; i < p->nroles; i++) {
		const struct sl_param_role *r = &p->roles[i];
		json_t *jr = json_object();
		if (!jr || json_array_append_new(ps, jr) != 0)
			sl_oom();
		set(jr, "param", jstr(a, r->param));
		set(jr, "key", jstr(a, r->key));
		set(jr, "how", jstr(a, r->how));
		if (r->chain)
			set(jr, "chain", jstr(a, r->chain));
		if (!r->ncases)
			continue;
		json_t *cs = json_array();
		set(jr, "cases", cs);
		for (size_t k = 0; k < r->ncases; k++) {
			const struct sl_param_case *c = &r->cases[k];
			json_t *jc = json_object();
			if (!jc || json_array_append_new(cs, jc) != 0)
				sl_oom();
			set(jc, "when", jstr(a, c->when->text));
			if (c->unset)
				set(jc, "unset", json_true());
			else if (c->to) {
				set(jc, "value", jstr(a, c->to->text));
				set(jc, "at", jstr(a, sl_arena_printf(a, "%s:%u:%u", c->src->display, c->to->span.line,
								  c->to->span.col)));
				if (c->chain)
					set(jc, "chain", jstr(a, c->chain));
			} else
				set(jc, "unknown", jstr(a, c->unknown ? c->unknown : "not known"));
		}
	}
	json_t *ns = json_array();
	set(jp, "notes", ns);
	for (size_t i = 0; i < p->nnotes; i++)
		if (json_array_append_new(ns, jstr(a, p->notes[i])) != 0)
			sl_oom();
	return jp;
}

static json_t *file_json(struct sl_arena *a, const struct sl_file *f)
{
	json_t *jf = json_object();
	if (!jf)
		sl_oom();
	set(jf, "path", jstr(a, f->src->display));

	json_t *gpu = json_object();
	set(jf, "gpu", gpu);
	set(gpu, "name", jstr(a, f->gpu_name ? f->gpu_name : ""));
	set(gpu, "bytes", f->gpu_bytes > (uint64_t)INT64_MAX ? json_null() : json_integer((json_int_t)f->gpu_bytes));
	set(gpu, "assumed", json_boolean(f->gpu_assumed));

	json_t *co = json_object();
	set(jf, "combinations", co);
	bool sat = false, inf = false;
	set_count(co, "total", f->combos.total, &sat, &inf);
	set_count(co, "fit", f->combos.fit, &sat, &inf);
	set_count(co, "oom", f->combos.oom, &sat, &inf);
	set_count(co, "at_risk", f->combos.at_risk, &sat, &inf);
	set_count(co, "unknown", f->combos.unknown, &sat, &inf);
	set_count(co, "stated", f->combos.stated, &sat, &inf);
	set_count(co, "assumed", f->combos.assumed, &sat, &inf);
	if (sat)
		set(co, "saturated", json_true());
	if (inf)
		set(co, "infinite", json_true());

	if (f->nmodels) {
		json_t *ms = json_array();
		set(jf, "models", ms);
		for (size_t i = 0; i < f->nmodels; i++) {
			const struct sl_model *m = f->models[i].model;
			json_t *jm = json_object();
			if (!jm || json_array_append_new(ms, jm) != 0)
				sl_oom();
			set(jm, "value", jstr(a, f->models[i].value));
			set(jm, "resolved_by", json_string(m && m->resolved_by ? m->resolved_by : "unknown"));
			if (!m)
				continue;
			set(jm, "name", jstr(a, m->name));
			if (m->resolved_from)
				set(jm, "source", jstr(a, m->resolved_from));
			set(jm, "family", json_string(sl_family_name(m->arch.family)));
			set(jm, "params", json_integer((json_int_t)sl_arch_params(&m->arch)));
			if (m->quant != SL_QUANT_NONE)
				set(jm, "quant", json_string(sl_quant_name(m->quant)));
			if (m->nsizes > 1) {
				/* a family of sizes resolved by name: name and params are its largest, an upper bound */
				set(jm, "bound", json_string("family"));
				json_t *sz = json_array();
				set(jm, "sizes", sz);
				for (size_t k = 0; k < m->nsizes; k++) {
					json_t *e = json_pack("{s:o, s:I}", "name", jstr(a, m->sizes[k]->name), "params",
							      (json_int_t)sl_arch_params(&m->sizes[k]->arch));
					if (!e || json_array_append_new(sz, e) != 0)
						sl_oom();
				}
			}
			if (m->resolved_note)
				set(jm, "note", jstr(a, m->resolved_note));
		}
	}

	if (f->defined_by) {
		/* a sweep defined in Python: the call that makes it, where it is in the code */
		json_t *sw = json_object();
		set(jf, "sweep", sw);
		set(sw, "defined_by", jstr(a, f->defined_by));
		if (f->code && f->code != f->src)
			set(sw, "path", jstr(a, f->code->display));
		unsigned cell = 0;
		struct sl_span sp = sl_source_cell_span(f->code, f->defined_at, &cell);
		if (cell)
			set(sw, "cell", json_integer(cell));
		set(sw, "line", json_integer(sp.line));
		set(sw, "column", json_integer(sp.col));
	}

	if (f->program && f->program->ref.path) /* a program found: one not found is a -v note only */
		set(jf, "program", program_json(a, f));

	/* the last key: its array is streamed (json_file), a marker holds its place in the dump */
	set(jf, "diagnostics", json_string(DIAGS_MARK));
	return jf;
}

static json_t *diag_json(struct sl_arena *a, const struct sl_file *f, const struct sl_diag *d)
{
	const struct sl_rule *rule = sl_rule_find(d->rule);
	json_t *jd = json_object();
	if (!jd)
		sl_oom();
	set(jd, "rule", jstr(a, d->rule));
	if (d->src && d->src != f->src) /* a finding in a -c config */
		set(jd, "path", jstr(a, d->src->display));
	set(jd, "severity", json_string(sl_severity_name(d->severity)));
	/* in a notebook's code: the cell (its number among all cells) and the lines within it */
	unsigned cell = 0;
	struct sl_span sp = sl_source_cell_span(d->src ? d->src : f->src, d->span, &cell);
	if (cell)
		set(jd, "cell", json_integer(cell));
	set(jd, "line", json_integer(sp.line));
	set(jd, "column", json_integer(sp.col));
	set(jd, "end_line", json_integer(sp.end_line));
	set(jd, "end_column", json_integer(sp.end_col));
	set(jd, "message", jstr(a, d->message));
	if (d->hint)
		set(jd, "hint", jstr(a, d->hint));
	if (d->assumed) {
		json_t *as = json_array();
		set(jd, "assumed", as);
		for (size_t k = 0; k < d->nassumed; k++)
			if (json_array_append_new(as, json_string(d->assumed[k])) != 0)
				sl_oom();
	}
	set(jd, "code", json_string(rule ? rule->code : ""));
	return jd;
}

/* The document's head, up to its "files" array (the array itself is streamed). */
#define JSON_HEAD "{\n  \"version\": 1,\n  \"files\": "
#define FILES_INDENT 2 /* the column of the "files" key */

static void json_file(struct sl_report *r, const struct sl_file *f)
{
	if (!r->json_files.open) {
		fputs(JSON_HEAD, r->out);
		r->json_files.open = true;
	}
	struct sl_arena *a = sl_report_file_arena(r, f);
	char *s = sl_report_jdump(file_json(a, f));
	/* the marker is the file object's last string: search from the end (a path could spell it) */
	const char *mark = NULL;
	for (const char *p = s; (p = strstr(p, "\"" DIAGS_MARK "\"")); p++)
		mark = p;
	if (!mark)
		sl_oom(); /* cannot happen: the marker is the value of the last key */
	struct sl_jarray *files = &r->json_files;
	size_t item = sl_jarray_next(r->out, files, FILES_INDENT);
	sl_report_jput(r->out, s, (size_t)(mark - s), item);
	/* the "diagnostics" key's column in the output: its line's blanks in the dump, shifted */
	const char *line = mark;
	while (line > s && line[-1] != '\n')
		line--;
	size_t dcol = item + strspn(line, " ");
	struct sl_jarray ds = {.open = true};
	for (size_t i = 0; i < f->diags.n; i++) {
		char *d = sl_report_jdump(diag_json(a, f, &f->diags.v[i]));
		size_t at = sl_jarray_next(r->out, &ds, dcol);
		sl_report_jput(r->out, d, strlen(d), at);
		free(d);
	}
	sl_jarray_close(r->out, &ds, dcol);
	const char *tail = mark + strlen("\"" DIAGS_MARK "\"");
	sl_report_jput(r->out, tail, strlen(tail), item);
	free(s);
}

static void json_finish(struct sl_report *r)
{
	if (!r->json_files.open) {
		fputs(JSON_HEAD, r->out);
		r->json_files.open = true;
	}
	sl_jarray_close(r->out, &r->json_files, FILES_INDENT);
	fputs("\n}\n", r->out);
}

const struct sl_formatter sl_formatter_json = {
	.file = json_file,
	.finish = json_finish,
};
