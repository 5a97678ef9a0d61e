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
#include "sweeplint/rules.h"
#include "sweeplint/source.h"

static const char *const command[SL_SEV__COUNT] = {
	[SL_SEV_INFO] = "notice",
	[SL_SEV_WARNING] = "warning",
	[SL_SEV_ERROR] = "error",
};

/* Write s escaped as workflow-command data (property: as a property value). */
static void put_escaped(FILE *out, const char *s, bool property)
{
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
		default:
			/* other control characters (ESC, BEL, DEL, C1 as UTF-8) percent-encoded: the runner
			 * decodes none of them, so the log shows them as text instead of acting on them */
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				fprintf(out, "%%%02X", (unsigned char)*p);
			} else if ((unsigned char)p[0] == 0xc2 && (unsigned char)p[1] >= 0x80 &&
				   (unsigned char)p[1] <= 0x9f) {
				fprintf(out, "%%C2%%%02X", (unsigned char)p[1]);
				p++;
			} else {
				fputc(*p, out);
			}
			break;
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
		put_escaped(out, d->src ? d->src->display : f->src->display, true);
		fprintf(out, ",line=%u,col=%u,endLine=%u,endColumn=%u,title=", d->span.line, d->span.col,
			d->span.end_line, d->span.end_col);
		put_escaped(out, d->rule, true);
		if (rule) {
			fputs(" (", out);
			put_escaped(out, rule->code, true);
			fputc(')', out);
		}
		fputs("::", out);
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
