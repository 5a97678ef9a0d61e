/*
 * rewrite: sweeps that run. From an evaluation (eval.h) it works out which
 * values of the memory axes can go without losing a combination that fits
 * (prune), one sweep per value of a key (split --by), and a few sub-sweeps
 * that together hold exactly the combinations that fit (cover, split
 * --exact); then it turns each into byte edits of the original file (edit.h)
 * and checks the result by parsing and evaluating it again. A sub-sweep is a
 * box: a set of kept values per axis. Everything lives in the arena given
 * to sl_rewrite_init; the evaluation, sweep and source are borrowed.
 *
 * "Feasible" is FIT or NEAR (the run fits the GPU); an UNKNOWN combination
 * (an unknown model, an unreadable value) is never removed, since nothing
 * proves it runs out of memory.
 */
#ifndef SWEEPLINT_REWRITE_H
#define SWEEPLINT_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/eval.h"

struct sl_arena;
struct sl_buf;
struct sl_edit;
struct sl_edits;
struct sl_scalar_resolver;

/* How an axis can be edited. */
enum sl_rw_kind {
	SL_RW_FIXED,   /* not edited: not a sweep parameter, one value, or a layout it cannot narrow (see why) */
	SL_RW_LIST,    /* `values:` — items are removed */
	SL_RW_RANGE,   /* int_uniform / q_uniform expanded value by value — min/max move inwards */
	SL_RW_BOUNDS,  /* a range evaluated at its bounds — max is lowered to what fits */
	SL_RW__COUNT
};

/* What a combination is, for rewriting. */
enum sl_rw_class {
	SL_RW_FEASIBLE, /* fits (FIT or NEAR) */
	SL_RW_OOM,
	SL_RW_UNKNOWN,
	SL_RW_CLASS__COUNT
};

struct sl_rw_axis {
	const struct sl_eval_axis *ax;   /* ev->axes[i] */
	enum sl_rw_kind kind;
	const char *why;                 /* SL_RW_FIXED with several values: why it is left alone */
	bool *pinned;                    /* SL_RW_LIST: items that must stay (anchored items), or NULL */
	bool is_int;                     /* SL_RW_RANGE / SL_RW_BOUNDS: the bounds are written as integers */
};

/*
 * A sub-sweep. keep[i][j]: value j of axis i is in it. For a bounds axis
 * whose upper bound was lowered, max[i] is the new bound (a role value) and
 * vd is the box's own classification table (the lowered bound re-estimated),
 * else vd is the evaluation's.
 */
struct sl_box {
	bool **keep;
	uint64_t *max;                   /* 0: as written */
	uint8_t *vd;                     /* enum sl_rw_class per combination (ev's combination index) */
	uint64_t n[SL_RW_CLASS__COUNT];  /* memory-relevant combinations in the box, by class */
	/* split --by over a parameter that is not a memory axis: the one item kept */
	const struct sl_param *by_param;
	size_t by_item;
	const char *value;               /* the --by value's text, or NULL */
	unsigned part, nparts;           /* --exact: 1-based part of the --by value's cover (0: none) */
	/*
	 * split --by: 1 + the axis whose keep array is a read-only view shared by every --by box (a
	 * one-hot window: only view_value kept), so a list of n values costs n flags, not n per box;
	 * copied before it is changed (sl_box_keep_mut). 0: every keep array is the box's own.
	 */
	size_t view_axis, view_value;
};

struct sl_rewrite {
	struct sl_arena *arena;
	const struct sl_eval *ev;
	const struct sl_sweep *sweep;
	const struct sl_scalar_resolver *res;
	struct sl_rw_axis *axes;         /* parallel to ev->axes */
	size_t naxes;
	uint64_t ncombos;                /* memory-relevant combinations (product of the axes) */
	uint8_t *vd;                     /* enum sl_rw_class per combination */
	uint64_t budget;                 /* work bound of the cover search (combinations visited) */
	size_t max_parts;                /* sl_rewrite_cover stops past this many boxes (0: no bound) */
};

/*
 * Prepare ev (run with a GPU and catalog, so that every combination has a
 * verdict) for rewriting. -SL_ELIMIT with *why when the evaluation cut axes
 * to their bounds (too many combinations to rewrite value by value) or has
 * no verdicts.
 */
int sl_rewrite_init(struct sl_rewrite *rw, struct sl_arena *a, const struct sl_eval *ev,
		    const struct sl_scalar_resolver *res, const char **why);

/* The whole sweep as a box (counts filled in). */
struct sl_box *sl_box_whole(const struct sl_rewrite *rw);

/* A copy of b (its own keep arrays, a view copied too). */
struct sl_box *sl_box_copy(const struct sl_rewrite *rw, const struct sl_box *b);

/* Recount b->n over the box. */
void sl_box_count(const struct sl_rewrite *rw, struct sl_box *b);

/*
 * The box's combinations that fit in the sweep as written (rw->vd, not the box's own table): with a
 * lowered bound, the combinations at the new bound are new ones and are not counted, so split's
 * check that no fitting combination is lost compares like with like.
 */
/*
 * After a rewrite's edits (e): every alias of a node the edits remove, where the alias itself stays,
 * gets the node's text instead (src/rewrite/aliases.c), so the result parses and reads the same values.
 * -SL_EUSAGE with *why when that text cannot stand there (a block collection, several lines).
 */
struct sl_edits;
struct sl_ydoc;
int sl_rewrite_inline_aliases(struct sl_edits *e, const struct sl_ydoc *doc, const char **why);

uint64_t sl_box_fitting_in_sweep(const struct sl_rewrite *rw, const struct sl_box *b);

/*
 * Drop from b every value of an editable axis that fits in no combination of
 * the box (OOM in all of them), and lower the upper bound of a bounds axis to
 * the largest value that fits in some combination; never a value an
 * UNKNOWN combination needs, never the last value of an axis. A box in which
 * nothing fits is left as it is (b->n[SL_RW_FEASIBLE] + n[SL_RW_UNKNOWN] ==
 * 0 tells). Returns the number of values dropped or bounds lowered. One
 * call reaches the fixed point: dropping a value removes only combinations
 * that ran out of memory, so no other value loses one that fits.
 */
size_t sl_rewrite_prune(const struct sl_rewrite *rw, struct sl_box *b);

/*
 * The axis of ev a --by KEY names: a sweep parameter's dotted path, else a
 * role name ("model"); SIZE_MAX when none. *param is the sweep parameter
 * (also when it is not a memory axis; then the result is SIZE_MAX).
 */
size_t sl_rewrite_find_key(const struct sl_rewrite *rw, const char *key, const struct sl_param **param);

/*
 * One box per value of the parameter p (axis `axis`, or SIZE_MAX when p is
 * not a memory axis), each pruned for that value. Boxes in which nothing fits
 * are left out (*nskipped counts them). -SL_EUSAGE with *why when p has no
 * `values:` list to split.
 */
int sl_rewrite_split_by(const struct sl_rewrite *rw, const struct sl_box *whole, const struct sl_param *p,
			size_t axis, struct sl_box ***out, size_t *n, size_t *nskipped, const char **why);

/*
 * Cover the feasible and unknown combinations of b with disjoint boxes
 * without an OOM combination, few of them (cover.c: group an axis's values
 * by their feasibility over the other axes, recurse per group; memory being
 * monotone makes the feasible set a staircase). -SL_ELIMIT with *why when
 * out-of-memory combinations depend on an axis it cannot narrow.
 *
 * Past rw->max_parts boxes (when not 0) the search stops: -SL_EUSAGE, *why NULL
 * (split's --max-files bound; the caller says so).
 */
int sl_rewrite_cover(const struct sl_rewrite *rw, const struct sl_box *b, struct sl_box ***out, size_t *n,
		     const char **why);

/* The edits that narrow the sweep to b. -SL_E* with *why when an edit is refused. */
int sl_rewrite_edits(const struct sl_rewrite *rw, const struct sl_box *b, struct sl_edits *e, const char **why);

/* A value's text as written (for messages and file names). */
const char *sl_rewrite_value_text(const struct sl_rewrite *rw, size_t axis, size_t value);

/*
 * A unified diff (as `diff -u` with `context` lines) from src to the text the
 * splices v[0..n) make of it (sorted and disjoint, as sl_edits_list gives
 * them), appended to out; nothing when n == 0. Hunks are built from the
 * splices themselves: the lines a splice touches are shown removed and
 * their new text added.
 */
void sl_rewrite_diff(struct sl_buf *out, const struct sl_source *src, const struct sl_edit *v, size_t n,
		     const char *old_label, const char *new_label, unsigned context);

/* The classification of a verdict. */
enum sl_rw_class sl_rw_class_of(enum sl_verdict v);

#endif
