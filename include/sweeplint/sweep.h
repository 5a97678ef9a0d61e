/*
 * sweep: the W&B view of a sweep document — method, metric, command, and
 * every parameter (nested `parameters:` flattened, with dotted paths), with
 * the distribution W&B's schema resolves for it and the defaults it fills
 * in; plus W&B's grid semantics (how many values each parameter contributes,
 * the grid size as a saturating count, the i-th grid value).
 * Everything here lives in the run arena and points into the ydoc's nodes;
 * nothing is freed individually.
 */
#ifndef SWEEPLINT_SWEEP_H
#define SWEEPLINT_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/scalar.h"

struct sl_arena;
struct sl_node;
struct sl_ydoc;

enum sl_method {
	SL_METHOD_NONE,   /* absent or not one of the names below */
	SL_METHOD_GRID,
	SL_METHOD_RANDOM,
	SL_METHOD_BAYES,
	SL_METHOD_CUSTOM,
	SL_METHOD__COUNT
};

/* The 18 distributions of W&B's schema (wandb/sweeps config/schema.json). */
enum sl_dist {
	SL_DIST_NONE,                        /* not resolved: the parameter matches no schema form */
	SL_DIST_CONSTANT,
	SL_DIST_CATEGORICAL,
	SL_DIST_CATEGORICAL_W_PROBABILITIES,
	SL_DIST_INT_UNIFORM,
	SL_DIST_UNIFORM,
	SL_DIST_Q_UNIFORM,
	SL_DIST_LOG_UNIFORM,                 /* deprecated: bounds are base-e exponents */
	SL_DIST_LOG_UNIFORM_VALUES,
	SL_DIST_INV_LOG_UNIFORM,             /* deprecated */
	SL_DIST_INV_LOG_UNIFORM_VALUES,
	SL_DIST_Q_LOG_UNIFORM,               /* deprecated */
	SL_DIST_Q_LOG_UNIFORM_VALUES,
	SL_DIST_NORMAL,
	SL_DIST_Q_NORMAL,
	SL_DIST_LOG_NORMAL,
	SL_DIST_Q_LOG_NORMAL,
	SL_DIST_BETA,
	SL_DIST_Q_BETA,
	SL_DIST__COUNT
};

/* "int_uniform", ... ("none" for SL_DIST_NONE). */
const char *sl_dist_name(enum sl_dist d);
/* The distribution named s (exact W&B spelling), or SL_DIST_NONE. */
enum sl_dist sl_dist_parse(const char *s);
/* log_uniform, inv_log_uniform, q_log_uniform (W&B: "use *_values"). */
bool sl_dist_deprecated(enum sl_dist d);
/* The *_values replacement of a deprecated distribution (else d). */
enum sl_dist sl_dist_replacement(enum sl_dist d);
/* constant, categorical, int_uniform, q_uniform: what W&B's grid search accepts. */
bool sl_dist_grid_allowed(enum sl_dist d);

/*
 * One parameter. Nested `parameters:` are flattened in document order
 * (pre-order): a dict parameter (is_dict) is followed by its children.
 * Only leaves (!is_dict) are sweep dimensions.
 */
struct sl_param {
	const char *name;                /* this level's key text: "beta" */
	const char *path;                /* dotted full path: "optimizer.nadam.beta" */
	const struct sl_node *key;       /* the key node (for spans) */
	const struct sl_node *node;      /* the value node: normally a mapping; anything when malformed */
	const struct sl_param *parent;   /* enclosing dict parameter, or NULL at top level */
	unsigned depth;                  /* 0 for top-level parameters */
	bool is_dict;                    /* {parameters: {...}}: the children follow it */

	enum sl_dist dist;               /* as W&B resolves it; SL_DIST_NONE when it matches no form */
	bool dist_explicit;              /* a `distribution:` key is present */
	/* the keys, or NULL when absent */
	const struct sl_node *distribution, *value, *values, *probabilities;
	const struct sl_node *min, *max, *q, *mu, *sigma, *a, *b;
	const struct sl_node *parameters; /* dict parameters: the nested mapping */
	/* numbers as W&B sees them after filling the schema's defaults (NAN when not numeric) */
	double minv, maxv, qv, muv, sigmav, av, bv;
	bool q_int;                      /* q is an integer (quantized values are ints: round(x/q)*q) */
};

/* Kinds of `command:` items. */
enum sl_cmd_kind {
	SL_CMD_LITERAL,                  /* any other text */
	SL_CMD_OPTION,                   /* a literal --key=value, key=value, or --key followed by a value item */
	SL_CMD_ENV,                      /* ${env} */
	SL_CMD_INTERPRETER,              /* ${interpreter} */
	SL_CMD_PROGRAM,                  /* ${program} */
	SL_CMD_ARGS,                     /* ${args}: --name=value for every parameter */
	SL_CMD_ARGS_NO_BOOLEAN_FLAGS,    /* ${args_no_boolean_flags} */
	SL_CMD_ARGS_NO_HYPHENS,          /* ${args_no_hyphens}: name=value */
	SL_CMD_ARGS_JSON,                /* ${args_json} */
	SL_CMD_ARGS_JSON_FILE,           /* ${args_json_file} */
	SL_CMD_ENVVAR,                   /* ${envvar:NAME} */
	SL_CMD__COUNT
};

struct sl_cmd_item {
	enum sl_cmd_kind kind;
	const struct sl_node *node;      /* the item (for SL_CMD_OPTION in "--key value" form: the key item) */
	const char *envvar;              /* SL_CMD_ENVVAR: NAME */
	/* SL_CMD_OPTION: the option name without leading dashes, and its value text */
	const char *key;
	const char *value;
	const struct sl_node *value_node; /* the item holding the value (== node for the "=" forms) */
	bool hyphens;                    /* the key was written with leading '-' or "--" */
	bool value_is_macro;             /* the value is a ${name} macro (W&B substitutes the parameter) */
};

/*
 * Something W&B's validation rejects (its JSON schema, or the checks of
 * wandb/sweeps config/cfg.py and schema.py), positioned at a node.
 */
struct sl_sweep_problem {
	const struct sl_node *at;        /* the offending node (never NULL) */
	const char *message;             /* git style: lower case, values quoted, no final period */
	const char *hint;                /* the fix, or NULL */
	bool yaml11;                     /* caused by a PyYAML string a person reads as a number */
	bool accepted;                   /* W&B creates the sweep anyway, with a "Malformed sweep config" warning,
					    and uses its default instead: a warning, not an error */
};

struct sl_sweep {
	const struct sl_ydoc *doc;
	const struct sl_node *root;      /* the document's root mapping, or NULL */
	bool is_sweep;                   /* a mapping with at least one of method, parameters, program */
	bool launch;                     /* a `wandb launch-sweep` config: top-level job, image_uri or launch, or a
					    scheduler holding launch keys (its scheduler is not W&B's `engine` one) */

	enum sl_method method;
	const struct sl_node *method_node;     /* the value of `method:` (a launch sweep: the one launch-sweep
						  sends, often scheduler.settings.method) or NULL */
	bool method_implied;                   /* a launch sweep with a scheduler job and no method: W&B uses custom */
	const struct sl_node *metric;          /* the value of `metric:` */
	const struct sl_node *metric_name;     /* metric.name */
	const struct sl_node *metric_goal;     /* metric.goal */
	const struct sl_node *early_terminate;
	const struct sl_node *run_cap;
	bool has_run_cap;                      /* run_cap is an integer > 0 */
	int64_t run_cap_value;
	const struct sl_node *name;
	const struct sl_node *program;
	const struct sl_node *parameters;      /* the top-level `parameters:` value */

	const struct sl_node *command;         /* the value of `command:` or NULL */
	struct sl_cmd_item *cmd;               /* its items when it is a list */
	size_t ncmd;
	bool default_command;                  /* no command: W&B runs ${env} ${interpreter} ${program} ${args} */

	struct sl_param *params;               /* flattened, pre-order */
	size_t nparams;

	struct sl_sweep_problem *problems;     /* what W&B rejects, in document order (is_sweep only) */
	size_t nproblems;
};

/* The W&B view of doc. Never NULL; is_sweep is false for documents that are not sweeps. */
struct sl_sweep *sl_sweep_load(struct sl_arena *a, const struct sl_ydoc *doc);

/*
 * The pairs of a mapping as PyYAML constructs the dict: merge keys ("<<")
 * expanded, a repeated key in its first position with its last value.
 * Returns the count; *out is an arena array (NULL when empty).
 */
struct sl_pair;
size_t sl_sweep_map_items(struct sl_arena *a, const struct sl_node *map, struct sl_pair **out);

/* The parameter with this dotted path, or NULL. */
const struct sl_param *sl_sweep_param(const struct sl_sweep *s, const char *path);

/* "grid", "random", "bayes", "custom" ("none"). */
const char *sl_method_name(enum sl_method m);

/*
 * A count that never overflows: value is exact unless saturated (then it is
 * UINT64_MAX, "more than that"); infinite for continuous dimensions.
 */
struct sl_count {
	uint64_t value;
	bool saturated;
	bool infinite;
};

struct sl_count sl_count_mul(struct sl_count x, struct sl_count y);
/* x + y, saturating; infinite when either is. */
struct sl_count sl_count_add(struct sl_count x, struct sl_count y);
/* "12", "more than 18446744073709551615", "infinite" (in a). */
const char *sl_count_str(struct sl_arena *a, struct sl_count c);

/*
 * How many values W&B's grid search gives this leaf parameter: constant 1,
 * categorical len(values), int_uniform max-min+1 (inclusive), q_uniform
 * len(numpy.arange(min, max, q)) (max excluded); infinite for continuous
 * distributions; 0 for a dict parameter or one that does not resolve.
 */
struct sl_count sl_param_grid_count(const struct sl_param *p);

/* The product of sl_param_grid_count over every leaf (an empty product is 1). */
struct sl_count sl_sweep_grid_size(const struct sl_sweep *s);

/*
 * The i-th grid value of a leaf (0 <= i < count), in W&B's order. For
 * categorical/constant parameters *node is the value's node (a collection
 * for structured values) and *out its scalar typing; for int_uniform and
 * q_uniform *node is NULL and *out the computed number. Returns false when
 * i is out of range or the parameter has no grid values.
 */
bool sl_param_grid_value(const struct sl_param *p, uint64_t i, struct sl_value *out, const struct sl_node **node);

/*
 * Equality of two YAML values as Python compares what PyYAML loads,
 * except that booleans never equal numbers: ints and floats compare by
 * value (1 == 1.0, as W&B's grid also treats them), strings by text,
 * collections item by item (mappings as key sets).
 */
bool sl_node_equal(const struct sl_node *x, const struct sl_node *y);

#endif
