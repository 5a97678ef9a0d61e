/*
 * follow: a sweep's program, the local modules it imports, the config files
 * they load (by a literal name, an argparse default, or a name the sweep
 * gives), its Hydra composition and the options a shell script passes to
 * it, read into trainer configs (lowest precedence first) with notes for -v.
 */
#include "sweeplint/path.h"
#include "sweeplint/program.h"

#include <string.h>
#include <sys/stat.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

struct follow {
	struct sl_arena *a;
	const struct sl_sweep *sw;
	const struct sl_program_opts *o;
	struct sl_program *p;
	size_t cap_notes;
	const char *seen[SL_PROGRAM_MAX_MODULES + 1];
	size_t nseen;
	const char *loaded[32];            /* config files already overlaid */
	size_t nloaded;
};

static void note(struct follow *F, const char *s)
{
	struct sl_program *p = F->p;
	if (p->nnotes == F->cap_notes) {
		size_t cap = F->cap_notes ? F->cap_notes * 2 : 8;
		p->notes = sl_arena_grow(F->a, p->notes, p->nnotes, cap, sizeof *p->notes);
		F->cap_notes = cap;
	}
	p->notes[p->nnotes++] = s;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *join(struct sl_arena *a, const char *dir, const char *rel)
{
	if (rel[0] == '/' || !dir || strcmp(dir, ".") == 0)
		return rel;
	return sl_arena_printf(a, "%s/%s", dir, rel);
}

/* The file of a local module ("pkg.mod" -> DIR/pkg/mod.py or DIR/pkg/mod/__init__.py), or NULL. */
static const char *module_file(struct sl_arena *a, const char *dir, const char *mod)
{
	char *rel = sl_arena_strdup(a, mod);
	for (char *c = rel; *c; c++)
		if (*c == '.')
			*c = '/';
	const char *base = join(a, dir, rel);
	const char *p = sl_arena_printf(a, "%s.py", base);
	if (is_file(p))
		return p;
	p = sl_arena_printf(a, "%s/__init__.py", base);
	return is_file(p) ? p : NULL;
}

static bool seen(struct follow *F, const char *path)
{
	for (size_t i = 0; i < F->nseen; i++)
		if (strcmp(F->seen[i], path) == 0)
			return true;
	return false;
}

static void add_settings(struct follow *F, struct sl_trainer *t)
{
	struct sl_program *p = F->p;
	p->settings = sl_arena_grow(F->a, p->settings, p->nsettings, p->nsettings + 1, sizeof *p->settings);
	p->settings[p->nsettings++] = t;
}

static void add_notes(struct follow *F, const struct sl_pyread *r, const char *display)
{
	for (size_t i = 0; i < r->nnotes; i++)
		note(F, sl_arena_printf(F->a, "%s:%s", display, r->notes[i]));
}

/* The sweep parameter with this name and one value (constant, or a one-value list): its node, else NULL. */
static const struct sl_node *single_value(const struct sl_sweep *sw, const char *name, bool *several)
{
	const struct sl_param *p = sl_sweep_param(sw, name);
	if (several)
		*several = false;
	if (!p || p->is_dict)
		return NULL;
	if (p->dist == SL_DIST_CONSTANT && p->value && p->value->kind == SL_NODE_SCALAR)
		return p->value;
	if ((p->dist == SL_DIST_CATEGORICAL || p->dist == SL_DIST_CATEGORICAL_W_PROBABILITIES) && p->values &&
	    p->values->kind == SL_NODE_SEQ) {
		if (p->values->n == 1 && p->values->items[0]->kind == SL_NODE_SCALAR)
			return p->values->items[0];
		if (several)
			*several = p->values->n > 1;
	}
	return NULL;
}

/* A config file named by path, looked up beside the file that names it, the project root, the sweep. */
static void load_config(struct follow *F, const char *path, const char *from_dir, const char *why)
{
	const char *dirs[4] = {from_dir, F->p->ref.root, F->o->sweep_dir, F->o->config_dir};
	const char *file = NULL;
	for (size_t i = 0; i < 4 && !file; i++)
		if (dirs[i] && is_file(join(F->a, dirs[i], path)))
			file = sl_path_tidy(F->a, join(F->a, dirs[i], path));
	if (!file) {
		note(F, sl_arena_printf(F->a, "config %s (%s): not found", path, why));
		return;
	}
	for (size_t i = 0; i < F->nloaded; i++)
		if (strcmp(F->loaded[i], file) == 0)
			return;
	if (F->nloaded == sizeof F->loaded / sizeof F->loaded[0])
		return;
	F->loaded[F->nloaded++] = file;
	struct sl_diags quiet;
	sl_diags_init(&quiet, F->a);
	struct sl_trainer *t = NULL;
	if (sl_trainer_load(F->a, file, NULL, F->o->res, &quiet, &t) < 0) {
		note(F, sl_arena_printf(F->a, "config %s (%s) not read: %s", file, why,
					quiet.n ? quiet.v[0].message : "not a mapping"));
		return;
	}
	note(F, sl_arena_printf(F->a, "config %s (%s): %zu value%s", file, why, t->n, t->n == 1 ? "" : "s"));
	/* each value says how the program came to read it */
	struct sl_cfg_entry *es = sl_arena_array(F->a, t->n ? t->n : 1, sizeof *es);
	for (size_t i = 0; i < t->n; i++) {
		es[i] = t->entries[i];
		es[i].how = why;
	}
	t->entries = es;
	add_settings(F, t);
}

/* The config files one Python file loads by a literal name; an argparse default the sweep replaces is not. */
static void load_named_configs(struct follow *F, const struct sl_pyread *r, const char *file)
{
	for (size_t i = 0; i < r->nconfigs; i++) {
		const struct sl_pyconfig *c = &r->configs[i];
		if (c->dest && sl_sweep_param(F->sw, c->dest))
			continue; /* the sweep's value names the file (load_sweep_configs) */
		load_config(F, c->path, sl_path_dir(F->a, file),
			    sl_arena_printf(F->a, "%s at %s:%u", c->how, file, c->line));
	}
}

/* A sweep value naming a config file: `config_path: configs/data/subset.yaml`. */
static void load_sweep_configs(struct follow *F)
{
	const struct sl_sweep *sw = F->sw;
	for (size_t i = 0; i < sw->nparams; i++) {
		const struct sl_param *p = &sw->params[i];
		if (p->is_dict || !(strstr(p->name, "config") || strstr(p->name, "cfg")))
			continue;
		bool several = false;
		const struct sl_node *v = single_value(sw, p->path, &several);
		if (several) {
			note(F, sl_arena_printf(F->a, "config files named by the sweep's %s vary: not read", p->path));
			continue;
		}
		size_t n = v ? strlen(v->text) : 0;
		if (!v || !((n > 5 && strcmp(v->text + n - 5, ".yaml") == 0) || (n > 4 && strcmp(v->text + n - 4, ".yml") == 0) ||
			    (n > 5 && strcmp(v->text + n - 5, ".json") == 0)))
			continue;
		load_config(F, v->text, NULL,
			    sl_arena_printf(F->a, "named by the sweep's %s at line %u", p->path, v->span.line));
	}
}

/* A config file named by a `command:` item: `llamafactory-cli train cfg.yaml`, `--config cfg.yaml` (NULL: none). */
static const char *command_config(const struct sl_cmd_item *c)
{
	const char *v = NULL;
	if (c->kind == SL_CMD_LITERAL && c->node && c->node->kind == SL_NODE_SCALAR && c->node->text[0] != '-')
		v = c->node->text;
	else if (c->kind == SL_CMD_OPTION && !c->value_is_macro && c->key && c->value &&
		 (strstr(c->key, "config") || strstr(c->key, "cfg")))
		v = c->value;
	size_t n = v ? strlen(v) : 0;
	if (!v || strchr(v, '$') || strchr(v, '=') ||
	    !((n > 5 && strcmp(v + n - 5, ".yaml") == 0) || (n > 4 && strcmp(v + n - 4, ".yml") == 0) ||
	      (n > 5 && strcmp(v + n - 5, ".json") == 0)))
		return NULL;
	return v;
}

/* The config files the sweep's command names, below the sweep's own values (W&B appends ${args} after). */
static void load_command_configs(struct follow *F)
{
	const struct sl_sweep *sw = F->sw;
	for (size_t i = 0; i < sw->ncmd; i++) {
		const char *v = command_config(&sw->cmd[i]);
		if (v)
			load_config(F, v, NULL,
				    sl_arena_printf(F->a, "named by the command at line %u", sw->cmd[i].node->span.line));
	}
}

static bool command_names_config(const struct sl_sweep *sw)
{
	for (size_t i = 0; i < sw->ncmd; i++)
		if (command_config(&sw->cmd[i]))
			return true;
	return false;
}

static void ignore_param(struct follow *F, const char *name)
{
	struct sl_program *p = F->p;
	p->ignore_params = sl_arena_grow(F->a, p->ignore_params, p->nignore_params, p->nignore_params + 1,
					 sizeof *p->ignore_params);
	p->ignore_params[p->nignore_params++] = name;
}

/* The Hydra config a file composes, with the sweep's group choices. */
static void compose_hydra(struct follow *F, const struct sl_pyread *r, const char *file)
{
	/* the decorator's config_path; .sweeplint.yaml config_dir when the program gives none */
	const char *dir = r->hydra_path ? join(F->a, sl_path_dir(F->a, file), r->hydra_path) : F->o->config_dir;
	if (!dir) {
		note(F, sl_arena_printf(F->a, "hydra: %s:%u gives no literal config_path (set config_dir in .sweeplint.yaml)",
					file, r->hydra_line));
		return;
	}
	dir = sl_path_tidy(F->a, dir);
	if (!is_dir(dir)) {
		note(F, sl_arena_printf(F->a, "hydra: config folder %s (%s:%u) not found", dir, file, r->hydra_line));
		return;
	}
	struct sl_hydra_choice ch[64];
	size_t n = 0;
	const struct sl_sweep *sw = F->sw;
	/* sweep parameters that name a group (a folder under the config path) choose its option */
	for (size_t i = 0; i < sw->nparams && n < 64; i++) {
		const struct sl_param *p = &sw->params[i];
		if (p->is_dict || !is_dir(sl_arena_printf(F->a, "%s/%s", dir, p->path)))
			continue;
		bool several = false;
		const struct sl_node *v = single_value(sw, p->path, &several);
		ignore_param(F, p->path);
		if (several || !v) {
			ch[n++] = (struct sl_hydra_choice){.group = p->path, .varied = true};
			continue;
		}
		ch[n++] = (struct sl_hydra_choice){.group = p->path, .option = v->text};
	}
	/* literal group=option words of the command */
	for (size_t i = 0; i < sw->ncmd && n < 64; i++) {
		const struct sl_cmd_item *c = &sw->cmd[i];
		if (c->kind == SL_CMD_OPTION && !c->hyphens && c->key && c->value && !c->value_is_macro &&
		    is_dir(sl_arena_printf(F->a, "%s/%s", dir, c->key)))
			ch[n++] = (struct sl_hydra_choice){.group = c->key, .option = c->value};
	}
	struct sl_hydra h;
	int rc = sl_hydra_compose(F->a, dir, r->hydra_name, ch, n, F->o->res, &h);
	for (size_t i = 0; i < h.nnotes; i++)
		note(F, h.notes[i]);
	if (rc < 0)
		return;
	note(F, sl_arena_printf(F->a, "hydra: %s/%s.yaml composed from %zu file%s (%s:%u)", dir, r->hydra_name,
				h.nconfigs, h.nconfigs == 1 ? "" : "s", file, r->hydra_line));
	for (size_t i = 0; i < h.nconfigs; i++)
		add_settings(F, h.configs[i]);
}

/* The entry a config path names among the settings read so far (the last one; a unique suffix match), or NULL. */
static const struct sl_cfg_entry *lookup(struct follow *F, const char *path, const struct sl_trainer **in)
{
	const struct sl_program *p = F->p;
	for (size_t i = p->nsettings; i-- > 0;) {
		const struct sl_cfg_entry *e = sl_trainer_get(p->settings[i], path);
		if (e) {
			*in = p->settings[i];
			return e;
		}
	}
	/* cfg.model.name where the file put it under a package: one key ending in .model.name */
	const struct sl_cfg_entry *found = NULL;
	size_t n = strlen(path);
	for (size_t i = p->nsettings; i-- > 0;)
		for (size_t k = 0; k < p->settings[i]->n; k++) {
			const struct sl_cfg_entry *e = &p->settings[i]->entries[k];
			size_t m = strlen(e->key);
			if (m > n && e->key[m - n - 1] == '.' && strcmp(e->key + m - n, path) == 0) {
				if (found && strcmp(found->node->text ? found->node->text : "", e->node->text ? e->node->text : "") != 0)
					return NULL;
				if (!found) {
					found = e;
					*in = p->settings[i];
				}
			}
		}
	return found;
}

/* Keywords read from a config object (from_pretrained(cfg.model.name)): the value the configs give them. */
static void resolve_refs(struct follow *F, const struct sl_pyread *r, const char *file)
{
	for (size_t i = 0; i < r->nrefs; i++) {
		const struct sl_pyref *ref = &r->refs[i];
		if (sl_sweep_param(F->sw, ref->path)) {
			note(F, sl_arena_printf(F->a, "%s:%u: %s: the sweep's %s gives it", file, ref->line, ref->how,
						ref->path));
			continue;
		}
		const struct sl_trainer *in = NULL;
		const struct sl_cfg_entry *e = lookup(F, ref->path, &in);
		if (!e || e->node->kind != SL_NODE_SCALAR)
			continue;
		struct sl_trainer *t = sl_arena_alloc(F->a, sizeof *t);
		*t = *in;
		t->from_program = true;
		t->entries = sl_arena_alloc(F->a, sizeof *t->entries);
		t->n = 1;
		t->entries[0] = (struct sl_cfg_entry){
			.key = ref->key,
			.node = e->node,
			.how = sl_arena_printf(F->a, "%s at %s:%u", ref->how, file, ref->line),
		};
		add_settings(F, t);
	}
}

struct sl_program *sl_program_follow(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_program_opts *o)
{
	struct sl_program_ref ref;
	bool ok = sl_program_find(a, sw, o, &ref);
	if (!ok && !ref.how && !command_names_config(sw))
		return NULL;
	struct follow F = {.a = a, .sw = sw, .o = o};
	F.p = sl_arena_alloc(a, sizeof *F.p);
	F.p->ref = ref;
	F.p->trains = -1;
	if (!ok) {
		if (ref.how)
			note(&F, sl_arena_printf(a, "program not followed: %s", ref.how));
		load_command_configs(&F);
		load_sweep_configs(&F);
		return F.p;
	}
	if (!(strlen(ref.path) > 3 && strcmp(ref.path + strlen(ref.path) - 3, ".py") == 0)) {
		note(&F, sl_arena_printf(a, "program %s (%s): not a Python file, not read", ref.path, ref.how));
		load_command_configs(&F);
		load_sweep_configs(&F);
		return F.p;
	}
	note(&F, sl_arena_printf(a, "program %s (%s)", ref.path, ref.how));
	struct sl_pyread *main_r = sl_pyread_file(a, ref.path, o);
	F.seen[F.nseen++] = ref.path;
	if (main_r->error) {
		note(&F, sl_arena_printf(a, "program not read: %s", main_r->error));
		load_command_configs(&F);
		load_sweep_configs(&F);
		if (ref.shell && ref.shell->n)
			add_settings(&F, ref.shell);
		return F.p;
	}
	add_notes(&F, main_r, ref.path);
	int trains = main_r->trains;
	/* local modules it imports: found beside it or under its project folder, read before it (lower precedence) */
	struct sl_pyread *mods[SL_PROGRAM_MAX_MODULES];
	const char *mod_files[SL_PROGRAM_MAX_MODULES];
	size_t nmods = 0;
	const char *dirs[2] = {sl_path_dir(a, ref.path), ref.root};
	/* bounded by the modules tried (F.seen's room), not only those read: a module that fails to parse
	 * counts too (12 broken modules wrote past seen[]: shared/hostile/turn3/follow-seen-overflow) */
	for (size_t i = 0; i < main_r->nimports && F.nseen < SL_PROGRAM_MAX_MODULES + 1; i++) {
		const char *file = NULL;
		for (size_t d = 0; d < 2 && !file; d++)
			if (dirs[d])
				file = module_file(a, dirs[d], main_r->imports[i]);
		if (!file || seen(&F, file))
			continue;
		F.seen[F.nseen++] = file;
		struct sl_pyread *r = sl_pyread_file(a, file, o);
		if (r->error) {
			note(&F, sl_arena_printf(a, "module %s not read: %s", main_r->imports[i], r->error));
			continue;
		}
		add_notes(&F, r, file);
		if (r->trains == 1 || (r->trains == 0 && trains == -1))
			trains = r->trains;
		mods[nmods] = r;
		mod_files[nmods++] = file;
		if (r->settings && r->settings->n) {
			add_settings(&F, r->settings);
			note(&F, sl_arena_printf(a, "module %s (%s): %zu literal setting%s", main_r->imports[i], file,
						 r->settings->n, r->settings->n == 1 ? "" : "s"));
		}
	}
	F.p->trains = trains;
	if (main_r->settings && main_r->settings->n)
		add_settings(&F, main_r->settings);
	/* the configs they load, over the literals; Hydra; a config the sweep names; a shell script's options */
	for (size_t i = 0; i < nmods; i++)
		load_named_configs(&F, mods[i], mod_files[i]);
	load_named_configs(&F, main_r, ref.path);
	for (size_t i = 0; i < nmods; i++)
		if (mods[i]->hydra_name)
			compose_hydra(&F, mods[i], mod_files[i]);
	if (main_r->hydra_name)
		compose_hydra(&F, main_r, ref.path);
	load_command_configs(&F);
	load_sweep_configs(&F);
	for (size_t i = 0; i < nmods; i++)
		resolve_refs(&F, mods[i], mod_files[i]);
	resolve_refs(&F, main_r, ref.path);
	if (ref.shell && ref.shell->n)
		add_settings(&F, ref.shell);
	if (trains == 0) {
		note(&F, "the program only runs inference (generate / vLLM, no optimizer or trainer): its settings "
			 "are not used for a training estimate");
		F.p->nsettings = 0;
	}
	return F.p;
}
