/*
 * test_source: the line table, line/column of byte offsets (BOM, CRLF, lone
 * CR, Korean), libyaml character index -> byte, line text, and reading
 * files (directories, missing files, the size bound, stdin name).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/source.h"

static int setup(void **state)
{
	*state = sl_arena_new();
	return 0;
}

static int teardown(void **state)
{
	sl_arena_free(*state);
	return 0;
}

static struct sl_source *src_of(struct sl_arena *a, const char *t)
{
	return sl_source_from_bytes(a, "t.yaml", t, strlen(t));
}

/* Line/column the slow way: walk every byte from the start. */
static void reference(const char *t, size_t off, uint32_t *line, uint32_t *col)
{
	size_t i = strncmp(t, "\xEF\xBB\xBF", 3) == 0 && off >= 3 ? 3 : 0;
	*line = 1;
	*col = 1;
	for (; i < off; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c == '\n' || (c == '\r' && t[i + 1] != '\n')) {
			(*line)++;
			*col = 1;
		} else if (c != '\r' && (c & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

static void test_linecol(void **state)
{
	struct sl_arena *a = *state;
	static const char *const texts[] = {
		"a: 1\nb: 2\n",
		("\xEF\xBB\xBF" /* a BOM, then */ "a: 1\nb: 2"),
		"a: 1\r\nb: 2\r\n\r\nc: 3",
		"a: 1\rb: 2\r",
		"이름: 한국어 # 주석\n값: [1, 2]\n",
		"\t- x\n\t- y\n",
		"",
	};
	for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
		const char *t = texts[k];
		struct sl_source *s = src_of(a, t);
		for (size_t off = 0; off <= strlen(t); off++) {
			/* offsets inside a character or a CRLF or the BOM are not positions */
			if (((unsigned char)t[off] & 0xC0) == 0x80 || (off && t[off - 1] == '\r' && t[off] == '\n') ||
			    (s->bom && off < 3))
				continue;
			uint32_t line, col, rl, rc;
			sl_source_linecol(s, off, &line, &col);
			reference(t, off, &rl, &rc);
			if (line != rl || col != rc)
				print_error("text %zu offset %zu: %u:%u, expected %u:%u\n", k, off, line, col, rl, rc);
			assert_int_equal(line, rl);
			assert_int_equal(col, rc);
		}
	}
}

static void test_flags_and_lines(void **state)
{
	struct sl_arena *a = *state;
	struct sl_source *s = src_of(a, "\xEF\xBB\xBF" "a: 1\r\nb: 2\r\n");
	assert_int_equal(s->bom, 3);
	assert_true(s->crlf);
	assert_false(s->ascii);
	assert_int_equal(s->nlines, 3);
	size_t n;
	const char *l = sl_source_line(s, 2, &n);
	assert_int_equal(n, 4);
	assert_memory_equal(l, "b: 2", 4);
	sl_source_line(s, 3, &n);
	assert_int_equal(n, 0);
	sl_source_line(s, 4, &n); /* past the end */
	assert_int_equal(n, 0);
	s = src_of(a, "a: 1\nb: 2");
	assert_false(s->crlf);
	assert_true(s->ascii);
	assert_int_equal(s->nlines, 2);
	/* a span across lines */
	struct sl_span sp = sl_source_span(s, 3, 9);
	assert_int_equal(sp.line, 1);
	assert_int_equal(sp.col, 4);
	assert_int_equal(sp.end_line, 2);
	assert_int_equal(sp.end_col, 5);
}

/* PyYAML's Reader.forward: the line and column of byte off (a character's start), 1-based. */
static void pyyaml_linecol(const char *t, size_t len, size_t off, uint32_t *line, uint32_t *col)
{
	const unsigned char *u = (const unsigned char *)t;
	*line = *col = 1;
	for (size_t i = 0; i < off;) {
		size_t n = u[i] < 0x80 ? 1 : u[i] >= 0xF0 ? 4 : u[i] >= 0xE0 ? 3 : 2;
		bool brk = u[i] == '\n' || (u[i] == '\r' && (i + 1 >= len || u[i + 1] != '\n')) ||
			   (n == 2 && u[i] == 0xC2 && u[i + 1] == 0x85) ||
			   (n == 3 && u[i] == 0xE2 && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9));
		if (brk) {
			(*line)++;
			*col = 1;
		} else if (!(n == 3 && memcmp(t + i, "\xEF\xBB\xBF", 3) == 0)) {
			(*col)++; /* U+FEFF is no column */
		}
		i += n;
	}
}

/* A source read as YAML counts lines and columns as PyYAML does: NEL, LS, PS break lines. */
static void test_yaml_lines(void **state)
{
	struct sl_arena *a = *state;
	static const char *const texts[] = {
		"a: 1\xC2\x85" "b: 2\xE2\x80\xA8" "c: \xEF\xBB\xBF" "3\xE2\x80\xA9" "d\r\ne\rf\n",
		"\xEF\xBB\xBF" "k: \xE2\x80\xA8\xE2\x80\xA8" "x\xC2\x85\xC2\x85\xEF\xBB\xBF\xEF\xBB\xBF" "y: \xED\x95\x9C",
		"\xE2\x80\xA9\r\r\n\xC2\x85",
	};
	for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
		const char *t = texts[k];
		struct sl_source *s = src_of(a, t);
		uint32_t line, col;
		/* not YAML: \n, \r\n and \r only */
		sl_source_linecol(s, strlen(t), &line, &col);
		uint32_t plain_line = line;
		sl_source_yaml_lines(a, s);
		sl_source_yaml_lines(a, s); /* idempotent */
		assert_true(s->yaml_lines);
		for (size_t off = 0; off <= strlen(t); off++) {
			if (off < strlen(t) && ((unsigned char)t[off] & 0xC0) == 0x80)
				continue;
			uint32_t rl, rc;
			pyyaml_linecol(t, strlen(t), off, &rl, &rc);
			sl_source_linecol(s, off, &line, &col);
			if (line != rl || col != rc)
				print_error("text %zu offset %zu: %u:%u, PyYAML %u:%u\n", k, off, line, col, rl, rc);
			assert_int_equal(line, rl);
			assert_int_equal(col, rc);
		}
		assert_true(line > plain_line);
		assert_int_equal(s->nlines, line);
	}
	/* a line's text ends before its NEL, LS or PS */
	struct sl_source *s = src_of(a, texts[0]);
	sl_source_yaml_lines(a, s);
	size_t n;
	const char *l = sl_source_line(s, 1, &n);
	assert_int_equal(n, 4);
	assert_memory_equal(l, "a: 1", 4);
	l = sl_source_line(s, 2, &n);
	assert_int_equal(n, 4);
	assert_memory_equal(l, "b: 2", 4);
	l = sl_source_line(s, 3, &n);
	assert_int_equal(n, 7);
	assert_memory_equal(l, "c: \xEF\xBB\xBF" "3", 7);
	l = sl_source_line(s, 4, &n);
	assert_int_equal(n, 1);
	assert_memory_equal(l, "d", 1);
}

static void test_char_to_byte(void **state)
{
	struct sl_arena *a = *state;
	/* libyaml counts characters; the BOM counts as one */
	const char *t = "\xEF\xBB\xBF" "k: 한국어\ny: 1\n";
	struct sl_source *s = src_of(a, t);
	size_t idx = 0;
	for (size_t b = 0; b < strlen(t); b++) {
		if (((unsigned char)t[b] & 0xC0) == 0x80)
			continue;
		assert_int_equal(sl_source_char_to_byte(s, idx), b);
		idx++;
	}
	/* backwards too (marks are mostly, not always, in order) */
	assert_int_equal(sl_source_char_to_byte(s, 0), 0);
	assert_int_equal(sl_source_char_to_byte(s, 4), (size_t)(strstr(t, "한") - t));
	/* past the end clamps */
	assert_int_equal(sl_source_char_to_byte(s, 1000), strlen(t));
}

static void test_read(void **state)
{
	struct sl_arena *a = *state;
	int err = 0;
	assert_null(sl_source_read(a, "/nonexistent/sweep.yaml", 1 << 20, &err));
	assert_int_equal(err, ENOENT);
	assert_null(sl_source_read(a, "/tmp", 1 << 20, &err));
	assert_int_equal(err, EISDIR);
	char path[] = "/tmp/sl_test_source_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	/* 70000 bytes: past the reader's first 64 KiB buffer */
	size_t n = 70000;
	char *buf = malloc(n);
	assert_non_null(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = (i % 50 == 49) ? '\n' : 'x';
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	struct sl_source *s = sl_source_read(a, path, 1 << 20, &err);
	assert_non_null(s);
	assert_int_equal(s->len, n);
	assert_memory_equal(s->bytes, buf, n);
	assert_int_equal(s->bytes[n], '\0');
	assert_string_equal(s->display, path);
	/* the bound: exactly n bytes is fine, n - 1 is too few */
	assert_non_null(sl_source_read(a, path, n, &err));
	assert_null(sl_source_read(a, path, n - 1, &err));
	assert_int_equal(err, EFBIG);
	/* the 64 KiB buffer size itself as the bound */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, 65536), 65536);
	close(fd);
	s = sl_source_read(a, path, 65536, &err);
	if (!s)
		print_error("a file of exactly max_bytes refused (err %d)\n", err);
	assert_non_null(s);
	assert_int_equal(s->len, 65536);
	unlink(path);
	free(buf);
	s = sl_source_from_bytes(a, "-", "", 0);
	assert_string_equal(s->display, "<stdin>");
	assert_int_equal(s->nlines, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_linecol, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flags_and_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_yaml_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_char_to_byte, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
