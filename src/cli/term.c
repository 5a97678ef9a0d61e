/*
 * term: the CLI's stderr as a stream that escapes control characters (C0 but newline and tab, DEL,
 * C1 as UTF-8 U+0080..U+009F), so no byte of a sweep, config or file name reaches the terminal as an
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

#include "cli.h"

struct term {
	FILE *to;
	bool c2; /* a 0xC2 byte waits for the next one (a C1 control is 0xC2 0x80..0x9F) */
};

static ssize_t term_write(void *cookie, const char *buf, size_t n)
{
	struct term *t = cookie;
	size_t run = 0; /* start of the bytes passed through as they are, written together: the target is
			   usually unbuffered stderr, where a byte at a time is a system call per byte */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (t->c2) {
			t->c2 = false;
			if (c >= 0x80 && c <= 0x9f) {
				fprintf(t->to, "\\u%04x", c);
				run = i + 1;
				continue;
			}
			fputc(0xc2, t->to);
		}
		if (c == 0xc2) {
			fwrite(buf + run, 1, i - run, t->to);
			t->c2 = true;
			run = i + 1;
		} else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
			fwrite(buf + run, 1, i - run, t->to);
			fprintf(t->to, "\\x%02x", c);
			run = i + 1;
		}
	}
	fwrite(buf + run, 1, n - run, t->to);
	if (fflush(t->to) != 0)
		return -1;
	return (ssize_t)n;
}

static int term_close(void *cookie)
{
	struct term *t = cookie;
	if (t->c2)
		fputc(0xc2, t->to);
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
