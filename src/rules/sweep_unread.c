/*
 * sweep-unread: the sweep's values never reach its runs. The command passes no ${args} (nor
 * ${args_no_hyphens} / ${args_json}), or passes it to a program that reads no command line, and the program, evaluated whole (src/program/), reads no
 * wandb.config where a call reaches (or only behind a flag that is false): every run trains the
 * program's own settings, whatever the sweep says. The evaluation then judges those settings
 * (axes.c leaves the sweep's parameters out); this finding names the cause, at the command. When
 * the program reads wandb.config but not some parameters, each of those gets the finding at its key.
 * With ${args} given to a program whose command line only argparse's parse_args() reads (every flag of
 * its parsers shown), a parameter none of its flags accepts stops every run ("unrecognized arguments"):
 * the finding says so at the parameter's key (follow.c refused_flags).
 */
#include "checks.h"
#include "sweeplint/arena.h"
#include "sweeplint/program.h"
#include "sweeplint/run.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"
#include <string.h>

int sl_check_sweep_unread(struct sl_check *cx)
{
	const struct sl_sweep *s = cx->sweep;
	const struct sl_program *p = cx->file ? cx->file->program : NULL;
	if (!s || !s->is_sweep || !p || !p->ref.path)
		return 0;
	/* the program as shown: a notebook's cells, not the temporary .py copy its code is read from */
	const char *prog = p->ref.shown ? p->ref.shown : p->ref.path;
	bool agent = p->ref.by_agent || p->in_process; /* a function wandb.agent runs: no command line */
	/* parameters whose flag the program's argparse parser does not define: parse_args() stops every run */
	for (size_t i = 0; i < p->nrefused_params; i++) {
		const struct sl_param *q = sl_sweep_param(s, p->refused_params[i]);
		if (!q)
			continue;
		struct sl_diag *d = sl_check_emit(cx, q->key, "'%s' stops every run of %s: its argparse parser defines no "
							      "--%s, and parse_args() exits on the --%s=... that ${args} passes "
							      "(error: unrecognized arguments)",
						  q->path, prog, q->path, q->path);
		d->hint = sl_arena_printf(cx->arena, "add parser.add_argument(\"--%s\", ...) to the program, or parse with "
						     "parse_known_args() and read it from wandb.config", q->path);
	}
	if (p->nrefused_params && p->reaches == 0)
		return 0;
	/* some parameters only: the program reads wandb.config, but not theirs */
	for (size_t i = 0; p->reaches == 1 && i < p->nunread_params; i++) {
		const struct sl_param *q = sl_sweep_param(s, p->unread_params[i]);
		bool refused = false;
		for (size_t k = 0; k < p->nrefused_params; k++)
			refused |= strcmp(p->refused_params[k], p->unread_params[i]) == 0;
		if (!q || refused)
			continue;
		struct sl_diag *d = sl_check_emit(cx, q->key, "'%s' never reaches %s: %s and the program reads no "
							      "wandb.config.%s; every run trains the program's own value",
						  q->path, prog, p->args_why ? p->args_why : "its command has no ${args}",
						  q->path);
		d->hint = agent ? "read it from wandb.config in the function wandb.agent runs"
			  : p->args_passed ? "parse the command line in the program (${args} passes --KEY=VALUE flags) or read "
					     "it from wandb.config"
					   : "add ${args} to the command (or read it from wandb.config in the program)";
	}
	if (p->reaches != 0)
		return 0;
	const struct sl_node *at = s->command ? s->command : s->program;
	struct sl_diag *d = sl_check_emit(cx, at, "the sweep's values never reach %s: %s; every run trains the "
						  "program's own settings",
					  prog, p->reach_why ? p->reach_why : "the program does not read them");
	d->hint = agent ? "read wandb.config in the function wandb.agent runs"
		  : p->args_passed ? "parse the command line in the program (${args} passes --KEY=VALUE flags) or read "
				     "wandb.config"
				   : "add ${args} to the command (or read wandb.config in the program)";
	return 0;
}
