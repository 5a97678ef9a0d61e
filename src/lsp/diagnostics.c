/*
 * diagnostics: a document's findings as textDocument/publishDiagnostics.
 * Each finding of the document's own source becomes one diagnostic at its
 * span (converted to the negotiated encoding), with the rule's slug as its
 * code (the name `# sweeplint: disable=` takes) and the hint, when there is
 * one, on a second line. A finding about another file (a -c trainer config,
 * the project's .sweeplint.yaml) is shown at the document's start, naming
 * its file:line:col, with that place as related information; so is a note
 * saying why the document was not checked.
 */
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "server.h"
#include "sweeplint/arena.h"
#include "sweeplint/notebook.h"
#include "sweeplint/rules.h"
#include "sweeplint/run.h"
#include "uri.h"

struct sl_lsp_lint *sl_lsp_doc_lint(struct sl_lsp_server *s, struct sl_lsp_doc *d)
{
	if (d->lint && !d->dirty)
		return d->lint;
	sl_lsp_lint_free(d->lint);
	/* a text past the bound was not kept: the lint only says so */
	d->lint = sl_lsp_lint(s->o, d->path, d->path ? d->path : d->uri, d->dropped_len ? NULL : d->text,
			      d->dropped_len ? d->dropped_len : d->len);
	d->lint_version = d->version;
	d->dirty = false;
	d->unpublished = true; /* until sl_lsp_publish sends it */
	return d->lint;
}

static int lsp_severity(enum sl_severity sev)
{
	switch (sev) {
	case SL_SEV_ERROR:
		return 1;
	case SL_SEV_WARNING:
		return 2;
	default:
		return 3;
	}
}

json_t *sl_lsp_diagnostic(struct sl_lsp_server *s, struct sl_lsp_doc *d, const struct sl_diag *g)
{
	struct sl_arena *a = d->lint->run->arena;
	const struct sl_lsp_lint *l = d->lint;
	bool here = (l->file && g->src == l->file->src) || (l->self && g->src && strcmp(g->src->path, l->self) == 0);
	/* a notebook's code (the document is the .ipynb's JSON text): the range of the JSON string holding it */
	size_t start = g->span.start, end = g->span.end;
	if (here && g->src->notebook) {
		start = sl_notebook_raw_offset(g->src->notebook, g->span.start);
		end = g->span.end > g->span.start ? sl_notebook_raw_offset(g->src->notebook, g->span.end) : start;
	}
	const struct sl_rule *r = sl_rule_find(g->rule);
	const char *msg = g->message;
	if (!here)
		msg = sl_arena_printf(a, "%s:%u:%u: %s", g->src->display, g->span.line, g->span.col, msg);
	if (g->hint)
		msg = sl_arena_printf(a, "%s\nhint: %s", msg, g->hint);
	json_t *j = json_pack("{s:o, s:i, s:s, s:s, s:o, s:{s:s, s:s}}", "range",
			      here ? sl_lsp_jrange(s, d, start, end) : sl_lsp_jrange(s, d, 0, 0),
			      "severity", lsp_severity(g->severity), "source", "sweeplint", "code", g->rule, "message",
			      sl_lsp_jstr(msg), "data", "rule", g->rule, "code", r ? r->code : "");
	if (!j)
		sl_oom();
	if (!here && g->src && strcmp(g->src->path, "-") != 0) {
		char *uri = sl_lsp_path_uri(g->src->path);
		/* the other file's position: its line and column, counted in characters (exact for UTF-16 in the BMP) */
		json_t *rel = json_pack("[{s:{s:s, s:{s:{s:i, s:i}, s:{s:i, s:i}}}, s:o}]", "location", "uri", uri,
					"range", "start", "line", (int)g->span.line - 1, "character",
					(int)g->span.col - 1, "end", "line", (int)g->span.end_line - 1, "character",
					(int)g->span.end_col - 1, "message", sl_lsp_jstr(g->message));
		free(uri);
		if (!rel)
			sl_oom();
		json_object_set_new(j, "relatedInformation", rel);
	}
	return j;
}

void sl_lsp_publish(struct sl_lsp_server *s, struct sl_lsp_doc *d)
{
	struct sl_lsp_lint *l = sl_lsp_doc_lint(s, d);
	json_t *list = json_array();
	if (l->note) {
		json_t *j = json_pack("{s:o, s:i, s:s, s:o}", "range", sl_lsp_jrange(s, d, 0, 0), "severity", 1,
				      "source", "sweeplint", "message", sl_lsp_jstr(l->note));
		json_array_append_new(list, j);
	}
	for (size_t i = 0; i < l->extra.n; i++)
		json_array_append_new(list, sl_lsp_diagnostic(s, d, &l->extra.v[i]));
	/* a Python document defines any number of sweeps: each one's findings */
	for (const struct sl_file *f = l->file; f; f = f->next) {
		for (size_t i = 0; i < f->diags.n; i++)
			json_array_append_new(list, sl_lsp_diagnostic(s, d, &f->diags.v[i]));
		if (f->err && strcmp(f->err_rule, "config") != 0) {
			const char *m = sl_arena_printf(l->run->arena, "rule '%s' could not run: %s", f->err_rule,
							sl_strerror(f->err));
			json_array_append_new(list, json_pack("{s:o, s:i, s:s, s:s}", "range",
							      sl_lsp_jrange(s, d, 0, 0), "severity", 1, "source",
							      "sweeplint", "message", m));
		}
	}
	sl_lsp_notify(s, "textDocument/publishDiagnostics",
		      json_pack("{s:s, s:I, s:o}", "uri", d->uri, "version", (json_int_t)d->lint_version,
				"diagnostics", list));
	d->unpublished = false;
}

void sl_lsp_publish_empty(struct sl_lsp_server *s, const char *uri)
{
	sl_lsp_notify(s, "textDocument/publishDiagnostics", json_pack("{s:s, s:[]}", "uri", uri, "diagnostics"));
}
