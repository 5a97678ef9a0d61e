/*
 * html: the parts of the self-contained HTML report (`sweeplint report`,
 * -f html), internal to src/report/. html.c writes the document (inline CSS,
 * the findings, the assumptions); html_heatmap.c the batch × length heatmap
 * of each model; html_breakdown.c the stacked breakdown of each value's worst
 * combination. Everything that comes from input (paths, keys, values,
 * messages, model names) goes through sl_html_text(). No script is written.
 */
#ifndef SWEEPLINT_REPORT_HTML_H
#define SWEEPLINT_REPORT_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "format.h"

struct sl_file;
struct sl_eval;

/* s with &, <, >, " and ' as character references and control characters as U+FFFD. */
void sl_html_text(FILE *out, const char *s);
/* printf, then sl_html_text of the result. */
void sl_html_textf(FILE *out, struct sl_arena *a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "93.4" (GiB, one decimal) */
const char *sl_html_gib(struct sl_arena *a, uint64_t bytes);

/* <h3> and one heatmap per model of f (f->eval set). */
void sl_html_heatmaps(struct sl_report *r, const struct sl_file *f);
/* <h3> and the stacked breakdown of each value's worst combination (f->eval set). */
void sl_html_breakdowns(struct sl_report *r, const struct sl_file *f);

#endif
