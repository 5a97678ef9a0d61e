/*
 * frameworks: the defaults of a training framework recognised from what the
 * sweep runs (rules/frameworks.yaml). A framework is recognised by a key only
 * its configs use (LLaMA-Factory's finetuning_type) in a trainer config, a
 * sweep parameter or a command option, or by a command word (llamafactory-cli) or the module a
 * command runs (python -m verl.trainer.main_ppo).
 * Its defaults become a settings list like a program's (struct sl_trainer,
 * from_program), which axes.c applies first, so every stated value replaces
 * them. The file is checked at build time (gen_catalog), and what recognises
 * each framework is in the snapshot: a run reads the embedded YAML, for the
 * defaults' nodes, only when a framework is recognised.
 */
#include "enumerate_internal.h"

#include <string.h>

#include "../snapshot/snapshot.h"
#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/diag.h"
#include "sweeplint/eval.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

struct sl_frameworks {
	const struct sl_framework_id *id; /* what recognises framework i */
	size_t n;
	/* the parsed file: src and each framework's defaults mapping; NULL until a framework is recognised */
	const struct sl_source *src;
	const struct sl_node **defaults;
	struct sl_arena *arena;           /* where the file is parsed when it is needed */
};

static bool bad(struct sl_diags *diags, const struct sl_source *src, const struct sl_node *at, const char *what)
{
	sl_diags_add(diags, "config", SL_SEV_ERROR, src, at ? at->span : sl_source_span(src, 0, 0),
		     "rules/frameworks.yaml: %s", what);
	return false;
}

/* A list of names (NULL: none) as strings; false when it is not one. */
static bool names(struct sl_arena *a, const struct sl_node *n, const char *const **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	if (!n)
		return true;
	if (n->kind != SL_NODE_SEQ)
		return false;
	const char **v = sl_arena_array(a, n->n ? n->n : 1, sizeof *v);
	for (size_t i = 0; i < n->n; i++) {
		if (n->items[i]->kind != SL_NODE_SCALAR || !*n->items[i]->text)
			return false;
		v[i] = n->items[i]->text;
	}
	*out = v;
	*count = n->n;
	return true;
}

static bool parse_one(struct sl_arena *a, const struct sl_source *src, const struct sl_node *m,
		      struct sl_framework_id *f, const struct sl_node **defaults, struct sl_diags *diags)
{
	if (m->kind != SL_NODE_MAP)
		return bad(diags, src, m, "a framework is a mapping of name, source, keys, commands and defaults");
	const struct sl_node *name = sl_map_get(m, "name"), *source = sl_map_get(m, "source");
	if (!name || name->kind != SL_NODE_SCALAR || !*name->text)
		return bad(diags, src, name ? name : m, "a framework needs a name");
	if (!source || source->kind != SL_NODE_SCALAR || !*source->text)
		return bad(diags, src, source ? source : m, "a framework needs the source of its defaults");
	f->name = name->text;
	if (!names(a, sl_map_get(m, "keys"), &f->keys, &f->nkeys) ||
	    !names(a, sl_map_get(m, "commands"), &f->commands, &f->ncommands))
		return bad(diags, src, m, "keys and commands are lists of names");
	*defaults = sl_map_get(m, "defaults");
	if (!*defaults || (*defaults)->kind != SL_NODE_MAP || !(*defaults)->n)
		return bad(diags, src, *defaults ? *defaults : m, "defaults is a mapping of key: value");
	if (!f->nkeys && !f->ncommands)
		return bad(diags, src, m, "a framework needs keys or commands that recognise it");
	return true;
}

struct sl_frameworks *sl_frameworks_parse(struct sl_arena *a, struct sl_source *src, struct sl_diags *diags)
{
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, NULL, diags);
	const struct sl_node *list = doc->ok && doc->root && doc->root->kind == SL_NODE_MAP
					     ? sl_map_get(doc->root, "frameworks")
					     : NULL;
	if (!list || list->kind != SL_NODE_SEQ) {
		bad(diags, src, doc->root, "no 'frameworks' list");
		return NULL;
	}
	struct sl_frameworks *fw = sl_arena_alloc(a, sizeof *fw);
	struct sl_framework_id *id = sl_arena_array(a, list->n ? list->n : 1, sizeof *id);
	fw->defaults = sl_arena_array(a, list->n ? list->n : 1, sizeof *fw->defaults);
	for (size_t i = 0; i < list->n; i++)
		if (!parse_one(a, src, list->items[i], &id[i], &fw->defaults[i], diags))
			return NULL;
	fw->id = id;
	fw->n = list->n;
	fw->src = src;
	fw->arena = a;
	return fw;
}

const struct sl_framework_id *sl_frameworks_ids(const struct sl_frameworks *fw, size_t *n)
{
	*n = fw->n;
	return fw->id;
}

#ifndef SL_SNAPSHOT_GENERATOR
struct sl_frameworks *sl_frameworks_new(struct sl_arena *a, struct sl_diags *diags)
{
	(void)diags; /* checked at build time */
	struct sl_frameworks *fw = sl_arena_alloc(a, sizeof *fw);
	fw->id = sl_snapshot.frameworks;
	fw->n = sl_snapshot.nframeworks;
	fw->arena = a;
	return fw;
}

/* The defaults' nodes: the embedded file parsed on the first recognised framework (the lazily filled cache). */
static const struct sl_node *defaults_of(const struct sl_frameworks *fw, size_t i)
{
	struct sl_frameworks *m = (struct sl_frameworks *)fw;
	if (!m->defaults) {
		const struct sl_blob *b = sl_data_get("frameworks.yaml");
		struct sl_diags quiet;
		sl_diags_init(&quiet, m->arena);
		struct sl_frameworks *parsed =
			b ? sl_frameworks_parse(m->arena, sl_source_from_bytes(m->arena, "rules/frameworks.yaml", b->bytes, b->len),
						&quiet)
			  : NULL;
		/* the snapshot was made from this file: the same frameworks in the same order */
		if (!parsed || parsed->n != m->n)
			return NULL;
		m->src = parsed->src;
		m->defaults = parsed->defaults;
	}
	return m->defaults[i];
}
#else
static const struct sl_node *defaults_of(const struct sl_frameworks *fw, size_t i)
{
	return fw->defaults ? fw->defaults[i] : NULL;
}
#endif

/* The last part of a dotted key ("model_args.finetuning_type" -> "finetuning_type"), dashes dropped. */
static const char *last_part(const char *key)
{
	const char *dot = strrchr(key, '.');
	key = dot ? dot + 1 : key;
	while (*key == '-')
		key++;
	return key;
}

static bool in_list(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

/* What recognises f in this sweep (in words), or NULL. */
static const char *recognise(struct sl_arena *a, const struct sl_framework_id *f, const struct sl_sweep *sw,
			     const struct sl_trainer *const *configs, size_t nconfigs)
{
	for (size_t i = 0; i < nconfigs; i++)
		for (size_t j = 0; j < configs[i]->n; j++)
			if (in_list(f->keys, f->nkeys, last_part(configs[i]->entries[j].key)))
				return sl_arena_printf(a, "%s in %s", last_part(configs[i]->entries[j].key),
						       configs[i]->src->display);
	for (size_t i = 0; sw && i < sw->nparams; i++)
		if (in_list(f->keys, f->nkeys, last_part(sw->params[i].path)))
			return sl_arena_printf(a, "sweep parameter %s", sw->params[i].path);
	for (size_t i = 0; sw && i < sw->ncmd; i++) {
		const struct sl_cmd_item *c = &sw->cmd[i];
		if (c->kind == SL_CMD_OPTION && c->key && in_list(f->keys, f->nkeys, last_part(c->key)))
			return sl_arena_printf(a, "command option %s", c->key);
		/* a module run as a command: python -m verl.trainer.main_ppo, deepspeed --module openrlhf.cli.train_dpo */
		if (c->kind == SL_CMD_OPTION && c->key && c->value && !c->value_is_macro &&
		    (strcmp(c->key, "m") == 0 || strcmp(c->key, "module") == 0) &&
		    in_list(f->commands, f->ncommands, c->value))
			return sl_arena_printf(a, "command -m %s", c->value);
		if (c->kind == SL_CMD_LITERAL && c->node && c->node->kind == SL_NODE_SCALAR) {
			const char *slash = strrchr(c->node->text, '/');
			const char *word = slash ? slash + 1 : c->node->text;
			if (in_list(f->commands, f->ncommands, word))
				return sl_arena_printf(a, "command %s", word);
		}
	}
	return NULL;
}

size_t sl_frameworks_defaults(struct sl_arena *a, const struct sl_frameworks *fw, const struct sl_sweep *sw,
			      const struct sl_trainer *const *configs, size_t nconfigs, struct sl_trainer **out)
{
	*out = NULL;
	if (!fw)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < fw->n; i++) {
		const struct sl_framework_id *f = &fw->id[i];
		const char *by = recognise(a, f, sw, configs, nconfigs);
		const struct sl_node *defaults = by ? defaults_of(fw, i) : NULL;
		if (!defaults)
			continue;
		if (!*out)
			*out = sl_arena_array(a, fw->n, sizeof **out);
		struct sl_trainer *t = &(*out)[n++];
		t->path = fw->src->path;
		t->src = fw->src;
		t->from_program = true;
		t->entries = sl_arena_array(a, defaults->n, sizeof *t->entries);
		for (size_t k = 0; k < defaults->n; k++) {
			const struct sl_pair *p = &defaults->pairs[k];
			struct sl_cfg_entry *e = &t->entries[t->n++];
			e->key = p->key->text;
			e->node = p->value;
			e->how = sl_arena_printf(a, "%s's default %s: %s, recognised by %s", f->name, e->key,
						 p->value->kind == SL_NODE_SCALAR ? p->value->text : "...", by);
		}
	}
	return n;
}
