/*
 * rpc: the LSP base protocol's framing (rpc.h). The header block is read
 * line by line from a buffer the reader owns; header names are compared
 * case-insensitively (they are HTTP-style); a block without Content-Length,
 * or with a value that is not a plain decimal, is reported and skipped, so
 * the next well-formed message is still read. After a block whose length
 * was wrong (negative, hex, too small), the rest of its body runs into the
 * next message's header: a header line with "Content-Length:" inside it
 * starts a new block there (the reader resynchronises on the next header).
 * A body with more JSON values than SL_JSON_MAX_VALUES is dropped before
 * jansson builds it.
 */
#include "rpc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/json_bound.h"
#include "sweeplint/json_out.h"

#define HEADER_MAX 8192   /* one header line past this is malformed */

struct sl_rpc_reader {
	int fd;
	size_t max_body;
	char *buf;            /* buffered input: [pos, len) not consumed yet */
	size_t pos, len, cap;
	bool eof;
	char why[256];
};

struct sl_rpc_reader *sl_rpc_reader_new(int fd, size_t max_body)
{
	struct sl_rpc_reader *r = calloc(1, sizeof *r);
	if (!r)
		sl_oom();
	r->fd = fd;
	r->max_body = max_body;
	r->cap = 1 << 16;
	r->buf = malloc(r->cap);
	if (!r->buf)
		sl_oom();
	return r;
}

void sl_rpc_reader_free(struct sl_rpc_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

/* Read more input into the buffer (growing it when full); false at the end of input. */
static bool fill(struct sl_rpc_reader *r)
{
	if (r->eof)
		return false;
	if (r->pos > 0 && r->pos == r->len)
		r->pos = r->len = 0;
	if (r->len == r->cap) {
		if (r->pos > 0) {
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->pos = 0;
		} else {
			char *nb = realloc(r->buf, r->cap * 2);
			if (!nb)
				sl_oom();
			r->buf = nb;
			r->cap *= 2;
		}
	}
	for (;;) {
		ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (n > 0) {
			r->len += (size_t)n;
			return true;
		}
		if (n < 0 && errno == EINTR)
			continue;
		r->eof = true;
		return false;
	}
}

/* The next header line without its "\r\n" (or "\n"), NUL-terminated in place; NULL at the end of input. */
static char *read_line(struct sl_rpc_reader *r, size_t *n, bool *too_long)
{
	*too_long = false;
	size_t scanned = 0;
	for (;;) {
		char *start = r->buf + r->pos;
		char *nl = memchr(start + scanned, '\n', r->len - r->pos - scanned);
		if (nl) {
			size_t k = (size_t)(nl - start);
			r->pos += k + 1;
			if (k > 0 && start[k - 1] == '\r')
				k--;
			start[k] = '\0';
			*n = k;
			return start;
		}
		scanned = r->len - r->pos;
		if (scanned > HEADER_MAX) {
			/* drop what is buffered of an endless line and keep looking for its end */
			*too_long = true;
			r->pos = r->len;
			scanned = 0;
		}
		if (!fill(r))
			return NULL;
	}
}

/*
 * Where the last "Content-Length:" (any case) inside a header line starts, or NULL when the line has
 * none past its start: a line that begins with the header is a header; one that has it inside is the
 * rest of a body glued to the next message's header.
 */
static char *glued_header(char *line, size_t n)
{
	static const char name[] = "content-length:";
	const size_t k = sizeof name - 1;
	char *found = NULL;
	for (size_t i = 1; i + k <= n; i++)
		if (strncasecmp(line + i, name, k) == 0)
			found = line + i;
	return found;
}

/* Parse a Content-Length value: decimal digits only, with surrounding blanks; -1 otherwise. */
static long long parse_length(const char *v)
{
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v < '0' || *v > '9')
		return -1;
	long long n = 0;
	for (; *v >= '0' && *v <= '9'; v++) {
		if (n > (1LL << 50))
			return -1;
		n = n * 10 + (*v - '0');
	}
	while (*v == ' ' || *v == '\t')
		v++;
	return *v ? -1 : n;
}

enum sl_rpc_status sl_rpc_read(struct sl_rpc_reader *r, json_t **msg, const char **why)
{
	*msg = NULL;
	*why = NULL;
	if (r->pos == r->len && r->cap > (1u << 20)) {
		/* a large message came and went: give its buffer back */
		free(r->buf);
		r->cap = 1 << 16;
		r->buf = malloc(r->cap);
		if (!r->buf)
			sl_oom();
		r->pos = r->len = 0;
	}
	long long length = -1;
	bool bad = false, any = false;
	for (;;) {
		size_t n;
		bool too_long;
		char *line = read_line(r, &n, &too_long);
		if (!line)
			return SL_RPC_EOF;
		if (too_long)
			bad = true;
		if (n == 0) {
			if (!any)
				continue; /* blank lines between messages */
			break;
		}
		char *glued = glued_header(line, n);
		if (glued) {
			/* the header of the next message behind a body that overran its length: start again there */
			n -= (size_t)(glued - line);
			line = glued;
			length = -1;
			bad = false;
		}
		any = true;
		char *colon = memchr(line, ':', n);
		if (!colon) {
			bad = true;
			continue;
		}
		*colon = '\0';
		if (strcasecmp(line, "Content-Length") == 0) {
			long long v = parse_length(colon + 1);
			if (v < 0 || (length >= 0 && v != length))
				bad = true;
			length = v;
		}
		/* Content-Type and unknown headers are accepted and ignored */
	}
	if (bad || length < 0) {
		snprintf(r->why, sizeof r->why, "%s",
			 length < 0 && !bad ? "a message header without Content-Length"
					    : "a malformed message header (expected 'Content-Length: N')");
		*why = r->why;
		return SL_RPC_BAD_HEADER;
	}
	size_t want = (size_t)length;
	if (want > r->max_body) {
		/* read the body through and drop it, so the next message is framed right */
		size_t left = want;
		while (left > 0) {
			size_t have = r->len - r->pos;
			if (have == 0) {
				if (!fill(r))
					return SL_RPC_EOF;
				continue;
			}
			size_t take = have < left ? have : left;
			r->pos += take;
			left -= take;
		}
		snprintf(r->why, sizeof r->why, "a message of %zu bytes, past the %zu MiB bound: dropped", want,
			 r->max_body >> 20);
		*why = r->why;
		return SL_RPC_TOO_LARGE;
	}
	while (r->len - r->pos < want) {
		if (r->pos > 0 && r->cap - r->pos < want) {
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->pos = 0;
		}
		if (r->cap < want) {
			char *nb = realloc(r->buf, want);
			if (!nb)
				sl_oom();
			r->buf = nb;
			r->cap = want;
		}
		if (!fill(r))
			return SL_RPC_EOF;
	}
	/* counted before jansson builds anything: ~40 bytes a value, so 16 MiB of "{}," took 1.3 GB */
	if (sl_json_values_past(r->buf + r->pos, want, SL_JSON_MAX_VALUES) < want) {
		r->pos += want;
		snprintf(r->why, sizeof r->why, "a message of more than %d JSON values, past the bound: dropped",
			 SL_JSON_MAX_VALUES);
		*why = r->why;
		return SL_RPC_TOO_LARGE;
	}
	json_error_t err;
	json_t *j = json_loadb(r->buf + r->pos, want, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
	r->pos += want;
	if (!j) {
		snprintf(r->why, sizeof r->why, "the message is not JSON: %.160s (at byte %d)", err.text, err.position);
		*why = r->why;
		return SL_RPC_BAD_JSON;
	}
	*msg = j;
	return SL_RPC_MESSAGE;
}

bool sl_rpc_pending(struct sl_rpc_reader *r)
{
	if (r->len > r->pos || r->eof)
		return true;
	struct pollfd p = {.fd = r->fd, .events = POLLIN};
	int n;
	do
		n = poll(&p, 1, 0);
	while (n < 0 && errno == EINTR);
	return n > 0;
}

int sl_rpc_write(int fd, json_t *msg)
{
	char *raw = json_dumps(msg, JSON_COMPACT);
	if (!raw)
		sl_oom();
	/* bidi and C1 controls from a document spelled as \u escapes (the same JSON value): an editor
	 * showing a diagnostic's message never reorders it (include/sweeplint/json_out.h) */
	char *body = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&body, &len);
	if (!m)
		sl_oom();
	sl_json_write(m, raw, strlen(raw));
	if (fclose(m) != 0 || !body)
		sl_oom();
	free(raw);
	char head[64];
	int hn = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", len);
	int rc = 0;
	const char *parts[2] = {head, body};
	size_t sizes[2] = {(size_t)hn, len};
	for (int i = 0; i < 2 && rc == 0; i++) {
		size_t off = 0;
		while (off < sizes[i]) {
			ssize_t w = write(fd, parts[i] + off, sizes[i] - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				rc = -1;
				break;
			}
			off += (size_t)w;
		}
	}
	free(body);
	return rc;
}
