/*
 * diag: findings about the user's files. A diagnostic always carries a span
 * into its source; its strings live in the run arena. Diagnostics are data,
 * never C errors: library functions return 0 or -SL_E* for operational
 * failure only (see sl_strerror).
 */
#ifndef SWEEPLINT_DIAG_H
#define SWEEPLINT_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#include "sweeplint/source.h"

struct sl_arena;

enum sl_severity {
	SL_SEV_OFF,     /* a rule turned off; never stored in a diagnostic */
	SL_SEV_INFO,
	SL_SEV_WARNING,
	SL_SEV_ERROR,
	SL_SEV__COUNT
};

/* "off", "info", "warning", "error". */
const char *sl_severity_name(enum sl_severity s);
/* Parse a severity name; returns -1 when unknown. */
int sl_severity_parse(const char *s);

/* Operational failures (not findings). Functions return 0 or -SL_E*. */
enum sl_err {
	SL_OK = 0,
	SL_ENOENT,   /* a file or catalog entry does not exist */
	SL_EIO,      /* reading or writing failed */
	SL_EPARSE,   /* input could not be parsed */
	SL_EUSAGE,   /* bad option or argument */
	SL_ECONFIG,  /* a configuration or catalog is invalid */
	SL_ELIMIT,   /* input past a safety bound */
	SL_EINTERNAL,
	SL_EOUTSIDE, /* a file outside the project root: not read (path.h) */
	SL_ERR__COUNT
};
const char *sl_strerror(int err); /* accepts err or -err */

struct sl_diag {
	const char *rule;            /* slug, e.g. "oom" */
	enum sl_severity severity;   /* never SL_SEV_OFF */
	const struct sl_source *src; /* the file it is about */
	struct sl_span span;         /* where */
	const char *message;         /* git style: lower case, no final period */
	const char *hint;            /* optional: the fix, or NULL */
	/*
	 * A memory verdict (oom, near-capacity, eval-oom): the role names of the
	 * settings it rests on that were assumed, not stated (eval.h
	 * sl_eval_assumed); an empty list when judged on stated settings. NULL
	 * for every other finding.
	 */
	const char **assumed;
	size_t nassumed;
};

/* A growable list of diagnostics in an arena. */
struct sl_diags {
	struct sl_arena *arena;
	struct sl_diag *v;
	size_t n, cap;
};

void sl_diags_init(struct sl_diags *d, struct sl_arena *a);

/* Append a diagnostic; returns it so a caller may set hint. */
struct sl_diag *sl_diags_add(struct sl_diags *d, const char *rule, enum sl_severity sev,
			     const struct sl_source *src, struct sl_span span, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
struct sl_diag *sl_diags_vadd(struct sl_diags *d, const char *rule, enum sl_severity sev,
			      const struct sl_source *src, struct sl_span span, const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

/*
 * s with every character a terminal must not receive raw escaped (sl_term_escape_at, utf8.h): C0
 * and DEL as \n, \r, \t or \xHH, C1 (U+0080..U+009F, which some terminals obey as ESC
 * sequences), bidi controls and U+2028/U+2029 as \u0080.., a byte of invalid UTF-8 as \xHH;
 * everything else as is. Any string read from input goes through this before reaching stderr or a
 * text report. s itself when it has nothing to escape.
 */
const char *sl_term_safe(struct sl_arena *a, const char *s);

/*
 * Sort by (path, line, col, rule) — stable and deterministic — and drop a finding that repeats the one
 * before it (the same file, span, rule, severity, message and hint: two layers of settings that hold the
 * same value at the same place say it once).
 */
void sl_diags_sort(struct sl_diags *d);

/* Count diagnostics at severity s. */
size_t sl_diags_count(const struct sl_diags *d, enum sl_severity s);

#endif
