/*
 * main: the subcommand table and the process exit (the only place that
 * exits). `sweeplint FILE...` is `sweeplint check FILE...`; the command, when
 * given, comes first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

struct cmd {
	const char *name;
	int (*fn)(struct sl_cli *cli, int argc, char **argv);
	const char *usage;
	const char *summary;
};

static const struct cmd cmds[] = {
	{"check", cmd_check, "[OPTIONS] FILE...", "lint sweeps (the default command; '-' reads stdin)"},
	{"report", cmd_report, "[OPTIONS] FILE...", "one self-contained HTML report (-o FILE)"},
	{"fix", cmd_fix, "[OPTIONS] FILE", "prune values that fit in no combination"},
	{"split", cmd_split, "[OPTIONS] --by KEY FILE", "one sweep per value of a key, each pruned"},
	{"estimate", cmd_estimate, "[OPTIONS] ROLE=VALUE...", "memory breakdown of one run"},
	{"fit", cmd_fit, "[OPTIONS] model=M", "largest batch per sequence length that fits"},
	{"models", cmd_models, "[OPTIONS]", "list the model catalog"},
	{"gpus", cmd_gpus, "[OPTIONS]", "list the GPU catalog"},
	{"lsp", cmd_lsp, "[OPTIONS]", "language server on stdin/stdout (diagnostics in the editor)"},
	{"rules", cmd_rules, "[OPTIONS] [RULE...]", "list the rules, or explain some"},
};

static void help(FILE *out)
{
	fputs("usage: sweeplint [check] [OPTIONS] FILE...\n"
	      "       sweeplint COMMAND [OPTIONS] ARGS...\n\n"
	      "Lint Weights & Biases sweep files and predict the GPU memory of every combination.\n\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		char left[64];
		snprintf(left, sizeof left, "%s %s", cmds[i].name, cmds[i].usage);
		fprintf(out, "  %-36s %s\n", left, cmds[i].summary);
	}
	fputs("\nRun 'sweeplint COMMAND --help' for the options of a command.\n"
	      "Exit status: 0 no error-level finding, 1 error-level findings, 2 usage or I/O problem.\n",
	      out);
}

int main(int argc, char **argv)
{
	/* stderr escapes control characters from input: no file's bytes act on the terminal */
	struct sl_cli cli = {.out = stdout, .err = sl_cli_term_stream(stderr), .argv0 = "sweeplint"};
	int rc = -1;
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		help(cli.out);
		rc = SL_EXIT_OK;
	} else if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		sl_opts_print_version(cli.out);
		rc = SL_EXIT_OK;
	} else if (argc >= 2) {
		for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
			if (strcmp(argv[1], cmds[i].name) == 0)
				rc = cmds[i].fn(&cli, argc - 1, argv + 1);
	}
	/* the default command is check: "sweeplint sweep.yaml" */
	if (rc < 0)
		rc = cmd_check(&cli, argc, argv);
	if (fflush(stdout) != 0 && rc == SL_EXIT_OK) {
		perror("sweeplint: error: cannot write output");
		rc = SL_EXIT_USAGE;
	}
	if (cli.err != stderr)
		fclose(cli.err);
	return rc;
}
