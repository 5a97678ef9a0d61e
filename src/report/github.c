/*
 * github: GitHub Actions workflow commands, one line per finding, which the
 * runner turns into annotations on the pull request's diff:
 *   ::error file=PATH,line=L,col=C,endLine=L2,endColumn=C2,title=SLUG (CODE)::MESSAGE
 * (::warning for warnings, ::notice for info; endColumn is the column after
 * the span). The escaping is @actions/core's (research/ecosystem.md §3.2):
 * in the message '%', CR and LF become %25, %0D and %0A; in property values
 * ':' and ',' become %3A and %2C as well. A hint follows the message on its
 * own line (an escaped LF). Other lines are plain log text: the note about
 * an assumed GPU and the summary line of the text format (not with -q).
 */
#include <string.h>

#include "format.h"
#include "sweeplint/pysweep.h"
#include "sweeplint/rules.h"
#include "sweeplint/source.h"
#include "sweeplint/utf8.h"

static const char *const command[SL_SEV__COUNT] = {
	[SL_SEV_INFO] = "notice",
	[SL_SEV_WARNING] = "warning",
	[SL_SEV_ERROR] = "error",
};

/* Write s escaped as workflow-command data (property: as a property value). */
static void put_escaped(FILE *out, const char *s, bool property)
{
	const char *end = s + strlen(s);
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '%':
			fputs("%25", out);
			break;
		case '\r':
			fputs("%0D", out);
			break;
		case '\n':
			fputs("%0A", out);
			break;
		case ':':
			fputs(property ? "%3A" : ":", out);
			break;
		case ',':
			fputs(property ? "%2C" : ",", out);
			break;
		default: {
			/* other control characters (ESC, BEL, DEL, C1), bidi controls and invalid UTF-8 (utf8.h)
			 * percent-encoded: the runner decodes none of them, so the log shows them as text
			 * instead of acting on them */
			char esc[11];
			size_t k = sl_term_escape_at(p, (size_t)(end - p), 0, esc);
			for (size_t i = 0; i < k; i++)
				if (esc[0])
					fprintf(out, "%%%02X", (unsigned char)p[i]);
				else
					fputc(p[i], out);
			p += k - 1;
			break;
		}
		}
	}
}

static void github_file(struct sl_report *r, const struct sl_file *f)
{
	FILE *out = r->out;
	for (size_t i = 0; i < f->diags.n; i++) {
		const struct sl_diag *d = &f->diags.v[i];
		const struct sl_rule *rule = sl_rule_find(d->rule);
		fprintf(out, "::%s file=", command[d->severity] ? command[d->severity] : "notice");
		/* the file's own lines: in a notebook, where the JSON string holding the code is; the message
		 * starts with the cell and the line in it */
		const struct sl_source *src = d->src ? d->src : f->src, *raw = src;
		struct sl_span sp = sl_code_raw_span(src, d->span, &raw);
		unsigned cell = 0;
		struct sl_span cs = sl_source_cell_span(src, d->span, &cell);
		put_escaped(out, src->display, true);
		fprintf(out, ",line=%u,col=%u,endLine=%u,endColumn=%u,title=", sp.line, sp.col, sp.end_line, sp.end_col);
		put_escaped(out, d->rule, true);
		if (rule) {
			fputs(" (", out);
			put_escaped(out, rule->code, true);
			fputc(')', out);
		}
		fputs("::", out);
		if (cell)
			fprintf(out, "cell %u:%u:%u: ", cell, cs.line, cs.col);
		put_escaped(out, d->message, false);
		if (d->hint) {
			fputs("%0Ahint: ", out);
			put_escaped(out, d->hint, false);
		}
		fputc('\n', out);
	}
}

const struct sl_formatter sl_formatter_github = {
	.file = github_file,
	.finish = sl_report_finish_lines,
};
