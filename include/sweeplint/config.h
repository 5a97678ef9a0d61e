/*
 * config: the project configuration, `.sweeplint.yaml`. It is found upward
 * from each checked file's folder: the first `.sweeplint.yaml` wins, and the
 * search stops at the folder that holds `.git` (the repository root, which
 * is still searched) or at `/`, so a config outside the repository never
 * changes what CI sees. `--config-file` names one for every file instead.
 * A config sets defaults that the command line overrides: the GPU and run
 * options, key patterns, project models, rule severities and ignored paths
 * (docs/ci.md is the reference). Configs, their key maps and every string
 * live in the run arena.
 */
#ifndef SWEEPLINT_CONFIG_H
#define SWEEPLINT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/diag.h"
#include "sweeplint/run.h"

struct sl_arena;
struct sl_keymap;
struct sl_model_alias;
struct sl_rule;
struct sl_source;

#define SL_CONFIG_NAME ".sweeplint.yaml"

/* A rule's severity as the config sets it. */
struct sl_config_rule {
	const struct sl_rule *rule;
	enum sl_severity severity;       /* SL_SEV_OFF turns the rule off */
};

struct sl_config {
	const char *path;                /* as found (relative to the working directory when under it) or given */
	const char *dir;                 /* its folder, absolute: relative paths in the file start here */
	const char *root;                /* its project root (path.h): a models: path outside it is not read */
	struct sl_source *src;
	const char *gpu;                 /* NULL: not set */
	uint32_t num_gpus;               /* 0: not set */
	double headroom;                 /* 0: not set */
	uint64_t host_memory;            /* bytes; 0: not set */
	uint32_t cores;                  /* 0: not set */
	bool fetch;                      /* fetch: true — the opt-in download (--fetch) */
	struct sl_keymap *keys;          /* built-in key map with the config's patterns first; NULL: none set */
	struct sl_model_alias *models;   /* name -> catalog name or local config path (made absolute) */
	size_t nmodels;
	struct sl_config_rule *rules;
	size_t nrules;
	const char *program;             /* `program:` the program the sweeps run (absolute), or NULL */
	const char *config_dir;          /* `config_dir:` the folder its configs are in (absolute), or NULL */
	const char **ignore;             /* glob patterns, relative to dir */
	uint32_t *ignore_line;           /* the line of each pattern in the config */
	size_t nignore;
};

/*
 * The .sweeplint.yaml that applies to file ("-": the working directory), or
 * NULL when none does: the nearest one in the file's folder or above it, up
 * to the repository root (a folder holding .git, a folder or a file) or the
 * user's home ($HOME), whichever comes first. Like git since CVE-2022-24765,
 * a config owned by another user (not this user, not root) is not used: a
 * file someone else put in a shared ancestor (/tmp, a shared home) must not
 * configure this run; *note (when note is not NULL) says why, else NULL.
 * The path is relative to the working directory when the config is under
 * it, else absolute.
 */
const char *sl_config_find(struct sl_arena *a, const char *file, const char **note);

/*
 * Read and check the config at path. Problems in it are "config"
 * diagnostics at their position in diags, and the result is -SL_ECONFIG
 * (all problems are reported, not only the first). A file that cannot be
 * read returns -SL_EIO with *errnum set. parse_size reads host_memory the
 * way the command line reads --host-memory (0 or -1). The run gives the
 * arena, the scalar typing and the GPU catalog (loaded here when the config
 * names a GPU, to check the name).
 */
int sl_config_load(struct sl_run *run, const char *path, int (*parse_size)(const char *s, uint64_t *out),
		   struct sl_config **out, struct sl_diags *diags, int *errnum);

/*
 * Whether file is one of the config's ignored paths. Patterns follow a
 * subset of .gitignore: '*', '?' and '[...]' do not cross '/'; a pattern
 * without '/' matches a name at any depth; a leading '/' or an inner '/'
 * anchors it to the config's folder; a leading "**" + "/" unanchors it; a
 * pattern that matches a folder ignores everything under it (a trailing
 * '/' or "/" + "**" matches folders only).
 */
bool sl_config_ignores(struct sl_arena *a, const struct sl_config *c, const char *file);

/* The same, as 1 + the index of the first pattern that matches (c->ignore, c->ignore_line), or 0. */
size_t sl_config_ignore_match(struct sl_arena *a, const struct sl_config *c, const char *file);

/* What the command line set, kept before any config is applied. */
struct sl_config_base {
	struct sl_options opt;           /* headroom 0: --headroom not given */
	enum sl_severity *severity;
	bool *severity_set;
};

/* Keep run's options and severities as the command line left them. */
void sl_config_save_base(struct sl_run *run, struct sl_config_base *base);

/*
 * Set run's options and severities for the next file: the command line
 * (base) where it set something, else config c (may be NULL), else the
 * defaults. The run is prepared again (sl_run_prepare) for the next file.
 */
void sl_config_apply(struct sl_run *run, const struct sl_config_base *base, const struct sl_config *c);

#endif
