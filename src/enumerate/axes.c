/*
 * axes: a sweep's keys become memory axes. Trainer configs (and DeepSpeed
 * configs they name), the command's options before and after ${args}, the
 * sweep's parameters (a huge or continuous range as its two bounds) and
 * --set, each key given a role by the key map; what overrides what; a model
 * built from a swept shape. Every key read leaves a note (sl_eval_note):
 * where it came from and what it did.
 */
#include "sweeplint/eval.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sweeplint/arena.h"

#include "sweeplint/path.h"
#include "sweeplint/program.h"

#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"
#include "enumerate_internal.h"

#define MAX_AXIS_VALUES 4096 /* a longer integer range on a memory axis is evaluated at its bounds */
/* the values the sweep's integer ranges may add together: past it a range is evaluated at its bounds,
 * as a longer one is (12,400 ranges of up to 4096 values each took 3.2 GB and 17 s before any bound) */
#define MAX_RANGE_VALUES 16384

static void note_rule(struct sl_eval_builder *B, const char *key, const char *where, const struct sl_key_rule *rule,
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

void sl_eval_add_note(struct sl_eval_builder *B, const char *key, const char *where, int role, const char *detail)
{
	note_rule(B, key, where, NULL, role, detail);
}

/* A value read from a config or the command that cannot be used: a note that rules report at its place. */
static void note_rejected(struct sl_eval_builder *B, const char *key, const char *where, const struct sl_key_rule *rule,
			  const struct sl_eval_value *v, const struct sl_source *src)
{
	note_rule(B, key, where, rule, (int)rule->role, v->why);
	struct sl_eval_note *n = &B->ev->notes[B->ev->nnotes - 1];
	n->rejected = v->node;
	n->src = src;
	n->span = v->span;
}

static struct sl_eval_axis *new_axis(struct sl_eval_builder *B, enum sl_axis_origin origin, const char *key,
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
	for (size_t i = 0; src && i < B->o->nguess_srcs; i++)
		ax->guessed |= B->o->guess_srcs[i] == src;
	ax->values = sl_arena_array(B->a, nvalues ? nvalues : 1, sizeof *ax->values);
	ax->n = 0;
	ax->only_axis = -1;
	/* a custom module's layer list is the model (fill_value builds it) */
	if (role == SL_ROLE_MODULES)
		ax->role = SL_ROLE_MODEL;
	if (ax->role == SL_ROLE_MODEL)
		ev->has_model = true;
	return ax;
}

/*
 * The project's models (.sweeplint.yaml models:) first, then sl_model_resolve's order; a local path is
 * read only inside the project root of the file naming it (*refused: the note when it is not).
 */
static const struct sl_model *resolve_model(struct sl_eval_builder *B, const char *name, const char **refused)
{
	const char *alias = NULL;
	const char *root = B->explicit_values ? NULL : B->o->root;
	for (size_t i = 0; i < B->o->nmodel_aliases; i++)
		if (strcasecmp(name, B->o->model_aliases[i].name) == 0) {
			alias = name;
			name = B->o->model_aliases[i].target;
			root = B->o->model_aliases[i].root;
			break;
		}
	struct sl_resolve_opts ro = {.hf_cache = B->o->hf_cache, .base_dir = B->o->base_dir, .root = root,
				     .refused = refused, .hub = B->o->hub};
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
static void fill_value(struct sl_eval_builder *B, struct sl_eval_value *v, enum sl_role r, const struct sl_key_rule *rule,
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
	if (v->ok && r == SL_ROLE_MODEL) {
		const char *refused = NULL;
		v->model = resolve_model(B, v->rv->s, &refused);
		if (!v->model && refused)
			v->why = refused; /* a local path outside the project: unknown, and the note says why */
	}
	if (v->ok && r == SL_ROLE_MODULES) {
		/* the layer list counted (sl_modules_parse) is the model: a model value of its own */
		struct sl_modules mods;
		if (sl_modules_parse(B->a, v->rv->s, &mods, NULL) == 0)
			v->model = sl_model_from_modules(B->a, &mods);
		v->rv->role = SL_ROLE_MODEL;
		v->rv->s = v->model ? v->model->name : v->rv->s;
	}
}

static void add_entries_of(struct sl_eval_builder *B, const struct sl_trainer *t);

/* A YAML boolean: no model is named true or false (a `pretrain: true` switch is not OpenRLHF's --pretrain). */
static bool bool_node(struct sl_eval_builder *B, const struct sl_node *n)
{
	if (!n || n->kind != SL_NODE_SCALAR)
		return false;
	struct sl_value v = sl_scalar_resolve(B->res, n->text, strlen(n->text), n->style == SL_STYLE_PLAIN, n->tag, NULL);
	return v.type == SL_V_BOOL;
}

/* A parameter whose every value is a YAML boolean (true/false, yes/no). */
static bool bool_param(struct sl_eval_builder *B, const struct sl_param *p)
{
	if (p->dist == SL_DIST_CONSTANT)
		return bool_node(B, p->value);
	if ((p->dist != SL_DIST_CATEGORICAL && p->dist != SL_DIST_CATEGORICAL_W_PROBABILITIES) || !p->values ||
	    p->values->kind != SL_NODE_SEQ || p->values->n == 0)
		return false;
	for (size_t j = 0; j < p->values->n; j++)
		if (!bool_node(B, p->values->items[j]))
			return false;
	return true;
}

/* Why a key has no role, for its -v note: a `role: none` entry of the key map, or no pattern at all. */
static const char *unmapped_why(struct sl_eval_builder *B, const char *key)
{
	const struct sl_key_rule *none = sl_keymap_match_none(B->o->keys, key, strlen(key));
	if (none)
		return sl_arena_printf(B->a, "not memory-relevant: %s names no role",
				       sl_key_rule_describe(B->a, none));
	return "not memory-relevant: no pattern of the key map matches";
}

/*
 * The key map's rule for key; a pattern that hits PCRE2's match or depth
 * limit is a `config` error at the key (once per pattern and file), never a
 * silent "no match". NULL: no rule (the key is not memory-relevant).
 */
static const struct sl_key_rule *match_key(struct sl_eval_builder *B, const char *key, const struct sl_source *src,
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
	sl_eval_add_note(B, key, "key map", -1, "a key pattern passed its match limit: no role");
	return NULL;
}

static void ds_not_found(struct sl_eval_builder *B, const struct sl_source *src, const struct sl_node *at,
			 const char *path)
{
	sl_diags_add(B->diags, "config", SL_SEV_WARNING, src, at->span,
		     "deepspeed config '%s' is not found beside the file that names it or the sweep (a launcher reads "
		     "it from its working folder): its ZeRO stage and offload are unknown, so these runs' memory is "
		     "not judged",
		     sl_term_safe(B->a, path));
}

static void copy_diags(struct sl_eval_builder *B, const struct sl_diags *from)
{
	for (size_t i = 0; i < from->n; i++)
		sl_diags_add(B->diags, from->v[i].rule, from->v[i].severity, from->v[i].src, from->v[i].span, "%s",
			     from->v[i].message)->hint = from->v[i].hint;
}

/*
 * The project root a file named by src is read in (path.h): the sweep's for the sweep itself, else
 * that of the file's own folder (a config or program inside the project, or a -c config given on the
 * command line and the files beside it); NULL when the caller set no bound.
 */
static const char *root_for(struct sl_eval_builder *B, const struct sl_source *src, const char *dir)
{
	if (!B->o->root)
		return NULL;
	if (!src || !dir || (B->o->base_dir && strcmp(dir, B->o->base_dir) == 0))
		return B->o->root;
	const char *r = sl_project_root(B->a, dir);
	return r ? r : "";
}

/*
 * Load the deepspeed config `path` that a file names at `at`: a missing file is ds_not_found's
 * warning, one outside the project a warning naming it (never read), any other problem the config's
 * own error (sl_trainer_load's diagnostics). Returns sl_trainer_load_in's code.
 */
static int load_named_ds(struct sl_eval_builder *B, const char *path, const char *dir, const struct sl_source *src,
			 const struct sl_node *at, struct sl_trainer **ds)
{
	struct sl_diags quiet;
	sl_diags_init(&quiet, B->a);
	const char *why = NULL;
	int rc = sl_trainer_load_in(B->a, path, dir, root_for(B, src, dir), B->res, &quiet, ds, &why);
	if (rc == -SL_ENOENT)
		ds_not_found(B, src, at, path);
	else if (rc == -SL_EOUTSIDE)
		sl_diags_add(B->diags, "config", SL_SEV_WARNING, src, at->span,
			     "deepspeed config %s: its ZeRO stage and offload are unknown, so these runs' memory is not "
			     "judged",
			     sl_term_safe(B->a, why));
	else if (rc != 0)
		copy_diags(B, &quiet);
	return rc;
}

/*
 * A deepspeed: path value becomes the role values of that config. A file named
 * by a config, a program or the command that is not found (it is taken from the
 * launcher's working folder, which sweeplint does not know) is a warning at the
 * value, and the runs are unknown: sized without its ZeRO stage they would read
 * as out of memory on a guess. A file that exists and does not parse stays an
 * error; so does one given by --set (at == NULL).
 */
static void expand_deepspeed(struct sl_eval_builder *B, const char *path, const char *dir,
			     const struct sl_source *src, const struct sl_node *at, const char *key,
			     enum sl_axis_origin origin, const struct sl_key_rule *rule)
{
	if (B->ds_depth > 2)
		return;
	struct sl_trainer *ds = NULL;
	int rc = at && src ? load_named_ds(B, path, dir, src, at, &ds)
			   : sl_trainer_load(B->a, path, dir, B->res, B->diags, &ds);
	if (rc == 0) {
		B->ds_depth++;
		add_entries_of(B, ds);
		B->ds_depth--;
		return;
	}
	if (!at || !src || (rc != -SL_ENOENT && rc != -SL_EOUTSIDE))
		return; /* an unreadable or broken file: its own error, as before */
	struct sl_eval_axis *ax = new_axis(B, origin, key, SL_ROLE_DEEPSPEED, rule, src, 1);
	ax->values[0] = (struct sl_eval_value){.node = at, .span = at->span, .text = path, .ok = false,
						 .why = rc == -SL_EOUTSIDE ? "its deepspeed config is outside the project"
									   : "its deepspeed config is not found",
						 .best = UINT64_MAX};
	ax->n = 1;
}

/*
 * Why a config entry sets nothing, or NULL when it sets its key: DeepSpeed's "auto" is filled from
 * the trainer's arguments, its train_batch_size is global (world × micro × accumulation: *global,
 * not the per-device role), and a null is not set.
 */
static const char *entry_unset(const struct sl_trainer *t, const struct sl_cfg_entry *e, bool *global)
{
	*global = false;
	if (e->is_auto)
		return "\"auto\": filled from the trainer's arguments";
	if (t->is_deepspeed && strcmp(e->key, "train_batch_size") == 0) {
		*global = true;
		return "global batch in a DeepSpeed config: not a per-device setting";
	}
	if (e->node->kind == SL_NODE_SCALAR && e->node->value.type == SL_V_NULL)
		return "empty: not set";
	return NULL;
}

/* One config entry: an axis, or a note saying why it is not one. */
static void add_entry(struct sl_eval_builder *B, const struct sl_trainer *t, const struct sl_cfg_entry *e, const char *where)
{
	const struct sl_key_rule *rule = match_key(B, e->key, t->src, e->node);
	if (!rule) {
		/* a program's other literals (output_dir, seed ...) are not worth a note each */
		if (!e->how)
			sl_eval_add_note(B, e->key, where, -1, unmapped_why(B, e->key));
		return;
	}
	bool global;
	const char *unset = entry_unset(t, e, &global);
	if (unset) {
		sl_eval_add_note(B, e->key, where, global ? -1 : (int)rule->role, unset);
		return;
	}
	if (rule->role == SL_ROLE_MODEL && bool_node(B, e->node)) {
		sl_eval_add_note(B, e->key, where, -1,
				 sl_arena_printf(B->a, "not memory-relevant: a boolean names no model (%s)",
						 sl_key_rule_describe(B->a, rule)));
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
		sl_eval_add_note(B, e->key, where, (int)rule->role, tmp.rv->s);
		expand_deepspeed(B, tmp.rv->s, sl_path_dir(B->a, t->path), t->src, e->node, e->key,
				 e->how ? SL_AXIS_PROGRAM : SL_AXIS_CONFIG, rule);
		return;
	}
	/* a literal read from the program's code (or a config it loads) is the program's setting */
	struct sl_eval_axis *ax = new_axis(B, e->how ? SL_AXIS_PROGRAM : SL_AXIS_CONFIG, e->key, rule->role, rule,
					   t->src, 1);
	ax->values[0] = tmp;
	ax->n = 1;
	/*
	 * a program's list literal is shown as written (["q_proj", "v_proj"]); a key the rule reads the other
	 * way round (disable_gradient_checkpointing: false is gradient checkpointing on) shows the role's
	 * value, then the key's
	 */
	const char *shown = e->how && e->node->text ? e->node->text : tmp.text;
	const char *raw = e->node->text;
	bool inverted = (rule->if_true && strcmp(rule->if_true, "false") == 0) ||
			(rule->if_false && strcmp(rule->if_false, "true") == 0);
	if (inverted && raw && (strcasecmp(raw, "true") == 0 || strcasecmp(raw, "false") == 0)) {
		const char *mapped = strcasecmp(raw, "true") == 0 ? rule->if_true : rule->if_false;
		if (mapped)
			shown = sl_arena_printf(B->a, "%s (%s: %s)", mapped, e->key, raw);
	}
	note_rule(B, e->key, where, rule, (int)rule->role, shown);
	B->ev->notes[B->ev->nnotes - 1].axis = B->ev->naxes;
}

static void add_entries_of(struct sl_eval_builder *B, const struct sl_trainer *t)
{
	const char *config_where = sl_arena_printf(B->a, "config %s", t->src->display);
	for (size_t i = 0; i < t->n; i++) {
		const struct sl_cfg_entry *e = &t->entries[i];
		/* a program's literal: its file:line, and how it was read (kept on its notes) */
		const char *where = e->how ? sl_source_where_line(B->a, t->src, e->node->span.line)
					   : config_where;
		size_t first = B->ev->nnotes;
		add_entry(B, t, e, where);
		for (size_t k = first; k < B->ev->nnotes; k++)
			if (!B->ev->notes[k].how) {
				B->ev->notes[k].how = e->how;
				B->ev->notes[k].chain = e->chain;
			}
	}
}

/* A program's setting that a later axis of the same role replaces, as at run time: say which. */
static void mark_overridden(struct sl_eval_builder *B)
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

/*
 * A bare flag of the command (`--bf16`, `--gradient_checkpointing`: argparse store_true, as OpenRLHF's
 * train_dpo.py and most training scripts spell them; sweep.c pairs an option with a value only when a
 * plain value follows it) is its key set to true, for the roles a boolean sets; a flag whose role takes
 * no boolean is left alone, as before.
 */
static void add_command_flag(struct sl_eval_builder *B, const struct sl_cmd_item *c)
{
	const struct sl_sweep *sw = B->ev->sweep;
	if (!c->node || c->node->kind != SL_NODE_SCALAR || strncmp(c->node->text, "--", 2) != 0)
		return;
	const char *key = c->node->text + 2;
	size_t n = strlen(key);
	if (!n || strchr(key, '=') || strchr(key, ' '))
		return;
	const struct sl_key_rule *rule = sl_keymap_match(B->o->keys, key, n);
	if (!rule || rule->role == SL_ROLE_MODEL || rule->role == SL_ROLE_DEEPSPEED)
		return;
	struct sl_value typed = sl_scalar_resolve(B->res, "true", 4, true, NULL, NULL);
	struct sl_eval_value tmp = {0};
	fill_value(B, &tmp, rule->role, rule, NULL, "true", &typed);
	if (!tmp.ok)
		return;
	tmp.node = c->node;
	tmp.span = c->node->span;
	tmp.text = c->node->text;
	struct sl_eval_axis *ax = new_axis(B, SL_AXIS_COMMAND, key, rule->role, rule, sw->doc->src, 1);
	ax->values[0] = tmp;
	ax->n = 1;
	note_rule(B, key, "command flag", rule, (int)rule->role, "true");
}

static void add_command_options(struct sl_eval_builder *B, bool late)
{
	const struct sl_sweep *sw = B->ev->sweep;
	for (size_t i = 0; i < sw->ncmd; i++) {
		const struct sl_cmd_item *c = &sw->cmd[i];
		if (c->kind == SL_CMD_LITERAL && after_args(sw, i) == late) {
			add_command_flag(B, c);
			continue;
		}
		if (c->kind != SL_CMD_OPTION || c->value_is_macro || !c->key || after_args(sw, i) != late)
			continue;
		const struct sl_key_rule *rule = match_key(B, c->key, sw->doc->src, c->node);
		if (!rule) {
			sl_eval_add_note(B, c->key, "command", -1, unmapped_why(B, c->key));
			continue;
		}
		struct sl_value typed = sl_scalar_resolve(B->res, c->value ? c->value : "", c->value ? strlen(c->value) : 0,
							  true, NULL, NULL);
		struct sl_eval_value tmp = {0};
		if (sl_node_has_nul(c->value_node)) {
			/* c->value stops at the NUL: "--model=org/a\0b" must not read (or fetch) org/a; invalid-value */
			tmp = (struct sl_eval_value){.text = c->value, .ok = false, .why = "it holds a NUL byte",
						     .best = UINT64_MAX, .nrv = 1};
			tmp.rv = sl_arena_alloc(B->a, sizeof *tmp.rv);
			tmp.rv->role = rule->role;
		} else {
			fill_value(B, &tmp, rule->role, rule, NULL, c->value, &typed);
		}
		tmp.node = c->value_node;
		if (c->value_node)
			tmp.span = c->value_node->span;
		if (!tmp.ok && rule->role != SL_ROLE_MODEL) {
			note_rejected(B, c->key, "command", rule, &tmp, sw->doc->src);
			continue;
		}
		if (rule->role == SL_ROLE_DEEPSPEED) {
			expand_deepspeed(B, tmp.rv->s, B->o->base_dir, sw->doc->src, c->value_node, c->key, SL_AXIS_COMMAND,
					 rule);
			continue;
		}
		struct sl_eval_axis *ax = new_axis(B, SL_AXIS_COMMAND, c->key, rule->role, rule, sw->doc->src, 1);
		ax->values[0] = tmp;
		ax->n = 1;
		note_rule(B, c->key, late ? "command (after ${args}: overrides the sweep)" : "command", rule,
			  (int)rule->role, tmp.text);
	}
}

/*
 * A swept deepspeed value (`deepspeed: {values: [ds_z2.json, ds_z3.json]}`): the role values of the
 * config it names ride on the value (rv[1..]: ZeRO stage, offload, precision, micro batch), so each
 * combination is sized with its own file's settings. A file not found: the value's runs are unknown
 * (a warning at it); one that does not parse: its error, and unknown.
 */
static void read_swept_deepspeed(struct sl_eval_builder *B, struct sl_eval_value *v, const struct sl_source *src)
{
	if (!v->ok || !v->rv || !v->rv->s || !v->node)
		return;
	struct sl_trainer *ds = NULL;
	int rc = load_named_ds(B, v->rv->s, B->o->base_dir, src, v->node, &ds);
	if (rc != 0) {
		v->ok = false;
		v->why = rc == -SL_ENOENT     ? "its deepspeed config is not found"
			 : rc == -SL_EOUTSIDE ? "its deepspeed config is outside the project"
					      : "its deepspeed config cannot be read";
		return;
	}
	struct sl_role_value *rv = sl_arena_array(B->a, ds->n + 1, sizeof *rv);
	rv[0] = v->rv[0];
	size_t n = 1;
	for (size_t i = 0; i < ds->n; i++) {
		const struct sl_cfg_entry *e = &ds->entries[i];
		bool global;
		if (entry_unset(ds, e, &global))
			continue;
		const struct sl_key_rule *rule = match_key(B, e->key, ds->src, e->node);
		const char *why = NULL;
		if (rule && rule->role != SL_ROLE_DEEPSPEED &&
		    sl_role_value_from_node(B->a, rule->role, rule, e->node, &rv[n], &why) == 0)
			n++;
	}
	v->rv = rv;
	v->nrv = n;
	sl_eval_add_note(B, v->rv->s, sl_arena_printf(B->a, "config %s", ds->src->display), SL_ROLE_DEEPSPEED,
			 sl_arena_printf(B->a, "%zu setting%s of a swept deepspeed value", n - 1, n == 2 ? "" : "s"));
}


/* ---- a custom module whose sizes are the sweep's values (a layer list with {sizes}: moddims.c) ---- */

#define MAX_MODULE_VALUES 4096 /* combinations of a module's parameters counted one by one; past it: bounded */

/* A typed scalar as a moddims value. */
static bool moddim_value_of(const struct sl_value *t, const char *text, size_t len, struct sl_modules_val *out)
{
	memset(out, 0, sizeof *out);
	switch (t->type) {
	case SL_V_INT:
		if (t->big)
			return false;
		out->kind = SL_MV_INT;
		out->i = t->i;
		return true;
	case SL_V_FLOAT:
		out->kind = SL_MV_FLOAT;
		out->f = t->f;
		return true;
	case SL_V_BOOL:
		out->kind = SL_MV_BOOL;
		out->b = t->b;
		return true;
	case SL_V_STR:
		out->kind = SL_MV_STR;
		out->s = text;
		out->slen = len;
		return text != NULL;
	default:
		return false;
	}
}

/* The i-th grid value of p as a moddims value, and its node (NULL for a computed range value). */
static bool param_value(const struct sl_param *p, uint64_t i, struct sl_modules_val *out, const struct sl_node **node)
{
	struct sl_value v;
	const struct sl_node *n = NULL;
	if (!sl_param_grid_value(p, i, &v, &n))
		return false;
	*node = n;
	if (n && n->kind != SL_NODE_SCALAR)
		return false;
	return moddim_value_of(n ? &n->value : &v, n ? n->text : NULL, n ? n->text_len : 0, out);
}

/* The least and largest number p takes (its values, or its range's bounds). */
static bool param_range(const struct sl_param *p, double *lo, double *hi)
{
	struct sl_count cnt = sl_param_grid_count(p);
	if (!cnt.infinite && !cnt.saturated && cnt.value > 0 && cnt.value <= MAX_AXIS_VALUES) {
		*lo = INFINITY, *hi = -INFINITY;
		for (uint64_t j = 0; j < cnt.value; j++) {
			struct sl_modules_val v;
			const struct sl_node *n;
			if (!param_value(p, j, &v, &n))
				return false;
			double x = v.kind == SL_MV_INT ? (double)v.i : v.kind == SL_MV_FLOAT ? v.f : v.kind == SL_MV_BOOL ? v.b : NAN;
			if (isnan(x))
				return false;
			*lo = fmin(*lo, x), *hi = fmax(*hi, x);
		}
		return *lo <= *hi;
	}
	if (isnan(p->minv) || isnan(p->maxv))
		return false;
	*lo = floor(p->minv), *hi = ceil(p->maxv);
	return true;
}

struct modules_env {
	const struct sl_sweep *sw;
	const char **names;             /* the parameters of a combination (exact) */
	const struct sl_modules_val *vals;
	size_t n;
};

static bool env_value(void *ctx, const char *name, struct sl_modules_val *out)
{
	const struct modules_env *E = ctx;
	for (size_t i = 0; i < E->n; i++)
		if (strcmp(E->names[i], name) == 0) {
			*out = E->vals[i];
			return true;
		}
	return false;
}

static bool env_range(void *ctx, const char *name, double *lo, double *hi)
{
	const struct modules_env *E = ctx;
	const struct sl_param *p = sl_sweep_param(E->sw, name);
	return p && !p->is_dict && param_range(p, lo, hi);
}

/* The program's layer list with sizes in braces: the axis (its index), or SIZE_MAX. */
static size_t template_axis(const struct sl_eval *ev)
{
	for (size_t i = ev->naxes; i-- > 0;) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->role == SL_ROLE_MODEL && ax->n == 1 && ax->values[0].ok && !ax->values[0].model &&
		    ax->rule && ax->rule->role == SL_ROLE_MODULES && ax->values[0].rv->s && strchr(ax->values[0].rv->s, '{'))
			return i;
	}
	return SIZE_MAX;
}

/*
 * Before the sweep's parameters are read: a custom module whose layer list names sweep parameters is
 * counted per combination when they are few and discrete and nothing else reads them (their values
 * then make one model axis, build_modules_axis); otherwise it is bounded here over all of them (each
 * size at its largest: an upper bound, breakdown.bound) and the parameters stay as they are.
 */
static void plan_modules(struct sl_eval_builder *B)
{
	struct sl_eval *ev = B->ev;
	size_t at = template_axis(ev);
	if (at == SIZE_MAX)
		return;
	struct sl_eval_axis *ax = &ev->axes[at];
	struct sl_eval_value *v = &ax->values[0];
	const char *text = v->rv->s;
	const char **names;
	size_t n = sl_moddim_params(B->a, text, &names);
	const struct sl_sweep *sw = ev->sweep;
	bool exact = n > 0;
	uint64_t combos = 1;
	const char *why = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct sl_param *p = sl_sweep_param(sw, names[i]);
		if (!p || p->is_dict) {
			why = sl_arena_printf(B->a, "its size names %s, which the sweep does not set", names[i]);
			exact = false;
			break;
		}
		struct sl_count cnt = sl_param_grid_count(p);
		const struct sl_key_rule *rule = match_key(B, p->path, NULL, NULL);
		bool discrete = p->dist == SL_DIST_CONSTANT || p->dist == SL_DIST_CATEGORICAL ||
				p->dist == SL_DIST_CATEGORICAL_W_PROBABILITIES || p->dist == SL_DIST_INT_UNIFORM ||
				p->dist == SL_DIST_Q_UNIFORM;
		/* a parameter with a memory role of its own (a length) keeps its axis: the module is bounded */
		bool own_role = rule && !sl_role_is_shape(rule->role);
		for (size_t k = 0; k < B->o->nignore_params; k++)
			own_role |= strcmp(B->o->ignore_params[k], p->path) == 0;
		if (!discrete || own_role || cnt.infinite || cnt.saturated || !cnt.value ||
		    cnt.value > MAX_MODULE_VALUES / combos)
			exact = false;
		else
			combos *= cnt.value;
	}
	if (exact) {
		B->mod_params = names;
		B->nmod_params = n;
		B->mod_axis = at + 1;
		return;
	}
	struct modules_env E = {.sw = sw};
	struct sl_modules_env env = {.range = env_range, .ctx = &E};
	struct sl_modules mods;
	const char *mwhy = NULL;
	if (!why && sl_modules_parse_env(B->a, text, &env, &mods, &mwhy) == 0 &&
	    (v->model = sl_model_from_modules(B->a, &mods)) != NULL) {
		v->rv->s = v->model->name;
		sl_eval_add_note(B, ax->key, "program", SL_ROLE_MODEL,
				 sl_arena_printf(B->a, "a custom nn.Module whose sizes come from the sweep's values, "
						       "bounded over all of them: %s", v->model->resolved_note));
		return;
	}
	v->ok = false;
	v->why = sl_arena_printf(B->a, "a custom nn.Module whose sizes cannot be bounded: %s",
				 why ? why : mwhy ? mwhy : "?");
	sl_eval_add_note(B, ax->key, "program", SL_ROLE_MODEL, v->why);
}

static bool module_param(const struct sl_eval_builder *B, const char *path)
{
	for (size_t i = 0; i < B->nmod_params; i++)
		if (strcmp(B->mod_params[i], path) == 0)
			return true;
	return false;
}

/*
 * The planned module's parameters as one model axis: a value per combination of their values, each
 * the layer list counted for it (its sizes exact). A combination whose list cannot be counted (a
 * width that does not divide into its heads) is unknown, with the reason.
 */
static void build_modules_axis(struct sl_eval_builder *B)
{
	if (!B->mod_axis)
		return;
	struct sl_eval *ev = B->ev;
	const struct sl_sweep *sw = ev->sweep;
	size_t n = B->nmod_params;
	const struct sl_param **ps = sl_arena_array(B->a, n, sizeof *ps);
	uint64_t *cnt = sl_arena_array(B->a, n, sizeof *cnt);
	uint64_t total = 1;
	struct sl_buf keys;
	sl_buf_init(&keys, B->a);
	for (size_t i = 0; i < n; i++) {
		ps[i] = sl_sweep_param(sw, B->mod_params[i]);
		cnt[i] = sl_param_grid_count(ps[i]).value;
		total *= cnt[i];
		sl_buf_addf(&keys, "%s%s", i ? ", " : "", ps[i]->path);
	}
	const char *text = ev->axes[B->mod_axis - 1].values[0].rv->s;
	struct sl_eval_axis *ax = new_axis(B, SL_AXIS_SWEEP, keys.buf, SL_ROLE_MODEL, NULL, sw->doc->src, (size_t)total);
	ax->modules = true;
	struct sl_buf bad;
	sl_buf_init(&bad, B->a);
	size_t nbad = 0;
	struct sl_modules_val *vals = sl_arena_array(B->a, n, sizeof *vals);
	const struct sl_node **nodes = sl_arena_array(B->a, n, sizeof *nodes);
	struct modules_env E = {.sw = sw, .names = B->mod_params, .vals = vals, .n = n};
	struct sl_modules_env env = {.value = env_value, .ctx = &E};
	for (uint64_t c = 0; c < total; c++) {
		/* the first parameter varies slowest, as the sweep's own axes do */
		uint64_t rest = c;
		bool ok = true;
		struct sl_buf t;
		sl_buf_init(&t, B->a);
		const struct sl_node *at = NULL;
		for (size_t i = n; i-- > 0;) {
			uint64_t j = rest % cnt[i];
			rest /= cnt[i];
			ok &= param_value(ps[i], j, &vals[i], &nodes[i]);
			if (!nodes[i])
				nodes[i] = j == 0 ? ps[i]->min : j + 1 == cnt[i] ? ps[i]->max : ps[i]->key;
			if (cnt[i] > 1 || !at)
				at = nodes[i];
		}
		for (size_t i = 0; i < n; i++) {
			char num[64];
			const char *shown = vals[i].kind == SL_MV_STR ? vals[i].s
					    : vals[i].kind == SL_MV_INT ? (snprintf(num, sizeof num, "%lld", (long long)vals[i].i), num)
					    : vals[i].kind == SL_MV_BOOL ? (vals[i].b ? "true" : "false")
					    : (snprintf(num, sizeof num, "%g", vals[i].f), num);
			sl_buf_addf(&t, "%s%s=%s", i ? ", " : "", ps[i]->path, shown);
		}
		struct sl_eval_value *v = &ax->values[ax->n++];
		memset(v, 0, sizeof *v);
		v->node = at;
		v->span = at ? at->span : ps[0]->key->span;
		v->text = t.buf;
		v->rv = sl_arena_alloc(B->a, sizeof *v->rv);
		v->rv->role = SL_ROLE_MODEL;
		v->nrv = 1;
		v->best = UINT64_MAX;
		struct sl_modules mods;
		const char *why = NULL;
		if (ok && sl_modules_parse_env(B->a, text, &env, &mods, &why) == 0)
			v->model = sl_model_from_modules(B->a, &mods);
		v->ok = v->model != NULL;
		v->rv->s = v->model ? v->model->name : t.buf;
		if (!v->ok) {
			v->why = sl_arena_printf(B->a, "the custom nn.Module cannot be counted for %s: %s", t.buf,
						 why ? why : "a value that is no size");
			if (nbad++ < 3)
				sl_buf_addf(&bad, "%s%s (%s)", nbad > 1 ? "; " : "", t.buf, why ? why : "a value that is no size");
		}
	}
	sl_eval_add_note(B, keys.buf, "sweep", SL_ROLE_MODEL,
			 sl_arena_printf(B->a, "the sizes of the program's custom nn.Module: its layer list counted for each "
					       "of %llu combinations of their values%s%s%s",
					 (unsigned long long)total, nbad ? "; not counted (unknown): " : "",
					 nbad ? bad.buf : "", nbad > 3 ? "; ..." : ""));
	/* the program's layer list with its sizes in braces is this axis now: drop it (its note says so) */
	size_t gone = B->mod_axis - 1;
	const char *by = sl_arena_printf(B->a, "%s (sweep)", keys.buf);
	for (size_t i = gone; i + 1 < ev->naxes; i++)
		ev->axes[i] = ev->axes[i + 1];
	ev->naxes--;
	for (size_t i = 0; i < ev->nnotes; i++) {
		struct sl_eval_note *nt = &ev->notes[i];
		if (nt->axis == gone + 1) {
			nt->axis = 0;
			nt->overridden_by = by;
		} else if (nt->axis > gone + 1) {
			nt->axis--;
		}
	}
}

/*
 * A custom nn.Module is the model: the program's shape literals (argparse --d_model, --n_layers, a
 * config's num_heads) are its constructor's arguments, counted in its layer list, not a checkpoint's
 * shape; -v says so rather than show them as used model settings (JSON "used": false).
 */
static void mark_module_shapes(struct sl_eval_builder *B)
{
	struct sl_eval *ev = B->ev;
	bool custom = false;
	for (size_t i = 0; i < ev->naxes && !custom; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->role != SL_ROLE_MODEL)
			continue;
		custom = ax->rule && ax->rule->role == SL_ROLE_MODULES;
		for (size_t k = 0; k < ax->n && !custom; k++)
			custom = ax->values[k].model && ax->values[k].model->arch.modules;
	}
	if (!custom)
		return;
	for (size_t i = 0; i < ev->nnotes; i++) {
		struct sl_eval_note *n = &ev->notes[i];
		if (n->how && n->role >= 0 && sl_role_is_shape((enum sl_role)n->role) && !n->overridden_by)
			n->overridden_by = "the custom nn.Module's layer list (an argument of the module's constructor, "
					   "not a checkpoint's shape)";
	}
}

/* ---- the program's rules for sweep parameters (their values reach its sinks) ---- */

void sl_eval_resolve_only(struct sl_eval_builder *B)
{
	struct sl_eval *ev = B->ev;
	for (size_t i = 0; i < ev->naxes; i++) {
		struct sl_eval_axis *ax = &ev->axes[i];
		ax->only_axis = -1;
		if (!ax->only_param)
			continue;
		for (size_t g = 0; g < ev->naxes; g++) {
			const struct sl_eval_axis *ga = &ev->axes[g];
			if (g == i || ga->param != ax->only_param)
				continue;
			bool *mask = sl_arena_array(B->a, ga->n ? ga->n : 1, sizeof *mask);
			for (size_t j = 0; j < ga->n; j++)
				for (size_t k = 0; k < ax->nonly && !mask[j]; k++)
					mask[j] = ga->values[j].node && sl_node_same_value(ax->only_values[k], ga->values[j].node);
			ax->only_axis = (int)g;
			ax->only_mask = mask;
			sl_eval_add_note(B, ax->key, "sweep", (int)ax->role,
					 sl_arena_printf(B->a, "applies only where %s is one of %zu of its values (the program "
							       "reads it under a condition on %s)",
							 ga->key, ax->nonly, ga->key));
			break;
		}
	}
}

#define MAX_PROGRAM_RULES 32

/* "A -> org/a, B -> org/b" of a value map, for its note (at most 4 cases shown). */
static const char *cases_text(struct sl_arena *a, const struct sl_param_role *pr)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < pr->ncases && i < 4; i++) {
		const struct sl_param_case *c = &pr->cases[i];
		sl_buf_addf(&b, "%s%s -> %s", i ? ", " : "", c->when->text,
			    c->unset ? "unset" : c->to ? c->to->text : "unknown");
	}
	if (pr->ncases > 4)
		sl_buf_addf(&b, ", ... (%zu values)", pr->ncases);
	return b.buf;
}

/*
 * The rules the followed program makes for sweep parameter p (in the order the program makes them:
 * applied in that order, a later one of a role over an earlier), in out; their count. None when the program makes one rule that the parameter's own name
 * (named) already gives, without a value map.
 */
static size_t program_rules(struct sl_eval_builder *B, const struct sl_param *p, const struct sl_key_rule *named,
			    const struct sl_key_rule **out, const struct sl_param_role **only)
{
	size_t n = 0;
	bool mixed = false;
	*only = NULL;
	for (size_t i = 0; i < B->o->nparam_roles && n < MAX_PROGRAM_RULES; i++) {
		const struct sl_param_role *pr = &B->o->param_roles[i];
		if (strcmp(pr->param, p->path) != 0)
			continue;
		const struct sl_key_rule *base = match_key(B, pr->key, NULL, NULL);
		if (!base || base->role == SL_ROLE_DEEPSPEED || sl_role_is_shape(base->role))
			continue;
		/* several settings of one role (load_in_8bit, load_in_4bit) apply in order, as configs' keys do */
		struct sl_key_case *cases = NULL;
		if (pr->ncases) {
			cases = sl_arena_array(B->a, pr->ncases, sizeof *cases);
			for (size_t k = 0; k < pr->ncases; k++)
				cases[k] = (struct sl_key_case){.when = pr->cases[k].when, .to = pr->cases[k].to,
								.unknown = pr->cases[k].unknown};
		}
		const char *by = pr->ncases
			? sl_arena_printf(B->a, "the program maps it to %s: %s (%s)", pr->key, cases_text(B->a, pr), pr->how)
			: sl_arena_printf(B->a, "the program passes it to %s%s%s", pr->how, pr->chain ? ": " : "",
					  pr->chain ? pr->chain : "");
		/* a condition on another parameter holds for the axis when every rule has the same one */
		if (n == 0)
			*only = pr->only_param ? pr : NULL;
		else if (!*only != !pr->only_param || (*only && strcmp((*only)->only_param, pr->only_param) != 0))
			mixed = true;
		out[n++] = sl_key_rule_program(B->a, base, by, cases, pr->ncases);
	}
	/* a value map that names the model is the axis's role (the first rule), whatever the program made first
	 * (a torch_dtype by the same parameter): a later rule's model was never read (combo.c reads the model of
	 * a model axis) */
	for (size_t k = 1; k < n; k++)
		if (out[k]->role == SL_ROLE_MODEL) {
			const struct sl_key_rule *m = out[k];
			memmove(out + 1, out, k * sizeof *out);
			out[0] = m;
			break;
		}
	if (mixed)
		*only = NULL; /* different conditions: read as the literal reader did, in every run */
	if (*only && !sl_sweep_param(B->ev->sweep, (*only)->only_param))
		*only = NULL;
	if (n == 1 && named && named->role == out[0]->role && !out[0]->ncases && !*only)
		return 0;
	return n;
}

/* Whether the program passes another sweep parameter than p to a sink of role r (p's name is not r then). */
static const struct sl_param_role *other_program_role(struct sl_eval_builder *B, const struct sl_param *p,
						      enum sl_role r)
{
	for (size_t i = 0; i < B->o->nparam_roles; i++) {
		const struct sl_param_role *pr = &B->o->param_roles[i];
		if (strcmp(pr->param, p->path) == 0 || !sl_sweep_param(B->ev->sweep, pr->param))
			continue;
		const struct sl_key_rule *base = match_key(B, pr->key, NULL, NULL);
		if (base && base->role == r)
			return pr;
	}
	return NULL;
}

/* Value v from a sweep value node through the program's rules (the first is the axis's role). */
static void fill_program_value(struct sl_eval_builder *B, struct sl_eval_value *v, const struct sl_key_rule *const *rules,
			       size_t n, const struct sl_node *node)
{
	v->node = node;
	v->span = node->span;
	v->text = node->kind == SL_NODE_SCALAR ? node->text : "";
	v->rv = sl_arena_array(B->a, n, sizeof *v->rv);
	v->nrv = 0;
	v->ok = true;
	v->best = UINT64_MAX;
	for (size_t k = 0; k < n; k++) {
		struct sl_role_value rv;
		const char *why = NULL;
		if (sl_role_value_from_node(B->a, rules[k]->role, rules[k], node, &rv, &why) < 0) {
			v->ok = false;
			v->why = why;
			return;
		}
		if (rv.unset)
			continue; /* the program makes no such setting in these runs */
		v->rv[v->nrv++] = rv;
		if (rules[k]->role == SL_ROLE_MODEL) {
			const char *refused = NULL;
			v->model = resolve_model(B, rv.s, &refused);
			if (!v->model && refused)
				v->why = refused; /* a local path outside the project: unknown, and the note says why */
			if (rules[k]->ncases)
				v->text = rv.s; /* the model the program loads for this value */
		}
	}
}

static void add_sweep_params(struct sl_eval_builder *B)
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
		if (B->o->sweep_unread) {
			sl_eval_add_note(B, p->path, "sweep", -1,
					 sl_arena_printf(B->a, "never reaches the runs (%s): the program's own settings are judged",
							 B->o->sweep_unread));
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		bool unread = false;
		for (size_t k = 0; k < B->o->nunread_params; k++)
			unread |= strcmp(B->o->unread_params[k], p->path) == 0;
		if (unread) {
			sl_eval_add_note(B, p->path, "sweep", -1,
					 sl_arena_printf(B->a, "never reaches the runs: %s and the program reads no wandb.config.%s "
							       "(its own value is judged)",
							 B->o->args_why ? B->o->args_why : "its command has no ${args}", p->path));
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		if (module_param(B, p->path))
			continue; /* a size of the program's custom module: its model axis (build_modules_axis) */
		const char *ignored = NULL;
		for (size_t k = 0; k < B->o->nignore_params; k++)
			if (strcmp(B->o->ignore_params[k], p->path) == 0)
				ignored = B->o->ignore_why && B->o->ignore_why[k]
						  ? B->o->ignore_why[k]
						  : "chooses a Hydra config group option: the option's config is read instead";
		if (ignored) {
			sl_eval_add_note(B, p->path, "sweep", -1, ignored);
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		const struct sl_key_rule *rule = match_key(B, p->path, sw->doc->src, p->key);
		const struct sl_key_rule *prog[MAX_PROGRAM_RULES];
		const struct sl_param_role *only = NULL;
		size_t nprog = program_rules(B, p, rule, prog, &only);
		const struct sl_param_role *other = !nprog && rule && rule->role == SL_ROLE_MODEL
							    ? other_program_role(B, p, SL_ROLE_MODEL) : NULL;
		if (other) {
			/* named like the model, but the program loads another parameter's value (dungtn: model_path) */
			sl_eval_add_note(B, p->path, "sweep", -1,
					 sl_arena_printf(B->a, "not the model: the program passes the sweep's %s to %s",
							 other->param, other->how));
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		if (nprog)
			rule = prog[0];
		if (!rule) {
			sl_eval_add_note(B, p->path, "sweep", -1, unmapped_why(B, p->path));
			/* memory does not depend on it: it multiplies the counts as W&B's grid counts it */
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		enum sl_role r = rule->role;
		if (r == SL_ROLE_MODEL && bool_param(B, p)) {
			sl_eval_add_note(B, p->path, "sweep", -1,
					 sl_arena_printf(B->a, "not memory-relevant: a boolean names no model (%s)",
							 sl_key_rule_describe(B->a, rule)));
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		struct sl_eval_axis *ax = NULL;
		switch (p->dist) {
		case SL_DIST_CONSTANT:
			ax = new_axis(B, SL_AXIS_SWEEP, p->path, r, rule, sw->doc->src, 1);
			if (nprog && p->value)
				fill_program_value(B, &ax->values[ax->n++], prog, nprog, p->value);
			else
				fill_value(B, &ax->values[ax->n++], r, rule, p->value, NULL, NULL);
			break;
		case SL_DIST_CATEGORICAL:
		case SL_DIST_CATEGORICAL_W_PROBABILITIES:
			if (!p->values || p->values->kind != SL_NODE_SEQ || p->values->n == 0)
				break;
			ax = new_axis(B, SL_AXIS_SWEEP, p->path, r, rule, sw->doc->src, p->values->n);
			for (size_t j = 0; j < p->values->n; j++) {
				if (nprog)
					fill_program_value(B, &ax->values[ax->n++], prog, nprog, p->values->items[j]);
				else
					fill_value(B, &ax->values[ax->n++], r, rule, p->values->items[j], NULL, NULL);
			}
			break;
		case SL_DIST_INT_UNIFORM:
		case SL_DIST_Q_UNIFORM:
			if (!cnt.infinite && !cnt.saturated && cnt.value > 0 && cnt.value <= MAX_AXIS_VALUES &&
			    B->range_values + cnt.value <= MAX_RANGE_VALUES) {
				B->range_values += (size_t)cnt.value;
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
			sl_eval_add_note(B, p->path, "sweep", (int)r,
			     p->dist == SL_DIST_NONE
				     ? "fails W&B's schema: not evaluated on a memory axis (the memory model keeps its default)"
				     : sl_arena_printf(B->a, "%s is not evaluated on a memory axis", sl_dist_name(p->dist)));
			ev->others = sl_count_mul(ev->others, cnt);
			continue;
		}
		ax->param = p;
		ax->guessed = nprog && B->o->program_guess; /* its role is what the guessed program makes of it */
		if (only) {
			ax->only_param = sl_sweep_param(sw, only->only_param);
			ax->only_values = only->only_values;
			ax->nonly = only->nonly;
		}
		if (r == SL_ROLE_DEEPSPEED && !ax->bounds)
			for (size_t j = 0; j < ax->n; j++)
				read_swept_deepspeed(B, &ax->values[j], sw->doc->src);
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
static int add_sets(struct sl_eval_builder *B, const char **why)
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
		B->explicit_values = true;
		fill_value(B, &tmp, (enum sl_role)role, rule, NULL, val, &typed);
		B->explicit_values = false;
		if (!tmp.ok) {
			*why = sl_arena_printf(B->a, "--set %s: %s", s, tmp.why);
			return -SL_EUSAGE;
		}
		if (role == SL_ROLE_DEEPSPEED) {
			expand_deepspeed(B, tmp.rv->s, NULL, NULL, NULL, key, SL_AXIS_SET, rule);
			continue;
		}
		struct sl_eval_axis *ax = new_axis(B, SL_AXIS_SET, key, (enum sl_role)role, rule, NULL, 1);
		ax->values[0] = tmp;
		ax->n = 1;
		note_rule(B, key, "--set", rule, role, val);
	}
	return 0;
}

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

/*
 * No key sets the model but the sweep (or its configs) gives a from-scratch
 * shape: layers, hidden_size and heads, one value each (and maybe ffn_size,
 * vocab_size, head_dim; seq_len sizes the position table). That shape is the
 * model (sl_model_from_hparams), as a one-value model axis at the layers key.
 * A swept or unreadable shape is left alone: the model stays unknown.
 */
static void add_shape_model(struct sl_eval_builder *B)
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
			sl_eval_add_note(B, ax->key, sl_axis_origin_name(ax->origin), (int)ax->role,
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

/*
 * The axes of a sweep, in the order their sources apply: the defaults of a
 * framework the sweep shows (rules/frameworks.yaml), trainer configs,
 * the command's options (before and after ${args}), the sweep's parameters,
 * --set; then what overrides what, and a model built from a swept shape.
 */
int sl_eval_build_axes(struct sl_eval_builder *B, const char **why)
{
	const struct sl_eval_opts *o = B->o;
	struct sl_trainer *fw = NULL;
	size_t nfw = sl_frameworks_defaults(B->a, o->frameworks ? o->frameworks : sl_frameworks_new(B->a, B->diags),
					    B->ev->sweep, o->configs, o->nconfigs, &fw);
	for (size_t i = 0; i < nfw; i++)
		add_entries_of(B, &fw[i]);
	for (size_t i = 0; i < o->nconfigs; i++)
		add_entries_of(B, o->configs[i]);
	add_command_options(B, false);
	plan_modules(B);
	add_sweep_params(B);
	build_modules_axis(B);
	add_command_options(B, true);
	int rc = add_sets(B, why);
	if (rc < 0)
		return rc;
	mark_overridden(B); /* before the shape steps: notes hold axis indices */
	mark_module_shapes(B);
	add_shape_model(B);
	drop_shape_axes(B->ev);
	return 0;
}
