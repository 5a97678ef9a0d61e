/*
 * enumerate_internal: what the files of the enumerate stage share — eval.c
 * (the driver), axes.c (keys -> axes), cells.c (the evaluation bound, the
 * product of the axes evaluated), combo.c (one combination), tally.c
 * (counts, blame), fix.c, names.c, provenance.c (where a setting comes from,
 * stated vs assumed), workload.c (the mode when no key states it), walk.c.
 * Results live in the run arena like everything in eval.h.
 */
#ifndef SWEEPLINT_ENUMERATE_INTERNAL_H
#define SWEEPLINT_ENUMERATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/memory.h"

/* provenance.c, for combo.c: the length a model bounds (its maximum when at most the default seq_len; else 0). */
struct sl_model;
struct sl_eval;
struct sl_arena;
uint32_t sl_eval_model_length(const struct sl_model *m);
/*
 * frameworks.c (sl_frameworks_new: include/sweeplint/eval.h): the defaults of each framework the sweep
 * shows (its configs' keys, parameters, command) as program settings lists (from_program, entries with
 * `how`); returns how many, *out an arena array.
 */
struct sl_frameworks;
struct sl_sweep;
struct sl_trainer;
size_t sl_frameworks_defaults(struct sl_arena *a, const struct sl_frameworks *fw, const struct sl_sweep *sw,
			      const struct sl_trainer *const *configs, size_t nconfigs, struct sl_trainer **out);
/* workload.c (sl_workload_new: include/sweeplint/eval.h) */
struct sl_workload;
/* The mode ev's keys (notes) and command flags say, with why in words (w NULL: training). */
enum sl_mode sl_workload_infer(struct sl_arena *a, const struct sl_workload *w, const struct sl_eval *ev,
			       const char **why);
/*
 * combo.c: sl_eval_settings, and whether the combination's adapter is assumed (a quantized base with
 * no PEFT method or rank stated: sl_settings_assume_adapter).
 */
struct sl_settings;
bool sl_eval_settings_adapter(const struct sl_eval *ev, const uint32_t *idx, struct sl_settings *s,
			      const struct sl_model **model, bool *adapter_assumed);
/* Fill ev->stated and ev->assumed once the counts are made. */
void sl_eval_count_assumed(struct sl_arena *a, struct sl_eval *ev);
/* Then ev->at_risk and ev->oom_sure (provenance.c). */
void sl_eval_count_at_risk(struct sl_arena *a, struct sl_eval *ev);

struct sl_eval_opts;
struct sl_scalar_resolver;
struct sl_key_rule;
/* The state of one sl_eval_run while its axes are built and evaluated (eval.c owns it, on its stack). */
struct sl_eval_builder {
	struct sl_arena *a;
	struct sl_eval *ev;
	const struct sl_eval_opts *o;
	struct sl_diags *diags;
	const struct sl_scalar_resolver *res;
	size_t cap_axes, cap_notes;
	unsigned ds_depth;
	size_t range_values; /* values the integer ranges added so far (MAX_RANGE_VALUES, axes.c) */
	const struct sl_key_rule **limited;  /* patterns that hit their match limit, reported once each */
	size_t nlimited, cap_limited;
	/* a custom module whose sizes are sweep parameters (axes.c plan_modules): the parameters its layer
	 * list is counted over per combination, as one model axis (their own axes are not made) */
	const char **mod_params;
	size_t nmod_params;
	size_t mod_axis;     /* 1 + the program's axis holding the layer list (0: none) */
	bool explicit_values;                /* filling --set values: a path they name is the command line's own,
	                                      * read wherever it is (path.h) */
};

/* axes.c: the axes of the sweep (configs, command, parameters, --set, shape); < 0 with *why on a bad --set. */
int sl_eval_build_axes(struct sl_eval_builder *B, const char **why);
/* axes.c: the axes whose setting holds under another axis's values: that axis and its values (after the
 * axes are final: their indices). */
void sl_eval_resolve_only(struct sl_eval_builder *B);
/* axes.c: a note on a key (role -1: none) — where it came from and what it did. */
void sl_eval_add_note(struct sl_eval_builder *B, const char *key, const char *where, int role, const char *detail);
/* combo.c: the cell of a combination (held axes count nothing). */
/* The peak of settings s of model m: measure's, or the training estimate's total when measure is NULL. */
uint64_t sl_eval_peak(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m,
		      uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s,
					  const struct sl_model *m));
uint64_t sl_eval_cell_index(const struct sl_eval *ev, const uint32_t *idx);
/* cells.c: the product of the axes' value counts, saturating at UINT64_MAX. */
uint64_t sl_eval_axes_product(const struct sl_eval *ev);
/* cells.c: the combinations this sweep's axes may make (SL_EVAL_MAX_WORK / axes, clamped). */
uint64_t sl_eval_bound(const struct sl_eval *ev);
/* cells.c: cut the largest numeric axes to their bounds until the product fits limit (else too_many). */
void sl_eval_limit_axes(struct sl_eval_builder *B, uint64_t limit);
/* cells.c: evaluate every cell, with per-value statistics and the plain counts. */
void sl_eval_enumerate(struct sl_eval_builder *B);
/* tally.c: weighted counts and blame over the cells. */
void sl_eval_tally(struct sl_eval_builder *B);

#endif
