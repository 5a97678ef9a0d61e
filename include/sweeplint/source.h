/*
 * source: the bytes of one input file and the positions in it. A source and
 * its line table live in the run arena. Spans carry both what people read
 * (1-based line and column, the column counted in characters) and what edits
 * need (a byte range into source->bytes); the conversion from libyaml's
 * character-counting marks happens here and nowhere else.
 */
#ifndef SWEEPLINT_SOURCE_H
#define SWEEPLINT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sl_arena;
struct sl_notebook;

/* A position range. start <= end; both index source->bytes. line/col are 1-based. */
struct sl_span {
	uint32_t line;     /* 1-based line of start */
	uint32_t col;      /* 1-based column of start, in characters */
	uint32_t end_line; /* 1-based line of end */
	uint32_t end_col;  /* 1-based column of the character after the span */
	size_t start;      /* byte offset of the first byte */
	size_t end;        /* byte offset one past the last byte */
};

struct sl_source {
	const char *path;    /* as given on the command line; "-" for stdin ("<stdin>" shown) */
	const char *display; /* the name printed in diagnostics */
	const char *bytes;   /* the file's bytes, NUL-terminated (a NUL inside is data) */
	size_t len;          /* byte count */
	size_t bom;          /* 3 when the file starts with a UTF-8 BOM, else 0 */
	bool crlf;           /* the first line break is CRLF */
	bool ascii;          /* no byte >= 0x80: character index == byte offset */
	bool yaml_lines;     /* lines also end at NEL, LS and PS and columns skip U+FEFF (sl_source_yaml_lines) */
	bool json_lines;     /* JSON read through libyaml: sl_ydoc_parse keeps \n lines, as JSON readers count */
	bool python;         /* Python code (a .py file, a notebook's code): edits spell values as Python literals */
	const struct sl_notebook *notebook; /* a notebook's code cells (notebook.h): positions are cell:line:col */
	size_t *line_start;  /* byte offset of each line's first byte; [0] == 0 */
	size_t nlines;       /* entries in line_start (>= 1) */
	/* cursor for character-index -> byte conversion (marks arrive mostly in order) */
	size_t cur_char, cur_byte;
	/* non-ASCII sources: characters before byte k*SL_SOURCE_BLOCK, k = 0..len/SL_SOURCE_BLOCK */
	size_t *block_chars;
};

#define SL_SOURCE_BLOCK 64

/*
 * The most bytes of any input file (a sweep, a project config, a trainer config, a model's
 * config.json), refused past it before a byte is read. 4 MiB keeps every command under the 64 MB
 * memory bound (docs/reliability.md: a 4 MiB sweep checks in 16 MB, fixes in 32 MB; a 16 MiB one
 * took 118 MB in fix) and is over 100 times the largest sweep of ../shared/corpus (26 KB).
 */
#define SL_MAX_INPUT_BYTES (4u << 20)
#define SL_MAX_INPUT_MIB "4" /* the same, for messages */

/* A source over bytes already in memory (copied into the arena). */
struct sl_source *sl_source_from_bytes(struct sl_arena *a, const char *path, const char *bytes, size_t len);

/*
 * Read a regular file ("-" reads stdin, whatever it is). On failure returns NULL and sets *err to
 * an errno value: EISDIR for a directory, SL_SOURCE_ENOTREG for a FIFO, socket or device (a FIFO
 * without a writer would block forever, /dev/zero never ends), EFBIG past max_bytes (a regular
 * file's size is checked before a byte of it is read).
 */
struct sl_source *sl_source_read(struct sl_arena *a, const char *path, size_t max_bytes, int *err);

/* sl_source_read's *err for a path that is no regular file (no errno value says that). */
#define SL_SOURCE_ENOTREG 0x10000

/* What sl_source_read's *err says, for messages: strerror() but for SL_SOURCE_ENOTREG. */
const char *sl_source_strerror(int err);

/*
 * Count positions as PyYAML's reader does, for a source read as YAML (sl_ydoc_parse calls it): NEL
 * (U+0085), LS (U+2028) and PS (U+2029) end lines too, and U+FEFF is no column. Idempotent; every
 * span made after it uses the new table. Other sources (Python, JSON read by jansson) keep \n, \r\n
 * and \r, as their readers and editors count.
 */
void sl_source_yaml_lines(struct sl_arena *a, struct sl_source *s);

/* The byte offset of the character with libyaml's 0-based stream index idx (a BOM counts as one). */
size_t sl_source_char_to_byte(struct sl_source *s, size_t idx);

/* The span of bytes [start, end): line/col computed from the line table. */
struct sl_span sl_source_span(const struct sl_source *s, size_t start, size_t end);

/* 1-based line and character column of byte offset off. */
void sl_source_linecol(const struct sl_source *s, size_t off, uint32_t *line, uint32_t *col);

/*
 * A span as people and tools count it: for a notebook's code (s->notebook), *cell receives the
 * cell's number (among all cells, as ruff and nbqa count) and the lines become lines of that cell;
 * otherwise *cell is 0 and the span is returned as is.
 */
struct sl_span sl_source_cell_span(const struct sl_source *s, struct sl_span span, unsigned *cell);

/* "path:line:col", or "path:cell N:line:col" in a notebook's code (in a). */
const char *sl_source_where(struct sl_arena *a, const struct sl_source *s, struct sl_span span);

/* "path:line", or "path:cell N:line" in a notebook's code (in a). */
const char *sl_source_where_line(struct sl_arena *a, const struct sl_source *s, uint32_t line);

/* The bytes of line n (1-based), without its line break. */
const char *sl_source_line(const struct sl_source *s, uint32_t n, size_t *len);

#endif
