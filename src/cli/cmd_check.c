/* cmd_check: not written yet. */
#include "cli.h"

int cmd_check(struct sl_cli *cli, int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(cli->err, "sweeplint: check: not implemented yet\n");
	return SL_EXIT_USAGE;
}
