/*
 * cmd_check: `sweeplint [check] [OPTIONS] FILE...` — read each file (or
 * stdin for '-'), run the checks, report them in the chosen format. A file
 * that cannot be read is reported on stderr and the others are still
 * checked. Exit: 2 when anything stopped a lint (a file, a config, a check,
 * the output), else 1 when an error-level finding was reported, else 0.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "sweeplint/report.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"

static const struct sl_cmd_spec spec = {
	.name = "check",
	.usage = "[OPTIONS] FILE...",
	.summary = "Lint W&B sweep files ('-' reads standard input).",
	.common = SL_OPTS_ALL,
};

int cmd_check(struct sl_cli *cli, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	int first = 0;
	int rc = sl_opts_parse(cli, &spec, run, argc, argv, &first);
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
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

	struct sl_report *rep = sl_report_new(run->arena, &run->opt, cli->out);
	bool stopped = false;
	for (int i = first; i < argc; i++) {
		const char *path = argv[i];
		const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
		int err = 0;
		struct sl_source *src = sl_source_read(run->arena, path, SL_MAX_INPUT_BYTES, &err);
		if (!src) {
			if (err == EFBIG)
				fprintf(cli->err, "%s: error: cannot read: larger than the %u MiB limit\n", shown,
					SL_MAX_INPUT_BYTES >> 20);
			else
				fprintf(cli->err, "%s: error: cannot read: %s\n", shown, strerror(err));
			stopped = true;
			continue;
		}
		struct sl_file *f = sl_run_check_source(run, src);
		sl_report_file(rep, f);
		if (f->err) {
			stopped = true;
			if (strcmp(f->err_rule, "config") == 0)
				fprintf(cli->err, "%s: error: a --config file could not be used (see its finding)\n",
					shown);
			else
				fprintf(cli->err, "%s: error: rule '%s' could not run: %s\n", shown, f->err_rule,
					sl_strerror(f->err));
		}
	}
	if (sl_report_finish(rep) < 0) {
		fprintf(cli->err, "sweeplint: error: cannot write output: %s\n", strerror(errno));
		stopped = true;
	}
	size_t errors = sl_report_totals(rep)->by_severity[SL_SEV_ERROR];
	sl_run_free(run);
	if (stopped)
		return SL_EXIT_USAGE;
	return errors ? SL_EXIT_FINDINGS : SL_EXIT_OK;
}
