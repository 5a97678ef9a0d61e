/*
 * html_heatmap: per model, an SVG heatmap of batch size × sequence length.
 * A cell stands for every combination with that model, batch and length (the
 * other axes vary inside it): its colour is the worst verdict among them
 * (fits, near capacity, out of memory; unknown when none is known), its
 * label the worst peak in GiB, recomputed exactly for the combination that
 * has it (the evaluation keeps peaks only as ordering steps). A cell where
 * only some combinations reach that verdict is drawn lighter and says how
 * many. The card's line runs between cells that exceed the card's capacity
 * and cells that do not. One pass over the combinations fills every model's
 * grid; a grid over MAX_SIDE rows or columns is not drawn (a note says so).
 */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "sweeplint/arena.h"
#include "sweeplint/eval.h"

enum { CELL_W = 78, CELL_H = 34, LEFT = 96, TOP = 44, MAX_SIDE = 64 /* rows or columns drawn at most */ };

struct cell {
	uint64_t n[SL_VERDICT__COUNT];   /* memory-relevant combinations by verdict */
	uint16_t q;                      /* the largest peak among known ones, an ordering step (cells.c cell_of) */
	uint32_t *worst;                 /* the combination with it (NULL: none known) */
};

/* An axis's values in display order: readable numbers ascending, then the others as written. */
struct order {
	size_t *v;
	size_t n;
};

static const struct sl_eval_axis *axis_at(const struct sl_eval *ev, size_t i)
{
	return i < ev->naxes ? &ev->axes[i] : NULL;
}

static uint64_t value_num(const struct sl_eval_value *v)
{
	return v->ok && v->nrv ? v->rv[0].u : UINT64_MAX;
}

static struct order order_of(struct sl_arena *a, const struct sl_eval_axis *ax)
{
	struct order o = {.n = ax ? ax->n : 1};
	o.v = sl_arena_array(a, o.n, sizeof *o.v);
	for (size_t i = 0; i < o.n; i++)
		o.v[i] = i;
	/* insertion sort: a handful of values, stable for equal ones */
	for (size_t i = 1; ax && i < o.n; i++) {
		size_t x = o.v[i], j = i;
		for (; j > 0 && value_num(&ax->values[o.v[j - 1]]) > value_num(&ax->values[x]); j--)
			o.v[j] = o.v[j - 1];
		o.v[j] = x;
	}
	return o;
}

static enum sl_verdict worst_verdict(const struct cell *c)
{
	if (c->n[SL_VERDICT_OOM])
		return SL_VERDICT_OOM;
	if (c->n[SL_VERDICT_NEAR])
		return SL_VERDICT_NEAR;
	if (c->n[SL_VERDICT_FIT])
		return SL_VERDICT_FIT;
	return SL_VERDICT_UNKNOWN;
}

static const char *const verdict_class[SL_VERDICT__COUNT] = {
	[SL_VERDICT_FIT] = "fit", [SL_VERDICT_NEAR] = "near", [SL_VERDICT_OOM] = "oom",
	[SL_VERDICT_UNKNOWN] = "unknown",
};

static const char *const verdict_words[SL_VERDICT__COUNT] = {
	[SL_VERDICT_FIT] = "fits", [SL_VERDICT_NEAR] = "near capacity", [SL_VERDICT_OOM] = "out of memory",
	[SL_VERDICT_UNKNOWN] = "unknown",
};

/* The label of one row or column: the value as written, or the setting every combination uses. */
static const char *axis_label(struct sl_arena *a, const struct sl_eval_axis *ax, size_t vi, uint64_t fixed)
{
	if (!ax)
		return sl_arena_printf(a, "%llu", (unsigned long long)fixed);
	return ax->values[vi].text;
}

static bool is_oom(const struct cell *grid, size_t nc, size_t r, size_t c)
{
	return worst_verdict(&grid[r * nc + c]) == SL_VERDICT_OOM;
}

static bool is_known_fit(const struct cell *grid, size_t nc, size_t r, size_t c)
{
	enum sl_verdict v = worst_verdict(&grid[r * nc + c]);
	return v == SL_VERDICT_FIT || v == SL_VERDICT_NEAR;
}

/* The edges between cells over the card's capacity and known cells under it, as one SVG path. */
static void card_line(FILE *out, const struct cell *grid, size_t nr, size_t nc)
{
	bool any = false;
	for (size_t r = 0; r < nr; r++) {
		for (size_t c = 0; c < nc; c++) {
			if (!is_oom(grid, nc, r, c))
				continue;
			int x = LEFT + (int)c * CELL_W, y = TOP + (int)r * CELL_H;
			/* the four neighbours: left, right, above, below */
			const struct {
				bool in;
				size_t rr, cc;
				int x0, y0, x1, y1;
			} nb[4] = {
				{c > 0, r, c - 1, x, y, x, y + CELL_H},
				{c + 1 < nc, r, c + 1, x + CELL_W, y, x + CELL_W, y + CELL_H},
				{r > 0, r - 1, c, x, y, x + CELL_W, y},
				{r + 1 < nr, r + 1, c, x, y + CELL_H, x + CELL_W, y + CELL_H},
			};
			for (int k = 0; k < 4; k++) {
				if (!nb[k].in || !is_known_fit(grid, nc, nb[k].rr, nb[k].cc))
					continue;
				if (!any)
					fputs("<path class=\"card-line\" d=\"", out);
				fprintf(out, "%sM%d %dL%d %d", any ? " " : "", nb[k].x0, nb[k].y0, nb[k].x1, nb[k].y1);
				any = true;
			}
		}
	}
	if (any)
		fputs("\"/>\n", out);
}

/* Every model's grid, filled in one pass over the combinations. */
struct grids {
	struct order ro, co;             /* rows (batch) and columns (length) in display order */
	size_t *row_of, *col_of;         /* value index -> display position */
	size_t nr, nc;
	struct cell *cells;              /* model value × row × column */
	struct sl_settings fixed;        /* a known combination's settings: labels of axes not swept */
	const struct sl_model *fixed_model;
};

static size_t *inverse(struct sl_arena *a, const struct order *o)
{
	size_t *inv = sl_arena_array(a, o->n, sizeof *inv);
	for (size_t i = 0; i < o->n; i++)
		inv[o->v[i]] = i;
	return inv;
}

static void fill(struct sl_arena *a, const struct sl_eval *ev, size_t ma, size_t ba, size_t la, struct grids *g)
{
	const struct sl_eval_axis *bax = axis_at(ev, ba), *lax = axis_at(ev, la), *max = axis_at(ev, ma);
	g->ro = order_of(a, bax);
	g->co = order_of(a, lax);
	g->row_of = inverse(a, &g->ro);
	g->col_of = inverse(a, &g->co);
	g->nr = g->ro.n;
	g->nc = g->co.n;
	size_t nm = max ? max->n : 1, per = g->nr * g->nc;
	g->cells = sl_arena_array(a, nm * per, sizeof *g->cells);
	bool have_fixed = false;
	uint32_t *idx = sl_eval_combo(a, ev, SIZE_MAX, 0);
	do {
		uint16_t cv = ev->cells ? sl_eval_cell(ev, idx) : (uint16_t)(SL_VERDICT_UNKNOWN << 14);
		enum sl_verdict vd = (enum sl_verdict)(cv >> 14);
		size_t row = bax ? g->row_of[idx[ba]] : 0, col = lax ? g->col_of[idx[la]] : 0;
		struct cell *c = &g->cells[(max ? idx[ma] : 0) * per + row * g->nc + col];
		c->n[vd]++;
		if (vd != SL_VERDICT_UNKNOWN && (!c->worst || (cv & 0x3FFF) > c->q)) {
			c->q = cv & 0x3FFF;
			if (!c->worst)
				c->worst = sl_arena_array(a, ev->naxes ? ev->naxes : 1, sizeof *c->worst);
			memcpy(c->worst, idx, ev->naxes * sizeof *idx);
			if (!have_fixed)
				have_fixed = sl_eval_settings(ev, idx, &g->fixed, &g->fixed_model);
		}
	} while (sl_eval_next(ev, idx));
	if (!have_fixed)
		sl_settings_default(&g->fixed);
}

static void heatmap(struct sl_report *r, const struct sl_file *f, const struct grids *g, size_t ma, size_t mv,
		    size_t ba, size_t la)
{
	const struct sl_eval *ev = f->eval;
	struct sl_arena *a = r->arena;
	FILE *out = r->out;
	const struct sl_eval_axis *bax = axis_at(ev, ba), *lax = axis_at(ev, la), *max = axis_at(ev, ma);
	const struct order ro = g->ro, co = g->co;
	size_t nr = g->nr, nc = g->nc;
	const struct cell *grid = &g->cells[(max ? mv : 0) * nr * nc];
	const struct sl_settings fixed = g->fixed;
	const struct sl_model *fixed_model = g->fixed_model;

	const char *model = max ? sl_eval_value_name(a, max, &max->values[mv]) : NULL;
	if (!model && fixed_model)
		model = fixed_model->name;
	/* the keys and the value as written: what `--set KEY=VALUE` would fix to get this one figure */
	fputs("<figure class=\"heatmap\" data-model=\"", out);
	sl_html_text(out, model ? model : "");
	fputs("\" data-model-key=\"", out);
	sl_html_text(out, max ? max->key : "");
	fputs("\" data-model-value=\"", out);
	sl_html_text(out, max ? max->values[mv].text : "");
	fputs("\" data-batch-key=\"", out);
	sl_html_text(out, bax ? bax->key : "");
	fputs("\" data-len-key=\"", out);
	sl_html_text(out, lax ? lax->key : "");
	fputs("\"><figcaption>", out);
	sl_html_text(out, model ? model : "(model not set)");
	fputs("</figcaption>\n", out);
	int w = LEFT + (int)nc * CELL_W + 8, h = TOP + (int)nr * CELL_H + 8;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		     "role=\"img\">\n",
		w, h, w, h);
	fprintf(out, "<text class=\"axis\" x=\"%d\" y=\"12\">", LEFT);
	sl_html_textf(out, a, "%s →", lax ? lax->key : "sequence length (not swept)");
	fprintf(out, "</text>\n<text class=\"axis\" x=\"4\" y=\"%d\">", TOP - 18);
	sl_html_textf(out, a, "%s ↓", bax ? bax->key : "batch (not swept)");
	fputs("</text>\n", out);
	for (size_t c = 0; c < nc; c++) {
		fprintf(out, "<text class=\"col\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
			LEFT + (int)c * CELL_W + CELL_W / 2, TOP - 5);
		sl_html_text(out, axis_label(a, lax, co.v[c], fixed.seq_len));
		fputs("</text>\n", out);
	}
	for (size_t rr = 0; rr < nr; rr++) {
		fprintf(out, "<text class=\"row\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", LEFT - 8,
			TOP + (int)rr * CELL_H + CELL_H / 2 + 4);
		sl_html_text(out, axis_label(a, bax, ro.v[rr], fixed.batch_size));
		fputs("</text>\n", out);
		for (size_t c = 0; c < nc; c++) {
			const struct cell *cl = &grid[rr * nc + c];
			enum sl_verdict vd = worst_verdict(cl);
			uint64_t all = cl->n[0] + cl->n[1] + cl->n[2] + cl->n[3];
			bool partial = vd != SL_VERDICT_UNKNOWN && cl->n[vd] < all;
			struct sl_breakdown bd = {0};
			bool known = cl->worst && sl_eval_estimate(ev, cl->worst, &bd);
			int x = LEFT + (int)c * CELL_W, y = TOP + (int)rr * CELL_H;
			fprintf(out, "<g class=\"cell\" data-verdict=\"%s\" data-batch=\"", verdict_class[vd]);
			sl_html_text(out, axis_label(a, bax, ro.v[rr], fixed.batch_size));
			fputs("\" data-len=\"", out);
			sl_html_text(out, axis_label(a, lax, co.v[c], fixed.seq_len));
			fprintf(out, "\" data-peak-gib=\"%s\" data-combinations=\"%llu\" data-count=\"%llu\">",
				known ? sl_html_gib(a, bd.total) : "", (unsigned long long)all,
				(unsigned long long)cl->n[vd]);
			fprintf(out, "<rect class=\"cell %s%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\"/>",
				verdict_class[vd], partial ? " partial" : "", x, y, CELL_W, CELL_H);
			fputs("<title>", out);
			if (known) {
				const char *which = sl_eval_describe(a, ev, cl->worst, SIZE_MAX);
				sl_html_textf(out, a, "%s in %llu of %llu combinations; the worst needs %s GiB: %s",
					      verdict_words[vd], (unsigned long long)cl->n[vd], (unsigned long long)all,
					      sl_html_gib(a, bd.total), which ? which : "the only combination");
			}
			else
				sl_html_text(out, "unknown: the model or a value could not be read");
			fputs("</title>", out);
			fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x + CELL_W / 2,
				y + (partial ? 15 : CELL_H / 2 + 4));
			sl_html_text(out, known ? sl_arena_printf(a, "%s GiB", sl_html_gib(a, bd.total)) : "?");
			fputs("</text>", out);
			if (partial)
				fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">%llu/%llu</text>",
					x + CELL_W / 2, y + 28, (unsigned long long)cl->n[vd], (unsigned long long)all);
			fputs("</g>\n", out);
		}
	}
	card_line(out, grid, nr, nc);
	fputs("</svg></figure>\n", out);
}

void sl_html_heatmaps(struct sl_report *r, const struct sl_file *f)
{
	const struct sl_eval *ev = f->eval;
	FILE *out = r->out;
	struct sl_arena *a = r->arena;
	size_t ma = SIZE_MAX, ba = SIZE_MAX, la = SIZE_MAX;
	/* the sweep's axis of a role when there is one (sl_eval_axis_for), as an index */
	const struct sl_eval_axis *m = sl_eval_axis_for(ev, SL_ROLE_MODEL), *b = sl_eval_axis_for(ev, SL_ROLE_BATCH_SIZE),
				  *l = sl_eval_axis_for(ev, SL_ROLE_SEQ_LEN);
	if (m)
		ma = (size_t)(m - ev->axes);
	if (b)
		ba = (size_t)(b - ev->axes);
	if (l)
		la = (size_t)(l - ev->axes);
	fputs("<h3>Batch × length per model</h3>\n<p class=\"legend\"><span><i class=\"fit\"></i>fits</span>"
	      "<span><i class=\"near\"></i>near capacity</span><span><i class=\"oom\"></i>out of memory</span>"
	      "<span><i class=\"unknown\"></i>unknown</span><span><i class=\"card-line\"></i>",
	      out);
	sl_html_textf(out, a, "%s: %s GiB", f->gpu_name, sl_html_gib(a, ev->capacity));
	fputs("</span></p>\n<p class=\"muted\">Each cell is the worst of the combinations with that model, "
	      "batch and length (peak in GiB); a lighter cell reaches that verdict in only some of them.</p>\n",
	      out);
	if (!ev->has_model) {
		fputs("<p class=\"muted\">No key sets the model: nothing was evaluated.</p>\n", out);
		return;
	}
	size_t nr = b ? b->n : 1, nc = l ? l->n : 1;
	if (nr > MAX_SIDE || nc > MAX_SIDE) {
		fputs("<p class=\"muted\">", out);
		sl_html_textf(out, a, "No heatmap: %zu batch values × %zu lengths is more than %d a side.", nr, nc,
			      MAX_SIDE);
		fputs("</p>\n", out);
		return;
	}
	struct grids g;
	fill(a, ev, ma, ba, la, &g);
	size_t nm = m ? m->n : 1;
	for (size_t i = 0; i < nm; i++) {
		if (m && !m->values[i].model) {
			fputs("<p class=\"muted\">", out);
			sl_html_textf(out, a, "%s: unknown model, not evaluated.", m->values[i].text);
			fputs("</p>\n", out);
			continue;
		}
		heatmap(r, f, &g, ma, i, ba, la);
	}
}
