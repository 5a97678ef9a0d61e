/*
 * test_lsp: the language server's pieces below the protocol — positions in
 * UTF-16 / UTF-8 / UTF-32 over Korean and astral text and every line-break
 * kind, file: URIs, and the JSON-RPC framing over a pipe (good messages,
 * bad headers, bad JSON, an oversized body, input split across reads).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/lsp/position.h"
#include "../../src/lsp/rpc.h"
#include "sweeplint/json_bound.h"
#include "../../src/lsp/uri.h"

static void pos(const struct sl_lsp_lines *l, enum sl_lsp_encoding e, size_t off, uint32_t line, uint32_t ch)
{
	uint32_t gl, gc;
	sl_lsp_position(l, e, off, &gl, &gc);
	assert_int_equal(gl, line);
	assert_int_equal(gc, ch);
}

static void test_positions_korean_astral(void **state)
{
	(void)state;
	/* "a: 한🎉x\n" — 한 is 3 bytes (1 UTF-16 unit), 🎉 4 bytes (2 UTF-16 units, a surrogate pair) */
	const char *t = "a: \xED\x95\x9C\xF0\x9F\x8E\x89x\nb";
	struct sl_lsp_lines l;
	sl_lsp_lines_init(&l, t, strlen(t));
	assert_int_equal(l.n, 2);
	size_t x = 3 + 3 + 4; /* the byte offset of 'x' */
	pos(&l, SL_LSP_UTF16, x, 0, 6);
	pos(&l, SL_LSP_UTF8, x, 0, 10);
	pos(&l, SL_LSP_UTF32, x, 0, 5);
	pos(&l, SL_LSP_UTF16, 6, 0, 4); /* the emoji's start */
	pos(&l, SL_LSP_UTF16, 8, 0, 4); /* inside it: its start */
	pos(&l, SL_LSP_UTF16, x + 2, 1, 0);
	pos(&l, SL_LSP_UTF16, 999, 1, 1); /* past the end: the end */
	assert_int_equal(sl_lsp_offset(&l, SL_LSP_UTF16, 0, 6), x);
	assert_int_equal(sl_lsp_offset(&l, SL_LSP_UTF8, 0, 10), x);
	assert_int_equal(sl_lsp_offset(&l, SL_LSP_UTF32, 0, 5), x);
	assert_int_equal(sl_lsp_offset(&l, SL_LSP_UTF16, 0, 5), 6);    /* half a surrogate pair: its start */
	assert_int_equal(sl_lsp_offset(&l, SL_LSP_UTF16, 0, 99), x + 1); /* past the line: its end */
	assert_int_equal(sl_lsp_offset(&l, SL_LSP_UTF16, 7, 0), strlen(t));
	sl_lsp_lines_free(&l);
}

static void test_line_breaks(void **state)
{
	(void)state;
	const char *t = "a\r\nbb\rc\n\nd";
	struct sl_lsp_lines l;
	sl_lsp_lines_init(&l, t, strlen(t));
	assert_int_equal(l.n, 5);
	pos(&l, SL_LSP_UTF16, 1, 0, 1); /* at the CR of CRLF */
	pos(&l, SL_LSP_UTF16, 2, 0, 1); /* inside CRLF: the line's end */
	pos(&l, SL_LSP_UTF16, 3, 1, 0);
	pos(&l, SL_LSP_UTF16, 6, 2, 0); /* after a lone CR */
	pos(&l, SL_LSP_UTF16, 8, 3, 0);
	pos(&l, SL_LSP_UTF16, 9, 4, 0);
	assert_int_equal(sl_lsp_offset(&l, SL_LSP_UTF16, 1, 9), 5);
	sl_lsp_lines_free(&l);
}

static void test_uri(void **state)
{
	(void)state;
	char *p = sl_lsp_uri_path("file:///tmp/a%20b/%ED%95%9C.yaml");
	assert_string_equal(p, "/tmp/a b/\xED\x95\x9C.yaml");
	char *u = sl_lsp_path_uri(p);
	assert_string_equal(u, "file:///tmp/a%20b/%ED%95%9C.yaml");
	free(u);
	free(p);
	p = sl_lsp_uri_path("file://localhost/etc/x");
	assert_string_equal(p, "/etc/x");
	free(p);
	assert_null(sl_lsp_uri_path("untitled:Untitled-1"));
	assert_null(sl_lsp_uri_path("file://server/share/x"));
	assert_null(sl_lsp_uri_path("file:///a%00b"));
}

/* A reader over bytes in a temporary file (read from its start; closed at exit). */
static struct sl_rpc_reader *reader_over(const char *bytes, size_t n, size_t max_body)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	assert_int_equal(fflush(f), 0);
	int fd = dup(fileno(f));
	fclose(f);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return sl_rpc_reader_new(fd, max_body);
}

static void test_rpc_framing(void **state)
{
	(void)state;
	static const char in[] =
		"Content-Length: 7\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"a\":1}"
		"content-length:2\r\n\r\n[]"             /* case-insensitive name, no blank */
		"Content-Length: x\r\n\r\n"              /* bad value: skipped */
		"X-Other: 1\r\n\r\n"                     /* no Content-Length: skipped */
		"Content-Length: 3\r\n\r\n{x}"           /* not JSON */
		"Content-Length: 40\r\n\r\n0123456789012345678901234567890123456789" /* past the bound: dropped */
		"Content-Length: 4\r\n\r\nnull";
	struct sl_rpc_reader *r = reader_over(in, sizeof in - 1, 32);
	json_t *m;
	const char *why;
	assert_true(sl_rpc_pending(r));
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_MESSAGE);
	assert_int_equal(json_integer_value(json_object_get(m, "a")), 1);
	json_decref(m);
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_MESSAGE);
	assert_true(json_is_array(m));
	json_decref(m);
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_BAD_HEADER);
	assert_non_null(strstr(why, "malformed"));
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_BAD_HEADER);
	assert_non_null(strstr(why, "without Content-Length"));
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_BAD_JSON);
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_TOO_LARGE);
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_MESSAGE);
	assert_true(json_is_null(m));
	json_decref(m);
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_EOF);
	sl_rpc_reader_free(r);
}

static void test_rpc_large_body(void **state)
{
	(void)state;
	/* a body larger than the reader's first buffer */
	size_t n = 300000;
	char *body = malloc(n + 64);
	int k = sprintf(body, "Content-Length: %zu\r\n\r\n\"", n);
	memset(body + k, 'y', n - 2);
	body[k + n - 2] = '"';
	struct sl_rpc_reader *r = reader_over(body, (size_t)k + n - 1, 1 << 20);
	json_t *m;
	const char *why;
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_MESSAGE);
	assert_int_equal(json_string_length(m), n - 2);
	json_decref(m);
	sl_rpc_reader_free(r);
	free(body);
}

/* After a block whose Content-Length was wrong, the next message is found at its header (turn3/lsp-desync). */
static void test_rpc_resync(void **state)
{
	(void)state;
	static const char in[] =
		"Content-Length: -5\r\n\r\n{}"                       /* negative: bad, its body glued on */
		"Content-Length: 4\r\n\r\ntrue"
		"Content-Length: 0x10\r\n\r\n{\"a\": 1}\n\n"          /* hex, a body with line breaks */
		"Content-Length: 5\r\n\r\nfalse"
		"Content-Length: 2\r\n\r\n[1,2,\"content-length: 9\"]" /* too small: its rest glued on */
		"CONTENT-LENGTH: 4\r\n\r\nnull";
	struct sl_rpc_reader *r = reader_over(in, sizeof in - 1, 1 << 10);
	json_t *m;
	const char *why;
	int messages = 0, bad = 0;
	enum sl_rpc_status st;
	/* every bad block is reported (the hex one twice: its body has a blank line; the too-small body as not
	 * JSON), every good message is read */
	const char *want[] = {"true", "false", "null"};
	while ((st = sl_rpc_read(r, &m, &why)) != SL_RPC_EOF) {
		if (st != SL_RPC_MESSAGE) {
			bad++;
			continue;
		}
		char *dump = json_dumps(m, JSON_ENCODE_ANY | JSON_COMPACT);
		assert_true(messages < 3);
		assert_string_equal(dump, want[messages]);
		free(dump);
		json_decref(m);
		messages++;
	}
	assert_int_equal(messages, 3);
	assert_int_equal(bad, 4);
	sl_rpc_reader_free(r);
}

/* A body past SL_JSON_MAX_VALUES values is dropped before jansson builds it (turn3/lsp-json-memory). */
static void test_rpc_value_bound(void **state)
{
	(void)state;
	size_t k = SL_JSON_MAX_VALUES + 1, n = 3 * k + 2;
	char *in = malloc(n + 64);
	int h = sprintf(in, "Content-Length: %zu\r\n\r\n[", n);
	for (size_t i = 0; i < k; i++)
		memcpy(in + h + 1 + 3 * i, "{},", 3);
	memcpy(in + h + 1 + 3 * k, "0]", 2);
	size_t total = (size_t)h + n + 1;
	memcpy(in + total, "Content-Length: 2\r\n\r\n[]", 24);
	struct sl_rpc_reader *r = reader_over(in, total + 24, 1 << 22);
	json_t *m;
	const char *why;
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_TOO_LARGE);
	assert_non_null(strstr(why, "JSON values"));
	assert_int_equal(sl_rpc_read(r, &m, &why), SL_RPC_MESSAGE);
	assert_true(json_is_array(m));
	json_decref(m);
	sl_rpc_reader_free(r);
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_positions_korean_astral),
		cmocka_unit_test(test_line_breaks),
		cmocka_unit_test(test_uri),
		cmocka_unit_test(test_rpc_framing),
		cmocka_unit_test(test_rpc_large_body),
		cmocka_unit_test(test_rpc_resync),
		cmocka_unit_test(test_rpc_value_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
