/* cmd_estimate: not written yet. */
#include "cli.h"

int cmd_estimate(struct sl_cli *cli, int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(cli->err, "sweeplint: estimate: not implemented yet\n");
	return SL_EXIT_USAGE;
}
