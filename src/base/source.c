/* source: file bytes, the line table, and libyaml-mark -> byte/line/column conversion. */
#include "sweeplint/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/notebook.h"

static bool is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

/* Bytes of the line break at i: \n, \r\n (at the \n), a lone \r; with yaml, NEL, LS and PS too. */
static size_t break_len(const struct sl_source *s, size_t i, bool yaml)
{
	unsigned char c = (unsigned char)s->bytes[i];
	if (c == '\n')
		return 1;
	if (c == '\r')
		return i + 1 >= s->len || s->bytes[i + 1] != '\n' ? 1 : 0;
	if (!yaml || c < 0xC2)
		return 0;
	if (c == 0xC2 && i + 1 < s->len && (unsigned char)s->bytes[i + 1] == 0x85)
		return 2;
	if (c == 0xE2 && i + 2 < s->len && (unsigned char)s->bytes[i + 1] == 0x80 &&
	    ((unsigned char)s->bytes[i + 2] == 0xA8 || (unsigned char)s->bytes[i + 2] == 0xA9))
		return 3;
	return 0;
}

/* U+FEFF at i: PyYAML's reader does not count it as a column. */
static bool is_zwnbsp(const struct sl_source *s, size_t i)
{
	return i + 2 < s->len && (unsigned char)s->bytes[i] == 0xEF && (unsigned char)s->bytes[i + 1] == 0xBB &&
	       (unsigned char)s->bytes[i + 2] == 0xBF;
}

static void build_lines(struct sl_arena *a, struct sl_source *s, bool yaml)
{
	size_t n = 1;
	for (size_t i = 0; i < s->len; i++)
		if (break_len(s, i, yaml))
			n++;
	s->line_start = sl_arena_array(a, n, sizeof *s->line_start);
	s->nlines = n;
	s->yaml_lines = yaml;
	size_t k = 1;
	s->line_start[0] = 0;
	bool ascii = true;
	bool seen_break = false;
	for (size_t i = 0; i < s->len; i++) {
		unsigned char c = (unsigned char)s->bytes[i];
		if (c >= 0x80)
			ascii = false;
		size_t brk = break_len(s, i, yaml);
		if (!brk)
			continue;
		if (!seen_break && c == '\n')
			s->crlf = i > 0 && s->bytes[i - 1] == '\r';
		seen_break = true;
		s->line_start[k++] = i + brk;
		i += brk - 1;
	}
	s->ascii = ascii;
	if (!ascii) {
		/* characters before each block, so that a column costs O(block), not O(line); for YAML,
		 * U+FEFF is no character (PyYAML's columns) */
		size_t nb = s->len / SL_SOURCE_BLOCK + 1, c = 0;
		s->block_chars = sl_arena_array(a, nb, sizeof *s->block_chars);
		for (size_t i = 0; i < s->len; i++) {
			if (i % SL_SOURCE_BLOCK == 0)
				s->block_chars[i / SL_SOURCE_BLOCK] = c;
			c += !is_cont((unsigned char)s->bytes[i]) && !(yaml && is_zwnbsp(s, i));
		}
		if (s->len % SL_SOURCE_BLOCK == 0)
			s->block_chars[s->len / SL_SOURCE_BLOCK] = c;
	}
}

void sl_source_yaml_lines(struct sl_arena *a, struct sl_source *s)
{
	if (s->yaml_lines || s->ascii)
		return; /* NEL, LS, PS and U+FEFF are not ASCII */
	build_lines(a, s, true);
}

_Static_assert(SL_MAX_INPUT_BYTES >> 20 == 4 && SL_MAX_INPUT_BYTES % (1u << 20) == 0,
	       "SL_MAX_INPUT_MIB says the limit in messages");

struct sl_source *sl_source_from_bytes(struct sl_arena *a, const char *path, const char *bytes, size_t len)
{
	struct sl_source *s = sl_arena_alloc(a, sizeof *s);
	s->path = sl_arena_strdup(a, path);
	s->display = strcmp(path, "-") == 0 ? "<stdin>" : s->path;
	char *copy = sl_arena_alloc(a, len + 1);
	if (len)
		memcpy(copy, bytes, len);
	s->bytes = copy;
	s->len = len;
	s->bom = len >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	build_lines(a, s, false);
	s->cur_char = 0;
	s->cur_byte = 0;
	return s;
}

struct sl_source *sl_source_read(struct sl_arena *a, const char *path, size_t max_bytes, int *err)
{
	int fd = -1;
	char *buf = NULL;
	struct sl_source *s = NULL;
	size_t len = 0, cap = 0;
	*err = 0;
	if (strcmp(path, "-") == 0) {
		fd = 0;
	} else {
		/* O_NONBLOCK: opening a FIFO without a writer would block forever; it is refused below */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0) {
			*err = errno;
			goto out;
		}
		struct stat st;
		if (fstat(fd, &st) != 0) {
			*err = errno;
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			*err = S_ISDIR(st.st_mode) ? EISDIR : SL_SOURCE_ENOTREG;
			goto out;
		}
		/* a regular file past the bound is refused before a byte of it is read */
		if ((uintmax_t)st.st_size > max_bytes) {
			*err = EFBIG;
			goto out;
		}
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	cap = 64 * 1024;
	buf = malloc(cap);
	if (!buf)
		sl_oom();
	for (;;) {
		if (len == cap) {
			if (cap > max_bytes) {
				*err = EFBIG;
				goto out;
			}
			/* room for one byte past the bound, so a file of exactly max_bytes is read whole */
			cap = max_bytes < SIZE_MAX && cap * 2 > max_bytes ? max_bytes + 1 : cap * 2;
			char *n = realloc(buf, cap);
			if (!n)
				sl_oom();
			buf = n;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*err = errno;
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > max_bytes) {
			*err = EFBIG;
			goto out;
		}
	}
	s = sl_source_from_bytes(a, path, buf, len);
out:
	free(buf);
	if (fd > 0)
		close(fd);
	return s;
}

const char *sl_source_strerror(int err)
{
	if (err == SL_SOURCE_ENOTREG)
		return "not a regular file (a FIFO, socket or device is never read)";
	if (err == EFBIG)
		return "larger than the " SL_MAX_INPUT_MIB " MiB limit"; /* sl_source_read's only EFBIG */
	return strerror(err);
}

size_t sl_source_char_to_byte(struct sl_source *s, size_t idx)
{
	/* libyaml's index counts a leading BOM as one character, like any other */
	if (s->ascii) {
		size_t b = idx;
		return b > s->len ? s->len : b;
	}
	size_t c = s->cur_char, b = s->cur_byte;
	while (c < idx && b < s->len) {
		b++;
		while (b < s->len && is_cont((unsigned char)s->bytes[b]))
			b++;
		/* libyaml counts CRLF as two characters, like any other pair of bytes */
		c++;
	}
	while (c > idx && b > 0) {
		b--;
		while (b > 0 && is_cont((unsigned char)s->bytes[b]))
			b--;
		c--;
	}
	s->cur_char = c;
	s->cur_byte = b;
	return b;
}

static size_t line_of(const struct sl_source *s, size_t off)
{
	size_t lo = 0, hi = s->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->line_start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Characters (non-continuation bytes) in bytes [0, off) of a non-ASCII source. */
static size_t chars_before(const struct sl_source *s, size_t off)
{
	size_t k = off / SL_SOURCE_BLOCK, c = s->block_chars[k];
	for (size_t i = k * SL_SOURCE_BLOCK; i < off; i++)
		c += !is_cont((unsigned char)s->bytes[i]) && !(s->yaml_lines && is_zwnbsp(s, i));
	return c;
}

void sl_source_linecol(const struct sl_source *s, size_t off, uint32_t *line, uint32_t *col)
{
	if (off > s->len)
		off = s->len;
	size_t l = line_of(s, off);
	size_t from = s->line_start[l];
	if (l == 0 && s->bom && off >= s->bom)
		from = s->bom;
	/* O(1) per position, not O(line): a 5 MB one-line flow list has a million nodes */
	size_t c = 1 + (s->ascii ? off - from : chars_before(s, off) - chars_before(s, from));
	*line = (uint32_t)(l + 1 > UINT32_MAX ? UINT32_MAX : l + 1);
	*col = (uint32_t)(c > UINT32_MAX ? UINT32_MAX : c);
}

struct sl_span sl_source_span(const struct sl_source *s, size_t start, size_t end)
{
	struct sl_span sp;
	if (end < start)
		end = start;
	sp.start = start;
	sp.end = end;
	sl_source_linecol(s, start, &sp.line, &sp.col);
	sl_source_linecol(s, end, &sp.end_line, &sp.end_col);
	return sp;
}

const char *sl_source_line(const struct sl_source *s, uint32_t n, size_t *len)
{
	if (n == 0 || n > s->nlines) {
		*len = 0;
		return s->bytes + s->len;
	}
	size_t from = s->line_start[n - 1];
	size_t to = n < s->nlines ? s->line_start[n] : s->len;
	while (to > from && (s->bytes[to - 1] == '\n' || s->bytes[to - 1] == '\r'))
		to--;
	if (s->yaml_lines && n < s->nlines && to == s->line_start[n]) {
		/* NEL, LS or PS */
		if (to - from >= 2 && (unsigned char)s->bytes[to - 2] == 0xC2)
			to -= 2;
		else if (to - from >= 3)
			to -= 3;
	}
	*len = to - from;
	return s->bytes + from;
}

/* The code cell holding line l of a notebook's code, or NULL. */
static const struct sl_nb_cell *cell_of_line(const struct sl_notebook *nb, uint32_t l)
{
	size_t lo = 0, hi = nb->ncells;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (nb->cells[mid].first_line <= l)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &nb->cells[lo - 1] : NULL;
}

struct sl_span sl_source_cell_span(const struct sl_source *s, struct sl_span span, unsigned *cell)
{
	*cell = 0;
	if (!s || !s->notebook)
		return span;
	const struct sl_nb_cell *c = cell_of_line(s->notebook, span.line);
	if (!c)
		return span;
	const struct sl_nb_cell *c1 = cell_of_line(s->notebook, span.end_line);
	*cell = c->number;
	span.line = span.line - c->first_line + 1;
	if (c1 == c) {
		span.end_line = span.end_line - c->first_line + 1;
	} else {
		span.end_line = span.line;
		span.end_col = span.col;
	}
	return span;
}

const char *sl_source_where(struct sl_arena *a, const struct sl_source *s, struct sl_span span)
{
	unsigned cell = 0;
	struct sl_span c = sl_source_cell_span(s, span, &cell);
	if (cell)
		return sl_arena_printf(a, "%s:cell %u:%u:%u", s->display, cell, c.line, c.col);
	return sl_arena_printf(a, "%s:%u:%u", s->display, span.line, span.col);
}

const char *sl_source_where_line(struct sl_arena *a, const struct sl_source *s, uint32_t line)
{
	unsigned cell = 0;
	struct sl_span span = {.line = line, .end_line = line};
	struct sl_span c = sl_source_cell_span(s, span, &cell);
	if (cell)
		return sl_arena_printf(a, "%s:cell %u:%u", s->display, cell, c.line);
	return sl_arena_printf(a, "%s:%u", s->display, line);
}
