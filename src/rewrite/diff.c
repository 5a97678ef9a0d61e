/* rewrite/diff: a unified diff straight from the splices (no line matching needed: the splices say what changed). */
#include <stdbool.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/edit.h"
#include "sweeplint/rewrite.h"
#include "sweeplint/source.h"
#include "sweeplint/utf8.h"

struct region {
	size_t l1, l2;       /* old lines [l1, l2) (0-based; l1 == l2: nothing removed) */
	size_t s0, s1;       /* splices v[s0..s1) */
};

/*
 * The file's lines as patch and git apply see them: ended by '\n' only. The YAML line table
 * (src->line_start) also breaks at a lone CR, which patch does not: a CR-only file is one line to
 * patch, and a hunk counted in YAML lines was rejected ("malformed patch").
 */
struct lines {
	size_t *start; /* the first byte of each line holding bytes */
	size_t n;
	size_t len;    /* the file's length */
	bool final_nl; /* the file ends with '\n' */
};

static void split_lines(struct sl_arena *a, const struct sl_source *src, struct lines *L)
{
	size_t n = 0;
	for (size_t i = 0; i < src->len;) {
		const char *nl = memchr(src->bytes + i, '\n', src->len - i);
		n++;
		i = nl ? (size_t)(nl - src->bytes) + 1 : src->len;
	}
	L->start = sl_arena_array(a, n ? n : 1, sizeof *L->start);
	L->n = 0;
	for (size_t i = 0; i < src->len;) {
		const char *nl = memchr(src->bytes + i, '\n', src->len - i);
		L->start[L->n++] = i;
		i = nl ? (size_t)(nl - src->bytes) + 1 : src->len;
	}
	L->len = src->len;
	L->final_nl = src->len > 0 && src->bytes[src->len - 1] == '\n';
}

static size_t line_start(const struct lines *L, size_t k)
{
	return k < L->n ? L->start[k] : L->len;
}

/* The line holding byte off (L->n when off is past the last line). */
static size_t line_of(const struct lines *L, size_t off)
{
	size_t lo = 0, hi = L->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (L->start[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	size_t k = lo - 1;
	if (k + 1 == L->n && off >= L->len && L->final_nl)
		return L->n; /* at the very end, after the final line break */
	return k;
}

/* Print text[0..len) as lines with prefix c; a last line without a break gets git's marker. */
static size_t put_lines(struct sl_buf *out, char c, const char *text, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) + 1 : len;
		sl_buf_addc(out, c);
		sl_buf_add(out, text + i, end - i);
		if (!nl)
			sl_buf_adds(out, "\n\\ No newline at end of file\n");
		n++;
		i = end;
	}
	return n;
}

/*
 * A file name as a ---/+++ header holds it: as it is, or C-quoted as git writes names ("a/x\033y",
 * octal for a byte that is not plain: GNU patch and git apply read the quoted form) when it holds a
 * control character, a bidi control, a byte of invalid UTF-8, a quote or a backslash, so the header
 * is one line that names the file exactly and drives no terminal.
 */
static void add_label(struct sl_buf *out, const char *name)
{
	size_t n = strlen(name);
	bool plain = true;
	for (size_t i = 0; i < n && plain;) {
		unsigned char c = (unsigned char)name[i];
		uint32_t cp;
		size_t k = sl_utf8_decode(name + i, n - i, &cp);
		plain = k && !sl_utf8_hidden(cp) && c != '"' && c != '\\';
		i += k ? k : 1;
	}
	if (plain) {
		sl_buf_add(out, name, n);
		return;
	}
	sl_buf_addc(out, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)name[i];
		uint32_t cp;
		size_t k = sl_utf8_decode(name + i, n - i, &cp);
		bool hidden = !k || sl_utf8_hidden(cp);
		if (!k)
			k = 1;
		for (size_t j = 0; j < k; j++, c = (unsigned char)name[i + j]) {
			const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t" : NULL;
			if (e)
				sl_buf_adds(out, e);
			else if (hidden)
				sl_buf_addf(out, "\\%03o", c);
			else
				sl_buf_addc(out, (char)c);
		}
		i += k;
	}
	sl_buf_addc(out, '"');
}

void sl_rewrite_diff(struct sl_buf *out, const struct sl_source *src, const struct sl_edit *v, size_t n,
		     const char *old_label, const char *new_label, unsigned context)
{
	if (!n)
		return;
	struct sl_arena *a = out->arena;
	struct lines L;
	split_lines(a, src, &L);
	size_t nreal = L.n;
	struct region *r = sl_arena_array(a, n, sizeof *r);
	size_t nr = 0;
	for (size_t k = 0; k < n; k++) {
		size_t l1 = line_of(&L, v[k].start);
		size_t l2 = v[k].end > v[k].start ? line_of(&L, v[k].end - 1) + 1 : l1 + 1;
		if (l2 > nreal)
			l2 = nreal;
		if (l1 > l2)
			l1 = l2;
		if (nr && l1 <= r[nr - 1].l2) {
			/* touches a line the previous splice touched, or the next one: one region */
			if (l2 > r[nr - 1].l2)
				r[nr - 1].l2 = l2;
			r[nr - 1].s1 = k + 1;
			continue;
		}
		r[nr++] = (struct region){l1, l2, k, k + 1};
	}

	sl_buf_adds(out, "--- ");
	add_label(out, old_label);
	sl_buf_adds(out, "\n+++ ");
	add_label(out, new_label);
	sl_buf_addc(out, '\n');
	long delta = 0; /* new line numbers minus old ones before the current hunk */
	for (size_t h = 0; h < nr;) {
		/* a hunk: regions whose gaps fit in twice the context */
		size_t e = h + 1;
		while (e < nr && r[e].l1 - r[e - 1].l2 <= 2 * (size_t)context)
			e++;
		size_t a0 = r[h].l1 > context ? r[h].l1 - context : 0;
		size_t a1 = r[e - 1].l2 + context < nreal ? r[e - 1].l2 + context : nreal;
		struct sl_buf body;
		sl_buf_init(&body, a);
		size_t old_n = 0, new_n = 0, at = a0;
		for (size_t k = h; k < e; k++) {
			size_t cs = line_start(&L, at), ce = line_start(&L, r[k].l1);
			size_t c = put_lines(&body, ' ', src->bytes + cs, ce - cs);
			old_n += c;
			new_n += c;
			size_t rs = line_start(&L, r[k].l1), re = line_start(&L, r[k].l2);
			old_n += put_lines(&body, '-', src->bytes + rs, re - rs);
			struct sl_buf nt;
			sl_buf_init(&nt, a);
			size_t pos = rs;
			for (size_t s = r[k].s0; s < r[k].s1; s++) {
				sl_buf_add(&nt, src->bytes + pos, v[s].start - pos);
				sl_buf_add(&nt, v[s].text, v[s].len);
				pos = v[s].end;
			}
			if (re > pos)
				sl_buf_add(&nt, src->bytes + pos, re - pos);
			new_n += put_lines(&body, '+', nt.buf, nt.len);
			at = r[k].l2;
		}
		size_t cs = line_start(&L, at), ce = line_start(&L, a1);
		size_t c = put_lines(&body, ' ', src->bytes + cs, ce - cs);
		old_n += c;
		new_n += c;
		size_t old_start = old_n ? a0 + 1 : a0;
		long new_first = (long)a0 + delta;
		long new_start = new_n ? new_first + 1 : new_first;
		sl_buf_addf(out, "@@ -%zu", old_start);
		if (old_n != 1)
			sl_buf_addf(out, ",%zu", old_n);
		sl_buf_addf(out, " +%ld", new_start);
		if (new_n != 1)
			sl_buf_addf(out, ",%zu", new_n);
		sl_buf_adds(out, " @@\n");
		sl_buf_add(out, body.buf, body.len);
		delta += (long)new_n - (long)old_n;
		h = e;
	}
}
