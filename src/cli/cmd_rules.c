/*
 * cmd_rules: `sweeplint rules [RULE...]` — the rule table (code, slug,
 * default severity, summary) from the registry and rules/rules.yaml, or the
 * full help of the rules named; `-f json` for tools.
 */
#include <jansson.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "sweeplint/json_out.h"
#include "sweeplint/arena.h"
#include "sweeplint/report.h"
#include "sweeplint/rules.h"
#include "sweeplint/run.h"

static const struct sl_cmd_spec spec = {
	.name = "rules",
	.usage = "[OPTIONS] [RULE...]",
	.summary = "List the rules (code, slug, default severity, summary), or explain the rules named\n"
		   "(by slug or code).",
	.common = SL_OPTS_OUTPUT,
	.exit_help = "0 success, 2 usage problem",
};

static void put_help(FILE *out, const char *help)
{
	fputs("  ", out);
	for (const char *p = help; *p; p++) {
		fputc(*p, out);
		if (*p == '\n' && p[1])
			fputs("  ", out);
	}
	fputc('\n', out);
}

/* [{"slug", "code", "severity", "summary", "help"}] */
static void rules_json(FILE *out, const struct sl_rule_doc **sel, size_t n)
{
	json_t *arr = json_array();
	if (!arr)
		sl_oom();
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "slug", sel[i]->slug, "code", sel[i]->code,
				      "severity", sl_severity_name(sel[i]->severity), "summary", sel[i]->summary,
				      "help", sel[i]->help);
		if (!o || json_array_append_new(arr, o) != 0)
			sl_oom();
	}
	sl_json_dumpf(arr, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(arr);
}

int cmd_rules(struct sl_cli *cli, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	int first = 0, rc = sl_opts_parse(cli, &spec, run, argc, argv, &first);
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	const struct sl_rule_doc *docs;
	if (sl_rules_doc_load(run->arena, &docs, &run->diags) < 0) {
		for (size_t i = 0; i < run->diags.n; i++) {
			const struct sl_diag *d = &run->diags.v[i];
			fprintf(cli->err, "sweeplint: internal error: %s:%u:%u: %s\n", d->src->display, d->span.line,
				d->span.col, d->message);
		}
		sl_run_free(run);
		return SL_EXIT_OOM;
	}
	/* the rules named, or all of them */
	size_t n = first < argc ? (size_t)(argc - first) : sl_nrules;
	const struct sl_rule_doc **sel = sl_arena_array(run->arena, n, sizeof *sel);
	for (size_t i = 0; i < n; i++) {
		if (first >= argc) {
			sel[i] = &docs[i];
			continue;
		}
		const struct sl_rule *r = sl_rule_find(argv[first + (int)i]);
		if (!r) {
			sl_opts_error(cli, "unknown rule '%s' (run 'sweeplint rules' for the list)", argv[first + (int)i]);
			sl_run_free(run);
			return SL_EXIT_USAGE;
		}
		sel[i] = &docs[r - sl_rules];
	}
	bool full = first < argc;
	FILE *out = cli->out;
	if (run->opt.format == SL_FORMAT_JSON) {
		rules_json(out, sel, n);
	} else {
		int w = 0;
		for (size_t i = 0; i < n; i++)
			if ((int)strlen(sel[i]->slug) > w)
				w = (int)strlen(sel[i]->slug);
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%s  %-*s  %-7s  %s\n", sel[i]->code, w, sel[i]->slug,
				sl_severity_name(sel[i]->severity), sel[i]->summary);
			if (full || run->opt.verbose) {
				put_help(out, sel[i]->help);
				if (i + 1 < n)
					fputc('\n', out);
			}
		}
	}
	sl_run_free(run);
	return SL_EXIT_OK;
}
