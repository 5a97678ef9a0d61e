/*
 * unknown-value: a memory-relevant value sweeplint cannot read (an optimizer,
 * precision, attention or quantization name it does not know). In the sweep
 * its combinations are counted unknown; in a trainer config or the command
 * the memory model keeps its default for that setting and says so.
 */
#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/arena.h"

int sl_check_unknown_value(struct sl_check *cx)
{
	return sl_memrule_report_unreadable(cx, false);
}
