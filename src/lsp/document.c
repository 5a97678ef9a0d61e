/*
 * document: the open documents and their texts (server.h). Full-document
 * sync is what the server announces; a change with a range (incremental
 * sync, from a client that sends it anyway) is applied to the bytes the
 * range names in the negotiated encoding.
 */
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
	} else
		sl_lsp_lines_free(&d->lines);
	free(d->text);
	d->text = copy(text, len);
	d->len = len;
	d->version = version;
	sl_lsp_lines_init(&d->lines, d->text, d->len);
	d->dirty = true;
	return d;
}

void sl_lsp_doc_edit(struct sl_lsp_doc *d, size_t start, size_t end, const char *text, size_t len)
{
	if (start > d->len)
		start = d->len;
	if (end > d->len)
		end = d->len;
	if (end < start)
		end = start;
	size_t n = d->len - (end - start) + len;
	char *t = malloc(n + 1);
	if (!t)
		sl_oom();
	memcpy(t, d->text, start);
	memcpy(t + start, text, len);
	memcpy(t + start + len, d->text + end, d->len - end);
	t[n] = '\0';
	free(d->text);
	d->text = t;
	d->len = n;
	sl_lsp_lines_free(&d->lines);
	sl_lsp_lines_init(&d->lines, d->text, d->len);
	d->dirty = true;
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
