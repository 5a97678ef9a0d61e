/*
 * position: byte offsets <-> LSP positions (position.h). A column is
 * counted by walking the line's bytes from its start: each UTF-8 lead byte
 * starts one code point, worth 1 UTF-32 unit, its byte length in UTF-8
 * units, and 2 UTF-16 units when it needs four bytes (outside the BMP). A
 * byte that is not valid UTF-8 counts as one unit of every encoding.
 */
#include "position.h"

#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"

const char *sl_lsp_encoding_name(enum sl_lsp_encoding e)
{
	switch (e) {
	case SL_LSP_UTF8:
		return "utf-8";
	case SL_LSP_UTF32:
		return "utf-32";
	case SL_LSP_UTF16:
	default:
		return "utf-16";
	}
}

void sl_lsp_lines_init(struct sl_lsp_lines *l, const char *text, size_t len)
{
	size_t cap = 64;
	l->text = text;
	l->len = len;
	l->start = malloc(cap * sizeof *l->start);
	if (!l->start)
		sl_oom();
	l->n = 0;
	l->start[l->n++] = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] != '\n' && text[i] != '\r')
			continue;
		if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
			i++;
		if (l->n == cap) {
			cap *= 2;
			size_t *ns = realloc(l->start, cap * sizeof *ns);
			if (!ns)
				sl_oom();
			l->start = ns;
		}
		l->start[l->n++] = i + 1;
	}
}

void sl_lsp_lines_free(struct sl_lsp_lines *l)
{
	free(l->start);
	l->start = NULL;
	l->n = 0;
}

/* The end of line i's content (before its break). */
static size_t line_end(const struct sl_lsp_lines *l, size_t i)
{
	size_t end = i + 1 < l->n ? l->start[i + 1] : l->len;
	if (i + 1 < l->n) {
		if (end > l->start[i] && l->text[end - 1] == '\n')
			end--;
		if (end > l->start[i] && l->text[end - 1] == '\r')
			end--;
	}
	return end;
}

/* The byte length of the UTF-8 sequence starting at p (n bytes left): 1 for a byte that starts none. */
static size_t seq_len(const unsigned char *p, size_t n)
{
	size_t k = p[0] < 0x80 ? 1 : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 1;
	if (k > n)
		return 1;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 1;
	return k;
}

static uint32_t units(enum sl_lsp_encoding e, size_t k)
{
	switch (e) {
	case SL_LSP_UTF8:
		return (uint32_t)k;
	case SL_LSP_UTF32:
		return 1;
	case SL_LSP_UTF16:
	default:
		return k == 4 ? 2 : 1;
	}
}

void sl_lsp_position(const struct sl_lsp_lines *l, enum sl_lsp_encoding e, size_t off, uint32_t *line,
		     uint32_t *character)
{
	if (off > l->len)
		off = l->len;
	size_t lo = 0, hi = l->n; /* the last line whose start <= off */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	size_t end = line_end(l, lo);
	if (off > end)
		off = end; /* inside the line break */
	const unsigned char *p = (const unsigned char *)l->text;
	uint32_t col = 0;
	for (size_t i = l->start[lo]; i < off;) {
		size_t k = seq_len(p + i, end - i);
		if (i + k > off)
			break;
		col += units(e, k);
		i += k;
	}
	*line = (uint32_t)lo;
	*character = col;
}

size_t sl_lsp_offset(const struct sl_lsp_lines *l, enum sl_lsp_encoding e, uint32_t line, uint32_t character)
{
	if (line >= l->n)
		return l->len;
	size_t end = line_end(l, line);
	const unsigned char *p = (const unsigned char *)l->text;
	size_t i = l->start[line];
	uint32_t col = 0;
	while (i < end && col < character) {
		size_t k = seq_len(p + i, end - i);
		uint32_t u = units(e, k);
		if (col + u > character)
			break; /* inside a character (half a surrogate pair): its start */
		col += u;
		i += k;
	}
	return i;
}
