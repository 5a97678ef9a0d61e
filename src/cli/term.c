/*
 * term: the CLI's stderr as a stream that escapes what a terminal must not receive raw (C0 but newline
 * and tab, DEL, C1, bidi controls, invalid UTF-8: sl_term_escape_at), so no byte of a sweep, config or file name reaches the terminal as an
 * escape sequence, whichever message carries it (split's and fix's lines, usage errors). Messages
 * escape the text they quote with sl_term_safe (which also escapes newlines); this is the net under
 * them. stdout is not filtered as a whole: it carries JSON, SARIF and rewritten sweeps byte for byte,
 * and the text report escapes what it prints (src/report/text.c); the text tables of `estimate`,
 * `models` and `gpus` are written through this stream too (a model path or a project model's name is
 * input), and `fit` quotes its model name with sl_term_safe (its table's colours are its own).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweeplint/utf8.h"

struct term {
	FILE *to;
	char pend[4]; /* the start of a UTF-8 character the last write cut off */
	size_t npend;
};

/* Whether p[0..m) is the start of a UTF-8 sequence longer than m (more bytes may complete it). */
static bool incomplete(const char *s, size_t m)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	if (m >= len)
		return false;
	for (size_t i = 1; i < m; i++)
		if ((p[i] & 0xc0) != 0x80)
			return false;
	return true;
}

/* Write the pending bytes that can no longer grow into a character; keep a tail that still can. */
static void settle(struct term *t, bool all)
{
	char esc[11];
	size_t k = 0;
	while (k < t->npend) {
		if (!all && incomplete(t->pend + k, t->npend - k))
			break;
		size_t m = sl_term_escape_at(t->pend + k, t->npend - k, SL_TERM_KEEP_NL, esc);
		if (esc[0])
			fputs(esc, t->to);
		else
			fwrite(t->pend + k, 1, m, t->to);
		k += m;
	}
	memmove(t->pend, t->pend + k, t->npend - k);
	t->npend -= k;
}

static ssize_t term_write(void *cookie, const char *buf, size_t n)
{
	struct term *t = cookie;
	size_t i = 0;
	while (t->npend && t->npend < sizeof t->pend && i < n) { /* complete the character the last write cut */
		t->pend[t->npend++] = buf[i++];
		settle(t, false);
	}
	size_t run = i; /* start of the bytes passed through as they are, written together: the target is
			   usually unbuffered stderr, where a byte at a time is a system call per byte */
	char esc[11];
	while (i < n) {
		unsigned char c = (unsigned char)buf[i];
		if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') {
			i++;
			continue;
		}
		if (incomplete(buf + i, n - i)) {
			fwrite(buf + run, 1, i - run, t->to);
			memcpy(t->pend, buf + i, n - i);
			t->npend = n - i;
			run = i = n;
			break;
		}
		size_t k = sl_term_escape_at(buf + i, n - i, SL_TERM_KEEP_NL, esc);
		if (esc[0]) {
			fwrite(buf + run, 1, i - run, t->to);
			fputs(esc, t->to);
			run = i + k;
		}
		i += k;
	}
	fwrite(buf + run, 1, n - run, t->to);
	if (fflush(t->to) != 0)
		return -1;
	return (ssize_t)n;
}

static int term_close(void *cookie)
{
	struct term *t = cookie;
	settle(t, true);
	int rc = fflush(t->to);
	free(t);
	return rc;
}

FILE *sl_cli_term_stream(FILE *to)
{
	struct term *t = calloc(1, sizeof *t);
	if (!t)
		return to;
	t->to = to;
	FILE *f = fopencookie(t, "w", (cookie_io_functions_t){.write = term_write, .close = term_close});
	if (!f) {
		free(t);
		return to;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

int sl_cli_term_close(FILE *f, FILE *to)
{
	if (f == to)
		return fflush(to);
	int rc = fclose(f);
	return fflush(to) == 0 && rc == 0 && !ferror(to) ? 0 : EOF;
}
