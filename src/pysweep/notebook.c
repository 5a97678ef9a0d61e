/*
 * notebook: an .ipynb file's code cells as one code source, with every piece's place in the file.
 *
 * The file is read by a small JSON scanner of its own (jansson keeps no positions): the top-level
 * object's "cells", "metadata" and "nbformat", each cell's "cell_type" and "source"; every other value
 * is skipped unread (outputs, attachments). Strings are decoded as JSON says (escapes, surrogate
 * pairs); the scanner refuses what is not JSON (a finding at the byte where it stops).
 */
#include "sweeplint/notebook.h"

#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/edit.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

#define MAX_DEPTH SL_YDOC_MAX_DEPTH

struct scan {
	struct sl_arena *a;
	const char *s;
	size_t n, i;
	int depth;
	const char *why;
	size_t at;
};

static bool fail(struct scan *p, const char *why)
{
	if (!p->why) {
		p->why = why;
		p->at = p->i;
	}
	return false;
}

static void ws(struct scan *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	for (int k = 0; k < 4; k++) {
		int h = hex(s[k]);
		if (h < 0)
			return false;
		v = v * 16 + (unsigned)h;
	}
	*out = v;
	return true;
}

/* A string token at p->i: [*lo, *hi) are its bytes inside the quotes. */
static bool string_token(struct scan *p, size_t *lo, size_t *hi)
{
	if (p->i >= p->n || p->s[p->i] != '"')
		return fail(p, "expected a string");
	p->i++;
	*lo = p->i;
	while (p->i < p->n) {
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			*hi = p->i;
			p->i++;
			return true;
		}
		if (c < 0x20)
			return fail(p, "a control character inside a string");
		if (c == '\\') {
			if (p->i + 1 >= p->n)
				break;
			char e = p->s[p->i + 1];
			unsigned u;
			if (e == 'u') {
				if (p->i + 6 > p->n || !hex4(p->s + p->i + 2, &u))
					return fail(p, "a bad \\u escape");
				p->i += 6;
				continue;
			}
			if (!strchr("\"\\/bfnrt", e) || !e)
				return fail(p, "a bad escape in a string");
			p->i += 2;
			continue;
		}
		p->i++;
	}
	return fail(p, "an unterminated string");
}

static void put_utf8(struct sl_buf *b, unsigned cp)
{
	char out[4];
	size_t n;
	if (cp < 0x80) {
		out[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		out[0] = (char)(0xF0 | cp >> 18);
		out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	sl_buf_add(b, out, n);
}

/*
 * One decoded step of a validated string's raw bytes at s[i] (i < hi): appends it to b (when b) and
 * returns the raw bytes it took. A lone surrogate escape decodes as U+FFFD, as Python's json does
 * not (it keeps it): such text is not valid UTF-8 either way.
 */
static size_t decode_step(const char *s, size_t i, size_t hi, struct sl_buf *b, size_t *decoded)
{
	if (s[i] != '\\') {
		if (b)
			sl_buf_addc(b, s[i]);
		*decoded = 1;
		return 1;
	}
	char e = s[i + 1];
	if (e != 'u') {
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *k = strchr(from, e);
		if (b)
			sl_buf_addc(b, to[k - from]);
		*decoded = 1;
		return 2;
	}
	unsigned u = 0, lo = 0;
	hex4(s + i + 2, &u);
	size_t took = 6;
	if (u >= 0xD800 && u < 0xDC00 && i + 12 <= hi && s[i + 6] == '\\' && s[i + 7] == 'u' && hex4(s + i + 8, &lo) &&
	    lo >= 0xDC00 && lo < 0xE000) {
		u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
		took = 12;
	} else if (u >= 0xD800 && u < 0xE000) {
		u = 0xFFFD;
	}
	*decoded = u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;
	if (b)
		put_utf8(b, u);
	return took;
}

static void decode(const char *s, size_t lo, size_t hi, struct sl_buf *b)
{
	size_t d;
	for (size_t i = lo; i < hi;)
		i += decode_step(s, i, hi, b, &d);
}

/* The decoded string [lo, hi) equals word. */
static bool string_is(struct scan *p, size_t lo, size_t hi, const char *word)
{
	struct sl_buf b;
	sl_buf_init(&b, p->a);
	decode(p->s, lo, hi, &b);
	return strcmp(b.buf, word) == 0;
}

/*
 * One walk for every container: items(p, close, item, ctx) reads the array or object at p->i (its
 * opening character already checked by the caller) and calls item for each element, with p->i at the
 * element's value and, in an object, [lo, hi) the member's raw key ({0, 0} in an array); item reads or
 * skips the value. *close_at (when given) gets the closing character's offset.
 */
typedef bool (*item_fn)(struct scan *p, size_t lo, size_t hi, void *ctx);

static bool items(struct scan *p, char close, item_fn item, void *ctx, size_t *close_at)
{
	if (++p->depth > MAX_DEPTH)
		return fail(p, "nested too deeply");
	p->i++; /* the opening character */
	for (bool first = true;; first = false) {
		ws(p);
		if (first && p->i < p->n && p->s[p->i] == close)
			break;
		size_t lo = 0, hi = 0;
		if (close == '}') {
			if (!string_token(p, &lo, &hi))
				return false;
			ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return fail(p, "expected ':'");
			p->i++;
			ws(p);
		}
		if (!item(p, lo, hi, ctx))
			return false;
		ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == close)
			break;
		return fail(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
	}
	if (close_at)
		*close_at = p->i;
	p->i++;
	p->depth--;
	return true;
}

static bool skip_value(struct scan *p);

static bool skip_item(struct scan *p, size_t lo, size_t hi, void *ctx)
{
	(void)lo, (void)hi, (void)ctx;
	return skip_value(p);
}

static bool skip_value(struct scan *p)
{
	ws(p);
	if (p->i >= p->n)
		return fail(p, "unexpected end of the file");
	char c = p->s[p->i];
	if (c == '{')
		return items(p, '}', skip_item, NULL, NULL);
	if (c == '[')
		return items(p, ']', skip_item, NULL, NULL);
	if (c == '"') {
		size_t lo, hi;
		return string_token(p, &lo, &hi);
	}
	static const char *const words[] = {"true", "false", "null"};
	for (size_t k = 0; k < 3; k++) {
		size_t len = strlen(words[k]);
		if (p->n - p->i >= len && memcmp(p->s + p->i, words[k], len) == 0) {
			p->i += len;
			return true;
		}
	}
	/* a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	size_t s = p->i;
	if (p->s[p->i] == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (p->i < p->n && p->s[p->i] >= '1' && p->s[p->i] <= '9')
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	else
		return fail(p, "expected a value");
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		size_t d = p->i;
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
		if (p->i == d)
			return fail(p, "expected a digit");
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		size_t d = p->i;
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
		if (p->i == d)
			return fail(p, "expected a digit");
	}
	return p->i > s;
}

/* A cell being read. */
struct rcell {
	uint32_t number;     /* 1-based among every cell */
	bool code;
	bool have_source;
	bool array;
	size_t open, close;
	size_t (*pieces)[2]; /* raw [lo, hi) of each string */
	size_t npieces, cap;
	const char *sep;
};

/* One string of a source list; the text between the first two is the list's separator. */
static bool source_piece(struct scan *p, size_t klo, size_t khi, void *ctx)
{
	(void)klo, (void)khi;
	struct rcell *c = ctx;
	if (c->npieces == 1 && !c->sep) {
		size_t end = c->pieces[0][1] + 1; /* past the first string's closing quote */
		c->sep = sl_arena_strndup(p->a, p->s + end, p->i - end);
	}
	size_t lo, hi;
	if (!string_token(p, &lo, &hi))
		return false;
	c->pieces = sl_arena_reserve(p->a, c->pieces, c->npieces, &c->cap, c->npieces + 1, sizeof *c->pieces);
	c->pieces[c->npieces][0] = lo;
	c->pieces[c->npieces][1] = hi;
	c->npieces++;
	return true;
}

static bool read_source(struct scan *p, struct rcell *c)
{
	ws(p);
	c->have_source = true;
	if (p->i < p->n && p->s[p->i] == '"') {
		size_t lo, hi;
		c->open = p->i;
		if (!string_token(p, &lo, &hi))
			return false;
		c->close = hi;
		c->pieces = sl_arena_array(p->a, 1, sizeof *c->pieces);
		c->pieces[0][0] = lo;
		c->pieces[0][1] = hi;
		c->npieces = 1;
		return true;
	}
	if (p->i >= p->n || p->s[p->i] != '[')
		return fail(p, "a cell's source is neither a string nor a list of strings");
	c->array = true;
	c->open = p->i;
	return items(p, ']', source_piece, c, &c->close);
}

static bool cell_member(struct scan *p, size_t lo, size_t hi, void *ctx)
{
	struct rcell *c = ctx;
	if (string_is(p, lo, hi, "cell_type")) {
		size_t vlo, vhi;
		if (!string_token(p, &vlo, &vhi))
			return false;
		c->code = string_is(p, vlo, vhi, "code");
		return true;
	}
	if (string_is(p, lo, hi, "source"))
		return read_source(p, c);
	return skip_value(p);
}

static bool read_cell(struct scan *p, struct rcell *c)
{
	ws(p);
	if (p->i >= p->n || p->s[p->i] != '{')
		return fail(p, "a cell is not an object");
	return items(p, '}', cell_member, c, NULL);
}

/*
 * metadata.language_info.name or metadata.kernelspec.language, the first found (level 0: metadata;
 * in: which of the two objects level 1 is in: 'i' language_info, 'k' kernelspec, whose "name" is the
 * kernel's, "python3", not a language).
 */
struct meta {
	const char **lang;
	int level;
	char in;
};

static bool read_metadata(struct scan *p, const char **lang, int level, char in);

static bool meta_member(struct scan *p, size_t lo, size_t hi, void *ctx)
{
	const struct meta *m = ctx;
	char obj = m->level != 0 ? 0 : string_is(p, lo, hi, "language_info") ? 'i'
				  : string_is(p, lo, hi, "kernelspec") ? 'k' : 0;
	if (obj)
		return read_metadata(p, m->lang, 1, obj);
	bool want_str = m->level == 1 && string_is(p, lo, hi, m->in == 'i' ? "name" : "language");
	if (!want_str || p->i >= p->n || p->s[p->i] != '"')
		return skip_value(p);
	size_t vlo, vhi;
	if (!string_token(p, &vlo, &vhi))
		return false;
	if (!*m->lang) {
		struct sl_buf b;
		sl_buf_init(&b, p->a);
		decode(p->s, vlo, vhi, &b);
		*m->lang = b.buf;
	}
	return true;
}

static bool read_metadata(struct scan *p, const char **lang, int level, char in)
{
	ws(p);
	if (p->i >= p->n || p->s[p->i] != '{')
		return skip_value(p);
	struct meta m = {lang, level, in};
	return items(p, '}', meta_member, &m, NULL);
}

/* The indentation of the line holding byte off, as the separator of a one-string array. */
static const char *sep_guess(struct sl_arena *a, const char *s, size_t off)
{
	size_t b = off;
	while (b > 0 && s[b - 1] != '\n')
		b--;
	size_t e = b;
	while (e < off && (s[e] == ' ' || s[e] == '\t'))
		e++;
	return sl_arena_printf(a, ",\n%.*s", (int)(e - b), s + b);
}

/* What the top-level object gives: the code cells with their sources, the language, the format. */
struct top {
	struct rcell *cells;
	size_t ncells, cap;
	uint32_t all; /* cells of every type */
	const char *lang;
	bool have_cells, v3;
};

static bool cell_item(struct scan *p, size_t lo, size_t hi, void *ctx)
{
	(void)lo, (void)hi;
	struct top *t = ctx;
	struct rcell c = {0};
	if (!read_cell(p, &c))
		return false;
	c.number = ++t->all;
	if (c.code && c.have_source) {
		t->cells = sl_arena_reserve(p->a, t->cells, t->ncells, &t->cap, t->ncells + 1, sizeof *t->cells);
		t->cells[t->ncells++] = c;
	}
	return true;
}

static bool top_member(struct scan *p, size_t lo, size_t hi, void *ctx)
{
	struct top *t = ctx;
	if (string_is(p, lo, hi, "cells")) {
		t->have_cells = true;
		if (p->i >= p->n || p->s[p->i] != '[')
			return fail(p, "not a notebook: \"cells\" is not a list");
		return items(p, ']', cell_item, t, NULL);
	}
	if (string_is(p, lo, hi, "metadata"))
		return read_metadata(p, &t->lang, 0, 0);
	if (string_is(p, lo, hi, "worksheets"))
		t->v3 = true;
	return skip_value(p);
}

int sl_notebook_read(struct sl_arena *a, const struct sl_source *raw, struct sl_source **code,
		     const struct sl_notebook **nbp, const char **why, size_t *at)
{
	struct scan p = {.a = a, .s = raw->bytes, .n = raw->len, .i = raw->bom};
	struct top t = {0};
	ws(&p);
	if (p.i >= p.n || p.s[p.i] != '{') {
		fail(&p, "not a notebook: the file is not a JSON object");
		goto bad;
	}
	if (!items(&p, '}', top_member, &t, NULL))
		goto bad;
	ws(&p);
	if (p.i < p.n) {
		fail(&p, "text after the notebook's JSON object");
		goto bad;
	}
	if (!t.have_cells) {
		p.i = raw->bom;
		fail(&p, t.v3 ? "a notebook of nbformat 3 (\"worksheets\"): sweeplint reads nbformat 4"
			    : "not a notebook: no \"cells\"");
		goto bad;
	}

	/* the code source: every code cell's text, each ended by a line break */
	struct sl_notebook *nb = sl_arena_alloc(a, sizeof *nb);
	nb->raw = raw;
	nb->language = t.lang;
	nb->ncells_all = t.all;
	nb->cells = sl_arena_array(a, t.ncells ? t.ncells : 1, sizeof *nb->cells);
	nb->ncells = t.ncells;
	struct sl_buf text;
	sl_buf_init(&text, a);
	/* cell numbers: the position among all cells; count them again in file order */
	for (size_t k = 0; k < t.ncells; k++) {
		struct rcell *rc = &t.cells[k];
		struct sl_nb_cell *c = &nb->cells[k];
		c->number = rc->number;
		c->array = rc->array;
		c->open = rc->open;
		c->close = rc->close;
		c->sep = rc->sep ? rc->sep : sep_guess(a, raw->bytes, rc->open);
		c->pieces = sl_arena_array(a, rc->npieces ? rc->npieces : 1, sizeof *c->pieces);
		c->npieces = rc->npieces;
		c->code_start = text.len;
		for (size_t j = 0; j < rc->npieces; j++) {
			c->pieces[j].raw_start = rc->pieces[j][0];
			c->pieces[j].raw_end = rc->pieces[j][1];
			c->pieces[j].code_start = text.len;
			decode(raw->bytes, rc->pieces[j][0], rc->pieces[j][1], &text);
			c->pieces[j].code_end = text.len;
		}
		c->code_end = text.len;
		sl_buf_addc(&text, '\n');
	}
	struct sl_source *cs = sl_source_from_bytes(a, raw->path, text.buf, text.len);
	cs->display = raw->display;
	cs->notebook = nb;
	cs->python = true;
	for (size_t k = 0; k < t.ncells; k++) {
		struct sl_nb_cell *c = &nb->cells[k];
		uint32_t l0, col, l1;
		sl_source_linecol(cs, c->code_start, &l0, &col);
		sl_source_linecol(cs, c->code_end + 1, &l1, &col);
		c->first_line = l0;
		c->nlines = l1 - l0;
	}
	*code = cs;
	*nbp = nb;
	return 0;
bad:
	*why = p.why ? p.why : "not a notebook";
	*at = p.at;
	return -1;
}

const struct sl_nb_cell *sl_notebook_cell(const struct sl_notebook *nb, uint32_t line, uint32_t *cell_line)
{
	size_t lo = 0, hi = nb->ncells;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (nb->cells[mid].first_line <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct sl_nb_cell *c = &nb->cells[lo - 1];
	*cell_line = line - c->first_line + 1;
	return c;
}

/* The piece of cell c holding code byte off (the last piece for off at the cell's end), or NULL. */
static const struct sl_nb_piece *piece_at(const struct sl_nb_cell *c, size_t off)
{
	for (size_t j = 0; j < c->npieces; j++)
		if (off < c->pieces[j].code_end || (j + 1 == c->npieces && off <= c->pieces[j].code_end))
			return &c->pieces[j];
	return NULL;
}

static const struct sl_nb_cell *cell_of_offset(const struct sl_notebook *nb, size_t off)
{
	size_t lo = 0, hi = nb->ncells;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (nb->cells[mid].code_start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &nb->cells[lo - 1] : NULL;
}

size_t sl_notebook_raw_offset(const struct sl_notebook *nb, size_t off)
{
	const struct sl_nb_cell *c = cell_of_offset(nb, off);
	if (!c)
		return 0;
	const struct sl_nb_piece *pc = piece_at(c, off);
	if (!pc)
		return c->close; /* the line break sweeplint adds: the cell's closing bracket */
	const char *s = nb->raw->bytes;
	size_t want = off - pc->code_start, got = 0, i = pc->raw_start;
	while (i < pc->raw_end && got < want) {
		size_t d;
		i += decode_step(s, i, pc->raw_end, NULL, &d);
		got += d;
	}
	return i;
}

/* Write text[0..n) as a JSON string as Python's json.dump(ensure_ascii=False) does. */
static void put_json_string(struct sl_buf *b, const char *t, size_t n)
{
	sl_buf_addc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		switch (c) {
		case '"':
			sl_buf_adds(b, "\\\"");
			break;
		case '\\':
			sl_buf_adds(b, "\\\\");
			break;
		case '\n':
			sl_buf_adds(b, "\\n");
			break;
		case '\r':
			sl_buf_adds(b, "\\r");
			break;
		case '\t':
			sl_buf_adds(b, "\\t");
			break;
		case '\b':
			sl_buf_adds(b, "\\b");
			break;
		case '\f':
			sl_buf_adds(b, "\\f");
			break;
		default:
			if (c < 0x20)
				sl_buf_addf(b, "\\u%04x", c);
			else
				sl_buf_addc(b, (char)c);
		}
	}
	sl_buf_addc(b, '"');
}

/* Strings of text as Jupyter writes a source list: one per line, each with its line break. */
static void put_lines(struct sl_buf *b, const char *t, size_t n, const char *sep)
{
	size_t s = 0;
	bool first = true;
	while (s < n) {
		size_t e = s;
		while (e < n && t[e] != '\n' && t[e] != '\r')
			e++;
		if (e < n)
			e += (t[e] == '\r' && e + 1 < n && t[e + 1] == '\n') ? 2 : 1;
		if (!first)
			sl_buf_adds(b, sep);
		put_json_string(b, t + s, e - s);
		first = false;
		s = e;
	}
}

static int cmp_edit(const void *x, const void *y)
{
	const struct sl_edit *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The new text of code [lo, hi) after the edits es[0..n) that lie in it (sorted, inside). */
static void edited(struct sl_buf *b, const char *code, size_t lo, size_t hi, const struct sl_edit *es, size_t n)
{
	size_t at = lo;
	for (size_t k = 0; k < n; k++) {
		sl_buf_add(b, code + at, es[k].start - at);
		sl_buf_add(b, es[k].text, es[k].len);
		at = es[k].end;
	}
	sl_buf_add(b, code + at, hi - at);
}

int sl_notebook_splices(struct sl_arena *a, const struct sl_notebook *nb, const struct sl_source *code,
			const struct sl_edit *edits, size_t n, struct sl_edit **out, size_t *nout, const char **why)
{
	struct sl_edit *es = sl_arena_array(a, n ? n : 1, sizeof *es);
	if (n)
		memcpy(es, edits, n * sizeof *es);
	qsort(es, n, sizeof *es, cmp_edit);
	struct sl_edit *res = sl_arena_array(a, n ? n : 1, sizeof *res);
	size_t nres = 0;
	for (size_t k = 0; k < n;) {
		const struct sl_nb_cell *c = cell_of_offset(nb, es[k].start);
		if (!c || es[k].end > c->code_end || (es[k].start == c->code_end && es[k].len && es[k].end > es[k].start)) {
			*why = "an edit reaches past the end of its notebook cell";
			return -1;
		}
		if (!c->array || !c->npieces) {
			/* one string: the cell's whole text, re-encoded */
			size_t m = k;
			while (m < n && es[m].start < c->code_end + 1 && es[m].end <= c->code_end)
				m++;
			struct sl_buf b;
			sl_buf_init(&b, a);
			edited(&b, code->bytes, c->code_start, c->code_end, es + k, m - k);
			struct sl_buf enc;
			sl_buf_init(&enc, a);
			if (c->array)
				put_lines(&enc, b.buf, b.len, c->sep);
			else
				put_json_string(&enc, b.buf, b.len);
			size_t lo = c->array ? c->open + 1 : c->open, hi = c->array ? c->close : c->close + 1;
			res[nres++] = (struct sl_edit){.start = lo, .end = hi, .text = enc.buf, .len = enc.len};
			k = m;
			continue;
		}
		/* the pieces the edits touch, merged into runs: each run re-encoded from its first string's
		 * opening quote to its last string's closing quote */
		size_t p0 = (size_t)(piece_at(c, es[k].start) - c->pieces);
		size_t p1 = p0;
		size_t m = k;
		while (m < n && es[m].start <= c->code_end && es[m].end <= c->code_end) {
			size_t q0 = (size_t)(piece_at(c, es[m].start) - c->pieces);
			if (q0 > p1)
				break;
			size_t endoff = es[m].end > es[m].start ? es[m].end - 1 : es[m].end;
			size_t q1 = (size_t)(piece_at(c, endoff) - c->pieces);
			if (q1 > p1)
				p1 = q1;
			m++;
		}
		size_t lo = c->pieces[p0].code_start, hi = c->pieces[p1].code_end;
		struct sl_buf b;
		sl_buf_init(&b, a);
		edited(&b, code->bytes, lo, hi, es + k, m - k);
		struct sl_buf enc;
		sl_buf_init(&enc, a);
		put_lines(&enc, b.buf, b.len, c->sep);
		size_t rlo = c->pieces[p0].raw_start - 1, rhi = c->pieces[p1].raw_end + 1;
		if (!b.len) {
			/* every line of the run goes: its strings and one separator */
			if (p1 + 1 < c->npieces)
				rhi = c->pieces[p1 + 1].raw_start - 1;
			else if (p0 > 0)
				rlo = c->pieces[p0 - 1].raw_end + 1;
		}
		res[nres++] = (struct sl_edit){.start = rlo, .end = rhi, .text = enc.buf, .len = enc.len};
		k = m;
	}
	for (size_t k = 0; k < nres; k++)
		res[k].order = k;
	*out = res;
	*nout = nres;
	return 0;
}
