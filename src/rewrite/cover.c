/*
 * rewrite/cover: split --exact. The combinations of a box that fit (or are
 * unknown) are covered by disjoint boxes that hold no out-of-memory
 * combination. A box is pruned; if out-of-memory combinations remain, one
 * axis is split: its values are grouped by their signature (which
 * combinations of the other axes fit with them) and each group becomes a
 * box, covered in turn. Values in one group fit with exactly the same
 * combinations, so after pruning the group's box the other axes hold only
 * what fits with all of them. Memory grows with batch size and length, so
 * the feasible set is a staircase and grouping one of them by signature
 * gives one box per step, the fewest disjoint boxes that cover it. The axis
 * to split is the one whose split, finished greedily (fewest groups first),
 * gives the fewest boxes.
 */
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/rewrite.h"
#include "walk.h"

struct cover {
	const struct sl_rewrite *rw;
	uint64_t work;               /* combinations visited by signatures, against rw->budget */
	struct sl_box **out;
	size_t n, cap;
	const char *why;             /* set when a box keeps an OOM combination no edit can remove */
	bool over;                   /* more than rw->max_parts boxes: the search stopped */
};

static bool splittable(const struct sl_rewrite *rw, size_t i)
{
	return rw->axes[i].kind == SL_RW_LIST || rw->axes[i].kind == SL_RW_RANGE;
}

/*
 * Group the kept values of axis a in box b by signature; gid[j] is value j's
 * group (or -1 when not kept). Values of a range group only with their
 * neighbours (a range splits into ranges). Returns the number of groups.
 */
static size_t group_axis(struct cover *C, const struct sl_box *b, size_t a, int *gid)
{
	const struct sl_rewrite *rw = C->rw;
	struct sl_arena *ar = rw->arena;
	size_t m = rw->axes[a].ax->n;
	struct sl_walk w;
	if (!sl_walk_start(rw, b, &w))
		return 0;
	size_t k = w.cnt[a];
	uint64_t M = 1;
	for (size_t i = 0; i < rw->naxes; i++)
		if (i != a)
			M *= w.cnt[i];
	C->work += k * M;
	uint8_t *sig = sl_arena_array(ar, k * M, 1);
	do {
		uint64_t o = 0;
		for (size_t i = 0; i < rw->naxes; i++)
			if (i != a)
				o = o * w.cnt[i] + w.pos[i];
		sig[w.pos[a] * M + o] = b->vd[w.c] != SL_RW_OOM;
	} while (sl_walk_next(rw, &w));

	for (size_t j = 0; j < m; j++)
		gid[j] = -1;
	size_t ngroups = 0;
	size_t *rep = sl_arena_array(ar, k, sizeof *rep); /* a position per group */
	for (size_t p = 0; p < k; p++) {
		size_t g = ngroups;
		if (rw->axes[a].kind == SL_RW_RANGE) {
			if (p > 0 && memcmp(sig + p * M, sig + (p - 1) * M, M) == 0)
				g = ngroups - 1;
		} else {
			for (size_t q = 0; q < ngroups; q++)
				if (memcmp(sig + p * M, sig + rep[q] * M, M) == 0) {
					g = q;
					break;
				}
		}
		if (g == ngroups)
			rep[ngroups++] = p;
		gid[w.vals[a][p]] = (int)g;
	}
	return ngroups;
}

static struct sl_box *group_box(const struct sl_rewrite *rw, const struct sl_box *b, size_t a, const int *gid, int g)
{
	struct sl_box *s = sl_box_copy(rw, b);
	for (size_t j = 0; j < rw->axes[a].ax->n; j++)
		s->keep[a][j] = gid[j] == g;
	return s;
}

/* The splittable axis with the fewest groups (more than one), or SIZE_MAX. */
static size_t fewest_groups(struct cover *C, const struct sl_box *b, int **gids, size_t *ng)
{
	const struct sl_rewrite *rw = C->rw;
	size_t best = SIZE_MAX;
	for (size_t a = 0; a < rw->naxes; a++) {
		if (!splittable(rw, a))
			continue;
		size_t g = group_axis(C, b, a, gids[a]);
		ng[a] = g;
		if (g > 1 && (best == SIZE_MAX || g < ng[best]))
			best = a;
	}
	return best;
}

static int **gid_arrays(const struct sl_rewrite *rw)
{
	int **g = sl_arena_array(rw->arena, rw->naxes ? rw->naxes : 1, sizeof *g);
	for (size_t a = 0; a < rw->naxes; a++)
		g[a] = sl_arena_array(rw->arena, rw->axes[a].ax->n, sizeof **g);
	return g;
}

/* Boxes the greedy strategy makes for b (b is pruned first; an unsplittable box counts 1). */
static size_t greedy_count(struct cover *C, const struct sl_box *b0)
{
	const struct sl_rewrite *rw = C->rw;
	struct sl_box *b = sl_box_copy(rw, b0);
	sl_rewrite_prune(rw, b);
	if (b->n[SL_RW_FEASIBLE] + b->n[SL_RW_UNKNOWN] == 0)
		return 0;
	if (b->n[SL_RW_OOM] == 0)
		return 1;
	int **gids = gid_arrays(rw);
	size_t *ng = sl_arena_array(rw->arena, rw->naxes ? rw->naxes : 1, sizeof *ng);
	size_t a = fewest_groups(C, b, gids, ng);
	if (a == SIZE_MAX)
		return 1;
	size_t total = 0;
	for (size_t g = 0; g < ng[a]; g++)
		total += greedy_count(C, group_box(rw, b, a, gids[a], (int)g));
	return total;
}

static void emit(struct cover *C, struct sl_box *b)
{
	if (C->rw->max_parts && C->n >= C->rw->max_parts) {
		C->over = true; /* split's --max-files: stop rather than plan thousands of files */
		return;
	}
	if (C->n == C->cap) {
		size_t cap = C->cap ? C->cap * 2 : 8;
		C->out = sl_arena_grow(C->rw->arena, C->out, C->n, cap, sizeof *C->out);
		C->cap = cap;
	}
	C->out[C->n++] = b;
}

/* Name an axis that decides out-of-memory combinations but cannot be split. */
static const char *stuck_reason(struct cover *C, const struct sl_box *b)
{
	const struct sl_rewrite *rw = C->rw;
	struct sl_walk w;
	for (size_t a = 0; a < rw->naxes; a++) {
		const struct sl_rw_axis *x = &rw->axes[a];
		if (splittable(rw, a) || x->ax->n < 2 || !sl_walk_start(rw, b, &w) || w.cnt[a] < 2)
			continue;
		if (x->kind == SL_RW_BOUNDS)
			return sl_arena_printf(rw->arena, "out-of-memory combinations depend on where in its range '%s' "
							  "lies, and a continuous range is not split",
					       x->ax->key);
		return sl_arena_printf(rw->arena, "out-of-memory combinations depend on '%s', which is not narrowed: %s",
				       x->ax->key, x->why ? x->why : "it is not a sweep list");
	}
	return "out-of-memory combinations remain that no edit of the sweep removes";
}

static void build(struct cover *C, const struct sl_box *b0)
{
	const struct sl_rewrite *rw = C->rw;
	if (C->over)
		return;
	struct sl_box *b = sl_box_copy(rw, b0);
	sl_rewrite_prune(rw, b);
	if (b->n[SL_RW_FEASIBLE] + b->n[SL_RW_UNKNOWN] == 0)
		return;
	if (b->n[SL_RW_OOM] == 0) {
		emit(C, b);
		return;
	}
	int **gids = gid_arrays(rw);
	size_t *ng = sl_arena_array(rw->arena, rw->naxes ? rw->naxes : 1, sizeof *ng);
	size_t best = fewest_groups(C, b, gids, ng);
	if (best == SIZE_MAX) {
		if (!C->why)
			C->why = stuck_reason(C, b);
		emit(C, b);
		return;
	}
	/* look one split ahead: the axis whose groups, finished greedily, give the fewest boxes */
	size_t best_cost = SIZE_MAX;
	for (size_t a = 0; a < rw->naxes && C->work < rw->budget; a++) {
		if (!splittable(rw, a) || ng[a] < 2)
			continue;
		size_t cost = 0;
		for (size_t g = 0; g < ng[a] && C->work < rw->budget; g++)
			cost += greedy_count(C, group_box(rw, b, a, gids[a], (int)g));
		if (C->work >= rw->budget)
			break;
		if (cost < best_cost || (cost == best_cost && ng[a] < ng[best])) {
			best_cost = cost;
			best = a;
		}
	}
	for (size_t g = 0; g < ng[best]; g++)
		build(C, group_box(rw, b, best, gids[best], (int)g));
}

int sl_rewrite_cover(const struct sl_rewrite *rw, const struct sl_box *b, struct sl_box ***out, size_t *n,
		     const char **why)
{
	struct cover C = {.rw = rw};
	build(&C, b);
	*out = C.out;
	*n = C.n;
	if (C.over) {
		*why = NULL;
		return -SL_EUSAGE;
	}
	if (C.why) {
		*why = C.why;
		return -SL_ELIMIT;
	}
	return 0;
}
