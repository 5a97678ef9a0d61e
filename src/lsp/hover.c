/*
 * hover and inlay hints: what the evaluation of a document's last lint knows
 * about the value or key under the cursor (struct sl_eval, eval.h).
 *
 * A value (a sweep value, a literal command option, in this document) shows
 * its worst combination — the combination with the largest peak among those
 * it takes part in — that peak against the GPU's usable memory and the
 * planning headroom, the breakdown of that peak by term, its verdict counts,
 * and the assumptions the estimate rests on: the GPU when none was given and
 * the settings no key of the sweep, its configs or command states (the
 * estimator's defaults). A key shows the memory role it maps to and why: the
 * key pattern that matched and where it is defined (rules/keys.yaml or the
 * project config), or that no pattern matched.
 *
 * An inlay hint follows each such value: the peak of its worst combination,
 * "OOM 89.9 GiB" above the usable memory, "near 70.2 GiB" above the
 * headroom.
 */
#include <stdint.h>
#include <string.h>

#include "hover.h"
#include "lint.h"
#include "sweeplint/arena.h"
#include "sweeplint/eval.h"
#include "sweeplint/memory.h"
#include "sweeplint/run.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

/* The evaluation of the lint when it evaluated this document's combinations. */
static const struct sl_eval *lint_eval(const struct sl_lsp_lint *l)
{
	/* a notebook's offsets are offsets of its code cells, not of the JSON text the editor holds */
	if (!l->file || !l->file->eval || l->file->src->notebook)
		return NULL;
	const struct sl_eval *ev = l->file->eval;
	return ev->cells && ev->has_model ? ev : NULL;
}

/* Whether value v of axis ax is written in this document (and has a place in it). */
static bool here(const struct sl_lsp_lint *l, const struct sl_eval_axis *ax, const struct sl_eval_value *v)
{
	return ax->src == l->file->src && v->span.end > v->span.start;
}

bool sl_lsp_value_at(const struct sl_lsp_lint *l, size_t off, size_t *axis, size_t *value)
{
	const struct sl_eval *ev = lint_eval(l);
	if (!ev)
		return false;
	bool found = false;
	uint64_t best = 0;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		for (size_t j = 0; j < ax->n; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			if (!here(l, ax, v) || off < v->span.start || off > v->span.end)
				continue;
			/* several values may share a node (a range's bounds): the one with the worst peak */
			if (!found || v->worst > best) {
				found = true;
				best = v->worst;
				*axis = i;
				*value = j;
			}
		}
	}
	return found;
}

/* Whether role r is stated by some axis (a sweep value, a config, the command, --set). */
static bool stated(const struct sl_eval *ev, enum sl_role r)
{
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->role == r)
			return true;
		for (size_t j = 0; j < ax->n; j++)
			for (size_t k = 0; k < ax->values[j].nrv; k++)
				if (ax->values[j].rv[k].role == r)
					return true;
	}
	return false;
}

static void row(struct sl_buf *b, struct sl_arena *a, const char *name, uint64_t v, uint64_t total)
{
	if (v)
		sl_buf_addf(b, "| %s | %s | %.1f%% |\n", name, sl_bytes_str(a, v), total ? 100.0 * (double)v / (double)total : 0);
}

/* The settings of a combination that nothing states, as "name value" items. */
static void assumptions(struct sl_buf *b, const struct sl_lsp_lint *l, const struct sl_eval *ev,
			const struct sl_settings *s)
{
	struct sl_arena *a = l->run->arena;
	struct {
		enum sl_role role;
		const char *text;
	} items[] = {
		{SL_ROLE_TASK, sl_task_name(s->task)},
		{SL_ROLE_SEQ_LEN, sl_arena_printf(a, "%llu tokens", (unsigned long long)s->seq_len)},
		{SL_ROLE_DTYPE, sl_dtype_name(s->dtype)},
		{SL_ROLE_AMP, sl_amp_name(s->amp)},
		{SL_ROLE_GRADIENT_CHECKPOINTING, s->gradient_checkpointing ? "on" : "off"},
		{SL_ROLE_OPTIMIZER, sl_settings_optim_name(a, s)},
		{SL_ROLE_ATTN, sl_attn_name(s->attn)},
		{SL_ROLE_ZERO_STAGE, s->zero_stage ? sl_arena_printf(a, "ZeRO-%u", s->zero_stage) : "none"},
		{SL_ROLE_NUM_GPUS, sl_arena_printf(a, "%u", s->num_gpus)},
	};
	bool any = false;
	for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
		if (stated(ev, items[i].role))
			continue;
		sl_buf_addf(b, "%s%s %s", any ? ", " : "", sl_role_name(items[i].role), items[i].text);
		any = true;
	}
	if (!any)
		sl_buf_adds(b, "none: every setting the estimate reads is stated");
}

/* The settings of the combination, for its headline. */
static const char *settings_line(struct sl_arena *a, const struct sl_settings *s, const struct sl_model *m)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_adds(&b, m ? m->name : "?");
	sl_settings_describe(&b, s);
	return b.buf;
}

const char *sl_lsp_hover_value(const struct sl_lsp_lint *l, size_t axis, size_t value)
{
	const struct sl_eval *ev = lint_eval(l);
	struct sl_arena *a = l->run->arena;
	const struct sl_eval_axis *ax = &ev->axes[axis];
	const struct sl_eval_value *v = &ax->values[value];
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_addf(&b, "**%s** (%s)\n\n", sl_eval_value_name(a, ax, v), sl_role_name(ax->role));
	if (!v->ok) {
		sl_buf_addf(&b, "Not estimated: %s.\n", v->why ? v->why : "sweeplint cannot read this value");
		return b.buf;
	}
	uint64_t all = 0;
	for (int i = 0; i < SL_VERDICT__COUNT; i++)
		all += v->u[i];
	if (!v->worst_combo || v->u[SL_VERDICT_UNKNOWN] == all) {
		sl_buf_adds(&b, "Not estimated: every combination with this value has an unknown model or value.\n");
		return b.buf;
	}
	struct sl_settings s;
	const struct sl_model *model = NULL;
	struct sl_breakdown bd;
	if (!sl_eval_settings(ev, v->worst_combo, &s, &model) || !sl_eval_estimate(ev, v->worst_combo, &bd)) {
		sl_buf_adds(&b, "Not estimated: its worst combination is unknown.\n");
		return b.buf;
	}
	const char *verdict = bd.total > ev->capacity ? "**out of memory**"
			      : bd.total > ev->plan   ? "fits, but above the planning headroom"
						      : "fits";
	sl_buf_addf(&b, "Worst combination: %s\n\n", sl_eval_describe(a, ev, v->worst_combo, SIZE_MAX));
	sl_buf_addf(&b, "Peak **%s** against %s usable on %s%s (plan %.0f%%: %s): %s, %.0f%% of capacity.\n\n",
		    sl_bytes_str(a, bd.total), sl_bytes_str(a, ev->capacity), ev->gpu->name,
		    l->file->gpu_assumed ? ", assumed" : "", 100.0 * (double)ev->plan / (double)ev->capacity,
		    sl_bytes_str(a, ev->plan), verdict, 100.0 * (double)bd.total / (double)ev->capacity);
	sl_buf_addf(&b, "Memory-relevant combinations with this value: %llu fit, %llu near capacity, %llu OOM, "
			"%llu unknown.\n\n",
		    (unsigned long long)v->u[SL_VERDICT_FIT], (unsigned long long)v->u[SL_VERDICT_NEAR],
		    (unsigned long long)v->u[SL_VERDICT_OOM], (unsigned long long)v->u[SL_VERDICT_UNKNOWN]);
	sl_buf_addf(&b, "%s; peak at the %s.\n\n", settings_line(a, &s, model), sl_phase_name((enum sl_phase)bd.phase));
	sl_buf_adds(&b, "| term | memory | share |\n|---|---:|---:|\n");
	row(&b, a, "CUDA context", bd.cuda_context, bd.total);
	row(&b, a, "cuBLAS workspace", bd.workspace, bd.total);
	row(&b, a, "weights", bd.weights, bd.total);
	row(&b, a, "gradients", bd.gradients, bd.total);
	row(&b, a, "optimizer states", bd.optimizer, bd.total);
	row(&b, a, "activations", bd.activations, bd.total);
	row(&b, a, "of which a frozen part's forward", bd.frozen_ws, bd.total);
	row(&b, a, "KV cache", bd.kv_cache, bd.total);
	row(&b, a, "logits and loss", bd.logits, bd.total);
	row(&b, a, "ZeRO / comm buffers", bd.zero_gather, bd.total);
	row(&b, a, "outside vLLM's share", bd.outside_share, bd.total);
	row(&b, a, sl_rl_frozen_label(&s), bd.frozen_models, bd.total);
	row(&b, a, "vLLM engine (colocated)", bd.engine, bd.total);
	row(&b, a, "allocator slack", bd.slack, bd.total);
	sl_buf_addf(&b, "| **total** | **%s** | |\n\n", sl_bytes_str(a, bd.total));
	if (bd.preallocated)
		sl_buf_addf(&b, "vLLM pre-allocates %s more KV cache blocks, the rest of its gpu_memory_utilization share "
				"(not in the total).\n\n",
			    sl_bytes_str(a, bd.preallocated));
	if (bd.phase_generation)
		sl_buf_addf(&b, "Phases: generation %s, training step %s; the peak is the larger.\n\n",
			    sl_bytes_str(a, bd.phase_generation), sl_bytes_str(a, bd.phase_step));
	if (bd.bound)
		sl_buf_adds(&b, "The activations are an upper bound (a custom module's forward is not read): a fit is "
				"sure, an out-of-memory verdict at risk.\n\n");
	sl_buf_adds(&b, "Assumed (stated nowhere: the estimator's defaults): ");
	assumptions(&b, l, ev, &s);
	if (l->file->gpu_assumed)
		sl_buf_addf(&b, "; the GPU, %s (none given: set `gpu:` in .sweeplint.yaml or -g)", ev->gpu->name);
	sl_buf_adds(&b, ".\n");
	return b.buf;
}

/* The parameter whose key span holds off. */
static const struct sl_param *param_at(const struct sl_sweep *sw, size_t off)
{
	for (size_t i = 0; sw && i < sw->nparams; i++) {
		const struct sl_param *p = &sw->params[i];
		if (p->key && off >= p->key->span.start && off <= p->key->span.end)
			return p;
	}
	return NULL;
}

void sl_lsp_value_span(const struct sl_lsp_lint *l, size_t axis, size_t value, size_t *start, size_t *end)
{
	const struct sl_eval_value *v = &lint_eval(l)->axes[axis].values[value];
	*start = v->span.start;
	*end = v->span.end;
}

const char *sl_lsp_hover_key(const struct sl_lsp_lint *l, size_t off, size_t *start, size_t *end)
{
	if (!l->file || !l->file->sweep || l->file->src->notebook)
		return NULL;
	const struct sl_param *p = param_at(l->file->sweep, off);
	if (!p)
		return NULL;
	*start = p->key->span.start;
	*end = p->key->span.end;
	struct sl_arena *a = l->run->arena;
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_addf(&b, "**%s**\n\n", p->path);
	const struct sl_eval *ev = l->file->eval;
	if (p->is_dict) {
		sl_buf_adds(&b, "A nested parameter group: its keys are read one by one.\n");
		return b.buf;
	}
	for (size_t i = 0; ev && i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->param != p)
			continue;
		sl_buf_addf(&b, "Memory role **%s**", sl_role_name(ax->role));
		if (ax->rule && ax->rule->by)
			sl_buf_addf(&b, ": the key, %s.\n", sl_key_rule_describe(a, ax->rule));
		else if (ax->rule)
			sl_buf_addf(&b, ": the key matches the pattern `%s` of %s.\n", ax->rule->pattern,
				    ax->rule->origin ? ax->rule->origin : "the key map");
		else
			sl_buf_adds(&b, ".\n");
		sl_buf_addf(&b, "\n%zu value%s evaluated%s.\n", ax->n, ax->n == 1 ? "" : "s",
			    ax->bounds ? " (a range, at its bounds)" : "");
		return b.buf;
	}
	for (size_t i = 0; ev && i < ev->nnotes; i++) {
		const struct sl_eval_note *n = &ev->notes[i];
		if (strcmp(n->key, p->path) != 0 || strcmp(n->where, "sweep") != 0)
			continue;
		if (n->role >= 0)
			sl_buf_addf(&b, "Memory role **%s**%s%s%s: %s.\n", sl_role_name((enum sl_role)n->role),
				    n->rule ? " (" : "", n->rule ? sl_key_rule_describe(a, n->rule) : "", n->rule ? ")" : "",
				    n->detail ? n->detail : "not used");
		else
			sl_buf_addf(&b, "Not memory-relevant%s%s.\n", n->detail ? ": " : "", n->detail ? n->detail : "");
		return b.buf;
	}
	sl_buf_adds(&b, "Not memory-relevant: no key pattern of rules/keys.yaml (or the project's `keys:`) matches "
			"it, so its values do not change the estimate.\n");
	return b.buf;
}

size_t sl_lsp_inlay_hints(const struct sl_lsp_lint *l, size_t from, size_t to, struct sl_lsp_hint **out)
{
	*out = NULL;
	const struct sl_eval *ev = lint_eval(l);
	if (!ev)
		return 0;
	struct sl_arena *a = l->run->arena;
	size_t n = 0, cap = 0;
	struct sl_lsp_hint *v = NULL;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		for (size_t j = 0; j < ax->n; j++) {
			const struct sl_eval_value *x = &ax->values[j];
			if (!here(l, ax, x) || !x->ok || !x->worst || x->span.end < from || x->span.end > to)
				continue;
			/* one hint per place: the worst of the values sharing it */
			bool dup = false;
			for (size_t k = 0; k < n; k++)
				if (v[k].at == x->span.end) {
					dup = true;
					if (x->worst > v[k].peak) {
						v[k].peak = x->worst;
						v[k].axis = i;
						v[k].value = j;
					}
				}
			if (dup)
				continue;
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 16;
				v = sl_arena_grow(a, v, cap, nc, sizeof *v);
				cap = nc;
			}
			v[n++] = (struct sl_lsp_hint){.at = x->span.end, .peak = x->worst, .axis = i, .value = j};
		}
	}
	for (size_t k = 0; k < n; k++) {
		const char *size = sl_bytes_str(a, v[k].peak);
		v[k].label = v[k].peak > ev->capacity ? sl_arena_printf(a, "OOM %s", size)
			     : v[k].peak > ev->plan  ? sl_arena_printf(a, "near %s", size)
						     : size;
		const struct sl_eval_value *x = &ev->axes[v[k].axis].values[v[k].value];
		v[k].tooltip = x->worst_combo ? sl_arena_printf(a, "worst combination: %s",
								 sl_eval_describe(a, ev, x->worst_combo, SIZE_MAX))
					      : NULL;
	}
	*out = v;
	return n;
}
