/*
 * memory/calib: the estimator's fitted and sourced constants, read from the
 * embedded rules/calibration.yaml with libcyaml. Each entry names a field
 * of struct sl_calib, its value in a stated unit, and where it comes from;
 * a missing, unknown, duplicated or out-of-range constant is a diagnostic.
 * The libcyaml tree is registered with the arena for teardown. The embedded
 * file is parsed and checked at build time (gen/gen_catalog.c):
 * sl_calib_load copies the constants from the snapshot.
 */
#include <cyaml/cyaml.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "snapshot.h"
#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/source.h"

struct entry {
	char *name;
	double value;
	char *unit;
	char *source;
	bool fitted;
};

struct file {
	struct entry *constants;
	unsigned constants_count;
};

static const cyaml_schema_field_t entry_fields[] = {
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct entry, name, 1, CYAML_UNLIMITED),
	CYAML_FIELD_FLOAT("value", CYAML_FLAG_DEFAULT, struct entry, value),
	CYAML_FIELD_STRING_PTR("unit", CYAML_FLAG_POINTER, struct entry, unit, 1, CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("source", CYAML_FLAG_POINTER, struct entry, source, 1, CYAML_UNLIMITED),
	CYAML_FIELD_BOOL("fitted", CYAML_FLAG_DEFAULT, struct entry, fitted),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t entry_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct entry, entry_fields),
};

static const cyaml_schema_field_t file_fields[] = {
	CYAML_FIELD_SEQUENCE("constants", CYAML_FLAG_POINTER, struct file, constants, &entry_schema, 1,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t file_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct file, file_fields),
};

enum kind { K_BYTES, K_DOUBLE };

/* The fields calibration.yaml must define, and the unit each is written in. */
static const struct field {
	const char *name;
	enum kind kind;
	size_t off;
	const char *unit;
	double lo, hi; /* sane range, in the written unit */
} fields[] = {
	{"cuda_context", K_BYTES, offsetof(struct sl_calib, cuda_context), "MiB", 0, 8192},
	{"cuda_context_legacy", K_BYTES, offsetof(struct sl_calib, cuda_context_legacy), "MiB", 0, 8192},
	{"slack_frac", K_DOUBLE, offsetof(struct sl_calib, slack_frac), "fraction", 0, 2},
	{"slack_min", K_BYTES, offsetof(struct sl_calib, slack_min), "MiB", 0, 8192},
	{"eager_attn_copies", K_DOUBLE, offsetof(struct sl_calib, eager_attn_copies), "tensors", 0, 16},
	{"sdpa_attn_bytes", K_DOUBLE, offsetof(struct sl_calib, sdpa_attn_bytes), "bytes", 0, 64},
	{"flash_bwd_bytes", K_DOUBLE, offsetof(struct sl_calib, flash_bwd_bytes), "bytes", 0, 256},
	{"zero_reuse_distance", K_DOUBLE, offsetof(struct sl_calib, zero_reuse_distance), "elements", 0, 1e15},
	{"zero_sub_group", K_DOUBLE, offsetof(struct sl_calib, zero_sub_group), "elements", 1, 1e15},
	{"zero_reduce_bucket", K_DOUBLE, offsetof(struct sl_calib, zero_reduce_bucket), "hidden^2", 0, 1e6},
	{"zero_prefetch_bucket", K_DOUBLE, offsetof(struct sl_calib, zero_prefetch_bucket), "hidden^2", 0, 1e6},
	{"nccl_buffer", K_BYTES, offsetof(struct sl_calib, nccl_buffer), "MiB", 0, 65536},
	{"host_base", K_BYTES, offsetof(struct sl_calib, host_base), "GiB", 0, 1024},
	{"host_per_worker", K_BYTES, offsetof(struct sl_calib, host_per_worker), "GiB", 0, 256},
	{"host_load_factor", K_DOUBLE, offsetof(struct sl_calib, host_load_factor), "factor", 0, 16},
	{"host_overhead_frac", K_DOUBLE, offsetof(struct sl_calib, host_overhead_frac), "fraction", 0, 2},
	{"host_offload_factor", K_DOUBLE, offsetof(struct sl_calib, host_offload_factor), "factor", 0, 16},
	{"gen_max_length", K_BYTES, offsetof(struct sl_calib, gen_max_length), "tokens", 1, 1048576},
	{"bnb_min_8bit_size", K_BYTES, offsetof(struct sl_calib, bnb_min_8bit_size), "elements", 0, 1e9},
	{"bnb_block", K_BYTES, offsetof(struct sl_calib, bnb_block), "elements", 1, 1e9},
	{"bnb_paged_min", K_BYTES, offsetof(struct sl_calib, bnb_paged_min), "elements", 0, 1e12},
	{"vllm_utilization", K_DOUBLE, offsetof(struct sl_calib, vllm_utilization), "fraction", 0.01, 1},
	{"vllm_batched_tokens", K_BYTES, offsetof(struct sl_calib, vllm_batched_tokens), "tokens", 1, 1048576},
	{"vllm_batched_tokens_large", K_BYTES, offsetof(struct sl_calib, vllm_batched_tokens_large), "tokens", 1,
	 1048576},
	{"vllm_max_seqs", K_BYTES, offsetof(struct sl_calib, vllm_max_seqs), "sequences", 1, 1048576},
	{"vllm_max_seqs_large", K_BYTES, offsetof(struct sl_calib, vllm_max_seqs_large), "sequences", 1, 1048576},
	{"vllm_large_gpu", K_BYTES, offsetof(struct sl_calib, vllm_large_gpu), "GiB", 1, 65536},
	{"vllm_block_size", K_BYTES, offsetof(struct sl_calib, vllm_block_size), "tokens", 1, 65536},
	{"vllm_non_torch", K_BYTES, offsetof(struct sl_calib, vllm_non_torch), "MiB", 0, 65536},
	{"vllm_sampler_bytes", K_DOUBLE, offsetof(struct sl_calib, vllm_sampler_bytes), "bytes", 0, 1024},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static void free_file(void *p)
{
	static const cyaml_config_t cfg = {
		.log_level = CYAML_LOG_ERROR, .mem_fn = cyaml_mem, .flags = CYAML_CFG_DEFAULT};
	cyaml_free(&cfg, &file_schema, p, 0);
}

/* The span of `needle` (a constant's name) in the source, or of line 1. */
static struct sl_span where(const struct sl_source *src, const char *name)
{
	if (name) {
		size_t n = strlen(name);
		for (const char *p = src->bytes; (p = strstr(p, name)) != NULL; p += n) {
			bool start = p == src->bytes || p[-1] == ' ' || p[-1] == '"';
			if (start && (p[n] == '\n' || p[n] == '"' || p[n] == ' ' || p[n] == '\r' || p[n] == '\0'))
				return sl_source_span(src, (size_t)(p - src->bytes), (size_t)(p - src->bytes) + n);
		}
	}
	size_t end = 0;
	while (end < src->len && src->bytes[end] != '\n')
		end++;
	return sl_source_span(src, 0, end);
}

static double unit_scale(const char *unit)
{
	if (strcmp(unit, "MiB") == 0)
		return 1024.0 * 1024.0;
	if (strcmp(unit, "GiB") == 0)
		return 1024.0 * 1024.0 * 1024.0;
	return 1.0;
}

int sl_calib_parse(struct sl_arena *a, const char *name, const char *bytes, size_t len, struct sl_calib *out,
		   struct sl_diags *diags)
{
	static const cyaml_config_t cfg = {
		.log_level = CYAML_LOG_ERROR, .mem_fn = cyaml_mem, .flags = CYAML_CFG_DEFAULT};
	struct sl_source *src = sl_source_from_bytes(a, name, bytes, len);
	struct file *f = NULL;
	memset(out, 0, sizeof *out);
	cyaml_err_t e = cyaml_load_data((const uint8_t *)bytes, len, &cfg, &file_schema, (cyaml_data_t **)&f, NULL);
	if (e != CYAML_OK) {
		sl_diags_add(diags, "schema", SL_SEV_ERROR, src, where(src, NULL), "calibration constants do not load: %s",
			     cyaml_strerror(e));
		return -SL_ECONFIG;
	}
	sl_arena_defer(a, free_file, f);

	int rc = 0;
	bool seen[NFIELDS] = {false};
	for (unsigned i = 0; i < f->constants_count; i++) {
		const struct entry *en = &f->constants[i];
		size_t k = 0;
		while (k < NFIELDS && strcmp(fields[k].name, en->name) != 0)
			k++;
		if (k == NFIELDS) {
			sl_diags_add(diags, "schema", SL_SEV_ERROR, src, where(src, en->name),
				     "unknown calibration constant '%s'", en->name);
			rc = -SL_ECONFIG;
			continue;
		}
		const struct field *fd = &fields[k];
		if (seen[k]) {
			sl_diags_add(diags, "schema", SL_SEV_ERROR, src, where(src, en->name),
				     "calibration constant '%s' is defined twice", en->name);
			rc = -SL_ECONFIG;
			continue;
		}
		seen[k] = true;
		if (strcmp(en->unit, fd->unit) != 0) {
			sl_diags_add(diags, "schema", SL_SEV_ERROR, src, where(src, en->name),
				     "calibration constant '%s' has unit '%s', expected '%s'", en->name, en->unit,
				     fd->unit);
			rc = -SL_ECONFIG;
			continue;
		}
		if (!(en->value >= fd->lo && en->value <= fd->hi)) {
			sl_diags_add(diags, "schema", SL_SEV_ERROR, src, where(src, en->name),
				     "calibration constant '%s' is %g %s, outside [%g, %g]", en->name, en->value,
				     en->unit, fd->lo, fd->hi);
			rc = -SL_ECONFIG;
			continue;
		}
		char *dst = (char *)out + fd->off;
		if (fd->kind == K_BYTES) {
			uint64_t v = (uint64_t)llround(en->value * unit_scale(en->unit));
			memcpy(dst, &v, sizeof v);
		} else {
			memcpy(dst, &en->value, sizeof en->value);
		}
	}
	for (size_t k = 0; k < NFIELDS; k++) {
		if (!seen[k]) {
			sl_diags_add(diags, "schema", SL_SEV_ERROR, src, where(src, NULL),
				     "calibration constant '%s' is missing", fields[k].name);
			rc = -SL_ECONFIG;
		}
	}
	return rc;
}

int sl_calib_parse_embedded(struct sl_arena *a, struct sl_calib *out, struct sl_diags *diags)
{
	const struct sl_blob *b = sl_data_get("calibration.yaml");
	if (!b) {
		memset(out, 0, sizeof *out);
		return -SL_ECONFIG;
	}
	return sl_calib_parse(a, "rules/calibration.yaml", b->bytes, b->len, out, diags);
}

/* The generator (gen/gen_catalog.c) links this file to parse; the snapshot is its output. */
#ifndef SL_SNAPSHOT_GENERATOR
/* The constants as the build checked them (snapshot.h); test_snapshot compares them with a parse. */
int sl_calib_load(struct sl_arena *a, struct sl_calib *out, struct sl_diags *diags)
{
	(void)a, (void)diags;
	*out = *sl_snapshot.calib;
	return 0;
}
#endif
