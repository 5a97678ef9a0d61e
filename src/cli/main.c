/* main: the subcommand table and the process exit. The only file that exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct cmd {
	const char *name;
	int (*fn)(struct sl_cli *cli, int argc, char **argv);
	const char *summary;
};

static const struct cmd cmds[] = {
	{"check", cmd_check, "lint sweeps (the default command; '-' reads stdin)"},
	{"fix", cmd_fix, "prune values that fit in no combination"},
	{"split", cmd_split, "one sweep per value of a key, each pruned"},
	{"estimate", cmd_estimate, "memory breakdown of one run"},
	{"fit", cmd_fit, "largest batch per sequence length that fits"},
	{"models", cmd_models, "list the model catalog"},
	{"gpus", cmd_gpus, "list the GPU catalog"},
	{"rules", cmd_rules, "list the rules"},
};

int main(int argc, char **argv)
{
	struct sl_cli cli = {.out = stdout, .err = stderr, .argv0 = "sweeplint"};
	if (argc >= 2) {
		for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
			if (strcmp(argv[1], cmds[i].name) == 0)
				return cmds[i].fn(&cli, argc - 1, argv + 1);
	}
	/* the default command is check: "sweeplint sweep.yaml" */
	int rc = cmd_check(&cli, argc, argv);
	if (fflush(stdout) != 0 && rc == 0)
		rc = SL_EXIT_USAGE;
	return rc;
}
