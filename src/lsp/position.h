/*
 * position: LSP positions (0-based line, and a column counted in the
 * negotiated encoding's code units: UTF-16 by default, UTF-8 bytes or
 * UTF-32 code points when negotiated) to and from byte offsets into a
 * document's UTF-8 text. Lines end at "\n", "\r\n" or "\r", as the
 * protocol defines them. A column past the end of its line means the end
 * of the line; a line past the end means the end of the text.
 */
#ifndef SWEEPLINT_LSP_POSITION_H
#define SWEEPLINT_LSP_POSITION_H

#include <stddef.h>
#include <stdint.h>

enum sl_lsp_encoding {
	SL_LSP_UTF16,
	SL_LSP_UTF8,
	SL_LSP_UTF32,
};

/* "utf-16", "utf-8", "utf-32". */
const char *sl_lsp_encoding_name(enum sl_lsp_encoding e);

/* A line table over text (malloc'd; the text is not copied and must outlive it). */
struct sl_lsp_lines {
	const char *text;
	size_t len;
	size_t *start;        /* byte offset of each line's first byte */
	size_t n;             /* lines (>= 1) */
};

void sl_lsp_lines_init(struct sl_lsp_lines *l, const char *text, size_t len);
void sl_lsp_lines_free(struct sl_lsp_lines *l);

/* The position of byte offset off (clamped to the text; an offset inside a character counts from its start). */
void sl_lsp_position(const struct sl_lsp_lines *l, enum sl_lsp_encoding e, size_t off, uint32_t *line,
		     uint32_t *character);

/* The byte offset of a position. */
size_t sl_lsp_offset(const struct sl_lsp_lines *l, enum sl_lsp_encoding e, uint32_t line, uint32_t character);

#endif
