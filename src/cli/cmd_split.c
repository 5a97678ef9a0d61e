/* cmd_split: not written yet. */
#include "cli.h"

int cmd_split(struct sl_cli *cli, int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(cli->err, "sweeplint: split: not implemented yet\n");
	return SL_EXIT_USAGE;
}
