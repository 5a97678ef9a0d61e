/*
 * text: one line per finding, `path:line:col: severity: message [slug]`,
 * sorted by position (the driver sorts), then a summary line. With colour,
 * the severity is coloured and the position dim. Control characters from
 * the user's files are escaped so that a finding is always one line and
 * never drives the terminal.
 */
#include <string.h>

#include "format.h"
#include "sweeplint/arena.h"
#include "sweeplint/source.h"
#include "sweeplint/utf8.h"

#define DIM "\033[2m"
#define RESET "\033[0m"

static const char *const sev_color[SL_SEV__COUNT] = {
	[SL_SEV_INFO] = "\033[1;36m",    /* bold cyan */
	[SL_SEV_WARNING] = "\033[1;33m", /* bold yellow */
	[SL_SEV_ERROR] = "\033[1;31m",   /* bold red */
};

/* Write s with what a terminal must not receive raw escaped (sl_term_escape_at): \n, \r, \t, \x1b,
 * C1 and bidi controls as \u009b, \u202e, a byte of invalid UTF-8 as \xff. */
static void put_text(FILE *out, const char *s)
{
	size_t n = strlen(s), run = 0;
	char esc[11];
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f) {
			i++;
			continue;
		}
		size_t k = sl_term_escape_at(s + i, n - i, 0, esc);
		if (esc[0]) {
			fwrite(s + run, 1, i - run, out);
			fputs(esc, out);
			run = i + k;
		}
		i += k;
	}
	fwrite(s + run, 1, n - run, out);
}

static void text_file(struct sl_report *r, const struct sl_file *f)
{
	FILE *out = r->out;
	bool color = r->opt->color;
	for (size_t i = 0; i < f->diags.n; i++) {
		const struct sl_diag *d = &f->diags.v[i];
		if (color)
			fputs(DIM, out);
		put_text(out, sl_report_where(f->arena ? f->arena : r->arena, d->src ? d->src : f->src, d->span));
		fputc(':', out);
		if (color)
			fprintf(out, RESET " %s%s" RESET ": ", sev_color[d->severity], sl_severity_name(d->severity));
		else
			fprintf(out, " %s: ", sl_severity_name(d->severity));
		put_text(out, d->message);
		fputs(" [", out);
		put_text(out, d->rule);
		fputs("]\n", out);
		if (r->opt->verbose > 0 && d->hint) {
			fputs("    hint: ", out);
			put_text(out, d->hint);
			fputc('\n', out);
		}
	}
	if (r->opt->verbose > 0 && !r->opt->quiet) {
		/* how the file was read: which key took which role, and why the others did not */
		for (size_t i = 0; i < f->nnotes; i++) {
			put_text(out, f->src->display);
			fputs(": note: ", out);
			put_text(out, f->notes[i]);
			fputc('\n', out);
		}
	}
}

void sl_report_finish_lines(struct sl_report *r)
{
	if (r->opt->quiet || r->totals.files == 0)
		return;
	if (r->assumed_gpu)
		fprintf(r->out, "note: no GPU given; checked against %s (set one with --gpu)\n", r->assumed_gpu);
	fputs(sl_report_summary(r->arena, &r->totals), r->out);
	fputc('\n', r->out);
}

const struct sl_formatter sl_formatter_text = {
	.file = text_file,
	.finish = sl_report_finish_lines,
};
