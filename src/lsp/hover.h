/*
 * hover: what a document's last lint knows about the value or key at a
 * byte offset, as Markdown, and the inlay hints after its memory-relevant
 * values (hover.c). Strings live in the lint's arena.
 */
#ifndef SWEEPLINT_LSP_HOVER_H
#define SWEEPLINT_LSP_HOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sl_lsp_lint;

/* The evaluated value written at byte off (axis and value index); false when none is. */
bool sl_lsp_value_at(const struct sl_lsp_lint *l, size_t off, size_t *axis, size_t *value);
/* The bytes [*start, *end) that value is written in. */
void sl_lsp_value_span(const struct sl_lsp_lint *l, size_t axis, size_t value, size_t *start, size_t *end);
/* The hover of that value. */
const char *sl_lsp_hover_value(const struct sl_lsp_lint *l, size_t axis, size_t value);
/* The hover of the parameter key at byte off (its bytes in [*start, *end)), or NULL when no key is there. */
const char *sl_lsp_hover_key(const struct sl_lsp_lint *l, size_t off, size_t *start, size_t *end);

struct sl_lsp_hint {
	size_t at;                       /* byte offset: the end of the value */
	uint64_t peak;                   /* its worst combination's peak */
	size_t axis, value;
	const char *label;               /* "52.1 GiB", "near 70.2 GiB", "OOM 89.9 GiB" */
	const char *tooltip;             /* the worst combination, or NULL */
};

/* The hints of values ending in [from, to], in axis order; *out in the lint's arena. */
size_t sl_lsp_inlay_hints(const struct sl_lsp_lint *l, size_t from, size_t to, struct sl_lsp_hint **out);

#endif
