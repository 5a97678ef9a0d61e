/*
 * input: the text libyaml reads in place of a source, so that it accepts what PyYAML's safe_load
 * accepts (src/yaml/input.c). The text has the same length and the same line breaks as the source:
 * every byte offset means the same place in both, and positions are the source's.
 */
#ifndef SWEEPLINT_YAML_INPUT_H
#define SWEEPLINT_YAML_INPUT_H

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
};

/* Build in for src (in->view.bytes is src->bytes when nothing differs). */
void sl_yaml_input_init(struct sl_arena *a, const struct sl_source *src, struct sl_yaml_input *in);

/*
 * libyaml's character index (it starts after a leading BOM) as a byte offset of the source.
 */
size_t sl_yaml_input_byte(struct sl_yaml_input *in, size_t index);

/*
 * A scalar's text as PyYAML reads it: the marker back to U+FEFF. Returns text itself when it holds
 * no marker, else a copy in a.
 */
const char *sl_yaml_input_text(struct sl_arena *a, const struct sl_yaml_input *in, const char *text, size_t len);

/*
 * libyaml refused a directive ("found unknown directive name") at byte off, after the stream's first
 * document: the offset where PyYAML fails instead and its message (*why).
 */
size_t sl_yaml_input_late_directive(const struct sl_yaml_input *in, size_t off, const char **why);

#endif
