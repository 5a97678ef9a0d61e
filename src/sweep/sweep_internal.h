/*
 * sweep_internal: what sweep.c and validate.c share — the keys of a
 * parameter mapping and the schema's parameter forms. Results live in the
 * run arena like everything in sweep.h.
 */
#ifndef SWEEPLINT_SWEEP_INTERNAL_H
#define SWEEPLINT_SWEEP_INTERNAL_H

#include "sweeplint/memory.h"
#include "sweeplint/sweep.h"

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

/*
 * The distribution of the first `parameter.anyOf` form that node validates
 * against (fill_parameter's order); SL_DIST_NONE when none does or when the
 * form is param_dict. *is_dict (may be NULL) is set when param_dict matches.
 */
enum sl_dist sl_sweep_form_match(const struct sl_node *node, bool *is_dict);

/* Everything W&B rejects in s, in document order. */
size_t sl_sweep_validate(struct sl_arena *a, const struct sl_sweep *s, struct sl_sweep_problem **out);

#endif
