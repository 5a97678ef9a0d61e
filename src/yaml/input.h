/*
 * input: the text libyaml reads in place of a source, so that it accepts what PyYAML's safe_load
 * accepts (src/yaml/input.c). The text has the same line breaks as the source and the same bytes but
 * a few rewritten in place and a few spaces inserted (ins): sl_yaml_input_src maps an offset of the
 * text (the view) to the source's, and positions are the source's.
 */
#ifndef SWEEPLINT_YAML_INPUT_H
#define SWEEPLINT_YAML_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "sweeplint/source.h"

struct sl_arena;

struct sl_yaml_input {
	/* src with the bytes libyaml reads (view.bytes + view.bom .. view.len); libyaml's character
	 * indexes are converted to byte offsets on the view, positions computed on the source */
	struct sl_source view;
	size_t err;        /* where PyYAML fails in a directive prefix libyaml would accept, or SIZE_MAX */
	const char *why;   /* its message */
	char marker[4];    /* the private-use character that stands for a BOM at a line start, or "" */
	size_t *tabs;      /* tabs that open a block scalar's first line, read by libyaml as 'x' (view offsets) */
	size_t ntabs;
	size_t *ins;       /* view offsets of inserted spaces, ascending */
	size_t nins;
};

/* Build in for src (in->view.bytes is src->bytes when nothing differs). */
void sl_yaml_input_init(struct sl_arena *a, const struct sl_source *src, struct sl_yaml_input *in);

/* libyaml's character index (it starts after a leading BOM) as a byte offset of the view. */
size_t sl_yaml_input_view_byte(struct sl_yaml_input *in, size_t index);

/* A byte offset of the view as the source's (an inserted space: the byte after it). */
size_t sl_yaml_input_src(const struct sl_yaml_input *in, size_t off);

/* libyaml's character index as a byte offset of the source. */
size_t sl_yaml_input_byte(struct sl_yaml_input *in, size_t index);

/*
 * A scalar's text as PyYAML reads it: the marker back to U+FEFF, and for a block scalar at view
 * offsets [start, end) whose first line starts with a tab libyaml read as 'x', the tab. Returns text itself when nothing
 * changes, else a copy in a; *lenp is its length in and out.
 */
const char *sl_yaml_input_text(struct sl_arena *a, const struct sl_yaml_input *in, const char *text, size_t *lenp,
			       bool block, size_t start, size_t end);

/*
 * libyaml refused a directive ("found unknown directive name") at byte off of src, after the stream's
 * first document: the offset where PyYAML fails instead and its message (*why).
 */
size_t sl_yaml_input_late_directive(const struct sl_source *src, size_t off, const char **why);

/* Nesting after a libyaml token of this type (a yaml_token_type_t) at depth. */
size_t sl_yaml_nesting(size_t depth, int type);

/* Bytes of the YAML line break at b[i] (\n, \r, NEL, LS, PS; \r\n counts as \r then \n), or 0. */
size_t sl_yaml_break(const char *b, size_t len, size_t i);

/* True when a YAML line break ends just before b[i]. */
bool sl_yaml_after_break(const char *b, size_t i);

#endif
