/*
 * sweep: the W&B view of a sweep document. Parameters resolve to a
 * distribution as wandb/sweeps' fill_parameter() does: the first of the
 * schema's `parameter.anyOf` forms that validates wins (forms.c holds the
 * forms). Grid counts follow grid_search.py.
 */
#include "sweeplint/sweep.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "forms.h"
#include "launch.h"
#include "validate.h"
#include "sweeplint/arena.h"
#include "sweeplint/ydoc.h"

const char *sl_method_name(enum sl_method m)
{
	static const char *const names[SL_METHOD__COUNT] = {"none", "grid", "random", "bayes", "custom"};
	return (unsigned)m < SL_METHOD__COUNT ? names[m] : "none";
}

/* ---- mappings as PyYAML constructs them: merge keys first, the last duplicate's value ---- */

/*
 * The flattened pairs and an open-addressing index over their scalar keys
 * (slot: position + 1, 0 empty), so that a mapping of n keys costs O(n) and
 * not O(n²): a 200,000-key sweep is an input people can commit.
 */
struct items {
	struct sl_arena *a;
	struct sl_pair *v;
	size_t n, cap;
	size_t *slot;
	size_t nslot;       /* a power of two, kept above 2n */
};

static size_t key_hash(const struct sl_node *k)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (size_t i = 0; i < k->text_len; i++)
		h = (h ^ (unsigned char)k->text[i]) * 1099511628211u;
	return (size_t)h;
}

static bool same_key(const struct sl_node *x, const struct sl_node *y)
{
	return x->text_len == y->text_len && memcmp(x->text, y->text, x->text_len) == 0;
}

/* The slot of key k: the one holding an equal key, or the empty one where it goes. */
static size_t *find_slot(const struct items *it, const struct sl_node *k)
{
	size_t mask = it->nslot - 1;
	for (size_t i = key_hash(k) & mask;; i = (i + 1) & mask)
		if (!it->slot[i] || same_key(it->v[it->slot[i] - 1].key, k))
			return &it->slot[i];
}

static void add_item(struct items *it, const struct sl_pair *p)
{
	const struct sl_node *k = p->key;
	size_t *slot = NULL;
	if (k->kind == SL_NODE_SCALAR) {
		if (2 * (it->n + 1) > it->nslot) {
			size_t ns = it->nslot ? 2 * it->nslot : 16;
			while (2 * (it->n + 1) > ns)
				ns *= 2;
			it->slot = sl_arena_array(it->a, ns, sizeof *it->slot);
			it->nslot = ns;
			for (size_t j = 0; j < it->n; j++)
				if (it->v[j].key->kind == SL_NODE_SCALAR)
					*find_slot(it, it->v[j].key) = j + 1;
		}
		slot = find_slot(it, k);
		if (*slot) {
			/* a dict keeps the first position and takes the last value */
			it->v[*slot - 1] = *p;
			return;
		}
	}
	if (it->n == it->cap) {
		size_t nc = it->cap ? it->cap * 2 : 8;
		it->v = sl_arena_grow(it->a, it->v, it->n, nc, sizeof *it->v);
		it->cap = nc;
	}
	it->v[it->n++] = *p;
	if (slot)
		*slot = it->n;
}

static void items_rec(struct items *it, const struct sl_node *map, int depth)
{
	if (!map || map->kind != SL_NODE_MAP || depth > SL_YDOC_MAX_MERGE_DEPTH)
		return;
	/* flatten_mapping: merged maps (a list: the last listed first, so the first listed wins) */
	for (size_t i = 0; i < map->n; i++) {
		const struct sl_node *k = map->pairs[i].key;
		if (k->kind != SL_NODE_SCALAR || !k->value.merge)
			continue;
		const struct sl_node *mv = map->pairs[i].value;
		if (mv->kind == SL_NODE_MAP)
			items_rec(it, mv, depth + 1);
		else if (mv->kind == SL_NODE_SEQ)
			for (size_t j = mv->n; j-- > 0;)
				items_rec(it, mv->items[j], depth + 1);
	}
	for (size_t i = 0; i < map->n; i++) {
		const struct sl_node *k = map->pairs[i].key;
		if (k->kind == SL_NODE_SCALAR && k->value.merge)
			continue;
		add_item(it, &map->pairs[i]);
	}
}

size_t sl_sweep_map_items(struct sl_arena *a, const struct sl_node *map, struct sl_pair **out)
{
	struct items it = {.a = a};
	items_rec(&it, map, 0);
	*out = it.v;
	return it.n;
}

/* ---- command ---- */

static const struct {
	const char *text;
	enum sl_cmd_kind kind;
} macros[] = {
	{"${env}", SL_CMD_ENV},
	{"${interpreter}", SL_CMD_INTERPRETER},
	{"${program}", SL_CMD_PROGRAM},
	{"${args}", SL_CMD_ARGS},
	{"${args_no_boolean_flags}", SL_CMD_ARGS_NO_BOOLEAN_FLAGS},
	{"${args_no_hyphens}", SL_CMD_ARGS_NO_HYPHENS},
	{"${args_json}", SL_CMD_ARGS_JSON},
	{"${args_json_file}", SL_CMD_ARGS_JSON_FILE},
};

static bool is_macro_text(const char *s)
{
	size_t n = strlen(s);
	return n >= 4 && s[0] == '$' && s[1] == '{' && s[n - 1] == '}';
}

static bool key_char(char c, bool first)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '/');
}

/* "name=" at s (Hydra's + and ~ prefixes allowed): the length of name, or 0. */
static size_t option_key(const char *s)
{
	size_t i = 0;
	while (s[i] == '+' || s[i] == '~')
		i++;
	size_t start = i;
	if (!key_char(s[i], true))
		return 0;
	while (key_char(s[i], false))
		i++;
	return s[i] == '=' && i > start ? i : 0;
}

static void parse_command(struct sl_arena *a, struct sl_sweep *s)
{
	const struct sl_node *c = s->command;
	if (!c || c->kind != SL_NODE_SEQ)
		return;
	s->cmd = sl_arena_array(a, c->n ? c->n : 1, sizeof *s->cmd);
	for (size_t i = 0; i < c->n; i++) {
		const struct sl_node *it = c->items[i];
		struct sl_cmd_item *ci = &s->cmd[s->ncmd++];
		ci->kind = SL_CMD_LITERAL;
		ci->node = it;
		if (it->kind != SL_NODE_SCALAR)
			continue;
		const char *t = it->text;
		bool found = false;
		for (size_t m = 0; m < sizeof macros / sizeof macros[0]; m++)
			if (strcmp(t, macros[m].text) == 0) {
				ci->kind = macros[m].kind;
				found = true;
			}
		if (found)
			continue;
		if (strncmp(t, "${envvar:", 9) == 0 && is_macro_text(t)) {
			ci->kind = SL_CMD_ENVVAR;
			ci->envvar = sl_arena_strndup(a, t + 9, strlen(t) - 10);
			continue;
		}
		size_t dashes = 0;
		while (dashes < 2 && t[dashes] == '-')
			dashes++;
		size_t klen = option_key(t + dashes);
		if (klen) {
			ci->kind = SL_CMD_OPTION;
			ci->hyphens = dashes > 0;
			ci->key = sl_arena_strndup(a, t + dashes, klen);
			ci->value = sl_arena_strdup(a, t + dashes + klen + 1);
			ci->value_node = it;
			ci->value_is_macro = is_macro_text(ci->value);
			continue;
		}
		/* --key value: the next item, when it is a plain value (not an option, not a macro) */
		if (dashes && key_char(t[dashes], true) && i + 1 < c->n) {
			const struct sl_node *nx = c->items[i + 1];
			size_t j = dashes;
			while (key_char(t[j], false))
				j++;
			if (t[j] == '\0' && nx->kind == SL_NODE_SCALAR && nx->text[0] != '-' &&
			    !(is_macro_text(nx->text) && (strncmp(nx->text, "${args", 6) == 0 ||
							   strcmp(nx->text, "${program}") == 0 ||
							   strcmp(nx->text, "${env}") == 0 ||
							   strcmp(nx->text, "${interpreter}") == 0))) {
				ci->kind = SL_CMD_OPTION;
				ci->hyphens = true;
				ci->key = sl_arena_strdup(a, t + dashes);
				ci->value = nx->text;
				ci->value_node = nx;
				ci->value_is_macro = is_macro_text(nx->text);
				i++;
			}
		}
	}
}

/* ---- parameters ---- */

static double num_or_nan(const struct sl_node *n)
{
	if (n && n->kind == SL_NODE_SCALAR && (n->value.type == SL_V_INT || n->value.type == SL_V_FLOAT))
		return n->value.f;
	return NAN;
}

struct walker {
	struct sl_arena *a;
	struct sl_sweep *s;
	size_t cap;
};

static struct sl_param *new_param(struct walker *w)
{
	if (w->s->nparams == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 16;
		w->s->params = sl_arena_grow(w->a, w->s->params, w->s->nparams, nc, sizeof *w->s->params);
		w->cap = nc;
	}
	return &w->s->params[w->s->nparams++];
}

static void fill_param(struct sl_param *p)
{
	const struct sl_node *n = p->node;
	const struct sl_node **slot[SL_PKEY__COUNT] = {
		[SL_PKEY_DISTRIBUTION] = &p->distribution, [SL_PKEY_VALUE] = &p->value,
		[SL_PKEY_VALUES] = &p->values,             [SL_PKEY_PROBABILITIES] = &p->probabilities,
		[SL_PKEY_MIN] = &p->min,                   [SL_PKEY_MAX] = &p->max,
		[SL_PKEY_Q] = &p->q,                       [SL_PKEY_MU] = &p->mu,
		[SL_PKEY_SIGMA] = &p->sigma,               [SL_PKEY_A] = &p->a,
		[SL_PKEY_B] = &p->b,                       [SL_PKEY_PARAMETERS] = &p->parameters,
	};
	if (n->kind == SL_NODE_MAP)
		for (int k = 0; k < SL_PKEY__COUNT; k++)
			*slot[k] = sl_map_get(n, sl_sweep_pkey_name((enum sl_pkey)k));
	p->dist_explicit = p->distribution != NULL;
	p->dist = sl_sweep_form_match(n, NULL);
	p->is_dict = p->dist == SL_DIST_NONE && p->parameters && p->parameters->kind == SL_NODE_MAP;
	p->minv = num_or_nan(p->min);
	p->maxv = num_or_nan(p->max);
	/* the defaults the schema fills for the matched form */
	bool quantized = p->dist == SL_DIST_Q_UNIFORM || p->dist == SL_DIST_Q_LOG_UNIFORM ||
			 p->dist == SL_DIST_Q_LOG_UNIFORM_VALUES || p->dist == SL_DIST_Q_NORMAL ||
			 p->dist == SL_DIST_Q_LOG_NORMAL || p->dist == SL_DIST_Q_BETA;
	bool normal = p->dist == SL_DIST_NORMAL || p->dist == SL_DIST_Q_NORMAL || p->dist == SL_DIST_LOG_NORMAL ||
		      p->dist == SL_DIST_Q_LOG_NORMAL;
	bool beta = p->dist == SL_DIST_BETA || p->dist == SL_DIST_Q_BETA;
	p->qv = p->q ? num_or_nan(p->q) : quantized ? 1.0 : NAN;
	p->q_int = p->q && sl_node_is(p->q, SL_V_INT);
	p->muv = p->mu ? num_or_nan(p->mu) : normal ? 0.0 : NAN;
	p->sigmav = p->sigma ? num_or_nan(p->sigma) : normal ? 1.0 : NAN;
	p->av = p->a ? num_or_nan(p->a) : beta ? 1.0 : NAN;
	p->bv = p->b ? num_or_nan(p->b) : beta ? 1.0 : NAN;
}

static void walk_params(struct walker *w, const struct sl_node *map, const struct sl_param *parent, unsigned depth,
			const char *prefix)
{
	/* every level of nested parameters the loader can hold is walked (a level takes two YAML
	 * levels): a parameter nested past 64 levels was dropped silently, and its batch size with it */
	if (!map || map->kind != SL_NODE_MAP || depth > SL_YDOC_MAX_DEPTH)
		return;
	struct sl_pair *items;
	size_t n = sl_sweep_map_items(w->a, map, &items);
	for (size_t i = 0; i < n; i++) {
		size_t idx = w->s->nparams;
		struct sl_param *p = new_param(w);
		p->key = items[i].key;
		p->node = items[i].value;
		p->name = p->key->kind == SL_NODE_SCALAR ? p->key->text : "?";
		p->path = prefix ? sl_arena_printf(w->a, "%s.%s", prefix, p->name) : p->name;
		p->parent = parent;
		p->depth = depth;
		fill_param(p);
		if (p->is_dict) {
			const char *path = p->path;
			const struct sl_node *sub = p->parameters;
			walk_params(w, sub, p, depth + 1, path);
			/* the array may have moved: p is re-read by index where needed */
			(void)idx;
		}
	}
}

/* Parents were recorded as pointers into an array that grew: re-point them. */
static void fix_parents(struct sl_sweep *s)
{
	/* a child's parent is the nearest preceding dict parameter one level up */
	for (size_t i = 0; i < s->nparams; i++) {
		struct sl_param *p = &s->params[i];
		p->parent = NULL;
		if (!p->depth)
			continue;
		for (size_t j = i; j-- > 0;)
			if (s->params[j].depth == p->depth - 1 && s->params[j].is_dict) {
				p->parent = &s->params[j];
				break;
			}
	}
}

struct sl_sweep *sl_sweep_load(struct sl_arena *a, const struct sl_ydoc *doc)
{
	struct sl_sweep *s = sl_arena_alloc(a, sizeof *s);
	s->doc = doc;
	const struct sl_node *root = doc ? doc->root : NULL;
	if (!root || root->kind != SL_NODE_MAP)
		return s;
	s->root = root;
	s->launch = sl_launch_is_config(root);
	s->method_node = s->launch ? sl_launch_method(root, &s->method_implied) : sl_map_get(root, "method");
	if (s->method_implied)
		s->method = SL_METHOD_CUSTOM;
	s->parameters = sl_map_get(root, "parameters");
	s->program = sl_map_get(root, "program");
	s->is_sweep = s->method_node || s->parameters || s->program;
	if (s->method_node && s->method_node->kind == SL_NODE_SCALAR && s->method_node->value.type == SL_V_STR)
		for (int m = 1; m < SL_METHOD__COUNT; m++)
			if (strcmp(s->method_node->text, sl_method_name((enum sl_method)m)) == 0)
				s->method = (enum sl_method)m;
	s->metric = sl_map_get(root, "metric");
	s->metric_name = sl_map_get(s->metric, "name");
	s->metric_goal = sl_map_get(s->metric, "goal");
	s->early_terminate = sl_map_get(root, "early_terminate");
	s->run_cap = sl_map_get(root, "run_cap");
	if (s->run_cap && s->run_cap->kind == SL_NODE_SCALAR) {
		const struct sl_value *v = &s->run_cap->value;
		/* JSON schema draft 7 "integer" also takes an integral float */
		if (v->type == SL_V_INT && (v->big ? v->f > 0 : v->i > 0)) {
			s->has_run_cap = true;
			s->run_cap_value = v->big ? INT64_MAX : v->i;
		} else if (v->type == SL_V_FLOAT && v->f > 0 && floor(v->f) == v->f && isfinite(v->f)) {
			s->has_run_cap = true;
			s->run_cap_value = v->f >= 9.2e18 ? INT64_MAX : (int64_t)v->f;
		}
	}
	s->name = sl_map_get(root, "name");
	s->command = sl_map_get(root, "command");
	s->default_command = s->command == NULL;
	parse_command(a, s);
	struct walker w = {.a = a, .s = s};
	walk_params(&w, s->parameters, NULL, 0, NULL);
	fix_parents(s);
	s->problems = NULL;
	s->nproblems = sl_sweep_validate(a, s, &s->problems);
	return s;
}

const struct sl_param *sl_sweep_param(const struct sl_sweep *s, const char *path)
{
	for (size_t i = 0; i < s->nparams; i++)
		if (strcmp(s->params[i].path, path) == 0)
			return &s->params[i];
	return NULL;
}

/* ---- counts ---- */

struct sl_count sl_count_mul(struct sl_count x, struct sl_count y)
{
	struct sl_count r = {0};
	bool xzero = !x.infinite && !x.saturated && x.value == 0;
	bool yzero = !y.infinite && !y.saturated && y.value == 0;
	if (xzero || yzero)
		return r;
	if (x.infinite || y.infinite) {
		r.infinite = true;
		return r;
	}
	if (x.saturated || y.saturated || (y.value && x.value > UINT64_MAX / y.value)) {
		r.value = UINT64_MAX;
		r.saturated = true;
		return r;
	}
	r.value = x.value * y.value;
	return r;
}

struct sl_count sl_count_add(struct sl_count x, struct sl_count y)
{
	struct sl_count r = {.infinite = x.infinite || y.infinite, .saturated = x.saturated || y.saturated};
	if (x.value > UINT64_MAX - y.value) {
		r.value = UINT64_MAX;
		r.saturated = true;
	} else {
		r.value = x.value + y.value;
	}
	return r;
}

const char *sl_count_str(struct sl_arena *a, struct sl_count c)
{
	if (c.infinite)
		return "infinite";
	if (c.saturated)
		return sl_arena_printf(a, "more than %" PRIu64, UINT64_MAX);
	return sl_arena_printf(a, "%" PRIu64, c.value);
}

/* numpy.arange(min, max, q): its length and dtype (int64 when all three are ints) */
static bool arange_params(const struct sl_param *p, bool *ints, double *delta)
{
	if (!sl_node_is(p->min, SL_V_INT) && !sl_node_is(p->min, SL_V_FLOAT))
		return false;
	if (!sl_node_is(p->max, SL_V_INT) && !sl_node_is(p->max, SL_V_FLOAT))
		return false;
	*ints = sl_node_is(p->min, SL_V_INT) && sl_node_is(p->max, SL_V_INT) && p->q_int && !p->min->value.big &&
		!p->max->value.big && !p->q->value.big;
	/* arange fills start + i*delta with delta = (start + step) - start */
	*delta = (p->minv + p->qv) - p->minv;
	return true;
}

static struct sl_count arange_len(const struct sl_param *p)
{
	struct sl_count c = {0};
	bool ints;
	double delta;
	if (!arange_params(p, &ints, &delta) || !(p->qv > 0))
		return c;
	/* Python: (stop - start) / step, the subtraction exact for ints, then ceil */
	double len;
	if (ints) {
		__int128 diff = (__int128)p->max->value.i - p->min->value.i;
		/* int / int true division is correctly rounded; int128 -> long double keeps 64 bits */
		len = (double)((long double)diff / (long double)p->q->value.i);
	} else {
		double diff;
		if (sl_node_is(p->min, SL_V_INT) && sl_node_is(p->max, SL_V_INT) && !p->min->value.big &&
		    !p->max->value.big)
			diff = (double)((__int128)p->max->value.i - p->min->value.i);
		else
			diff = p->maxv - p->minv;
		len = diff / p->qv;
	}
	len = ceil(len);
	if (!(len > 0))
		return c;
	if (len >= 1.8e19) {
		c.value = UINT64_MAX;
		c.saturated = true;
		return c;
	}
	c.value = (uint64_t)len;
	return c;
}

struct sl_count sl_param_grid_count(const struct sl_param *p)
{
	struct sl_count c = {0};
	if (p->is_dict)
		return c;
	switch (p->dist) {
	case SL_DIST_CONSTANT:
		c.value = 1;
		return c;
	case SL_DIST_CATEGORICAL:
	case SL_DIST_CATEGORICAL_W_PROBABILITIES:
		c.value = p->values && p->values->kind == SL_NODE_SEQ ? p->values->n : 0;
		return c;
	case SL_DIST_INT_UNIFORM: {
		const struct sl_value *lo = &p->min->value, *hi = &p->max->value;
		if (lo->big || hi->big) {
			c.value = UINT64_MAX;
			c.saturated = true;
			return c;
		}
		__int128 n = (__int128)hi->i - lo->i + 1;
		if (n <= 0)
			return c;
		if (n > (__int128)UINT64_MAX) {
			c.value = UINT64_MAX;
			c.saturated = true;
			return c;
		}
		c.value = (uint64_t)n;
		return c;
	}
	case SL_DIST_Q_UNIFORM:
		return arange_len(p);
	case SL_DIST_NONE:
		return c;
	default:
		c.infinite = true;
		return c;
	}
}

struct sl_count sl_sweep_grid_size(const struct sl_sweep *s)
{
	struct sl_count total = {.value = 1};
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_param *p = &s->params[i];
		/* `values: []`: an axis without a value makes the grid empty (W&B refuses the sweep: its
		 * schema's minItems 1), not a grid without that axis */
		if (!p->is_dict && p->values && p->values->kind == SL_NODE_SEQ && p->values->n == 0)
			return (struct sl_count){0};
		if (p->is_dict || p->dist == SL_DIST_NONE)
			continue;
		total = sl_count_mul(total, sl_param_grid_count(p));
	}
	return total;
}

bool sl_param_grid_value(const struct sl_param *p, uint64_t i, struct sl_value *out, const struct sl_node **node)
{
	struct sl_count c = sl_param_grid_count(p);
	*node = NULL;
	memset(out, 0, sizeof *out);
	if (c.infinite || (!c.saturated && i >= c.value))
		return false;
	switch (p->dist) {
	case SL_DIST_CONSTANT:
		*node = p->value;
		if (p->value->kind == SL_NODE_SCALAR)
			*out = p->value->value;
		return true;
	case SL_DIST_CATEGORICAL:
	case SL_DIST_CATEGORICAL_W_PROBABILITIES:
		*node = p->values->items[i];
		if ((*node)->kind == SL_NODE_SCALAR)
			*out = (*node)->value;
		return true;
	case SL_DIST_INT_UNIFORM:
		if (p->min->value.i > INT64_MAX - (int64_t)i)
			return false;
		out->type = SL_V_INT;
		out->i = p->min->value.i + (int64_t)i;
		out->f = (double)out->i;
		return true;
	case SL_DIST_Q_UNIFORM: {
		bool ints;
		double delta;
		if (!arange_params(p, &ints, &delta))
			return false;
		if (ints) {
			out->type = SL_V_INT;
			out->i = p->min->value.i + (int64_t)i * p->q->value.i;
			out->f = (double)out->i;
		} else {
			out->type = SL_V_FLOAT;
			out->f = i == 0 ? p->minv : i == 1 ? p->minv + p->qv : p->minv + (double)i * delta;
		}
		return true;
	}
	default:
		return false;
	}
}

/* ---- equality of YAML values ---- */

static bool num_equal(const struct sl_value *x, const struct sl_value *y)
{
	/* Python compares int and float exactly: big integers by their digits, never through a double */
	if (x->type == SL_V_INT && y->type == SL_V_INT) {
		if (x->big != y->big)
			return false; /* one fits 64 bits, the other does not */
		return x->big ? x->bigkey == y->bigkey && x->f == y->f : x->i == y->i;
	}
	if (x->type == SL_V_INT && x->big)
		return x->big_exact && x->f == y->f;
	if (y->type == SL_V_INT && y->big)
		return y->big_exact && y->f == x->f;
	if (x->type == SL_V_INT && y->type == SL_V_FLOAT)
		return (long double)x->i == (long double)y->f;
	if (y->type == SL_V_INT && x->type == SL_V_FLOAT)
		return (long double)y->i == (long double)x->f;
	return x->f == y->f;
}

bool sl_node_equal(const struct sl_node *x, const struct sl_node *y)
{
	if (x == y)
		return true;
	if (!x || !y || x->kind != y->kind)
		return false;
	switch (x->kind) {
	case SL_NODE_SCALAR: {
		const struct sl_value *a = &x->value, *b = &y->value;
		bool anum = a->type == SL_V_INT || a->type == SL_V_FLOAT;
		bool bnum = b->type == SL_V_INT || b->type == SL_V_FLOAT;
		if (anum && bnum)
			return num_equal(a, b);
		if (a->type != b->type)
			return false;
		switch (a->type) {
		case SL_V_NULL:
			return true;
		case SL_V_BOOL:
			return a->b == b->b;
		default:
			return x->text_len == y->text_len && memcmp(x->text, y->text, x->text_len) == 0;
		}
	}
	case SL_NODE_SEQ:
		if (x->n != y->n)
			return false;
		for (size_t i = 0; i < x->n; i++)
			if (!sl_node_equal(x->items[i], y->items[i]))
				return false;
		return true;
	case SL_NODE_MAP: {
		size_t found = 0;
		for (size_t i = 0; i < x->n; i++) {
			const struct sl_pair *px = &x->pairs[i];
			if (px->key->kind != SL_NODE_SCALAR)
				return false;
			const struct sl_node *vy = sl_map_get(y, px->key->text);
			if (!vy || !sl_node_equal(sl_map_get(x, px->key->text), vy))
				return false;
			found++;
		}
		for (size_t i = 0; i < y->n; i++)
			if (y->pairs[i].key->kind != SL_NODE_SCALAR || !sl_map_get(x, y->pairs[i].key->text))
				return false;
		return found == x->n;
	}
	default:
		return false;
	}
}
