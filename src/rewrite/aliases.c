/*
 * aliases: a rewrite that removes an anchored node keeps every alias of it that stays valid YAML, by
 * writing the anchored value out in the alias's place (`tokenizer_name: *m` -> `tokenizer_name:
 * roberta-large` when split drops `&m roberta-large`). PyYAML reads the same values as before.
 */
#include <stdio.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/edit.h"
#include "sweeplint/rewrite.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

/* The splice of v[0..n) (sorted, not overlapping) that holds [start, end), or NULL. */
static const struct sl_edit *inside(const struct sl_edit *v, size_t n, size_t start, size_t end)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* v[lo] is the first splice ending after start; an insertion (start == end) holds nothing */
	for (; lo < n && v[lo].start <= start; lo++)
		if (v[lo].end > v[lo].start && end <= v[lo].end)
			return &v[lo];
	return NULL;
}

int sl_rewrite_inline_aliases(struct sl_edits *e, const struct sl_ydoc *doc, const char **why)
{
	if (!doc || !doc->naliases)
		return 0;
	struct sl_edit *v = NULL;
	size_t n = 0;
	int rc = sl_edits_list(e, &v, &n);
	if (rc < 0 || !n)
		return rc;
	const struct sl_source *src = doc->src;
	for (size_t i = 0; i < doc->naliases; i++) {
		const struct sl_alias *al = &doc->aliases[i];
		const struct sl_node *t = al->target;
		if (!inside(v, n, t->span.start, t->span.end) || inside(v, n, al->start, al->end))
			continue; /* the anchored value stays, or the alias goes too */
		const char *text = src->bytes + t->span.start;
		size_t len = t->span.end - t->span.start;
		bool one_line = memchr(text, '\n', len) == NULL;
		if (!one_line || (t->kind != SL_NODE_SCALAR && t->style != SL_STYLE_FLOW)) {
			struct sl_span at = sl_source_span(src, al->start, al->end);
			*why = sl_arena_printf(e->arena,
					       "the value anchored as &%s at line %u is removed, and the alias at line %u "
					       "column %u cannot take its text (%s): write the value out instead of the "
					       "alias",
					       t->anchor ? t->anchor : "?", t->span.line, at.line, at.col,
					       one_line ? "a block collection" : "several lines");
			return -SL_EUSAGE;
		}
		/* the text without its anchor: PyYAML refuses an anchor defined twice */
		size_t alen = t->anchor ? strlen(t->anchor) : 0, tag = 0;
		if (len && text[0] == '!')
			while (tag < len && text[tag] != ' ' && text[tag] != '\t')
				tag++;
		size_t at = tag;
		while (tag && at < len && (text[at] == ' ' || text[at] == '\t'))
			at++;
		struct sl_buf out;
		sl_buf_init(&out, e->arena);
		if (alen && at + 1 + alen <= len && text[at] == '&' && memcmp(text + at + 1, t->anchor, alen) == 0) {
			size_t rest = at + 1 + alen;
			while (rest < len && (text[rest] == ' ' || text[rest] == '\t'))
				rest++;
			if (tag)
				sl_buf_addf(&out, "%.*s ", (int)tag, text);
			sl_buf_add(&out, text + rest, len - rest);
		} else {
			sl_buf_add(&out, text, len);
		}
		rc = sl_edits_splice(e, al->start, al->end, out.buf, out.len);
		if (rc < 0)
			return rc;
	}
	return 0;
}
