/* cmd_fix: not written yet. */
#include "cli.h"

int cmd_fix(struct sl_cli *cli, int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(cli->err, "sweeplint: fix: not implemented yet\n");
	return SL_EXIT_USAGE;
}
