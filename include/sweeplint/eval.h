/*
 * eval: every combination of a sweep through the memory model. The sweep's
 * memory-relevant parameters (keys with a role), the trainer configs' values,
 * literal command options and --set fixes become axes; only the product of
 * the axes is evaluated, multiplied by the count of the other combinations,
 * and never materialised. Each axis value collects how many combinations it
 * takes part in fit, run out of memory or are unknown, and its worst case.
 * Everything lives in the run arena. Implemented in src/enumerate/ (eval.c
 * drives axes.c, cells.c and tally.c; combo.c, fix.c and names.c read the
 * result; provenance.c, workload.c, walk.c).
 */
#ifndef SWEEPLINT_EVAL_H
#define SWEEPLINT_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/memory.h"
#include "sweeplint/roles.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"

struct sl_arena;
struct sl_diags;
struct sl_workload;
struct sl_hub;
struct sl_trainer;
struct sl_scalar_resolver;
struct sl_param_role;

/*
 * Where an axis came from (application order: program, config, command,
 * sweep, command after ${args}, .sweeplint.yaml, --set). Every origin is a
 * stated setting; only SL_SOURCE_DEFAULT below is an assumption.
 */
enum sl_axis_origin {
	SL_AXIS_CONFIG,      /* a trainer-config value (fixed) */
	SL_AXIS_COMMAND,     /* a literal --key=value in command: (fixed) */
	SL_AXIS_SWEEP,       /* a sweep parameter (value: is a one-value axis) */
	SL_AXIS_SET,         /* --set KEY=VALUE / a default the user fixed */
	SL_AXIS_PROJECT,     /* a fixed setting of .sweeplint.yaml */
	SL_AXIS_PROGRAM,     /* what the training program itself sets (a reader of its code fills it) */
	SL_AXIS__COUNT
};

/*
 * Where one memory setting of a combination came from: an axis (its origin,
 * the file and span of the value, the key), the model itself (its maximum
 * input length), or nothing (the memory model's default: an assumption).
 */
enum sl_setting_source {
	SL_SOURCE_DEFAULT,   /* assumed: nothing states it */
	SL_SOURCE_MODEL,     /* the model's own maximum length */
	SL_SOURCE_AXIS,      /* stated: see origin */
};

struct sl_setting_origin {
	enum sl_setting_source source;
	enum sl_axis_origin origin;      /* with SL_SOURCE_AXIS */
	const char *key;                 /* the key as written (NULL for defaults) */
	const struct sl_source *src;     /* the file it is written in (NULL: --set, a default) */
	struct sl_span span;             /* where (zero for --set and defaults) */
};

/* "sweep", "command", "config", "--set", ".sweeplint.yaml", "program", "model", "default". */
const char *sl_setting_origin_name(const struct sl_setting_origin *o);
/* An axis origin's name: "config", "command", "sweep", "--set", ".sweeplint.yaml", "program". */
const char *sl_axis_origin_name(enum sl_axis_origin o);

/* A classification of one combination. */
enum sl_verdict {
	SL_VERDICT_FIT,      /* at or below the planning headroom */
	SL_VERDICT_NEAR,     /* above the headroom, at or below capacity */
	SL_VERDICT_OOM,      /* above capacity */
	SL_VERDICT_UNKNOWN,  /* an unknown model or a value sweeplint cannot read */
	SL_VERDICT__COUNT
};

struct sl_eval_value {
	const struct sl_node *node;      /* the value's node (findings go here); NULL when computed */
	struct sl_span span;             /* its span (the parameter's bound for computed values) */
	const char *text;                /* as written, for messages */
	struct sl_role_value *rv;        /* parsed role values (a DeepSpeed config value carries several) */
	size_t nrv;
	bool ok;                         /* parsed; false: its combinations are unknown */
	const char *why;                 /* why it could not be read */
	const struct sl_model *model;    /* SL_ROLE_MODEL: resolved, or NULL (unknown model) */
	/* results over the combinations it takes part in, weighted by the non-memory axes */
	struct sl_count n[SL_VERDICT__COUNT];
	uint64_t u[SL_VERDICT__COUNT];   /* the same, counting memory-relevant combinations once each */
	uint64_t worst, best;            /* largest / smallest peak (bytes) among its known combinations */
	uint32_t *worst_combo;           /* value index per axis of that worst combination */
	/*
	 * Blame: an OOM (or near-capacity) combination is attributed to the one
	 * value whose change would make it fit (batch size first, then lengths,
	 * gradient checkpointing, the model, the rest); a combination no single
	 * change fixes is attributed to its model (else its first value with a
	 * node). blamed[SL_VERDICT_OOM] counts the OOM combinations attributed
	 * here, blame_combo[...] is the largest of them.
	 */
	uint64_t blamed[SL_VERDICT__COUNT];
	uint32_t *blame_combo[SL_VERDICT__COUNT];
	uint16_t blame_q[SL_VERDICT__COUNT];
	bool hopeless;                   /* some combination attributed here had no single-change fix */
};

struct sl_eval_axis {
	enum sl_axis_origin origin;
	const char *key;                 /* dotted key as written */
	enum sl_role role;
	const struct sl_key_rule *rule;  /* NULL for --set */
	const struct sl_param *param;    /* sweep axes */
	const struct sl_source *src;     /* the file its nodes are in */
	struct sl_eval_value *values;
	size_t n;
	bool bounds;                     /* a range evaluated at its bounds (continuous or huge) */
	bool guessed;                    /* set by a program found by its name only (sl_eval_opts.program_guess),
	                                  * or a sweep parameter whose role that program gives */
	bool modules;                    /* the sizes of the program's custom nn.Module (role model): one value per
	                                  * combination of the sweep parameters it names (key), its layer list counted */
	struct sl_count range;           /* with bounds: how many values the range stands for */
	uint64_t stride;                 /* combination index = sum of value index × stride */
	/*
	 * index in cells = sum of value index × cell_stride; 0: a held axis, one
	 * whose values the peak does not read (sl_eval_unread_roles): its values
	 * share their cells
	 */
	uint64_t cell_stride;
	/* the axis applies only where axis only_axis (>= 0) has a value with only_mask[value] set (a setting
	 * the program makes from this parameter under a guard on that one: only_param has one of only_values);
	 * -1: always */
	int only_axis;
	const bool *only_mask;
	const struct sl_param *only_param;
	const struct sl_node *const *only_values;
	size_t nonly;
};


/* A key that was read (or skipped) for -v. */
struct sl_eval_note {
	const char *key;
	const char *where;               /* "sweep", "config train.yaml", "command", "--set" */
	int role;                        /* enum sl_role, or -1 when not memory-relevant */
	const char *detail;              /* the value, or why it was not used */
	const struct sl_key_rule *rule;  /* the pattern that matched, or NULL */
	/* a config or command value that could not be used (the default stays): where it is written */
	const struct sl_node *rejected;  /* its node, or NULL when nothing was rejected */
	const struct sl_source *src;     /* the file the node is in */
	struct sl_span span;             /* its span (a command option's value has no node of its own) */
	/* a setting read from the program (program.h): how, and what later value replaces it (else NULL) */
	const char *how;                 /* "argparse default of --model_name"; NULL for other notes */
	const char *chain;               /* with how: the steps that brought the value there ("name = args.enc at train.py:6") */
	const char *overridden_by;       /* "model (sweep)" when a later axis of the same role wins */
	size_t axis;                     /* while building: 1 + the axis it made, 0 for none */
};

/* A project model (.sweeplint.yaml `models:`): a name and what it stands for. */
struct sl_model_alias {
	const char *name;                /* the value a sweep uses, compared without case */
	const char *target;              /* a catalog name or HF id, or a local HF folder / config.json path */
	const char *root;                /* the project root of the .sweeplint.yaml naming it: a local target is
	                                  * read only inside it (path.h); NULL: no bound */
};

struct sl_eval_opts {
	const struct sl_catalog *cat;
	const struct sl_gpu *gpu;
	const struct sl_keymap *keys;
	const struct sl_trainer *const *configs; /* applied in order before the sweep */
	size_t nconfigs;
	const char *const *sets;         /* "role=value" or "key=value" fixes, applied last */
	size_t nsets;
	const char *base_dir;            /* the sweep's folder: local model paths, deepspeed configs */
	const char *root;                /* the sweep's project root (sl_project_root): a model folder or deepspeed
	                                  * config outside it is not read (path.h); NULL: no bound */
	const char *hf_cache;            /* the Hugging Face hub cache folder, or NULL (sl_model_resolve) */
	struct sl_hub *hub;              /* --fetch: download config.json of unresolved Hub ids; NULL: never */
	const struct sl_model_alias *model_aliases; /* project models, looked up before the catalog */
	size_t nmodel_aliases;
	double headroom;                 /* fraction of capacity a run may plan to use (0 < h <= 1) */
	uint32_t num_gpus;               /* -n: GPUs per run unless a key sets it (0: 1) */
	uint64_t max_combos;             /* evaluation bound (0: from SL_EVAL_MAX_WORK and the axes) */
	bool exhaustive;                 /* hold no axis: estimate every combination (the tests' reference) */
	const struct sl_scalar_resolver *resolver; /* PyYAML typing (NULL: one is made) */
	const struct sl_workload *workload; /* rules/workload.yaml compiled (sl_workload_new; NULL: one is made) */
	const struct sl_frameworks *frameworks; /* rules/frameworks.yaml read (sl_frameworks_new; NULL: one is made) */
	/* sweep parameters the program reads as something else (a Hydra group choice): not memory values */
	const char *const *ignore_params;
	size_t nignore_params;
	const char *const *ignore_why;   /* why each is not a value (-v), or NULL: a Hydra group choice */
	/* sweep parameters a followed program makes a setting of (its sinks, program.h): that setting's role,
	 * whatever the parameter's name, with the program's value map when it has one */
	const struct sl_param_role *param_roles;
	size_t nparam_roles;
	/* the sweep's values never reach the runs (program.h reaches == 0): why; its parameters are no
	 * memory axes then, and the program's own settings are judged (NULL: they reach) */
	const char *sweep_unread;
	/* sweep parameters the program never reads (no ${args}, and wandb.config read for others only): their
	 * runs train the program's own value: not memory axes */
	const char *const *unread_params;
	size_t nunread_params;
	const char *args_why;            /* why the command line carries none of them ("its command has no ${args}") */
	/* the program loads the model with a quantization its text does not decide (program.h quant_open):
	 * every oom verdict rests on it (SL_NEED_QUANT); NULL: decided */
	const char *quant_open;
	/* the program read is a guess of the agent's working folder (program.h sl_program_ref.guessed): the
	 * file of the name the sweep gives found elsewhere in the project; an oom verdict resting on its
	 * settings is at risk, never an error (NULL: the program is where the sweep says) */
	const char *program_guess;
	const struct sl_source *const *guess_srcs; /* the files of that program's settings (their axes rest on it) */
	size_t nguess_srcs;
};

/*
 * rules/workload.yaml's patterns compiled, for sl_eval_opts.workload (NULL
 * when it does not load: problems in diags). Made once per run: parsing and
 * compiling it per evaluation cost ~1 ms, most of split's time per part.
 */
struct sl_workload *sl_workload_new(struct sl_arena *a, struct sl_diags *diags);

/*
 * rules/frameworks.yaml read, for sl_eval_opts.frameworks (NULL when it does
 * not load: problems in diags): the defaults of training frameworks
 * (LLaMA-Factory turns gradient checkpointing on unless told not to) that a
 * sweep gets, below every stated value, when its configs, parameters or
 * command show the framework runs it. Made once per run.
 */
struct sl_frameworks *sl_frameworks_new(struct sl_arena *a, struct sl_diags *diags);

/*
 * The evaluation bound. A combination costs about one step per memory-relevant
 * axis (the incremental estimate, the per-value tallies), so the bound is on
 * combinations × axes: SL_EVAL_MAX_WORK / axes combinations, kept between
 * SL_EVAL_MIN_COMBOS and SL_EVAL_MAX_COMBOS. Past it the largest numeric axes
 * are cut to their bounds; when two-valued axes alone pass it, nothing is
 * evaluated (too_many). Figures: docs/reliability.md (10^7 combinations of
 * five or seven axes are evaluated whole; 22 two-valued axes are not).
 */
#define SL_EVAL_MAX_WORK ((uint64_t)75000000)
#define SL_EVAL_MIN_COMBOS ((uint64_t)1 << 20)
#define SL_EVAL_MAX_COMBOS ((uint64_t)1 << 24)

/*
 * Past this many memory-relevant keys (sweep parameters, config and command
 * keys, distinct --set keys) nothing is evaluated either (too_many, limit 0):
 * each value's worst combination holds an index per axis. Real sweeps with
 * their configs have a few dozen.
 */
#define SL_EVAL_MAX_AXES 256

struct sl_eval {
	const struct sl_sweep *sweep;
	const struct sl_gpu *gpu;
	const struct sl_catalog *cat;
	const struct sl_hub *hub;        /* the --fetch hub (sl_hub_why for findings); NULL: not fetching */
	uint64_t capacity;               /* gpu->bytes */
	uint64_t plan;                   /* capacity × headroom */
	uint32_t num_gpus;               /* -n default */
	struct sl_eval_axis *axes;       /* in application order (a later axis overrides an earlier one) */
	size_t naxes;
	struct sl_count others;          /* combinations of parameters memory does not depend on */
	struct sl_count n[SL_VERDICT__COUNT]; /* weighted counts; total = sum */
	struct sl_count total;
	uint64_t u[SL_VERDICT__COUNT];   /* memory-relevant combinations by verdict */
	uint64_t ncombos;                /* memory-relevant combinations (the product of the axes) */
	uint64_t ncells;                 /* combinations estimated: the product of the axes that are not held */
	uint64_t evaluated;              /* estimates computed: the known ones of the ncells */
	uint64_t memo_hits;              /* always 0: no memo since estimates are incremental (kept for -v) */
	bool truncated;                  /* too many combinations: some axes were cut to their bounds */
	bool too_many;                   /* still too many with every axis at most two values: not evaluated */
	uint64_t limit;                  /* with too_many: the combination bound passed; 0: SL_EVAL_MAX_AXES */
	uint64_t worst;                  /* largest known peak */
	uint32_t *worst_combo;
	/*
	 * per combination of the axes that are not held (sl_eval_cell): verdict
	 * << 14 | peak / capacity as an ordering step (cells.c cell_of: 1/1024 below 12 x, then logarithmic)
	 */
	uint16_t *cells;
	struct sl_eval_note *notes;
	size_t nnotes;
	bool has_model;                  /* some axis sets the model */
	const char *quant_open;          /* sl_eval_opts.quant_open */
	enum sl_mode mode;               /* the workload when no axis sets `mode` (rules/workload.yaml) */
	/* known combinations judged on stated settings / on some assumed one (sl_eval_assumed), weighted */
	struct sl_count stated, assumed;
	/*
	 * the oom combinations split by what their verdict rests on: at_risk, some assumed setting the
	 * verdict needs (it fits at that setting's most favourable value: sl_eval_oom_assumed), an upper
	 * bound (dynamic padding's length, a custom module's activations); oom_sure, stated settings
	 * only. at_risk + oom_sure = n[SL_VERDICT_OOM]
	 */
	struct sl_count at_risk, oom_sure;
	const char *program_guess;       /* sl_eval_opts.program_guess */
	/* axes taken out of every combination (sl_eval_axis_applies false): NULL but in a copy of the
	 * evaluation that asks what the verdict is without the guessed program's settings (combo.c) */
	const bool *skip_axes;
};

/*
 * Evaluate sw. Problems that stop nothing (a --set the key map does not know,
 * a deepspeed file that cannot be read) are diagnostics in diags. Returns 0,
 * or -SL_EUSAGE for a malformed --set (with *why set).
 */
/* Whether the oom verdict of combination idx rests on a program found by its name only
 * (sl_eval_opts.program_guess): it takes a setting of that program that no stated setting replaces, and
 * without that program's settings (their roles at sweeplint's defaults, what no other key states at its
 * most favourable: sl_eval_oom_assumed) the combination would fit under limit (measured by measure, NULL:
 * the training estimate's total). A guessed program's optimizer beside a batch that runs out whatever the
 * optimizer does not make the verdict a guess. */
bool sl_eval_rests_on_guess(const struct sl_eval *ev, const uint32_t *idx, uint64_t limit,
			    uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s,
						const struct sl_model *m));

int sl_eval_run(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_eval_opts *o,
		struct sl_diags *diags, struct sl_eval **out, const char **why);

/* Whether axis i takes part in combination idx (its condition, only_axis, holds). */
bool sl_eval_axis_applies(const struct sl_eval *ev, size_t i, const uint32_t *idx);

/*
 * The settings and model of one combination (idx: a value index per axis).
 * Returns false when the combination is unknown (model or value unreadable).
 */
bool sl_eval_settings(const struct sl_eval *ev, const uint32_t *idx, struct sl_settings *s,
		      const struct sl_model **model);

/* Where role r of combination idx takes its value from (the last axis value setting it). */
void sl_eval_origin(const struct sl_eval *ev, const uint32_t *idx, enum sl_role r, struct sl_setting_origin *out);

/*
 * The settings an `oom` error rests on: the batch size, the sequence length
 * (or the model's maximum) and the precision (any of dtype, amp, quant);
 * with a quantized base, the adapter (SL_NEED_ADAPTER: none stated, so PEFT's
 * default LoRA is assumed, sl_settings_assume_adapter). sl_eval_assumed
 * returns those combination idx takes from defaults, as a mask of SL_NEED_*
 * bits (0: judged on stated settings). SL_NEED__AXES: the needs an axis value
 * states by setting a role.
 */
enum {
	SL_NEED_BATCH = 1u << 0,
	SL_NEED_LENGTH = 1u << 1,
	SL_NEED_PRECISION = 1u << 2,
	SL_NEED_ADAPTER = 1u << 3,
	SL_NEED_PADDING = 1u << 4,  /* the length is dynamic padding's bound: each batch only as long as its longest */
	SL_NEED_BOUND = 1u << 5,    /* a custom module's activations are an upper bound (its forward is not read) */
	SL_NEED_QUANT = 1u << 6,    /* the program's quantization is not decided (sl_eval.quant_open) */
	SL_NEED_SIZE = 1u << 7,     /* the model is a family of sizes resolved by name (resolved_by "family"): an oom
	                             * verdict holds at every size but rests on the guess that it is one of them */
	SL_NEED__AXES = 7u,
	SL_NEED__ALL = 255u
};
unsigned sl_eval_assumed(const struct sl_eval *ev, const uint32_t *idx);
/*
 * The needs in sl_eval_assumed(ev, idx) & ~given that a verdict of peak > limit rests on: 0 when the
 * run passes limit even with them at their most favourable (sl_need_favourable), measured by
 * measure (NULL: the training step's peak, sl_estimate). A custom module whose counts are upper
 * bounds ("<=") has no favourable value: SL_NEED_BOUND then stays.
 */
unsigned sl_eval_oom_assumed(const struct sl_eval *ev, const uint32_t *idx, unsigned given, uint64_t limit,
			     uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s,
						 const struct sl_model *m));
/*
 * The assumed settings of mask at their most favourable (batch 1, a 1-token
 * input, 16-bit weights; the assumed adapter as LoRA of rank 1 on the query
 * projection alone, with gradient checkpointing as PEFT's
 * prepare_model_for_kbit_training turns it on): a verdict that holds even
 * then does not rest on them.
 */
void sl_need_favourable(struct sl_settings *s, unsigned mask);
/*
 * "batch_size from the sweep (batch_size, 6:3); seq_len assumed (512);
 * precision from config train.yaml (bf16, 4:1)": where the settings an oom
 * error needs come from in combination idx, for -v.
 */
const char *sl_eval_origins_describe(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx);
/* The role name that stands for each SL_NEED_* bit in JSON ("batch_size", "seq_len", "dtype", "peft_method", "model",
 * "padding", "modules"). */
const char *sl_need_role_name(unsigned bit);
/* "batch_size 8 (HF Trainer's default), fp32 weights without mixed precision": the assumptions of mask. */
const char *sl_need_describe(struct sl_arena *a, unsigned mask, enum sl_mode mode);

/* Estimate one combination; false when unknown. */
bool sl_eval_estimate(const struct sl_eval *ev, const uint32_t *idx, struct sl_breakdown *bd);

/* The verdict for a peak. */
enum sl_verdict sl_eval_classify(const struct sl_eval *ev, uint64_t total);

/* The stored verdict of a combination. */
enum sl_verdict sl_eval_verdict(const struct sl_eval *ev, const uint32_t *idx);

/* The stored cell of a combination (ev->cells must be set). */
uint16_t sl_eval_cell(const struct sl_eval *ev, const uint32_t *idx);

/* Step idx to the next combination (last axis fastest); false after the last one. */
bool sl_eval_next(const struct sl_eval *ev, uint32_t *idx);

/*
 * What one combination is measured by: the training step's peak
 * (sl_estimate, the workload's peak outside training), the evaluation
 * step's peak (sl_estimate_eval), host RAM (sl_estimate_host).
 */
enum sl_measure { SL_MEASURE_STEP, SL_MEASURE_EVAL, SL_MEASURE_HOST };

/* The roles (bits 1 << role; only roles below 64 can be unread) measure m does not read in any combination of ev. */
uint64_t sl_eval_unread_roles(const struct sl_eval *ev, enum sl_measure m);

/*
 * A walk over the combinations a measure can tell apart (src/enumerate/walk.c):
 * axes whose values all set only roles in `unread` stay at their first
 * value, the others step as sl_eval_next steps them; each combination
 * visited stands for `weight` combinations with the same measure. Its
 * combination order is sl_eval_next's, so the first of the visited
 * combinations with some property is the first of all of them.
 */
struct sl_eval_walk {
	uint32_t *idx;                   /* the combination visited (in the arena) */
	uint64_t weight;                 /* combinations it stands for */
	const struct sl_eval *ev;
	bool *steps;                     /* per axis: stepped (else held) */
};
void sl_eval_walk_init(struct sl_arena *a, const struct sl_eval *ev, uint64_t unread, struct sl_eval_walk *w);
/* Hold axis at value (the walk then visits only its combinations with that value); before the first step. */
void sl_eval_walk_pin(struct sl_eval_walk *w, size_t axis, uint32_t value);
/* Step axis too (a tally by its values); before the first step. */
void sl_eval_walk_keep(struct sl_eval_walk *w, size_t axis);
/* Step to the next combination; false after the last one. */
bool sl_eval_walk_next(struct sl_eval_walk *w);

/* A fresh index vector (all zeros) in a; with axis/value set when axis < naxes. */
uint32_t *sl_eval_combo(struct sl_arena *a, const struct sl_eval *ev, size_t axis, uint32_t value);

/* The first axis with this role whose origin is a sweep parameter, else any, else NULL. */
const struct sl_eval_axis *sl_eval_axis_for(const struct sl_eval *ev, enum sl_role r);

/*
 * "bge-m3-ko × model.max_len 512" style description of a combination: its
 * values on axes with several values, skipping axis `skip` (SIZE_MAX: none).
 */
const char *sl_eval_describe(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx, size_t skip);

/* "batch_size 256" or, for the model, "bge-m3-ko": one value of one axis, for messages. */
const char *sl_eval_value_name(struct sl_arena *a, const struct sl_eval_axis *ax, const struct sl_eval_value *v);

/* What would make one combination fit under `limit` bytes, the other settings fixed. */
struct sl_eval_fix {
	uint64_t batch;                  /* the combination's batch size and accumulation */
	uint64_t accum;
	uint64_t batch_fit;              /* largest batch below it that fits (0: none) */
	uint64_t new_batch, new_accum;   /* a batch dividing batch × accum, and the accumulation keeping it */
	bool gc_fits;                    /* gradient checkpointing is off and turning it on fits */
	uint32_t zero_gpus, zero_stage;  /* fits on zero_gpus GPUs with ZeRO-zero_stage (0: no such fit) */
};
bool sl_eval_fix(const struct sl_eval *ev, const uint32_t *idx, uint64_t limit, struct sl_eval_fix *fx);

/* Bytes as "93.4 GiB" / "812 MiB" (in a). */
const char *sl_bytes_str(struct sl_arena *a, uint64_t bytes);

#endif
