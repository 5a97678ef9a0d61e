/* rewrite_cli: loading, rendering, re-checking and writing for `fix` and `split`. */
#include "rewrite_cli.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opts.h"
#include "sweeplint/config.h"
#include "sweeplint/diag.h"
#include "sweeplint/notebook.h"
#include "sweeplint/pysweep.h"
#include "sweeplint/rules.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/write.h"
#include "sweeplint/ydoc.h"

const char *rw_at(struct rw_job *j, struct sl_span span)
{
	struct sl_arena *a = j->run->arena;
	const struct sl_source *src = j->file ? j->file->src : NULL;
	unsigned cell = 0;
	struct sl_span s = sl_source_cell_span(src, span, &cell);
	if (cell)
		return sl_arena_printf(a, "%s:cell %u:%u:%u", j->shown, cell, s.line, s.col);
	return sl_arena_printf(a, "%s:%u:%u", j->shown, span.line, span.col);
}

const char *rw_count(struct rw_job *j, struct sl_count c)
{
	return sl_count_str(j->run->arena, c);
}

/* The project config for the file, applied to the run; false after printing why it cannot be used. */
static bool apply_project(struct rw_job *j)
{
	struct sl_run *run = j->run;
	const char *note = NULL;
	const char *cpath = j->config_file ? j->config_file : sl_config_find(run->arena, j->path, &note);
	if (note)
		fprintf(j->cli->err, "sweeplint: warning: %s\n", note);
	if (!cpath) {
		struct sl_config_base base;
		sl_config_save_base(run, &base);
		sl_config_apply(run, &base, NULL);
		return true;
	}
	struct sl_diags diags;
	sl_diags_init(&diags, run->arena);
	struct sl_config *c = NULL;
	int errnum = 0;
	int rc = sl_config_load(run, cpath, sl_opts_size, &c, &diags, &errnum);
	if (rc == -SL_EIO)
		fprintf(j->cli->err, "%s: error: cannot read config file: %s\n", cpath, sl_source_strerror(errnum));
	sl_diags_sort(&diags);
	for (size_t i = 0; i < diags.n; i++) {
		const struct sl_diag *d = &diags.v[i];
		fprintf(j->cli->err, "%s:%u:%u: %s: %s [%s]\n", d->src->display, d->span.line, d->span.col,
			sl_severity_name(d->severity), d->message, d->rule);
	}
	if (rc != 0) {
		fprintf(j->cli->err, "%s: error: config file '%s' cannot be used\n", j->shown, cpath);
		return false;
	}
	struct sl_config_base base;
	sl_config_save_base(run, &base);
	sl_config_apply(run, &base, c);
	return true;
}

/*
 * A sweep defined in Python (pysweep.h): fix and split rewrite the dict's literals in the code, so the
 * code must define exactly one sweep, written in it (not loaded from a file), that sweeplint read.
 * Returns 0, or the exit status after saying why not.
 */
static int code_sweep(struct rw_job *j)
{
	FILE *err = j->cli->err;
	const struct sl_file *f = j->file;
	struct sl_arena *a = j->run->arena;
	if (f->next) {
		size_t n = 0;
		for (const struct sl_file *g = f; g; g = g->next)
			n++;
		fprintf(err, "%s: error: the code defines %zu sweeps; %s rewrites a file that defines one:\n", j->shown, n,
			j->cmd);
		for (const struct sl_file *g = f; g; g = g->next)
			fprintf(err, "%s: note: %s\n", sl_source_where(a, g->code, g->defined_at), g->defined_by);
		return SL_EXIT_USAGE;
	}
	if (!f->defined_by) {
		fprintf(err, "%s: error: no W&B sweep defined here (wandb.sweep, hyperparameter_search(backend=\"wandb\"))"
			     ": nothing to %s\n", j->shown, j->cmd);
		return SL_EXIT_USAGE;
	}
	const char *at = sl_source_where(a, f->code, f->defined_at);
	if (f->src != f->code) {
		fprintf(err, "%s: error: %s loads its sweep from %s: %s that file (sweeplint %s %s)\n", at, f->defined_by,
			f->src->display, j->cmd, j->cmd, f->src->display);
		return SL_EXIT_USAGE;
	}
	if (!f->doc->root) {
		/* why it was not read is the note the check made */
		const char *why = "sweeplint cannot evaluate it";
		for (size_t i = 0; i < f->nnotes; i++)
			if (strstr(f->notes[i], ": not read: "))
				why = strstr(f->notes[i], ": not read: ") + 12;
		if (f->diags.n)
			why = "wandb.sweep would refuse it (see `sweeplint check`)";
		fprintf(err, "%s: error: the sweep %s makes is built in code sweeplint does not evaluate (%s): nothing "
			     "to %s\n", at, f->defined_by, why, j->cmd);
		return SL_EXIT_USAGE;
	}
	return 0;
}

int rw_load(struct rw_job *j)
{
	struct sl_run *run = j->run;
	FILE *err = j->cli->err;
	j->shown = strcmp(j->path, "-") == 0 ? "<stdin>" : sl_term_safe(j->run->arena, j->path);
	if (!apply_project(j))
		return SL_EXIT_USAGE;
	const char *why = NULL;
	int rc = sl_run_prepare(run, &why);
	if (rc < 0) {
		sl_opts_error(j->cli, "%s", why ? why : sl_strerror(rc));
		return SL_EXIT_USAGE;
	}
	int e = 0;
	size_t max = sl_code_kind(j->path) == SL_CODE_NOTEBOOK ? SL_NOTEBOOK_MAX_BYTES : SL_MAX_INPUT_BYTES;
	struct sl_source *src = sl_source_read(run->arena, j->path, max, &e);
	if (!src) {
		if (e == EFBIG)
			fprintf(err, "%s: error: cannot read: larger than the %zu MiB limit\n", j->shown, max >> 20);
		else
			fprintf(err, "%s: error: cannot read: %s\n", j->shown, sl_source_strerror(e));
		return SL_EXIT_USAGE;
	}
	struct sl_file *f = sl_run_check_source(run, src);
	j->file = f;
	j->input = src;
	if (f->code && (rc = code_sweep(j)) != 0)
		return rc;
	if (!f->doc->ok) {
		for (size_t i = 0; i < f->diags.n; i++)
			if (strcmp(f->diags.v[i].rule, "syntax") == 0)
				fprintf(err, "%s:%u:%u: error: %s [syntax]\n", j->shown, f->diags.v[i].span.line,
					f->diags.v[i].span.col, f->diags.v[i].message);
		fprintf(err, "%s: error: cannot %s a file that does not parse\n", j->shown, j->cmd);
		return SL_EXIT_USAGE;
	}
	if (!f->sweep || !f->sweep->is_sweep) {
		fprintf(err, "%s: error: not a W&B sweep (no method, parameters or program): nothing to %s\n", j->shown,
			j->cmd);
		return SL_EXIT_USAGE;
	}
	/* `values: []`: W&B refuses the sweep (minItems 1); it has no combination to prune or split */
	for (size_t i = 0; i < f->sweep->nparams; i++) {
		const struct sl_param *p = &f->sweep->params[i];
		if (p->values && p->values->kind == SL_NODE_SEQ && p->values->n == 0) {
			fprintf(err, "%s:%u:%u: error: values of '%s' must not be empty: W&B refuses the sweep [schema]\n",
				j->shown, p->values->span.line, p->values->span.col, sl_term_safe(run->arena, p->path));
			fprintf(err, "%s: error: cannot %s a sweep with an empty values list (nothing written)\n", j->shown,
				j->cmd);
			return SL_EXIT_USAGE;
		}
	}
	if (f->err) {
		if (strcmp(f->err_rule, "config") == 0) {
			for (size_t i = 0; i < f->diags.n; i++)
				if (strcmp(f->diags.v[i].rule, "config") == 0)
					fprintf(err, "%s:%u:%u: error: %s [config]\n", f->diags.v[i].src->display,
						f->diags.v[i].span.line, f->diags.v[i].span.col, f->diags.v[i].message);
			fprintf(err, "%s: error: a --config file could not be used\n", j->shown);
		} else {
			fprintf(err, "%s: error: rule '%s' could not run: %s\n", j->shown, f->err_rule,
				sl_strerror(f->err));
		}
		return SL_EXIT_USAGE;
	}
	j->ev = f->eval;
	if (!j->ev) {
		fprintf(err, "%s: error: no memory evaluation to %s by: the rule 'oom' is off\n", j->shown, j->cmd);
		return SL_EXIT_USAGE;
	}
	rc = sl_rewrite_init(&j->rw, run->arena, j->ev, run->resolver, &why);
	if (rc < 0) {
		fprintf(err, "%s: error: cannot %s: %s\n", j->shown, j->cmd, why);
		return SL_EXIT_USAGE;
	}
	return 0;
}

/* Whether rule fired on f, at any severity. */
static bool fired(const struct sl_file *f, const char *rule)
{
	for (size_t i = 0; i < f->diags.n; i++)
		if (strcmp(f->diags.v[i].rule, rule) == 0)
			return true;
	return false;
}

/*
 * Whether a finding of the rewritten sweep says the rewrite broke it: a rule that is an error by
 * default (schema, invalid-value, ...) whatever severity the project gave it. A rule a project
 * raised to error is its policy, not a broken rewrite: splitting by model leaves each part one
 * model (single-value-list), which is what split is for.
 */
static bool breaks(const struct sl_diag *d)
{
	const struct sl_rule *r = sl_rule_find(d->rule);
	return (r ? r->severity : d->severity) == SL_SEV_ERROR;
}

int rw_render(struct rw_job *j, const struct sl_box *b, const char *name, uint64_t run_cap, bool no_oom,
	      struct rw_output *o, const char **why)
{
	struct sl_run *run = j->run;
	struct sl_arena *a = run->arena;
	const struct sl_sweep *sw = j->file->sweep;
	memset(o, 0, sizeof *o);
	struct sl_edits e;
	sl_edits_init(&e, a, j->file->src);
	int rc = sl_rewrite_edits(&j->rw, b, &e, why);
	if (rc < 0)
		return rc;
	if (name && sw->name && sw->name->kind == SL_NODE_SCALAR) {
		rc = sl_edits_set_scalar(&e, run->resolver, sw->name, name, strlen(name), SL_V_STR);
		if (rc < 0) {
			*why = sl_arena_printf(a, "cannot rewrite name: %s", sl_strerror(rc));
			return rc;
		}
	}
	if (run_cap && sw->has_run_cap && sw->run_cap && (uint64_t)sw->run_cap_value != run_cap) {
		const char *t = sl_arena_printf(a, "%llu", (unsigned long long)run_cap);
		rc = sl_edits_set_scalar(&e, run->resolver, sw->run_cap, t, strlen(t), SL_V_INT);
		if (rc < 0) {
			*why = sl_arena_printf(a, "cannot rewrite run_cap: %s", sl_strerror(rc));
			return rc;
		}
	}
	rc = sl_edits_apply(&e, &o->text);
	if (rc == 0)
		rc = sl_edits_list(&e, &o->splices, &o->nsplices);
	if (rc < 0) {
		*why = sl_arena_printf(a, "the edits do not apply: %s", sl_strerror(rc));
		return rc;
	}
	const struct sl_notebook *nb = j->file->src->notebook;
	if (nb) {
		/* a notebook: the code's edits as edits of the JSON strings that hold it, outputs untouched */
		struct sl_edit *raw = NULL;
		size_t nraw = 0;
		if (sl_notebook_splices(a, nb, j->file->src, o->splices, o->nsplices, &raw, &nraw, why) < 0)
			return -SL_ELIMIT;
		struct sl_edits re;
		sl_edits_init(&re, a, j->input);
		for (size_t i = 0; i < nraw && rc == 0; i++)
			rc = sl_edits_splice(&re, raw[i].start, raw[i].end, raw[i].text, raw[i].len);
		if (rc == 0)
			rc = sl_edits_apply(&re, &o->text);
		if (rc == 0)
			rc = sl_edits_list(&re, &o->splices, &o->nsplices);
		if (rc < 0) {
			*why = sl_arena_printf(a, "the notebook's edits do not apply: %s", sl_strerror(rc));
			return rc;
		}
	}

	/* check the result as if it were a new file beside the old one (same folder: same configs) */
	struct sl_source *src = sl_source_from_bytes(a, j->input->path, o->text.buf, o->text.len);
	src->display = j->input->display;
	struct sl_file *f = sl_run_check_source(run, src);
	o->checked = f;
	if (!f->doc->ok || !f->sweep || !f->sweep->is_sweep) {
		*why = "the rewritten sweep does not parse";
		for (size_t i = 0; i < f->diags.n; i++)
			if (strcmp(f->diags.v[i].rule, "syntax") == 0)
				*why = sl_arena_printf(a, "the rewritten sweep does not parse: line %u: %s",
						       f->diags.v[i].span.line, f->diags.v[i].message);
		return -SL_EINTERNAL;
	}
	if (f->err || !f->eval) {
		*why = "the rewritten sweep could not be evaluated";
		return -SL_EINTERNAL;
	}
	if (sw->nproblems == 0 && f->sweep->nproblems > 0) {
		*why = sl_arena_printf(a, "W&B would reject the rewritten sweep: line %u: %s",
				       f->sweep->problems[0].at->span.line, f->sweep->problems[0].message);
		return -SL_EINTERNAL;
	}
	for (size_t i = 0; i < f->diags.n; i++) {
		const struct sl_diag *d = &f->diags.v[i];
		if (breaks(d) && !fired(j->file, d->rule)) {
			*why = sl_arena_printf(a, "the rewritten sweep has a new '%s' error: line %u: %s", d->rule,
					       d->span.line, d->message);
			return -SL_EINTERNAL;
		}
	}
	const struct sl_eval *ev = f->eval;
	o->ev = ev;
	uint64_t feas = ev->u[SL_VERDICT_FIT] + ev->u[SL_VERDICT_NEAR];
	/* a lowered bound may bring a range under the size the evaluation expands value by value */
	bool rebound = false;
	for (size_t i = 0; i < j->rw.naxes; i++)
		rebound |= b->max[i] != 0;
	if (rebound ? (feas == 0) != (b->n[SL_RW_FEASIBLE] == 0) || (ev->u[SL_VERDICT_OOM] == 0) != (b->n[SL_RW_OOM] == 0)
		    : feas != b->n[SL_RW_FEASIBLE] || ev->u[SL_VERDICT_OOM] != b->n[SL_RW_OOM] ||
			      ev->u[SL_VERDICT_UNKNOWN] != b->n[SL_RW_UNKNOWN]) {
		*why = sl_arena_printf(a,
				       "the rewritten sweep evaluates to %llu fitting, %llu out-of-memory and %llu unknown "
				       "combinations, not the %llu, %llu and %llu planned",
				       (unsigned long long)feas, (unsigned long long)ev->u[SL_VERDICT_OOM],
				       (unsigned long long)ev->u[SL_VERDICT_UNKNOWN],
				       (unsigned long long)b->n[SL_RW_FEASIBLE], (unsigned long long)b->n[SL_RW_OOM],
				       (unsigned long long)b->n[SL_RW_UNKNOWN]);
		return -SL_EINTERNAL;
	}
	if (no_oom && ev->u[SL_VERDICT_OOM]) {
		*why = "the rewritten sweep still holds out-of-memory combinations";
		return -SL_EINTERNAL;
	}
	o->feasible = sl_count_add(ev->n[SL_VERDICT_FIT], ev->n[SL_VERDICT_NEAR]);
	o->oom = ev->n[SL_VERDICT_OOM];
	o->unknown = ev->n[SL_VERDICT_UNKNOWN];
	o->total = ev->total;
	o->u[SL_RW_FEASIBLE] = feas;
	o->u[SL_RW_OOM] = ev->u[SL_VERDICT_OOM];
	o->u[SL_RW_UNKNOWN] = ev->u[SL_VERDICT_UNKNOWN];
	o->utotal = feas + o->u[SL_RW_OOM] + o->u[SL_RW_UNKNOWN];
	return 0;
}

int rw_render_text(struct rw_job *j, const struct sl_box *b, const char *name, uint64_t run_cap, bool no_oom,
		   struct rw_output *o, const char **why)
{
	/* the run and the rewrite are prepared (rw_load): rendering only adds to their arena */
	struct sl_arena *keep = j->run->arena, *scratch = sl_arena_new();
	j->run->arena = scratch;
	j->rw.arena = scratch;
	int rc = rw_render(j, b, name, run_cap, no_oom, o, why);
	j->run->arena = keep;
	j->rw.arena = keep;
	if (rc < 0) {
		*why = sl_arena_strdup(keep, *why ? *why : "");
	} else {
		struct sl_buf t;
		sl_buf_init(&t, keep);
		sl_buf_add(&t, o->text.buf, o->text.len);
		o->text = t;
	}
	o->checked = NULL;
	o->ev = NULL;
	o->splices = NULL;
	o->nsplices = 0;
	sl_arena_free(scratch);
	return rc;
}

const char *rw_share(struct rw_job *j, const struct rw_output *o, enum sl_rw_class cls, const char *what)
{
	struct sl_arena *a = j->run->arena;
	if (o->total.infinite || o->total.saturated) {
		const char *s = sl_arena_printf(a, "%llu of %llu memory-relevant combinations %s",
						(unsigned long long)o->u[cls], (unsigned long long)o->utotal, what);
		if (cls != SL_RW_UNKNOWN && o->u[SL_RW_UNKNOWN])
			s = sl_arena_printf(a, "%s, %llu unknown", s, (unsigned long long)o->u[SL_RW_UNKNOWN]);
		return s;
	}
	const struct sl_count *c = cls == SL_RW_FEASIBLE ? &o->feasible : cls == SL_RW_OOM ? &o->oom : &o->unknown;
	const char *s = sl_arena_printf(a, "%s of %s combinations %s", rw_count(j, *c), rw_count(j, o->total), what);
	if (cls != SL_RW_UNKNOWN && o->unknown.value)
		s = sl_arena_printf(a, "%s, %s unknown", s, rw_count(j, o->unknown));
	return s;
}

static bool same_file(const struct stat *st, const char *path)
{
	struct stat o;
	return path && strcmp(path, "-") != 0 && stat(path, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

const char *rw_input_of(struct rw_job *j, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return NULL;
	if (same_file(&st, j->path))
		return "the sweep being rewritten";
	if (j->file)
		for (size_t i = 0; i < j->file->nconfigs; i++) {
			const struct sl_trainer *t = j->file->configs[i];
			if (t && (same_file(&st, t->path) || (t->src && same_file(&st, t->src->path))))
				return "a trainer config (-c) of this run";
		}
	if (same_file(&st, j->config_file) || same_file(&st, j->run->opt.project))
		return "the project config of this run";
	return NULL;
}

int rw_write(struct rw_job *j, const char *path, const char *text, size_t len, unsigned flags)
{
	bool must_exist = flags & SL_WRITE_MUST_EXIST;
	FILE *err = j->cli->err;
	const char *input = must_exist ? NULL : rw_input_of(j, path);
	if (input) {
		fprintf(err, "sweeplint: error: will not write '%s': it is %s; nothing was written there\n", path, input);
		return SL_EXIT_USAGE;
	}
	/* --in-place replaces the file that was read: only while it still holds those bytes */
	const struct sl_source *src = must_exist && j->file ? j->input : NULL;
	return sl_cli_write(j->cli, j->run->arena, path, text, len, flags, src ? src->bytes : NULL, src ? src->len : 0);
}

const char *rw_oom_example(struct rw_job *j, const struct sl_box *b)
{
	const struct sl_rewrite *rw = &j->rw;
	/* the first out-of-memory combination in the box's order */
	uint32_t *idx = sl_arena_array(j->run->arena, rw->naxes ? rw->naxes : 1, sizeof *idx);
	size_t *pos = sl_arena_array(j->run->arena, rw->naxes ? rw->naxes : 1, sizeof *pos);
	for (;;) {
		bool ok = true;
		uint64_t c = 0;
		for (size_t i = 0; i < rw->naxes; i++) {
			const struct sl_eval_axis *ax = rw->axes[i].ax;
			while (pos[i] < ax->n && !b->keep[i][pos[i]])
				pos[i]++;
			if (pos[i] >= ax->n) {
				ok = false;
				break;
			}
			idx[i] = (uint32_t)pos[i];
			c += idx[i] * ax->stride;
		}
		if (!ok)
			return NULL;
		if (b->vd[c] == SL_RW_OOM)
			return sl_eval_describe(j->run->arena, j->ev, idx, SIZE_MAX);
		/* odometer over the kept values, last axis fastest */
		size_t i = rw->naxes;
		for (;;) {
			if (i == 0)
				return NULL;
			i--;
			pos[i]++;
			while (pos[i] < rw->axes[i].ax->n && !b->keep[i][pos[i]])
				pos[i]++;
			if (pos[i] < rw->axes[i].ax->n)
				break;
			pos[i] = 0;
		}
	}
}
