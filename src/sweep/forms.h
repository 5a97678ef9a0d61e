/*
 * forms: the vocabulary of a W&B sweep parameter, shared by the model of a
 * sweep (sweep.c: which distribution a parameter resolves to) and its
 * validation (validate.c: why W&B rejects one). Distribution names
 * (sweep.h's sl_dist_*, defined in forms.c), the keys of a parameter
 * mapping, and wandb/sweeps' config/schema.json `parameter.anyOf` forms in
 * order, with the checks that say whether a mapping validates against one.
 * sweep.c and validate.c both read this; neither reads the other's
 * internals but through validate.h. Nothing here allocates.
 */
#ifndef SWEEPLINT_SWEEP_FORMS_H
#define SWEEPLINT_SWEEP_FORMS_H

#include <stdbool.h>
#include <stddef.h>

#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

enum sl_pkey {
	SL_PKEY_DISTRIBUTION,
	SL_PKEY_VALUE,
	SL_PKEY_VALUES,
	SL_PKEY_PROBABILITIES,
	SL_PKEY_MIN,
	SL_PKEY_MAX,
	SL_PKEY_Q,
	SL_PKEY_MU,
	SL_PKEY_SIGMA,
	SL_PKEY_A,
	SL_PKEY_B,
	SL_PKEY_PARAMETERS,
	SL_PKEY__COUNT
};

const char *sl_sweep_pkey_name(enum sl_pkey k);
/* SL_PKEY__COUNT when s is not a parameter key. */
enum sl_pkey sl_sweep_pkey_parse(const char *s);

/* ---- the schema's parameter forms ---- */


enum sl_ktype {
	SL_KT_ANY,
	SL_KT_NUMBER,       /* "type": "number" */
	SL_KT_INT_FMT,      /* "type": "integer", "format": "integer": a Python int */
	SL_KT_FLOAT_FMT,    /* "type": "number", "format": "float": a Python float */
	SL_KT_ARRAY1,       /* "type": "array", "minItems": 1 */
	SL_KT_PROBS,        /* array, minItems 1, items number >= 0 */
	SL_KT_PARAMS,       /* #/definitions/parameters */
};

enum sl_kcons {
	SL_KC_NONE,
	SL_KC_MIN0,         /* "minimum": 0 */
	SL_KC_EXCL0,        /* "exclusiveMinimum": 0 */
};

struct sl_keyspec {
	enum sl_pkey key;
	enum sl_ktype type;
	enum sl_kcons cons;
};

#define SL_PKEY_BIT(k) (1u << (k))

struct sl_form {
	enum sl_dist dist;     /* what it resolves to (NONE: param_dict) */
	const char *schema;    /* its name in schema.json */
	unsigned required;     /* SL_PKEY_BIT() bits, distribution included */
	bool has_dist;         /* "distribution" is an allowed key (enum [dist]) */
	struct sl_keyspec keys[4];
};

/* The forms in schema.json's order (fill_parameter takes the first that validates); the last is param_dict. */
extern const struct sl_form sl_sweep_forms[];
extern const size_t sl_sweep_nforms;

/* n is an int or float scalar (JSON Schema's "number"). */
bool sl_form_is_number(const struct sl_node *n);
/* Every key of an (effective) mapping, merged maps included: calls fn until it returns false (false then). */
bool sl_form_each_key(const struct sl_node *map, bool (*fn)(const struct sl_node *key, void *ctx), void *ctx,
		      int depth);
/* Key k is allowed in form f. */
bool sl_form_allows(const struct sl_form *f, enum sl_pkey k);
/* A parameter name matches the schema's ^[A-Za-z_][A-Za-z0-9_.-]*$ (a key that is no string escapes it). */
bool sl_form_name_ok(const struct sl_node *key);
/* Value v satisfies the key's type and constraint. */
bool sl_form_value_ok(const struct sl_node *v, const struct sl_keyspec *ks);
/* node validates against form f. */
bool sl_form_ok(const struct sl_form *f, const struct sl_node *node);

/*
 * The distribution of the first `parameter.anyOf` form that node validates
 * against (fill_parameter's order); SL_DIST_NONE when none does or when the
 * form is param_dict. *is_dict (may be NULL) is set when param_dict matches.
 */
enum sl_dist sl_sweep_form_match(const struct sl_node *node, bool *is_dict);

#endif
