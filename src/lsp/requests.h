/*
 * requests: handlers of the document requests (requests.c, actions.c). Each
 * returns its result (a new reference), or NULL with *e set to the error
 * to answer.
 */
#ifndef SWEEPLINT_LSP_REQUESTS_H
#define SWEEPLINT_LSP_REQUESTS_H

#include <jansson.h>

#include "server.h"

struct sl_lsp_error {
	int code;
	const char *message;
};

json_t *sl_lsp_hover(struct sl_lsp_server *s, json_t *params, struct sl_lsp_error *e);
json_t *sl_lsp_inlay_hint(struct sl_lsp_server *s, json_t *params, struct sl_lsp_error *e);
json_t *sl_lsp_code_action(struct sl_lsp_server *s, json_t *params, struct sl_lsp_error *e);

#endif
