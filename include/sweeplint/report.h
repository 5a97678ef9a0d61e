/*
 * report: formatters that write checked files to a FILE * sink (stdout in
 * the CLI, an fmemopen/open_memstream buffer in tests). A report lives in
 * the run arena; it keeps what the formats need until sl_report_finish().
 */
#ifndef SWEEPLINT_REPORT_H
#define SWEEPLINT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sweeplint/diag.h"
#include "sweeplint/run.h"

struct sl_arena;
struct sl_report;

/* "text", "json". */
const char *sl_format_name(enum sl_format f);
/* The format named s, or -1. */
int sl_format_parse(const char *s);

/* What a report counted so far (for exit codes and summaries). */
struct sl_report_totals {
	size_t files;
	size_t by_severity[SL_SEV__COUNT];
	struct sl_combinations combos;
};

/* A report in format opt->format (colour, verbosity and quiet from opt) writing to out. */
struct sl_report *sl_report_new(struct sl_arena *a, const struct sl_options *opt, FILE *out);

/* Add a checked file: every format writes what it needs of it now (json, sarif, html stream their document). */
void sl_report_file(struct sl_report *r, const struct sl_file *f);

/*
 * Whether the format reads the files again at sl_report_finish(): then each
 * file (and its arena) must stay alive until then. When false, a file may be
 * released as soon as sl_report_file() returns.
 */
bool sl_report_keeps_files(const struct sl_report *r);

/* Write what remains (the summary, the JSON document). Returns 0, or -SL_EIO when out failed. */
int sl_report_finish(struct sl_report *r);

const struct sl_report_totals *sl_report_totals(const struct sl_report *r);

/* The text summary line, without a line break: "2 errors, 1 warning, 0 info in 1 file (...)". */
const char *sl_report_summary(struct sl_arena *a, const struct sl_report_totals *t);

#endif
