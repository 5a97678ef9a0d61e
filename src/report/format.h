/*
 * format: what a formatter implements, and the report state they share.
 * Internal to src/report/; the report and what it keeps live in the run arena.
 * What a formatter makes for one file goes in that file's arena (f->arena),
 * released with the file: a report's memory does not grow with the files.
 */
#ifndef SWEEPLINT_REPORT_FORMAT_H
#define SWEEPLINT_REPORT_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "sweeplint/report.h"

struct sl_formatter {
	/* a checked file arrives (the totals already count it) */
	void (*file)(struct sl_report *r, const struct sl_file *f);
	/* every file has arrived */
	void (*finish)(struct sl_report *r);
	/* finish reads the files themselves: the caller keeps each file alive until then */
	bool keeps_files;
};

/*
 * A JSON array written element by element (json.c, sarif.c): "[", each
 * element on its own line indented as jansson's JSON_INDENT(2) would, "]" (or
 * "[]" when empty), so a streamed document has the bytes of one json_dumpf.
 */
struct sl_jarray {
	bool open;                      /* what comes before the array is written */
	size_t n;                       /* elements written */
};

struct sl_report {
	struct sl_arena *arena;
	const struct sl_options *opt;
	FILE *out;
	const struct sl_formatter *fmt;
	struct sl_report_totals totals;
	const struct sl_file **files;   /* every file, in order (only for a format that keeps_files) */
	size_t nfiles, cap;
	const char *assumed_gpu;        /* an evaluated file was checked against the default GPU */
	/* json: the "files" array is streamed as files arrive (json.c) */
	struct sl_jarray json_files;
	/* sarif: results are streamed as files arrive (sarif.c) */
	bool sarif_open;                /* the log's head is written */
	size_t sarif_results;           /* results written so far */
	size_t sarif_indent;            /* the column of the "results" key */
	const char *sarif_tail;         /* the log after the results array */
	const char *sarif_cwd;          /* the working directory (artifact URIs are relative to it) */
	/* html: the files' sections, written as files arrive, copied after the summary (html.c) */
	FILE *html_body;                /* a tmpfile(), or a memory stream over html_buf */
	char *html_buf;
	size_t html_len;
	bool html_failed;               /* no place for the sections: the report fails */
	bool failed;                    /* a formatter could not write its output (sl_report_finish: -SL_EIO) */
};

/* Where a formatter allocates for file f: its arena, or the report's for a file made without one. */
static inline struct sl_arena *sl_report_file_arena(const struct sl_report *r, const struct sl_file *f)
{
	return f->arena ? f->arena : r->arena;
}

/*
 * "path:line:col" of a finding, or "path:cell N:line:col" in a notebook's code (the cell's number and
 * the line within it, as ruff and nbqa write them): what text, html and messages print (in a).
 */
const char *sl_report_where(struct sl_arena *a, const struct sl_source *src, struct sl_span span);

/* One per enum sl_format value. */
/* The end of a line-oriented report: the assumed-GPU note and the summary line (text and github). */
void sl_report_finish_lines(struct sl_report *r);

extern const struct sl_formatter sl_formatter_text;
extern const struct sl_formatter sl_formatter_json;
extern const struct sl_formatter sl_formatter_sarif;
extern const struct sl_formatter sl_formatter_github;
extern const struct sl_formatter sl_formatter_html;

/* A JSON string of s; bytes that are not UTF-8 become U+FFFD (json.c). Never NULL. */
struct json_t;
struct json_t *sl_report_jstr(struct sl_arena *a, const char *s);
/* v dumped with JSON_INDENT(2) and its keys in order, then released; free() the text. */
char *sl_report_jdump(struct json_t *v);
/* s[0..n) with indent blanks after each line break: a dump placed at column indent. */
void sl_report_jput(FILE *out, const char *s, size_t n, size_t indent);
/* Open the next element of an array whose closing bracket goes at column indent: returns the element's column. */
size_t sl_jarray_next(FILE *out, struct sl_jarray *arr, size_t indent);
/* Close it: "\n" and the bracket at column indent, or "[]" when no element was written. */
void sl_jarray_close(FILE *out, struct sl_jarray *arr, size_t indent);

#endif
