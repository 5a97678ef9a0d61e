/*
 * follow: a sweep's program, the local modules it imports, the config files
 * they load (by a literal name, an argparse default, or a name the sweep
 * gives), its Hydra composition and the options a shell script passes to
 * it, read into trainer configs (lowest precedence first) with notes for -v.
 * Every file is read only when its realpath lies inside the project root
 * (path.h): the evaluator is given that root for the modules it reads, and
 * a config or Hydra file outside it is refused with a note naming it.
 */
#include "sweeplint/path.h"
#include "sweeplint/program.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

#define MAX_READ 32                /* config files the evaluator may ask for */
/* config values sent to the evaluator in all (a Hydra composition of 63 files of 1,500 keys each is 94,500:
 * past it the composition is still overlaid whole, the evaluator does not follow its values) */
#define MAX_SERVED_VALUES 20000

struct follow {
	struct sl_arena *a;
	const struct sl_sweep *sw;
	const struct sl_program_opts *o;
	const char *root;                  /* the project root (path.h): nothing outside it is read */
	struct sl_program *p;
	size_t cap_notes;
	const char *loaded[32];            /* config files already overlaid */
	size_t nloaded;
	/* configs read for the evaluator (file -> trainer), and the Hydra composition it asked for */
	const char *read_path[MAX_READ];
	struct sl_trainer *read_cfg[MAX_READ];
	size_t nread;
	size_t served_values;              /* config values sent to the evaluator so far (MAX_SERVED_VALUES) */
	struct sl_hydra hydra;
	bool hydra_done;
	const char *hydra_file;
	unsigned hydra_line;
	const char *hydra_dirname;
	struct sl_pyeval_io io;
	/* a script the program launches (launch.c-like reading in launched()): its options, the request's
	 * argv and argv_values, replacing the sweep's command; launched: the program read is that script */
	json_t *launch_argv, *launch_values;
	bool launched;
	bool launch_passes;                /* some option carries a sweep value */
	struct sl_trainer *launch_opts;    /* the literal options it passes, as a shell line's (run.sh passes --x) */
	bool stated_configs;               /* adding configs the sweep or its command names (not the program's) */
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

static void add_settings(struct follow *F, struct sl_trainer *t)
{
	struct sl_program *p = F->p;
	p->settings = sl_arena_grow(F->a, p->settings, p->nsettings, p->nsettings + 1, sizeof *p->settings);
	if (p->ref.guessed) {
		p->settings_guessed = sl_arena_grow(F->a, p->settings_guessed, p->nsettings, p->nsettings + 1,
						    sizeof *p->settings_guessed);
		p->settings_guessed[p->nsettings] = !F->stated_configs;
	}
	p->settings[p->nsettings++] = t;
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

/*
 * A config file named by path, looked up beside the file that names it, the project root, the sweep:
 * the first found inside the project (path.h). NULL when none is; *refused then names the first found
 * outside it (NULL when none exists at all).
 */
static const char *find_config(struct follow *F, const char *path, const char *from_dir, const char **refused)
{
	const char *dirs[4] = {from_dir, F->p->ref.root, F->o->sweep_dir, F->o->config_dir};
	*refused = NULL;
	for (size_t i = 0; i < 4; i++) {
		const char *cand = path[0] == '/' ? path : dirs[i] ? join(F->a, dirs[i], path) : NULL;
		if (!cand || !is_file(cand))
			continue;
		cand = sl_path_tidy(F->a, cand);
		if (sl_path_contain(F->a, F->root, cand, NULL) == SL_CONTAIN_INSIDE)
			return cand;
		if (!*refused)
			*refused = cand;
		if (path[0] == '/')
			break;
	}
	return NULL;
}

/* The config in file, read once (NULL with *why when it cannot be read, or is outside the project). */
static struct sl_trainer *read_config(struct follow *F, const char *file, const char **why)
{
	/* wandb.sweep(yaml.safe_load(open("sweep.yaml"))): the sweep's definition, not the run's settings */
	const char *sweep_file = F->sw->doc && F->sw->doc->src ? F->sw->doc->src->path : NULL;
	struct stat a, b;
	if (sweep_file && stat(sweep_file, &a) == 0 && stat(file, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino) {
		*why = "the sweep's own file (the program hands it to wandb.sweep): not a config of the run";
		return NULL;
	}
	for (size_t i = 0; i < F->nread; i++)
		if (strcmp(F->read_path[i], file) == 0) {
			if (!F->read_cfg[i])
				*why = "cannot be read";
			return F->read_cfg[i];
		}
	struct sl_trainer *t = NULL;
	if (sl_path_contain(F->a, F->root, file, NULL) != SL_CONTAIN_INSIDE) {
		*why = sl_path_refusal(F->a, file, F->root);
	} else if (sl_config_memo_load(F->o->configs, F->a, file, F->o->res, &t, why) < 0) {
		t = NULL; /* the run's config, shared with its other sweeps: read, never changed, here */
	}
	if (F->nread < MAX_READ) {
		F->read_path[F->nread] = file;
		F->read_cfg[F->nread++] = t;
	}
	return t;
}

/* Keys by which a config names others it builds on (mmcv _base_, include/includes, extends, inherit, and a
 * defaults list outside Hydra): their values first, this file's over them. */
static const char *const INCLUDE_KEYS[] = {"include", "includes", "_include_", "_base_", "base", "extends", "inherit",
					   "defaults"};

#define MAX_INCLUDE_DEPTH 4
#define MAX_CHAIN 16

static bool include_key(const char *key)
{
	for (size_t i = 0; i < sizeof INCLUDE_KEYS / sizeof INCLUDE_KEYS[0]; i++)
		if (strcmp(key, INCLUDE_KEYS[i]) == 0)
			return true;
	return false;
}

/* The file an include entry names, beside the including file ("base" -> base.yaml), or NULL. */
static const char *include_file(struct follow *F, const char *name, const char *dir)
{
	size_t n = strlen(name);
	bool suffixed = (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
			(n > 5 && strcmp(name + n - 5, ".json") == 0);
	const char *cand = join(F->a, dir, suffixed ? name : sl_arena_printf(F->a, "%s.yaml", name));
	if (!is_file(cand))
		return NULL;
	cand = sl_path_tidy(F->a, cand);
	return sl_path_contain(F->a, F->root, cand, NULL) == SL_CONTAIN_INSIDE ? cand : NULL;
}

/*
 * The configs file builds on, then file itself without its include keys: out[0..return), lowest first
 * (each its own trainer: every value keeps its own file:line:col). An include of a file already in the
 * chain (a config that includes itself, two that include each other) is a note, not read again.
 */
static size_t read_chain(struct follow *F, const char *file, const struct sl_trainer **out, size_t max,
			 const char **chain, size_t depth, const char **why)
{
	struct sl_trainer *t = read_config(F, file, why);
	if (!t)
		return 0;
	size_t n = 0;
	chain[depth] = file;
	bool includes = false;
	for (size_t i = 0; i < t->n; i++)
		includes |= !strchr(t->entries[i].key, '.') && include_key(t->entries[i].key);
	if (!includes) {
		out[n++] = t;
		return n;
	}
	for (size_t i = 0; i < t->n && n < max; i++) {
		const struct sl_cfg_entry *e = &t->entries[i];
		if (strchr(e->key, '.') || !include_key(e->key))
			continue;
		size_t m = e->node->kind == SL_NODE_SEQ ? e->node->n : 1;
		for (size_t k = 0; k < m && n < max; k++) {
			const struct sl_node *it = e->node->kind == SL_NODE_SEQ ? e->node->items[k] : e->node;
			if (it->kind != SL_NODE_SCALAR || !it->text_len)
				continue;
			const char *inc = include_file(F, it->text, sl_path_dir(F->a, file));
			if (!inc)
				continue;
			bool cycle = false;
			for (size_t c = 0; c <= depth; c++)
				cycle |= strcmp(chain[c], inc) == 0;
			if (cycle || depth + 1 >= MAX_INCLUDE_DEPTH) {
				note(F, sl_arena_printf(F->a, "config %s: %s %s: %s", file, e->key, it->text,
							cycle ? "includes a config already included (a cycle): not read again"
							      : "includes nested too deep: not read"));
				continue;
			}
			const char *inc_why = NULL;
			n += read_chain(F, inc, out + n, max - n, chain, depth + 1, &inc_why);
		}
	}
	/* the file itself, without the keys that named the others */
	struct sl_trainer *own = sl_arena_alloc(F->a, sizeof *own);
	*own = *t;
	own->entries = sl_arena_array(F->a, t->n ? t->n : 1, sizeof *own->entries);
	own->n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (strchr(t->entries[i].key, '.') || !include_key(t->entries[i].key))
			own->entries[own->n++] = t->entries[i];
	if (n < max)
		out[n++] = own;
	return n;
}

/* Whether key is prefix or under it (prefix.x). */
static bool under(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(key, prefix, n) == 0 && (key[n] == '\0' || key[n] == '.');
}

/*
 * Whether the program takes the config's key: under a key it reads (pc->reads: a value or a sub-mapping
 * read there) or one a keyword of it reads from an object the evaluation does not show (r->refs), resolved
 * against the configs. pc NULL or pc->reads NULL: all of it.
 */
static bool taken(const char *key, const struct sl_pyconfig *pc, const struct sl_pyread *r)
{
	if (!pc || !pc->reads)
		return true;
	for (size_t i = 0; i < pc->nreads; i++)
		if (under(key, pc->reads[i]))
			return true;
	for (size_t i = 0; r && i < r->nrefs; i++)
		if (under(key, r->refs[i].path) || under(r->refs[i].path, key))
			return true;
	return false;
}

/* "retriever, tokenizer.name" (the first few keys the program takes), for a note. */
static const char *reads_shown(struct sl_arena *a, const struct sl_pyconfig *pc)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	size_t shown = 0;
	for (size_t i = 0; i < pc->nreads && shown < 6; i++) {
		bool inner = false; /* retriever.model under retriever: retriever says it */
		for (size_t k = 0; k < pc->nreads && !inner; k++)
			inner = k != i && under(pc->reads[i], pc->reads[k]) && strcmp(pc->reads[i], pc->reads[k]) != 0;
		if (inner)
			continue;
		sl_buf_addf(&b, "%s%s", shown++ ? ", " : "", pc->reads[i]);
	}
	return b.buf;
}

static void load_config(struct follow *F, const char *path, const char *from_dir, const char *why,
			const struct sl_pyconfig *pc, const struct sl_pyread *r)
{
	const char *refused = NULL;
	const char *file = find_config(F, path, from_dir, &refused);
	if (!file) {
		note(F, refused ? sl_arena_printf(F->a, "config %s (%s): %s", path, why,
						  sl_path_refusal(F->a, refused, F->root))
				: sl_arena_printf(F->a, "config %s (%s): not found", path, why));
		return;
	}
	for (size_t i = 0; i < F->nloaded; i++)
		if (strcmp(F->loaded[i], file) == 0)
			return;
	if (F->nloaded == sizeof F->loaded / sizeof F->loaded[0])
		return;
	F->loaded[F->nloaded++] = file;
	const char *bad = NULL;
	const struct sl_trainer *ts[MAX_CHAIN];
	const char *chain[MAX_INCLUDE_DEPTH];
	size_t nt = read_chain(F, file, ts, MAX_CHAIN, chain, 0, &bad);
	if (!nt) {
		note(F, sl_arena_printf(F->a, "config %s (%s) not read: %s", file, why, bad));
		return;
	}
	for (size_t k = 0; k < nt; k++) {
		const struct sl_trainer *t = ts[k];
		/* each value says how the program came to read it; only the subtrees it takes are mapped (a second
		 * model or length elsewhere in the file must not win: the program never reads it) */
		struct sl_trainer *c = sl_arena_alloc(F->a, sizeof *c);
		*c = *t;
		struct sl_cfg_entry *es = sl_arena_array(F->a, t->n ? t->n : 1, sizeof *es);
		size_t n = 0;
		for (size_t i = 0; i < t->n; i++) {
			if (!taken(t->entries[i].key, pc, r))
				continue;
			es[n] = t->entries[i];
			es[n++].how = why;
		}
		c->entries = es;
		c->n = n;
		const char *head = k + 1 < nt ? sl_arena_printf(F->a, "config %s (included by %s)", t->src->display, file)
					      : sl_arena_printf(F->a, "config %s (%s)", file, why);
		note(F, n == t->n ? sl_arena_printf(F->a, "%s: %zu value%s", head, t->n, t->n == 1 ? "" : "s")
				  : sl_arena_printf(F->a, "%s: %zu value%s, %zu mapped: the program takes only %s", head,
						    t->n, t->n == 1 ? "" : "s", n, reads_shown(F->a, pc)));
		add_settings(F, c);
	}
}

/* The config files one Python file loads by a literal name; an argparse default the sweep replaces is not. */
static void load_named_configs(struct follow *F, const struct sl_pyread *r, const char *file)
{
	for (size_t i = 0; i < r->nconfigs; i++) {
		const struct sl_pyconfig *c = &r->configs[i];
		if (c->dest && sl_sweep_param(F->sw, c->dest))
			continue; /* the sweep's value names the file (load_sweep_configs) */
		const char *from = c->from ? c->from : file;
		load_config(F, c->path, sl_path_dir(F->a, from),
			    sl_arena_printf(F->a, "%s at %s:%u", c->how, from, c->line), c, r);
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
			    sl_arena_printf(F->a, "named by the sweep's %s at line %u", p->path, v->span.line), NULL, NULL);
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
				    sl_arena_printf(F->a, "named by the command at line %u", sw->cmd[i].node->span.line), NULL,
				    NULL);
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

/*
 * The Hydra config `name` under config_path (relative to the file naming it) composes, with the
 * sweep's group choices, into F->hydra (once); 0, or -1 when it cannot be composed (a note says why).
 */
static int compose_hydra_at(struct follow *F, const char *config_path, const char *name, const char *file,
			    unsigned line)
{
	if (F->hydra_done)
		return F->hydra.nconfigs ? 0 : -1;
	F->hydra_done = true;
	F->hydra_file = file;
	F->hydra_line = line;
	/* the decorator's config_path; .sweeplint.yaml config_dir when the program gives none */
	const char *dir = config_path ? join(F->a, sl_path_dir(F->a, file), config_path) : F->o->config_dir;
	if (!dir) {
		note(F, sl_arena_printf(F->a, "hydra: %s:%u gives no literal config_path (set config_dir in .sweeplint.yaml)",
					file, line));
		return -1;
	}
	dir = sl_path_tidy(F->a, dir);
	if (!is_dir(dir)) {
		note(F, sl_arena_printf(F->a, "hydra: config folder %s (%s:%u) not found", dir, file, line));
		return -1;
	}
	if (sl_path_contain(F->a, F->root, dir, NULL) != SL_CONTAIN_INSIDE) {
		note(F, sl_arena_printf(F->a, "hydra: config folder (%s:%u) %s", file, line,
					sl_path_refusal(F->a, dir, F->root)));
		return -1;
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
	int rc = sl_hydra_compose(F->a, dir, F->root, name, ch, n, F->o->res, F->o->configs, &F->hydra);
	for (size_t i = 0; i < F->hydra.nnotes; i++)
		note(F, F->hydra.notes[i]);
	if (rc < 0) {
		F->hydra.nconfigs = 0;
		return -1;
	}
	F->hydra_dirname = sl_arena_printf(F->a, "%s/%s.yaml", dir, name);
	return 0;
}

/* The composition, over the configs loaded: after the evaluation (which may have asked for it already). */
static void compose_hydra(struct follow *F, const struct sl_pyread *r, const char *file)
{
	if (compose_hydra_at(F, r->hydra_path, r->hydra_name, r->hydra_from ? r->hydra_from : file, r->hydra_line) < 0)
		return;
	note(F, sl_arena_printf(F->a, "hydra: %s composed from %zu file%s (%s:%u)", F->hydra_dirname,
				F->hydra.nconfigs, F->hydra.nconfigs == 1 ? "" : "s", F->hydra_file, F->hydra_line));
	for (size_t i = 0; i < F->hydra.nconfigs; i++)
		add_settings(F, F->hydra.configs[i]);
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
static void resolve_refs(struct follow *F, const struct sl_pyread *r, const char *main_file)
{
	for (size_t i = 0; i < r->nrefs; i++) {
		const struct sl_pyref *ref = &r->refs[i];
		const char *file = ref->from ? ref->from : main_file;
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

/* ---- the evaluator's request and the files it asks for ---- */

static const char *shown_path(struct sl_arena *a, const char *abs);


/* A YAML scalar (or a list of them) as the JSON value Python reads it as; NULL for anything else. */
static json_t *node_json(const struct sl_node *n, unsigned depth)
{
	if (n->kind == SL_NODE_SEQ && depth == 0) {
		json_t *arr = json_array();
		for (size_t i = 0; i < n->n; i++) {
			json_t *x = node_json(n->items[i], 1);
			if (!x) {
				json_decref(arr);
				return NULL;
			}
			json_array_append_new(arr, x);
		}
		return arr;
	}
	if (n->kind != SL_NODE_SCALAR)
		return NULL;
	switch (n->value.type) {
	case SL_V_INT:
		return n->value.big ? NULL : json_integer((json_int_t)n->value.i);
	case SL_V_FLOAT:
		return isfinite(n->value.f) ? json_real(n->value.f) : NULL;
	case SL_V_BOOL:
		return json_boolean(n->value.b);
	case SL_V_NULL:
		return json_null();
	default:
		return json_stringn(n->text, n->text_len); /* NULL for text that is not UTF-8 */
	}
}

static json_t *config_json(const struct sl_trainer *t)
{
	json_t *vals = json_array();
	for (size_t i = 0; i < t->n; i++) {
		json_t *v = node_json(t->entries[i].node, 0);
		if (v)
			json_array_append_new(vals, json_pack("[so]", t->entries[i].key, v));
	}
	return json_pack("{s:s,s:o}", "display", t->src->display, "values", vals);
}

static void serve(struct follow *F, struct sl_trainer *t)
{
	F->io.served = sl_arena_grow(F->a, F->io.served, F->io.nserved, F->io.nserved + 1, sizeof *F->io.served);
	F->io.served[F->io.nserved++] = t;
}

/* The evaluator asks for a config file (by the path the program gives) or the Hydra composition. */
static json_t *answer(void *ctx, const char *kind, const json_t *req)
{
	struct follow *F = ctx;
	const char *from = json_string_value(json_object_get(req, "from"));
	if (strcmp(kind, "config") == 0) {
		const char *path = json_string_value(json_object_get(req, "path"));
		if (!path || !from)
			return NULL;
		const char *refused = NULL;
		const char *file = find_config(F, path, sl_path_dir(F->a, shown_path(F->a, from)), &refused);
		if (!file)
			return json_pack("{s:s}", "error",
					 refused ? sl_path_refusal(F->a, refused, F->root) : "not found");
		const char *why = NULL;
		const struct sl_trainer *ts[MAX_CHAIN];
		const char *chain[MAX_INCLUDE_DEPTH];
		size_t nt = read_chain(F, file, ts, MAX_CHAIN, chain, 0, &why);
		if (!nt)
			return json_pack("{s:s}", "error", why ? why : "not read");
		size_t total = 0;
		for (size_t k = 0; k < nt; k++)
			total += ts[k]->n;
		if (F->served_values + total > MAX_SERVED_VALUES)
			return json_pack("{s:s}", "error", "too large for the evaluator: its values are not followed");
		F->served_values += total;
		/* the configs it builds on first: the evaluator merges them in this order */
		json_t *cs = json_array();
		for (size_t k = 0; k < nt; k++) {
			serve(F, (struct sl_trainer *)ts[k]);
			json_array_append_new(cs, config_json(ts[k]));
		}
		return json_pack("{s:o}", "configs", cs);
	}
	if (strcmp(kind, "hydra") == 0) {
		const char *name = json_string_value(json_object_get(req, "config_name"));
		if (!name || !from)
			return NULL;
		const char *cp = json_string_value(json_object_get(req, "config_path"));
		if (compose_hydra_at(F, cp ? sl_arena_strdup(F->a, cp) : NULL, sl_arena_strdup(F->a, name),
				     shown_path(F->a, from), (unsigned)json_integer_value(json_object_get(req, "line"))) < 0)
			return json_pack("{s:s}", "error", "not composed");
		size_t total = 0;
		for (size_t i = 0; i < F->hydra.nconfigs; i++)
			total += F->hydra.configs[i]->n;
		if (F->served_values + total > MAX_SERVED_VALUES)
			return json_pack("{s:s}", "error", "too large for the evaluator: its values are not followed");
		F->served_values += total;
		json_t *cs = json_array();
		for (size_t i = 0; i < F->hydra.nconfigs; i++) {
			serve(F, F->hydra.configs[i]);
			json_array_append_new(cs, config_json(F->hydra.configs[i]));
		}
		json_t *groups = json_array();
		for (size_t i = 0; i < F->p->nignore_params; i++)
			json_array_append_new(groups, json_string(F->p->ignore_params[i]));
		return json_pack("{s:o,s:o}", "configs", cs, "groups", groups);
	}
	return NULL;
}

/* How the command passes the sweep's parameters: "hyphens" (${args}), "no_hyphens", "json", or NULL. */
static const char *args_mode(const struct sl_sweep *sw)
{
	if (sw->default_command)
		return "hyphens";
	const char *mode = NULL;
	for (size_t i = 0; i < sw->ncmd; i++)
		switch (sw->cmd[i].kind) {
		case SL_CMD_ARGS:
		case SL_CMD_ARGS_NO_BOOLEAN_FLAGS:
			return "hyphens";
		case SL_CMD_ARGS_NO_HYPHENS:
			mode = "no_hyphens";
			break;
		case SL_CMD_ARGS_JSON:
		case SL_CMD_ARGS_JSON_FILE:
			if (!mode)
				mode = "json";
			break;
		default:
			break;
		}
	return mode;
}

static void add_argv(struct follow *F, json_t *argv, const char *key, const char *value, const struct sl_source *src,
		     const struct sl_node *node)
{
	json_t *item = value ? json_pack("[ssI]", key, value, (json_int_t)F->io.nargv) /* NULL: not UTF-8 */
			     : json_pack("[snI]", key, (json_int_t)F->io.nargv); /* a bare --flag */
	if (!item)
		return;
	size_t at = F->io.nargv;
	F->io.argv_src = sl_arena_grow(F->a, F->io.argv_src, at, at + 1, sizeof *F->io.argv_src);
	F->io.argv_node = sl_arena_grow(F->a, F->io.argv_node, at, at + 1, sizeof *F->io.argv_node);
	F->io.argv_src[at] = src;
	F->io.argv_node[at] = node;
	F->io.nargv++;
	json_array_append_new(argv, item);
}

/* The same for this program: a script that runs the sweep with wandb.agent(function=...) has no command line. */
static const char *run_args_mode(const struct follow *F)
{
	/* a launched script gets the words its launcher builds, not the sweep's ${args} */
	return F->p->ref.by_agent || F->o->in_process || F->launched ? NULL : args_mode(F->sw);
}

/* The request: the project root, the sweep's parameters and how they reach the program, the command's options. */
static const char *build_request(struct follow *F, unsigned long budget)
{
	const struct sl_sweep *sw = F->sw;
	json_t *req = json_object();
	json_object_set_new(req, "root", json_string(F->io.root));
	json_object_set_new(req, "shown_root", json_string(shown_path(F->a, F->io.root))); /* for the paths it names */
	json_t *params = json_object();
	for (size_t i = 0; i < sw->nparams; i++) {
		const struct sl_param *p = &sw->params[i];
		if (p->is_dict)
			continue;
		json_t *vals = NULL;
		if (p->dist == SL_DIST_CONSTANT && p->value) {
			json_t *x = node_json(p->value, 0);
			if (x)
				vals = json_pack("[o]", x);
		} else if ((p->dist == SL_DIST_CATEGORICAL || p->dist == SL_DIST_CATEGORICAL_W_PROBABILITIES) && p->values &&
			 p->values->kind == SL_NODE_SEQ && p->values->n <= 256) {
			vals = json_array();
			for (size_t k = 0; k < p->values->n; k++) {
				json_t *x = node_json(p->values->items[k], 0);
				if (!x) {
					json_decref(vals);
					vals = NULL;
					break;
				}
				json_array_append_new(vals, x);
			}
		}
		json_object_set_new(params, p->path,
				    vals ? json_pack("{s:o}", "values", vals) : json_pack("{s:b}", "range", 1));
	}
	json_object_set_new(req, "params", params);
	if (F->o->entry) {
		json_t *entry = json_array();
		for (const char *const *e = F->o->entry; *e; e++)
			json_array_append_new(entry, json_string(*e));
		json_object_set_new(req, "entry", entry);
	}
	/* run in this process (wandb.agent(function=...)): the command line is not the sweep's */
	const char *mode = run_args_mode(F);
	json_object_set_new(req, "args", mode ? json_string(mode) : json_null());
	json_t *argv = F->launch_argv ? json_incref(F->launch_argv) : json_array();
	if (F->launch_values)
		json_object_set(req, "argv_values", F->launch_values);
	for (size_t i = 0; i < sw->ncmd && !F->launched; i++) {
		const struct sl_cmd_item *c = &sw->cmd[i];
		if (c->kind == SL_CMD_OPTION && c->key && c->value && !c->value_is_macro && c->value_node)
			add_argv(F, argv, c->key, c->value, sw->doc->src, c->value_node);
		else if (c->kind == SL_CMD_LITERAL && c->node && c->node->kind == SL_NODE_SCALAR &&
			 strncmp(c->node->text, "--", 2) == 0 && c->node->text[2] && !strchr(c->node->text, '='))
			add_argv(F, argv, c->node->text + 2, NULL, sw->doc->src, c->node);
	}
	const struct sl_trainer *sh = F->p->ref.shell;
	for (size_t i = 0; sh && i < sh->n; i++)
		if (sh->entries[i].node->kind == SL_NODE_SCALAR)
			add_argv(F, argv, sh->entries[i].key, sh->entries[i].node->text, sh->src, sh->entries[i].node);
	json_object_set_new(req, "argv", argv);
	json_object_set_new(req, "budget", json_integer((json_int_t)budget));
	char *text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	const char *out = text ? sl_arena_strdup(F->a, text) : "{}";
	free(text);
	return out;
}

/* A path as shown: relative to the working folder when below it. */
static const char *shown_path(struct sl_arena *a, const char *abs)
{
	char cwd[4096];
	if (abs[0] == '/' && getcwd(cwd, sizeof cwd)) {
		char *rc = realpath(cwd, NULL);
		if (rc) {
			size_t n = strlen(rc);
			bool below = strncmp(abs, rc, n) == 0 && abs[n] == '/';
			bool same = strcmp(abs, rc) == 0;
			free(rc);
			if (same)
				return ".";
			if (below)
				return sl_arena_strdup(a, abs + n + 1);
		}
	}
	return sl_arena_strdup(a, abs);
}

/*
 * Whether the sweep's values reach the runs (sl_program.reaches): not when the command passes no
 * ${args*} and the program, read whole and to the end, reads no wandb.config where a call reaches.
 */
/* Whether the long options accept --KEY=...: argparse matches an option or a unique prefix of one
 * (allow_abbrev); '-' and '_' are taken as one here (fewer claims). A nested parameter (optimizer.lr) is
 * passed as its top-level key (--optimizer=...). */
static bool flag_accepts(const struct sl_pyread *r, const char *key)
{
	size_t kl = strcspn(key, "."); /* a nested parameter is passed as its top-level key's mapping */
	for (size_t i = 0; i < r->nargv_flags; i++) {
		const char *f = r->argv_flags[i] + 2;
		if (strlen(f) < kl)
			continue;
		bool same = true;
		for (size_t k = 0; k < kl && same; k++)
			same = f[k] == key[k] || ((f[k] == '-' || f[k] == '_') && (key[k] == '-' || key[k] == '_'));
		if (same)
			return true;
	}
	return false;
}

/*
 * With ${args} (--KEY=VALUE flags) given straight to a Python program whose command line only argparse's
 * parse_args() reads, every flag its parsers define shown (pyread.py argv_flags): the sweep parameters no
 * flag accepts. parse_args() exits on them ("unrecognized arguments"), so every run stops there.
 */
static void refused_flags(struct follow *F, const struct sl_pyread *r)
{
	struct sl_program *p = F->p;
	const char *mode = run_args_mode(F);
	if (!r->argv_closed || !mode || strcmp(mode, "hyphens") != 0 || p->ref.shell || !p->ref.how ||
	    strstr(p->ref.how, "which runs") || r->error || !r->complete)
		return;
	const struct sl_sweep *sw = F->sw;
	for (size_t i = 0; i < sw->nparams; i++) {
		const struct sl_param *q = &sw->params[i];
		if (q->is_dict || flag_accepts(r, q->path))
			continue;
		p->refused_params = sl_arena_grow(F->a, p->refused_params, p->nrefused_params, p->nrefused_params + 1,
						  sizeof *p->refused_params);
		p->refused_params[p->nrefused_params++] = q->path;
	}
}

/* Whether wandb.config gives the program q (read there, or read whole). */
static bool wandb_gives(const struct sl_pyread *r, const char *path)
{
	size_t top = strcspn(path, ".");
	for (size_t k = 0; k < r->nwandb_reads + r->nwandb_maybe; k++) {
		const char *w = k < r->nwandb_reads ? r->wandb_reads[k] : r->wandb_maybe[k - r->nwandb_reads];
		if (strcmp(w, "*") == 0 || strcmp(w, path) == 0 || (strlen(w) == top && strncmp(w, path, top) == 0))
			return true;
	}
	return false;
}

/*
 * Parameters parse_args() refuses stop every run (sweep-unread says so at each). The memory judgement
 * keeps their values (the runs the sweep means) unless the program provably replaces them: it assigns
 * wandb.config its own mapping (wandb.config = json.load(f)) and reads them only from there; then they
 * never reach the runs, and when that is all of them the sweep does not reach the run at all.
 */
static void judge_refused(struct follow *F, const struct sl_pyread *r)
{
	struct sl_program *p = F->p;
	const struct sl_sweep *sw = F->sw;
	p->reaches = 1;
	if (!p->wandb_replaced)
		return;
	p->args_why = sl_arena_printf(F->a, "%s's argparse parser defines no such flag (parse_args() exits on it: "
					    "unrecognized arguments)", p->ref.path);
	size_t params = 0;
	for (size_t i = 0; i < sw->nparams; i++)
		params += !sw->params[i].is_dict;
	for (size_t i = 0; i < p->nrefused_params; i++) {
		if (wandb_gives(r, p->refused_params[i]))
			continue;
		p->unread_params = sl_arena_grow(F->a, p->unread_params, p->nunread_params, p->nunread_params + 1,
						 sizeof *p->unread_params);
		p->unread_params[p->nunread_params++] = p->refused_params[i];
	}
	if (p->nunread_params < params)
		return;
	p->reaches = 0;
	p->reach_why = sl_arena_printf(F->a, "%s's argparse parser defines none of their flags (parse_args() exits on "
					     "them: unrecognized arguments) and the program replaces wandb.config with its "
					     "own values (%s)", p->ref.path, p->wandb_replaced);
	note(F, sl_arena_printf(F->a, "the sweep's values never reach the runs: %s (the program's own settings are "
				      "judged)", p->reach_why));
}

static void judge_reach(struct follow *F, const struct sl_pyread *r)
{
	struct sl_program *p = F->p;
	const struct sl_sweep *sw = F->sw;
	p->reaches = -1;
	p->args_passed = run_args_mode(F);
	p->in_process = F->o->in_process;
	p->wandb_replaced = r->wandb_replaced;
	if (p->ref.guessed)
		return; /* a program found by its name only: what it refuses or never reads is not claimed */
	if (F->launched) {
		/* the values reach the launched script through the options its launcher passes, or wandb.config (the
		 * child inherits the run's environment); a launcher may also hand them over in ways the text does
		 * not show (a file it writes, the environment): nothing is claimed when neither is seen */
		if (F->launch_passes || r->nwandb_reads)
			p->reaches = 1;
		return;
	}
	/* the command line carries the values only to a program that reads it */
	if (F->o->hp_search) {
		p->reaches = 1; /* Trainer.hyperparameter_search: the values reach trainer.args */
		return;
	}
	if (p->args_passed && r->reads_argv) {
		refused_flags(F, r);
		if (!p->nrefused_params) {
			p->reaches = 1;
			return;
		}
		judge_refused(F, r);
		return;
	}
	p->args_why = F->o->in_process ? "wandb.agent runs it in this process (no command line)"
		      : p->ref.by_agent ? sl_arena_printf(F->a, "%s runs it with wandb.agent (no command line)", p->ref.path)
		      : p->args_passed ? sl_arena_printf(F->a, "%s reads no command-line arguments", p->ref.path)
				       : "its command has no ${args}";
	if (r->nwandb_reads) {
		p->reaches = 1;
		/* only through wandb.config: a parameter the program never reads there does not reach its runs */
		bool all = false;
		for (size_t i = 0; i < r->nwandb_reads; i++)
			all |= strcmp(r->wandb_reads[i], "*") == 0;
		for (size_t i = 0; i < r->nwandb_maybe; i++)
			all |= strcmp(r->wandb_maybe[i], "*") == 0;
		if (all || r->error || !r->complete)
			return;
		for (size_t i = 0; i < sw->nparams; i++) {
			const struct sl_param *q = &sw->params[i];
			if (q->is_dict)
				continue;
			size_t top = strcspn(q->path, ".");
			bool read = false;
			for (size_t k = 0; k < r->nwandb_reads + r->nwandb_maybe && !read; k++) {
				const char *w = k < r->nwandb_reads ? r->wandb_reads[k] : r->wandb_maybe[k - r->nwandb_reads];
				read = strcmp(w, q->path) == 0 || (strlen(w) == top && strncmp(w, q->path, top) == 0);
			}
			if (read)
				continue;
			p->unread_params = sl_arena_grow(F->a, p->unread_params, p->nunread_params, p->nunread_params + 1,
							 sizeof *p->unread_params);
			p->unread_params[p->nunread_params++] = q->path;
		}
		return;
	}
	if (r->error || !r->complete || r->nwandb_maybe || sw->nparams == 0)
		return;
	if (r->trains < 0) {
		/* it neither trains nor generates where the text shows it (a train() that only calls wandb.init()):
		 * no settings of its own to judge instead, and no claim that the sweep is lost on it */
		note(F, sl_arena_printf(F->a, "%s and the program reads no wandb.config, but it shows no training or "
					      "generation of its own: the sweep's values are judged", p->args_why));
		return;
	}
	p->reaches = 0;
	p->reach_why = F->o->in_process ? "the function wandb.agent runs reads no wandb.config"
					: sl_arena_printf(F->a, "%s and the program reads no wandb.config", p->args_why);
	note(F, sl_arena_printf(F->a, "the sweep's values never reach the runs: %s (the program's own settings are "
				      "judged)", p->reach_why));
}


#define MAX_LAUNCH_DEPTH 2 /* a launched script that launches another is followed once more, no further */
#define MAX_LAUNCH_WORDS 256

/* A literal word of a launch (pylaunch.py {"t": text}), or NULL. */
static const char *word_text(const json_t *w)
{
	return json_string_value(json_object_get(w, "t"));
}

/* "--key" / "-k" (a letter after one dash): the option's name (without dashes, up to '='), else NULL. */
static const char *option_key(struct sl_arena *a, const char *t, const char **eq_value)
{
	*eq_value = NULL;
	if (!t)
		return NULL;
	size_t d = strncmp(t, "--", 2) == 0 ? 2 : t[0] == '-' && ((t[1] >= 'a' && t[1] <= 'z') || (t[1] >= 'A' && t[1] <= 'Z')) ? 1 : 0;
	if (!d || !t[d])
		return NULL;
	const char *eq = strchr(t, '=');
	if (eq) {
		*eq_value = eq + 1;
		return sl_arena_strndup(a, t + d, (size_t)(eq - t) - d);
	}
	return t + d;
}

/* A word present in some runs only (a map whose cases are one literal option or absent): that option. */
static const char *presence_option(struct sl_arena *a, const json_t *w)
{
	const json_t *cases = json_object_get(w, "cases");
	if (!json_is_string(json_object_get(w, "m")) || !json_is_array(cases))
		return NULL;
	const char *key = NULL;
	size_t i;
	const json_t *c;
	json_array_foreach(cases, i, c) {
		const json_t *cw = json_array_get(c, 1);
		if (json_object_get(cw, "absent"))
			continue;
		const char *eq = NULL;
		const char *k = option_key(a, word_text(cw), &eq);
		if (!k || eq || (key && strcmp(key, k) != 0))
			return NULL;
		key = k;
	}
	return key;
}

/* The request's argv item for one option of a launch: its value literal (text), or computed (spec). */
static void launch_option(struct follow *F, const struct sl_source *src, const struct sl_node *at, const char *key,
			  const char *text, const json_t *spec, bool flag)
{
	size_t idx = F->io.nargv;
	/* the option as written: the program's parser matches its flags so (--batch-size); the words are the
	 * launch's JSON, freed after this: copied */
	key = sl_arena_strdup(F->a, key);
	text = text ? sl_arena_strdup(F->a, text) : NULL;
	const char *kk = key;
	struct sl_node *n = sl_arena_alloc(F->a, sizeof *n);
	*n = *at;
	n->text = text ? text : "";
	n->text_len = strlen(n->text);
	n->value = sl_scalar_resolve(F->o->res ? F->o->res : sl_scalar_resolver_new(F->a), n->text, n->text_len, true,
				     NULL, NULL);
	add_argv(F, F->launch_argv, kk, flag ? NULL : n->text, src, n);
	if (!spec && F->launch_opts) {
		/* a literal option: a setting by its name too, as a shell script's python line gives them (argparse's
		 * type= is not applied by the evaluator: --max-length 1024 stays text there) */
		char *k = sl_arena_strdup(F->a, key);
		for (char *c = k; *c; c++)
			if (*c == '-')
				*c = '_';
		struct sl_node *v = n;
		if (flag) {
			v = sl_arena_alloc(F->a, sizeof *v);
			*v = *n;
			v->text = "true";
			v->text_len = 4;
			v->value = sl_scalar_resolve(F->o->res ? F->o->res : sl_scalar_resolver_new(F->a), "true", 4, true,
						     NULL, NULL);
		}
		struct sl_trainer *t = F->launch_opts;
		t->entries = sl_arena_grow(F->a, t->entries, t->n, t->n + 1, sizeof *t->entries);
		t->entries[t->n++] = (struct sl_cfg_entry){
			.key = k,
			.node = v,
			.how = sl_arena_printf(F->a, "%s:%u passes %s%s%s", src->display, at->span.line,
					       strlen(key) > 1 ? "--" : "-", key, flag ? " (a flag)" : ""),
		};
	}
	if (spec) {
		char key_idx[24];
		snprintf(key_idx, sizeof key_idx, "%zu", idx);
		json_object_set(F->launch_values, key_idx, (json_t *)spec);
		if (!json_object_get(spec, "u"))
			F->launch_passes = true;
	}
}

/* The options after the script (words[at+1..]): --key value, --key=value, a bare --flag, a flag passed
 * in some runs only; a positional or undecided word is skipped. */
static void launch_options(struct follow *F, const struct sl_source *src, const struct sl_node *node,
			   const json_t *words, size_t at)
{
	size_t n = json_array_size(words);
	for (size_t i = at + 1; i < n; i++) {
		const json_t *w = json_array_get(words, i);
		const char *eq = NULL;
		const char *key = option_key(F->a, word_text(w), &eq);
		if (key) {
			if (eq) {
				launch_option(F, src, node, key, eq, NULL, false);
				continue;
			}
			const json_t *next = i + 1 < n ? json_array_get(words, i + 1) : NULL;
			const char *eq2 = NULL;
			bool next_is_value = next && !json_object_get(next, "absent") && !presence_option(F->a, next) &&
					     !option_key(F->a, word_text(next), &eq2);
			if (next_is_value) {
				i++;
				if (word_text(next))
					launch_option(F, src, node, key, word_text(next), NULL, false);
				else
					launch_option(F, src, node, key, "", next, false);
			} else {
				launch_option(F, src, node, key, NULL, NULL, true);
			}
			continue;
		}
		key = presence_option(F->a, w);
		if (key) {
			/* a flag appended under a condition on a sweep parameter; with a value appended under the
			 * same condition (cmd += ["--r", str(cfg.r)] under `if cfg.lora:`), that value in those runs */
			const json_t *next = i + 1 < n ? json_array_get(words, i + 1) : NULL;
			if (next && json_equal(json_object_get(next, "m"), json_object_get(w, "m")) && !presence_option(F->a, next)) {
				json_t *spec = json_deep_copy(next);
				i++;
				launch_option(F, src, node, key, "", spec, false);
				json_decref(spec);
			} else {
				launch_option(F, src, node, key, NULL, w, true);
			}
		}
	}
}

/* The literal script words of one launch's words (NULL for a computed word). */
static size_t launch_words(struct sl_arena *a, const json_t *words, const char **w, size_t max)
{
	size_t n = json_array_size(words) < max ? json_array_size(words) : max;
	for (size_t i = 0; i < n; i++) {
		const json_t *x = json_array_get(words, i);
		const char *t = word_text(x);
		w[i] = t ? sl_arena_strdup(a, t) : NULL;
	}
	return n;
}

/* The scripts a word chosen by a sweep parameter names ("a.py, b.py"), or NULL. */
static const char *chosen_scripts(struct sl_arena *a, const json_t *words, const char **param)
{
	size_t i;
	const json_t *w;
	json_array_foreach(words, i, w) {
		const json_t *cases = json_object_get(w, "cases");
		if (!json_is_array(cases))
			continue;
		struct sl_buf b;
		sl_buf_init(&b, a);
		size_t k;
		const json_t *c;
		json_array_foreach(cases, k, c) {
			const char *t = word_text(json_array_get(c, 1));
			size_t l = t ? strlen(t) : 0;
			if (l > 3 && (strcmp(t + l - 3, ".py") == 0 || strcmp(t + l - 3, ".sh") == 0) && (!b.buf || !strstr(b.buf, t)))
				sl_buf_addf(&b, "%s%s", b.len ? ", " : "", t);
		}
		if (b.len && strchr(b.buf, ',')) {
			*param = json_string_value(json_object_get(w, "m"));
			return b.buf;
		}
	}
	return NULL;
}

/*
 * The program launches the trainer (subprocess.run([sys.executable, "train.py", "--bs", str(cfg.bs)])):
 * the script it launches becomes the program read, evaluated with the options the launch passes (the
 * sweep's values where they come from wandb.config). One script, decided by the text; several scripts
 * (or one script launched with different options, or one chosen by a sweep value) are not followed: a
 * note says so and the launching program stays the program read. Returns the launched script's
 * evaluation, or NULL.
 */
static struct sl_pyread *launched(struct follow *F, const struct sl_pyread *r, const char *current)
{
	struct sl_arena *a = F->a;
	bool any_reached = false;
	for (size_t i = 0; i < r->nlaunches; i++)
		any_reached |= r->launches[i].reached;
	const struct sl_pylaunch *pick = NULL;
	struct sl_program_ref pick_ref = {0};
	json_t *pick_words = NULL;
	size_t pick_at = 0;
	const char *several = NULL, *undecided = NULL;
	for (size_t i = 0; i < r->nlaunches && !several; i++) {
		const struct sl_pylaunch *l = &r->launches[i];
		if (l->reached != any_reached)
			continue;
		const char *where = sl_arena_printf(a, "%s:%u", l->shown, l->line);
		if (!l->words) {
			/* noted only in the program's own file (a module's git or nvidia-smi call is no trainer) */
			char *me = realpath(current, NULL), *it = realpath(l->file, NULL);
			if (me && it && strcmp(me, it) == 0 && !undecided)
				undecided = sl_arena_printf(a, "%s: %s launches a command the text does not show", where, l->how);
			free(me);
			free(it);
			continue;
		}
		json_t *words = json_loads(l->words, 0, NULL);
		if (!json_is_array(words)) {
			json_decref(words);
			continue;
		}
		const char *w[MAX_LAUNCH_WORDS];
		size_t n = launch_words(a, words, w, MAX_LAUNCH_WORDS);
		struct sl_program_ref ref;
		size_t at = 0;
		const char *param = NULL;
		const char *scripts = chosen_scripts(a, words, &param);
		if (!sl_program_find_launched(a, shown_path(a, l->file), w, n, sl_arena_printf(a, "%s: %s", where, l->how), F->o, &ref,
					      &at)) {
			if (scripts)
				undecided = sl_arena_printf(a, "%s: %s launches one of %s, as the sweep's %s chooses", where, l->how,
							    scripts, param);
			else if (ref.how)
				undecided = undecided ? undecided : ref.how;
			json_decref(words);
			continue;
		}
		if (!pick) {
			pick = l;
			pick_ref = ref;
			pick_words = words;
			pick_at = at;
			continue;
		}
		if (strcmp(ref.path, pick_ref.path) != 0)
			several = sl_arena_printf(a, "the program launches several scripts (%s at %s:%u, %s at %s): which one "
						     "trains is not decided", pick_ref.path, pick->shown, pick->line, ref.path, where);
		else if (!json_equal(words, pick_words))
			several = sl_arena_printf(a, "the program launches %s with different options (%s:%u, %s): which run "
						     "is meant is not decided", ref.path, pick->shown, pick->line, where);
		json_decref(words);
	}
	if (several || !pick) {
		if (several || undecided)
			note(F, sl_arena_printf(a, "launched script not followed: %s; the launching program is read",
						several ? several : undecided));
		json_decref(pick_words);
		return NULL;
	}
	char *me = realpath(current, NULL), *it = realpath(pick_ref.path, NULL);
	bool self = me && it && strcmp(me, it) == 0;
	free(me);
	free(it);
	if (self) {
		note(F, sl_arena_printf(a, "%s:%u: %s launches the program itself: not followed again", pick->shown,
					pick->line, pick->how));
		json_decref(pick_words);
		return NULL;
	}
	if (!(strlen(pick_ref.path) > 3 && strcmp(pick_ref.path + strlen(pick_ref.path) - 3, ".py") == 0)) {
		note(F, sl_arena_printf(a, "launched script not followed: %s (%s): not a Python file", pick_ref.path, pick_ref.how));
		json_decref(pick_words);
		return NULL;
	}
	/* the launching file's source, for the places of the options it passes */
	int err = 0;
	struct sl_source *src = sl_source_read(a, pick->file, SL_PROGRAM_MAX_BYTES, &err);
	if (!src) {
		json_decref(pick_words);
		return NULL;
	}
	src->display = pick->shown;
	struct sl_node *node = sl_arena_alloc(a, sizeof *node);
	node->kind = SL_NODE_SCALAR;
	node->weight = 1;
	size_t start = 0, end = 0;
	if (pick->line >= 1 && pick->line <= src->nlines)
		start = src->line_start[pick->line - 1] + pick->col;
	if (pick->end_line >= 1 && pick->end_line <= src->nlines)
		end = src->line_start[pick->end_line - 1] + pick->end_col;
	if (start > src->len)
		start = src->len;
	if (end < start || end > src->len)
		end = start;
	node->span = sl_source_span(src, start, end);
	/* the launched script's request: the launch's options, not the sweep's command */
	F->io.nargv = 0;
	F->io.argv_src = NULL;
	F->io.argv_node = NULL;
	F->io.served = NULL;
	F->io.nserved = 0;
	F->launched = true;
	F->launch_passes = false;
	F->launch_argv = json_array();
	F->launch_values = json_object();
	F->launch_opts = sl_arena_alloc(a, sizeof *F->launch_opts);
	F->launch_opts->path = src->path;
	F->launch_opts->src = src;
	F->launch_opts->from_program = true;
	launch_options(F, src, node, pick_words, pick_at);
	json_decref(pick_words);
	struct sl_program *p = F->p;
	p->ref.path = pick_ref.path;
	p->ref.root = pick_ref.root;
	p->ref.shell = pick_ref.shell;
	p->ref.shown = NULL;
	p->ref.by_agent = false;
	p->ref.how = sl_arena_printf(a, "%s, which runs %s", p->ref.how, pick_ref.how);
	note(F, sl_arena_printf(a, "program %s (launched by %s:%u: %s): the program read", pick_ref.path, pick->shown,
				pick->line, pick->how));
	char *root = realpath(pick_ref.root ? pick_ref.root : sl_path_dir(a, pick_ref.path), NULL);
	F->io.root = root ? sl_arena_strdup(a, root) : F->root;
	free(root);
	F->io.main = NULL;
	F->io.request = build_request(F, 0);
	json_decref(F->launch_argv);
	json_decref(F->launch_values);
	F->launch_argv = F->launch_values = NULL;
	struct sl_program_opts inner = *F->o;
	inner.code = NULL;
	inner.code_src = NULL;
	inner.entry = NULL;
	inner.in_process = false;
	return sl_pyread_eval(a, pick_ref.path, &inner, &F->io);
}

struct sl_program *sl_program_follow(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_program_opts *o)
{
	struct sl_program_opts with_root = *o;
	if (!with_root.root)
		with_root.root = sl_project_root(a, o->sweep_dir);
	o = &with_root;
	struct sl_program_ref ref;
	bool ok = sl_program_find(a, sw, o, &ref);
	if (!ok && !ref.how && !command_names_config(sw))
		return NULL;
	struct follow F = {.a = a, .sw = sw, .o = o, .root = o->root};
	F.p = sl_arena_alloc(a, sizeof *F.p);
	F.p->ref = ref;
	F.p->trains = -1;
	F.p->reaches = -1;
	if (!F.root) {
		/* no project to contain the reads in (the sweep's folder is gone): nothing is read */
		note(&F, sl_arena_printf(a, "program not followed: %s", ref.how ? ref.how : "no project folder"));
		return F.p;
	}
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
	note(&F, sl_arena_printf(a, "program %s (%s)", ref.shown ? ref.shown : ref.path, ref.how));
	if (ref.guessed)
		note(&F, sl_arena_printf(a, "%s (W&B runs it from the agent's working folder, which sweeplint does not "
					    "see: a verdict resting on it is at risk, never an error)", ref.guessed));
	/* one evaluation of the program and the local modules it imports, inside the folder the program was
	 * found from (within the project root; modules are shown relative to it) */
	char *root = realpath(ref.root ? ref.root : sl_path_dir(a, ref.path), NULL);
	F.io.root = root ? sl_arena_strdup(a, root) : F.root;
	free(root);
	F.io.answer = answer;
	F.io.ctx = &F;
	F.io.main = o->code_src;
	F.io.request = build_request(&F, 0);
	struct sl_pyread *r = sl_pyread_eval(a, ref.path, o, &F.io);
	/* a trainer the program launches in a subprocess is the program read (at most twice over) */
	for (unsigned depth = 0; !r->error && r->nlaunches && depth < MAX_LAUNCH_DEPTH; depth++) {
		const char *current = F.p->ref.path;
		struct sl_pyread *inner = launched(&F, r, current);
		if (!inner)
			break;
		for (size_t i = 0; i < r->nnotes; i++)
			note(&F, r->notes[i]);
		r = inner;
		ref = F.p->ref;
	}
	if (r->error) {
		note(&F, sl_arena_printf(a, "program not read: %s", r->error));
		load_command_configs(&F);
		load_sweep_configs(&F);
		if (ref.shell && ref.shell->n)
			add_settings(&F, ref.shell);
		return F.p;
	}
	for (size_t i = 0; i < r->nnotes; i++)
		note(&F, r->notes[i]);
	F.p->trains = r->trains;
	F.p->quant_open = r->quant_open;
	F.p->roles = r->roles;
	F.p->nroles = r->nroles;
	judge_reach(&F, r);
	/* the literal declarations (argparse defaults, dataclass fields) of the modules and the program */
	size_t g = 0;
	for (; g < r->ndeclared; g++)
		add_settings(&F, r->groups[g]);
	for (size_t i = 0; i < r->nmodules; i++) {
		/* "name (path)": its literal settings are the groups read from that path */
		const char *open = strrchr(r->modules[i], '(');
		size_t n = 0;
		for (size_t k = 0; open && k < r->ngroups; k++)
			if (strncmp(r->groups[k]->src->display, open + 1, strlen(open + 1) - 1) == 0 &&
			    strlen(r->groups[k]->src->display) == strlen(open + 1) - 1)
				n += r->groups[k]->n;
		if (n)
			note(&F, sl_arena_printf(a, "module %s: %zu setting%s", r->modules[i], n, n == 1 ? "" : "s"));
	}
	/* the configs they load, over the literals; Hydra; a config the command or a sweep value names */
	load_named_configs(&F, r, ref.path);
	if (r->hydra_name)
		compose_hydra(&F, r, ref.path);
	F.stated_configs = true;
	load_command_configs(&F);
	load_sweep_configs(&F);
	F.stated_configs = false;
	/* what reaches the sinks, over all of those: the values the program really passes */
	for (; g < r->ngroups; g++)
		add_settings(&F, r->groups[g]);
	resolve_refs(&F, r, ref.path);
	if (ref.shell && ref.shell->n)
		add_settings(&F, ref.shell);
	if (F.launch_opts && F.launch_opts->n)
		add_settings(&F, F.launch_opts); /* the literal options a launching program passes */
	/* an inference-only program: pyread.py adds sweeplint_mode: generate, so its own settings size that
	 * workload (issue #28; they were dropped and the run sized as training) */
	if (r->trains == 0)
		note(&F, "the program only runs inference (generate / vLLM, no optimizer or trainer): it is estimated "
			 "as generation with its own settings");
	return F.p;
}
