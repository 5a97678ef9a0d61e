/*
 * forms: the vocabulary of a sweep parameter (forms.h): distribution names,
 * parameter keys, and wandb/sweeps' config/schema.json `parameter.anyOf`
 * forms in order (fill_parameter() takes the first that validates), with
 * the checks that say whether a mapping validates against one.
 */
#include "forms.h"

#include <string.h>

#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

/* ---- distributions ---- */

static const char *const dist_names[SL_DIST__COUNT] = {
	[SL_DIST_NONE] = "none",
	[SL_DIST_CONSTANT] = "constant",
	[SL_DIST_CATEGORICAL] = "categorical",
	[SL_DIST_CATEGORICAL_W_PROBABILITIES] = "categorical_w_probabilities",
	[SL_DIST_INT_UNIFORM] = "int_uniform",
	[SL_DIST_UNIFORM] = "uniform",
	[SL_DIST_Q_UNIFORM] = "q_uniform",
	[SL_DIST_LOG_UNIFORM] = "log_uniform",
	[SL_DIST_LOG_UNIFORM_VALUES] = "log_uniform_values",
	[SL_DIST_INV_LOG_UNIFORM] = "inv_log_uniform",
	[SL_DIST_INV_LOG_UNIFORM_VALUES] = "inv_log_uniform_values",
	[SL_DIST_Q_LOG_UNIFORM] = "q_log_uniform",
	[SL_DIST_Q_LOG_UNIFORM_VALUES] = "q_log_uniform_values",
	[SL_DIST_NORMAL] = "normal",
	[SL_DIST_Q_NORMAL] = "q_normal",
	[SL_DIST_LOG_NORMAL] = "log_normal",
	[SL_DIST_Q_LOG_NORMAL] = "q_log_normal",
	[SL_DIST_BETA] = "beta",
	[SL_DIST_Q_BETA] = "q_beta",
};

const char *sl_dist_name(enum sl_dist d)
{
	return (unsigned)d < SL_DIST__COUNT ? dist_names[d] : "none";
}

enum sl_dist sl_dist_parse(const char *s)
{
	for (int d = 1; d < SL_DIST__COUNT; d++)
		if (s && strcmp(s, dist_names[d]) == 0)
			return (enum sl_dist)d;
	return SL_DIST_NONE;
}

bool sl_dist_deprecated(enum sl_dist d)
{
	return d == SL_DIST_LOG_UNIFORM || d == SL_DIST_INV_LOG_UNIFORM || d == SL_DIST_Q_LOG_UNIFORM;
}

enum sl_dist sl_dist_replacement(enum sl_dist d)
{
	switch (d) {
	case SL_DIST_LOG_UNIFORM:
		return SL_DIST_LOG_UNIFORM_VALUES;
	case SL_DIST_INV_LOG_UNIFORM:
		return SL_DIST_INV_LOG_UNIFORM_VALUES;
	case SL_DIST_Q_LOG_UNIFORM:
		return SL_DIST_Q_LOG_UNIFORM_VALUES;
	default:
		return d;
	}
}

bool sl_dist_grid_allowed(enum sl_dist d)
{
	return d == SL_DIST_CONSTANT || d == SL_DIST_CATEGORICAL || d == SL_DIST_INT_UNIFORM || d == SL_DIST_Q_UNIFORM;
}

/* ---- the keys of a parameter mapping ---- */

static const char *const param_keys[SL_PKEY__COUNT] = {
	[SL_PKEY_DISTRIBUTION] = "distribution", [SL_PKEY_VALUE] = "value",
	[SL_PKEY_VALUES] = "values",             [SL_PKEY_PROBABILITIES] = "probabilities",
	[SL_PKEY_MIN] = "min",                   [SL_PKEY_MAX] = "max",
	[SL_PKEY_Q] = "q",                       [SL_PKEY_MU] = "mu",
	[SL_PKEY_SIGMA] = "sigma",               [SL_PKEY_A] = "a",
	[SL_PKEY_B] = "b",                       [SL_PKEY_PARAMETERS] = "parameters",
};

const char *sl_sweep_pkey_name(enum sl_pkey k)
{
	return (unsigned)k < SL_PKEY__COUNT ? param_keys[k] : "?";
}

enum sl_pkey sl_sweep_pkey_parse(const char *s)
{
	for (int k = 0; k < SL_PKEY__COUNT; k++)
		if (strcmp(s, param_keys[k]) == 0)
			return (enum sl_pkey)k;
	return SL_PKEY__COUNT;
}

/* ---- the forms ---- */

/* K(): a key's bit in sl_form.required, for the table's width */
#define K(k) SL_PKEY_BIT(k)

const struct sl_form sl_sweep_forms[] = {
	{SL_DIST_Q_BETA, "param_qbeta", K(SL_PKEY_DISTRIBUTION), true,
	 {{SL_PKEY_A, SL_KT_NUMBER, SL_KC_MIN0}, {SL_PKEY_B, SL_KT_NUMBER, SL_KC_MIN0},
	  {SL_PKEY_Q, SL_KT_NUMBER, SL_KC_EXCL0}}},
	{SL_DIST_BETA, "param_beta", K(SL_PKEY_DISTRIBUTION), true,
	 {{SL_PKEY_A, SL_KT_NUMBER, SL_KC_MIN0}, {SL_PKEY_B, SL_KT_NUMBER, SL_KC_MIN0}}},
	{SL_DIST_CATEGORICAL, "param_categorical", K(SL_PKEY_VALUES), true,
	 {{SL_PKEY_VALUES, SL_KT_ARRAY1, SL_KC_NONE}}},
	{SL_DIST_CATEGORICAL_W_PROBABILITIES, "param_categorical_w_probabilities",
	 K(SL_PKEY_VALUES) | K(SL_PKEY_PROBABILITIES), true,
	 {{SL_PKEY_VALUES, SL_KT_ARRAY1, SL_KC_NONE}, {SL_PKEY_PROBABILITIES, SL_KT_PROBS, SL_KC_NONE}}},
	{SL_DIST_INT_UNIFORM, "param_int_uniform", K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MAX, SL_KT_INT_FMT, SL_KC_NONE}, {SL_PKEY_MIN, SL_KT_INT_FMT, SL_KC_NONE}}},
	{SL_DIST_UNIFORM, "param_uniform", K(SL_PKEY_MIN) | K(SL_PKEY_MAX) | K(SL_PKEY_DISTRIBUTION), true,
	 {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE}}},
	{SL_DIST_UNIFORM, "param_uniform", K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MIN, SL_KT_FLOAT_FMT, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_FLOAT_FMT, SL_KC_NONE}}},
	{SL_DIST_UNIFORM, "param_uniform", K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_FLOAT_FMT, SL_KC_NONE}}},
	{SL_DIST_UNIFORM, "param_uniform", K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MIN, SL_KT_FLOAT_FMT, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE}}},
	{SL_DIST_LOG_NORMAL, "param_lognormal", K(SL_PKEY_DISTRIBUTION), true,
	 {{SL_PKEY_MU, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_SIGMA, SL_KT_NUMBER, SL_KC_MIN0}}},
	{SL_DIST_LOG_UNIFORM, "param_loguniform", K(SL_PKEY_DISTRIBUTION) | K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE}}},
	{SL_DIST_INV_LOG_UNIFORM, "param_inv_loguniform", K(SL_PKEY_DISTRIBUTION) | K(SL_PKEY_MIN) | K(SL_PKEY_MAX),
	 true, {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE}}},
	{SL_DIST_NORMAL, "param_normal", K(SL_PKEY_DISTRIBUTION), true,
	 {{SL_PKEY_MU, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_SIGMA, SL_KT_NUMBER, SL_KC_MIN0}}},
	{SL_DIST_Q_LOG_NORMAL, "param_qlognormal", K(SL_PKEY_DISTRIBUTION), true,
	 {{SL_PKEY_Q, SL_KT_NUMBER, SL_KC_EXCL0}, {SL_PKEY_MU, SL_KT_NUMBER, SL_KC_NONE},
	  {SL_PKEY_SIGMA, SL_KT_NUMBER, SL_KC_MIN0}}},
	{SL_DIST_Q_LOG_UNIFORM, "param_qloguniform", K(SL_PKEY_DISTRIBUTION) | K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE},
	  {SL_PKEY_Q, SL_KT_NUMBER, SL_KC_EXCL0}}},
	{SL_DIST_Q_NORMAL, "param_qnormal", K(SL_PKEY_DISTRIBUTION), true,
	 {{SL_PKEY_Q, SL_KT_NUMBER, SL_KC_EXCL0}, {SL_PKEY_MU, SL_KT_NUMBER, SL_KC_NONE},
	  {SL_PKEY_SIGMA, SL_KT_NUMBER, SL_KC_MIN0}}},
	{SL_DIST_Q_UNIFORM, "param_quniform", K(SL_PKEY_DISTRIBUTION) | K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE},
	  {SL_PKEY_Q, SL_KT_NUMBER, SL_KC_EXCL0}}},
	{SL_DIST_CONSTANT, "param_single_value", K(SL_PKEY_VALUE), true, {{SL_PKEY_VALUE, SL_KT_ANY, SL_KC_NONE}}},
	{SL_DIST_INV_LOG_UNIFORM_VALUES, "param_inv_loguniform_v2",
	 K(SL_PKEY_DISTRIBUTION) | K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_EXCL0}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE}}},
	{SL_DIST_LOG_UNIFORM_VALUES, "param_loguniform_v2", K(SL_PKEY_DISTRIBUTION) | K(SL_PKEY_MIN) | K(SL_PKEY_MAX),
	 true, {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_EXCL0}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE}}},
	{SL_DIST_Q_LOG_UNIFORM_VALUES, "param_qloguniform_v2",
	 K(SL_PKEY_DISTRIBUTION) | K(SL_PKEY_MIN) | K(SL_PKEY_MAX), true,
	 {{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_EXCL0}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE},
	  {SL_PKEY_Q, SL_KT_NUMBER, SL_KC_EXCL0}}},
	{SL_DIST_NONE, "param_dict", K(SL_PKEY_PARAMETERS), false, {{SL_PKEY_PARAMETERS, SL_KT_PARAMS, SL_KC_NONE}}},
};

#undef K

const size_t sl_sweep_nforms = sizeof sl_sweep_forms / sizeof sl_sweep_forms[0];

bool sl_form_is_number(const struct sl_node *n)
{
	return n && n->kind == SL_NODE_SCALAR && (n->value.type == SL_V_INT || n->value.type == SL_V_FLOAT);
}

/* Every key of an (effective) mapping, merged maps included: calls fn until it returns false. */
bool sl_form_each_key(const struct sl_node *map, bool (*fn)(const struct sl_node *key, void *ctx), void *ctx,
		     int depth)
{
	if (!map || map->kind != SL_NODE_MAP || depth > SL_YDOC_MAX_MERGE_DEPTH)
		return true;
	for (size_t i = 0; i < map->n; i++) {
		const struct sl_node *k = map->pairs[i].key, *v = map->pairs[i].value;
		if (k->kind == SL_NODE_SCALAR && k->value.merge) {
			if (v->kind == SL_NODE_MAP && !sl_form_each_key(v, fn, ctx, depth + 1))
				return false;
			if (v->kind == SL_NODE_SEQ)
				for (size_t j = 0; j < v->n; j++)
					if (!sl_form_each_key(v->items[j], fn, ctx, depth + 1))
						return false;
			continue;
		}
		if (!fn(k, ctx))
			return false;
	}
	return true;
}

static const struct sl_keyspec *form_key(const struct sl_form *f, enum sl_pkey k)
{
	for (size_t i = 0; i < sizeof f->keys / sizeof f->keys[0]; i++)
		if (f->keys[i].type != SL_KT_ANY || f->keys[i].key == k)
			if (f->keys[i].key == k && (f->keys[i].type != SL_KT_ANY || k == SL_PKEY_VALUE))
				return &f->keys[i];
	return NULL;
}

bool sl_form_allows(const struct sl_form *f, enum sl_pkey k)
{
	return (k == SL_PKEY_DISTRIBUTION && f->has_dist) || form_key(f, k) != NULL;
}

struct allowed_ctx {
	const struct sl_form *f;
	const struct sl_node *bad; /* the first key the form does not allow */
};

static bool key_allowed(const struct sl_node *key, void *p)
{
	struct allowed_ctx *c = p;
	enum sl_pkey k = key->kind == SL_NODE_SCALAR && key->value.type == SL_V_STR ? sl_sweep_pkey_parse(key->text)
										      : SL_PKEY__COUNT;
	if (k == SL_PKEY__COUNT || !sl_form_allows(c->f, k)) {
		c->bad = key;
		return false;
	}
	return true;
}

bool sl_form_name_ok(const struct sl_node *key)
{
	/* ^[A-Za-z_][A-Za-z0-9_.-]*$ ; a key PyYAML does not read as a string escapes the pattern */
	if (key->kind != SL_NODE_SCALAR || key->value.type != SL_V_STR)
		return true;
	const char *s = key->text;
	size_t n = key->text_len;
	if (n && s[n - 1] == '\n') /* Python's $ matches before a final newline */
		n--;
	if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '.' || c == '-'))
			return false;
	}
	return true;
}

struct params_ctx {
	const struct sl_node *map;
	bool ok;
	size_t n;
};

static bool param_entry_ok(const struct sl_node *key, void *p)
{
	struct params_ctx *c = p;
	c->n++;
	if (!sl_form_name_ok(key)) {
		c->ok = false;
		return false;
	}
	const struct sl_node *v = key->kind == SL_NODE_SCALAR ? sl_map_get(c->map, key->text) : NULL;
	bool dict;
	if (!v || (sl_sweep_form_match(v, &dict) == SL_DIST_NONE && !dict)) {
		c->ok = false;
		return false;
	}
	return true;
}

bool sl_form_value_ok(const struct sl_node *v, const struct sl_keyspec *ks)
{
	switch (ks->type) {
	case SL_KT_ANY:
		return true;
	case SL_KT_NUMBER:
		if (!sl_form_is_number(v))
			return false;
		break;
	case SL_KT_INT_FMT:
		if (!sl_node_is(v, SL_V_INT))
			return false;
		break;
	case SL_KT_FLOAT_FMT:
		if (!sl_node_is(v, SL_V_FLOAT))
			return false;
		break;
	case SL_KT_ARRAY1:
		return v->kind == SL_NODE_SEQ && v->n >= 1;
	case SL_KT_PROBS:
		if (v->kind != SL_NODE_SEQ || v->n < 1)
			return false;
		for (size_t i = 0; i < v->n; i++)
			if (!sl_form_is_number(v->items[i]) || v->items[i]->value.f < 0)
				return false;
		return true;
	case SL_KT_PARAMS: {
		if (v->kind != SL_NODE_MAP)
			return false;
		struct params_ctx c = {.map = v, .ok = true};
		sl_form_each_key(v, param_entry_ok, &c, 0);
		return c.ok && c.n >= 1;
	}
	}
	/* numbers: NaN passes minimum/exclusiveMinimum, as Python's comparisons make it */
	if (ks->cons == SL_KC_MIN0 && v->value.f < 0)
		return false;
	if (ks->cons == SL_KC_EXCL0 && v->value.f <= 0)
		return false;
	return true;
}

bool sl_form_ok(const struct sl_form *f, const struct sl_node *node)
{
	if (!node || node->kind != SL_NODE_MAP)
		return false;
	struct allowed_ctx ac = {.f = f};
	sl_form_each_key(node, key_allowed, &ac, 0);
	if (ac.bad)
		return false;
	for (int k = 0; k < SL_PKEY__COUNT; k++)
		if ((f->required & SL_PKEY_BIT(k)) && !sl_map_get(node, sl_sweep_pkey_name((enum sl_pkey)k)))
			return false;
	const struct sl_node *d = sl_map_get(node, "distribution");
	if (d && !(d->kind == SL_NODE_SCALAR && d->value.type == SL_V_STR && strcmp(d->text, sl_dist_name(f->dist)) == 0))
		return false;
	for (size_t i = 0; i < sizeof f->keys / sizeof f->keys[0]; i++) {
		const struct sl_keyspec *ks = &f->keys[i];
		if (ks->type == SL_KT_ANY && ks->key != SL_PKEY_VALUE)
			continue; /* an unused slot */
		const struct sl_node *v = sl_map_get(node, sl_sweep_pkey_name(ks->key));
		if (v && !sl_form_value_ok(v, ks))
			return false;
	}
	return true;
}

enum sl_dist sl_sweep_form_match(const struct sl_node *node, bool *is_dict)
{
	if (is_dict)
		*is_dict = false;
	for (size_t i = 0; i < sl_sweep_nforms; i++)
		if (sl_form_ok(&sl_sweep_forms[i], node)) {
			if (sl_sweep_forms[i].dist == SL_DIST_NONE && is_dict)
				*is_dict = true;
			return sl_sweep_forms[i].dist;
		}
	return SL_DIST_NONE;
}
