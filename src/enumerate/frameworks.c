/*
 * frameworks: the defaults of a training framework recognised from what the
 * sweep runs (rules/frameworks.yaml, embedded; read with ydoc once per run).
 * A framework is recognised by a key only its configs use (LLaMA-Factory's
 * finetuning_type) in a trainer config, a sweep parameter or a command
 * option, or by a command word (llamafactory-cli). Its defaults become a
 * settings list like a program's (struct sl_trainer, from_program), which
 * axes.c applies first, so every stated value replaces them.
 */
#include "enumerate_internal.h"

#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/diag.h"
#include "sweeplint/eval.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

struct framework {
	const char *name;
	const struct sl_node *keys, *commands, *defaults; /* sequences / the defaults mapping */
};

struct sl_frameworks {
	const struct sl_source *src;
	struct framework *f;
	size_t n;
};

static bool bad(struct sl_diags *diags, const struct sl_source *src, const struct sl_node *at, const char *what)
{
	sl_diags_add(diags, "config", SL_SEV_ERROR, src, at ? at->span : sl_source_span(src, 0, 0),
		     "rules/frameworks.yaml: %s", what);
	return false;
}

static bool scalar_seq(const struct sl_node *n)
{
	if (!n)
		return true;
	if (n->kind != SL_NODE_SEQ)
		return false;
	for (size_t i = 0; i < n->n; i++)
		if (n->items[i]->kind != SL_NODE_SCALAR || !*n->items[i]->text)
			return false;
	return true;
}

static bool parse_one(const struct sl_source *src, const struct sl_node *m, struct framework *f,
		      struct sl_diags *diags)
{
	if (m->kind != SL_NODE_MAP)
		return bad(diags, src, m, "a framework is a mapping of name, source, keys, commands and defaults");
	const struct sl_node *name = sl_map_get(m, "name"), *source = sl_map_get(m, "source");
	if (!name || name->kind != SL_NODE_SCALAR || !*name->text)
		return bad(diags, src, name ? name : m, "a framework needs a name");
	if (!source || source->kind != SL_NODE_SCALAR || !*source->text)
		return bad(diags, src, source ? source : m, "a framework needs the source of its defaults");
	f->name = name->text;
	f->keys = sl_map_get(m, "keys");
	f->commands = sl_map_get(m, "commands");
	f->defaults = sl_map_get(m, "defaults");
	if (!scalar_seq(f->keys) || !scalar_seq(f->commands))
		return bad(diags, src, m, "keys and commands are lists of names");
	if (!f->defaults || f->defaults->kind != SL_NODE_MAP || !f->defaults->n)
		return bad(diags, src, f->defaults ? f->defaults : m, "defaults is a mapping of key: value");
	if ((!f->keys || !f->keys->n) && (!f->commands || !f->commands->n))
		return bad(diags, src, m, "a framework needs keys or commands that recognise it");
	return true;
}

struct sl_frameworks *sl_frameworks_new(struct sl_arena *a, struct sl_diags *diags)
{
	const struct sl_blob *b = sl_data_get("frameworks.yaml");
	if (!b)
		return NULL;
	struct sl_source *src = sl_source_from_bytes(a, "rules/frameworks.yaml", b->bytes, b->len);
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, NULL, diags);
	const struct sl_node *list = doc->ok && doc->root && doc->root->kind == SL_NODE_MAP
					     ? sl_map_get(doc->root, "frameworks")
					     : NULL;
	if (!list || list->kind != SL_NODE_SEQ) {
		bad(diags, src, doc->root, "no 'frameworks' list");
		return NULL;
	}
	struct sl_frameworks *fw = sl_arena_alloc(a, sizeof *fw);
	fw->src = src;
	fw->f = sl_arena_array(a, list->n ? list->n : 1, sizeof *fw->f);
	for (size_t i = 0; i < list->n; i++) {
		if (!parse_one(src, list->items[i], &fw->f[fw->n], diags))
			return NULL;
		fw->n++;
	}
	return fw;
}

/* The last part of a dotted key ("model_args.finetuning_type" -> "finetuning_type"), dashes dropped. */
static const char *last_part(const char *key)
{
	const char *dot = strrchr(key, '.');
	key = dot ? dot + 1 : key;
	while (*key == '-')
		key++;
	return key;
}

static bool in_list(const struct sl_node *seq, const char *s)
{
	for (size_t i = 0; seq && i < seq->n; i++)
		if (strcmp(seq->items[i]->text, s) == 0)
			return true;
	return false;
}

/* What recognises f in this sweep (in words), or NULL. */
static const char *recognise(struct sl_arena *a, const struct framework *f, const struct sl_sweep *sw,
			     const struct sl_trainer *const *configs, size_t nconfigs)
{
	for (size_t i = 0; i < nconfigs; i++)
		for (size_t j = 0; j < configs[i]->n; j++)
			if (in_list(f->keys, last_part(configs[i]->entries[j].key)))
				return sl_arena_printf(a, "%s in %s", last_part(configs[i]->entries[j].key),
						       configs[i]->src->display);
	for (size_t i = 0; sw && i < sw->nparams; i++)
		if (in_list(f->keys, last_part(sw->params[i].path)))
			return sl_arena_printf(a, "sweep parameter %s", sw->params[i].path);
	for (size_t i = 0; sw && i < sw->ncmd; i++) {
		const struct sl_cmd_item *c = &sw->cmd[i];
		if (c->kind == SL_CMD_OPTION && c->key && in_list(f->keys, last_part(c->key)))
			return sl_arena_printf(a, "command option %s", c->key);
		if (c->kind == SL_CMD_LITERAL && c->node && c->node->kind == SL_NODE_SCALAR) {
			const char *slash = strrchr(c->node->text, '/');
			const char *word = slash ? slash + 1 : c->node->text;
			if (in_list(f->commands, word))
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
		const struct framework *f = &fw->f[i];
		const char *by = recognise(a, f, sw, configs, nconfigs);
		if (!by)
			continue;
		if (!*out)
			*out = sl_arena_array(a, fw->n, sizeof **out);
		struct sl_trainer *t = &(*out)[n++];
		t->path = fw->src->path;
		t->src = fw->src;
		t->from_program = true;
		t->entries = sl_arena_array(a, f->defaults->n, sizeof *t->entries);
		for (size_t k = 0; k < f->defaults->n; k++) {
			const struct sl_pair *p = &f->defaults->pairs[k];
			struct sl_cfg_entry *e = &t->entries[t->n++];
			e->key = p->key->text;
			e->node = p->value;
			e->how = sl_arena_printf(a, "%s's default %s: %s, recognised by %s", f->name, e->key,
						 p->value->kind == SL_NODE_SCALAR ? p->value->text : "...", by);
		}
	}
	return n;
}
