/*
 * invalid-value: a memory setting that no run can use — a batch size,
 * length, accumulation, rank, GPU count or ZeRO stage that is zero,
 * negative, fractional, NaN, infinite or not a number. In the sweep its
 * combinations are counted unknown (never fitting); in a trainer config or
 * the command it is ignored by the memory model. Either way the run fails.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

int sl_check_invalid_value(struct sl_check *cx)
{
	return sl_memrule_report_unreadable(cx, true);
}
