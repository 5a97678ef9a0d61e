/*
 * tabs: PyYAML's scanner (what W&B's yaml.safe_load runs) skips only spaces between tokens and ends
 * a plain scalar at a tab, so a tab anywhere but in a quoted scalar, a block scalar's text or a
 * comment is "found character '\t' that cannot start any token". libyaml takes tabs as separators
 * (`method: grid<TAB># c`, `a:<TAB>b`, `[1,<TAB>2]`, `d: a<TAB>b`); this finds the first such tab.
 */
#include <stdint.h>
#include <string.h>
#include <yaml.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"
#include "input.h"


/* The first tab in [from, to) that is not in a comment, or SIZE_MAX. */
static size_t tab_in_gap(const struct sl_source *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if (src->bytes[i] == '#') {
			while (i < to && !sl_yaml_break(src->bytes, src->len, i))
				i++;
		} else if (src->bytes[i] == '\t') {
			return i;
		}
	}
	return SIZE_MAX;
}

/*
 * The first tab in [from, to) outside comments and quoted scalars, or SIZE_MAX: where libyaml's scanner
 * failed, the text it had read but not yet made tokens of (a simple key waits for its ':').
 */
static size_t tab_in_unscanned(const struct sl_source *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		char c = src->bytes[i];
		if (c == '#' && (i == from || src->bytes[i - 1] == ' ' || sl_yaml_after_break(src->bytes, i))) {
			while (i < to && !sl_yaml_break(src->bytes, src->len, i))
				i++;
		} else if (c == '\'' || c == '"') {
			for (i++; i < to && src->bytes[i] != c; i++)
				if (c == '"' && src->bytes[i] == '\\')
					i++;
		} else if (c == '\t') {
			return i;
		}
	}
	return SIZE_MAX;
}

/* A '#' right after a block scalar's indicators ('|#', '>-#', '|2#'): libyaml reads a comment. */
static bool header_comment(const struct sl_source *src)
{
	for (const char *p = src->bytes; (p = memchr(p, '#', src->len - (size_t)(p - src->bytes))) != NULL; p++) {
		const char *q = p;
		while (q > src->bytes && (q[-1] == '+' || q[-1] == '-' || (q[-1] >= '0' && q[-1] <= '9')))
			q--;
		if (q > src->bytes && (q[-1] == '|' || q[-1] == '>'))
			return true;
	}
	return false;
}

size_t sl_yaml_pyyaml_tab(struct sl_source *orig, const char **why)
{
	if (why)
		*why = "found character '\\t' that cannot start any token (PyYAML takes only spaces between tokens)";
	if (!memchr(orig->bytes, '\t', orig->len) && !header_comment(orig))
		return SIZE_MAX;
	/* the text the loader gives libyaml (a reserved directive's line, blanked, may hold tabs) */
	struct sl_arena *a = sl_arena_new();
	struct sl_yaml_input in;
	sl_yaml_input_init(a, orig, &in);
	const struct sl_source *src = &in.view;
	yaml_parser_t parser;
	yaml_token_t tok;
	if (!yaml_parser_initialize(&parser))
		sl_oom();
	yaml_parser_set_input_string(&parser, (const unsigned char *)src->bytes + src->bom, src->len - src->bom);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	/* offsets here are the view's (what libyaml reads), the result the source's */
	size_t pos = src->bom, found = SIZE_MAX, depth = 0;
	for (;;) {
		if (!yaml_parser_scan(&parser, &tok)) {
			/* the loader reports libyaml's own error; PyYAML may stop at a tab before it */
			size_t err = sl_yaml_input_view_byte(&in, parser.problem_mark.index);
			found = tab_in_unscanned(src, pos, err < src->len ? err : src->len);
			break;
		}
		yaml_token_type_t type = tok.type;
		/* past the loader's nesting bound the document is refused anyway; libyaml's scanner is
		 * quadratic in the nesting (a simple key per level) */
		depth = sl_yaml_nesting(depth, (int)type);
		if (depth > SL_YDOC_MAX_DEPTH) {
			yaml_token_delete(&tok);
			break;
		}
		size_t start = sl_yaml_input_view_byte(&in, tok.start_mark.index), end = sl_yaml_input_view_byte(&in, tok.end_mark.index);
		yaml_scalar_style_t style = type == YAML_SCALAR_TOKEN ? tok.data.scalar.style : YAML_ANY_SCALAR_STYLE;
		bool text = type == YAML_SCALAR_TOKEN && style != YAML_PLAIN_SCALAR_STYLE;
		bool block = style == YAML_LITERAL_SCALAR_STYLE || style == YAML_FOLDED_SCALAR_STYLE;
		yaml_token_delete(&tok);
		if (type == YAML_STREAM_END_TOKEN) {
			found = tab_in_gap(src, pos, src->len);
			break;
		}
		if (start < pos || start == end)
			continue; /* a token libyaml places retroactively (a key) or one without text */
		found = tab_in_gap(src, pos, start);
		if (found != SIZE_MAX)
			break;
		if (block) {
			/* the header line ('|', '>-', '|2' ...) takes spaces only before a comment, and PyYAML
			 * wants a space or a line break right after the indicators (libyaml also a '#') */
			size_t h = start + 1;
			while (h < end && (src->bytes[h] == '+' || src->bytes[h] == '-' ||
					   (src->bytes[h] >= '0' && src->bytes[h] <= '9')))
				h++;
			if (h < end && src->bytes[h] == '#') {
				found = h;
				if (why)
					*why = "expected chomping or indentation indicators, but found '#' (PyYAML "
					       "wants a space before a comment)";
				break;
			}
			while (h < end && !sl_yaml_break(src->bytes, src->len, h) && src->bytes[h] != '#' &&
			       src->bytes[h] != '\t')
				h++;
			if (h < end && src->bytes[h] == '\t') {
				found = h;
				break;
			}
		}
		if (!text) {
			const char *t = memchr(src->bytes + start, '\t', end - start);
			if (t) {
				found = (size_t)(t - src->bytes);
				break;
			}
		}
		pos = end;
	}
	yaml_parser_delete(&parser);
	if (found != SIZE_MAX)
		found = sl_yaml_input_src(&in, found);
	sl_arena_free(a);
	return found;
}

void sl_ydoc_refuse_tabs(struct sl_ydoc *doc, struct sl_diags *diags)
{
	struct sl_source *src = doc->src;
	const char *why;
	size_t tab = sl_yaml_pyyaml_tab(src, &why);
	if (tab == SIZE_MAX)
		return;
	struct sl_diag *syn = NULL;
	for (size_t i = 0; i < diags->n && !doc->ok; i++)
		if (strcmp(diags->v[i].rule, "syntax") == 0 && diags->v[i].src == src &&
		    (!syn || diags->v[i].span.start < syn->span.start))
			syn = &diags->v[i];
	/* libyaml's parse error before the tab comes first; a constructor's error never does (PyYAML
	 * scans the whole text before it constructs) */
	if (!doc->ok && !doc->constructed && !(syn && tab <= syn->span.start))
		return;
	struct sl_diag *d = syn ? syn : sl_diags_add(diags, "syntax", SL_SEV_ERROR, src, sl_source_span(src, 0, 0), "%s", "");
	d->span = sl_source_span(src, tab, tab);
	d->message = sl_arena_printf(diags->arena, "syntax error: %s", why);
	d->hint = src->bytes[tab] == '\t'
			  ? "replace the tab with spaces (tabs may stand only in quotes, block scalars and comments)"
			  : NULL;
	doc->ok = false;
	doc->constructed = false;
	doc->root = NULL;
}
