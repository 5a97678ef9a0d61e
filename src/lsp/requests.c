/*
 * requests: the document requests past the lifecycle — textDocument/hover
 * and textDocument/inlayHint (LSP 3.17) — as JSON around hover.c. A request
 * about a document changed since its last lint lints it first, so answers
 * are about the text the client has. A document that is not open gets a
 * null result (hover) or no hints; params of the wrong shape are
 * InvalidParams.
 */
#include <string.h>

#include "hover.h"
#include "lint.h"
#include "requests.h"
#include "rpc.h"
#include "sweeplint/arena.h"
#include "sweeplint/run.h"

/* The open document params.textDocument.uri names (linted), or NULL; *bad when params are malformed. */
static struct sl_lsp_doc *doc_of(struct sl_lsp_server *s, json_t *params, bool *bad)
{
	const char *uri = json_string_value(json_object_get(json_object_get(params, "textDocument"), "uri"));
	*bad = !uri;
	struct sl_lsp_doc *d = uri ? sl_lsp_doc_find(s, uri) : NULL;
	if (d)
		sl_lsp_doc_lint(s, d);
	return d;
}

json_t *sl_lsp_hover(struct sl_lsp_server *s, json_t *params, struct sl_lsp_error *e)
{
	bool bad;
	struct sl_lsp_doc *d = doc_of(s, params, &bad);
	size_t off = 0;
	if (bad || !sl_lsp_joffset(s, d, json_object_get(params, "position"), &off)) {
		e->code = SL_RPC_INVALID_PARAMS;
		e->message = "hover: expected {textDocument: {uri}, position: {line, character}}";
		return NULL;
	}
	if (!d)
		return json_null();
	const struct sl_lsp_lint *l = d->lint;
	size_t axis, value;
	const char *md = NULL;
	size_t start = off, end = off;
	if (sl_lsp_value_at(l, off, &axis, &value)) {
		md = sl_lsp_hover_value(l, axis, value);
		sl_lsp_value_span(l, axis, value, &start, &end);
	} else
		md = sl_lsp_hover_key(l, off, &start, &end);
	if (!md)
		return json_null();
	return json_pack("{s:{s:s, s:o}, s:o}", "contents", "kind", "markdown", "value", sl_lsp_jstr(md), "range",
			 sl_lsp_jrange(s, d, start, end));
}

json_t *sl_lsp_inlay_hint(struct sl_lsp_server *s, json_t *params, struct sl_lsp_error *e)
{
	bool bad;
	struct sl_lsp_doc *d = doc_of(s, params, &bad);
	json_t *range = json_object_get(params, "range");
	size_t from = 0, to = 0;
	if (bad || !sl_lsp_joffsets(s, d, range, &from, &to)) {
		e->code = SL_RPC_INVALID_PARAMS;
		e->message = "inlayHint: expected {textDocument: {uri}, range: {start, end}}";
		return NULL;
	}
	json_t *list = json_array();
	if (!d)
		return list;
	struct sl_lsp_hint *h;
	size_t n = sl_lsp_inlay_hints(d->lint, from, to, &h);
	for (size_t i = 0; i < n; i++) {
		json_t *j = json_pack("{s:o, s:o, s:i, s:b}", "position", sl_lsp_jposition(s, d, h[i].at), "label",
				      sl_lsp_jstr(h[i].label), "kind", 1, "paddingLeft", 1);
		if (!j)
			sl_oom();
		if (h[i].tooltip)
			json_object_set_new(j, "tooltip", sl_lsp_jstr(h[i].tooltip));
		json_array_append_new(list, j);
	}
	return list;
}
