/*
 * trainer: the trainer configs a sweep overrides (--config FILE[:SECTION]):
 * YAML (nested or flat, seed-style sections), HF TrainingArguments dumps,
 * axolotl / LLaMA-Factory files, accelerate configs, and DeepSpeed JSON.
 * A config is flattened to dotted keys (`training.per_device_train_batch_size`)
 * whose nodes keep spans into the config's own source, so its problems are
 * reported at its own path:line:col. Everything lives in the run arena.
 */
#ifndef SWEEPLINT_TRAINER_H
#define SWEEPLINT_TRAINER_H

#include <stdbool.h>
#include <stddef.h>

struct sl_arena;
struct sl_diags;
struct sl_node;
struct sl_source;
struct sl_ydoc;
struct sl_scalar_resolver;

/* One leaf of a config: a scalar or a list of scalars. */
struct sl_cfg_entry {
	const char *key;             /* dotted path below the section: "training.fp16" */
	const struct sl_node *node;  /* the value (spans into the config's source) */
	bool is_auto;                /* DeepSpeed "auto": filled from TrainingArguments, not a setting */
	const char *how;             /* read from a program (program.h): "argparse default of --lr"; else NULL */
	const char *chain;           /* with how: the steps that brought the value there ("SEQ = 96 at cfg.py:3"), or NULL */
};

struct sl_trainer {
	const char *path;            /* as given */
	const char *section;         /* the SECTION of FILE:SECTION, or NULL */
	const struct sl_source *src;
	const struct sl_ydoc *doc;
	bool is_json;
	bool is_deepspeed;           /* a DeepSpeed config (zero_optimization / train_micro_batch_size_per_gpu ...) */
	bool from_program;           /* the literal settings of a program (program.h), not a config file */
	struct sl_cfg_entry *entries; /* document order */
	size_t n;
};

/*
 * Load spec = "FILE" or "FILE:SECTION" (a SECTION names a top-level key; a
 * path that exists as given wins over the split). Relative FILE is taken
 * from base_dir when base_dir is not NULL and FILE is not found as given.
 * Problems (unreadable file, bad YAML/JSON, missing section, a root that is
 * not a mapping) are diagnostics: rule "config" (error) at the config's own
 * position; returns -SL_EIO / -SL_EPARSE / -SL_ENOENT then, with *out NULL
 * (-SL_ENOENT only for a file that does not exist: a missing section is
 * -SL_EPARSE, the file's content).
 */
int sl_trainer_load(struct sl_arena *a, const char *spec, const char *base_dir,
		    const struct sl_scalar_resolver *res, struct sl_diags *diags, struct sl_trainer **out);

/*
 * The same for a file a project names: the file found is read only when its realpath is inside root
 * (path.h; NULL: no bound); otherwise -SL_EOUTSIDE with no diagnostic and nothing read (*why, when not
 * NULL, gets the note naming it).
 */
int sl_trainer_load_in(struct sl_arena *a, const char *spec, const char *base_dir, const char *root,
		       const struct sl_scalar_resolver *res, struct sl_diags *diags, struct sl_trainer **out,
		       const char **why);

/* The same over bytes already in memory (tests; stdin). */
int sl_trainer_load_bytes(struct sl_arena *a, const char *path, const char *section, const char *bytes,
			  size_t len, const struct sl_scalar_resolver *res, struct sl_diags *diags,
			  struct sl_trainer **out);

/* The entry with this dotted key, or NULL. */
const struct sl_cfg_entry *sl_trainer_get(const struct sl_trainer *t, const char *key);

#endif
