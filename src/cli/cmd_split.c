/*
 * cmd_split: `sweeplint split [OPTIONS] --by KEY FILE` — one sweep per value
 * of KEY (a parameter's dotted path, or a role such as `model`), each pruned
 * for that value, written as STEM.VALUE.yaml into -o DIR (default: FILE's
 * folder); --only VALUE writes just that one (-o - prints it). --exact
 * splits further, by the axes that decide feasibility, until no sweep holds
 * a combination that runs out of memory, without losing one that fits
 * (STEM[.VALUE].N.yaml). Every file is rendered and checked again before
 * any is written; its `name:` says which part it is and `run_cap` is shared
 * out in proportion to the combinations. Exit: 0 when written and nothing
 * left runs out of memory, 1 when out-of-memory combinations remain in the
 * files (add --exact) or a requested value has nothing that fits, 2 on
 * usage or I/O errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "opts.h"
#include "rewrite_cli.h"
#include "sweeplint/diag.h"
#include "sweeplint/path.h"
#include "sweeplint/run.h"
#include "sweeplint/split.h"
#include "sweeplint/trainer.h"
#include "sweeplint/write.h"

#define SL_STR_(x) #x
#define SL_STR(x) SL_STR_(x)

enum { OPT_BY = 512, OPT_ONLY, OPT_EXACT, OPT_DRY_RUN, OPT_FORCE, OPT_MAX_FILES };

struct split_ctx {
	struct sl_run *run;
	const char *by, *only, *output, *config_file;
	bool exact, dry_run, quiet, force;
	size_t max_files;            /* --max-files: refuse a split into more sweeps */
};

static const struct sl_opt split_opts[] = {
	{"by", OPT_BY, true, "KEY", "one sweep per value of KEY (a parameter path, or a role such as model)"},
	{"only", OPT_ONLY, true, "VALUE", "write only the sweep for this value of KEY"},
	{"exact", OPT_EXACT, false, NULL, "split further until no sweep holds an out-of-memory combination"},
	{"output", 'o', true, "DIR", "folder for the files (default: FILE's folder; '-' prints a single sweep)"},
	{"dry-run", OPT_DRY_RUN, false, NULL, "say what would be written, write nothing"},
	{"force", OPT_FORCE, false, NULL, "replace files that already exist in the output folder (never an input)"},
	{"max-files", OPT_MAX_FILES, true, "N",
	 "refuse a split into more than N sweeps (default " SL_STR(SL_SPLIT_MAX_FILES) ", at most "
	 SL_STR(SL_SPLIT_MAX_FILES_LIMIT) ")"},
	{"quiet", 'q', false, NULL, "say nothing on standard error unless something fails"},
	{"config-file", RW_OPT_CONFIG_FILE, true, "FILE", "project config instead of the nearest .sweeplint.yaml"},
};

static int split_opt(struct sl_cli *cli, void *vctx, int key, const char *arg)
{
	struct split_ctx *c = vctx;
	struct sl_arena *a = c->run->arena;
	switch (key) {
	case OPT_BY:
		if (!*arg)
			return sl_opts_error(cli, "invalid --by '': expected a parameter or role");
		c->by = sl_arena_strdup(a, arg);
		return 0;
	case OPT_ONLY:
		c->only = sl_arena_strdup(a, arg);
		return 0;
	case OPT_EXACT:
		c->exact = true;
		return 0;
	case 'o':
		if (!*arg)
			return sl_opts_error(cli, "invalid --output '': expected a folder or '-'");
		c->output = sl_arena_strdup(a, arg);
		return 0;
	case OPT_DRY_RUN:
		c->dry_run = true;
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	case OPT_FORCE:
		c->force = true;
		return 0;
	case OPT_MAX_FILES: {
		char *end = NULL;
		errno = 0;
		unsigned long long v = strtoull(arg, &end, 10);
		if (!*arg || *end || errno || arg[0] == '-' || v < 1 || v > SL_SPLIT_MAX_FILES_LIMIT)
			return sl_opts_error(cli, "invalid --max-files '%s': expected a count from 1 to %d", arg,
					     SL_SPLIT_MAX_FILES_LIMIT);
		c->max_files = (size_t)v;
		return 0;
	}
	case RW_OPT_CONFIG_FILE:
		if (!*arg)
			return sl_opts_error(cli, "invalid --config-file '': expected a file");
		c->config_file = sl_arena_strdup(a, arg);
		return 0;
	default:
		return sl_opts_error(cli, "internal error: option %d", key);
	}
}

static const struct sl_cmd_spec spec = {
	.name = "split",
	.usage = "[OPTIONS] --by KEY FILE | --exact FILE",
	.summary = "One sweep per value of a key, each pruned; --exact: sweeps without out-of-memory combinations.",
	.common = SL_OPTS_MODEL,
	.exit_help = "0 written and every combination in them fits, 1 out-of-memory combinations remain (add\n"
		     "--exact) or the --only value has nothing that fits, 2 usage or I/O problem (nothing written)",
	.opts = split_opts,
	.nopts = sizeof split_opts / sizeof split_opts[0],
	.on_opt = split_opt,
};

struct piece {
	struct sl_box *box;
	const char *part;            /* the file-name part: "bge-m3-ko", "bge-m3-ko.2", "3" */
	const char *file;            /* its name in the folder */
	const char *path;            /* DIR/file */
	const char *label;           /* "model.bi_model=bge-m3-ko, part 2 of 3" */
	uint64_t run_cap;
	struct rw_output out;
};

/* What the box holds besides the --by value: its narrowed axes, for the report. */
static const char *box_summary(struct rw_job *j, const struct sl_box *b, size_t by_axis)
{
	struct sl_arena *a = j->run->arena;
	struct sl_buf s;
	sl_buf_init(&s, a);
	const struct sl_rewrite *rw = &j->rw;
	for (size_t i = 0; i < rw->naxes; i++) {
		const struct sl_rw_axis *x = &rw->axes[i];
		if (i == by_axis || x->kind == SL_RW_FIXED)
			continue;
		size_t kept = 0;
		for (size_t k = 0; k < x->ax->n; k++)
			kept += b->keep[i][k];
		if (kept == x->ax->n && !b->max[i])
			continue;
		sl_buf_addf(&s, "%s%s ", s.len ? "; " : "", sl_term_safe(a, x->ax->key));
		if (x->kind == SL_RW_BOUNDS) {
			sl_buf_addf(&s, "max %llu", (unsigned long long)b->max[i]);
			continue;
		}
		bool first = true;
		for (size_t k = 0; k < x->ax->n; k++)
			if (b->keep[i][k]) {
				sl_buf_addf(&s, "%s%s", first ? "" : ",", sl_term_safe(a, sl_rewrite_value_text(rw, i, k)));
				first = false;
			}
	}
	return s.len ? s.buf : NULL;
}

static bool ensure_dir(struct sl_cli *cli, const char *dir)
{
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return true;
		fprintf(cli->err, "sweeplint: error: output folder '%s' is not a folder\n", dir);
		return false;
	}
	if (errno == ENOENT && mkdir(dir, 0777) == 0)
		return true;
	fprintf(cli->err, "sweeplint: error: cannot create output folder '%s': %s\n", dir, strerror(errno));
	return false;
}

int cmd_split(struct sl_cli *cli, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	struct split_ctx ctx = {.run = run, .max_files = SL_SPLIT_MAX_FILES};
	struct sl_cmd_spec spec_here = spec; /* the table is const; this call's context is local */
	spec_here.ctx = &ctx;
	run->opt.headroom = 0;
	int first = 0;
	int rc = sl_opts_parse(cli, &spec_here, run, argc, argv, &first);
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	struct split_ctx *c = &ctx;
	struct sl_arena *a = run->arena;
	int status = SL_EXIT_USAGE;
	if (first >= argc) {
		sl_opts_error(cli, "no input file (give FILE, or '-' for standard input)");
		goto out;
	}
	if (argc - first > 1) {
		sl_opts_error(cli, "split takes one FILE, not %d", argc - first);
		goto out;
	}
	if (!c->by && !c->exact) {
		sl_opts_error(cli, "say how to split: --by KEY, --exact, or both");
		goto out;
	}
	if (c->only && !c->by) {
		sl_opts_error(cli, "--only needs --by");
		goto out;
	}
	bool to_stdout = c->output && strcmp(c->output, "-") == 0;
	if (!c->output && strcmp(argv[first], "-") == 0 && !c->dry_run) {
		sl_opts_error(cli, "give -o DIR (or -o - for one sweep) when reading standard input");
		goto out;
	}

	struct rw_job j = {.cli = cli, .run = run, .cmd = "split", .path = argv[first], .config_file = c->config_file};
	status = rw_load(&j);
	if (status)
		goto out;
	status = SL_EXIT_USAGE;
	FILE *err = cli->err;
	const struct sl_sweep *sw = j.file->sweep;
	const struct sl_rewrite *rw = &j.rw;
	struct sl_box *whole = sl_box_whole(rw);
	const char *why = NULL;

	/* the --by boxes (or the whole sweep, pruned) */
	struct sl_box **boxes = NULL;
	size_t nboxes = 0, nskipped = 0, by_axis = SIZE_MAX;
	const struct sl_param *by = NULL;
	if (c->by) {
		by_axis = sl_rewrite_find_key(rw, c->by, &by);
		if (!by) {
			struct sl_buf names;
			sl_buf_init(&names, a);
			for (size_t i = 0; i < sw->nparams; i++)
				if (!sw->params[i].is_dict)
					sl_buf_addf(&names, "%s%s", names.len ? ", " : "", sw->params[i].path);
			sl_opts_error(cli, "--by %s: no such parameter or role in the sweep (parameters: %s)", c->by,
				      names.len ? names.buf : "none");
			goto out;
		}
		if (sl_rewrite_split_by(rw, whole, by, by_axis, &boxes, &nboxes, &nskipped, &why) < 0) {
			sl_opts_error(cli, "%s", why);
			goto out;
		}
		if (c->only) {
			bool listed = false;
			for (size_t k = 0; k < by->values->n; k++)
				listed |= by->values->items[k]->kind == SL_NODE_SCALAR &&
					  strcmp(by->values->items[k]->text, c->only) == 0;
			if (!listed) {
				struct sl_buf names;
				sl_buf_init(&names, a);
				for (size_t k = 0; k < by->values->n; k++)
					if (by->values->items[k]->kind == SL_NODE_SCALAR)
						sl_buf_addf(&names, "%s%s", names.len ? ", " : "",
							    by->values->items[k]->text);
				sl_opts_error(cli, "--only %s: not a value of %s (values: %s)", c->only, by->path,
					      names.buf ? names.buf : "");
				goto out;
			}
			size_t w = 0;
			for (size_t k = 0; k < nboxes; k++)
				if (strcmp(boxes[k]->value, c->only) == 0)
					boxes[w++] = boxes[k];
			nboxes = w;
			if (!nboxes) {
				fprintf(err, "%s: %s %s: no combination fits on %s: nothing written\n", j.shown, by->path,
					c->only, j.ev->gpu->name);
				status = SL_EXIT_FINDINGS;
				goto out;
			}
		} else if (nskipped && !c->quiet) {
			for (size_t k = 0; k < by->values->n; k++) {
				const struct sl_node *it = by->values->items[k];
				bool kept = false;
				for (size_t m = 0; m < nboxes; m++)
					kept |= boxes[m]->value && it->kind == SL_NODE_SCALAR &&
						strcmp(boxes[m]->value, it->text) == 0;
				if (!kept)
					fprintf(err, "%s: %s %s: no combination fits on %s: no sweep for it\n",
						rw_at(&j, it->span), by->path,
						it->kind == SL_NODE_SCALAR ? sl_term_safe(a, it->text) : "?", j.ev->gpu->name);
			}
		}
	} else {
		struct sl_box *b = sl_box_copy(rw, whole);
		sl_rewrite_prune(rw, b);
		if (b->n[SL_RW_FEASIBLE] + b->n[SL_RW_UNKNOWN]) {
			boxes = sl_arena_array(a, 1, sizeof *boxes);
			boxes[nboxes++] = b;
		}
	}
	if (!nboxes) {
		fprintf(err, "%s: error: no combination fits on %s: nothing written\n", j.shown, j.ev->gpu->name);
		status = SL_EXIT_FINDINGS;
		goto out;
	}
	if (by && nboxes > c->max_files) {
		/* before anything is rendered: thousands of files are a mistake more often than a plan */
		fprintf(err, "%s: error: splitting by %s makes %zu sweeps, more than --max-files allows (%zu): give "
			     "--max-files %zu to write them all, or --only VALUE for one; nothing written\n",
			rw_at(&j, by->values->span), sl_term_safe(a, by->path), nboxes,
			c->max_files, nboxes);
		goto out;
	}

	/* --exact: each box covered by boxes without an out-of-memory combination */
	struct piece *pieces = NULL;
	size_t np = 0, pieces_cap = 0;
	for (size_t k = 0; k < nboxes; k++) {
		struct sl_box **parts = &boxes[k];
		size_t nparts = 1;
		/* the sweeps the boxes after this one need at least (one each) stay within --max-files */
		j.rw.max_parts = c->max_files > np + (nboxes - k - 1) ? c->max_files - np - (nboxes - k - 1) : 1;
		int crc = c->exact ? sl_rewrite_cover(rw, boxes[k], &parts, &nparts, &why) : 0;
		if (crc == -SL_EUSAGE && !why) {
			fprintf(err, "%s: error: split --exact makes more than %zu sweeps (--max-files): give a larger "
				     "--max-files, or narrow the sweep first (fewer values, `fix`); nothing written\n",
				j.shown, c->max_files);
			goto out;
		}
		if (crc < 0) {
			fprintf(err, "%s: error: cannot split exactly%s%s: %s; nothing written\n", j.shown,
				boxes[k]->value ? " for " : "", boxes[k]->value ? boxes[k]->value : "", why);
			goto out;
		}
		pieces = sl_arena_reserve(a, pieces, np, &pieces_cap, np + nparts, sizeof *pieces);
		for (size_t p = 0; p < nparts; p++) {
			struct piece *pc = &pieces[np++];
			memset(pc, 0, sizeof *pc);
			pc->box = parts[p];
			pc->box->value = boxes[k]->value;
			pc->box->part = nparts > 1 ? (unsigned)p + 1 : 0;
			pc->box->nparts = nparts > 1 ? (unsigned)nparts : 0;
			const char *v = boxes[k]->value;
			if (nparts > 1)
				pc->part = v ? sl_arena_printf(a, "%s.%zu", v, p + 1) : sl_arena_printf(a, "%zu", p + 1);
			else
				pc->part = v;
			struct sl_buf l;
			sl_buf_init(&l, a);
			if (v)
				sl_buf_addf(&l, "%s=%s", sl_term_safe(a, by->path), sl_term_safe(a, v));
			if (nparts > 1)
				sl_buf_addf(&l, "%spart %zu of %zu", v ? ", " : "", p + 1, nparts);
			pc->label = l.len ? l.buf : NULL;
		}
	}
	if (to_stdout && np != 1) {
		sl_opts_error(cli, "-o - prints one sweep, but this split makes %zu (write them to a folder, or pick "
				   "one with --only)",
			      np);
		goto out;
	}

	/* names, run_cap shares, rendering and the checks, all before anything is written */
	const char *stem, *ext;
	sl_split_stem(a, strcmp(j.path, "-") == 0 ? "sweep.yaml" : j.path, &stem, &ext);
	const char **parts = sl_arena_array(a, np, sizeof *parts);
	const char **files = sl_arena_array(a, np, sizeof *files);
	for (size_t k = 0; k < np; k++)
		parts[k] = pieces[k].part;
	const char *dir = c->output && !to_stdout ? c->output
			  : strcmp(j.path, "-") == 0 ? "."
						     : sl_path_dir(a, j.path);
	const char *slash = strrchr(j.path, '/');
	const char *self = slash ? slash + 1 : j.path;
	sl_split_names(a, stem, ext, parts, np, self, files);
	uint64_t *weights = sl_arena_array(a, np, sizeof *weights);
	uint64_t *caps = sl_arena_array(a, np, sizeof *caps);
	for (size_t k = 0; k < np; k++)
		weights[k] = pieces[k].box->n[SL_RW_FEASIBLE] + pieces[k].box->n[SL_RW_UNKNOWN];
	if (sw->has_run_cap && !sl_split_run_caps((uint64_t)sw->run_cap_value, weights, np, caps)) {
		/* one run each would run more than the cap W&B keeps: refuse rather than raise the budget */
		fprintf(err, "%s: error: run_cap %lld cannot be shared among the %zu sweeps of this split (each "
			     "needs at least 1, so they would run %zu): raise run_cap to at least %zu, or split fewer "
			     "ways (--only); nothing written\n",
			rw_at(&j, sw->run_cap->span), (long long)sw->run_cap_value, np, np, np);
		status = SL_EXIT_USAGE;
		goto out;
	}
	uint64_t kept = 0, oom_left = 0;
	struct sl_count fit_total = {0}, oom_total = {0};
	for (size_t k = 0; k < np; k++) {
		struct piece *pc = &pieces[k];
		pc->file = files[k];
		pc->path = strcmp(dir, ".") == 0 && !c->output ? pc->file : sl_arena_printf(a, "%s/%s", dir, pc->file);
		pc->run_cap = sw->has_run_cap ? caps[k] : 0;
		const char *name = NULL;
		if (sw->name && sw->name->kind == SL_NODE_SCALAR && pc->label)
			name = sl_arena_printf(a, "%s (%s)", sw->name->text, pc->label);
		if (rw_render_text(&j, pc->box, name, pc->run_cap, c->exact, &pc->out, &why) < 0) {
			fprintf(err, "%s: internal error: %s (for %s); nothing written\n", j.shown, why, pc->file);
			status = SL_EXIT_OOM;
			goto out;
		}
		/* the sweep's own fitting combinations in this part (a lowered bound adds new ones) */
		kept += sl_box_fitting_in_sweep(rw, pc->box);
		oom_left += pc->box->n[SL_RW_OOM];
		fit_total = sl_count_add(fit_total, pc->out.feasible);
		oom_total = sl_count_add(oom_total, pc->out.oom);
	}
	/* no combination that fits may be lost (each piece's fitting combinations are the whole's, split up) */
	/* (split by a key memory does not depend on, every sweep holds all of them once) */
	uint64_t want = whole->n[SL_RW_FEASIBLE] * (by && by_axis == SIZE_MAX ? nboxes : 1);
	if (!c->only && kept != want) {
		fprintf(err, "%s: internal error: the split sweeps hold %llu fitting combinations, not the %llu of the "
			     "sweep; nothing written\n",
			j.shown, (unsigned long long)kept, (unsigned long long)want);
		status = SL_EXIT_OOM;
		goto out;
	}

	/* nothing is written over an input (the sweep, a -c config, the project config), nor over an
	 * existing file without --force: checked for every file before the first is written */
	for (size_t k = 0; k < np && !to_stdout; k++) {
		const char *input = rw_input_of(&j, pieces[k].path);
		struct stat st;
		if (input) {
			fprintf(err, "sweeplint: error: will not write '%s': it is %s; nothing written\n",
				sl_term_safe(a, pieces[k].path), input);
			status = SL_EXIT_USAGE;
			goto out;
		}
		if (!c->force && lstat(pieces[k].path, &st) == 0) {
			fprintf(err, "sweeplint: error: '%s' already exists (--force replaces it); nothing written\n",
				sl_term_safe(a, pieces[k].path));
			status = SL_EXIT_USAGE;
			goto out;
		}
	}
	if (!to_stdout && !c->dry_run && !ensure_dir(cli, dir))
		goto out;
	status = SL_EXIT_OK;
	for (size_t k = 0; k < np; k++) {
		struct piece *pc = &pieces[k];
		if (to_stdout)
			fwrite(pc->out.text.buf, 1, pc->out.text.len, cli->out);
		else if (!c->dry_run && rw_write(&j, pc->path, pc->out.text.buf, pc->out.text.len,
								c->force ? SL_WRITE_FORCE : 0u) != 0) {
			status = SL_EXIT_USAGE;
			break;
		}
		if (c->quiet)
			continue;
		const char *what = box_summary(&j, pc->box, by_axis);
		fprintf(err, "%s %s: %s%s%s combinations (%s fit", c->dry_run ? "would write" : "wrote",
			to_stdout ? "<stdout>" : pc->path, pc->label ? pc->label : "", pc->label ? "; " : "",
			rw_count(&j, pc->out.total), rw_count(&j, pc->out.feasible));
		if (pc->out.oom.value)
			fprintf(err, ", %s out of memory", rw_count(&j, pc->out.oom));
		if (pc->out.unknown.value)
			fprintf(err, ", %s unknown", rw_count(&j, pc->out.unknown));
		fputc(')', err);
		if (what)
			fprintf(err, "; %s", what);
		if (pc->run_cap)
			fprintf(err, "; run_cap %llu", (unsigned long long)pc->run_cap);
		fputc('\n', err);
	}
	if (status == SL_EXIT_OK && !c->quiet) {
		if (sw->has_run_cap && np > 1)
			fprintf(err, "%s: run_cap %lld shared out among the %zu sweeps by their combinations that fit\n",
				j.shown, (long long)sw->run_cap_value, np);
		if (sw->name && sw->name->kind == SL_NODE_SCALAR && np > 1)
			fprintf(err, "%s: each sweep's name says which part it is: '%s (...)'\n", j.shown, sw->name->text);
		if (sw->method != SL_METHOD_GRID && sw->method != SL_METHOD_NONE)
			fprintf(err, "%s: note: method %s: each sweep samples only its own values, which changes what is "
				     "drawn (and how often) compared with the original sweep\n",
				j.shown, sl_method_name(sw->method));
		fprintf(err, "%s: %zu sweep%s, %s combinations that fit", j.shown, np, np == 1 ? "" : "s",
			rw_count(&j, fit_total));
		if (oom_total.value)
			fprintf(err, ", %s still out of memory (each only with some other values: add --exact)",
				rw_count(&j, oom_total));
		else
			fputs(", none out of memory", err);
		fputc('\n', err);
	}
	if (status == SL_EXIT_OK && oom_left)
		status = SL_EXIT_FINDINGS;
	if (fflush(cli->out) != 0) {
		perror("sweeplint: error: cannot write output");
		status = SL_EXIT_USAGE;
	}
out:
	sl_run_free(run);
	return status;
}
