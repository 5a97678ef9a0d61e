/* cmd_catalog: not written yet. */
#include "cli.h"

int cmd_models(struct sl_cli *cli, int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(cli->err, "sweeplint: models: not implemented yet\n");
	return SL_EXIT_USAGE;
}

int cmd_gpus(struct sl_cli *cli, int argc, char **argv)
{
	return cmd_models(cli, argc, argv);
}

int cmd_rules(struct sl_cli *cli, int argc, char **argv)
{
	return cmd_models(cli, argc, argv);
}
