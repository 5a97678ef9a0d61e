/* diag: the diagnostic list, severities and error names. */
#include "sweeplint/diag.h"

#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/utf8.h"

static const char *const sev_names[SL_SEV__COUNT] = {
	[SL_SEV_OFF] = "off",
	[SL_SEV_INFO] = "info",
	[SL_SEV_WARNING] = "warning",
	[SL_SEV_ERROR] = "error",
};

const char *sl_severity_name(enum sl_severity s)
{
	return (unsigned)s < SL_SEV__COUNT ? sev_names[s] : "?";
}

int sl_severity_parse(const char *s)
{
	for (int i = 0; i < SL_SEV__COUNT; i++)
		if (strcmp(s, sev_names[i]) == 0)
			return i;
	return -1;
}

static const char *const err_names[SL_ERR__COUNT] = {
	[SL_OK] = "success",
	[SL_ENOENT] = "not found",
	[SL_EIO] = "input/output error",
	[SL_EPARSE] = "parse error",
	[SL_EUSAGE] = "usage error",
	[SL_ECONFIG] = "invalid configuration",
	[SL_ELIMIT] = "input past a safety limit",
	[SL_EINTERNAL] = "internal error",
	[SL_EOUTSIDE] = "outside the project: not read",
};

const char *sl_strerror(int err)
{
	if (err < 0)
		err = -err;
	return err < SL_ERR__COUNT ? err_names[err] : "unknown error";
}

void sl_diags_init(struct sl_diags *d, struct sl_arena *a)
{
	d->arena = a;
	d->v = NULL;
	d->n = d->cap = 0;
}

struct sl_diag *sl_diags_vadd(struct sl_diags *d, const char *rule, enum sl_severity sev,
			      const struct sl_source *src, struct sl_span span, const char *fmt, va_list ap)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		d->v = sl_arena_grow(d->arena, d->v, d->n, cap, sizeof *d->v);
		d->cap = cap;
	}
	struct sl_diag *g = &d->v[d->n++];
	g->rule = rule;
	g->severity = sev;
	g->src = src;
	g->span = span;
	g->message = sl_arena_vprintf(d->arena, fmt, ap);
	g->hint = NULL;
	g->assumed = NULL;
	g->nassumed = 0;
	return g;
}

struct sl_diag *sl_diags_add(struct sl_diags *d, const char *rule, enum sl_severity sev,
			     const struct sl_source *src, struct sl_span span, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct sl_diag *g = sl_diags_vadd(d, rule, sev, src, span, fmt, ap);
	va_end(ap);
	return g;
}

static int cmp_diag(const void *pa, const void *pb)
{
	const struct sl_diag *a = pa, *b = pb;
	const char *fa = a->src ? a->src->display : "", *fb = b->src ? b->src->display : "";
	int c = strcmp(fa, fb);
	if (c)
		return c;
	if (a->span.line != b->span.line)
		return a->span.line < b->span.line ? -1 : 1;
	if (a->span.col != b->span.col)
		return a->span.col < b->span.col ? -1 : 1;
	c = strcmp(a->rule, b->rule);
	if (c)
		return c;
	c = strcmp(a->message, b->message);
	if (c)
		return c;
	/* keep insertion order for exact ties: compare addresses within the array */
	return a < b ? -1 : a > b;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool repeats(const struct sl_diag *a, const struct sl_diag *b)
{
	return a->src == b->src && a->span.start == b->span.start && a->span.end == b->span.end &&
	       a->span.line == b->span.line && a->span.col == b->span.col && a->severity == b->severity &&
	       same_text(a->rule, b->rule) && same_text(a->message, b->message) && same_text(a->hint, b->hint);
}

void sl_diags_sort(struct sl_diags *d)
{
	if (d->n < 2)
		return;
	qsort(d->v, d->n, sizeof *d->v, cmp_diag);
	size_t w = 1;
	for (size_t i = 1; i < d->n; i++)
		if (!repeats(&d->v[w - 1], &d->v[i]))
			d->v[w++] = d->v[i];
	d->n = w;
}

size_t sl_diags_count(const struct sl_diags *d, enum sl_severity s)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		n += d->v[i].severity == s;
	return n;
}

const char *sl_term_safe(struct sl_arena *a, const char *s)
{
	if (!s)
		return "(null)";
	size_t n = strlen(s), i = 0;
	char esc[11];
	while (i < n) {
		size_t k = sl_term_escape_at(s + i, n - i, 0, esc);
		if (esc[0])
			break;
		i += k;
	}
	if (i == n)
		return s;
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_add(&b, s, i);
	while (i < n) {
		size_t k = sl_term_escape_at(s + i, n - i, 0, esc);
		if (esc[0])
			sl_buf_adds(&b, esc);
		else
			sl_buf_add(&b, s + i, k);
		i += k;
	}
	return b.buf;
}
