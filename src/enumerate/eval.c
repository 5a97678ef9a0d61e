/*
 * eval: axes from configs, command, sweep and --set; the product of the axes
 * evaluated once per combination (incrementally), a verdict per combination kept
 * in two bytes, then counts, per-value statistics and blame in one pass over
 * those verdicts. Nothing of the non-memory parameters is enumerated: they
 * only multiply the counts; nor are the memory axes the peak does not read
 * (hold_axes: DataLoader workers, a training sweep's eval batch), whose
 * values share one cell per combination of the other axes.
 */
#include "sweeplint/eval.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/path.h"
#include "sweeplint/scalar.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"
#include "enumerate_internal.h"

#define MAX_AXIS_VALUES 4096 /* a longer integer range on a memory axis is evaluated at its bounds */

struct builder {
	struct sl_arena *a;
	struct sl_eval *ev;
	const struct sl_eval_opts *o;
	struct sl_diags *diags;
	const struct sl_scalar_resolver *res;
	size_t cap_axes, cap_notes;
	unsigned ds_depth;
	const struct sl_key_rule **limited;  /* patterns that hit their match limit, reported once each */
	size_t nlimited, cap_limited;
};

const char *sl_bytes_str(struct sl_arena *a, uint64_t b)
{
	double gib = (double)b / (1024.0 * 1024.0 * 1024.0);
	if (gib >= 1000)
		return sl_arena_printf(a, "%.0f GiB", gib);
	if (gib >= 1)
		return sl_arena_printf(a, "%.1f GiB", gib);
	return sl_arena_printf(a, "%.0f MiB", (double)b / (1024.0 * 1024.0));
}

static void note_rule(struct builder *B, const char *key, const char *where, const struct sl_key_rule *rule,
		      int role, const char *detail)
{
	struct sl_eval *ev = B->ev;
	if (ev->nnotes == B->cap_notes) {
		size_t cap = B->cap_notes ? B->cap_notes * 2 : 32;
		ev->notes = sl_arena_grow(B->a, ev->notes, ev->nnotes, cap, sizeof *ev->notes);
		B->cap_notes = cap;
	}
	ev->notes[ev->nnotes++] = (struct sl_eval_note){.key = key, .where = where, .role = role, .detail = detail, .rule = rule};
}

static void note(struct builder *B, const char *key, const char *where, int role, const char *detail)
{
	note_rule(B, key, where, NULL, role, detail);
}

/* A value read from a config or the command that cannot be used: a note that rules report at its place. */
static void note_rejected(struct builder *B, const char *key, const char *where, const struct sl_key_rule *rule,
			  const struct sl_eval_value *v, const struct sl_source *src)
{
	note_rule(B, key, where, rule, (int)rule->role, v->why);
	struct sl_eval_note *n = &B->ev->notes[B->ev->nnotes - 1];
	n->rejected = v->node;
	n->src = src;
	n->span = v->span;
}

static struct sl_eval_axis *new_axis(struct builder *B, enum sl_axis_origin origin, const char *key,
				     enum sl_role role, const struct sl_key_rule *rule, const struct sl_source *src,
				     size_t nvalues)
{
	struct sl_eval *ev = B->ev;
	if (ev->naxes == B->cap_axes) {
		size_t cap = B->cap_axes ? B->cap_axes * 2 : 16;
		ev->axes = sl_arena_grow(B->a, ev->axes, ev->naxes, cap, sizeof *ev->axes);
		B->cap_axes = cap;
	}
	struct sl_eval_axis *ax = &ev->axes[ev->naxes++];
	memset(ax, 0, sizeof *ax);
	ax->origin = origin;
	ax->key = key;
	ax->role = role;
	ax->rule = rule;
	ax->src = src;
	ax->values = sl_arena_array(B->a, nvalues ? nvalues : 1, sizeof *ax->values);
	ax->n = 0;
	if (role == SL_ROLE_MODEL)
		ev->has_model = true;
	return ax;
}

/* The project's models (.sweeplint.yaml models:) first, then sl_model_resolve's order. */
static const struct sl_model *resolve_model(struct builder *B, const char *name)
{
	const char *alias = NULL;
	for (size_t i = 0; i < B->o->nmodel_aliases; i++)
		if (strcasecmp(name, B->o->model_aliases[i].name) == 0) {
			alias = name;
			name = B->o->model_aliases[i].target;
			break;
		}
	struct sl_resolve_opts ro = {.hf_cache = B->o->hf_cache, .base_dir = B->o->base_dir, .hub = B->o->hub};
	const struct sl_model *m = sl_model_resolve(B->a, B->o->cat, name, &ro, B->diags);
	if (m && alias) {
		struct sl_model *p = sl_arena_alloc(B->a, sizeof *p);
		*p = *m;
		p->resolved_note = sl_arena_printf(B->a, "the project's model '%s' stands for '%s' (%s)", alias, name,
						   m->resolved_by);
		p->resolved_by = "project";
		return p;
	}
	return m;
}

/* Fill value v of role r from a node (or text) and parse it. */
static void fill_value(struct builder *B, struct sl_eval_value *v, enum sl_role r, const struct sl_key_rule *rule,
		       const struct sl_node *node, const char *text, const struct sl_value *typed)
{
	v->node = node;
	if (node)
		v->span = node->span;
	v->text = node && node->kind == SL_NODE_SCALAR ? node->text : text ? text : "";
	v->rv = sl_arena_alloc(B->a, sizeof *v->rv);
	v->nrv = 1;
	const char *why = NULL;
	int rc = node ? sl_role_value_from_node(B->a, r, rule, node, v->rv, &why)
		      : sl_role_value_from_text(B->a, r, rule, text, typed, v->rv, &why);
	v->ok = rc == 0;
	v->why = why;
	v->best = UINT64_MAX;
	if (v->ok && r == SL_ROLE_MODEL)
		v->model = resolve_model(B, v->rv->s);
}

static void add_entries_of(struct builder *B, const struct sl_trainer *t);

/*
 * The key map's rule for key; a pattern that hits PCRE2's match or depth
 * limit is a `config` error at the key (once per pattern and file), never a
 * silent "no match". NULL: no rule (the key is not memory-relevant).
 */
static const struct sl_key_rule *match_key(struct builder *B, const char *key, const struct sl_source *src,
					   const struct sl_node *at)
{
	const struct sl_key_rule *limited;
	const struct sl_key_rule *rule = sl_keymap_match_limited(B->o->keys, key, strlen(key), &limited);
	if (!limited)
		return rule;
	for (size_t i = 0; i < B->nlimited; i++)
		if (B->limited[i] == limited)
			return NULL;
	B->limited = sl_arena_reserve(B->a, B->limited, B->nlimited, &B->cap_limited, B->nlimited + 1,
				      sizeof *B->limited);
	B->limited[B->nlimited++] = limited;
	if (B->diags && src)
		sl_diags_add(B->diags, "config", SL_SEV_ERROR, src, at ? at->span : (struct sl_span){.line = 1, .col = 1},
			     "key pattern '%s' (%s) passes PCRE2's match limit (%d steps) on '%s': sweeplint cannot tell "
			     "which role this key has, so it and every later key the pattern reaches get none",
			     sl_term_safe(B->a, limited->pattern), sl_term_safe(B->a, limited->origin),
			     SL_KEYMAP_MATCH_LIMIT, sl_term_safe(B->a, key));
	note(B, key, "key map", -1, "a key pattern passed its match limit: no role");
	return NULL;
}

/* A deepspeed: path value becomes the role values of that config. */
static void expand_deepspeed(struct builder *B, const char *path, const char *dir)
{
	if (B->ds_depth > 2)
		return;
	struct sl_trainer *ds = NULL;
	if (sl_trainer_load(B->a, path, dir, B->res, B->diags, &ds) == 0) {
		B->ds_depth++;
		add_entries_of(B, ds);
		B->ds_depth--;
	}
}

/* One config entry: an axis, or a note saying why it is not one. */
static void add_entry(struct builder *B, const struct sl_trainer *t, const struct sl_cfg_entry *e, const char *where)
{
	const struct sl_key_rule *rule = match_key(B, e->key, t->src, e->node);
	if (!rule) {
		/* a program's other literals (output_dir, seed ...) are not worth a note each */
		if (!e->how)
			note(B, e->key, where, -1, "not memory-relevant: no pattern of the key map matches");
		return;
	}
	if (e->is_auto) {
		note(B, e->key, where, (int)rule->role, "\"auto\": filled from the trainer's arguments");
		return;
	}
	/* DeepSpeed's train_batch_size is global (world × micro × accumulation) */
	if (t->is_deepspeed && strcmp(e->key, "train_batch_size") == 0) {
		note(B, e->key, where, -1, "global batch in a DeepSpeed config: not a per-device setting");
		return;
	}
	if (e->node->kind == SL_NODE_SCALAR && e->node->value.type == SL_V_NULL) {
		note(B, e->key, where, (int)rule->role, "empty: not set");
		return;
	}
	struct sl_eval_value tmp = {0};
	fill_value(B, &tmp, rule->role, rule, e->node, NULL, NULL);
	if (!tmp.ok && rule->role != SL_ROLE_MODEL) {
		/* a program's default the memory model cannot use (max_len -1 meaning "no limit") is no finding */
		if (e->how)
			note_rule(B, e->key, where, rule, (int)rule->role, sl_arena_printf(B->a, "not used: %s", tmp.why));
		else
			note_rejected(B, e->key, where, rule, &tmp, t->src);
		return;
	}
	if (rule->role == SL_ROLE_DEEPSPEED) {
		note(B, e->key, where, (int)rule->role, tmp.rv->s);
		expand_deepspeed(B, tmp.rv->s, sl_path_dir(B->a, t->path));
		return;
	}
	/* a literal read from the program's code (or a config it loads) is the program's setting */
	struct sl_eval_axis *ax = new_axis(B, e->how ? SL_AXIS_PROGRAM : SL_AXIS_CONFIG, e->key, rule->role, rule,
					   t->src, 1);
	ax->values[0] = tmp;
	ax->n = 1;
	/* a program's list literal is shown as written (["q_proj", "v_proj"]) */
	note_rule(B, e->key, where, rule, (int)rule->role, e->how && e->node->text ? e->node->text : tmp.text);
	B->ev->notes[B->ev->nnotes - 1].axis = B->ev->naxes;
}

static void add_entries_of(struct builder *B, const struct sl_trainer *t)
{
	const char *config_where = sl_arena_printf(B->a, "config %s", t->src->display);
	for (size_t i = 0; i < t->n; i++) {
		const struct sl_cfg_entry *e = &t->entries[i];
		/* a program's literal: its file:line, and how it was read (kept on its notes) */
		const char *where = e->how ? sl_arena_printf(B->a, "%s:%u", t->src->display, e->node->span.line)
					   : config_where;
		size_t first = B->ev->nnotes;
		add_entry(B, t, e, where);
		for (size_t k = first; k < B->ev->nnotes; k++)
			if (!B->ev->notes[k].how)
				B->ev->notes[k].how = e->how;
	}
}

/* A program's setting that a later axis of the same role replaces, as at run time: say which. */
static void mark_overridden(struct builder *B)
{
	struct sl_eval *ev = B->ev;
	for (size_t i = 0; i < ev->nnotes; i++) {
		struct sl_eval_note *n = &ev->notes[i];
		if (!n->how || !n->axis)
			continue;
		const struct sl_eval_axis *mine = &ev->axes[n->axis - 1];
		for (size_t k = ev->naxes; k-- > n->axis;) {
			const struct sl_eval_axis *ax = &ev->axes[k];
			if (ax->role != mine->role || !ax->n)
				continue;
			bool in_file = (ax->origin == SL_AXIS_CONFIG || ax->origin == SL_AXIS_PROGRAM) && ax->src;
			n->overridden_by = sl_arena_printf(B->a, "%s (%s)", ax->key,
							   in_file ? ax->src->display : sl_axis_origin_name(ax->origin));
			break;
		}
	}
}

static bool after_args(const struct sl_sweep *sw, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (sw->cmd[j].kind >= SL_CMD_ARGS && sw->cmd[j].kind <= SL_CMD_ARGS_JSON_FILE)
			return true;
	return false;
}

static void add_command_options(struct builder *B, bool late)
{
	const struct sl_sweep *sw = B->ev->sweep;
	for (size_t i = 0; i < sw->ncmd; i++) {
		const struct sl_cmd_item *c = &sw->cmd[i];
		if (c->kind != SL_CMD_OPTION || c->value_is_macro || !c->key || after_args(sw, i) != late)
			continue;
		const struct sl_key_rule *rule = match_key(B, c->key, sw->doc->src, c->node);
		if (!rule) {
			note(B, c->key, "command", -1, "not memory-relevant: no pattern of the key map matches");
			continue;
		}
		struct sl_value typed = sl_scalar_resolve(B->res, c->value ? c->value : "", c->value ? strlen(c->value) : 0,
							  true, NULL, NULL);
		struct sl_eval_value tmp = {0};
		fill_value(B, &tmp, rule->role, rule, NULL, c->value, &typed);
		tmp.node = c->value_node;
		if (c->value_node)
			tmp.span = c->value_node->span;
		if (!tmp.ok && rule->role != SL_ROLE_MODEL) {
			note_rejected(B, c->key, "command", rule, &tmp, sw->doc->src);
			continue;
		}
		if (rule->role == SL_ROLE_DEEPSPEED) {
			expand_deepspeed(B, tmp.rv->s, B->o->base_dir);
			continue;
		}
		struct sl_eval_axis *ax = new_axis(B, SL_AXIS_COMMAND, c->key, rule->role, rule, sw->doc->src, 1);
		ax->values[0] = tmp;
		ax->n = 1;
		note_rule(B, c->key, late ? "command (after ${args}: overrides the sweep)" : "command", rule,
			  (int)rule->role, tmp.text);
	}
}

static void add_sweep_params(struct builder *B)
{
	struct sl_eval *ev = B->ev;
	const struct sl_sweep *sw = ev->sweep;
	ev->others = (struct sl_count){.value = 1};
	for (size_t i = 0; i < sw->nparams; i++) {
		const struct sl_param *p = &sw->params[i];
		if (p->is_dict)
			continue;
		struct sl_count cnt = sl_param_grid_count(p);
		/* a parameter W&B's schema refuses (the schema finding says why) counts as one value, as
		 * in the grid size: it must not zero the memory counts of the parameters that are valid */
		if (p->dist == SL_DIST_NONE)
			cnt = (struct sl_count){.value = 1};
		bool ignored = false;
		for (size_t k = 0; k < B->o->nignore_params; k++)
			ignored |= strcmp(B->o->ignore_params[k], p->path) == 0;
		if (ignored) {
			note(B, p->path, "sweep", -1, "chooses a Hydra config group option: the option's config is read instead");
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		const struct sl_key_rule *rule = match_key(B, p->path, sw->doc->src, p->key);
		if (!rule) {
			note(B, p->path, "sweep", -1, "not memory-relevant: no pattern of the key map matches");
			/* memory does not depend on it: it multiplies the counts as W&B's grid counts it */
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		enum sl_role r = rule->role;
		struct sl_eval_axis *ax = NULL;
		switch (p->dist) {
		case SL_DIST_CONSTANT:
			ax = new_axis(B, SL_AXIS_SWEEP, p->path, r, rule, sw->doc->src, 1);
			fill_value(B, &ax->values[ax->n++], r, rule, p->value, NULL, NULL);
			break;
		case SL_DIST_CATEGORICAL:
		case SL_DIST_CATEGORICAL_W_PROBABILITIES:
			if (!p->values || p->values->kind != SL_NODE_SEQ || p->values->n == 0)
				break;
			ax = new_axis(B, SL_AXIS_SWEEP, p->path, r, rule, sw->doc->src, p->values->n);
			for (size_t j = 0; j < p->values->n; j++)
				fill_value(B, &ax->values[ax->n++], r, rule, p->values->items[j], NULL, NULL);
			break;
		case SL_DIST_INT_UNIFORM:
		case SL_DIST_Q_UNIFORM:
			if (!cnt.infinite && !cnt.saturated && cnt.value > 0 && cnt.value <= MAX_AXIS_VALUES) {
				ax = new_axis(B, SL_AXIS_SWEEP, p->path, r, rule, sw->doc->src, (size_t)cnt.value);
				for (uint64_t j = 0; j < cnt.value; j++) {
					struct sl_value v;
					const struct sl_node *vn = NULL;
					if (!sl_param_grid_value(p, j, &v, &vn))
						continue;
					char text[64];
					if (v.type == SL_V_INT)
						snprintf(text, sizeof text, "%lld", (long long)v.i);
					else
						snprintf(text, sizeof text, "%.17g", v.f);
					struct sl_eval_value *ev_v = &ax->values[ax->n++];
					fill_value(B, ev_v, r, rule, NULL, sl_arena_strdup(B->a, text), &v);
					/* a computed value is reported at the bound it equals, else the key */
					const struct sl_node *at = j == 0 ? p->min : j + 1 == cnt.value ? p->max : p->key;
					ev_v->node = at;
					ev_v->span = at ? at->span : p->key->span;
				}
				break;
			}
			/* a huge range is evaluated at its bounds */
			__attribute__((fallthrough));
		case SL_DIST_UNIFORM:
		case SL_DIST_LOG_UNIFORM_VALUES:
		case SL_DIST_INV_LOG_UNIFORM_VALUES:
		case SL_DIST_Q_LOG_UNIFORM_VALUES:
			if (!p->min || !p->max || isnan(p->minv) || isnan(p->maxv))
				break;
			ax = new_axis(B, SL_AXIS_SWEEP, p->path, r, rule, sw->doc->src, 2);
			ax->bounds = true;
			ax->range = cnt;
			fill_value(B, &ax->values[ax->n++], r, rule, p->min, NULL, NULL);
			fill_value(B, &ax->values[ax->n++], r, rule, p->max, NULL, NULL);
			/* a float bound of an integer role reads as its floor for batch sizes and lengths */
			break;
		default:
			break;
		}
		if (!ax) {
			note(B, p->path, "sweep", (int)r,
			     p->dist == SL_DIST_NONE
				     ? "fails W&B's schema: not evaluated on a memory axis (the memory model keeps its default)"
				     : sl_arena_printf(B->a, "%s is not evaluated on a memory axis", sl_dist_name(p->dist)));
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		ax->param = p;
		note_rule(B, p->path, "sweep", rule, (int)r,
			  ax->bounds ? sl_arena_printf(B->a, "%s range, evaluated at its bounds", sl_dist_name(p->dist))
				     : sl_arena_printf(B->a, "%zu value%s", ax->n, ax->n == 1 ? "" : "s"));
	}
}

struct set_ref {
	const char *s;
	size_t i;
};

static int by_key_then_index(const void *p, const void *q)
{
	const struct set_ref *a = p, *b = q;
	size_t la = strcspn(a->s, "="), lb = strcspn(b->s, "=");
	int c = memcmp(a->s, b->s, la < lb ? la : lb);
	if (c == 0 && la != lb)
		c = la < lb ? -1 : 1;
	return c ? c : (a->i < b->i ? -1 : a->i > b->i);
}

/*
 * --set KEY=VALUE fixes, in order; a later --set of the same KEY replaces an
 * earlier one, so only the last of each KEY becomes an axis (10,000 --set
 * flags of one key are one axis, not 10,000). Every one was checked by
 * sl_run_prepare.
 */
static int add_sets(struct builder *B, const char **why)
{
	size_t ns = B->o->nsets;
	bool *superseded = sl_arena_array(B->a, ns ? ns : 1, sizeof *superseded);
	struct set_ref *refs = sl_arena_array(B->a, ns ? ns : 1, sizeof *refs);
	for (size_t i = 0; i < ns; i++)
		refs[i] = (struct set_ref){B->o->sets[i], i};
	qsort(refs, ns, sizeof *refs, by_key_then_index);
	for (size_t i = 0; i + 1 < ns; i++) {
		size_t la = strcspn(refs[i].s, "="), lb = strcspn(refs[i + 1].s, "=");
		superseded[refs[i].i] = la == lb && memcmp(refs[i].s, refs[i + 1].s, la) == 0;
	}
	for (size_t i = 0; i < B->o->nsets; i++) {
		const char *s = B->o->sets[i];
		const char *eq = strchr(s, '=');
		if (!eq || eq == s) {
			*why = sl_arena_printf(B->a, "--set expects KEY=VALUE, not \"%s\"", s);
			return -SL_EUSAGE;
		}
		const char *key = sl_arena_strndup(B->a, s, (size_t)(eq - s));
		const char *val = eq + 1;
		int role = sl_role_parse(key);
		const struct sl_key_rule *rule = NULL;
		if (role < 0) {
			const struct sl_key_rule *limited;
			rule = sl_keymap_match_limited(B->o->keys, key, strlen(key), &limited);
			if (limited) {
				*why = sl_arena_printf(B->a, "--set %s: key pattern '%s' passes PCRE2's match limit",
						       sl_term_safe(B->a, s), sl_term_safe(B->a, limited->pattern));
				return -SL_EUSAGE;
			}
			if (!rule) {
				*why = sl_arena_printf(B->a,
						       "--set %s: \"%s\" is neither a role nor a key sweeplint maps to one",
						       s, key);
				return -SL_EUSAGE;
			}
			role = (int)rule->role;
		}
		if (superseded[i] && role != SL_ROLE_DEEPSPEED)
			continue; /* a later --set of this key wins */
		struct sl_value typed = sl_scalar_resolve(B->res, val, strlen(val), true, NULL, NULL);
		struct sl_eval_value tmp = {0};
		fill_value(B, &tmp, (enum sl_role)role, rule, NULL, val, &typed);
		if (!tmp.ok) {
			*why = sl_arena_printf(B->a, "--set %s: %s", s, tmp.why);
			return -SL_EUSAGE;
		}
		if (role == SL_ROLE_DEEPSPEED) {
			expand_deepspeed(B, tmp.rv->s, NULL);
			continue;
		}
		struct sl_eval_axis *ax = new_axis(B, SL_AXIS_SET, key, (enum sl_role)role, rule, NULL, 1);
		ax->values[0] = tmp;
		ax->n = 1;
		note_rule(B, key, "--set", rule, role, val);
	}
	return 0;
}

/* ---- one combination ------------------------------------------------------------------ */

bool sl_eval_settings(const struct sl_eval *ev, const uint32_t *idx, struct sl_settings *s,
		      const struct sl_model **model)
{
	sl_settings_default(s);
	s->mode = ev->mode;
	if (ev->num_gpus)
		s->num_gpus = ev->num_gpus;
	const struct sl_model *m = NULL;
	bool task_set = false, quant_set = false, seq_set = false, prec_set = false, known = true;
	bool bf16 = ev->gpu ? ev->gpu->bf16 : true;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		const struct sl_eval_value *v = &ax->values[ax->n == 1 ? 0 : idx[i]];
		if (sl_role_is_shape(ax->role))
			continue; /* the shape went into the model (add_shape_model); never a setting */
		if (!v->ok) {
			known = false;
			continue;
		}
		if (ax->role == SL_ROLE_MODEL) {
			m = v->model;
			continue;
		}
		for (size_t k = 0; k < v->nrv; k++) {
			if (v->rv[k].role == SL_ROLE_TASK)
				task_set = true;
			if (v->rv[k].role == SL_ROLE_QUANT)
				quant_set = true;
			seq_set |= v->rv[k].role == SL_ROLE_SEQ_LEN;
			prec_set |= v->rv[k].role == SL_ROLE_DTYPE || v->rv[k].role == SL_ROLE_AMP ||
				    v->rv[k].role == SL_ROLE_QUANT;
			sl_settings_apply(s, &v->rv[k], bf16);
		}
	}
	if (m && !task_set)
		s->task = m->task;
	if (m && !quant_set && m->quant != SL_QUANT_NONE)
		s->quant = m->quant; /* the id names it (-bnb-4bit): a setting unless the sweep sets one */
	/*
	 * generation with no precision stated: the weights load in the checkpoint's dtype (transformers >= 5
	 * loads torch_dtype "auto"; decoder checkpoints are 16-bit): bf16 where the GPU has it, else fp16
	 */
	if (s->mode == SL_MODE_GENERATE && !prec_set)
		s->dtype = bf16 ? SL_DTYPE_BF16 : SL_DTYPE_FP16;
	/* no length stated: a model that bounds its input below the default runs at its maximum */
	if (!seq_set && sl_eval_model_length(m))
		s->seq_len = sl_eval_model_length(m);
	*model = m;
	return known && m != NULL;
}

enum sl_verdict sl_eval_classify(const struct sl_eval *ev, uint64_t total)
{
	if (total > ev->capacity)
		return SL_VERDICT_OOM;
	if (total > ev->plan)
		return SL_VERDICT_NEAR;
	return SL_VERDICT_FIT;
}

bool sl_eval_estimate(const struct sl_eval *ev, const uint32_t *idx, struct sl_breakdown *bd)
{
	struct sl_settings s;
	const struct sl_model *m;
	if (!sl_eval_settings(ev, idx, &s, &m))
		return false;
	sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, bd);
	return true;
}

static uint64_t cell_index(const struct sl_eval *ev, const uint32_t *idx)
{
	uint64_t c = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		c += idx[i] * ev->axes[i].cell_stride;
	return c;
}

enum sl_verdict sl_eval_verdict(const struct sl_eval *ev, const uint32_t *idx)
{
	if (!ev->cells)
		return SL_VERDICT_UNKNOWN;
	return (enum sl_verdict)(ev->cells[cell_index(ev, idx)] >> 14);
}

uint16_t sl_eval_cell(const struct sl_eval *ev, const uint32_t *idx)
{
	return ev->cells[cell_index(ev, idx)];
}

bool sl_eval_next(const struct sl_eval *ev, uint32_t *idx)
{
	for (size_t i = ev->naxes; i-- > 0;) {
		if (++idx[i] < ev->axes[i].n)
			return true;
		idx[i] = 0;
	}
	return false;
}

uint32_t *sl_eval_combo(struct sl_arena *a, const struct sl_eval *ev, size_t axis, uint32_t value)
{
	uint32_t *idx = sl_arena_array(a, ev->naxes ? ev->naxes : 1, sizeof *idx);
	if (axis < ev->naxes)
		idx[axis] = value;
	return idx;
}

/* sl_count_add of y, k times over (saturating the same way). */
static struct sl_count count_times(struct sl_count y, uint64_t k)
{
	if (k == 0)
		return (struct sl_count){0};
	struct sl_count r = {.infinite = y.infinite, .saturated = y.saturated};
	if (__builtin_mul_overflow(y.value, k, &r.value)) {
		r.value = UINT64_MAX;
		r.saturated = true;
	}
	return r;
}

/* The product of the axes' value counts, saturating at UINT64_MAX (64 two-valued axes overflow 64 bits). */
static uint64_t axes_product(const struct sl_eval *ev)
{
	uint64_t prod = 1;
	for (size_t i = 0; i < ev->naxes; i++)
		if (__builtin_mul_overflow(prod, (uint64_t)ev->axes[i].n, &prod))
			return UINT64_MAX;
	return prod;
}

/* The combinations this sweep's axes may make (SL_EVAL_MAX_WORK / axes, clamped). */
static uint64_t eval_bound(const struct sl_eval *ev)
{
	uint64_t axes = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		axes += ev->axes[i].n > 1;
	uint64_t bound = SL_EVAL_MAX_WORK / (axes ? axes : 1);
	return bound < SL_EVAL_MIN_COMBOS ? SL_EVAL_MIN_COMBOS : bound > SL_EVAL_MAX_COMBOS ? SL_EVAL_MAX_COMBOS : bound;
}

/*
 * Cut the largest numeric axes to their bounds until the product fits the
 * bound. When only two-valued axes are left and the product still does not
 * fit (many memory-relevant parameters), nothing is evaluated: too_many is
 * set and every combination stays unknown (rule too-many-combinations).
 */
static void limit_axes(struct builder *B, uint64_t limit)
{
	struct sl_eval *ev = B->ev;
	for (;;) {
		uint64_t prod = axes_product(ev);
		if (prod <= limit)
			return;
		struct sl_eval_axis *big = NULL;
		for (size_t i = 0; i < ev->naxes; i++)
			if (ev->axes[i].n > 2 && (!big || ev->axes[i].n > big->n))
				big = &ev->axes[i];
		if (!big) {
			ev->too_many = true;
			ev->limit = limit;
			ev->ncombos = prod;
			return;
		}
		/* keep the smallest and largest value of a numeric axis; for others, the first and last */
		size_t lo = 0, hi = 0;
		for (size_t j = 0; j < big->n; j++) {
			if (!big->values[j].ok)
				continue;
			if (big->values[j].rv->u < big->values[lo].rv->u)
				lo = j;
			if (big->values[j].rv->u > big->values[hi].rv->u)
				hi = j;
		}
		if (lo == hi)
			hi = big->n - 1;
		struct sl_eval_value keep[2] = {big->values[lo], big->values[hi]};
		big->range = (struct sl_count){.value = big->n};
		big->values[0] = keep[0];
		big->values[1] = keep[1];
		big->n = 2;
		big->bounds = true;
		ev->truncated = true;
		note(B, big->key, "evaluation", (int)big->role,
		     sl_arena_printf(B->a, "too many combinations: %s values cut to their bounds",
				     sl_count_str(B->a, big->range)));
	}
}

/* ---- the product of the axes ---------------------------------------------------------- */

static uint16_t cell_of(const struct sl_eval *ev, enum sl_verdict vd, uint64_t total)
{
	uint64_t q = 0x3FFF;
	if (ev->capacity && total / ev->capacity < 16)
		q = (uint64_t)((double)total * 1024.0 / (double)ev->capacity);
	if (q > 0x3FFF)
		q = 0x3FFF;
	return (uint16_t)((unsigned)vd << 14 | (unsigned)q);
}

/*
 * The enumeration. A combination's settings are the fold of its axes'
 * role values in application order (sl_eval_settings). Batch size, sequence
 * length and target length are plain overwrites that read nothing, and no
 * other role reads them, so they commute with everything else: the
 * settings are those of the other ("static") axes with the three fields
 * taken from the last axis that sets each. The combinations are therefore
 * visited static axes outermost, then the axes deciding the lengths, then
 * the rest: the estimator's plan (sl_estimate_prepare) is made once per
 * static combination, its per-length terms once per length, and each
 * combination costs only its batch terms. Results do not depend on the
 * order: cells are indexed, and "the first worst" ties are broken by the
 * combination index, as the original order (last axis fastest) would.
 * tests/unit/test_fastpath.c compares every result with sl_eval_estimate.
 */
enum { F_BATCH, F_SEQ, F_TARGET, F__COUNT };

static int field_of(enum sl_role r)
{
	switch (r) {
	case SL_ROLE_BATCH_SIZE:
		return F_BATCH;
	case SL_ROLE_SEQ_LEN:
		return F_SEQ;
	case SL_ROLE_TARGET_LEN:
		return F_TARGET;
	default:
		return -1;
	}
}

/* The value a field takes from one axis value: its last role value for it; false when it has none. */
static bool value_field(const struct sl_eval_value *v, int f, uint64_t *u)
{
	bool has = false;
	for (size_t k = 0; k < v->nrv; k++)
		if (field_of(v->rv[k].role) == f) {
			*u = v->rv[k].u;
			has = true;
		}
	return has;
}

struct order {
	size_t *axis;            /* axes in visiting order (held axes are not visited) */
	size_t nvisit;           /* axes visited */
	size_t nstatic;          /* axis[0..nstatic) are static */
	size_t field_axis[F__COUNT]; /* the axis deciding each field, or SIZE_MAX */
	uint64_t *field_u[F__COUNT]; /* its value per value index */
};

/* The visiting order; false when some axis decides a field in only some of its values (then: in axis order). */
static bool plan_order(struct builder *B, struct order *O)
{
	struct sl_eval *ev = B->ev;
	size_t n = ev->naxes;
	O->axis = sl_arena_array(B->a, n ? n : 1, sizeof *O->axis);
	bool *dyn = sl_arena_array(B->a, n ? n : 1, sizeof *dyn);
	bool *len = sl_arena_array(B->a, n ? n : 1, sizeof *len);
	for (int f = 0; f < F__COUNT; f++) {
		O->field_axis[f] = SIZE_MAX;
		for (size_t i = n; i-- > 0 && O->field_axis[f] == SIZE_MAX;) {
			const struct sl_eval_axis *ax = &ev->axes[i];
			size_t with = 0, ok = 0;
			uint64_t u;
			for (size_t j = 0; j < ax->n; j++) {
				ok += ax->values[j].ok;
				with += ax->values[j].ok && value_field(&ax->values[j], f, &u);
			}
			if (with == 0)
				continue;
			if (with != ok)
				return false;
			O->field_axis[f] = i;
			O->field_u[f] = sl_arena_array(B->a, ax->n, sizeof *O->field_u[f]);
			for (size_t j = 0; j < ax->n; j++)
				if (ax->values[j].ok)
					value_field(&ax->values[j], f, &O->field_u[f][j]);
			if (f != F_BATCH)
				len[i] = true;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		dyn[i] = ax->n > 1 && ax->role != SL_ROLE_MODEL;
		for (size_t j = 0; j < ax->n && dyn[i]; j++)
			for (size_t k = 0; ax->values[j].ok && k < ax->values[j].nrv; k++)
				if (field_of(ax->values[j].rv[k].role) < 0)
					dyn[i] = false;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!dyn[i] && ev->axes[i].cell_stride)
			O->axis[k++] = i;
	O->nstatic = k;
	for (size_t i = 0; i < n; i++)
		if (dyn[i] && len[i] && ev->axes[i].cell_stride)
			O->axis[k++] = i;
	for (size_t i = 0; i < n; i++)
		if (dyn[i] && !len[i] && ev->axes[i].cell_stride)
			O->axis[k++] = i;
	O->nvisit = k;
	return true;
}

/* Per-value results while enumerating: the first worst by combination index. */
struct vstat {
	uint64_t worst, best;
	uint64_t worst_c;        /* UINT64_MAX: no known combination yet */
	uint64_t u[SL_VERDICT__COUNT];
};

static void note_value(struct vstat *st, uint64_t total, uint64_t c)
{
	if (total < st->best)
		st->best = total;
	if (st->worst_c == UINT64_MAX || total > st->worst || (total == st->worst && c < st->worst_c)) {
		st->worst = total;
		st->worst_c = c;
	}
}

/* Fold the results of a block of combinations into st. */
static void merge_stat(struct vstat *st, const struct vstat *blk)
{
	if (blk->worst_c != UINT64_MAX) {
		note_value(st, blk->worst, blk->worst_c);
		if (blk->best < st->best)
			st->best = blk->best;
	}
	for (int v = 0; v < SL_VERDICT__COUNT; v++)
		st->u[v] += blk->u[v];
}

/* The combination of cell c (held axes at their first value). */
static void decode_combo(const struct sl_eval *ev, uint64_t c, uint32_t *idx)
{
	for (size_t i = 0; i < ev->naxes; i++) {
		uint64_t st = ev->axes[i].cell_stride;
		idx[i] = st ? (uint32_t)(c / st) : 0;
		if (st)
			c %= st;
	}
}

/* Fold the results of one static combination (block) into its static values and the total; reset it. */
static void flush_block(const struct order *O, const size_t *first, const uint32_t *idx, struct vstat *vs,
			struct vstat *all, struct vstat *blk)
{
	for (size_t k = 0; k < O->nstatic; k++)
		merge_stat(&vs[first[O->axis[k]] + idx[O->axis[k]]], blk);
	merge_stat(all, blk);
	*blk = (struct vstat){.best = UINT64_MAX, .worst_c = UINT64_MAX};
}

/* The static part of a combination: its settings, model and whether its static values are known. */
static bool static_settings(const struct sl_eval *ev, const struct order *O, const uint32_t *idx,
			    struct sl_settings *s, const struct sl_model **m)
{
	sl_eval_settings(ev, idx, s, m);
	bool known = *m != NULL;
	for (size_t k = 0; k < O->nstatic; k++) {
		const struct sl_eval_axis *ax = &ev->axes[O->axis[k]];
		known &= ax->values[ax->n == 1 ? 0 : idx[O->axis[k]]].ok;
	}
	return known;
}

/* Settings fields the estimator does not read, cleared to compare plans. */
static void plan_key(struct sl_settings *k)
{
	k->batch_size = k->seq_len = k->target_len = 0;
	k->eval_batch_size = 0;
	k->num_workers = 0;
	k->pin_memory = false;
}

/*
 * Hold the axes the peak does not read (walk.c: the DataLoader's workers and
 * pinning, a training sweep's eval batch) when no axis is cut to its bounds
 * (their corners are counted as blocks, tally): their values share one cell
 * per combination of the other axes, which are all that is estimated. Sets
 * every axis's stride and cell stride, ncombos and ncells.
 */
static void hold_axes(struct builder *B)
{
	struct sl_eval *ev = B->ev;
	size_t n = ev->naxes;
	bool bounds = false;
	for (size_t i = 0; i < n; i++)
		bounds |= ev->axes[i].bounds;
	struct sl_eval_walk w;
	sl_eval_walk_init(B->a, ev, bounds || B->o->exhaustive ? 0 : sl_eval_unread_roles(ev, SL_MEASURE_STEP), &w);
	uint64_t stride = 1, cell = 1;
	for (size_t i = n; i-- > 0;) {
		struct sl_eval_axis *ax = &ev->axes[i];
		ax->stride = stride;
		stride *= ax->n;
		ax->cell_stride = w.steps[i] ? cell : 0;
		if (w.steps[i])
			cell *= ax->n;
	}
	ev->ncombos = stride;
	ev->ncells = cell;
}

static void enumerate(struct builder *B)
{
	struct sl_eval *ev = B->ev;
	struct sl_arena *a = B->a;
	size_t n = ev->naxes;
	hold_axes(B);
	ev->cells = malloc(ev->ncells * sizeof *ev->cells);
	if (!ev->cells)
		sl_oom();
	sl_arena_defer(a, free, ev->cells);
	ev->worst_combo = sl_arena_array(a, n ? n : 1, sizeof *ev->worst_combo);

	struct order O;
	bool fast = plan_order(B, &O);
	if (!fast) {
		/* some axis sets a length or the batch in only some of its values: the axes in order */
		O.nvisit = 0;
		for (size_t i = 0; i < n; i++)
			if (ev->axes[i].cell_stride)
				O.axis[O.nvisit++] = i;
		O.nstatic = O.nvisit;
	}
	size_t nv = O.nvisit;
	/* per-value statistics, flattened */
	size_t *first = sl_arena_array(a, n ? n : 1, sizeof *first);
	size_t nvalues = 0;
	for (size_t i = 0; i < n; i++) {
		first[i] = nvalues;
		nvalues += ev->axes[i].n;
	}
	struct vstat *vs = malloc((nvalues ? nvalues : 1) * sizeof *vs);
	if (!vs)
		sl_oom();
	for (size_t i = 0; i < nvalues; i++)
		vs[i] = (struct vstat){.best = UINT64_MAX, .worst_c = UINT64_MAX};
	struct vstat all = {.best = UINT64_MAX, .worst_c = UINT64_MAX};
	struct vstat blk = all;      /* the current static combination's results */

	uint32_t *idx = sl_arena_array(a, n ? n : 1, sizeof *idx);
	struct sl_estimate_plan *plan = sl_estimate_plan_new(a);
	struct sl_settings s, key, plan_s;
	const struct sl_model *m = NULL, *plan_m = NULL;
	bool have_plan = false, static_known = false;
	size_t bad_dyn = 0;          /* dynamic axes at a value that is not ok */
	for (size_t k = O.nstatic; k < nv; k++)
		bad_dyn += !ev->axes[O.axis[k]].values[0].ok;
	size_t changed = 0;          /* axes O.axis[changed..] moved since the last combination */
	uint64_t c = 0;
	for (;;) {
		if (changed < O.nstatic) {
			static_known = static_settings(ev, &O, idx, &s, &m);
			if (static_known && fast) {
				memcpy(&key, &s, sizeof key);
				plan_key(&key);
				if (!have_plan || m != plan_m || memcmp(&key, &plan_s, sizeof key) != 0) {
					sl_estimate_prepare(plan, &m->arch, &s, ev->gpu, &ev->cat->calib);
					memcpy(&plan_s, &key, sizeof key);
					plan_m = m;
					have_plan = true;
				}
			}
		}
		uint64_t total = 0;
		bool known = static_known && bad_dyn == 0;
		if (known) {
			struct sl_breakdown bd;
			if (fast) {
				for (int f = 0; f < F__COUNT; f++)
					if (O.field_axis[f] != SIZE_MAX) {
						uint64_t u = O.field_u[f][idx[O.field_axis[f]]];
						if (f == F_BATCH)
							s.batch_size = u;
						else if (f == F_SEQ)
							s.seq_len = u;
						else
							s.target_len = u;
					}
				sl_estimate_at(plan, &s, &bd);
			} else {
				sl_estimate(&m->arch, &s, ev->gpu, &ev->cat->calib, &bd);
			}
			total = bd.total;
			ev->evaluated++;
		}
		enum sl_verdict vd = known ? sl_eval_classify(ev, total) : SL_VERDICT_UNKNOWN;
		ev->cells[c] = cell_of(ev, vd, total);
		/* the static axes' values are those of the whole block: their results are the block's */
		blk.u[vd]++;
		if (known)
			note_value(&blk, total, c);
		for (size_t k = O.nstatic; k < nv; k++) {
			struct vstat *st = &vs[first[O.axis[k]] + idx[O.axis[k]]];
			st->u[vd]++;
			if (known)
				note_value(st, total, c);
		}
		/* the next combination: O.axis[nv-1] fastest */
		size_t k = nv;
		while (k-- > 0) {
			size_t i = O.axis[k];
			if (k + 1 == O.nstatic) { /* the block ends */
				flush_block(&O, first, idx, vs, &all, &blk);
			}
			const struct sl_eval_axis *ax = &ev->axes[i];
			bool was_bad = !ax->values[idx[i]].ok;
			if (++idx[i] < ax->n) {
				c += ax->cell_stride;
			} else {
				c -= (uint64_t)(ax->n - 1) * ax->cell_stride;
				idx[i] = 0;
			}
			if (k >= O.nstatic)
				bad_dyn += (size_t)!ax->values[idx[i]].ok - (size_t)was_bad;
			if (idx[i] != 0)
				break;
		}
		if (k == SIZE_MAX)
			break;
		changed = k;
	}
	if (O.nstatic == 0) /* one block, never ended by a static axis */
		flush_block(&O, first, idx, vs, &all, &blk);
	/*
	 * Each cell stands for `held` combinations, one per value of the held
	 * axes. A held axis's value takes part in held / n of them in every
	 * cell: its results are those of all the cells. The first worst
	 * combination holds every held axis at its first value (the cells are
	 * visited in combination order with those at 0), or at the value itself.
	 */
	uint64_t held = ev->ncombos / ev->ncells;
	for (int v = 0; v < SL_VERDICT__COUNT; v++)
		ev->u[v] = all.u[v] * held;

	if (all.worst_c != UINT64_MAX) {
		ev->worst = all.worst;
		decode_combo(ev, all.worst_c, ev->worst_combo);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ev->axes[i].n; j++) {
			struct sl_eval_axis *ax = &ev->axes[i];
			struct sl_eval_value *v = &ax->values[j];
			const struct vstat *st = ax->cell_stride ? &vs[first[i] + j] : &all;
			uint64_t times = ax->cell_stride ? held : held / ax->n;
			v->best = st->best;
			for (int vd = 0; vd < SL_VERDICT__COUNT; vd++)
				v->u[vd] = st->u[vd] * times;
			if (st->worst_c == UINT64_MAX)
				continue;
			v->worst = st->worst;
			v->worst_combo = sl_arena_array(a, n, sizeof *v->worst_combo);
			decode_combo(ev, st->worst_c, v->worst_combo);
			v->worst_combo[i] = (uint32_t)j;
		}
	free(vs);
}

/* Blame order: the value a user changes first to make a run fit. */
static int blame_rank(enum sl_role r)
{
	static const enum sl_role order[] = {
		SL_ROLE_BATCH_SIZE, SL_ROLE_SEQ_LEN, SL_ROLE_TARGET_LEN, SL_ROLE_GRADIENT_CHECKPOINTING, SL_ROLE_MODEL,
		SL_ROLE_MINI_BATCH_SIZE, SL_ROLE_TEXTS_PER_EXAMPLE, SL_ROLE_AMP, SL_ROLE_DTYPE, SL_ROLE_ATTN,
		SL_ROLE_OPTIMIZER, SL_ROLE_LORA_R, SL_ROLE_LORA_TARGETS, SL_ROLE_QUANT, SL_ROLE_ZERO_STAGE,
		SL_ROLE_OFFLOAD, SL_ROLE_NUM_GPUS, SL_ROLE_TASK,
	};
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if (order[i] == r)
			return (int)i;
	return (int)(sizeof order / sizeof order[0]);
}

struct tally {
	struct sl_eval *ev;
	struct sl_arena *a;
	uint64_t held;          /* combinations per cell (hold_axes) */
	uint32_t *scratch;      /* a combination, for the held axes' values */
	size_t *order;          /* axes by blame rank */
	size_t *bounds;         /* axes evaluated at their bounds */
	size_t nbounds;
	struct sl_count block;  /* weight of one block of bound corners */
	struct sl_count *share; /* per bound axis: the block's combinations at one of its values */
	uint32_t *corner;       /* a corner of the block being counted */
	enum sl_verdict *cv;    /* the verdicts of its 2^nbounds corners */
};

/* The axis and value an OOM (vd) combination is attributed to; *hopeless when no single change fixes it. */
static size_t blame(const struct tally *T, const uint32_t *idx, uint64_t c, enum sl_verdict vd, bool *hopeless)
{
	const struct sl_eval *ev = T->ev;
	*hopeless = false;
	for (size_t k = 0; k < ev->naxes; k++) {
		const struct sl_eval_axis *ax = &ev->axes[T->order[k]];
		if (ax->n < 2)
			continue;
		uint64_t base = c - idx[T->order[k]] * ax->cell_stride;
		for (uint32_t j = 0; j < ax->n; j++) {
			if (j == idx[T->order[k]])
				continue;
			enum sl_verdict w = (enum sl_verdict)(ev->cells[base + j * ax->cell_stride] >> 14);
			if (w != SL_VERDICT_UNKNOWN && w < vd)
				return T->order[k];
		}
	}
	*hopeless = true;
	/* the model when it has a place in a file, else the first value that has one */
	for (size_t i = ev->naxes; i-- > 0;)
		if (ev->axes[i].role == SL_ROLE_MODEL && ev->axes[i].values[idx[i]].node)
			return i;
	for (size_t k = 0; k < ev->naxes; k++)
		if (ev->axes[T->order[k]].values[idx[T->order[k]]].node)
			return T->order[k];
	return ev->naxes ? T->order[0] : SIZE_MAX;
}

/* The index of a combination among all of them (sl_eval_next's order). */
static uint64_t combo_index(const struct sl_eval *ev, const uint32_t *idx)
{
	uint64_t c = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		c += idx[i] * ev->axes[i].stride;
	return c;
}

/* weight combinations like idx (peak step q) blamed on axis k: counted, and the largest first one kept. */
static void attribute(struct tally *T, const uint32_t *idx, size_t k, bool hopeless, uint16_t q, enum sl_verdict vd,
		      uint64_t weight)
{
	struct sl_eval *ev = T->ev;
	struct sl_eval_value *v = &ev->axes[k].values[idx[k]];
	v->blamed[vd] += weight;
	v->hopeless |= hopeless;
	/* with held axes the combinations are not visited in order: ties go to the first */
	if (!v->blame_combo[vd] || q > v->blame_q[vd] ||
	    (T->held > 1 && q == v->blame_q[vd] && combo_index(ev, idx) < combo_index(ev, v->blame_combo[vd]))) {
		if (!v->blame_combo[vd])
			v->blame_combo[vd] = sl_arena_array(T->a, ev->naxes, sizeof *idx);
		memcpy(v->blame_combo[vd], idx, ev->naxes * sizeof *idx);
		v->blame_q[vd] = q;
	}
}

/* The next value of the held axes (last fastest); false after the last. */
static bool next_held(const struct sl_eval *ev, uint32_t *idx)
{
	for (size_t i = ev->naxes; i-- > 0;) {
		if (ev->axes[i].cell_stride)
			continue;
		if (++idx[i] < ev->axes[i].n)
			return true;
		idx[i] = 0;
	}
	return false;
}

/*
 * Blame the combinations of cell c (idx: held axes at their first value).
 * A change that fixes them is on an axis that is not held (held values
 * share the cell), the same for all of them; when none does, the fallback
 * reads where the values are written, so each held combination is blamed
 * on its own.
 */
static void blame_one(struct tally *T, const uint32_t *idx, uint64_t c, enum sl_verdict vd)
{
	struct sl_eval *ev = T->ev;
	bool hopeless;
	size_t k = blame(T, idx, c, vd, &hopeless);
	if (k == SIZE_MAX)
		return;
	uint16_t q = ev->cells[c] & 0x3FFF;
	if (!hopeless || T->held == 1) {
		attribute(T, idx, k, hopeless, q, vd, T->held);
		return;
	}
	memcpy(T->scratch, idx, ev->naxes * sizeof *idx);
	do {
		k = blame(T, T->scratch, c, vd, &hopeless);
		attribute(T, T->scratch, k, hopeless, q, vd, 1);
	} while (next_held(ev, T->scratch));
}

/* x less y, where y is a part of x (an infinite or saturated x stays as it is). */
static struct sl_count count_less(struct sl_count x, struct sl_count y)
{
	if (x.infinite || x.saturated)
		return x;
	if (y.infinite || y.saturated || y.value >= x.value)
		return (struct sl_count){0};
	return (struct sl_count){.value = x.value - y.value};
}

/*
 * Spread a region of a block over the verdicts: whole, the combinations the
 * region stands for; corner m is in it when bit is SIZE_MAX (all) or its bit
 * equals side. When the block's corners agree, the whole region takes their
 * verdict; otherwise each corner in it counts its own (one combination of the
 * bound values times `one`) and the rest of the region is unknown.
 */
static void spread(struct sl_count *n, struct sl_count whole, struct sl_count one, const enum sl_verdict *cv,
		   size_t ncorner, bool agree, size_t bit, unsigned side)
{
	if (agree) {
		n[cv[0]] = sl_count_add(n[cv[0]], whole);
		return;
	}
	struct sl_count known = {0};
	for (size_t m = 0; m < ncorner; m++) {
		if (bit != SIZE_MAX && (m >> bit & 1) != side)
			continue;
		n[cv[m]] = sl_count_add(n[cv[m]], one);
		known = sl_count_add(known, one);
	}
	n[SL_VERDICT_UNKNOWN] = sl_count_add(n[SL_VERDICT_UNKNOWN], count_less(whole, known));
}

/*
 * The counts of one block: the bound axes' ranges at the other axes' values
 * (idx, its base corner). The summary, the values of the other axes (the
 * whole block) and each bound value (its share: the block with that axis at
 * that value) read the same set, so a finding's count and the summary agree.
 */
static void tally_block(struct tally *T, const uint32_t *idx)
{
	struct sl_eval *ev = T->ev;
	size_t n = ev->naxes, ncorner = (size_t)1 << T->nbounds;
	memcpy(T->corner, idx, n * sizeof *idx);
	bool agree = true;
	for (size_t m = 0; m < ncorner; m++) {
		for (size_t b = 0; b < T->nbounds; b++)
			T->corner[T->bounds[b]] = (uint32_t)(m >> b & 1);
		T->cv[m] = (enum sl_verdict)(ev->cells[cell_index(ev, T->corner)] >> 14);
		agree &= T->cv[m] == T->cv[0];
	}
	ev->total = sl_count_add(ev->total, T->block);
	spread(ev->n, T->block, ev->others, T->cv, ncorner, agree, SIZE_MAX, 0);
	for (size_t i = 0; i < n; i++)
		if (!ev->axes[i].bounds || ev->axes[i].n != 2)
			spread(ev->axes[i].values[idx[i]].n, T->block, ev->others, T->cv, ncorner, agree, SIZE_MAX, 0);
	for (size_t b = 0; b < T->nbounds; b++)
		for (unsigned s = 0; s < 2; s++)
			spread(ev->axes[T->bounds[b]].values[s].n, T->share[b], ev->others, T->cv, ncorner, agree, b, s);
}

/*
 * Counts and blame in one pass over the stored verdicts. Without bounds
 * every combination weighs `others`. Axes evaluated at their bounds group
 * their corners into blocks: a block whose corners agree takes their
 * verdict for all the values between (memory is monotone along a numeric
 * axis); in one whose corners disagree only the corners themselves (the
 * combinations evaluated) are known and the rest is unknown (tally_block).
 */
static void tally(struct builder *B)
{
	struct sl_eval *ev = B->ev;
	size_t n = ev->naxes;
	struct tally T = {.ev = ev, .a = B->a, .held = ev->ncombos / ev->ncells,
			  .scratch = sl_arena_array(B->a, n ? n : 1, sizeof(uint32_t))};
	T.order = sl_arena_array(B->a, n ? n : 1, sizeof *T.order);
	T.bounds = sl_arena_array(B->a, n ? n : 1, sizeof *T.bounds);
	for (size_t i = 0; i < n; i++)
		T.order[i] = i;
	for (size_t i = 1; i < n; i++) /* stable insertion sort by rank */
		for (size_t j = i; j > 0 && blame_rank(ev->axes[T.order[j]].role) < blame_rank(ev->axes[T.order[j - 1]].role); j--) {
			size_t t = T.order[j];
			T.order[j] = T.order[j - 1];
			T.order[j - 1] = t;
		}
	T.block = ev->others;
	for (size_t i = 0; i < n; i++)
		if (ev->axes[i].bounds && ev->axes[i].n == 2) {
			T.bounds[T.nbounds++] = i;
			T.block = sl_count_mul(T.block, ev->axes[i].range);
		}

	uint32_t *idx = sl_arena_array(B->a, n ? n : 1, sizeof *idx);
	if (T.nbounds == 0) {
		/* every combination weighs one block: the weighted counts are the plain ones (enumerate's) times it */
		for (int vd = 0; vd < SL_VERDICT__COUNT; vd++) {
			ev->n[vd] = count_times(T.block, ev->u[vd]);
			for (size_t i = 0; i < n; i++)
				for (size_t j = 0; j < ev->axes[i].n; j++)
					ev->axes[i].values[j].n[vd] = count_times(T.block, ev->axes[i].values[j].u[vd]);
		}
		ev->total = count_times(T.block, ev->ncombos);
		/* blame, cell by cell in combination order (held axes at 0): only what does not fit the headroom */
		for (uint64_t c = 0; c < ev->ncells; c++) {
			enum sl_verdict vd = (enum sl_verdict)(ev->cells[c] >> 14);
			if (vd == SL_VERDICT_OOM || vd == SL_VERDICT_NEAR)
				blame_one(&T, idx, c, vd);
			for (size_t i = n; i-- > 0;) {
				if (!ev->axes[i].cell_stride)
					continue;
				if (++idx[i] < ev->axes[i].n)
					break;
				idx[i] = 0;
			}
		}
		return;
	}
	T.corner = sl_arena_array(B->a, n ? n : 1, sizeof *T.corner);
	T.cv = sl_arena_array(B->a, (size_t)1 << T.nbounds, sizeof *T.cv);
	T.share = sl_arena_array(B->a, T.nbounds, sizeof *T.share);
	for (size_t b = 0; b < T.nbounds; b++) {
		T.share[b] = ev->others;
		for (size_t o = 0; o < T.nbounds; o++)
			if (o != b)
				T.share[b] = sl_count_mul(T.share[b], ev->axes[T.bounds[o]].range);
	}
	uint64_t c = 0;
	do {
		enum sl_verdict vd = (enum sl_verdict)(ev->cells[c] >> 14);
		if (vd == SL_VERDICT_OOM || vd == SL_VERDICT_NEAR)
			blame_one(&T, idx, c, vd);
		/* weighted counts: once per block, at its base corner */
		bool base = true;
		for (size_t b = 0; b < T.nbounds; b++)
			base &= idx[T.bounds[b]] == 0;
		if (base)
			tally_block(&T, idx);
		c++;
	} while (sl_eval_next(ev, idx));
}


/*
 * No key sets the model but the sweep (or its configs) gives a from-scratch
 * shape: layers, hidden_size and heads, one value each (and maybe ffn_size,
 * vocab_size, head_dim; seq_len sizes the position table). That shape is the
 * model (sl_model_from_hparams), as a one-value model axis at the layers key.
 * A swept or unreadable shape is left alone: the model stays unknown.
 */
/*
 * The shape axes are read by add_shape_model only: afterwards they leave the
 * memory axes and count as W&B counts any other parameter (so a sweep over
 * `dim` beside a named model costs no estimates).
 */
static void drop_shape_axes(struct sl_eval *ev)
{
	size_t k = 0;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (!sl_role_is_shape(ax->role)) {
			ev->axes[k++] = *ax;
			continue;
		}
		if (ax->origin == SL_AXIS_SWEEP && ax->n > 0)
			ev->others = sl_count_mul(ev->others, ax->bounds ? ax->range : (struct sl_count){.value = ax->n});
	}
	ev->naxes = k;
}

static void add_shape_model(struct builder *B)
{
	struct sl_eval *ev = B->ev;
	if (ev->has_model)
		return;
	int at[SL_ROLE__COUNT];
	for (size_t r = 0; r < SL_ROLE__COUNT; r++)
		at[r] = -1;
	for (size_t i = 0; i < ev->naxes; i++) /* a later axis overrides an earlier one */
		if (sl_role_is_shape(ev->axes[i].role) || ev->axes[i].role == SL_ROLE_SEQ_LEN)
			at[ev->axes[i].role] = (int)i;
	if (at[SL_ROLE_LAYERS] < 0 || at[SL_ROLE_HIDDEN_SIZE] < 0 || at[SL_ROLE_HEADS] < 0)
		return;
	static const enum sl_role shape[] = {SL_ROLE_LAYERS, SL_ROLE_HIDDEN_SIZE, SL_ROLE_HEADS, SL_ROLE_FFN_SIZE,
					     SL_ROLE_VOCAB_SIZE, SL_ROLE_HEAD_DIM};
	struct sl_hparams hp = {0};
	uint32_t *dst[] = {&hp.layers, &hp.hidden, &hp.heads, &hp.ffn, &hp.vocab, &hp.head_dim};
	struct sl_buf keys;
	sl_buf_init(&keys, B->a);
	for (size_t k = 0; k < sizeof shape / sizeof shape[0]; k++) {
		if (at[shape[k]] < 0)
			continue;
		const struct sl_eval_axis *ax = &ev->axes[at[shape[k]]];
		if (ax->n != 1 || !ax->values[0].ok) {
			note(B, ax->key, sl_axis_origin_name(ax->origin), (int)ax->role,
			     ax->n != 1 ? "a swept shape: no model is built from it (the model stays unknown)"
					: "an unreadable shape value: no model is built from it");
			return;
		}
		*dst[k] = (uint32_t)ax->values[0].rv->u;
		sl_buf_addf(&keys, "%s%s", k ? ", " : "", ax->key);
	}
	if (at[SL_ROLE_SEQ_LEN] >= 0) { /* the position table holds the longest sequence swept */
		const struct sl_eval_axis *ax = &ev->axes[at[SL_ROLE_SEQ_LEN]];
		for (size_t j = 0; j < ax->n; j++)
			if (ax->values[j].ok && ax->values[j].rv->u > hp.context && ax->values[j].rv->u <= UINT32_MAX)
				hp.context = (uint32_t)ax->values[j].rv->u;
		if (hp.context)
			sl_buf_addf(&keys, ", %s", ax->key);
	}
	const struct sl_eval_axis *L = &ev->axes[at[SL_ROLE_LAYERS]];
	hp.keys = sl_arena_printf(B->a, "%s: %s", sl_axis_origin_name(L->origin), keys.buf);
	const struct sl_model *m = sl_model_from_hparams(B->a, &hp);
	if (!m)
		return;
	/* new_axis may move the axes: copy what the model value borrows first */
	struct sl_eval_value lv = L->values[0];
	enum sl_axis_origin origin = L->origin;
	const char *key = L->key;
	const struct sl_key_rule *rule = L->rule;
	const struct sl_source *src = L->src;
	struct sl_eval_axis *ax = new_axis(B, origin, key, SL_ROLE_MODEL, rule, src, 1);
	struct sl_eval_value *v = &ax->values[ax->n++];
	memset(v, 0, sizeof *v);
	v->node = lv.node;
	v->span = lv.span;
	v->text = m->name;
	v->rv = sl_arena_alloc(B->a, sizeof *v->rv);
	v->rv->role = SL_ROLE_MODEL;
	v->rv->s = m->name;
	v->nrv = 1;
	v->ok = true;
	v->model = m;
	v->best = UINT64_MAX;
}

int sl_eval_run(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_eval_opts *o,
		struct sl_diags *diags, struct sl_eval **out, const char **why)
{
	struct sl_eval *ev = sl_arena_alloc(a, sizeof *ev);
	*out = ev;
	ev->sweep = sw;
	ev->gpu = o->gpu;
	ev->cat = o->cat;
	ev->hub = o->hub;
	ev->num_gpus = o->num_gpus;
	ev->capacity = o->gpu ? o->gpu->bytes : 0;
	double h = o->headroom > 0 && o->headroom <= 1 ? o->headroom : 1.0;
	ev->plan = (uint64_t)((double)ev->capacity * h);
	struct builder B = {.a = a, .ev = ev, .o = o, .diags = diags,
			    .res = o->resolver ? o->resolver : sl_scalar_resolver_new(a)};
	for (size_t i = 0; i < o->nconfigs; i++)
		add_entries_of(&B, o->configs[i]);
	add_command_options(&B, false);
	add_sweep_params(&B);
	add_command_options(&B, true);
	int rc = add_sets(&B, why);
	if (rc < 0)
		return rc;
	mark_overridden(&B); /* before the shape steps: notes hold axis indices */
	add_shape_model(&B);
	drop_shape_axes(ev);
	if (!sl_eval_axis_for(ev, SL_ROLE_MODE)) {
		const char *mwhy = NULL;
		ev->mode = sl_workload_infer(a, sl_workload_new(a, diags), ev, &mwhy);
		note(&B, "mode", "inferred", SL_ROLE_MODE, mwhy);
	}
	/* empty axes (a malformed parameter) contribute nothing */
	size_t k = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		if (ev->axes[i].n)
			ev->axes[k++] = ev->axes[i];
	ev->naxes = k;
	for (size_t i = 0; i < ev->naxes; i++)
		for (size_t j = 0; j < ev->axes[i].n; j++)
			ev->axes[i].values[j].best = UINT64_MAX;
	if (ev->naxes > SL_EVAL_MAX_AXES) {
		/* every value's worst combination holds an index per axis: bounded before it is quadratic */
		ev->too_many = true;
		ev->limit = 0;
		ev->ncombos = axes_product(ev);
		return 0;
	}
	limit_axes(&B, o->max_combos ? o->max_combos : eval_bound(ev));
	if (!ev->cat || !ev->gpu || ev->too_many)
		return 0; /* nothing to estimate against: the caller counts every combination unknown */
	enumerate(&B);
	tally(&B);
	sl_eval_count_assumed(a, ev);
	return 0;
}

/* ---- fixes ---------------------------------------------------------------------------- */

static bool fits(const struct sl_eval *ev, const struct sl_model *m, const struct sl_settings *s, uint64_t limit)
{
	struct sl_breakdown bd;
	sl_estimate(&m->arch, s, ev->gpu, &ev->cat->calib, &bd);
	return bd.total <= limit;
}

bool sl_eval_fix(const struct sl_eval *ev, const uint32_t *idx, uint64_t limit, struct sl_eval_fix *fx)
{
	memset(fx, 0, sizeof *fx);
	struct sl_settings s0;
	const struct sl_model *m;
	if (!sl_eval_settings(ev, idx, &s0, &m))
		return false;
	fx->batch = s0.batch_size;
	fx->accum = s0.grad_accum ? s0.grad_accum : 1;
	/* the largest batch that fits: memory grows with the batch, so bisect [1, batch) */
	if (s0.batch_size > 1) {
		struct sl_settings s = s0;
		s.grad_accum = fx->accum > 1 ? fx->accum : 2; /* a smaller batch accumulates: gradients persist */
		uint64_t lo = 0, hi = s0.batch_size - 1;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo + 1) / 2;
			s.batch_size = mid;
			if (fits(ev, m, &s, limit))
				lo = mid;
			else
				hi = mid - 1;
		}
		fx->batch_fit = lo;
		/* the largest divisor of the effective batch that fits keeps it exactly */
		uint64_t eff = s0.batch_size * fx->accum;
		for (uint64_t b = lo; b >= 1; b--) {
			if (eff % b)
				continue;
			s.batch_size = b;
			s.grad_accum = eff / b;
			if (fits(ev, m, &s, limit)) {
				fx->new_batch = b;
				fx->new_accum = eff / b;
				break;
			}
		}
	}
	if (!s0.gradient_checkpointing) {
		struct sl_settings s = s0;
		s.gradient_checkpointing = true;
		fx->gc_fits = fits(ev, m, &s, limit);
	}
	static const uint32_t gpus[] = {2, 4, 8};
	/* the ZeRO fix does not apply to an FSDP run (the estimate reads FSDP before zero_stage) */
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0] && !fx->zero_gpus && s0.fsdp == SL_FSDP_NONE; g++) {
		if (gpus[g] <= s0.num_gpus && s0.zero_stage >= 3)
			continue;
		for (uint32_t stage = 2; stage <= 3; stage++) {
			struct sl_settings s = s0;
			s.num_gpus = gpus[g] > s0.num_gpus ? gpus[g] : s0.num_gpus;
			s.zero_stage = stage > s0.zero_stage ? stage : s0.zero_stage;
			if (fits(ev, m, &s, limit)) {
				fx->zero_gpus = s.num_gpus;
				fx->zero_stage = s.zero_stage;
				break;
			}
		}
	}
	return true;
}

/* ---- lookups and text ----------------------------------------------------------------- */

const struct sl_eval_axis *sl_eval_axis_for(const struct sl_eval *ev, enum sl_role r)
{
	const struct sl_eval_axis *any = NULL;
	for (size_t i = ev->naxes; i-- > 0;) {
		if (ev->axes[i].role != r)
			continue;
		if (ev->axes[i].origin == SL_AXIS_SWEEP)
			return &ev->axes[i];
		if (!any)
			any = &ev->axes[i];
	}
	return any;
}

const char *sl_eval_value_name(struct sl_arena *a, const struct sl_eval_axis *ax, const struct sl_eval_value *v)
{
	if (ax->role == SL_ROLE_MODEL)
		return v->model ? v->model->name : v->text;
	return sl_arena_printf(a, "%s %s", ax->key, v->text);
}

const char *sl_eval_describe(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx, size_t skip)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->n < 2 || i == skip)
			continue;
		if (b.len)
			sl_buf_adds(&b, " × ");
		sl_buf_adds(&b, sl_eval_value_name(a, ax, &ax->values[idx[i]]));
	}
	return b.len ? b.buf : NULL;
}
