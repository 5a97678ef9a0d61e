/*
 * opts: the options every subcommand shares (DESIGN §3), parsed with
 * getopt_long into a run's options, together with a subcommand's own
 * options, and the --help text built from the same tables. Strings are
 * kept in the run arena; messages go to cli->out (help, version) and
 * cli->err (`sweeplint: error: ...`). Nothing here exits.
 */
#ifndef SWEEPLINT_CLI_OPTS_H
#define SWEEPLINT_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

struct sl_run;

/* Groups of common options a subcommand accepts. */
enum {
	SL_OPTS_OUTPUT = 1u << 0, /* -f, --color, -q, -v */
	SL_OPTS_MODEL = 1u << 1,  /* -g, -n, -c, --set, --headroom, --host-memory, --cores */
	SL_OPTS_RULES = 1u << 2,  /* --rule */
	SL_OPTS_ALL = 0x7u,
};

/* A subcommand's own option. */
struct sl_opt {
	const char *name;       /* long name without dashes: "by" */
	int key;                /* its short letter, or a value >= 256 for long-only options */
	bool has_arg;
	const char *arg;        /* placeholder in --help: "KEY" */
	const char *help;       /* one line */
};

struct sl_cmd_spec {
	const char *name;       /* "check" */
	const char *usage;      /* after the name: "[OPTIONS] FILE..." */
	const char *summary;    /* one line, for --help */
	unsigned common;        /* SL_OPTS_* groups */
	const char *exit_help;  /* the exit statuses for --help, or NULL for check's */
	const struct sl_opt *opts; /* own options, or NULL */
	size_t nopts;
	/* an own option was given: 0, or -SL_EUSAGE after sl_opts_error() */
	int (*on_opt)(struct sl_cli *cli, void *ctx, int key, const char *arg);
	void *ctx;
};

/* sl_opts_parse() results besides -SL_EUSAGE. */
enum {
	SL_OPTS_GO = 0,   /* options parsed: the operands start at *first */
	SL_OPTS_DONE = 1, /* --help or --version was printed: exit 0 */
};

/*
 * Parse argv[1..argc) (argv[0] is the subcommand's name) into run->opt.
 * Colour is decided here: --color always/never, or auto = cli->out is a
 * terminal and NO_COLOR is unset or empty. Returns SL_OPTS_GO with *first
 * the index of the first operand, SL_OPTS_DONE, or -SL_EUSAGE after
 * printing the problem on cli->err.
 */
int sl_opts_parse(struct sl_cli *cli, const struct sl_cmd_spec *spec, struct sl_run *run, int argc, char **argv,
		  int *first);

/* Print `sweeplint: error: <message>` on cli->err; returns -SL_EUSAGE. */
int sl_opts_error(struct sl_cli *cli, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print the --help text of spec on out. */
void sl_opts_help(FILE *out, const struct sl_cmd_spec *spec);

/* "sweeplint 0.1.0". */
const char *sl_opts_version(void);

/* --version: the version, then whether --fetch can download here (sl_hub_unavailable). */
void sl_opts_print_version(FILE *out);

/* Parse a size such as "24GiB", "64GB", "1.5T" into bytes (binary units; a unit is required); -1 otherwise. */
int sl_opts_size(const char *s, uint64_t *out);

#endif
