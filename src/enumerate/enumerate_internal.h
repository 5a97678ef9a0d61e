/*
 * enumerate_internal: what the files of the enumerate stage share — eval.c
 * (axes, cells, counts, blame, fixes), provenance.c (where a setting comes
 * from, stated vs assumed), workload.c (the mode when no key states it),
 * walk.c. Results live in the run arena like everything in eval.h.
 */
#ifndef SWEEPLINT_ENUMERATE_INTERNAL_H
#define SWEEPLINT_ENUMERATE_INTERNAL_H

#include <stdint.h>

#include "sweeplint/memory.h"

/* provenance.c, for eval.c: the length a model bounds (its maximum when at most the default seq_len; else 0). */
struct sl_model;
struct sl_eval;
struct sl_arena;
uint32_t sl_eval_model_length(const struct sl_model *m);
/* workload.c: rules/workload.yaml compiled (NULL when it does not load: problems in diags). */
struct sl_workload;
struct sl_diags;
struct sl_workload *sl_workload_new(struct sl_arena *a, struct sl_diags *diags);
/* The mode ev's keys (notes) and command flags say, with why in words (w NULL: training). */
enum sl_mode sl_workload_infer(struct sl_arena *a, const struct sl_workload *w, const struct sl_eval *ev,
			       const char **why);
/* Fill ev->stated and ev->assumed once the counts are made. */
void sl_eval_count_assumed(struct sl_arena *a, struct sl_eval *ev);

#endif
