/*
 * program: follow the program a sweep runs. Find it (`program:`, the script
 * in `command:` behind python -m / accelerate launch / torchrun / deepspeed,
 * a shell script and the python command it runs), then read its literal
 * settings statically — argparse defaults, dataclass field defaults, keyword
 * literals of TrainingArguments / LoraConfig / BitsAndBytesConfig /
 * from_pretrained / Lightning Trainer — with the user's python3 running
 * ast.parse in a bounded subprocess (src/program/pyread.py: parse only, the
 * program is never imported or executed). The settings come back as a
 * trainer config (trainer.h) whose entries carry their file:line:col and how
 * they were read, so the eval overlays them below every value the sweep
 * states. Everything lives in the run arena.
 */
#ifndef SWEEPLINT_PROGRAM_H
#define SWEEPLINT_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

struct sl_arena;
struct sl_sweep;
struct sl_trainer;
struct sl_scalar_resolver;

/* Bounds of one program read (a finding-free note past them, never a crash). */
#define SL_PROGRAM_MAX_BYTES ((size_t)256 << 10)   /* a bigger program is not parsed (KiB in messages) */
#define SL_PROGRAM_TIMEOUT_MS 10000                /* wall time for one python3 parse */
#define SL_PROGRAM_MAX_AS ((unsigned long)2 << 30) /* RLIMIT_AS of the parser process */
#define SL_PROGRAM_MAX_OUTPUT ((size_t)4 << 20)    /* JSON the parser may print */
#define SL_PROGRAM_MAX_MODULES 8                   /* local modules read beside the program */

/* How a program was found. */
struct sl_program_ref {
	const char *path;           /* a file that exists (NULL: none found) */
	struct sl_trainer *shell;   /* literal options a shell script passes to it ("run.sh passes --x"), or NULL */
	const char *how;            /* "program: train.py", "command: python -m pkg.train", "run.sh:12" */
	const char *root;           /* the project folder its imports are looked up from */
};

/* A YAML/JSON file a program loads by a literal name (open("cfg.yaml"), an argparse default of --config). */
struct sl_pyconfig {
	const char *path;           /* as written */
	unsigned line;              /* where it is named */
	const char *how;            /* "OmegaConf.load(\"conf.yaml\")", "argparse default of --config" */
	const char *dest;           /* the argparse dest that names it (a sweep value replaces it), or NULL */
};

/* A keyword whose value a program reads from a config object: from_pretrained(cfg.model.name). */
struct sl_pyref {
	const char *key;            /* the setting it gives: "model_name_or_path", "per_device_train_batch_size" */
	const char *path;           /* the config key it reads: "model.name" */
	const char *how;            /* "AutoModel.from_pretrained reads cfg.model.name" */
	unsigned line;
};

/* The literal settings read from one Python file. */
struct sl_pyread {
	struct sl_trainer *settings; /* entries with `how` set; NULL when nothing could be read */
	int trains;                 /* 1: builds an optimizer or trainer; 0: only generate/vLLM; -1: unknown */
	const char **imports;       /* modules it imports ("pkg.mod"), for following local ones */
	size_t nimports;
	const char **notes;         /* what was not read and why ("12: argparse default of --lr is computed") */
	size_t nnotes;
	const char *error;          /* the whole file was not read: why (python3 absent, syntax error, too big) */
	struct sl_pyconfig *configs; /* config files it loads by a literal name */
	size_t nconfigs;
	struct sl_pyref *refs;      /* keywords read from a config object, resolved against the configs loaded */
	size_t nrefs;
	const char *hydra_path;     /* @hydra.main(config_path=, config_name=) / initialize + compose, or NULL */
	const char *hydra_name;
	unsigned hydra_line;
};

struct sl_program_opts {
	const char *python;         /* the interpreter (NULL: "python3" from PATH) */
	const char *program;        /* .sweeplint.yaml `program:` (NULL: from the sweep) */
	const char *sweep_dir;      /* the sweep's folder (NULL: "."): relative program paths start there */
	const char *config_dir;     /* .sweeplint.yaml config_dir: the Hydra config folder when the program's
	                             * is not a literal, and a folder config files are looked up in */
	const struct sl_scalar_resolver *res;
};

/*
 * Find the program of sw. The sweep's folder and its parents up to the
 * project root (a folder holding .git or .sweeplint.yaml, at most 3 levels
 * up) are searched for a relative path. Returns true with *ref filled, or
 * false with ref->how saying what was looked for (NULL: the sweep names no
 * program).
 */
bool sl_program_find(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_program_opts *o,
		     struct sl_program_ref *ref);

/* path with "dir/.." and "./" removed lexically, for the names shown (in a). */
const char *sl_path_tidy(struct sl_arena *a, const char *path);

/* Read the literal settings of the Python file at path (see above). Never NULL. */
struct sl_pyread *sl_pyread_file(struct sl_arena *a, const char *path, const struct sl_program_opts *o);

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
 * Returns 0, or -1 when nothing could be read (notes say why).
 */
int sl_hydra_compose(struct sl_arena *a, const char *config_dir, const char *config_name,
		     const struct sl_hydra_choice *choices, size_t nchoices, const struct sl_scalar_resolver *res,
		     struct sl_hydra *out);

/* A followed program: its settings, lowest precedence first, and what was not read. */
struct sl_program {
	struct sl_program_ref ref;
	/* the modules' literals, the program's own, the config files they load, the Hydra composition,
	 * configs a sweep value names, the options a shell script passes (the last wins) */
	struct sl_trainer **settings;
	size_t nsettings;
	const char **ignore_params; /* sweep parameters that choose a Hydra group option, not values */
	size_t nignore_params;
	int trains;                 /* 1 / 0 / -1 as in sl_pyread */
	const char **notes;         /* for -v: what was found, read, and left unread */
	size_t nnotes;
};

/*
 * Follow sw's program: find it, read it and the local modules it imports
 * (at most SL_PROGRAM_MAX_MODULES, found under its project folder). Returns
 * NULL when the sweep names no program; otherwise notes say what happened
 * (not found, python3 absent, a syntax error) and settings may be empty.
 * A program that only runs inference (generate / vLLM, no optimizer or
 * trainer) gives no settings: a training estimate would not describe it.
 */
struct sl_program *sl_program_follow(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_program_opts *o);

#endif
