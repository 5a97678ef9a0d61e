/*
 * roles_rl: the values of the preference and RL fine-tuning roles (roles_rl.c), for roles.c.
 */
#ifndef SL_SWEEP_ROLES_RL_H
#define SL_SWEEP_ROLES_RL_H

#include <stdbool.h>

#include "sweeplint/roles.h"
#include "sweeplint/scalar.h"

/*
 * out->u for role r from the value text t (typed tv, when it has a YAML type): 1 when r is one of
 * these roles and the value reads, -1 when it is one of them and does not, 0 when r is another role.
 */
int sl_role_rl_value(enum sl_role r, const char *t, const struct sl_value *tv, struct sl_role_value *out);

/* Folds v into s when v's role is one of these; false otherwise. */
bool sl_settings_apply_rl(struct sl_settings *s, const struct sl_role_value *v);

#endif
