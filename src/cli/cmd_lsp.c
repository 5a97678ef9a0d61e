/*
 * cmd_lsp: `sweeplint lsp [OPTIONS]` — serve the Language Server Protocol on
 * standard input and output (lsp.h). The common model and rule options
 * (-g, -n, -c, --set, --headroom, --rule ...) and --config-file apply to
 * every document, as they would to `sweeplint check`; a project config
 * found from each document's path fills in what they leave unset. Exit: 0
 * after the client's shutdown and exit, 1 when the client ended otherwise,
 * 2 for a bad option.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"
#include "sweeplint/arena.h"
#include "sweeplint/config.h"
#include "sweeplint/lsp.h"
#include "sweeplint/program.h"
#include "sweeplint/run.h"

enum { OPT_CONFIG_FILE = 512, OPT_STDIO };

static const struct sl_opt lsp_opts[] = {
	{"config-file", OPT_CONFIG_FILE, true, "FILE",
	 "project config to use instead of the nearest " SL_CONFIG_NAME " above each document"},
	{"stdio", OPT_STDIO, false, NULL, "talk over standard input and output (the default and only transport)"},
};

struct lsp_ctx {
	struct sl_run *run;
	const char *config_file;
};

static int lsp_opt(struct sl_cli *cli, void *ctx, int key, const char *arg)
{
	struct lsp_ctx *c = ctx;
	if (key == OPT_STDIO)
		return 0;
	if (!*arg)
		return sl_opts_error(cli, "invalid --config-file '': expected a file");
	c->config_file = sl_arena_strdup(c->run->arena, arg);
	return 0;
}

static const struct sl_cmd_spec spec = {
	.name = "lsp",
	.usage = "[OPTIONS]",
	.summary = "Serve the Language Server Protocol on standard input/output: diagnostics as you type.",
	.common = SL_OPTS_MODEL | SL_OPTS_RULES,
	.exit_help = "0 after the client's shutdown and exit, 1 when the client ended otherwise, 2 bad option",
	.opts = lsp_opts,
	.nopts = sizeof lsp_opts / sizeof lsp_opts[0],
	.on_opt = lsp_opt,
};

int cmd_lsp(struct sl_cli *cli, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	struct lsp_ctx ctx = {.run = run};
	struct sl_cmd_spec spec_here = spec;
	spec_here.ctx = &ctx;
	run->opt.headroom = 0; /* 0 after parsing: --headroom not given (a project config may set it) */
	int first = 0;
	int rc = sl_opts_parse(cli, &spec_here, run, argc, argv, &first);
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	if (first < argc) {
		sl_opts_error(cli, "lsp takes no operands ('%s'); the editor sends the documents", argv[first]);
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	/* a bad -g or --set is a usage error now, not a diagnostic in every document */
	const char *why = NULL;
	if (sl_run_prepare(run, &why) == -SL_EUSAGE) {
		sl_opts_error(cli, "%s", why);
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN); /* a client that went away is a failed write, not a signal */
	struct sl_lsp_options o = {
		.base = run,
		.config_file = ctx.config_file,
		.parse_size = sl_opts_size,
		.version = sl_opts_version() + strlen("sweeplint "),
		.log = cli->err,
		.parse_cache = sl_parse_cache_new(),
	};
	fflush(cli->out);
	int status = sl_lsp_serve(STDIN_FILENO, STDOUT_FILENO, &o);
	sl_parse_cache_free(o.parse_cache);
	sl_run_free(run);
	return status;
}
