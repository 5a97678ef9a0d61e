/*
 * program: follow the program a sweep runs. Find it (`program:`, the script
 * in `command:` behind python -m / accelerate launch / torchrun / deepspeed,
 * a shell script and the python command it runs), then evaluate it
 * statically — the values that reach TrainingArguments / LoraConfig /
 * BitsAndBytesConfig / from_pretrained / Lightning Trainer ..., through
 * names, calls, modules and the configs it loads, and its argparse and
 * dataclass declarations — with the user's python3 running ast.parse and
 * an abstract evaluator in a bounded subprocess (src/program/py*.py: parse
 * only, the program is never imported or executed). The settings come back as a
 * trainer config (trainer.h) whose entries carry their file:line:col and how
 * they were read, so the eval overlays them below every value the sweep
 * states. Everything lives in the run arena.
 */
#ifndef SWEEPLINT_PROGRAM_H
#define SWEEPLINT_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "sweeplint/path.h"

struct sl_arena;
struct sl_sweep;
struct sl_trainer;
struct sl_scalar_resolver;

/* Bounds of one program read (a finding-free note past them, never a crash). */
#define SL_PROGRAM_MAX_BYTES ((size_t)256 << 10)   /* a bigger program is not parsed (KiB in messages) */
#define SL_PROGRAM_TIMEOUT_MS 10000                /* wall time for one python3 parse */
/* RLIMIT_AS of the evaluator process: its RSS stays under the 64 MB every run is bounded by (python3
 * starts in 15 MB of address space; a 33 KB program parsed and evaluated takes 18 MB; a 178 KB program of
 * 10,000 one-line ifs takes python's parser alone 69 MB: refused by MemoryError, a note) */
#define SL_PROGRAM_MAX_AS ((unsigned long)60 << 20)
#define SL_PROGRAM_MAX_OUTPUT ((size_t)4 << 20)    /* JSON the parser may print */
#define SL_PROGRAM_BUDGET_MS 1500                  /* wall time for all the python3 runs of one run (a check
                                                    * of many sweeps; one lint in the language server) */

/* How a program was found. */
struct sl_program_ref {
	const char *path;           /* a file that exists (NULL: none found) */
	struct sl_trainer *shell;   /* literal options a shell script passes to it ("run.sh passes --x"), or NULL */
	const char *how;            /* "program: train.py", "command: python -m pkg.train", "run.sh:12" */
	const char *root;           /* the project folder its imports are looked up from */
	const char *shown;          /* the program as shown, when path is a copy of it (a notebook's code), or NULL */
	/* the path the sweep names was not found where W&B could run it from; this file is the one of that name
	 * in the project (search_project): what was done, for -v, and a verdict resting on it is at risk */
	const char *guessed;
	bool by_agent;              /* a script that runs the sweep with wandb.agent(function=...): the function
	                             * runs in-process, with no command line (only wandb.config carries the values) */
};

/* A YAML/JSON file a program loads by a literal name (open("cfg.yaml"), an argparse default of --config). */
struct sl_pyconfig {
	const char *path;           /* as written */
	unsigned line;              /* where it is named */
	const char *how;            /* "OmegaConf.load(\"conf.yaml\")", "argparse default of --config" */
	const char *dest;           /* the argparse dest that names it (a sweep value replaces it), or NULL */
	const char *from;           /* the Python file naming it (its folder is searched first) */
	/* the dotted keys the program takes of it (a value or a sub-mapping read there: all under it);
	 * NULL: all of it (taken whole, nothing seen taken, or the evaluation did not end) */
	const char **reads;
	size_t nreads;
};

/* A keyword whose value a program reads from a config object: from_pretrained(cfg.model.name). */
struct sl_pyref {
	const char *key;            /* the setting it gives: "model_name_or_path", "per_device_train_batch_size" */
	const char *path;           /* the config key it reads: "model.name" */
	const char *how;            /* "AutoModel.from_pretrained reads cfg.model.name" */
	unsigned line;
	const char *from;           /* the Python file it is written in (as shown) */
};

/*
 * A sweep parameter whose value reaches one of the program's sinks (pysinks.py): in this sweep it is
 * that setting, whatever its name (`enc` reaching SentenceTransformer(...) is the model). With cases,
 * the setting is a function of the parameter (a branch `"org/a" if cfg.kind == "A" else "org/b"`, a
 * lookup MODELS[cfg.size], a guard `if cfg.use_lora:`): one case per sweep value.
 */
struct sl_param_case {
	const struct sl_node *when;   /* the sweep value (a scalar node made from the evaluator's JSON) */
	const struct sl_node *to;     /* the setting's value in those runs (in the program or a config), or NULL */
	const struct sl_source *src;  /* the file `to` is in */
	bool unset;                   /* those runs do not make the setting (the guard is false) */
	const char *unknown;          /* the value is not known (why), with to == NULL and !unset */
	const char *chain;            /* how `to` got there, or NULL */
};

struct sl_param_role {
	const char *param;            /* the sweep parameter's dotted path */
	const char *key;              /* the setting it is, as the sinks name it: "model_name_or_path", "lora.r" */
	const char *how;              /* "SentenceTransformer(\"...\") at train.py:12" */
	const char *chain;            /* how the parameter's value got there ("name = args.enc at train.py:10"), or NULL */
	const struct sl_param_case *cases; /* a value map (NULL: the parameter's value is the setting's) */
	size_t ncases;
	/* the setting holds only in the runs where another sweep parameter has one of some values (the
	 * program reads this one under a guard on that one: a quantization used only for some models) */
	const char *only_param;
	const struct sl_node **only_values;
	size_t nonly;
};

/*
 * A command the program launches (subprocess.run([sys.executable, "train.py", "--bs", str(cfg.bs)]),
 * os.system(f"python train.py --lr {cfg.lr}"): pylaunch.py. follow.c finds the script among its words and
 * evaluates it as the program, its options mapped through that script's argparse.
 */
struct sl_pylaunch {
	const char *file;           /* the launching file's path as the evaluator read it (absolute) */
	const char *shown;          /* the same as shown ("sweep_agent.py") */
	unsigned line, col, end_line, end_col; /* the call's span (col: UTF-8 byte offset) */
	const char *how;            /* "subprocess.run(...)" */
	const char *words;          /* the words as pylaunch.py encodes them (a JSON array), or NULL: a command
	                             * the text does not show */
	bool reached;               /* in code a call reaches (not only a function no call reaches) */
};

/* The settings read from one Python program and the local modules it imports (one evaluation). */
struct sl_pyread {
	struct sl_trainer *settings; /* those written in the program's own file; NULL when nothing could be read */
	struct sl_trainer **groups;  /* every setting read, lowest precedence first, one trainer per run of the
	                              * same source (a module, the program, a config it loads, the command) */
	size_t ngroups;
	size_t ndeclared;           /* groups[0..ndeclared): declarations read by their names (argparse defaults,
	                             * dataclass fields); the others are values that reach a sink */
	struct sl_param_role *roles; /* sweep parameters that reach a sink */
	size_t nroles;
	int trains;                 /* 1: builds an optimizer or trainer; 0: only generate/vLLM; -1: unknown */
	/* the model loads with a quantization the text does not decide (a table of BitsAndBytesConfigs looked
	 * up with an unknown key): "train.py:18: quantization_config is one of ..."; NULL: decided or none */
	const char *quant_open;
	const char **imports;       /* modules it imports ("pkg.mod") */
	size_t nimports;
	const char **modules;       /* the local modules evaluated, as "name (path)" */
	size_t nmodules;
	const char **notes;         /* what was not read and why ("train.py:12: argparse default of --lr is computed") */
	size_t nnotes;
	const char *error;          /* the whole file was not read: why (python3 absent, syntax error, too big) */
	struct sl_pyconfig *configs; /* config files it loads by a literal name */
	size_t nconfigs;
	struct sl_pyref *refs;      /* keywords read from a config object, resolved against the configs loaded */
	size_t nrefs;
	const char *hydra_path;     /* @hydra.main(config_path=, config_name=) / initialize + compose, or NULL */
	const char *hydra_name;
	unsigned hydra_line;
	const char *hydra_from;     /* the Python file naming it */
	/* wandb.config: the keys code a call reaches reads ("*": all of them at once), and those only code no
	 * call reaches reads (possible reads) */
	const char **wandb_reads;
	size_t nwandb_reads;
	const char **wandb_maybe;
	size_t nwandb_maybe;
	bool complete;              /* every local module it imports was read and the evaluation ran to its end */
	bool reads_argv;            /* some file of it may read the command line (argparse, sys.argv, a CLI library) */
	/* argv_closed: the command line is read only by argparse parse_args() of sys.argv where a call reaches,
	 * every flag of its parsers shown by the text: a flag none defines stops the run ("unrecognized
	 * arguments"); argv_flags are their long options ("--batch_size") */
	bool argv_closed;
	const char **argv_flags;
	size_t nargv_flags;
	const char *wandb_replaced;  /* "main.py:16" where the program assigns wandb.config (its own mapping), or NULL */
	struct sl_pylaunch *launches; /* commands it launches (subprocess, os.system) */
	size_t nlaunches;
};

struct json_t;

/*
 * The evaluator's inputs and the answers to its requests (follow.c): the request line, and a function
 * answering a need for a config file or the Hydra composition. The answers' trainers are kept in served
 * (a setting the evaluator reads from one points at its entry); argv holds the literal command options
 * whose values a setting may come from.
 */
struct sl_pyeval_io {
	const char *request;        /* JSON object text; NULL: "{}" */
	/* kind "config" or "hydra", req the need's request object; returns a new JSON reply or NULL */
	struct json_t *(*answer)(void *ctx, const char *kind, const struct json_t *req);
	void *ctx;
	struct sl_trainer **served; /* config id -> the trainer it was read into (answer appends) */
	size_t nserved;
	const struct sl_source **argv_src; /* argv index -> the source and node of that option's value */
	const struct sl_node **argv_node;
	size_t nargv;
	const char *root;           /* the project folder: no module outside it is read */
	const struct sl_source *main; /* the program's source when the file parsed is a copy of it (a notebook's
	                               * code written out for python3): spans and notes are in it; NULL: the file */
};

struct sl_program_opts {
	const char *python;         /* the interpreter (NULL: "python3" from PATH) */
	const char *program;        /* .sweeplint.yaml `program:` (NULL: from the sweep) */
	const char *sweep_dir;      /* the sweep's folder (NULL: "."): relative program paths start there */
	const char *root;           /* the project root (sl_project_root; NULL: that of sweep_dir): no file whose
	                             * realpath is outside it is read (path.h, docs/reliability.md) */
	const char *config_dir;     /* .sweeplint.yaml config_dir: the Hydra config folder when the program's
	                             * is not a literal, and a folder config files are looked up in */
	const struct sl_scalar_resolver *res;
	struct sl_parse_cache *cache; /* evaluations kept across sweeps and lints (NULL: none) */
	struct sl_config_memo *configs; /* config files read once per run (NULL: each read every time) */
	long long *budget_ms;       /* the run's time left for python3, spent as it runs (NULL: only the
	                             * per-program SL_PROGRAM_TIMEOUT_MS) */
	/* a sweep defined in Python (pysweep.h): its own code is the program, run in that process */
	const char *code;           /* the file to evaluate as the program (a notebook's code: a copy of it), or NULL */
	const char *code_how;       /* how it was found, for -v ("wandb.agent(sweep_id, function=train) at 40:1") */
	const struct sl_source *code_src; /* the code's source when `code` is a copy of it (sl_pyeval_io.main) */
	const char *code_root;      /* the folder its local imports are looked up in (the code's own) */
	const char *const *entry;   /* functions the runs execute (wandb.agent's function=, hyperparameter_search's
	                             * model_init), evaluated as reached after the module, in order; NULL-ended */
	bool in_process;            /* the runs execute in this process (wandb.agent(function=...)): no command line,
	                             * no ${args}: the sweep's values reach the program through wandb.config only */
	bool hp_search;             /* Trainer.hyperparameter_search: the values also reach trainer.args */
	struct sl_program_memo *memo; /* what a run's sweeps share in finding their programs (NULL: none) */
};

/* What a run's sweeps share in finding their programs (find.c: the folders searched for a script that runs
 * a sweep with wandb.agent, so that split's 1,000 parts look once); in the run's arena a. */
struct sl_program_memo;
struct sl_program_memo *sl_program_memo_new(struct sl_arena *a);

/*
 * The parse cache (src/program/cache.c): one evaluation of one program -> its answer, keyed by the
 * program's realpath, device, inode, size and mtime, the interpreter and the request (the sweep's
 * parameters and command as the evaluator is given them), valid while the modules it read keep their
 * stat and the needs it asked get the same replies (a hit replays them through the caller); a failure
 * before evaluation (syntax, size, time) is kept for the program alone. Shared by every sweep of a run
 * and by the language server across edits. Bounded (64 MiB, 1024 entries, least recently used out).
 */
struct sl_parse_cache;
struct sl_parse_hit {
	const char *out;            /* the evaluator's answer (its last line), or NULL */
	size_t len;
	const char *why;            /* why there is none */
	const char *dialog;         /* the needs asked and the replies given: "need\nreply\n" pairs */
	size_t dialog_len;
};
struct sl_parse_cache *sl_parse_cache_new(void);
void sl_parse_cache_free(struct sl_parse_cache *c);
/*
 * The entry for (path: a realpath, python, request) that have_ms more time cannot change, its modules
 * unchanged: true with *hit filled (pointers into the cache, valid until the next put). An entry cut
 * short at a deadline shorter than have_ms is not returned (it may finish now).
 */
bool sl_parse_cache_get(struct sl_parse_cache *c, const char *path, const char *python, const char *request,
			long long have_ms, struct sl_parse_hit *hit);
/* Keep an evaluation's result (copied) with the modules it read (realpaths); request NULL: a failure
 * that does not depend on it; cut_ms: the deadline that stopped it, or -1 when it finished. */
void sl_parse_cache_put(struct sl_parse_cache *c, const char *path, const char *python, const char *request,
			const struct sl_parse_hit *what, const char *const *deps, size_t ndeps, long long cut_ms);
/* The interpreter to start for python (its sys.executable once known: a pyenv shim costs 0.4 s a start). */
const char *sl_parse_cache_interpreter(const struct sl_parse_cache *c, const char *python);
void sl_parse_cache_set_interpreter(struct sl_parse_cache *c, const char *python, const char *resolved);
/* Lookups answered and not answered so far. */
void sl_parse_cache_stats(const struct sl_parse_cache *c, size_t *hits, size_t *misses);

/*
 * The config files a run reads for its programs (src/program/memo.c): a config a program loads or a
 * Hydra file, parsed once per run — the same file (realpath, device, inode, size, mtime) again gives the
 * config read the first time (shared: copy what you change) or the same failure. The memo and its
 * configs live in a (the run's arena). NULL memo: sl_trainer_load every time, into a.
 */
struct sl_config_memo;
struct sl_config_memo *sl_config_memo_new(struct sl_arena *a);
int sl_config_memo_load(struct sl_config_memo *m, struct sl_arena *a, const char *path,
			const struct sl_scalar_resolver *res, struct sl_trainer **out, const char **why);
/* How many files the memo parsed (not answered from it). */
size_t sl_config_memo_loads(const struct sl_config_memo *m);

/*
 * Find the program of sw. The sweep's folder and its parents up to the
 * project root (sl_project_root; at most 3 levels up) are searched for a
 * relative path; a file outside the root is refused (ref->how says so).
 * Returns true with *ref filled, or
 * false with ref->how saying what was looked for (NULL: the sweep names no
 * program).
 */
bool sl_program_find(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_program_opts *o,
		     struct sl_program_ref *ref);

/*
 * The script a launched command runs (words[0..n): literal words, NULL for one the text does not decide),
 * as a shell script's python line is read: the first *.py / *.sh word after the launchers, or -m MODULE,
 * looked up from the launching file's folder and its parents up to the project root. true with *ref filled
 * and *at the index of the script's word (of the module's for -m); false with ref->how saying what was
 * looked for (NULL: the command runs no script).
 */
bool sl_program_find_launched(struct sl_arena *a, const char *from_file, const char *const *words, size_t n,
			      const char *how_prefix, const struct sl_program_opts *o, struct sl_program_ref *ref,
			      size_t *at);

/* Read the literal settings of the Python file at path (see above). Never NULL. */
struct sl_pyread *sl_pyread_file(struct sl_arena *a, const char *path, const struct sl_program_opts *o);

/* The same with the sweep's parameters and a file server (io, may be NULL): follow.c's evaluation. */
struct sl_pyread *sl_pyread_eval(struct sl_arena *a, const char *path, const struct sl_program_opts *o,
				 struct sl_pyeval_io *io);

/* The same over bytes in memory (tests): written to a temporary file the parser reads. */
struct sl_pyread *sl_pyread_bytes(struct sl_arena *a, const char *display, const char *bytes, size_t len,
				  const struct sl_program_opts *o);

/* One Hydra group choice: the sweep's `group=option`, or an `override` entry. */
struct sl_hydra_choice {
	const char *group;          /* "model", "callbacks/sample" */
	const char *option;         /* "kobart" (NULL when varied) */
	bool varied;                /* the sweep gives several options: the group is not composed */
};

/* A composed Hydra config: one trainer config per file, in merge order. */
struct sl_hydra {
	struct sl_trainer **configs;
	size_t nconfigs;
	const char **notes;
	size_t nnotes;
};

/*
 * Compose config_dir/config_name.yaml with its defaults lists (see hydra.c).
 * A file whose realpath is outside root (sl_project_root; NULL: no bound) is
 * refused with a note. Returns 0, or -1 when nothing could be read (notes say why).
 */
int sl_hydra_compose(struct sl_arena *a, const char *config_dir, const char *root, const char *config_name,
		     const struct sl_hydra_choice *choices, size_t nchoices, const struct sl_scalar_resolver *res,
		     struct sl_config_memo *memo, struct sl_hydra *out);

/* A followed program: its settings, lowest precedence first, and what was not read. */
struct sl_program {
	struct sl_program_ref ref;
	/* the modules' literals, the program's own, the config files they load, the Hydra composition,
	 * configs a sweep value names, the options a shell script passes (the last wins) */
	struct sl_trainer **settings;
	size_t nsettings;
	/* settings[i] was read by following a program found by its name only (ref.guessed): the program, its
	 * modules, the configs it loads (not the configs the sweep or its command names); NULL: none */
	bool *settings_guessed;
	const char **ignore_params; /* sweep parameters that choose a Hydra group option, not values */
	size_t nignore_params;
	int trains;                 /* 1 / 0 / -1 as in sl_pyread */
	const char *quant_open;     /* as sl_pyread's */
	const char **notes;         /* for -v: what was found, read, and left unread */
	size_t nnotes;
	const struct sl_param_role *roles; /* sweep parameters the program makes a setting of (sinks) */
	size_t nroles;
	/*
	 * Whether the sweep's values reach the runs: 0 when the command passes no ${args} (nor
	 * ${args_no_hyphens} / ${args_json}), or passes it to a program that reads no command line
	 * (pyread.py scan_argv, argv_unknown), and the program, read whole, reads no wandb.config (or reads
	 * it only in code no call reaches: behind a flag that is false); 1 when they do; -1 when not known.
	 */
	int reaches;
	const char *reach_why;      /* with reaches == 0: "its command has no ${args} and ..." */
	const char *args_why;       /* why the command line carries none of the sweep's values: "its command has
	                             * no ${args}", "train.py reads no command-line arguments" (NULL: it may) */
	bool args_passed;           /* the command passes ${args} (or ${args_no_hyphens} / ${args_json}) */
	bool in_process;            /* run in the process that defines the sweep (sl_program_opts.in_process) */
	/* with reaches == 1 through wandb.config alone (no ${args}): the sweep parameters the program never
	 * reads there (their runs train the program's own value) */
	const char **unread_params;
	size_t nunread_params;	/* with ${args}: the sweep parameters whose flag the program's argparse parser does not define
	 * (argv_closed): parse_args() stops every run on them */
	const char **refused_params;
	size_t nrefused_params;
	const char *wandb_replaced;  /* as sl_pyread's */
};

/*
 * Follow sw's program: find it and evaluate it with the local modules it imports (pyeval.py: at most
 * 32, under its project folder), answering its requests for the config files it loads. Returns
 * NULL when the sweep names no program; otherwise notes say what happened
 * (not found, python3 absent, a syntax error) and settings may be empty.
 * A program that only runs inference (generate / vLLM, no optimizer or
 * trainer) gives no settings: a training estimate would not describe it.
 */
struct sl_program *sl_program_follow(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_program_opts *o);

#endif
