/*
 * server: what the parts of the language server share — the open documents,
 * the negotiated position encoding, the output — and the helpers that turn
 * a document's byte ranges into protocol JSON. server.c runs the lifecycle
 * and dispatch; document.c keeps the texts in sync; diagnostics.c lints and
 * publishes.
 */
#ifndef SWEEPLINT_LSP_SERVER_H
#define SWEEPLINT_LSP_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "position.h"
#include "sweeplint/lsp.h"
#include "sweeplint/source.h"

struct sl_lsp_lint;
struct sl_rpc_reader;

/* One open document. Its text is malloc'd and NUL-terminated; its last lint owns one run. */
struct sl_lsp_doc {
	char *uri;
	char *path;                  /* the local file it is, or NULL (an untitled: or other URI) */
	char *text;
	size_t len;
	int64_t version;
	struct sl_lsp_lines lines;   /* over text */
	bool dirty;                  /* changed since its last lint */
	bool unpublished;            /* its last lint's diagnostics were not published (a request linted it) */
	size_t dropped_len;          /* > 0: a text past SL_LSP_MAX_DOC_BYTES, not kept (text is empty) */
	struct sl_lsp_lint *lint;    /* the last lint (of lint_version), or NULL */
	int64_t lint_version;
	struct sl_lsp_doc *next;
};

enum sl_lsp_state {
	SL_LSP_UNINITIALIZED,        /* before `initialize` */
	SL_LSP_RUNNING,              /* after it */
	SL_LSP_SHUT_DOWN,            /* after `shutdown`: only `exit` is served */
};

struct sl_lsp_server {
	const struct sl_lsp_options *o;
	int out;
	struct sl_rpc_reader *rd;
	enum sl_lsp_state state;
	enum sl_lsp_encoding enc;
	struct sl_lsp_doc *docs;
	bool output_failed;          /* the client went away: stop */
	bool exited;                 /* `exit` received */
};

/* Send a message (the reference is stolen). */
void sl_lsp_send(struct sl_lsp_server *s, json_t *msg);
/* Send a notification (params stolen). */
void sl_lsp_notify(struct sl_lsp_server *s, const char *method, json_t *params);
/* Log a line on the server's log and to the client (window/logMessage; type 1 error .. 4 log). */
void sl_lsp_log(struct sl_lsp_server *s, int type, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* {"line", "character"} of byte offset off of doc. */
json_t *sl_lsp_jposition(const struct sl_lsp_server *s, const struct sl_lsp_doc *d, size_t off);
/* {"start", "end"} of bytes [start, end) of doc. */
json_t *sl_lsp_jrange(const struct sl_lsp_server *s, const struct sl_lsp_doc *d, size_t start, size_t end);
/*
 * The byte offsets of a {"start", "end"} range of doc (d NULL: only check its shape); false when it is
 * not one. A position past a line's end is its end; an end before the start is the start.
 */
bool sl_lsp_joffsets(const struct sl_lsp_server *s, const struct sl_lsp_doc *d, json_t *range, size_t *from,
		     size_t *to);
/* The byte offset of a {"line", "character"} position of doc (d NULL: only check its shape). */
bool sl_lsp_joffset(const struct sl_lsp_server *s, const struct sl_lsp_doc *d, json_t *pos, size_t *off);
/* A JSON string of s, with U+FFFD for each byte that is not UTF-8. */
json_t *sl_lsp_jstr(const char *s);

/* document.c: the open documents */
struct sl_lsp_doc *sl_lsp_doc_find(struct sl_lsp_server *s, const char *uri);
/* Open (or reopen) uri with text; the text is copied. */
struct sl_lsp_doc *sl_lsp_doc_open(struct sl_lsp_server *s, const char *uri, int64_t version, const char *text,
				   size_t len);
/*
 * The most bytes a document's text is kept at: check's limit. A longer text (opened, or grown by
 * edits) is not kept: the document is empty with dropped_len its length, its lint says so, edits of
 * ranges are ignored until a full text (a change without range, a save with text) under the bound.
 */
#define SL_LSP_MAX_DOC_BYTES ((size_t)SL_MAX_INPUT_BYTES)
/* Replace the range [start, end) of the text by text. */
void sl_lsp_doc_edit(struct sl_lsp_doc *d, size_t start, size_t end, const char *text, size_t len);
/* Replace the whole text. */
void sl_lsp_doc_set(struct sl_lsp_doc *d, const char *text, size_t len);
void sl_lsp_doc_close(struct sl_lsp_server *s, struct sl_lsp_doc *d);
void sl_lsp_doc_close_all(struct sl_lsp_server *s);

/* diagnostics.c: lint doc when it changed since its last lint; returns its lint. */
struct sl_lsp_lint *sl_lsp_doc_lint(struct sl_lsp_server *s, struct sl_lsp_doc *d);
/* Lint doc and publish its diagnostics. */
void sl_lsp_publish(struct sl_lsp_server *s, struct sl_lsp_doc *d);
/* The Diagnostic of one finding of doc's last lint. */
struct sl_diag;
json_t *sl_lsp_diagnostic(struct sl_lsp_server *s, struct sl_lsp_doc *d, const struct sl_diag *g);
/* Publish an empty list for uri (a closed document). */
void sl_lsp_publish_empty(struct sl_lsp_server *s, const char *uri);

#endif
