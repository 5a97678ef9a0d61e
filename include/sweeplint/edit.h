/*
 * edit: byte-minimal edits of a YAML source, git's strbuf_splice applied to
 * the original bytes. An edit set collects splices {start, end, replacement}
 * on one source's original bytes and applies them at once; everything outside
 * the spliced ranges (comments, blank lines, quoting, key order, CRLF, a
 * missing final newline, tabs, non-ASCII text) stays byte-identical. The
 * high-level edits below turn "remove this item", "set this scalar", "insert
 * this line" into such splices, fixing the commas, lines and quoting around
 * them. An edit set, its splices and every string it returns live in the run
 * arena; nodes and the source are borrowed and must outlive it.
 *
 * Errors (returned as -SL_E*, never printed):
 *   -SL_EUSAGE     the request itself is invalid: an index out of range, a
 *                  node of the wrong kind, removing every item of a
 *                  collection, a value that cannot be written as the
 *                  requested type;
 *   -SL_ELIMIT     a layout the editor does not rewrite (block scalars as
 *                  replacement targets, explicit "? " keys, compact nested
 *                  entries it cannot re-indent);
 *   -SL_EINTERNAL  splices that overlap, or a range outside the source: the
 *                  edit set is refused as a whole, never applied half-way.
 */
#ifndef SWEEPLINT_EDIT_H
#define SWEEPLINT_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "sweeplint/scalar.h"
#include "sweeplint/ydoc.h"

struct sl_arena;
struct sl_buf;
struct sl_node;
struct sl_source;
struct sl_edit_drop;

/* One splice: replace the original bytes [start, end) with text[0..len). */
struct sl_edit {
	size_t start;     /* byte offset into the source, <= end */
	size_t end;       /* one past the last replaced byte; == start for an insertion */
	const char *text; /* the replacement (arena), NUL-terminated; "" for a deletion */
	size_t len;       /* bytes in text */
	size_t order;     /* when it was added: insertions at one offset keep this order */
};

/*
 * A set of edits on one source. Splices are kept as added; removals of items
 * or pairs are kept per collection (struct sl_edit_drop, private) and turned
 * into splices when the set is applied, so that two callers removing
 * different items of one list compose instead of colliding on a comma.
 */
struct sl_edits {
	struct sl_arena *arena;        /* owner of everything below */
	const struct sl_source *src;   /* the bytes every offset refers to */
	struct sl_edit *v;             /* plain splices, in the order added */
	size_t n, cap;
	struct sl_edit_drop *drops;    /* pending removals, one record per collection */
	size_t ndrops, drops_cap;
	size_t next_order;             /* counter behind sl_edit.order */
};

/* An empty edit set on src. */
void sl_edits_init(struct sl_edits *e, struct sl_arena *a, const struct sl_source *src);

/*
 * Add a raw splice: replace [start, end) of the original bytes with
 * text[0..len) (copied). -SL_EINTERNAL when the range is not inside the
 * source. Overlap is checked by sl_edits_apply, not here.
 */
int sl_edits_splice(struct sl_edits *e, size_t start, size_t end, const char *text, size_t len);

/*
 * The edited text, written into out (initialised here, in e's arena). All
 * splices are sorted by offset; identical duplicates are merged; any two that
 * still overlap (an insertion strictly inside a replaced range counts) make
 * the call return -SL_EINTERNAL with out empty. Otherwise the splices are
 * applied as if last to first, each on the original offsets (done in one
 * forward pass), and the call returns 0. An empty set reproduces the source
 * byte for byte. e is not modified: applying twice gives the same text.
 */
int sl_edits_apply(const struct sl_edits *e, struct sl_buf *out);

/* Splices the set would apply (pending removals resolved), sorted; for tests and tools. */
int sl_edits_list(const struct sl_edits *e, struct sl_edit **out, size_t *n);

/*
 * Remove items of a sequence (flow or block). drop[i] true removes item i;
 * the request is merged with earlier removals from the same sequence.
 * Flow: an item leaves with one neighbouring comma (the one before it, or
 * the one after it when it is the first kept position), the spacing of the
 * rest is kept; an item alone on its line(s) leaves with its whole line(s)
 * and comment. Block: the item's lines go, from its "-" line to its last
 * line, with end-of-line comments and the comment-only lines right after it
 * that are indented deeper than its "-". Removing every item is refused
 * (-SL_EUSAGE): a sequence never becomes empty. An item that is an alias is
 * removed as an alias (its "*name"); removing an item of an anchored list
 * changes what every alias of it sees, as YAML says it must.
 */
int sl_edits_remove_items(struct sl_edits *e, const struct sl_node *seq, const bool *drop);

/*
 * Remove every item of seq but item k (split --by: one value of a list). The
 * same edit as sl_edits_remove_items with every other item dropped; for a
 * flow list whose entries lie where their spans say it is planned from the
 * entries around k alone, not from every item. -SL_EUSAGE for k out of range.
 */
int sl_edits_keep_item(struct sl_edits *e, const struct sl_node *seq, size_t k);

/* Remove item i of a sequence (see sl_edits_remove_items). */
int sl_edits_remove_item(struct sl_edits *e, const struct sl_node *seq, size_t i);

/*
 * Keep only the items of seq whose scalar text equals one of texts[0..n) and
 * remove the others (split's "values: [that one]"). -SL_EUSAGE when a text
 * matches no item or nothing would be kept.
 */
int sl_edits_keep_texts(struct sl_edits *e, const struct sl_node *seq, const char *const *texts, size_t n);

/*
 * Remove pair i of a mapping (flow or block): in block style all its lines,
 * the key's line through the last line of its value (nested block content
 * included), end-of-line comments, and the comment-only lines right after it
 * that are indented deeper than its key. Removing the last remaining pair is
 * refused (-SL_EUSAGE): the mapping would turn into null.
 */
int sl_edits_remove_pair(struct sl_edits *e, const struct sl_node *map, size_t i);

/*
 * How the scalar value text (of type want, as PyYAML would read it) is
 * written in YAML: plain when PyYAML reads the plain spelling back as
 * exactly that text and type, otherwise quoted (style `prefer` when it is
 * SL_STYLE_SINGLE or SL_STYLE_DOUBLE, else single quotes, double quotes when
 * the text holds control characters or line breaks). A quoted original stays
 * quoted in its style. flow: the spelling will sit inside [ ] or { }. props:
 * anchor/tag text written before it ("&a !!str"), or NULL. The result is
 * checked by parsing it back with libyaml and r. NULL (and -SL_EUSAGE in
 * *err when err is not NULL) when want is not a string type and the text
 * does not read back as want (want SL_V_INT with "abc"). want SL_V_STR
 * never fails.
 */
const char *sl_edit_spell(struct sl_arena *a, const struct sl_scalar_resolver *r, const char *text,
			  size_t len, enum sl_vtype want, enum sl_node_style prefer, bool flow,
			  const char *props, int *err);

/*
 * Replace the text of scalar node by text[0..len), read back by PyYAML as
 * type want (see sl_edit_spell: quoted when it must be). The node keeps its
 * position, anchor and tag; a quoted node keeps its quote style. -SL_ELIMIT
 * for literal/folded block scalars.
 */
int sl_edits_set_scalar(struct sl_edits *e, const struct sl_scalar_resolver *r, const struct sl_node *node,
			const char *text, size_t len, enum sl_vtype want);

/*
 * Insert a line into a block mapping, before pair `before` (0: above the
 * first pair; map->n: after the last pair, below its nested content and the
 * comment lines that belong to it). line is written as is ("run_cap: 12",
 * "# generated by sweeplint split"), indented like the mapping's keys and
 * ended with the file's line break (CRLF when the file uses CRLF). At the end
 * of a file without a final newline the line break goes before the new line,
 * so the file still ends without one.
 */
int sl_edits_insert_line(struct sl_edits *e, const struct sl_node *map, size_t before, const char *line);

/*
 * Insert "key: value" into a block mapping as sl_edits_insert_line does, the
 * key spelled as a string and value as type want (sl_edit_spell).
 */
int sl_edits_insert_pair(struct sl_edits *e, const struct sl_scalar_resolver *r, const struct sl_node *map,
			 size_t before, const char *key, const char *value, enum sl_vtype want);

#endif
