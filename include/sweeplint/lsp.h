/*
 * lsp: `sweeplint lsp`, a Language Server Protocol server over a pair of
 * file descriptors (the editor's pipes). It lints each open document with
 * the library `sweeplint check` uses — the same rules, severities, project
 * config discovery (the nearest .sweeplint.yaml above the document's path,
 * the -c configs it names) — and publishes the findings as diagnostics.
 * Every lint is one sl_run (one arena), released when the document's next
 * lint replaces it or the document closes. docs/lsp.md is the reference.
 */
#ifndef SWEEPLINT_LSP_H
#define SWEEPLINT_LSP_H

#include <stdint.h>
#include <stdio.h>

struct sl_run;
struct sl_parse_cache;

struct sl_lsp_options {
	const struct sl_run *base;       /* the command line's options and rule severities every lint starts from */
	const char *config_file;         /* --config-file for every document, or NULL: the nearest .sweeplint.yaml */
	int (*parse_size)(const char *s, uint64_t *out); /* how a config's host_memory is read (sl_config_load) */
	const char *version;             /* serverInfo.version */
	FILE *log;                       /* where protocol problems are logged (stderr), or NULL */
	struct sl_parse_cache *parse_cache; /* program parses kept across edits and lints (program.h), or NULL */
};

/*
 * Serve one client on in/out until it sends `exit` or the input ends.
 * Returns the process exit status the protocol asks for: 0 after
 * `shutdown` then `exit`, 1 when `exit` came without `shutdown` or the
 * input ended first.
 */
int sl_lsp_serve(int in, int out, const struct sl_lsp_options *o);

#endif
