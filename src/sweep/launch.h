/*
 * launch: the W&B Launch view of a sweep file (`wandb launch-sweep CONFIG`),
 * shared by the model of a sweep (sweep.c: which method it runs) and its
 * validation (validate.c). Source: wandb/wandb@b6e29505 wandb/cli/cli.py
 * launch_sweep() and wandb/sdk/launch/sweeps/utils.py
 * construct_scheduler_args(). launch-sweep pops the top-level `launch` and
 * `scheduler` blocks (and `scheduler.settings`) before it sends the rest to
 * W&B's sweep validation, and takes `method` from scheduler.settings.method
 * (or 'custom' for a scheduler job). Nothing here allocates.
 */
#ifndef SWEEPLINT_SWEEP_LAUNCH_H
#define SWEEPLINT_SWEEP_LAUNCH_H

#include <stdbool.h>

#include "sweeplint/ydoc.h"

/*
 * Whether root is a launch sweep config: a top-level `job`, `image_uri` or
 * `launch`, or a `scheduler` mapping with no `engine` (the 2026 wandb/sweeps
 * scheduler) that holds a key launch-sweep reads (job, settings, resource,
 * resource_args, docker_image, num_workers, template_variables).
 */
bool sl_launch_is_config(const struct sl_node *root);

/*
 * The method launch-sweep sends (cli.py launch_sweep, "check method"): with a
 * scheduler job, the top-level method unless it is missing or 'custom'; else
 * scheduler.settings.method if set; else the top-level method. Returns the
 * node or NULL; *implied_custom is set when there is none and a scheduler
 * job makes W&B use 'custom'.
 */
const struct sl_node *sl_launch_method(const struct sl_node *root, bool *implied_custom);

#endif
