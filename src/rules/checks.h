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
int sl_check_oom(struct sl_check *cx);
int sl_check_near_capacity(struct sl_check *cx);
int sl_check_underused(struct sl_check *cx);
int sl_check_unknown_model(struct sl_check *cx);
int sl_check_invalid_value(struct sl_check *cx);
int sl_check_unknown_value(struct sl_check *cx);
int sl_check_seq_len_exceeds_model(struct sl_check *cx);
int sl_check_bf16_unsupported(struct sl_check *cx);
int sl_check_prefer_bf16(struct sl_check *cx);
int sl_check_eval_oom(struct sl_check *cx);
int sl_check_eval_batch_ratio(struct sl_check *cx);
int sl_check_host_oom(struct sl_check *cx);
int sl_check_workers_over_cores(struct sl_check *cx);
int sl_check_zero3_init_peak(struct sl_check *cx);
int sl_check_paged_optimizer_spill(struct sl_check *cx);
int sl_check_gc_off_large_model(struct sl_check *cx);
int sl_check_grid_distribution(struct sl_check *cx);
int sl_check_deprecated_distribution(struct sl_check *cx);
int sl_check_duplicate_value(struct sl_check *cx);
int sl_check_single_value_list(struct sl_check *cx);
int sl_check_value_is_list(struct sl_check *cx);
int sl_check_grid_size(struct sl_check *cx);
int sl_check_missing_run_cap(struct sl_check *cx);
int sl_check_not_a_sweep(struct sl_check *cx);
int sl_check_sweep_unread(struct sl_check *cx);
int sl_check_too_many_combinations(struct sl_check *cx);

#endif
