/*
 * html: the self-contained HTML report. One document for every checked file:
 * the summary, then per file the GPU it was checked against, the heatmaps
 * (html_heatmap.c), the breakdowns (html_breakdown.c), the findings with
 * their positions and the assumptions the verdicts rest on. CSS and SVG are
 * inline; the document loads nothing and runs no script. Text from input is
 * escaped by sl_html_text().
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "sweeplint/arena.h"
#include "sweeplint/eval.h"
#include "sweeplint/roles.h"
#include "sweeplint/source.h"
#include "sweeplint/utf8.h"

void sl_html_text(FILE *out, const char *s)
{
	const char *end = s ? s + strlen(s) : NULL;
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f) {
				fputs("&#xFFFD;", out);
			} else if (*p < 0x80) {
				fputc(*p, out);
			} else {
				/* C1 and bidi controls, a byte of invalid UTF-8: shown as their escape (\u202e),
				 * so the browser does not reorder the text around them (utf8.h) */
				char esc[11];
				size_t k = sl_term_escape_at((const char *)p, (size_t)(end - (const char *)p), 0, esc);
				if (esc[0])
					fputs(esc, out);
				else
					fwrite(p, 1, k, out);
				p += k - 1;
			}
		}
	}
}

void sl_html_textf(FILE *out, struct sl_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *s = sl_arena_vprintf(a, fmt, ap);
	va_end(ap);
	sl_html_text(out, s);
}

const char *sl_html_gib(struct sl_arena *a, uint64_t bytes)
{
	return sl_arena_printf(a, "%.1f", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

static const char css[] =
	":root{--fit:#b7e1b9;--near:#ffd97a;--oom:#f19a9a;--unknown:#e3e3e3;--ink:#1d2330;--muted:#5b6475}"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--ink);margin:24px auto;"
	"max-width:1100px;padding:0 16px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 6px;border-bottom:1px solid #ccd;"
	"padding-bottom:4px;font-family:ui-monospace,monospace}h3{font-size:15px;margin:22px 0 6px}"
	".muted{color:var(--muted)}code,.pos{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}"
	"figure{margin:10px 0 18px;display:inline-block;vertical-align:top;margin-right:24px}"
	"figcaption{font-weight:600;margin-bottom:4px}"
	"svg text{font-family:ui-monospace,Menlo,monospace;font-size:11px;fill:var(--ink)}"
	"svg .axis{fill:var(--muted)}"
	"rect.fit{fill:var(--fit)}rect.near{fill:var(--near)}rect.oom{fill:var(--oom)}"
	"rect.unknown{fill:var(--unknown)}rect.cell{stroke:#fff;stroke-width:2}rect.partial{opacity:.6}"
	"path.card-line{fill:none;stroke:#b00020;stroke-width:3;stroke-linecap:square}"
	".legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:12px;height:12px;"
	"margin-right:4px;vertical-align:-1px;border-radius:2px}"
	"i.fit{background:var(--fit)}i.near{background:var(--near)}i.oom{background:var(--oom)}"
	"i.unknown{background:var(--unknown)}i.card-line{background:#b00020;height:3px!important;vertical-align:3px!important}"
	"table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 8px;text-align:left;vertical-align:top}"
	"tr+tr td{border-top:1px solid #eee}th{font-weight:600;border-bottom:1px solid #ccd}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.pos{white-space:nowrap}"
	".sev{font-weight:700;text-transform:uppercase;font-size:11px;padding:1px 6px;border-radius:3px}"
	".sev.error{background:#fbd3d3;color:#8a0010}.sev.warning{background:#ffeab0;color:#6b4a00}"
	".sev.info{background:#d6e8fb;color:#0b3f73}"
	"rect.t-weights{fill:#4e79a7}rect.t-gradients{fill:#f28e2b}rect.t-optimizer{fill:#e15759}"
	"rect.t-activations{fill:#76b7b2}rect.t-logits{fill:#59a14f}rect.t-context{fill:#9c755f}"
	"rect.t-zero_gather{fill:#b07aa1}rect.t-kv_cache{fill:#edc948}rect.t-outside{fill:#ff9da7}"
	"rect.t-slack{fill:#bab0ac}rect.t-frozen{fill:#8cd17d}rect.t-engine{fill:#d37295}"
	"i.t-weights{background:#4e79a7}i.t-gradients{background:#f28e2b}i.t-optimizer{background:#e15759}"
	"i.t-activations{background:#76b7b2}i.t-logits{background:#59a14f}i.t-context{background:#9c755f}"
	"i.t-zero_gather{background:#b07aa1}i.t-kv_cache{background:#edc948}i.t-outside{background:#ff9da7}"
	"i.t-slack{background:#bab0ac}i.t-frozen{background:#8cd17d}i.t-engine{background:#d37295}"
	"line.capacity{stroke:#b00020;stroke-width:2}line.plan{stroke:#b00020;stroke-width:1;stroke-dasharray:4 3}"
	"ul.assumptions li{margin:2px 0}details{margin:6px 0}summary{cursor:pointer;color:var(--muted)}";

static void findings(struct sl_report *r, const struct sl_file *f)
{
	FILE *out = r->out;
	fputs("<h3>Findings</h3>\n", out);
	if (f->diags.n == 0) {
		fputs("<p class=\"muted\">No findings.</p>\n", out);
		return;
	}
	fputs("<table class=\"findings\"><tr><th>position</th><th>severity</th><th>finding</th><th>rule</th></tr>\n",
	      out);
	for (size_t i = 0; i < f->diags.n; i++) {
		const struct sl_diag *d = &f->diags.v[i];
		const char *sev = sl_severity_name(d->severity);
		fprintf(out, "<tr class=\"finding %s\" data-rule=\"", sev);
		sl_html_text(out, d->rule);
		fprintf(out, "\" data-line=\"%u\" data-col=\"%u\"><td class=\"pos\">", d->span.line, d->span.col);
		sl_html_text(out, sl_report_where(r->arena, d->src ? d->src : f->src, d->span));
		fprintf(out, "</td><td><span class=\"sev %s\">%s</span></td><td>", sev, sev);
		sl_html_text(out, d->message);
		if (d->hint) {
			fputs("<br><span class=\"muted\">", out);
			sl_html_text(out, d->hint);
			fputs("</span>", out);
		}
		fputs("</td><td><code>", out);
		sl_html_text(out, d->rule);
		fputs("</code></td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* A setting's value as the estimator used it, for the roles a sweep may leave unstated. */
static const char *setting_text(struct sl_arena *a, const struct sl_settings *s, enum sl_role role)
{
	switch (role) {
	case SL_ROLE_TASK:
		return sl_task_name(s->task);
	case SL_ROLE_DTYPE:
		return sl_dtype_name(s->dtype);
	case SL_ROLE_AMP:
		return sl_amp_name(s->amp);
	case SL_ROLE_GRADIENT_CHECKPOINTING:
		return s->gradient_checkpointing ? "true" : "false";
	case SL_ROLE_OPTIMIZER:
		return sl_settings_optim_name(a, s);
	case SL_ROLE_ATTN:
		return sl_attn_name(s->attn);
	case SL_ROLE_LORA_R:
		return s->lora_r ? sl_arena_printf(a, "%u", s->lora_r) : "0 (full fine-tune)";
	case SL_ROLE_QUANT:
		return sl_quant_name(s->quant);
	case SL_ROLE_ZERO_STAGE:
		return sl_arena_printf(a, "%u", s->zero_stage);
	case SL_ROLE_OFFLOAD:
		return sl_offload_name(s->offload);
	case SL_ROLE_NUM_GPUS:
		return sl_arena_printf(a, "%u", s->num_gpus);
	case SL_ROLE_BATCH_SIZE:
		return sl_arena_printf(a, "%llu", (unsigned long long)s->batch_size);
	case SL_ROLE_SEQ_LEN:
		return sl_arena_printf(a, "%llu", (unsigned long long)s->seq_len);
	default:
		return NULL;
	}
}

/* The roles whose unstated value changes a verdict, in the order the estimate reads them. */
static const enum sl_role assumed_roles[] = {
	SL_ROLE_BATCH_SIZE, SL_ROLE_SEQ_LEN, SL_ROLE_TASK, SL_ROLE_DTYPE, SL_ROLE_AMP,
	SL_ROLE_GRADIENT_CHECKPOINTING, SL_ROLE_OPTIMIZER, SL_ROLE_ATTN, SL_ROLE_LORA_R, SL_ROLE_QUANT,
	SL_ROLE_ZERO_STAGE, SL_ROLE_OFFLOAD, SL_ROLE_NUM_GPUS,
};

static void assumptions(struct sl_report *r, const struct sl_file *f)
{
	FILE *out = r->out;
	struct sl_arena *a = r->arena;
	const struct sl_eval *ev = f->eval;
	fputs("<h3>Assumptions</h3>\n<ul class=\"assumptions\">\n", out);
	if (f->evaluated) {
		fputs("<li class=\"gpu\">", out);
		if (f->gpu_assumed)
			sl_html_textf(out, a, "No GPU was given: checked against %s (set one with --gpu or gpu: in "
					      ".sweeplint.yaml).", f->gpu_name);
		else
			sl_html_textf(out, a, "GPU %s as given.", f->gpu_name);
		fputs("</li>\n<li>", out);
		sl_html_textf(out, a, "A run fits when its peak stays at or below %s GiB (%.0f %% of %s GiB); near "
				      "capacity up to %s GiB; above that it runs out of memory.",
			      sl_html_gib(a, ev->plan), ev->capacity ? 100.0 * (double)ev->plan / (double)ev->capacity : 0,
			      sl_html_gib(a, ev->capacity), sl_html_gib(a, ev->capacity));
		fputs("</li>\n", out);
	}
	/* the settings no axis states: the estimate uses a default for them */
	if (ev && ev->has_model && ev->worst_combo) {
		struct sl_settings s;
		const struct sl_model *m = NULL;
		if (sl_eval_settings(ev, ev->worst_combo, &s, &m)) {
			for (size_t i = 0; i < sizeof assumed_roles / sizeof assumed_roles[0]; i++) {
				enum sl_role role = assumed_roles[i];
				bool stated = false;
				for (size_t j = 0; j < ev->naxes && !stated; j++)
					stated = ev->axes[j].role == role;
				const char *used = setting_text(a, &s, role);
				if (stated || !used)
					continue;
				fprintf(out, "<li class=\"default\" data-role=\"%s\">", sl_role_name(role));
				sl_html_textf(out, a, "%s is not set by the sweep, its configs or --set: the estimate uses %s.",
					      sl_role_name(role), used);
				fputs("</li>\n", out);
			}
		}
	}
	for (size_t i = 0; ev && i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (!ax->bounds)
			continue;
		fputs("<li>", out);
		sl_html_textf(out, a, "%s: a range of %s values, evaluated at its bounds.", ax->key,
			      sl_count_str(a, ax->range));
		fputs("</li>\n", out);
	}
	if (ev && ev->truncated)
		fputs("<li>Too many combinations: the largest numeric axes were cut to their bounds.</li>\n", out);
	for (size_t i = 0; i < f->nmodels; i++) {
		const struct sl_model_use *mu = &f->models[i];
		bool seen = false; /* a config's model and the sweep's values may name the same one */
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(f->models[j].value, mu->value) == 0;
		if (seen)
			continue;
		fputs("<li class=\"model\">", out);
		if (!mu->model)
			sl_html_textf(out, a, "Model '%s' is unknown: its combinations are not evaluated.", mu->value);
		else
			sl_html_textf(out, a, "Model '%s' is %s (%s, %s)%s%s.", mu->value, mu->model->name,
				      mu->model->resolved_by ? mu->model->resolved_by : "catalog",
				      mu->model->resolved_from ? mu->model->resolved_from : "rules/models.yaml",
				      mu->model->resolved_note ? ": " : "",
				      mu->model->resolved_note ? mu->model->resolved_note : "");
		fputs("</li>\n", out);
	}
	if (!f->evaluated)
		fputs("<li>No memory evaluation ran for this file (not a sweep, or it did not parse).</li>\n", out);
	fputs("</ul>\n", out);
	if (f->nnotes) {
		fputs("<details><summary>How the file was read</summary><ul>\n", out);
		for (size_t i = 0; i < f->nnotes; i++) {
			fputs("<li>", out);
			sl_html_text(out, f->notes[i]);
			fputs("</li>\n", out);
		}
		fputs("</ul></details>\n", out);
	}
}

/* One file's section (numbered i from 1): its counts, heatmaps, breakdowns, findings and assumptions. */
static void section(struct sl_report *r, const struct sl_file *f, size_t i)
{
	FILE *out = r->out;
	struct sl_arena *a = r->arena;
	fprintf(out, "<section class=\"file\" id=\"file-%zu\">\n<h2>", i);
	sl_html_text(out, f->src->display);
	fputs("</h2>\n<p class=\"counts\">", out);
	sl_html_textf(out, a, "%s combinations: %s fit, %s oom, %s at risk, %s unknown.", sl_count_str(a, f->combos.total),
		      sl_count_str(a, f->combos.fit), sl_count_str(a, f->combos.oom), sl_count_str(a, f->combos.at_risk),
		      sl_count_str(a, f->combos.unknown));
	if (f->evaluated && f->eval) {
		const struct sl_eval *ev = f->eval;
		fputs(" Checked against <b>", out);
		sl_html_text(out, f->gpu_name);
		fputs("</b>", out);
		if (ev->gpu && ev->gpu->label) {
			fputs(" (", out);
			sl_html_text(out, ev->gpu->label);
			fputs(")", out);
		}
		sl_html_textf(out, a, ": %s GiB usable%s.", sl_html_gib(a, ev->capacity), f->gpu_assumed ? ", assumed" : "");
	}
	fputs("</p>\n", out);
	if (f->evaluated && f->eval) {
		sl_html_heatmaps(r, f);
		sl_html_breakdowns(r, f);
	}
	findings(r, f);
	assumptions(r, f);
	fputs("</section>\n", out);
}

/* Close the body file (and free its buffer), once: at the end of the report or when the run is freed. */
static void close_body(void *p)
{
	struct sl_report *r = p;
	if (r->html_body)
		fclose(r->html_body);
	r->html_body = NULL;
	free(r->html_buf);
	r->html_buf = NULL;
}

/*
 * The summary comes first but is known only at the end, so each file's section is written as the file
 * arrives to a temporary file (tmpfile(): unlinked, gone when closed), copied after the head and the
 * summary at the end: the files are not kept (check frees each once reported) and memory does not grow
 * with them. Without a temporary file (a read-only /tmp) the sections go to a memory stream: the
 * report's text, not the files' trees.
 */
static bool open_body(struct sl_report *r)
{
	r->html_body = tmpfile();
	if (!r->html_body)
		r->html_body = open_memstream(&r->html_buf, &r->html_len);
	if (!r->html_body)
		return false;
	sl_arena_defer(r->arena, close_body, r);
	return true;
}

static void html_file(struct sl_report *r, const struct sl_file *f)
{
	if (!r->html_body && (r->html_failed || !open_body(r))) {
		r->html_failed = true;
		return;
	}
	/* the section writers write to the report's sink with its arena: here the body and the file's arena */
	FILE *out = r->out;
	struct sl_arena *a = r->arena;
	r->out = r->html_body;
	r->arena = sl_report_file_arena(r, f);
	section(r, f, r->totals.files);
	r->out = out;
	r->arena = a;
}

/* Copy the sections written so far after the summary; false when the body could not be kept or read. */
static bool copy_body(struct sl_report *r)
{
	if (r->html_failed)
		return false;
	if (!r->html_body)
		return true; /* no file */
	bool ok = fflush(r->html_body) == 0 && !ferror(r->html_body);
	if (ok && r->html_buf) {
		fwrite(r->html_buf, 1, r->html_len, r->out);
	} else if (ok) {
		rewind(r->html_body);
		char buf[1 << 16];
		size_t n;
		while ((n = fread(buf, 1, sizeof buf, r->html_body)) > 0)
			fwrite(buf, 1, n, r->out);
		ok = !ferror(r->html_body);
	}
	close_body(r);
	return ok;
}

static void html_finish(struct sl_report *r)
{
	FILE *out = r->out;
	struct sl_arena *a = r->arena;
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		     "<meta name=\"generator\" content=\"sweeplint %s\">\n<title>sweeplint report</title>\n"
		     "<style>%s</style>\n</head>\n<body>\n<h1>sweeplint report</h1>\n<p class=\"summary\">",
		SL_VERSION, css);
	sl_html_text(out, sl_report_summary(a, &r->totals));
	fputs("</p>\n", out);
	if (!copy_body(r))
		r->failed = true;
	fprintf(out, "<p class=\"muted\">Written by sweeplint %s. Peaks are predictions of the memory model "
		     "(docs/memory-model.md), not measurements.</p>\n</body>\n</html>\n",
		SL_VERSION);
}

const struct sl_formatter sl_formatter_html = {.file = html_file, .finish = html_finish};
