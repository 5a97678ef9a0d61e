/*
 * server: the lifecycle and the dispatch of `sweeplint lsp` (lsp.h).
 *
 * Lifecycle, as the protocol orders it: before `initialize` a request is
 * answered ServerNotInitialized and a notification dropped; a second
 * `initialize` is an InvalidRequest; after `shutdown` a request is an
 * InvalidRequest and a notification other than `exit` is dropped; `exit`
 * ends the server with status 0 after `shutdown`, else 1 (the same as the
 * input ending).
 *
 * Malformed input never stops the server: a header block without a usable
 * Content-Length is logged and skipped; a body that is not JSON is answered
 * ParseError with id null; a message that is not a request or notification
 * (wrong "jsonrpc", a method that is no string, an id that is neither a
 * number nor a string) is answered InvalidRequest; a request with params of
 * the wrong shape, InvalidParams; an unknown request, MethodNotFound; an
 * unknown notification is ignored.
 *
 * A save marks every open document dirty (the saved file may be a project
 * config or a trainer config the others read), and so does
 * workspace/didChangeWatchedFiles.
 *
 * Coalescing: a change only marks its document dirty. Dirty documents are
 * linted and published when no further input is already waiting, so a burst
 * of changes is linted once, at its latest version. A request about a dirty
 * document lints it first; that lint is published as a change's would be,
 * when no input waits (without a second lint): a request never swallows a
 * change's diagnostics.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "requests.h"
#include "rpc.h"
#include "server.h"
#include "sweeplint/arena.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"

/* How large one message may be: a document at the check limit, with room for JSON escapes. */
#define MAX_BODY ((size_t)SL_MAX_INPUT_BYTES * 4)

void sl_lsp_send(struct sl_lsp_server *s, json_t *msg)
{
	if (!msg)
		sl_oom();
	if (!s->output_failed && sl_rpc_write(s->out, msg) < 0)
		s->output_failed = true;
	json_decref(msg);
}

void sl_lsp_notify(struct sl_lsp_server *s, const char *method, json_t *params)
{
	if (!params)
		sl_oom();
	sl_lsp_send(s, json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params", params));
}

void sl_lsp_log(struct sl_lsp_server *s, int type, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (s->o->log) {
		fprintf(s->o->log, "sweeplint lsp: %s\n", line);
		fflush(s->o->log);
	}
	sl_lsp_notify(s, "window/logMessage", json_pack("{s:i, s:o}", "type", type, "message", sl_lsp_jstr(line)));
}

/* The length of the valid UTF-8 sequence at p (n bytes left), or 0 (RFC 3629: no overlongs, no surrogates). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] < 0x80 ? 1 : p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
		   : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
	if (len <= 1 || n < len)
		return len == 1 ? 1 : 0;
	unsigned char lo = p[0] == 0xE0 ? 0xA0 : p[0] == 0xF0 ? 0x90 : 0x80;
	unsigned char hi = p[0] == 0xED ? 0x9F : p[0] == 0xF4 ? 0x8F : 0xBF;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

json_t *sl_lsp_jstr(const char *str)
{
	json_t *j = json_string(str);
	if (j)
		return j;
	size_t n = strlen(str);
	char *b = malloc(3 * n + 1);
	if (!b)
		sl_oom();
	size_t k = 0;
	const unsigned char *p = (const unsigned char *)str;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(p + i, n - i);
		if (len) {
			memcpy(b + k, p + i, len);
			k += len;
			i += len;
		} else {
			memcpy(b + k, "\xEF\xBF\xBD", 3);
			k += 3;
			i++;
		}
	}
	b[k] = '\0';
	j = json_string(b);
	free(b);
	if (!j)
		sl_oom();
	return j;
}

json_t *sl_lsp_jposition(const struct sl_lsp_server *s, const struct sl_lsp_doc *d, size_t off)
{
	uint32_t line, ch;
	sl_lsp_position(&d->lines, s->enc, off, &line, &ch);
	json_t *j = json_pack("{s:I, s:I}", "line", (json_int_t)line, "character", (json_int_t)ch);
	if (!j)
		sl_oom();
	return j;
}

json_t *sl_lsp_jrange(const struct sl_lsp_server *s, const struct sl_lsp_doc *d, size_t start, size_t end)
{
	json_t *j = json_pack("{s:o, s:o}", "start", sl_lsp_jposition(s, d, start), "end", sl_lsp_jposition(s, d, end));
	if (!j)
		sl_oom();
	return j;
}

/* A position's line or character: a non-negative integer, clamped to UINT32_MAX (past any text: its end). */
static bool position_part(json_t *v, uint32_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = json_integer_value(v) > UINT32_MAX ? UINT32_MAX : (uint32_t)json_integer_value(v);
	return true;
}

bool sl_lsp_joffset(const struct sl_lsp_server *s, const struct sl_lsp_doc *d, json_t *pos, size_t *off)
{
	uint32_t line, ch;
	if (!position_part(json_object_get(pos, "line"), &line) ||
	    !position_part(json_object_get(pos, "character"), &ch))
		return false;
	if (d)
		*off = sl_lsp_offset(&d->lines, s->enc, line, ch);
	return true;
}

bool sl_lsp_joffsets(const struct sl_lsp_server *s, const struct sl_lsp_doc *d, json_t *range, size_t *from,
		     size_t *to)
{
	if (!sl_lsp_joffset(s, d, json_object_get(range, "start"), from) ||
	    !sl_lsp_joffset(s, d, json_object_get(range, "end"), to))
		return false;
	if (d && *to < *from)
		*to = *from;
	return true;
}

static void reply(struct sl_lsp_server *s, json_t *id, json_t *result)
{
	sl_lsp_send(s, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result ? result : json_null()));
}

static void reply_error(struct sl_lsp_server *s, json_t *id, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void reply_error(struct sl_lsp_server *s, json_t *id, int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sl_lsp_send(s, json_pack("{s:s, s:O, s:{s:i, s:o}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error",
				 "code", code, "message", sl_lsp_jstr(msg)));
}

/* initialize: pick the position encoding (UTF-8 when the client offers it, else UTF-16) and announce what is served. */
static void initialize(struct sl_lsp_server *s, json_t *id, json_t *params)
{
	json_t *encs = json_object_get(json_object_get(json_object_get(params, "capabilities"), "general"),
				       "positionEncodings");
	s->enc = SL_LSP_UTF16;
	size_t i;
	json_t *e;
	json_array_foreach(encs, i, e)
	{
		if (json_is_string(e) && strcmp(json_string_value(e), "utf-8") == 0)
			s->enc = SL_LSP_UTF8;
	}
	s->state = SL_LSP_RUNNING;
	json_t *caps = json_pack("{s:s, s:{s:b, s:i, s:{s:b}}, s:b, s:b, s:{s:[s]}}", "positionEncoding",
				 sl_lsp_encoding_name(s->enc), "textDocumentSync", "openClose", 1, "change", 1, "save",
				 "includeText", 1, "hoverProvider", 1, "inlayHintProvider", 1, "codeActionProvider",
				 "codeActionKinds", "quickfix");
	reply(s, id, json_pack("{s:o, s:{s:s, s:s}}", "capabilities", caps, "serverInfo", "name", "sweeplint",
			       "version", s->o->version ? s->o->version : ""));
}

/* The text document a notification or request is about: params.textDocument.uri (NULL when missing). */
static const char *doc_uri(json_t *params)
{
	return json_string_value(json_object_get(json_object_get(params, "textDocument"), "uri"));
}

static bool did_open(struct sl_lsp_server *s, json_t *params)
{
	json_t *td = json_object_get(params, "textDocument");
	const char *uri = json_string_value(json_object_get(td, "uri"));
	json_t *text = json_object_get(td, "text");
	json_t *version = json_object_get(td, "version");
	if (!uri || !json_is_string(text) || !json_is_integer(version))
		return false;
	sl_lsp_doc_open(s, uri, json_integer_value(version), json_string_value(text), json_string_length(text));
	return true;
}

static bool did_change(struct sl_lsp_server *s, json_t *params)
{
	const char *uri = doc_uri(params);
	json_t *version = json_object_get(json_object_get(params, "textDocument"), "version");
	json_t *changes = json_object_get(params, "contentChanges");
	if (!uri || !json_is_integer(version) || !json_is_array(changes))
		return false;
	struct sl_lsp_doc *d = sl_lsp_doc_find(s, uri);
	if (!d)
		return false;
	size_t i;
	json_t *c;
	json_array_foreach(changes, i, c)
	{
		json_t *text = json_object_get(c, "text");
		if (!json_is_string(text))
			return false;
		json_t *range = json_object_get(c, "range");
		size_t start = 0, end = d->len;
		/* positions past the text (a line past 2^32 included) are its end, as for every request */
		if (range && !sl_lsp_joffsets(s, d, range, &start, &end))
			return false;
		if (range)
			sl_lsp_doc_edit(d, start, end, json_string_value(text), json_string_length(text));
		else
			sl_lsp_doc_set(d, json_string_value(text), json_string_length(text));
	}
	d->version = json_integer_value(version);
	d->dirty = true;
	return true;
}

static void mark_all_dirty(struct sl_lsp_server *s)
{
	for (struct sl_lsp_doc *d = s->docs; d; d = d->next)
		d->dirty = true;
}

static bool did_save(struct sl_lsp_server *s, json_t *params)
{
	const char *uri = doc_uri(params);
	struct sl_lsp_doc *d = uri ? sl_lsp_doc_find(s, uri) : NULL;
	if (!d)
		return false;
	json_t *text = json_object_get(params, "text");
	if (json_is_string(text))
		sl_lsp_doc_set(d, json_string_value(text), json_string_length(text));
	/* what was saved may be a .sweeplint.yaml or a -c trainer config other documents read: lint them all */
	mark_all_dirty(s);
	return true;
}

static bool did_close(struct sl_lsp_server *s, json_t *params)
{
	const char *uri = doc_uri(params);
	struct sl_lsp_doc *d = uri ? sl_lsp_doc_find(s, uri) : NULL;
	if (!d)
		return false;
	sl_lsp_doc_close(s, d);
	sl_lsp_publish_empty(s, uri);
	return true;
}

static void notification(struct sl_lsp_server *s, const char *method, json_t *params)
{
	if (strcmp(method, "exit") == 0) {
		s->exited = true;
		return;
	}
	if (s->state != SL_LSP_RUNNING)
		return;
	bool ok = true;
	if (strcmp(method, "textDocument/didOpen") == 0)
		ok = did_open(s, params);
	else if (strcmp(method, "textDocument/didChange") == 0)
		ok = did_change(s, params);
	else if (strcmp(method, "textDocument/didSave") == 0)
		ok = did_save(s, params);
	else if (strcmp(method, "textDocument/didClose") == 0)
		ok = did_close(s, params);
	else if (strcmp(method, "workspace/didChangeWatchedFiles") == 0)
		mark_all_dirty(s); /* a config changed on disk (when the client watches files for us) */
	/* initialized, $/cancelRequest, $/setTrace and the rest: nothing to do */
	if (!ok)
		sl_lsp_log(s, 2, "%s: ignored: its params are not what the protocol defines (or the document is not open)",
			   method);
}

static void request(struct sl_lsp_server *s, json_t *id, const char *method, json_t *params)
{
	if (strcmp(method, "initialize") == 0) {
		if (s->state != SL_LSP_UNINITIALIZED)
			reply_error(s, id, SL_RPC_INVALID_REQUEST, "initialize was already received");
		else if (params && !json_is_object(params))
			reply_error(s, id, SL_RPC_INVALID_PARAMS, "initialize: params must be an object");
		else
			initialize(s, id, params);
		return;
	}
	if (s->state == SL_LSP_UNINITIALIZED) {
		reply_error(s, id, SL_RPC_SERVER_NOT_INITIALIZED, "%s: the server is not initialized", method);
		return;
	}
	if (s->state == SL_LSP_SHUT_DOWN) {
		reply_error(s, id, SL_RPC_INVALID_REQUEST, "%s: the server is shut down (only exit is served)", method);
		return;
	}
	if (strcmp(method, "shutdown") == 0) {
		s->state = SL_LSP_SHUT_DOWN;
		reply(s, id, json_null());
		return;
	}
	static const struct {
		const char *method;
		json_t *(*fn)(struct sl_lsp_server *s, json_t *params, struct sl_lsp_error *e);
	} handlers[] = {
		{"textDocument/hover", sl_lsp_hover},
		{"textDocument/inlayHint", sl_lsp_inlay_hint},
		{"textDocument/codeAction", sl_lsp_code_action},
	};
	for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++) {
		if (strcmp(method, handlers[i].method) != 0)
			continue;
		struct sl_lsp_error e = {0};
		json_t *result = json_is_object(params) ? handlers[i].fn(s, params, &e) : NULL;
		if (result)
			reply(s, id, result);
		else
			reply_error(s, id, e.code ? e.code : SL_RPC_INVALID_PARAMS, "%s",
				    e.message ? e.message : "params must be an object");
		return;
	}
	reply_error(s, id, SL_RPC_METHOD_NOT_FOUND, "%s: no such method", method);
}

/* One message: check its shape, then dispatch it. */
static void dispatch(struct sl_lsp_server *s, json_t *msg)
{
	if (!json_is_object(msg)) {
		reply_error(s, NULL, SL_RPC_INVALID_REQUEST, "a message must be a JSON object");
		return;
	}
	json_t *id = json_object_get(msg, "id");
	json_t *method = json_object_get(msg, "method");
	json_t *params = json_object_get(msg, "params");
	const char *version = json_string_value(json_object_get(msg, "jsonrpc"));
	bool id_ok = !id || json_is_integer(id) || json_is_string(id);
	if (!method && id && (json_object_get(msg, "result") || json_object_get(msg, "error")))
		return; /* a response: the server sends no requests, so there is nothing it answers */
	if (!version || strcmp(version, "2.0") != 0 || !json_is_string(method) || !id_ok ||
	    (params && !json_is_object(params) && !json_is_array(params))) {
		reply_error(s, id_ok ? id : NULL, SL_RPC_INVALID_REQUEST,
			    "not a JSON-RPC 2.0 request or notification (jsonrpc \"2.0\", a string method, an "
			    "integer or string id, object or array params)");
		return;
	}
	if (id)
		request(s, id, json_string_value(method), params);
	else
		notification(s, json_string_value(method), params);
}

/* A document to lint and publish (dirty), or whose lint a request made is not published yet; or NULL. */
static struct sl_lsp_doc *dirty_doc(struct sl_lsp_server *s)
{
	for (struct sl_lsp_doc *d = s->docs; d; d = d->next)
		if (d->dirty || d->unpublished)
			return d;
	return NULL;
}

int sl_lsp_serve(int in, int out, const struct sl_lsp_options *o)
{
	struct sl_lsp_server s = {.o = o, .out = out, .enc = SL_LSP_UTF16};
	s.rd = sl_rpc_reader_new(in, MAX_BODY);
	while (!s.exited && !s.output_failed) {
		struct sl_lsp_doc *d = dirty_doc(&s);
		if (d && s.state == SL_LSP_RUNNING && !sl_rpc_pending(s.rd)) {
			sl_lsp_publish(&s, d);
			continue;
		}
		json_t *msg;
		const char *why;
		enum sl_rpc_status st = sl_rpc_read(s.rd, &msg, &why);
		if (st == SL_RPC_EOF)
			break;
		switch (st) {
		case SL_RPC_MESSAGE:
			dispatch(&s, msg);
			json_decref(msg);
			break;
		case SL_RPC_BAD_JSON:
			reply_error(&s, NULL, SL_RPC_PARSE_ERROR, "%s", why);
			break;
		case SL_RPC_TOO_LARGE:
			reply_error(&s, NULL, SL_RPC_INVALID_REQUEST, "%s", why);
			break;
		default:
			sl_lsp_log(&s, 1, "%s: skipped", why);
			break;
		}
	}
	int status = s.exited && s.state == SL_LSP_SHUT_DOWN ? 0 : 1;
	sl_lsp_doc_close_all(&s);
	sl_rpc_reader_free(s.rd);
	return status;
}
