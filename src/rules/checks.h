/*
 * checks: the check function of every rule, for registry.c's table. Each
 * lives alone in src/rules/<slug with _>.c; checks own nothing: what they
 * report goes into the run arena through sl_check_emit().
 */
#ifndef SWEEPLINT_RULES_CHECKS_H
#define SWEEPLINT_RULES_CHECKS_H

#include "sweeplint/rules.h"

/* One declaration per rule with a check, in code order (pseudo-rules such as syntax have none). */
int sl_check_schema(struct sl_check *cx);
int sl_check_yaml11_string(struct sl_check *cx);
int sl_check_grid_distribution(struct sl_check *cx);
int sl_check_deprecated_distribution(struct sl_check *cx);
int sl_check_duplicate_value(struct sl_check *cx);
int sl_check_single_value_list(struct sl_check *cx);
int sl_check_value_is_list(struct sl_check *cx);
int sl_check_grid_size(struct sl_check *cx);
int sl_check_missing_run_cap(struct sl_check *cx);
int sl_check_not_a_sweep(struct sl_check *cx);

#endif
