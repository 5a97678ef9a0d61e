/*
 * construct: PyYAML's SafeConstructor over a composed document, for its errors only
 * (src/yaml/construct.c): which nodes safe_load builds, in its order, and the first error it raises.
 */
#ifndef SWEEPLINT_YAML_CONSTRUCT_H
#define SWEEPLINT_YAML_CONSTRUCT_H

#include <stdbool.h>
#include <stddef.h>

#include "sweeplint/scalar.h"
#include "sweeplint/ydoc.h"

struct sl_arena;

/* True when PyYAML builds root without error; else *off (a byte offset) and *msg say where and why. */
bool sl_yaml_construct(struct sl_arena *a, const struct sl_scalar_resolver *res, const struct sl_node *root,
		       size_t *off, const char **msg);

/* A key flatten_mapping merges: resolved to tag:yaml.org,2002:merge (`<<`, `!!merge x`). */
bool sl_yaml_merge_key(const struct sl_node *k);

/* A key resolved to tag:yaml.org,2002:value (`=`, `! '='`, `!!value x`): a string where flattened. */
bool sl_yaml_value_key(const struct sl_node *k);

#endif
