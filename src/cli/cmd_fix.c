/*
 * cmd_fix: `sweeplint fix [OPTIONS] FILE` — remove every value of a memory
 * axis that fits in no combination it takes part in (no combination that
 * fits is lost), lower the upper bound of a range above which nothing fits,
 * and print the result (default), write it (-o OUT), replace the file
 * (--in-place: a temporary file renamed over it, mode kept, the original
 * untouched on any failure) or print a unified diff (--diff). The result is
 * parsed, checked and evaluated again before it goes anywhere. Exit: 0 when
 * every remaining combination fits (or nothing was to be done), 1 when
 * out-of-memory combinations remain (they depend on other values: split
 * --exact removes them) or nothing fits at all, 2 on usage or I/O errors.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "rewrite_cli.h"
#include "sweeplint/run.h"
#include "sweeplint/write.h"

enum { OPT_DIFF = 512, OPT_IN_PLACE, OPT_FORCE };

struct fix_ctx {
	struct sl_run *run;
	const char *output;
	bool in_place, diff, quiet, force;
	const char *config_file;
};

static const struct sl_opt fix_opts[] = {
	{"output", 'o', true, "OUT", "write the result to OUT ('-': standard output, the default)"},
	{"in-place", 'i', false, NULL, "replace FILE (atomically; its mode, owner and extended attributes are kept)"},
	{"force", OPT_FORCE, false, NULL, "with --in-place or -o: replace a read-only or hard-linked file too"},
	{"diff", OPT_DIFF, false, NULL, "print a unified diff instead of the result"},
	{"quiet", 'q', false, NULL, "say nothing on standard error unless something fails"},
	{"config-file", RW_OPT_CONFIG_FILE, true, "FILE", "project config instead of the nearest .sweeplint.yaml"},
};

static int fix_opt(struct sl_cli *cli, void *vctx, int key, const char *arg)
{
	struct fix_ctx *c = vctx;
	switch (key) {
	case 'o':
		if (!*arg)
			return sl_opts_error(cli, "invalid --output '': expected a file or '-'");
		c->output = sl_arena_strdup(c->run->arena, arg);
		return 0;
	case 'i':
		c->in_place = true;
		return 0;
	case OPT_DIFF:
		c->diff = true;
		return 0;
	case OPT_FORCE:
		c->force = true;
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	case RW_OPT_CONFIG_FILE:
		if (!*arg)
			return sl_opts_error(cli, "invalid --config-file '': expected a file");
		c->config_file = sl_arena_strdup(c->run->arena, arg);
		return 0;
	default:
		return sl_opts_error(cli, "internal error: option %d", key);
	}
}

static const struct sl_cmd_spec spec = {
	.name = "fix",
	.usage = "[OPTIONS] FILE",
	.summary = "Remove the values of memory axes that fit in no combination (no fitting combination is lost).",
	.common = SL_OPTS_MODEL,
	.exit_help = "0 every remaining combination fits (or nothing to do), 1 out-of-memory combinations remain,\n"
		     "2 usage or I/O problem (nothing written)",
	.opts = fix_opts,
	.nopts = sizeof fix_opts / sizeof fix_opts[0],
	.on_opt = fix_opt,
};

/* Say what was removed or narrowed, comparing the box with the whole sweep; returns the number of edits. */
static size_t explain(struct rw_job *j, const struct sl_box *b, size_t *stuck)
{
	FILE *err = j->cli->err;
	struct sl_arena *a = j->run->arena;
	const struct sl_rewrite *rw = &j->rw;
	const char *gpu = j->ev->gpu ? j->ev->gpu->name : "the GPU";
	size_t edits = 0;
	for (size_t i = 0; i < rw->naxes; i++) {
		const struct sl_rw_axis *x = &rw->axes[i];
		const struct sl_eval_axis *ax = x->ax;
		switch (x->kind) {
		case SL_RW_LIST:
			for (size_t k = 0; k < ax->n; k++) {
				if (b->keep[i][k])
					continue;
				const struct sl_eval_value *v = &ax->values[k];
				edits++;
				fprintf(err,
					"%s: removed %s %s: out of memory in %s it takes part in (the "
					"smallest needs %s on %s)\n",
					rw_at(j, v->span), sl_term_safe(a, ax->key), sl_term_safe(a, sl_rewrite_value_text(rw, i, k)),
					v->n[SL_VERDICT_OOM].infinite || v->n[SL_VERDICT_OOM].saturated
						? sl_arena_printf(a, "all %llu memory-relevant combinations",
								  (unsigned long long)v->u[SL_VERDICT_OOM])
					: v->n[SL_VERDICT_OOM].value == 1
						? "the one combination"
						: sl_arena_printf(a, "all %s combinations", rw_count(j, v->n[SL_VERDICT_OOM])),
					sl_bytes_str(a, v->best), gpu);
			}
			break;
		case SL_RW_RANGE: {
			size_t lo = 0, hi = ax->n;
			while (lo < ax->n && !b->keep[i][lo])
				lo++;
			while (hi > lo && !b->keep[i][hi - 1])
				hi--;
			if (hi - lo == 1 && hi - lo < ax->n) {
				edits++;
				fprintf(err,
					"%s: narrowed %s to %s, written as `value: %s` (W&B wants min < max): "
					"every other value runs out of memory in every combination\n",
					rw_at(j, ax->param->key->span), sl_term_safe(a, ax->key),
					sl_term_safe(a, sl_rewrite_value_text(rw, i, lo)), sl_term_safe(a, sl_rewrite_value_text(rw, i, lo)));
				break;
			}
			if (hi < ax->n) {
				edits++;
				fprintf(err,
					"%s: lowered the max of %s to keep %s at most: %s to %s run out of "
					"memory in every combination\n",
					rw_at(j, ax->param->max->span), sl_term_safe(a, ax->key),
					sl_term_safe(a, sl_rewrite_value_text(rw, i, hi - 1)), sl_term_safe(a, sl_rewrite_value_text(rw, i, hi)),
					sl_term_safe(a, sl_rewrite_value_text(rw, i, ax->n - 1)));
			}
			if (lo > 0) {
				edits++;
				fprintf(err,
					"%s: raised the min of %s to %s: %s to %s run out of memory in every "
					"combination\n",
					rw_at(j, ax->param->min->span), sl_term_safe(a, ax->key),
					sl_term_safe(a, sl_rewrite_value_text(rw, i, lo)), sl_term_safe(a, sl_rewrite_value_text(rw, i, 0)),
					sl_term_safe(a, sl_rewrite_value_text(rw, i, lo - 1)));
			}
			break;
		}
		case SL_RW_BOUNDS:
			if (b->max[i] && ++edits)
				fprintf(err,
					"%s: lowered the max of %s from %s to %llu: above it every combination "
					"runs out of memory\n",
					rw_at(j, ax->param->max->span), sl_term_safe(a, ax->key),
					sl_term_safe(a, sl_rewrite_value_text(rw, i, 1)), (unsigned long long)b->max[i]);
			break;
		default:
			/* a value that fits nowhere on an axis the rewriter does not narrow: say why it stays */
			for (size_t k = 0; x->why && k < ax->n; k++) {
				const struct sl_eval_value *v = &ax->values[k];
				if (v->u[SL_VERDICT_OOM] && !v->u[SL_VERDICT_FIT] && !v->u[SL_VERDICT_NEAR] &&
				    !v->u[SL_VERDICT_UNKNOWN] && ++*stuck)
					fprintf(err, "%s: kept %s %s although it fits in no combination: %s\n",
						rw_at(j, v->span), sl_term_safe(a, ax->key),
						sl_term_safe(a, sl_rewrite_value_text(rw, i, k)), x->why);
			}
			break;
		}
	}
	return edits;
}

int cmd_fix(struct sl_cli *cli, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	struct fix_ctx ctx = {.run = run};
	struct sl_cmd_spec spec_here = spec; /* the table is const; this call's context is local */
	spec_here.ctx = &ctx;
	run->opt.headroom = 0; /* 0 after parsing: --headroom not given (a project config may set it) */
	int first = 0;
	int rc = sl_opts_parse(cli, &spec_here, run, argc, argv, &first);
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	struct fix_ctx *c = &ctx;
	int status = SL_EXIT_USAGE;
	if (first >= argc) {
		sl_opts_error(cli, "no input file (give FILE, or '-' for standard input)");
		goto out;
	}
	if (argc - first > 1) {
		sl_opts_error(cli, "fix takes one FILE, not %d", argc - first);
		goto out;
	}
	if (c->in_place + (c->output != NULL) + c->diff > 1) {
		sl_opts_error(cli, "--in-place, --output and --diff exclude each other");
		goto out;
	}
	if (c->in_place && strcmp(argv[first], "-") == 0) {
		sl_opts_error(cli, "--in-place needs a file, not standard input");
		goto out;
	}

	struct rw_job j = {.cli = cli, .run = run, .cmd = "fix", .path = argv[first], .config_file = c->config_file};
	status = rw_load(&j);
	if (status)
		goto out;
	FILE *err = cli->err;
	struct sl_box *whole = sl_box_whole(&j.rw);
	struct sl_box *b = sl_box_copy(&j.rw, whole);
	size_t changed = sl_rewrite_prune(&j.rw, b);
	if (whole->n[SL_RW_FEASIBLE] + whole->n[SL_RW_UNKNOWN] == 0) {
		fprintf(err, "%s: error: no combination fits on %s: every one runs out of memory, so there is nothing "
			     "to keep; nothing written\n",
			j.shown, j.ev->gpu->name);
		status = SL_EXIT_FINDINGS;
		goto out;
	}
	struct rw_output o;
	const char *why = NULL;
	if (rw_render(&j, b, NULL, 0, false, &o, &why) < 0) {
		fprintf(err, "%s: internal error: %s; nothing written\n", j.shown, why);
		status = SL_EXIT_OOM;
		goto out;
	}

	if (!c->quiet) {
		size_t stuck = 0;
		size_t edits = explain(&j, b, &stuck);
		if (changed && j.file->sweep->method != SL_METHOD_GRID)
			fprintf(err, "%s: note: method %s: the removed values are no longer drawn, which changes what "
				     "the sweep samples\n",
				j.shown, sl_method_name(j.file->sweep->method));
		if (b->n[SL_RW_OOM] && stuck) {
			const char *eg = rw_oom_example(&j, b);
			fprintf(err, "%s: %s%s%s%s, some because of the values kept above\n", j.shown,
				rw_share(&j, &o, SL_RW_OOM, "still run out of memory"), eg ? " (e.g. " : "",
				eg ? eg : "", eg ? ")" : "");
		} else if (b->n[SL_RW_OOM]) {
			const char *eg = rw_oom_example(&j, b);
			fprintf(err,
				"%s: %s, each only together with other values%s%s%s; 'sweeplint split --exact' "
				"removes them\n",
				j.shown, rw_share(&j, &o, SL_RW_OOM, "still run out of memory"), eg ? " (e.g. " : "",
				eg ? eg : "", eg ? ")" : "");
		} else if (!changed) {
			fprintf(err, "%s: nothing to prune: %s\n", j.shown,
				whole->n[SL_RW_FEASIBLE] ? "every combination fits"
							 : "no combination is known to run out of memory");
		}
		if (changed)
			fprintf(err, "%s: %zu edit%s; %s\n", j.shown, edits, edits == 1 ? "" : "s",
				rw_share(&j, &o, SL_RW_FEASIBLE, "fit"));
	}

	status = b->n[SL_RW_OOM] ? SL_EXIT_FINDINGS : SL_EXIT_OK;
	if (c->diff) {
		struct sl_buf d;
		sl_buf_init(&d, run->arena);
		/* the labels are the names as given (sl_rewrite_diff quotes them as git does when needed) */
		const char *p = strcmp(j.path, "-") == 0 ? "<stdin>" : j.path[0] == '/' ? j.path : NULL;
		sl_rewrite_diff(&d, j.input, o.splices, o.nsplices,
				p ? p : sl_arena_printf(run->arena, "a/%s", j.path),
				p ? p : sl_arena_printf(run->arena, "b/%s", j.path), 3);
		fwrite(d.buf, 1, d.len, cli->out);
	} else if (c->in_place) {
		if (!o.nsplices) {
			if (!c->quiet)
				fprintf(err, "%s: unchanged\n", j.shown);
		} else if (rw_write(&j, j.path, o.text.buf, o.text.len, SL_WRITE_MUST_EXIST | (c->force ? SL_WRITE_FORCE : 0u)) !=
			   0) {
			status = SL_EXIT_USAGE;
		}
	} else if (c->output && strcmp(c->output, "-") != 0) {
		if (rw_write(&j, c->output, o.text.buf, o.text.len, SL_WRITE_DEVICE | (c->force ? SL_WRITE_FORCE : 0u)) != 0)
			status = SL_EXIT_USAGE;
	} else {
		fwrite(o.text.buf, 1, o.text.len, cli->out);
	}
	if (fflush(cli->out) != 0) {
		perror("sweeplint: error: cannot write output");
		status = SL_EXIT_USAGE;
	}
out:
	sl_run_free(run);
	return status;
}
