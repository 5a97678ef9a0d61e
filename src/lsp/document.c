/*
 * document: the open documents and their texts (server.h). Full-document
 * sync is what the server announces; a change with a range (incremental
 * sync, from a client that sends it anyway) is applied to the bytes the
 * range names in the negotiated encoding. A text past SL_LSP_MAX_DOC_BYTES
 * is not kept (server.h): the server's memory is bounded by the number of
 * documents, not by what a client sends.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "server.h"
#include "sweeplint/arena.h"
#include "uri.h"

struct sl_lsp_doc *sl_lsp_doc_find(struct sl_lsp_server *s, const char *uri)
{
	for (struct sl_lsp_doc *d = s->docs; d; d = d->next)
		if (strcmp(d->uri, uri) == 0)
			return d;
	return NULL;
}

static char *copy(const char *p, size_t n)
{
	char *c = malloc(n + 1);
	if (!c)
		sl_oom();
	memcpy(c, p, n);
	c[n] = '\0';
	return c;
}

struct sl_lsp_doc *sl_lsp_doc_open(struct sl_lsp_server *s, const char *uri, int64_t version, const char *text,
				   size_t len)
{
	struct sl_lsp_doc *d = sl_lsp_doc_find(s, uri);
	if (!d) {
		d = calloc(1, sizeof *d);
		if (!d)
			sl_oom();
		d->uri = copy(uri, strlen(uri));
		d->path = sl_lsp_uri_path(uri);
		d->next = s->docs;
		s->docs = d;
	}
	d->version = version;
	sl_lsp_doc_set(d, text, len);
	return d;
}

/* Make text[0..len) (malloc'd, NUL-terminated, owned) the document's text. */
static void take(struct sl_lsp_doc *d, char *text, size_t len)
{
	free(d->text);
	sl_lsp_lines_free(&d->lines);
	d->text = text;
	d->len = len;
	sl_lsp_lines_init(&d->lines, d->text, d->len);
	d->dirty = true;
}

/* A text of len bytes is past the bound: keep none of it, only its length. */
static void drop(struct sl_lsp_doc *d, size_t len)
{
	take(d, copy("", 0), 0);
	d->dropped_len = len;
}

void sl_lsp_doc_set(struct sl_lsp_doc *d, const char *text, size_t len)
{
	if (len > SL_LSP_MAX_DOC_BYTES) {
		drop(d, len);
		return;
	}
	d->dropped_len = 0;
	take(d, copy(text, len), len);
}

void sl_lsp_doc_edit(struct sl_lsp_doc *d, size_t start, size_t end, const char *text, size_t len)
{
	if (d->dropped_len) {
		/* the text was not kept: a range of it cannot be edited; its length is followed, for the note */
		size_t grown = d->dropped_len + len;
		d->dropped_len = grown < d->dropped_len ? SIZE_MAX : grown;
		d->dirty = true;
		return;
	}
	if (start > d->len)
		start = d->len;
	if (end > d->len)
		end = d->len;
	if (end < start)
		end = start;
	/* the new length, checked before anything is allocated (len may be up to a message's 16 MiB) */
	size_t n = d->len - (end - start) + len;
	if (n > SL_LSP_MAX_DOC_BYTES) {
		drop(d, n);
		return;
	}
	char *t = malloc(n + 1);
	if (!t)
		sl_oom();
	memcpy(t, d->text, start);
	memcpy(t + start, text, len);
	memcpy(t + start + len, d->text + end, d->len - end);
	t[n] = '\0';
	take(d, t, n);
}

static void doc_free(struct sl_lsp_doc *d)
{
	sl_lsp_lint_free(d->lint);
	sl_lsp_lines_free(&d->lines);
	free(d->text);
	free(d->path);
	free(d->uri);
	free(d);
}

void sl_lsp_doc_close(struct sl_lsp_server *s, struct sl_lsp_doc *d)
{
	for (struct sl_lsp_doc **p = &s->docs; *p; p = &(*p)->next)
		if (*p == d) {
			*p = d->next;
			break;
		}
	doc_free(d);
}

void sl_lsp_doc_close_all(struct sl_lsp_server *s)
{
	while (s->docs) {
		struct sl_lsp_doc *d = s->docs;
		s->docs = d->next;
		doc_free(d);
	}
}
