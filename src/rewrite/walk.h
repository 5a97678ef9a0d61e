/*
 * walk: the combinations of a box, in the evaluation's order (last axis
 * fastest), with each one's index into the evaluation's tables. Private to
 * src/rewrite/; its arrays live in the rewrite's arena.
 */
#ifndef SWEEPLINT_REWRITE_WALK_H
#define SWEEPLINT_REWRITE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/rewrite.h"

struct sl_walk {
	size_t n;          /* axes */
	uint32_t *idx;     /* the current combination: a value index per axis */
	uint32_t **vals;   /* per axis, the kept value indexes */
	uint32_t *cnt;     /* per axis, how many */
	uint32_t *pos;     /* per axis, the position in vals */
	uint64_t c;        /* the combination's index (sum of idx × stride) */
};

/* Start at the box's first combination; false when the box is empty. */
bool sl_walk_start(const struct sl_rewrite *rw, const struct sl_box *b, struct sl_walk *w);

/* Step to the next combination; false after the last one. */
bool sl_walk_next(const struct sl_rewrite *rw, struct sl_walk *w);

#endif
