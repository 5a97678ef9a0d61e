/*
 * memory_rules: what the 2xx rules share — the file's evaluation, findings
 * placed on a value wherever it was written (sweep, -c config, command),
 * the counts and the computed fix in words. Internal to src/rules/; every
 * string lives in the run arena.
 */
#ifndef SWEEPLINT_RULES_MEMORY_RULES_H
#define SWEEPLINT_RULES_MEMORY_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/eval.h"
#include "sweeplint/rules.h"

/* The file's evaluation when the memory model ran over it (a model set somewhere), else NULL. */
const struct sl_eval *sl_memrule_eval(const struct sl_check *cx);

/*
 * Report at value v of axis ax: its node in the file it was written in, or
 * the sweep's root for a value that has no place (--set).
 */
struct sl_diag *sl_memrule_emit(struct sl_check *cx, const struct sl_eval_axis *ax, const struct sl_eval_value *v,
				const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* "in 24 of 40 combinations" for the combinations of v with verdict vd (several verdicts: a mask 1 << vd). */
const char *sl_memrule_counts(struct sl_arena *a, const struct sl_eval *ev, const struct sl_eval_value *v,
			      unsigned mask);

/* The last axis with role r (the one whose value a run gets), or NULL. */
const struct sl_eval_axis *sl_memrule_axis(const struct sl_eval *ev, enum sl_role r, size_t *index);

/*
 * The fix of one combination under `limit`, in words, starting with the
 * remedy of the blamed axis (batch: the largest batch that fits and the
 * accumulation that keeps the effective batch; lengths: the longest value
 * of the axis that fits; gradient checkpointing; ZeRO over more GPUs).
 */
const char *sl_memrule_fix(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx, size_t axis,
			   uint64_t limit);

/* For each value of axis ax, how many values share its node (computed range values share one); in a. */
size_t *sl_memrule_node_counts(struct sl_arena *a, const struct sl_eval_axis *ax);

/*
 * invalid-value (counts: true) and unknown-value (counts: false): one finding
 * per value of the sweep, a -c config or the command that the memory model
 * could not read, for the roles that are counts (batch sizes, lengths, ...)
 * or for the others (names). Returns 0.
 */
int sl_memrule_report_unreadable(struct sl_check *cx, bool counts);

/* Per value of one axis: the combinations that pass a limit, out of its known ones, and the worst. */
struct sl_memrule_tally {
	uint64_t *nbad, *nall;           /* per value of the axis */
	uint64_t *worst;                 /* the largest measure among its bad combinations */
	uint32_t **worst_combo;          /* that combination (NULL: none bad) */
};

/*
 * Walk every known combination, measure it (eval peak, host RAM, ...) and
 * tally, per value of axis `at`, those whose measure passes `limit`. `what`
 * names the measure: combinations it cannot tell apart are measured once
 * (sl_eval_walk) and counted as many times as they occur.
 */
void sl_memrule_tally(struct sl_arena *a, const struct sl_eval *ev, size_t at, uint64_t limit, enum sl_measure what,
		      uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m),
		      struct sl_memrule_tally *t);

/* The peak of one combination (0 when unknown). */
uint64_t sl_memrule_peak(const struct sl_eval *ev, const uint32_t *idx);

/* "8.0B", "568M": a parameter count for messages. */
const char *sl_memrule_params(struct sl_arena *a, uint64_t params);

/*
 * One finding per value that OOM (vd = SL_VERDICT_OOM, limit = capacity) or
 * near-capacity (SL_VERDICT_NEAR, limit = plan) combinations are blamed on,
 * or whose every known combination has that verdict while another value of
 * its axis does better: counts, the worst such combination, and its fix.
 */
void sl_memrule_report(struct sl_check *cx, const struct sl_eval *ev, enum sl_verdict vd);

/*
 * Record on d what the verdict of combination idx rests on (d->assumed):
 * the settings it takes from defaults, leaving out the needs in `given`
 * (SL_NEED_*: eval-oom's eval batch), unless its peak (measure; NULL: the
 * training step) passes `limit` even with them at their most favourable. An
 * error that rests on an assumption becomes a warning that names the
 * assumptions and how to state them: an error is a promise that the run fails.
 */
void sl_memrule_assumed(struct sl_check *cx, struct sl_diag *d, const struct sl_eval *ev, const uint32_t *idx,
			unsigned given, uint64_t limit,
			uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m));

#endif
