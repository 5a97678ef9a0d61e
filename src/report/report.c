/* report: format names, the formatter table, the totals every format shares, and the summary line. */
#include <string.h>

#include "format.h"
#include "sweeplint/arena.h"
#include "sweeplint/pysweep.h"
#include "sweeplint/source.h"

/* Adding a format: a value in enum sl_format (run.h), its name, and a row here. */
static const struct sl_formatter *const formatters[SL_FORMAT__COUNT] = {
	[SL_FORMAT_TEXT] = &sl_formatter_text,
	[SL_FORMAT_JSON] = &sl_formatter_json,
	[SL_FORMAT_SARIF] = &sl_formatter_sarif,
	[SL_FORMAT_GITHUB] = &sl_formatter_github,
	[SL_FORMAT_HTML] = &sl_formatter_html,
};

static const char *const format_names[SL_FORMAT__COUNT] = {
	[SL_FORMAT_TEXT] = "text",
	[SL_FORMAT_JSON] = "json",
	[SL_FORMAT_SARIF] = "sarif",
	[SL_FORMAT_GITHUB] = "github",
	[SL_FORMAT_HTML] = "html",
};

const char *sl_format_name(enum sl_format f)
{
	return (unsigned)f < SL_FORMAT__COUNT ? format_names[f] : "?";
}

int sl_format_parse(const char *s)
{
	for (int i = 0; i < SL_FORMAT__COUNT; i++)
		if (strcmp(s, format_names[i]) == 0)
			return i;
	return -1;
}

struct sl_report *sl_report_new(struct sl_arena *a, const struct sl_options *opt, FILE *out)
{
	struct sl_report *r = sl_arena_alloc(a, sizeof *r);
	r->arena = a;
	r->opt = opt;
	r->out = out;
	r->fmt = (unsigned)opt->format < SL_FORMAT__COUNT ? formatters[opt->format] : &sl_formatter_text;
	return r;
}

static void add_combos(struct sl_combinations *to, const struct sl_combinations *c)
{
	to->total = sl_count_add(to->total, c->total);
	to->fit = sl_count_add(to->fit, c->fit);
	to->oom = sl_count_add(to->oom, c->oom);
	to->at_risk = sl_count_add(to->at_risk, c->at_risk);
	to->unknown = sl_count_add(to->unknown, c->unknown);
	to->stated = sl_count_add(to->stated, c->stated);
	to->assumed = sl_count_add(to->assumed, c->assumed);
}

void sl_report_file(struct sl_report *r, const struct sl_file *f)
{
	struct sl_report_totals *t = &r->totals;
	if (!f->more)
		t->files++; /* the sweeps of one code file count it once */
	for (size_t i = 0; i < f->diags.n; i++)
		t->by_severity[f->diags.v[i].severity]++;
	add_combos(&t->combos, &f->combos);
	/* a copy: the file (and its GPU name) may be released once reported */
	if (f->evaluated && f->gpu_assumed && (!r->assumed_gpu || strcmp(r->assumed_gpu, f->gpu_name) != 0))
		r->assumed_gpu = sl_arena_strdup(r->arena, f->gpu_name);
	if (r->fmt->keeps_files) {
		r->files = sl_arena_reserve(r->arena, r->files, r->nfiles, &r->cap, r->nfiles + 1, sizeof *r->files);
		r->files[r->nfiles++] = f;
	}
	r->fmt->file(r, f);
}

const char *sl_report_where(struct sl_arena *a, const struct sl_source *src, struct sl_span span)
{
	return sl_source_where(a, src, span);
}

bool sl_report_keeps_files(const struct sl_report *r)
{
	return r->fmt->keeps_files;
}

int sl_report_finish(struct sl_report *r)
{
	r->fmt->finish(r);
	if (fflush(r->out) != 0 || ferror(r->out) || r->failed)
		return -SL_EIO;
	return 0;
}

const struct sl_report_totals *sl_report_totals(const struct sl_report *r)
{
	return &r->totals;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

const char *sl_report_summary(struct sl_arena *a, const struct sl_report_totals *t)
{
	size_t e = t->by_severity[SL_SEV_ERROR], w = t->by_severity[SL_SEV_WARNING],
	       i = t->by_severity[SL_SEV_INFO];
	const struct sl_combinations *c = &t->combos;
	bool one = !c->total.infinite && !c->total.saturated && c->total.value == 1;
	bool none_assumed = !c->assumed.infinite && !c->assumed.saturated && c->assumed.value == 0;
	/* an oom verdict that rests on a guess (an assumed setting, a bound) is its own count */
	bool none_at_risk = !c->at_risk.infinite && !c->at_risk.saturated && c->at_risk.value == 0;
	const char *risk = none_at_risk ? "" : sl_arena_printf(a, "%s at risk, ", sl_count_str(a, c->at_risk));
	return sl_arena_printf(a, "%zu %s, %zu %s, %zu info in %zu %s (%s %s: %s fit, %s oom, %s%s unknown%s%s%s)", e,
			       plural(e, "error", "errors"), w, plural(w, "warning", "warnings"), i, t->files,
			       plural(t->files, "file", "files"), sl_count_str(a, c->total),
			       one ? "combination" : "combinations", sl_count_str(a, c->fit),
			       sl_count_str(a, c->oom), risk, sl_count_str(a, c->unknown),
			       none_assumed ? "" : "; ", none_assumed ? "" : sl_count_str(a, c->assumed),
			       none_assumed ? "" : " judged on assumed settings");
}
