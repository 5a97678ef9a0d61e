/*
 * snapshot (private to the loaders of src/memory, src/sweep/roles.c and words.c,
 * src/enumerate/workload.c and frameworks.c, src/yaml/scalar.c): rules/models.yaml,
 * gpus.yaml, calibration.yaml, keys.yaml, words.yaml, workload.yaml and frameworks.yaml
 * (and the YAML resolver's patterns) as
 * gen_catalog loaded and checked them at build time with the loaders below,
 * emitted as static const data (the generated snapshot_data.c) with every
 * alias and key pattern compiled and serialised by pcre2_serialize_encode.
 * sl_catalog_load, sl_calib_load and sl_keymap_new start from it instead of
 * parsing YAML; the parsers stay for given sources, for tests and as the
 * fallback. The snapshot is read-only and owned by the binary: the catalog's
 * entries are its tables (const in struct sl_catalog), loaders copy what callers
 * may change (key rules) into the run arena, and the decoded patterns are the
 * arena's.
 */
#ifndef SWEEPLINT_MEMORY_GEN_SNAPSHOT_H
#define SWEEPLINT_MEMORY_GEN_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "../sweep/words_table.h"
#include "sweeplint/calib.h"
#include "sweeplint/models.h"
#include "sweeplint/roles.h"

struct sl_arena;
struct sl_diags;

struct sl_snapshot {
	const struct sl_model *models;     /* as sl_catalog_load_from returns them */
	size_t nmodels;
	const struct sl_model *archs;      /* the architecture table, likewise (no aliases) */
	size_t narchs;
	const struct sl_gpu *gpus;
	size_t ngpus;
	const struct sl_calib *calib;
	const struct sl_key_rule *keys;    /* as sl_keymap_parse returns them, code NULL */
	size_t nkeys;
	/* pcre2_serialize_encode of the alias patterns (the models' in order, then the GPUs') */
	const unsigned char *alias_codes;
	size_t alias_codes_len;
	/* pcre2_serialize_encode of the key patterns, in rule order */
	const unsigned char *key_codes;
	size_t key_codes_len;
	const struct sl_keywords *words;   /* rules/words.yaml as sl_keywords_parse reads it */
	/* rules/workload.yaml: pcre2_serialize_encode of its train, generate and eval patterns, in order */
	const unsigned char *workload_codes;
	size_t workload_codes_len;
	size_t workload_n[3];              /* patterns per list (SL_WORKLOAD_LISTS) */
	/* rules/frameworks.yaml: what recognises each framework (its defaults are read when one is) */
	const struct sl_framework_id *frameworks;
	size_t nframeworks;
	/* pcre2_serialize_encode of the YAML 1.1 resolver's patterns (src/yaml/scalar.c), in its order */
	const unsigned char *resolver_codes;
	size_t resolver_codes_len;
};

/* The snapshot of the embedded files (generated: snapshot_data.c). */
extern const struct sl_snapshot sl_snapshot;

/*
 * Decode n serialised patterns into codes[0..n) and register them with the
 * arena. False when the bytes do not hold exactly n patterns of this PCRE2
 * build (another PCRE2 version at run time): the caller compiles from text.
 */
bool sl_snapshot_decode(struct sl_arena *a, const unsigned char *bytes, size_t len, size_t n, void **codes);

/*
 * sl_catalog_load from a snapshot: entries copied into the arena, patterns
 * decoded (compiled from their text when they cannot be, parsed from the
 * embedded YAML when one does not compile either).
 */
int sl_catalog_from_snapshot(struct sl_arena *a, const struct sl_snapshot *s, struct sl_catalog **out,
			     struct sl_diags *diags);

/*
 * The compiled alias j of model i (gpu false) or GPU i (gpu true): a
 * pcre2_code *, NULL when none. For the generator and the tests.
 */
const void *sl_catalog_alias_code(const struct sl_catalog *c, bool gpu, size_t i, size_t j);

/* rules/calibration.yaml parsed from the embedded bytes (sl_calib_parse). */
int sl_calib_parse_embedded(struct sl_arena *a, struct sl_calib *out, struct sl_diags *diags);

/*
 * The key map parsed from keys.yaml bytes with libcyaml (name is shown in
 * diagnostics; rules keep the origin "rules/keys.yaml"). NULL and a
 * diagnostic when the file or a pattern is bad.
 */
struct sl_keymap *sl_keymap_parse(struct sl_arena *a, const char *name, const char *bytes, size_t len,
				  struct sl_diags *diags);

/* sl_keymap_new from a snapshot (the same fallbacks as sl_catalog_from_snapshot). */
struct sl_keymap *sl_keymap_from_snapshot(struct sl_arena *a, const struct sl_snapshot *s, struct sl_diags *diags);

/* The YAML 1.1 resolver's patterns, each compiled (src/yaml/scalar.c): codes[0..SL_RESOLVER_PATTERNS). */
#define SL_RESOLVER_PATTERNS 10
struct sl_scalar_resolver;
size_t sl_scalar_resolver_codes(const struct sl_scalar_resolver *r, const void **codes);

/* rules/workload.yaml (src/enumerate/workload.c): its lists parsed and compiled, and list k's codes. */
#define SL_WORKLOAD_LISTS 3
struct sl_source;
struct sl_workload;
struct sl_frameworks;
struct sl_workload *sl_workload_parse(struct sl_arena *a, struct sl_source *src, struct sl_diags *diags);
size_t sl_workload_codes(const struct sl_workload *w, int list, void *const **codes);

/* A framework of rules/frameworks.yaml as what recognises it (src/enumerate/frameworks.c). */
struct sl_framework_id {
	const char *name;
	const char *const *keys;     /* a key (the last dotted part) only its configs use */
	size_t nkeys;
	const char *const *commands; /* a command word that runs it */
	size_t ncommands;
};

/* rules/frameworks.yaml parsed (src kept: the defaults are its nodes); what recognises each framework. */
struct sl_frameworks *sl_frameworks_parse(struct sl_arena *a, struct sl_source *src, struct sl_diags *diags);
const struct sl_framework_id *sl_frameworks_ids(const struct sl_frameworks *fw, size_t *n);

#endif
