/*
 * notebook: a Jupyter notebook's code as one Python source, and the way back to the notebook's bytes.
 * The code cells' sources (a JSON string, or an array of them) are decoded and concatenated into a
 * code source (each cell ended by a line break), as ruff and nbqa read a notebook; every piece keeps
 * the byte range of its JSON string in the .ipynb file, so a position in the code is also a cell,
 * a line in that cell and a place in the file (SARIF, GitHub annotations), and an edit of the code is
 * an edit of the JSON strings that hold it, re-encoded alone: the rest of the file, outputs
 * included, keeps its bytes. Everything lives in the arena given; the raw source is borrowed.
 */
#ifndef SWEEPLINT_NOTEBOOK_H
#define SWEEPLINT_NOTEBOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sl_arena;
struct sl_buf;
struct sl_edit;
struct sl_source;

/* One JSON string of a cell's source: its bytes in the file (inside the quotes) and in the code. */
struct sl_nb_piece {
	size_t raw_start, raw_end;
	size_t code_start, code_end;
};

struct sl_nb_cell {
	uint32_t number;            /* 1-based, counting every cell of the notebook (as ruff's "cell N") */
	uint32_t first_line;        /* the line of the code source its first line is */
	uint32_t nlines;            /* its lines in the code source (the added line break included) */
	size_t code_start, code_end; /* its text in the code source, the added line break excluded */
	bool array;                 /* "source" is an array of strings (else one string) */
	size_t open, close;         /* the array's '[' and ']' (or the string's quotes) in the file */
	const char *sep;            /* what separates two strings of the array in the file (",\n    ") */
	struct sl_nb_piece *pieces;
	size_t npieces;
};

struct sl_notebook {
	const struct sl_source *raw; /* the .ipynb file */
	struct sl_nb_cell *cells;    /* the code cells, in order */
	size_t ncells;
	uint32_t ncells_all;         /* cells of every type */
	const char *language;        /* metadata.language_info.name / kernelspec.language, or NULL */
};

/*
 * Read raw as a notebook (nbformat 4): *code receives the code source (path and display those of
 * raw, code->notebook set) and *nb the map. Returns 0, or -1 with *why and *at (a byte offset of raw)
 * when raw is not a notebook sweeplint reads (not JSON, no "cells", nbformat 3, nesting past the bound).
 */
int sl_notebook_read(struct sl_arena *a, const struct sl_source *raw, struct sl_source **code,
		     const struct sl_notebook **nb, const char **why, size_t *at);

/* The code cell holding line (1-based, of the code source): its index, and the line within it. */
const struct sl_nb_cell *sl_notebook_cell(const struct sl_notebook *nb, uint32_t line, uint32_t *cell_line);

/* The byte of the file that the code byte off comes from (inside its JSON string; escapes counted). */
size_t sl_notebook_raw_offset(const struct sl_notebook *nb, size_t off);

/*
 * Edits of the code source as edits of the file: each cell an edit touches gets the strings of its
 * changed lines re-encoded (one string per line, as Jupyter writes them, JSON escapes as Python's
 * json.dump with ensure_ascii=False), every other byte kept. splices are sorted and do not overlap.
 * Returns 0 with *out and *nout (in a), or -1 with *why (an edit that spans two cells, or touches the
 * line break sweeplint adds after a cell).
 */
int sl_notebook_splices(struct sl_arena *a, const struct sl_notebook *nb, const struct sl_source *code,
			const struct sl_edit *edits, size_t n, struct sl_edit **out, size_t *nout, const char **why);

#endif
