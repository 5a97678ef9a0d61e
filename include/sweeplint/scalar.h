/*
 * scalar: typing of YAML scalars exactly as PyYAML's SafeLoader (YAML 1.1
 * resolver + SafeConstructor) does, because W&B reads sweeps with PyYAML.
 * Results are plain values; strings they point to belong to the caller.
 */
#ifndef SWEEPLINT_SCALAR_H
#define SWEEPLINT_SCALAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sl_vtype {
	SL_V_NULL,
	SL_V_BOOL,
	SL_V_INT,
	SL_V_FLOAT,
	SL_V_STR,
	SL_V_TIMESTAMP,
	SL_V_BINARY,
	SL_V__COUNT
};

struct sl_value {
	enum sl_vtype type;
	bool b;         /* SL_V_BOOL */
	int64_t i;      /* SL_V_INT when !big */
	bool big;       /* SL_V_INT past 64 bits: f is approximate; bigkey and big_exact compare it */
	bool big_exact; /* big: f is exactly the integer (at most 53 significant bits) */
	uint64_t bigkey; /* big: a 64-bit hash of its sign and 2048-bit magnitude (equal ints, equal keys) */
	double f;       /* SL_V_FLOAT; for SL_V_INT also the value as a double */
	bool looks_numeric; /* SL_V_STR that a person reads as a number (1e-5, 5E-3, 1,000) */
	bool merge;     /* a plain "<<": PyYAML's merge key, valid only as a mapping key (type SL_V_STR) */
};

struct sl_scalar_resolver;
struct sl_arena;

/* Compile the resolver's PCRE2 patterns (registered for teardown in a). */
struct sl_scalar_resolver *sl_scalar_resolver_new(struct sl_arena *a);

/*
 * Type a scalar. plain is true for a plain (unquoted) scalar; tag is the
 * explicit tag (full form "tag:yaml.org,2002:int") or NULL. An explicit tag
 * whose construction PyYAML would fail (!!int abc) types as SL_V_STR and
 * sets *tag_error when tag_error is not NULL; so does a plain scalar whose
 * implicit type PyYAML cannot construct (2024-02-30, 0b_, "=").
 */
struct sl_value sl_scalar_resolve(const struct sl_scalar_resolver *r, const char *text, size_t len,
				  bool plain, const char *tag, bool *tag_error);

/* "null", "bool", "int", "float", "str", "timestamp", "binary". */
const char *sl_vtype_name(enum sl_vtype t);

/*
 * For a string a person reads as a number, the spelling PyYAML reads as
 * that number ("1e-5" -> "1.0e-5"), written into out; returns false when
 * there is none.
 */
bool sl_scalar_numeric_spelling(const char *text, size_t len, char *out, size_t outsz);

#endif
