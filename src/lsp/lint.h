/*
 * lint: one lint of an open document, as `sweeplint check` would lint its
 * path: a fresh run from the server's base options, the project config found
 * from the document's path applied, the text checked from memory. The lint
 * owns its run (one arena) until sl_lsp_lint_free().
 */
#ifndef SWEEPLINT_LSP_LINT_H
#define SWEEPLINT_LSP_LINT_H

#include <stddef.h>

#include "sweeplint/diag.h"
#include "sweeplint/lsp.h"

struct sl_run;
struct sl_file;

struct sl_lsp_lint {
	struct sl_run *run;
	struct sl_file *file;            /* NULL when the text was not checked (see note) */
	struct sl_diags extra;           /* problems in the project config, at their own source */
	const char *note;                /* why the document was not checked, shown at its start; or NULL */
	const char *config;              /* the project config in effect, or NULL */
	const char *self;                /* a .sweeplint.yaml document: its path (extra holds its own problems) */
};

/*
 * Lint text as the file at path (NULL for a document that is no file: the
 * project config is then looked for from the working directory). display
 * names it in messages. A document named .sweeplint.yaml is a project
 * config, not a sweep: its problems are the config's own (sl_config_load,
 * which reads the file), reported while the text is the one on disk (after
 * opening or saving it), none while it is being edited. text NULL: a
 * document of len bytes whose text was not kept (past the bound): a note
 * says so. Never NULL.
 */
struct sl_lsp_lint *sl_lsp_lint(const struct sl_lsp_options *o, const char *path, const char *display,
				const char *text, size_t len);
void sl_lsp_lint_free(struct sl_lsp_lint *l);

#endif
