/*
 * cmd_check: `sweeplint [check] [OPTIONS] FILE...` — read each file (or
 * stdin for '-'), run the checks, report them in the chosen format. A file
 * that cannot be read is reported on stderr and the others are still
 * checked. Exit: 2 when anything stopped a lint (a file, a config, a check,
 * the output), else 1 when an error-level finding was reported, else 0.
 *
 * `sweeplint report [OPTIONS] FILE...` is the same run written as one
 * self-contained HTML document (src/report/html.c) to -o FILE (default
 * sweeplint-report.html, '-' for standard output), with the same exit status.
 *
 * Project configuration (config.h): each file is checked with the
 * .sweeplint.yaml found upward from it, or the one --config-file names,
 * under the command line's options; a file the config ignores is skipped,
 * and a config with problems is reported once (path:line:col on stderr)
 * and stops the lint of the files it applies to.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "opts.h"
#include "sweeplint/arena.h"
#include "sweeplint/config.h"
#include "sweeplint/pysweep.h"
#include "sweeplint/report.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"
#include "sweeplint/write.h"

enum { OPT_CONFIG_FILE = 512, OPT_FORCE };

#define REPORT_DEFAULT "sweeplint-report.html"

static const struct sl_opt check_opts[] = {
	{"config-file", OPT_CONFIG_FILE, true, "FILE",
	 "project config to use instead of the nearest " SL_CONFIG_NAME " above each file"},
	{"output", 'o', true, "FILE", "where to write the report (default " REPORT_DEFAULT ", '-': standard output)"},
	{"force", OPT_FORCE, false, NULL, "replace a read-only or hard-linked report file too (never a link)"},
};

struct check_ctx {
	struct sl_run *run;
	const char *config_file;
	const char *output;              /* report: -o */
	bool output_given;               /* -o was given (a device or FIFO it names is written as a stream) */
	bool force;                      /* report: --force */
};

static int check_opt(struct sl_cli *cli, void *ctx, int key, const char *arg)
{
	struct check_ctx *c = ctx;
	if (key == OPT_FORCE) {
		c->force = true;
		return 0;
	}
	if (key == 'o') {
		if (!*arg)
			return sl_opts_error(cli, "invalid --output '': expected a file or '-'");
		c->output = sl_arena_strdup(c->run->arena, arg);
		c->output_given = true;
		return 0;
	}
	if (!*arg)
		return sl_opts_error(cli, "invalid --config-file '': expected a file");
	c->config_file = sl_arena_strdup(c->run->arena, arg);
	return 0;
}

/* A loaded (or failed) project config, by path. */
struct project {
	const char *path;
	struct sl_config *config;        /* NULL when it could not be used */
};

struct projects {
	struct project *v;
	size_t n, cap;
};

/* The config at path, loaded once; NULL after reporting it on stderr (once) when it cannot be used. */
static struct sl_config *project_load(struct sl_cli *cli, struct sl_run *run, struct projects *ps, const char *path)
{
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->v[i].path, path) == 0)
			return ps->v[i].config;
	path = sl_arena_strdup(run->arena, path); /* it may live in a file's scratch arena; the config keeps it */
	struct sl_diags diags;
	sl_diags_init(&diags, run->arena);
	struct sl_config *c = NULL;
	int errnum = 0;
	int rc = sl_config_load(run, path, sl_opts_size, &c, &diags, &errnum);
	if (rc == -SL_EIO)
		fprintf(cli->err, "%s: error: cannot read config file: %s\n", path, sl_source_strerror(errnum));
	sl_diags_sort(&diags);
	for (size_t i = 0; i < diags.n; i++) {
		const struct sl_diag *d = &diags.v[i];
		fprintf(cli->err, "%s:%u:%u: %s: %s [%s]\n", d->src->display, d->span.line, d->span.col,
			sl_severity_name(d->severity), d->message, d->rule);
	}
	ps->v = sl_arena_reserve(run->arena, ps->v, ps->n, &ps->cap, ps->n + 1, sizeof *ps->v);
	ps->v[ps->n].path = path;
	ps->v[ps->n].config = rc == 0 ? c : NULL;
	ps->n++;
	return rc == 0 ? c : NULL;
}

static const struct sl_cmd_spec check_spec = {
	.name = "check",
	.usage = "[OPTIONS] FILE...",
	.summary = "Lint W&B sweep files ('-' reads standard input).",
	.common = SL_OPTS_ALL,
	.opts = check_opts,
	.nopts = 1, /* --config-file */
	.on_opt = check_opt,
};

static const struct sl_cmd_spec report_spec = {
	.name = "report",
	.usage = "[OPTIONS] FILE...",
	.summary = "Lint W&B sweep files into one self-contained HTML report: per model a batch x length "
		   "heatmap, per value the breakdown of its worst combination, the findings and the assumptions.",
	.common = SL_OPTS_MODEL | SL_OPTS_RULES,
	.opts = check_opts,
	.nopts = sizeof check_opts / sizeof check_opts[0],
	.on_opt = check_opt,
};

/* The input of this run that path already is (the same file), or NULL: the report never replaces one. */
static const char *report_over_input(const char *path, int argc, char **argv, int first)
{
	struct stat out, in;
	if (strcmp(path, "-") == 0 || stat(path, &out) != 0)
		return NULL;
	for (int i = first; i < argc; i++)
		if (strcmp(argv[i], "-") != 0 && stat(argv[i], &in) == 0 && in.st_dev == out.st_dev &&
		    in.st_ino == out.st_ino)
			return argv[i];
	return NULL;
}

/* The state of check's loop over its files. */
struct check_loop {
	struct sl_cli *cli;
	struct sl_run *run;
	const struct check_ctx *ctx;
	const struct sl_config_base *base;
	struct projects *projects;
	struct sl_report *rep;
	const struct sl_config *applied; /* the config applied last (first_file: none yet) */
	bool first_file_done;
	bool stopped;                    /* a file, a config or a check could not be linted: exit 2 */
	const char *last_note;           /* the last config-discovery note printed (run arena) */
	size_t given, ignored;
	const char *ignored_at;          /* the first pattern that hid a file: config:line (ignore: 'PATTERN') */
};

/*
 * Check and report one file; fa holds everything made for it (the caller frees it after). What
 * outlives the file (projects, notes, the first ignore pattern) is copied into the run's arena.
 */
static void check_one(struct check_loop *L, const char *path, struct sl_arena *fa)
{
	struct sl_cli *cli = L->cli;
	struct sl_run *run = L->run;
	const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : sl_term_safe(fa, path);
	const char *note = NULL;
	const char *cpath = L->ctx->config_file ? L->ctx->config_file : sl_config_find(fa, path, &note);
	if (note && (!L->last_note || strcmp(note, L->last_note) != 0)) {
		fprintf(cli->err, "sweeplint: warning: %s\n", note); /* once per config, not per file */
		L->last_note = sl_arena_strdup(run->arena, note);
	}
	struct sl_config *config = cpath ? project_load(cli, run, L->projects, cpath) : NULL;
	if (cpath && !config) {
		fprintf(cli->err, "%s: error: not checked: config file '%s' cannot be used\n", shown, cpath);
		L->stopped = true;
		return;
	}
	L->given++;
	size_t m = sl_config_ignore_match(fa, config, path);
	if (m) {
		const char *at = sl_arena_printf(fa, "%s:%u (ignore: '%s')", sl_term_safe(fa, cpath),
						 config->ignore_line[m - 1], sl_term_safe(fa, config->ignore[m - 1]));
		if (run->opt.verbose)
			fprintf(cli->err, "%s: note: not checked: ignored by %s\n", shown, at);
		if (!L->ignored_at)
			L->ignored_at = sl_arena_strdup(run->arena, at);
		L->ignored++;
		return;
	}
	if (!L->first_file_done || config != L->applied) {
		sl_config_apply(run, L->base, config);
		L->applied = config;
		L->first_file_done = true;
	}
	int err = 0;
	/* a notebook's outputs (images) make it larger than any sweep: it has a bound of its own */
	size_t max = sl_code_kind(path) == SL_CODE_NOTEBOOK ? SL_NOTEBOOK_MAX_BYTES : SL_MAX_INPUT_BYTES;
	struct sl_source *src = sl_source_read(fa, path, max, &err);
	if (!src) {
		if (err == EFBIG)
			fprintf(cli->err, "%s: error: cannot read: larger than the %zu MiB limit\n", shown, max >> 20);
		else
			fprintf(cli->err, "%s: error: cannot read: %s\n", shown, sl_source_strerror(err));
		L->stopped = true;
		return;
	}
	/* a Python file or notebook defines any number of sweeps: each is reported as a file of its own */
	for (struct sl_file *f = sl_run_check_source_in(run, fa, src); f; f = f->next) {
		sl_report_file(L->rep, f);
		if (f->err) {
			L->stopped = true;
			if (strcmp(f->err_rule, "config") == 0)
				fprintf(cli->err, "%s: error: a --config file could not be used (see its finding)\n",
					shown);
			else
				fprintf(cli->err, "%s: error: rule '%s' could not run: %s\n", shown, f->err_rule,
					sl_strerror(f->err));
		}
	}
}

static int check_main(struct sl_cli *cli, const struct sl_cmd_spec *spec, bool report, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	struct check_ctx ctx = {.run = run, .output = REPORT_DEFAULT};
	struct sl_cmd_spec spec_here = *spec; /* the table is const; this call's context is local */
	spec_here.ctx = &ctx;
	run->opt.headroom = 0; /* 0 after parsing: --headroom not given (a config may set it) */
	int first = 0;
	int rc = sl_opts_parse(cli, &spec_here, run, argc, argv, &first);
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	if (report)
		run->opt.format = SL_FORMAT_HTML;
	if (first >= argc) {
		sl_opts_error(cli, "no input files (give FILE... or '-' for standard input)");
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	int stdin_uses = 0;
	for (int i = first; i < argc; i++)
		stdin_uses += strcmp(argv[i], "-") == 0;
	if (stdin_uses > 1) {
		sl_opts_error(cli, "'-' (standard input) given %d times", stdin_uses);
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}

	/* the memory rules' GPU and --set are checked once, before any file (exit 2) */
	const char *why = NULL;
	int prc = sl_run_prepare(run, &why);
	if (prc == -SL_EUSAGE) {
		sl_opts_error(cli, "%s", why);
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	struct sl_config_base base;
	sl_config_save_base(run, &base);
	struct projects projects = {0};

	const char *over = report ? report_over_input(ctx.output, argc, argv, first) : NULL;
	if (over) {
		fprintf(cli->err, "sweeplint: error: will not write the report to '%s': it is the input '%s'\n",
			sl_term_safe(run->arena, ctx.output), sl_term_safe(run->arena, over));
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	unsigned wflags = (ctx.output_given ? SL_WRITE_DEVICE : 0u) | (ctx.force ? SL_WRITE_FORCE : 0u);
	/*
	 * The report's sink: standard output for '-'; else the one writer's temporary file beside the -o
	 * file, renamed over it at the end (sl_cli_write_open: never through a link; a repository can commit
	 * sweeplint-report.html as a link to ~/.ssh/authorized_keys). Written as it is made: memory stays flat.
	 */
	struct sl_writer w;
	bool to_file = report && strcmp(ctx.output, "-") != 0;
	FILE *sink = to_file ? sl_cli_write_open(cli, run->arena, ctx.output, wflags, &w) : cli->out;
	if (!sink) {
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	struct sl_report *rep = sl_report_new(run->arena, &run->opt, sink);
	struct check_loop L = {.cli = cli, .run = run, .ctx = &ctx, .base = &base, .projects = &projects, .rep = rep};
	/*
	 * Each file is checked in its own scratch arena, freed once the file is reported, so memory stays
	 * flat in the number of files (5,000 files: docs/reliability.md); the run's arena keeps what the
	 * files share. A format that reads the files again at the end (sl_report_keeps_files) gets them
	 * in the run's arena instead.
	 */
	bool scratch = !sl_report_keeps_files(rep);
	for (int i = first; i < argc; i++) {
		struct sl_arena *fa = scratch ? sl_arena_new() : run->arena;
		check_one(&L, argv[i], fa);
		if (scratch)
			sl_arena_free(fa);
	}
	bool stopped = L.stopped;
	size_t given = L.given, ignored = L.ignored;
	const char *ignored_at = L.ignored_at;
	/* an ignore list that hides every file given would turn any sweep into silence: say so (exit as
	 * for no finding: pre-commit hands every file to sweeplint, and ignoring them is the config's intent) */
	if (given && ignored == given)
		fprintf(cli->err, "sweeplint: warning: every input is ignored by %s; nothing was checked\n", ignored_at);
	int frc = sl_report_finish(rep);
	if (frc < 0 && !to_file) {
		fprintf(cli->err, "sweeplint: error: cannot write output: %s\n", strerror(errno));
		stopped = true;
	} else if (to_file && sl_cli_write_close(cli, run->arena, ctx.output, wflags, &w, sink, true) != 0) {
		stopped = true; /* said why; nothing was written there */
	} else if (to_file) {
		fprintf(cli->err, "sweeplint: wrote %s: %s\n", sl_term_safe(run->arena, ctx.output),
			sl_report_summary(run->arena, sl_report_totals(rep)));
	}
	size_t errors = sl_report_totals(rep)->by_severity[SL_SEV_ERROR];
	sl_run_free(run);
	if (stopped)
		return SL_EXIT_USAGE;
	return errors ? SL_EXIT_FINDINGS : SL_EXIT_OK;
}

int cmd_check(struct sl_cli *cli, int argc, char **argv)
{
	return check_main(cli, &check_spec, false, argc, argv);
}

int cmd_report(struct sl_cli *cli, int argc, char **argv)
{
	return check_main(cli, &report_spec, true, argc, argv);
}
