/*
 * rpc: JSON-RPC 2.0 messages over the LSP base protocol — a header block of
 * "Name: value\r\n" lines ended by "\r\n", of which Content-Length is
 * required, then that many bytes of UTF-8 JSON. The reader buffers its file
 * descriptor itself so that the server can ask whether more input is already
 * waiting (sl_rpc_pending: the coalescing of change bursts rests on it).
 */
#ifndef SWEEPLINT_LSP_RPC_H
#define SWEEPLINT_LSP_RPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The JSON-RPC and LSP error codes the server answers with. */
enum {
	SL_RPC_PARSE_ERROR = -32700,
	SL_RPC_INVALID_REQUEST = -32600,
	SL_RPC_METHOD_NOT_FOUND = -32601,
	SL_RPC_INVALID_PARAMS = -32602,
	SL_RPC_INTERNAL_ERROR = -32603,
	SL_RPC_SERVER_NOT_INITIALIZED = -32002,
	SL_RPC_REQUEST_FAILED = -32803,
};

/* What sl_rpc_read() found. */
enum sl_rpc_status {
	SL_RPC_MESSAGE,      /* *msg holds the parsed JSON (any JSON value; the caller checks its shape) */
	SL_RPC_BAD_HEADER,   /* a header block without a usable Content-Length: skipped; *why says what */
	SL_RPC_BAD_JSON,     /* the body is not JSON: skipped; *why says where */
	SL_RPC_TOO_LARGE,    /* the body is past the reader's bound (bytes, or JSON values): read and dropped */
	SL_RPC_EOF,          /* the input ended (or failed) */
};

struct sl_rpc_reader;

/* A reader of fd whose message bodies may be at most max_body bytes. Never NULL. */
struct sl_rpc_reader *sl_rpc_reader_new(int fd, size_t max_body);
void sl_rpc_reader_free(struct sl_rpc_reader *r);

/* Read the next message. why (when set) is valid until the next call. */
enum sl_rpc_status sl_rpc_read(struct sl_rpc_reader *r, json_t **msg, const char **why);

/* Whether input is waiting: bytes already buffered, or the descriptor is readable (or at its end). */
bool sl_rpc_pending(struct sl_rpc_reader *r);

/* Write one message (compact JSON, UTF-8 as is) to fd; -1 when the output failed. */
int sl_rpc_write(int fd, json_t *msg);

#endif
