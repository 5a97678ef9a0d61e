/* cmd_fit: not written yet. */
#include "cli.h"

int cmd_fit(struct sl_cli *cli, int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(cli->err, "sweeplint: fit: not implemented yet\n");
	return SL_EXIT_USAGE;
}
