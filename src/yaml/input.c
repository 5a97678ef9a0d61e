/*
 * input: where libyaml 0.2.5 and PyYAML's safe_load (what W&B runs) differ before any node exists, the
 * text libyaml reads is changed in place, byte for byte, so that it accepts what PyYAML accepts:
 *
 * - `%YAML 1.3`, `%YAML 1.10`: PyYAML takes any 1.x version; libyaml only 1.1 and 1.2 of at most 9
 *   digits. The version is rewritten "1.1" (padded with spaces).
 * - `%FOO bar`: PyYAML ignores a reserved directive (the rest of its line), libyaml refuses it ("found
 *   unknown directive name"). At the start of the stream it is blanked; PyYAML still wants the `---`
 *   that ends a directive prefix, which is checked here when no %YAML/%TAG directive is left for
 *   libyaml to check. After the first document, PyYAML fails where the second document starts
 *   (sl_yaml_input_late_directive).
 * - U+FEFF at the start of a line (but the stream's first character): libyaml skips it, PyYAML reads it
 *   as a character of the next token (`\ufeffb: 2` is the key "\ufeffb"). It is replaced by a private
 *   use character the text does not hold, turned back into U+FEFF in scalars (sl_yaml_input_text).
 *
 * - `{values:[1, 2]}`, `[a:]`: in brackets PyYAML ends a plain scalar at a ':' followed by one of
 *   ",[]{}" and reads a value indicator; libyaml refuses it ("found unexpected ':'"). A space is
 *   inserted after the ':' (the one change of length: sl_yaml_input_src maps offsets back).
 * - A tab that starts the first line of a block scalar with no indentation indicator (`|\n  \tx`):
 *   PyYAML takes the indentation from the column of the tab and the tab as text; libyaml refuses it
 *   ("found a tab character where an indentation space is expected"). libyaml reads an 'x' there
 *   (the same column), turned back into the tab in the scalar's text.
 *
 * - `"\uDECE"`: PyYAML makes a lone surrogate of an escape of U+D800..U+DFFF, libyaml refuses it
 *   ("found invalid Unicode character escape code"). sweeplint's text is UTF-8, which cannot hold
 *   one: the digits are rewritten FFFD, and the character reads as U+FFFD.
 *
 * Line breaks are \n, \r, NEL (U+0085), LS (U+2028) and PS (U+2029) for both, as for sl_source.
 */
#include "input.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <yaml.h>

#include "sweeplint/arena.h"
#include "sweeplint/ydoc.h"

static size_t break_at(const char *b, size_t len, size_t i)
{
	return sl_yaml_break(b, len, i);
}

size_t sl_yaml_break(const char *b, size_t len, size_t i)
{
	unsigned char c = (unsigned char)b[i];
	if (c == '\n' || c == '\r')
		return 1;
	if (c == 0xC2 && i + 1 < len && (unsigned char)b[i + 1] == 0x85)
		return 2;
	if (c == 0xE2 && i + 2 < len && (unsigned char)b[i + 1] == 0x80 &&
	    ((unsigned char)b[i + 2] == 0xA8 || (unsigned char)b[i + 2] == 0xA9))
		return 3;
	return 0;
}

static bool after_break(const char *b, size_t i)
{
	return sl_yaml_after_break(b, i);
}

bool sl_yaml_after_break(const char *b, size_t i)
{
	if (i >= 1 && (b[i - 1] == '\n' || b[i - 1] == '\r'))
		return true;
	if (i >= 2 && (unsigned char)b[i - 2] == 0xC2 && (unsigned char)b[i - 1] == 0x85)
		return true;
	return i >= 3 && (unsigned char)b[i - 3] == 0xE2 && (unsigned char)b[i - 2] == 0x80 &&
	       ((unsigned char)b[i - 1] == 0xA8 || (unsigned char)b[i - 1] == 0xA9);
}

/* The first line break at or after i, or len. */
/* The start of the line that holds byte i. */
static size_t line_start(const char *b, size_t i)
{
	while (i > 0 && !after_break(b, i))
		i--;
	return i;
}

static size_t eol(const char *b, size_t len, size_t i)
{
	while (i < len && !break_at(b, len, i))
		i++;
	return i;
}

static size_t next_line(const char *b, size_t len, size_t i)
{
	i = eol(b, len, i);
	return i < len ? i + break_at(b, len, i) : len;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A YAML version number: digits from i; *n the count, *value saturated at 10^9. */
static size_t number(const char *b, size_t e, size_t i, size_t *n, uint64_t *value)
{
	*n = 0;
	*value = 0;
	while (i < e && is_digit(b[i])) {
		if (*value < 1000000000)
			*value = *value * 10 + (uint64_t)(b[i] - '0');
		(*n)++;
		i++;
	}
	return i;
}

/*
 * A `%YAML` directive's value in [i, e) (after the name): when PyYAML reads it (major version 1) and
 * libyaml does not (another minor version, more than 9 digits), the version in w becomes "1.1".
 */
static void fix_version(const char *b, size_t i, size_t e, char *w)
{
	while (i < e && b[i] == ' ')
		i++;
	size_t from = i, nmaj, nmin;
	uint64_t maj, min;
	i = number(b, e, i, &nmaj, &maj);
	if (nmaj == 0 || i >= e || b[i] != '.')
		return; /* both refuse it */
	i = number(b, e, i + 1, &nmin, &min);
	if (nmin == 0 || (i < e && b[i] != ' '))
		return;
	size_t to = i;
	while (i < e && b[i] == ' ')
		i++;
	if (i < e && b[i] != '#')
		return;
	bool libyaml_reads = maj == 1 && (min == 1 || min == 2) && nmaj <= 9 && nmin <= 9;
	if (libyaml_reads)
		return;
	/* another major version: both refuse it, at the directive ("found incompatible YAML document") */
	const char *v = maj == 1 ? "1.1" : "2.0";
	memset(w + from, ' ', to - from);
	memcpy(w + from, v, 3);
}

static bool printable(const char *b, size_t i, size_t e);

/*
 * A `%YAML` directive's value in [i, e) with a '#' right after the version (`%YAML 1.1#c`): libyaml
 * reads the '#' as a comment, PyYAML wants a space ("expected a digit or ' '"). Its offset, or SIZE_MAX.
 */
static size_t version_hash(const char *b, size_t i, size_t e)
{
	while (i < e && b[i] == ' ')
		i++;
	size_t n;
	uint64_t v;
	i = number(b, e, i, &n, &v);
	if (n == 0 || i >= e || b[i] != '.')
		return SIZE_MAX;
	i = number(b, e, i + 1, &n, &v);
	return n && i < e && b[i] == '#' ? i : SIZE_MAX;
}

struct prefix {
	size_t first;  /* the first directive, or SIZE_MAX */
	bool reserved; /* a reserved directive was met */
	bool kept;     /* a %YAML or %TAG directive was met (libyaml checks what follows) */
	size_t err;    /* where PyYAML refuses a directive libyaml reads, or SIZE_MAX */
};

/*
 * Walk the directives, comments and blank lines from the line start i; reserved directives are
 * blanked in w, %YAML versions fixed (w may be NULL: only walk). Returns the offset of the first
 * other text (a token, or len). Stops, leaving the rest to libyaml, at a directive both refuse.
 */
static size_t walk_prefix(const char *b, size_t len, size_t i, char *w, struct prefix *p)
{
	while (i < len) {
		char c = b[i];
		size_t brk = break_at(b, len, i);
		if (brk) {
			i += brk;
		} else if (c == '#') {
			i = next_line(b, len, i);
		} else if (c == ' ' || c == '\t') {
			size_t j = i;
			while (j < len && (b[j] == ' ' || b[j] == '\t'))
				j++;
			if (j < len && b[j] != '#' && !break_at(b, len, j))
				return j;
			i = next_line(b, len, j);
		} else if (c == '%') {
			size_t j = i + 1;
			while (j < len && ((b[j] >= '0' && b[j] <= '9') || (b[j] >= 'A' && b[j] <= 'Z') ||
					   (b[j] >= 'a' && b[j] <= 'z') || b[j] == '-' || b[j] == '_'))
				j++;
			size_t e = eol(b, len, j);
			if (j == i + 1 || (j < e && b[j] != ' '))
				return i; /* PyYAML: "expected alphabetic or numeric character"; libyaml refuses too */
			if (p->first == SIZE_MAX)
				p->first = i;
			if (j - i - 1 == 4 && memcmp(b + i + 1, "YAML", 4) == 0) {
				p->kept = true;
				size_t h = version_hash(b, j, e);
				if (h < p->err)
					p->err = h;
				if (w)
					fix_version(b, j, e, w);
			} else if (j - i - 1 == 3 && memcmp(b + i + 1, "TAG", 3) == 0) {
				p->kept = true;
			} else {
				if (!printable(b, i, e))
					return i; /* both readers refuse the character: leave it to libyaml's */
				p->reserved = true;
				if (w)
					memset(w + i, ' ', e - i);
			}
			i = e < len ? e + break_at(b, len, e) : len;
		} else {
			return i;
		}
	}
	return len;
}

/*
 * Whether [i, e) holds only characters libyaml's and PyYAML's readers accept (tab, printable ASCII,
 * NEL, U+00A0..U+D7FF, U+E000..U+FFFD, U+10000..): a blanked directive must not hide one they refuse.
 */
static bool printable(const char *b, size_t i, size_t e)
{
	while (i < e) {
		unsigned char c = (unsigned char)b[i];
		if (c < 0x80) {
			if (c != '\t' && (c < 0x20 || c == 0x7F))
				return false;
			i++;
			continue;
		}
		size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
		if (n == 0 || c > 0xF4 || i + n > e)
			return false;
		uint32_t cp = c & (0x7F >> n);
		for (size_t k = 1; k < n; k++) {
			unsigned char d = (unsigned char)b[i + k];
			if ((d & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (d & 0x3F);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
			return false;
		if (!(cp == 0x85 || (cp >= 0xA0 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000))
			return false;
		i += n;
	}
	return true;
}

/* `---` followed by a space, a tab, a line break or the end: PyYAML's document start. */
static bool document_start(const char *b, size_t len, size_t i)
{
	if (i + 3 > len || memcmp(b + i, "---", 3) != 0)
		return false;
	return i + 3 == len || b[i + 3] == ' ' || b[i + 3] == '\t' || break_at(b, len, i + 3);
}

static const char *missing_start(size_t len, size_t at)
{
	return at >= len ? "expected '<document start>', but found '<stream end>' (a directive needs '---' after it)"
			 : "expected '<document start>', but found another token (a directive needs '---' after it)";
}

static bool holds(const char *b, size_t len, const char *s, size_t n)
{
	for (const char *p = b; (p = memchr(p, s[0], len - (size_t)(p - b))) != NULL; p++)
		if ((size_t)(b + len - p) >= n && memcmp(p, s, n) == 0)
			return true;
	return false;
}

static void scan_errors(struct sl_arena *a, struct sl_yaml_input *in, char **w);

void sl_yaml_input_init(struct sl_arena *a, const struct sl_source *src, struct sl_yaml_input *in)
{
	const char *b = src->bytes;
	size_t len = src->len;
	in->view = *src;
	in->view.cur_char = in->view.cur_byte = 0;
	in->err = SIZE_MAX;
	in->why = NULL;
	in->marker[0] = '\0';
	in->tabs = NULL;
	in->ntabs = 0;
	in->ins = NULL;
	in->nins = 0;
	char *w = NULL;

	/* a directive prefix (PyYAML: a '%' at column 0 before the first document) */
	struct prefix p = {.first = SIZE_MAX, .err = SIZE_MAX};
	size_t start = src->bom;
	size_t probe = start;
	while (probe < len && (b[probe] == ' ' || b[probe] == '\t' || b[probe] == '#' || break_at(b, len, probe)))
		probe = b[probe] == '#' ? next_line(b, len, probe)
					: probe + (break_at(b, len, probe) ? break_at(b, len, probe) : 1);
	if (probe < len && b[probe] == '%') {
		w = sl_arena_strndup(a, b, len);
		size_t content = walk_prefix(b, len, start, w, &p);
		/* PyYAML's document start is `---` at column 0: an indented one after a directive is not */
		bool at_col0 = content == start || after_break(b, content);
		if (p.reserved && !p.kept && (!document_start(b, len, content) || !at_col0)) {
			in->err = content;
			in->why = missing_start(len, content);
		}
		if (p.err < in->err) {
			in->err = p.err;
			in->why = "expected a digit or ' ', but found '#' (PyYAML wants a space before a comment)";
		}
	}

	/* U+FEFF at a line start (libyaml's column 0): libyaml skips it, PyYAML reads it */
	static const char bom[3] = {(char)0xEF, (char)0xBB, (char)0xBF};
	bool found = false;
	for (size_t i = start; i + 3 <= len; i++) {
		const char *q = memchr(b + i, 0xEF, len - i);
		if (!q)
			break;
		i = (size_t)(q - b);
		if (i + 3 > len || memcmp(q, bom, 3) != 0 || !(i == start || after_break(b, i)))
			continue;
		if (!found) {
			found = true;
			/* a private use character the text does not hold: U+E000, U+E001, ... */
			for (unsigned cp = 0xE000; cp < 0xF000; cp++) {
				char m[3] = {(char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)),
					     (char)(0x80 | (cp & 0x3F))};
				if (!holds(b, len, m, 3)) {
					memcpy(in->marker, m, 3);
					in->marker[3] = '\0';
					break;
				}
			}
			if (!in->marker[0])
				return; /* 4,096 private use characters in the text: leave it to libyaml */
			if (!w)
				w = sl_arena_strndup(a, b, len);
		}
		memcpy(w + i, in->marker, 3);
	}
	if (w)
		in->view.bytes = w;
	if (memchr(b, '\t', len) || memchr(b, ':', len) || memchr(b, '\\', len))
		scan_errors(a, in, &w);
}

/*
 * A tab in a block scalar's indentation (libyaml: "found a tab character where an indentation space
 * is expected") at view offset t, the scalar's header at h, column col, parent indentation indent:
 * whether PyYAML reads it as the first character of text — no indentation indicator, the tab on the
 * first line that is not blank, and its column at least the indentation PyYAML would take (the
 * parent's + 1, and every blank line's spaces).
 */
static bool tab_is_text(const char *b, size_t len, size_t h, size_t t, size_t col, int indent)
{
	long min = indent + 1 < 1 ? 1 : (long)indent + 1;
	if (t >= len || b[t] != '\t' || h >= t)
		return false;
	size_t i = h + 1;
	for (; i < t && (b[i] == '+' || b[i] == '-' || is_digit(b[i])); i++)
		if (b[i] != '0' && is_digit(b[i]))
			return false;
	/* blank lines (spaces only) up to the tab's line; the most spaces on one */
	i = next_line(b, len, i);
	size_t most = 0;
	while (i < t) {
		size_t j = i;
		while (j < t && b[j] == ' ')
			j++;
		if (j == t)
			break;
		if (!break_at(b, len, j))
			return false; /* text before the tab: the indentation is known, PyYAML refuses too */
		if (j - i > most)
			most = j - i;
		i = j + break_at(b, len, j);
	}
	return (long)col >= min && col >= most;
}

size_t sl_yaml_nesting(size_t depth, int type)
{
	switch (type) {
	case YAML_BLOCK_SEQUENCE_START_TOKEN:
	case YAML_BLOCK_MAPPING_START_TOKEN:
	case YAML_FLOW_SEQUENCE_START_TOKEN:
	case YAML_FLOW_MAPPING_START_TOKEN:
		return depth + 1;
	case YAML_BLOCK_END_TOKEN:
	case YAML_FLOW_SEQUENCE_END_TOKEN:
	case YAML_FLOW_MAPPING_END_TOKEN:
		return depth ? depth - 1 : 0;
	default:
		return depth;
	}
}

static size_t nesting(size_t depth, yaml_token_type_t type)
{
	return sl_yaml_nesting(depth, (int)type);
}

/*
 * libyaml's scanner fails where PyYAML reads on: a tab opening a block scalar (tab_is_text: libyaml
 * reads an 'x'), a ':' then one of ",[]{}" in brackets (a space is inserted after the ':'). Scan,
 * change, scan again from the start (each change is after the last, so earlier view offsets stay
 * valid), at most SL_YAML_SCAN_RETRIES changes and SL_YAML_SCAN_BUDGET bytes scanned in all: past
 * them libyaml's error stands (a refusal where PyYAML may read on).
 */
#define SL_YAML_SCAN_RETRIES 4096
#define SL_YAML_SCAN_BUDGET ((size_t)64 << 20)
/* At b[at] the digits of a \u or \U escape of a surrogate (U+D800..U+DFFF): their count (4, 8), else 0. */
static size_t surrogate_escape(const char *b, size_t len, size_t at)
{
	if (at < 2 || b[at - 2] != '\\' || (b[at - 1] != 'u' && b[at - 1] != 'U'))
		return 0;
	size_t d = b[at - 1] == 'u' ? 4 : 8;
	unsigned long v = 0;
	for (size_t k = 0; k < d; k++) {
		if (at + k >= len || !isxdigit((unsigned char)b[at + k]))
			return 0;
		v = v * 16 + (unsigned long)(isdigit((unsigned char)b[at + k]) ? b[at + k] - '0'
										: (tolower((unsigned char)b[at + k]) - 'a' + 10));
	}
	return v >= 0xD800 && v <= 0xDFFF ? d : 0;
}

static void scan_errors(struct sl_arena *a, struct sl_yaml_input *in, char **w)
{
	size_t cap = 0, icap = 0, scanned = 0, room = 0, d;
	for (int round = 0; round < SL_YAML_SCAN_RETRIES && scanned <= SL_YAML_SCAN_BUDGET; round++) {
		const char *b = in->view.bytes;
		size_t len = in->view.len;
		yaml_parser_t parser;
		yaml_token_t tok;
		if (!yaml_parser_initialize(&parser))
			return;
		yaml_parser_set_input_string(&parser, (const unsigned char *)b + in->view.bom, len - in->view.bom);
		yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
		bool ok = true, end = false;
		size_t depth = 0;
		while (ok && !end) {
			ok = yaml_parser_scan(&parser, &tok);
			if (ok) {
				end = tok.type == YAML_STREAM_END_TOKEN;
				depth = nesting(depth, tok.type);
				yaml_token_delete(&tok);
				/* the loader refuses deeper nesting; libyaml's scanner is quadratic in it */
				end = end || depth > SL_YDOC_MAX_DEPTH;
			}
		}
		const char *problem = ok ? NULL : parser.problem;
		scanned += parser.mark.index;
		size_t at = problem ? sl_yaml_input_view_byte(in, parser.problem_mark.index) : 0;
		size_t h = problem ? sl_yaml_input_view_byte(in, parser.context_mark.index) : 0;
		size_t col = parser.problem_mark.column;
		int indent = parser.indent;
		yaml_parser_delete(&parser);
		if (!problem)
			return;
		if (strcmp(problem, "found a tab character where an indentation space is expected") == 0 &&
		    tab_is_text(b, len, h, at, col, indent)) {
			if (!*w) {
				*w = sl_arena_strndup(a, b, len);
				in->view.bytes = *w;
			}
			(*w)[at] = 'x';
			in->tabs = sl_arena_reserve(a, in->tabs, in->ntabs, &cap, in->ntabs + 1, sizeof *in->tabs);
			in->tabs[in->ntabs++] = at;
		} else if (strcmp(problem, "found unexpected ':'") == 0 && at + 1 < len && b[at] == ':' &&
			   strchr(",[]{}", b[at + 1])) {
			if (!room) {
				/* one buffer with room for every insertion: each one moves the tail */
				room = SL_YAML_SCAN_RETRIES;
				char *nw = sl_arena_alloc(a, len + room + 1);
				memcpy(nw, b, len + 1);
				*w = nw;
				in->view.bytes = nw;
			}
			memmove(*w + at + 2, *w + at + 1, len - at); /* the tail and its NUL */
			(*w)[at + 1] = ' ';
			in->view.len = len + 1;
			in->ins = sl_arena_reserve(a, in->ins, in->nins, &icap, in->nins + 1, sizeof *in->ins);
			in->ins[in->nins++] = at + 1;
		} else if (strcmp(problem, "found invalid Unicode character escape code") == 0 &&
			   (d = surrogate_escape(b, len, at)) != 0) {
			/* PyYAML's chr() makes a lone surrogate of \uD800..\uDFFF; libyaml refuses it. Text here is
			 * UTF-8, which holds no surrogate: read as U+FFFD (the digits rewritten in place) */
			if (!*w) {
				*w = sl_arena_strndup(a, b, len);
				in->view.bytes = *w;
			}
			memcpy(*w + at + d - 4, "FFFD", 4);
			if (d == 8)
				memcpy(*w + at, "0000", 4);
		} else {
			return;
		}
		in->view.cur_char = in->view.cur_byte = 0;
	}
}

size_t sl_yaml_input_view_byte(struct sl_yaml_input *in, size_t index)
{
	/* libyaml reads past the BOM; the view counts it as one character */
	return sl_source_char_to_byte(&in->view, index + (in->view.bom ? 1 : 0));
}

size_t sl_yaml_input_src(const struct sl_yaml_input *in, size_t off)
{
	size_t lo = 0, hi = in->nins; /* inserted spaces before off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (in->ins[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return off - lo;
}

size_t sl_yaml_input_byte(struct sl_yaml_input *in, size_t index)
{
	return sl_yaml_input_src(in, sl_yaml_input_view_byte(in, index));
}

/*
 * A folded scalar in [start, end) whose first line libyaml read with an 'x' for its tab, at text
 * offset tab: when libyaml folded that line into the next, the text offset where the fold stands
 * (the end of the first line's text); else SIZE_MAX. The rule is libyaml's and PyYAML's: a line break
 * (not LS/PS) between two lines at the indentation that start with neither space nor tab is folded.
 */
static size_t first_line_fold(const struct sl_yaml_input *in, size_t start, size_t end, size_t tab)
{
	const char *b = in->view.bytes;
	size_t len = in->view.len, t = SIZE_MAX;
	for (size_t i = 0; i < in->ntabs; i++)
		if (in->tabs[i] >= start && in->tabs[i] < end)
			t = in->tabs[i];
	if (t == SIZE_MAX)
		return SIZE_MAX;
	/* the header: '>' is folded */
	size_t h = start;
	while (h < t && b[h] != '|' && b[h] != '>')
		h++;
	if (h >= t || b[h] != '>')
		return SIZE_MAX;
	size_t ls = line_start(b, t), indent = t - ls;
	size_t e = eol(b, len, t);
	if (e >= len || break_at(b, len, e) == 3)
		return SIZE_MAX; /* the last line, or LS/PS (never folded) */
	size_t i = e + break_at(b, len, e);
	if (b[e] == '\r' && i < len && b[i] == '\n')
		i++;
	for (;;) {
		size_t j = i;
		while (j < len && j - i < indent && b[j] == ' ')
			j++;
		if (j < len && break_at(b, len, j)) {
			i = j + break_at(b, len, j);
			if (b[j] == '\r' && i < len && b[i] == '\n')
				i++;
			continue;
		}
		if (j - i < indent || j >= len || b[j] == ' ' || b[j] == '\t')
			return SIZE_MAX; /* the scalar ends, or the next line starts blank: no fold */
		break;
	}
	return tab + (e - t);
}

const char *sl_yaml_input_text(struct sl_arena *a, const struct sl_yaml_input *in, const char *text, size_t *lenp,
			       bool block, size_t start, size_t end)
{
	size_t len = *lenp;
	size_t tab = SIZE_MAX;
	for (size_t i = 0; block && i < in->ntabs; i++)
		if (in->tabs[i] >= start && in->tabs[i] < end) {
			/* the first line's text starts after the blank lines' line breaks */
			tab = 0;
			while (tab < len && (text[tab] == '\n' || sl_yaml_break(text, len, tab) == 3))
				tab += text[tab] == '\n' ? 1 : 3; /* LS and PS stay in the text, as in PyYAML's */
			if (tab >= len || text[tab] != 'x')
				tab = SIZE_MAX;
			break;
		}
	bool marked = in->marker[0] && holds(text, len, in->marker, 3);
	if (!marked && tab == SIZE_MAX)
		return text;
	char *t = sl_arena_strndup(a, text, len);
	if (tab != SIZE_MAX) {
		t[tab] = '\t';
		/* folded: PyYAML keeps the line break after a first line that starts with a tab, libyaml
		 * folded it after the 'x' (a space, or nothing before blank lines' breaks) */
		size_t at = first_line_fold(in, start, end, tab);
		if (at < len && t[at] == ' ') {
			t[at] = '\n';
		} else if (at <= len) {
			char *u = sl_arena_alloc(a, len + 2);
			memcpy(u, t, at);
			u[at] = '\n';
			memcpy(u + at + 1, t + at, len - at);
			u[len + 1] = '\0';
			t = u;
			*lenp = len + 1;
		}
	}
	for (size_t i = 0; marked && i + 3 <= len; i++)
		if (memcmp(t + i, in->marker, 3) == 0) {
			t[i] = (char)0xEF;
			t[i + 1] = (char)0xBB;
			t[i + 2] = (char)0xBF;
			i += 2;
		}
	return t;
}

size_t sl_yaml_input_late_directive(const struct sl_source *src, size_t off, const char **why)
{
	const char *b = src->bytes;
	size_t len = src->len;
	/* the directives before it in the same prefix (libyaml read them): lines of '%', '#' or blanks */
	size_t first = off, ls = off;
	while (ls > 0) {
		size_t k = line_start(b, ls - 1);
		size_t t = k;
		while (t < ls && (b[t] == ' ' || b[t] == '\t'))
			t++;
		if (b[k] == '%')
			first = k;
		else if (t < ls && b[t] != '#' && !break_at(b, len, t))
			break;
		ls = k;
	}
	struct prefix p = {.first = SIZE_MAX, .err = SIZE_MAX};
	size_t content = walk_prefix(b, len, off, NULL, &p);
	if (document_start(b, len, content)) {
		*why = "expected a single document in the stream, but found another document";
		return first;
	}
	*why = missing_start(len, content);
	return content;
}
