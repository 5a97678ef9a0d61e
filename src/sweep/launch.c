/*
 * launch: which sweep files are W&B Launch sweep configs and which method
 * launch-sweep gives them (see launch.h for the source).
 */
#include "launch.h"

#include <string.h>

/* The keys of `scheduler:` that launch-sweep and the launch Scheduler read (cli.py launch_sweep; scheduler.py __init__). */
static const char *const scheduler_keys[] = {"job",	    "settings",	   "resource",		 "resource_args",
					     "docker_image", "num_workers", "template_variables"};

bool sl_launch_is_config(const struct sl_node *root)
{
	if (!root || root->kind != SL_NODE_MAP)
		return false;
	if (sl_map_get(root, "job") || sl_map_get(root, "image_uri") || sl_map_get(root, "launch"))
		return true;
	const struct sl_node *sc = sl_map_get(root, "scheduler");
	if (!sc || sc->kind != SL_NODE_MAP || sl_map_get(sc, "engine"))
		return false;
	for (size_t i = 0; i < sizeof scheduler_keys / sizeof scheduler_keys[0]; i++)
		if (sl_map_get(sc, scheduler_keys[i]))
			return true;
	return false;
}

static bool is_custom(const struct sl_node *m)
{
	return m->kind == SL_NODE_SCALAR && m->value.type == SL_V_STR && strcmp(m->text, "custom") == 0;
}

const struct sl_node *sl_launch_method(const struct sl_node *root, bool *implied_custom)
{
	*implied_custom = false;
	const struct sl_node *top = sl_map_get(root, "method");
	const struct sl_node *sc = sl_map_get(root, "scheduler");
	const struct sl_node *settings = sc && sc->kind == SL_NODE_MAP ? sl_map_get(sc, "settings") : NULL;
	const struct sl_node *set = settings && settings->kind == SL_NODE_MAP ? sl_map_get(settings, "method") : NULL;
	bool job = sc && sc->kind == SL_NODE_MAP && sl_node_truthy(sl_map_get(sc, "job"));
	if (!sl_node_truthy(set))
		set = NULL;
	if (job && !sl_node_truthy(top)) {
		if (set)
			return set;
		*implied_custom = true;
		return NULL;
	}
	if (job && !is_custom(top))
		return top; /* "Use 'method': 'custom' ... or omit it": W&B moves it into settings.method */
	return set ? set : top;
}
