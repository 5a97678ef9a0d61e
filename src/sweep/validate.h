/*
 * validate: what W&B rejects in a sweep (validate.c), for sweep.c's loader.
 * Results live in the run arena like everything in sweep.h.
 */
#ifndef SWEEPLINT_SWEEP_VALIDATE_H
#define SWEEPLINT_SWEEP_VALIDATE_H

#include <stddef.h>

#include "sweeplint/arena.h"
#include "sweeplint/sweep.h"

/* Everything W&B rejects in s, in document order. */
size_t sl_sweep_validate(struct sl_arena *a, const struct sl_sweep *s, struct sl_sweep_problem **out);

#endif
