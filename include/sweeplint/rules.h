/*
 * rules: the rule registry and what a check sees. Rule metadata people read
 * (code, summary, help) lives in rules/rules.yaml; this table holds what the
 * compiler must know (slug, default severity, check function), joined by
 * slug. Each rule is one file src/rules/<slug with _>.c exporting exactly
 * one function, sl_check_<slug>(). Checks report only through
 * sl_check_emit*(); they return 0, or -SL_E* for operational failure.
 */
#ifndef SWEEPLINT_RULES_H
#define SWEEPLINT_RULES_H

#include <stddef.h>

#include "sweeplint/diag.h"

struct sl_arena;
struct sl_node;
struct sl_ydoc;
struct sl_sweep;
struct sl_catalog;
struct sl_run;
struct sl_file;
struct sl_check;

struct sl_rule {
	const char *slug;               /* "oom": joins rules.yaml, flags, suppressions */
	const char *code;               /* stable printed code, "SL201" */
	enum sl_severity severity;      /* default severity */
	int (*check)(struct sl_check *cx); /* NULL for pseudo-rules reported elsewhere (syntax) */
};

/* The one table, in code order. */
extern const struct sl_rule sl_rules[];
extern const size_t sl_nrules;

/* The rule with this slug (or code), or NULL. */
const struct sl_rule *sl_rule_find(const char *slug_or_code);

/*
 * Everything a check may see. Pointers are read-only for checks except
 * diags (through sl_check_emit). Fields a phase has not computed yet are
 * NULL.
 */
struct sl_check {
	struct sl_arena *arena;
	const struct sl_run *run;        /* options, catalogs */
	struct sl_file *file;            /* the file being checked (source, doc, sweep, evaluation) */
	const struct sl_source *src;
	const struct sl_ydoc *doc;
	const struct sl_sweep *sweep;    /* NULL when the file is not a sweep */
	const struct sl_rule *rule;      /* the running rule */
	enum sl_severity severity;       /* its effective severity (never OFF while running) */
	struct sl_diags *diags;
};

/* Report a finding of the running rule at node `at` (its whole span). */
struct sl_diag *sl_check_emit(struct sl_check *cx, const struct sl_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same at an explicit span. */
struct sl_diag *sl_check_emit_span(struct sl_check *cx, struct sl_span span, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What people read about a rule (rules/rules.yaml), joined to the table by slug. */
struct sl_rule_doc {
	const struct sl_rule *rule;     /* the table row */
	const char *slug, *code;
	enum sl_severity severity;
	const char *summary;            /* one line */
	const char *help;               /* a paragraph */
};

/*
 * Load the embedded rules/rules.yaml with libcyaml and check that it agrees
 * with the table (the same slugs with the same codes and severities, unique
 * codes, the table in code order). *out receives sl_nrules entries in table order. A mismatch
 * is a diagnostic in diags at the entry's span and returns -SL_ECONFIG.
 */
int sl_rules_doc_load(struct sl_arena *a, const struct sl_rule_doc **out, struct sl_diags *diags);
/* The same over given bytes (name is shown in diagnostics); for tests. */
int sl_rules_doc_parse(struct sl_arena *a, const char *name, const char *bytes, size_t len,
		       const struct sl_rule_doc **out, struct sl_diags *diags);

#endif
