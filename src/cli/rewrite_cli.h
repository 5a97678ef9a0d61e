/*
 * rewrite_cli: what `fix` and `split` share — reading, checking and
 * evaluating the sweep under the project config, rendering a box of
 * rewrite.h as edited bytes checked again (parsed, W&B's rules, evaluated),
 * writing files atomically, and their messages. Everything lives in the
 * run's arena; messages go to cli->err.
 */
#ifndef SWEEPLINT_CLI_REWRITE_H
#define SWEEPLINT_CLI_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "sweeplint/arena.h"
#include "sweeplint/edit.h"
#include "sweeplint/rewrite.h"

struct sl_run;
struct sl_file;

struct rw_job {
	struct sl_cli *cli;
	struct sl_run *run;
	const char *cmd;             /* "fix", "split" */
	const char *path;            /* as given ("-": standard input) */
	const char *shown;           /* for messages ("<stdin>") */
	struct sl_file *file;        /* the input, checked */
	const struct sl_source *input; /* its bytes as read (a notebook's JSON text; file->src holds its code) */
	const struct sl_eval *ev;
	struct sl_rewrite rw;
	const char *config_file;     /* --config-file, or NULL */
};

/* "FILE:line:col" of a span of the sweep for messages, "FILE:cell N:line:col" in a notebook's code. */
const char *rw_at(struct rw_job *j, struct sl_span span);

/* A rendered box. */
struct rw_output {
	struct sl_buf text;          /* the new file */
	struct sl_edit *splices;     /* the edits, sorted (for --diff) */
	size_t nsplices;
	struct sl_file *checked;     /* the new file, checked again */
	const struct sl_eval *ev;    /* its evaluation */
	struct sl_count feasible, oom, unknown, total; /* its combinations, as `check` counts them */
	uint64_t u[SL_RW_CLASS__COUNT], utotal;       /* its memory-relevant combinations, each once */
};

/*
 * "108 of 288 combinations fit, 12 unknown" (what: "fit", "run out of
 * memory"): weighted as `check` counts them, or memory-relevant
 * combinations when a continuous parameter makes the count infinite.
 */
const char *rw_share(struct rw_job *j, const struct rw_output *o, enum sl_rw_class cls, const char *what);

/*
 * Read path, apply its project config, check and evaluate it, prepare the
 * rewrite. Returns 0, or the exit status after printing why.
 */
int rw_load(struct rw_job *j);

/*
 * The file box b makes, with `name` (NULL: as is) and `run_cap` (0: as is)
 * written in, checked again: it must parse, W&B must accept it when it
 * accepted the input, no error-level rule may fire that did not fire on the
 * input, and its combinations must be the box's (none out of memory when
 * no_oom). Returns 0, or -SL_EINTERNAL with *why: such an output is never
 * written.
 */
int rw_render(struct rw_job *j, const struct sl_box *b, const char *name, uint64_t run_cap, bool no_oom,
	      struct rw_output *o, const char **why);

/*
 * rw_render in a scratch arena released before it returns: o keeps its text
 * (in the run's arena) and counts, not checked/ev/splices. What split uses,
 * so that N parts cost N small texts, not N checked copies of the sweep.
 */
int rw_render_text(struct rw_job *j, const struct sl_box *b, const char *name, uint64_t run_cap, bool no_oom,
		   struct rw_output *o, const char **why);

/*
 * Write text to path atomically; flags as sl_write_atomic's (SL_WRITE_MUST_EXIST: --in-place,
 * SL_WRITE_FORCE: --force, SL_WRITE_DEVICE: fix -o). Returns 0, or 2 after printing why.
 */
int rw_write(struct rw_job *j, const char *path, const char *text, size_t len, unsigned flags);

/*
 * The input of this job that path is (the same file: device and inode): the
 * sweep, a -c trainer config, the project config. NULL when path is none of
 * them (or does not exist). Writes never go over an input other than the
 * sweep of --in-place.
 */
const char *rw_input_of(struct rw_job *j, const char *path);

/* "bge-m3-ko × data.batches.bi 128": a combination of b that runs out of memory, or NULL. */
const char *rw_oom_example(struct rw_job *j, const struct sl_box *b);

/* "12", "more than ..." */
const char *rw_count(struct rw_job *j, struct sl_count c);

/* The option --config-file, shared: handled by rw_config_opt. */
#define RW_OPT_CONFIG_FILE 600

#endif
