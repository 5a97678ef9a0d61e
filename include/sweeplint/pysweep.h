/*
 * pysweep: W&B sweeps defined in Python — `wandb.sweep(config)` in a script or a notebook's code cells,
 * `Trainer.hyperparameter_search(backend="wandb", hp_space=fn)` — read as the sweep W&B receives. The
 * user's python3 parses the code and evaluates the dict (src/pysweep/pysweep.py: ast.parse and an
 * evaluator over values proven from the text; nothing is imported or executed), and each sweep comes
 * back as the node tree the YAML loader builds (ydoc.h): keys, scalars typed as W&B receives them,
 * spans at the literals in the code, so validation, roles, enumeration, rules, reports and rewrites
 * run on it unchanged. Everything lives in the arena given.
 */
#ifndef SWEEPLINT_PYSWEEP_H
#define SWEEPLINT_PYSWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/source.h"

struct sl_arena;
struct sl_scalar_resolver;
struct sl_ydoc;

/* The most bytes of a notebook read (its outputs included): past it the file is refused unread. */
#define SL_NOTEBOOK_MAX_BYTES ((size_t)16 << 20)

enum sl_code_kind {
	SL_CODE_NONE,     /* not code: a sweep file (YAML, JSON) */
	SL_CODE_PYTHON,   /* *.py */
	SL_CODE_NOTEBOOK, /* *.ipynb */
};

/* What a path is by its name. */
enum sl_code_kind sl_code_kind(const char *path);

/*
 * Whether the text may define a sweep sweeplint reads: it names wandb (any case) and calls a name
 * `sweep` (`wandb.sweep(`, `sweep (`; not `sweeps(`, `sweep_id(`) or names `hyperparameter_search`.
 * A cheap byte scan (a notebook's JSON text too: `\"` does not hide the call): a file without them
 * starts no python3.
 */
bool sl_code_may_define_sweep(const char *bytes, size_t len);

/* A finding the reader makes itself (wandb.sweep would raise before any sweep exists). */
struct sl_pysweep_problem {
	struct sl_span at;
	const char *rule;           /* "schema" */
	const char *message;
	const char *hint;           /* or NULL */
};

/* One sweep the code defines. */
struct sl_pysweep {
	const char *how;            /* "wandb.sweep(sweep_config)", "hyperparameter_search(hp_space=hp_space)" */
	struct sl_span at;          /* the call that makes it */
	struct sl_ydoc *doc;        /* the tree W&B receives (doc->src: the code), or NULL: see file, unknown */
	const char *file;           /* a sweep file the code loads and passes, as written, or NULL */
	struct sl_span file_at;     /* where its name is written */
	bool file_script_dir;       /* the name is joined to the script's folder (os.path.dirname(__file__)) */
	const char *unknown;        /* why the sweep is not read (a part sweeplint cannot evaluate), or NULL */
	bool hp_space;              /* made by Trainer.hyperparameter_search(backend="wandb") */
	const char *function;       /* wandb.agent(sweep_id, function=F): the function the runs execute, or NULL
				     * (a dotted name when it is imported: the program follower finds it through the import) */
	bool function_local;        /* F is defined at the top of this code (an entry point of the program) */
	struct sl_span function_at; /* its def */
	const char *model_init;     /* hyperparameter_search: the Trainer's model_init=, when the code shows it */
	const char *args_class;     /* hyperparameter_search: the class of the Trainer's args= (TrainingArguments) */
	int64_t runs;               /* the runs the code's own agent makes before it stops (wandb.agent(count=N),
				     * hyperparameter_search's n_trials), 0 when not known */
	const char *runs_by;        /* what says so: "wandb.agent(count=5)" */
	struct sl_span runs_at;     /* the call */
	struct sl_pysweep_problem *problems;
	size_t nproblems;
	const char **dropped;       /* top-level keys left out because their value is not known ("name: ...") */
	size_t ndropped;
};

struct sl_pysweeps {
	struct sl_source *code;     /* the Python code: the file itself, or a notebook's code cells (notebook.h) */
	struct sl_pysweep *v;
	size_t n;
	const char **notes;         /* for -v: what was not read and why, "line 12: ..." */
	size_t nnotes;
	const char *error;          /* the code was not read at all: why (python3 absent, a syntax error) */
	bool scanned;               /* the byte scan found no sweep: python3 was not started */
	const char *program;        /* the code as a Python file the program follower evaluates: the file itself,
				     * or a temporary copy of a notebook's code (sl_pysweep_program), or NULL */
	const char *temp;           /* that copy, removed by sl_pysweep_done */
	const uint32_t *blank;      /* lines of a notebook's code that are not Python (IPython magics, other cells) */
	size_t nblank;
};

/*
 * The code of ps as a Python file for the program follower (program.h `code`): a .py file is itself; a
 * notebook's code is written to a temporary .py file (its IPython lines blanked, every other byte where
 * it is in the code source, so spans agree), which sl_pysweep_done removes. Sets ps->program; NULL with
 * a note when the copy cannot be written.
 */
const char *sl_pysweep_program(struct sl_arena *a, struct sl_pysweeps *ps);

/* Remove what sl_pysweep_program wrote. */
void sl_pysweep_done(struct sl_pysweeps *ps);

/*
 * Whether Trainer.hyperparameter_search applies a sweep parameter named name to a trainer whose args are
 * an args_class (src/pysweep/hpsearch.c): 1 a field of that class sweeplint knows a memory role of, 0 not
 * one (transformers drops it), -1 not known (another arguments class, or none shown).
 */
int sl_hp_search_field(const char *args_class, const char *name);

struct sl_pysweep_opts {
	const char *python;         /* the interpreter (NULL: python3 from PATH) */
	const struct sl_scalar_resolver *res;
};

/*
 * The sweeps src defines. src is the file as read: Python, or a notebook (read with notebook.h; a
 * notebook that is not one sweeplint reads sets *bad_at and returns -1 with *why). Returns 0 with *out
 * filled (out->n == 0 when there is no sweep, out->error when the code could not be read).
 */
int sl_pysweep_read(struct sl_arena *a, struct sl_source *src, const struct sl_pysweep_opts *o,
		    struct sl_pysweeps *out, const char **why, size_t *bad_at);

/*
 * The span in the file's own bytes: a notebook's code span as the range of the .ipynb text its
 * characters are written in (SARIF regions, GitHub annotations); *raw receives the file's source. Any
 * other source: the span itself, *raw = src.
 */
struct sl_span sl_code_raw_span(const struct sl_source *src, struct sl_span span, const struct sl_source **raw);

#endif
