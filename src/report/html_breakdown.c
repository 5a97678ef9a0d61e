/*
 * html_breakdown: for every value of a swept axis, its worst combination
 * (struct sl_eval_value.worst_combo) estimated again and drawn as one
 * stacked bar of the memory model's terms: weights, gradients, optimizer
 * states, activations, logits, CUDA context (with the cuBLAS workspace),
 * ZeRO-3 gathers when there are any, a generation's KV cache, the share a
 * vLLM engine that does not start leaves to others, allocator slack, and for preference and RL
 * fine-tuning the frozen models and a colocated vLLM engine. The terms add up
 * to the peak (struct sl_breakdown.total). Bars share one scale, with the
 * card's capacity as a solid line and the planning headroom dashed. A file
 * whose axes have one value each gets the bar of its worst combination. An
 * axis draws its first MAX_BARS values and says how many more it has.
 */
#include "html.h"
#include "sweeplint/arena.h"
#include "sweeplint/eval.h"

enum { BAR_W = 560, BAR_H = 22, PAD = 4, MAX_BARS = 64 /* values drawn per axis at most */ };

struct term {
	const char *id;       /* CSS class suffix and data-term */
	const char *label;
};

static const struct term terms[] = {
	{"weights", "weights"},         {"gradients", "gradients"}, {"optimizer", "optimizer"},
	{"activations", "activations"}, {"logits", "logits"},       {"context", "CUDA context"},
	{"zero_gather", "ZeRO gather"}, {"kv_cache", "KV cache"},    {"outside", "outside vLLM's share"},
	{"slack", "slack"},
	/* preference and RL fine-tuning (docs/memory-model.md): the frozen reference and reward models, a
	 * colocated vLLM engine's share */
	{"frozen", "frozen models"},    {"engine", "vLLM engine"},
};
enum { NTERMS = sizeof terms / sizeof terms[0] };

static void term_bytes(const struct sl_breakdown *b, uint64_t v[NTERMS])
{
	v[0] = b->weights;
	v[1] = b->gradients;
	v[2] = b->optimizer;
	v[3] = b->activations;
	v[4] = b->logits;
	v[5] = b->cuda_context + b->workspace;
	v[6] = b->zero_gather;
	v[7] = b->kv_cache;
	v[8] = b->outside_share;
	v[9] = b->slack;
	v[10] = b->frozen_models;
	v[11] = b->engine;
}

struct bar {
	const char *label;             /* "data.batches.bi 64" */
	const char *combo;             /* its worst combination, described */
	struct sl_breakdown bd;
};

static int px(uint64_t bytes, uint64_t scale)
{
	return scale ? (int)((double)bytes * BAR_W / (double)scale + 0.5) : 0;
}

static void bar_svg(struct sl_report *r, const struct sl_eval *ev, const struct bar *b, uint64_t scale)
{
	FILE *out = r->out;
	struct sl_arena *a = r->arena;
	uint64_t v[NTERMS];
	term_bytes(&b->bd, v);
	int w = BAR_W + 2 * PAD;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">", w,
		BAR_H + 2 * PAD, w, BAR_H + 2 * PAD);
	int x = PAD;
	uint64_t sum = 0;
	for (int i = 0; i < NTERMS; i++) {
		if (!v[i])
			continue;
		/* each segment ends where the running sum ends, so rounding never drifts */
		sum += v[i];
		int x1 = PAD + px(sum, scale);
		fprintf(out, "<rect class=\"t-%s\" data-term=\"%s\" data-gib=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" "
			     "height=\"%d\"><title>",
			terms[i].id, terms[i].id, sl_html_gib(a, v[i]), x, PAD, x1 - x, BAR_H);
		sl_html_textf(out, a, "%s: %s GiB", terms[i].label, sl_html_gib(a, v[i]));
		fputs("</title></rect>", out);
		x = x1;
	}
	int cx = PAD + px(ev->capacity, scale), plx = PAD + px(ev->plan, scale);
	fprintf(out, "<line class=\"plan\" x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\"/>", plx, plx, BAR_H + 2 * PAD);
	fprintf(out, "<line class=\"capacity\" x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\"/>", cx, cx, BAR_H + 2 * PAD);
	fputs("</svg>", out);
}

static void legend(struct sl_report *r, const struct sl_file *f)
{
	FILE *out = r->out;
	const struct sl_eval *ev = f->eval;
	fputs("<p class=\"legend\">", out);
	for (int i = 0; i < NTERMS; i++)
		fprintf(out, "<span><i class=\"t-%s\"></i>%s</span>", terms[i].id, terms[i].label);
	fputs("<span><i class=\"card-line\"></i>", out);
	sl_html_textf(out, r->arena, "%s: %s GiB (dashed: the %s GiB plan)", f->gpu_name,
		      sl_html_gib(r->arena, ev->capacity), sl_html_gib(r->arena, ev->plan));
	fputs("</span></p>\n", out);
}

/* After the bars of an axis with more than MAX_BARS values: how many are not drawn. */
static void more_values(struct sl_report *r, const struct sl_eval *ev, size_t axis)
{
	if (axis >= ev->naxes || ev->axes[axis].n <= MAX_BARS)
		return;
	fputs("<tr class=\"more\"><td colspan=\"3\" class=\"muted\">", r->out);
	sl_html_textf(r->out, r->arena, "%zu more values of %s are not drawn.", ev->axes[axis].n - MAX_BARS,
		      ev->axes[axis].key);
	fputs("</td></tr>\n", r->out);
}

static bool known(const struct sl_eval_value *v)
{
	return v->worst_combo && (v->u[SL_VERDICT_FIT] || v->u[SL_VERDICT_NEAR] || v->u[SL_VERDICT_OOM]);
}

void sl_html_breakdowns(struct sl_report *r, const struct sl_file *f)
{
	const struct sl_eval *ev = f->eval;
	struct sl_arena *a = r->arena;
	FILE *out = r->out;
	fputs("<h3>Worst combination of each value</h3>\n", out);
	if (!ev->has_model || !ev->worst_combo) {
		fputs("<p class=\"muted\">No combination could be estimated.</p>\n", out);
		return;
	}
	/* the bars: every value of every axis with several values, else the file's worst combination */
	size_t nbars = 0, cap = 1;
	for (size_t i = 0; i < ev->naxes; i++)
		if (ev->axes[i].n > 1)
			cap += ev->axes[i].n;
	struct bar *bars = sl_arena_array(a, cap, sizeof *bars);
	size_t *axis_of = sl_arena_array(a, cap, sizeof *axis_of);
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		for (size_t j = 0; ax->n > 1 && j < ax->n && j < MAX_BARS; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			if (!known(v) || !sl_eval_estimate(ev, v->worst_combo, &bars[nbars].bd))
				continue;
			bars[nbars].label = sl_eval_value_name(a, ax, v);
			bars[nbars].combo = sl_eval_describe(a, ev, v->worst_combo, i);
			axis_of[nbars++] = i;
		}
	}
	if (nbars == 0 && sl_eval_estimate(ev, ev->worst_combo, &bars[0].bd)) {
		bars[0].label = "the worst combination";
		bars[0].combo = sl_eval_describe(a, ev, ev->worst_combo, SIZE_MAX);
		axis_of[nbars++] = SIZE_MAX;
	}
	uint64_t scale = ev->capacity;
	for (size_t i = 0; i < nbars; i++)
		if (bars[i].bd.total > scale)
			scale = bars[i].bd.total;
	scale += scale / 20;
	legend(r, f);
	fputs("<table class=\"breakdown\"><tr><th>value</th><th>peak</th><th>terms of its worst combination</th></tr>\n",
	      out);
	size_t shown_axis = SIZE_MAX - 1;
	for (size_t i = 0; i < nbars; i++) {
		const struct bar *b = &bars[i];
		enum sl_verdict vd = sl_eval_classify(ev, b->bd.total);
		if (axis_of[i] != shown_axis && axis_of[i] < ev->naxes) {
			more_values(r, ev, shown_axis);
			shown_axis = axis_of[i];
			fputs("<tr class=\"axis\"><th colspan=\"3\">", out);
			sl_html_text(out, ev->axes[shown_axis].key);
			fputs("</th></tr>\n", out);
		}
		fprintf(out, "<tr class=\"bar %s\" data-value=\"",
			vd == SL_VERDICT_OOM ? "oom" : vd == SL_VERDICT_NEAR ? "near" : "fit");
		sl_html_text(out, b->label);
		fprintf(out, "\" data-peak-gib=\"%s\"><td>", sl_html_gib(a, b->bd.total));
		sl_html_text(out, b->label);
		if (b->combo) {
			fputs("<br><span class=\"muted\">", out);
			sl_html_text(out, b->combo);
			fputs("</span>", out);
		}
		fprintf(out, "</td><td class=\"num\">%s GiB<br><span class=\"muted\">%s</span></td><td>",
			sl_html_gib(a, b->bd.total), sl_phase_name((enum sl_phase)b->bd.phase));
		bar_svg(r, ev, b, scale);
		fputs("</td></tr>\n", out);
	}
	more_values(r, ev, shown_axis);
	fputs("</table>\n", out);
}
