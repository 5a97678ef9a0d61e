/*
 * actions: textDocument/codeAction — the fixes sweeplint computes, as
 * workspace edits on the document's original bytes, made by the rewrite and
 * edit machinery `sweeplint fix` uses (rewrite.h, edit.h):
 *
 *   - remove a value that fits in no combination (an `oom` finding on a
 *     `values:` item whose every combination runs out of memory): the
 *     rewrite's box with that one value dropped;
 *   - remove every such value at once (what `sweeplint fix` writes);
 *   - replace a batch size by the largest that fits with the gradient
 *     accumulation that keeps the effective batch (sl_eval_fix): offered when
 *     the batch is the sweep's only batch value, since a grid pairs every
 *     batch with every accumulation; the accumulation parameter is set when
 *     the sweep has one with one value, else added beside the batch key;
 *   - add `# sweeplint: disable=RULE` for any finding: at the end of its
 *     line, or, when that line has a comment already, on its own line above
 *     (a directive alone on a line covers the next one).
 *
 * Every edit is checked before it is offered: the edited text is linted
 * again as the document (same options, same project config); it must parse,
 * stay a sweep W&B accepts, raise no error-level rule that did not fire
 * before, and do what the action says (fewer `oom` errors, or the disabled
 * finding gone). An action that fails its check is not offered.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hover.h"
#include "lint.h"
#include "requests.h"
#include "rpc.h"
#include "sweeplint/arena.h"
#include "sweeplint/edit.h"
#include "sweeplint/eval.h"
#include "sweeplint/rewrite.h"
#include "sweeplint/run.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

struct act {
	struct sl_lsp_server *s;
	struct sl_lsp_doc *d;
	const struct sl_lsp_lint *l;
	struct sl_arena *a;              /* this request's scratch arena */
	json_t *out;                     /* the actions */
	bool have_rw;
	struct sl_rewrite rw;
};

static size_t count_rule(const struct sl_file *f, const char *rule, enum sl_severity min)
{
	size_t n = 0;
	for (size_t i = 0; f && i < f->diags.n; i++)
		if (f->diags.v[i].severity >= min && strcmp(f->diags.v[i].rule, rule) == 0)
			n++;
	return n;
}

static bool fired(const struct sl_file *f, const char *rule)
{
	return count_rule(f, rule, SL_SEV_ERROR) > 0;
}

/*
 * Apply e to the document and lint the result; true when it is acceptable
 * (see the top) and goal() holds on it. *splices gets the splices.
 */
static bool checked(struct act *c, const struct sl_edits *e, bool (*goal)(const struct sl_file *before,
									 const struct sl_file *after, const void *arg),
		    const void *arg, struct sl_edit **splices, size_t *n)
{
	struct sl_buf text;
	if (sl_edits_apply(e, &text) < 0 || sl_edits_list(e, splices, n) < 0 || *n == 0)
		return false;
	struct sl_lsp_lint *l = sl_lsp_lint(c->s->o, c->d->path, c->d->path ? c->d->path : c->d->uri, text.buf,
					    text.len);
	const struct sl_file *f = l->file, *before = c->l->file;
	bool ok = f && f->doc->ok && f->sweep && f->sweep->is_sweep && !f->err &&
		  !(before->sweep->nproblems == 0 && f->sweep->nproblems > 0);
	for (size_t i = 0; ok && i < f->diags.n; i++)
		if (f->diags.v[i].severity == SL_SEV_ERROR && !fired(before, f->diags.v[i].rule))
			ok = false;
	ok = ok && goal(before, f, arg);
	sl_lsp_lint_free(l);
	return ok;
}

static bool fewer_oom(const struct sl_file *before, const struct sl_file *after, const void *arg)
{
	(void)arg;
	return count_rule(after, "oom", SL_SEV_ERROR) < count_rule(before, "oom", SL_SEV_ERROR);
}

/* Add a quickfix with these splices (a WorkspaceEdit on the document at its version). */
static void offer(struct act *c, const char *title, const struct sl_edit *v, size_t n, const struct sl_diag *about,
		  bool preferred)
{
	json_t *edits = json_array();
	for (size_t i = 0; i < n; i++) {
		char *t = strndup(v[i].text, v[i].len);
		if (!t)
			sl_oom();
		json_array_append_new(edits, json_pack("{s:o, s:o}", "range", sl_lsp_jrange(c->s, c->d, v[i].start, v[i].end),
						       "newText", sl_lsp_jstr(t)));
		free(t);
	}
	json_t *change = json_pack("{s:[{s:{s:s, s:I}, s:o}]}", "documentChanges", "textDocument", "uri", c->d->uri,
				   "version", (json_int_t)c->d->version, "edits", edits);
	json_t *act = json_pack("{s:o, s:s, s:o}", "title", sl_lsp_jstr(title), "kind", "quickfix", "edit", change);
	if (!act)
		sl_oom();
	if (preferred)
		json_object_set_new(act, "isPreferred", json_true());
	if (about)
		json_object_set_new(act, "diagnostics", json_pack("[o]", sl_lsp_diagnostic(c->s, c->d, about)));
	json_array_append_new(c->out, act);
}

static bool rewrite_ready(struct act *c)
{
	if (c->have_rw)
		return true;
	const char *why;
	const struct sl_eval *ev = c->l->file->eval;
	if (!ev || !ev->cells || sl_rewrite_init(&c->rw, c->a, ev, c->l->run->resolver, &why) < 0)
		return false;
	c->have_rw = true;
	return true;
}

/* Remove value j of axis i when it fits in no combination. */
static void remove_value(struct act *c, size_t i, size_t j, const struct sl_diag *about)
{
	if (!rewrite_ready(c))
		return;
	const struct sl_rw_axis *x = &c->rw.axes[i];
	const struct sl_eval_value *v = &x->ax->values[j];
	if (x->kind != SL_RW_LIST || (x->pinned && x->pinned[j]) || x->ax->n < 2 || v->u[SL_VERDICT_FIT] ||
	    v->u[SL_VERDICT_NEAR] || v->u[SL_VERDICT_UNKNOWN] || !v->u[SL_VERDICT_OOM])
		return;
	struct sl_box *b = sl_box_whole(&c->rw);
	b->keep[i][j] = false;
	sl_box_count(&c->rw, b);
	struct sl_edits e;
	sl_edits_init(&e, c->a, c->l->file->src);
	const char *why;
	struct sl_edit *v_edits;
	size_t n;
	if (sl_rewrite_edits(&c->rw, b, &e, &why) < 0 || !checked(c, &e, fewer_oom, NULL, &v_edits, &n))
		return;
	offer(c, sl_arena_printf(c->a, "Remove %s %s (out of memory in every combination)", x->ax->key,
				 sl_rewrite_value_text(&c->rw, i, j)),
	      v_edits, n, about, true);
}

/* Remove every value that fits nowhere (sweeplint fix). */
static void prune_all(struct act *c)
{
	if (!rewrite_ready(c))
		return;
	struct sl_box *whole = sl_box_whole(&c->rw);
	if (whole->n[SL_RW_FEASIBLE] + whole->n[SL_RW_UNKNOWN] == 0)
		return;
	struct sl_box *b = sl_box_copy(&c->rw, whole);
	size_t changed = sl_rewrite_prune(&c->rw, b);
	if (changed < 2)
		return; /* one value: its own action says it */
	struct sl_edits e;
	sl_edits_init(&e, c->a, c->l->file->src);
	const char *why;
	struct sl_edit *v;
	size_t n;
	if (sl_rewrite_edits(&c->rw, b, &e, &why) < 0 || !checked(c, &e, fewer_oom, NULL, &v, &n))
		return;
	offer(c, sl_arena_printf(c->a, "Remove the %zu values that fit in no combination (sweeplint fix)", changed), v,
	      n, NULL, false);
}

/* The mapping that holds a parameter's key, and the key's pair index in it. */
static const struct sl_node *parent_map(const struct sl_node *key, size_t *index)
{
	const struct sl_node *m = key->parent;
	for (size_t i = 0; m && m->kind == SL_NODE_MAP && i < m->n; i++)
		if (m->pairs[i].key == key) {
			*index = i;
			return m;
		}
	return NULL;
}

static bool batch_goal(const struct sl_file *before, const struct sl_file *after, const void *arg)
{
	(void)arg;
	return fewer_oom(before, after, NULL);
}

/*
 * For the oom finding on value j of axis i: replace the sweep's batch size by the largest that fits in the
 * finding's worst combination, with the accumulation that keeps the effective batch.
 */
static void replace_batch(struct act *c, size_t i, size_t j, const struct sl_diag *about)
{
	const struct sl_eval *ev = c->l->file->eval;
	const uint32_t *combo = ev->axes[i].values[j].worst_combo;
	const struct sl_eval_axis *ax = NULL;
	for (size_t k = 0; k < ev->naxes; k++)
		if (ev->axes[k].role == SL_ROLE_BATCH_SIZE)
			ax = &ev->axes[k]; /* the last one: it overrides the others */
	/* one batch value written in this sweep: a grid pairs every batch with every accumulation */
	if (!ax || !combo || ax->origin != SL_AXIS_SWEEP || !ax->param || ax->n != 1 || ax->src != c->l->file->src)
		return;
	const struct sl_eval_value *v = &ax->values[0];
	if (!v->node || v->node->kind != SL_NODE_SCALAR)
		return;
	struct sl_eval_fix fx;
	if (!sl_eval_fix(ev, combo, ev->capacity, &fx) || !fx.new_batch || !fx.new_accum)
		return;
	struct sl_edits e;
	sl_edits_init(&e, c->a, c->l->file->src);
	const struct sl_scalar_resolver *r = c->l->run->resolver;
	const char *nb = sl_arena_printf(c->a, "%llu", (unsigned long long)fx.new_batch);
	const char *na = sl_arena_printf(c->a, "%llu", (unsigned long long)fx.new_accum);
	if (sl_edits_set_scalar(&e, r, v->node, nb, strlen(nb), SL_V_INT) < 0)
		return;
	const struct sl_eval_axis *gax = NULL;
	for (size_t k = 0; k < ev->naxes; k++)
		if (ev->axes[k].role == SL_ROLE_GRAD_ACCUM)
			gax = &ev->axes[k];
	const char *gkey;
	if (gax) {
		/* the accumulation must be one value the sweep writes, or the grid pairs it with other batches */
		if (gax->n != 1 || gax->origin != SL_AXIS_SWEEP || !gax->values[0].node ||
		    gax->values[0].node->kind != SL_NODE_SCALAR || gax->src != c->l->file->src)
			return;
		if (sl_edits_set_scalar(&e, r, gax->values[0].node, na, strlen(na), SL_V_INT) < 0)
			return;
		gkey = gax->key;
	} else {
		/* add `gradient_accumulation_steps: {value: N}` beside the batch key */
		size_t at;
		const struct sl_node *map = parent_map(ax->param->key, &at);
		if (!map || map->style == SL_STYLE_FLOW)
			return;
		const char *line = sl_arena_printf(c->a, "gradient_accumulation_steps: {value: %s}", na);
		if (sl_edits_insert_line(&e, map, at + 1, line) < 0)
			return;
		gkey = "gradient_accumulation_steps";
	}
	struct sl_edit *sp;
	size_t n;
	if (!checked(c, &e, batch_goal, NULL, &sp, &n))
		return;
	offer(c, sl_arena_printf(c->a, "Use %s %llu with %s %llu (the effective batch %llu kept)", ax->key,
				 (unsigned long long)fx.new_batch, gkey, (unsigned long long)fx.new_accum,
				 (unsigned long long)(fx.new_batch * fx.new_accum)),
	      sp, n, about, true);
}

struct gone_arg {
	const char *rule;
	uint32_t line;                   /* where the finding is after the edit */
	const char *message;
};

/* The finding (rule at line, with its message) no longer reported. */
static bool finding_gone(const struct sl_file *before, const struct sl_file *after, const void *arg)
{
	(void)before;
	const struct gone_arg *g = arg;
	for (size_t i = 0; i < after->diags.n; i++)
		if (strcmp(after->diags.v[i].rule, g->rule) == 0 && after->diags.v[i].span.line == g->line &&
		    strcmp(after->diags.v[i].message, g->message) == 0)
			return false;
	return true;
}

/* `# sweeplint: disable=RULE` for finding g: at the end of its line, else on a line of its own above. */
static void disable(struct act *c, const struct sl_diag *g)
{
	if (strcmp(g->rule, "syntax") == 0 || g->src != c->l->file->src)
		return;
	const struct sl_source *src = c->l->file->src;
	size_t len;
	const char *line = sl_source_line(src, g->span.line, &len);
	size_t start = (size_t)(line - src->bytes);
	struct gone_arg arg = {g->rule, g->span.line, g->message};
	const char *crlf = src->crlf ? "\r\n" : "\n";
	for (int way = 0; way < 2; way++) {
		struct sl_edits e;
		sl_edits_init(&e, c->a, src);
		if (way == 0) {
			const char *t = sl_arena_printf(c->a, "  # sweeplint: disable=%s", g->rule);
			size_t end = start + len;
			while (end > start && (src->bytes[end - 1] == ' ' || src->bytes[end - 1] == '\t'))
				end--;
			sl_edits_splice(&e, end, start + len, t, strlen(t));
		} else {
			size_t indent = 0;
			while (indent < len && (line[indent] == ' ' || line[indent] == '\t'))
				indent++;
			const char *t = sl_arena_printf(c->a, "%.*s# sweeplint: disable=%s%s", (int)indent, line, g->rule, crlf);
			sl_edits_splice(&e, start, start, t, strlen(t));
			arg.line = g->span.line + 1; /* the finding's line moves down by the one inserted */
		}
		struct sl_edit *v;
		size_t n;
		if (!checked(c, &e, finding_gone, &arg, &v, &n))
			continue;
		offer(c, sl_arena_printf(c->a, "Disable %s on this line (# sweeplint: disable=%s)", g->rule, g->rule), v, n,
		      g, false);
		return;
	}
}

json_t *sl_lsp_code_action(struct sl_lsp_server *s, json_t *params, struct sl_lsp_error *e)
{
	const char *uri = json_string_value(json_object_get(json_object_get(params, "textDocument"), "uri"));
	json_t *range = json_object_get(params, "range");
	size_t from, to;
	if (!uri || !sl_lsp_joffsets(s, NULL, range, &from, &to)) {
		e->code = SL_RPC_INVALID_PARAMS;
		e->message = "codeAction: expected {textDocument: {uri}, range: {start, end}, context}";
		return NULL;
	}
	struct sl_lsp_doc *d = sl_lsp_doc_find(s, uri);
	json_t *only = json_object_get(json_object_get(params, "context"), "only");
	bool quickfix = !json_is_array(only);
	size_t k;
	json_t *kind;
	json_array_foreach(only, k, kind)
	{
		const char *kv = json_string_value(kind);
		/* a kind covers its sub-kinds: "quickfix" asked for, or "" (every kind) */
		if (kv && (strcmp(kv, "quickfix") == 0 || kv[0] == '\0'))
			quickfix = true;
	}
	if (!d || !quickfix)
		return json_array();
	struct sl_lsp_lint *l = sl_lsp_doc_lint(s, d);
	sl_lsp_joffsets(s, d, range, &from, &to);
	struct act c = {.s = s, .d = d, .l = l, .a = sl_arena_new(), .out = json_array()};
	/* a notebook's edits are edits of its code cells, not of the JSON text the editor holds: none offered */
	const struct sl_file *f = l->file && !l->file->src->notebook ? l->file : NULL;
	bool any_oom = false;
	for (size_t i = 0; f && f->sweep && i < f->diags.n; i++) {
		const struct sl_diag *g = &f->diags.v[i];
		if (g->src != f->src || g->span.end < from || g->span.start > to)
			continue;
		size_t axis, value;
		if (strcmp(g->rule, "oom") == 0 && sl_lsp_value_at(l, g->span.start, &axis, &value)) {
			any_oom = true;
			remove_value(&c, axis, value, g);
			replace_batch(&c, axis, value, g);
		}
		disable(&c, g);
	}
	if (any_oom)
		prune_all(&c);
	sl_arena_free(c.a);
	return c.out;
}
