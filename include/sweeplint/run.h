/*
 * run: one invocation of the checks — its options, the per-rule severities,
 * the catalogs it loads when a rule needs them, and the files it checks.
 * A run owns one arena: what it shares across files (options, catalogs, key
 * map, project configs, the report) lives there and is released at once by
 * sl_run_free(). A file checked by sl_run_check_source() lives there too; one
 * checked by sl_run_check_source_in() lives in the scratch arena it is given
 * (`check` gives each file one and frees it after reporting the file).
 */
#ifndef SWEEPLINT_RUN_H
#define SWEEPLINT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/diag.h"
#include "sweeplint/sweep.h"

struct sl_arena;
struct sl_hub;
struct sl_catalog;
struct sl_keymap;
struct sl_model_alias;
struct sl_rule;
struct sl_scalar_resolver;
struct sl_source;
struct sl_trainer;
struct sl_program;
struct sl_workload;
struct sl_frameworks;
struct sl_ydoc;
struct sl_suppress;

#define SL_DEFAULT_GPU "a100-80gb"       /* when no GPU is given anywhere (DESIGN §3) */
#define SL_DEFAULT_HEADROOM 0.85         /* seed 001 plans for 70–85 % of capacity */

/* Output formats (names in report.h). A new format adds a value here and a formatter in src/report/. */
enum sl_format {
	SL_FORMAT_TEXT,
	SL_FORMAT_JSON,
	SL_FORMAT_SARIF,                 /* SARIF 2.1.0 for GitHub code scanning (src/report/sarif.c) */
	SL_FORMAT_GITHUB,                /* GitHub Actions workflow commands (src/report/github.c) */
	SL_FORMAT_HTML,                  /* one self-contained HTML document (src/report/html.c; `sweeplint report`) */
	SL_FORMAT__COUNT
};

/* --set KEY=VALUE */
struct sl_set {
	const char *key;
	const char *value;
};

/* What the command line (and later .sweeplint.yaml) sets; strings live in the run arena. */
struct sl_options {
	const char *gpu;                 /* -g: catalog name or a size ("24GiB"); NULL: not given */
	uint32_t num_gpus;               /* -n; 0: not given */
	const char **configs;            /* -c FILE[:SECTION] as given, in order (sl_trainer_load splits) */
	size_t nconfigs, configs_cap;
	struct sl_set *sets;             /* --set, in command-line order (a later one wins) */
	size_t nsets, sets_cap;
	double headroom;                 /* fraction of capacity a run may plan to use, (0, 1] */
	uint64_t host_memory;            /* --host-memory in bytes; 0: not given */
	uint32_t cores;                  /* --cores; 0: not given */
	enum sl_format format;
	bool color;                      /* ANSI colours in text output (decided by the CLI) */
	int verbose;                     /* -v count: 1 shows hints */
	bool quiet;                      /* -q: findings only, no summary or notes */
	const char *hf_cache;            /* the Hugging Face hub cache folder (the CLI reads the environment); NULL: none */
	bool fetch;                      /* --fetch (or `fetch: true` in .sweeplint.yaml): download unresolved ids' config.json */
	struct sl_hub *hub;              /* the hub --fetch uses (made by the CLI from the environment); NULL: none */
	/* from the project config in effect for the file being checked (config.h fills them) */
	const char *project;             /* its path, or NULL when no .sweeplint.yaml applies */
	struct sl_keymap *keys;          /* the key map with the project's patterns first; NULL: the built-in one */
	const struct sl_model_alias *model_aliases; /* the project's models (eval.h); NULL when none */
	size_t nmodel_aliases;
	/* following the program the sweep runs (program.h) */
	bool no_follow;                  /* --no-follow: read the sweep (and -c configs) only */
	const char *program;             /* .sweeplint.yaml `program:`: the program, relative to the project */
	const char *python;              /* the interpreter that parses it (NULL: python3 from PATH) */
	const char *config_dir;          /* .sweeplint.yaml `config_dir:`: its Hydra/config folder */
	uint64_t max_combos;             /* evaluation bound (eval.h); 0: the default. The fuzz targets lower it
					  * so that one input's work stays small under their instrumentation */
};

struct sl_run {
	struct sl_arena *arena;
	struct sl_options opt;
	enum sl_severity *severity;      /* effective severity of sl_rules[i] (SL_SEV_OFF: not run) */
	bool *severity_set;              /* sl_rules[i]'s severity was set by the user */
	struct sl_catalog *catalog;      /* NULL until a memory rule loads it (sl_catalog_load) */
	const struct sl_scalar_resolver *resolver; /* PyYAML typing, compiled once per run */
	struct sl_diags diags;           /* findings about the run's own data (catalogs), not a file */
	struct sl_suppress *suppress;    /* compiled directive patterns (check.c) */
	/* what the memory rules share, made once by sl_run_prepare() */
	bool prepared;
	struct sl_keymap *keys;          /* rules/keys.yaml (+ project keys, .sweeplint.yaml) */
	const struct sl_workload *workload; /* rules/workload.yaml compiled (sl_workload_new) */
	const struct sl_frameworks *frameworks; /* rules/frameworks.yaml read (sl_frameworks_new) */
	const struct sl_gpu *gpu;        /* the GPU files are checked against */
	const char **sets;               /* --set as "KEY=VALUE" */
	/* program following (program.h): the python3 parses of this run share the cache and spend the budget */
	struct sl_parse_cache *parse_cache; /* NULL: made at the first parse, freed with the run; the language
	                                     * server sets its own, kept across edits */
	long long program_budget_ms;     /* time left for python3 parses (SL_PROGRAM_BUDGET_MS at start) */
	struct sl_config_memo *config_memo; /* the configs programs load and Hydra files, parsed once per run */
	struct sl_program_memo *program_memo; /* program.h: what the sweeps share in finding their programs */
};

/* How many combinations of a sweep's grid fit, OOM, or were not evaluated. */
struct sl_combinations {
	struct sl_count total;           /* the W&B grid size (0 for a file that is not a sweep) */
	struct sl_count fit;
	struct sl_count oom;             /* out of memory on stated settings */
	struct sl_count at_risk;         /* out of memory on an assumed setting or an upper bound (eval.h at_risk) */
	struct sl_count unknown;         /* not evaluated: total until a memory model runs */
	/* of fit + oom + at_risk: judged on stated settings, or on some assumed one (eval.h sl_eval_assumed) */
	struct sl_count stated;
	struct sl_count assumed;
};

/* One checked file. */
/* A model value of a file and what it resolved to (memory.h: resolved_by, resolved_from). */
struct sl_model_use {
	const char *value;               /* as written */
	const struct sl_model *model;    /* NULL: unknown */
};

struct sl_file {
	struct sl_run *run;
	struct sl_arena *arena;          /* where the file and everything made for it live (sl_run_check_source_in) */
	struct sl_source *src;
	struct sl_ydoc *doc;             /* never NULL; doc->ok is false after a syntax finding */
	struct sl_sweep *sweep;          /* NULL when the file did not parse */
	struct sl_trainer **configs;     /* the -c configs, loaded beside this file (nconfigs of them) */
	size_t nconfigs;
	struct sl_diags diags;           /* sorted by position once the checks are done */
	struct sl_combinations combos;
	bool evaluated;                  /* a memory model evaluated combinations (fit/oom are real) */
	const char *gpu_name;            /* the GPU the file is checked against */
	uint64_t gpu_bytes;              /* its capacity; 0 until the GPU catalog resolves it */
	bool gpu_assumed;                /* no GPU was given: SL_DEFAULT_GPU */
	int err;                         /* 0, or -SL_E* when a check failed operationally */
	const char *err_rule;            /* the rule that failed, when err != 0 */
	void *eval;                      /* struct sl_eval (eval.h) when the memory rules ran, else NULL */
	const char **notes;              /* -v: how the file was read (which key took which role, and why) */
	size_t nnotes;
	struct sl_model_use *models;     /* every model value the evaluation read, in axis order */
	size_t nmodels;
	struct sl_program *program;      /* the program followed (program.h), or NULL */
	/* sweeps defined in Python (pysweep.h): a code file defines any number, each checked as its own file */
	const char *defined_by;          /* "wandb.sweep(sweep_config)": the call that makes this sweep, or NULL */
	struct sl_span defined_at;       /* where that call is, in code (its display says "cell N" in a notebook) */
	const struct sl_source *code;    /* the code that defines it (the sweep's own source, or the code that
					  * loads the sweep file src), or NULL for a sweep file given as such */
	const struct sl_pysweep *pysweep; /* what the code says of it (pysweep.h: the agent's function, ...) */
	const char *code_program;        /* the code as a Python file for the program follower, or NULL */
	const char **ignore;             /* sweep parameters that are not memory values (a Hydra group choice, one
					  * hyperparameter_search drops) and why, for the evaluation */
	const char **ignore_why;
	size_t nignore;
	struct sl_file *next;            /* the next sweep the same input defines, or NULL */
	bool more;                       /* not the first sweep of its input: reports count the input once */
	const char *root;                /* its project root (path.h sl_project_root; "" when none): the files its
	                                  * sweep, program and configs name are read only inside it */
};

/* A new run with default options (headroom 0.85, text, every rule at its default severity). */
struct sl_run *sl_run_new(void);
/* Release the run's arena and everything in it. */
void sl_run_free(struct sl_run *run);

/*
 * Set a rule's severity (SL_SEV_OFF disables it). slug_or_code names a rule
 * of the table. Returns -SL_ENOENT for an unknown rule and -SL_EUSAGE for
 * syntax, which cannot be reconfigured.
 */
int sl_run_set_severity(struct sl_run *run, const char *slug_or_code, enum sl_severity sev);
/* The effective severity of rule r. */
enum sl_severity sl_run_severity(const struct sl_run *run, const struct sl_rule *r);

/*
 * Load what the memory rules need (catalogs, key map) and resolve the GPU:
 * -g, else SL_DEFAULT_GPU. Runs once; sl_run_check_source() calls it when a
 * memory rule is enabled. Returns 0, or -SL_EUSAGE (an unknown GPU, a --set
 * no role or key takes) / -SL_ECONFIG (embedded data) with *why set.
 */
int sl_run_prepare(struct sl_run *run, const char **why);

/*
 * Check one source: parse it, load the W&B view and the -c configs (a
 * relative config path is also looked up beside the file), run every
 * enabled rule at its effective severity, apply inline suppressions and
 * sort the findings. A syntax finding skips the other rules. Never NULL;
 * file->err is -SL_E* when a config could not be loaded (its "config"
 * finding says why) or a check failed operationally (err_rule names it).
 */
struct sl_file *sl_run_check_source(struct sl_run *run, struct sl_source *src);

/*
 * sl_run_check_source() with the file, its tree, findings and evaluation in
 * arena a instead of the run's: what the run shares (catalogs, key map, GPU,
 * compiled patterns) is still made in the run's arena, so freeing a after
 * the file is reported releases the file and nothing the next one needs.
 * `check` gives each file its own arena and frees it once the file is
 * reported: memory stays flat in the number of files (docs/reliability.md).
 */
struct sl_file *sl_run_check_source_in(struct sl_run *run, struct sl_arena *a, struct sl_source *src);

/*
 * A source's path decides how it is read: *.py and *.ipynb are code (pysweep.h), whose sweeps are each
 * checked as a file of its own, chained by `next` from the one returned (a file without a sweep is
 * one file with no finding); anything else is a sweep file (YAML, JSON).
 */

#endif
