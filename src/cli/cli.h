/*
 * cli: the subcommands of the sweeplint executable. Each cmd_* function
 * parses its own arguments and returns the process exit code (0, 1 or 2);
 * only main.c exits. Output goes to cli->out / cli->err.
 */
#ifndef SWEEPLINT_CLI_H
#define SWEEPLINT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sl_cli {
	FILE *out;          /* stdout */
	FILE *err;          /* stderr */
	const char *argv0;  /* "sweeplint" */
};

/* A stream writing to `to` with control characters escaped (src/cli/term.c); main's cli.err. */
FILE *sl_cli_term_stream(FILE *to);
/* Close a stream of sl_cli_term_stream (flushing it; `to` stays open): 0, or EOF when writing failed. */
int sl_cli_term_close(FILE *f, FILE *to);

struct sl_arena;

/*
 * Write data to path with the one writer (sl_write_atomic_if, write.h: a new file renamed over the
 * target; links and non-regular targets refused), flags as its; expect (or NULL) the bytes the target
 * must still hold. Returns 0, or SL_EXIT_USAGE after saying why on cli->err (src/cli/write_cli.c).
 */
int sl_cli_write(struct sl_cli *cli, struct sl_arena *a, const char *path, const void *data, size_t len,
		 unsigned flags, const void *expect, size_t expect_len);
/*
 * The same in steps, for an output written piece by piece: a stream onto w's temporary file (NULL after
 * saying why), then sl_cli_write_close: keep true renames it over path (0, or SL_EXIT_USAGE after saying
 * why: a failed write is reported here), false removes it (0).
 */
struct sl_writer;
FILE *sl_cli_write_open(struct sl_cli *cli, struct sl_arena *a, const char *path, unsigned flags, struct sl_writer *w);
int sl_cli_write_close(struct sl_cli *cli, struct sl_arena *a, const char *path, unsigned flags, struct sl_writer *w,
		       FILE *fp, bool keep);

/* Exit codes (DESIGN §3). */
enum {
	SL_EXIT_OK = 0,      /* no error-level finding */
	SL_EXIT_FINDINGS = 1, /* at least one error-level finding */
	SL_EXIT_USAGE = 2,   /* usage, I/O or configuration problem */
	SL_EXIT_OOM = 70,    /* out of memory / internal error */
};

int cmd_check(struct sl_cli *cli, int argc, char **argv);
int cmd_report(struct sl_cli *cli, int argc, char **argv);
int cmd_fix(struct sl_cli *cli, int argc, char **argv);
int cmd_split(struct sl_cli *cli, int argc, char **argv);
int cmd_estimate(struct sl_cli *cli, int argc, char **argv);
int cmd_fit(struct sl_cli *cli, int argc, char **argv);
int cmd_models(struct sl_cli *cli, int argc, char **argv);
int cmd_gpus(struct sl_cli *cli, int argc, char **argv);
int cmd_rules(struct sl_cli *cli, int argc, char **argv);
int cmd_lsp(struct sl_cli *cli, int argc, char **argv);

#endif
