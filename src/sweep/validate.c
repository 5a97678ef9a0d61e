/*
 * validate: what W&B rejects in a sweep, as findings a person understands.
 * The parameter forms are wandb/sweeps' config/schema.json `parameter.anyOf`
 * in order (fill_parameter() takes the first that validates); the top level
 * follows the schema's properties and cfg.py's extra checks (parameters
 * required unless scheduler.search_space, metric/metrics, scheduler), and
 * schema.py's min < max and probability checks.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "forms.h"
#include "launch.h"
#include "validate.h"
#include "sweeplint/arena.h"
#include "sweeplint/scalar.h"
#include "sweeplint/ydoc.h"

/* ---- problems ---- */

struct out {
	struct sl_arena *a;
	struct sl_sweep_problem *v;
	size_t n, cap;
	bool local; /* controller.type: local: the wandb CLI refuses every schema violation itself */
};

static struct sl_sweep_problem *add(struct out *o, const struct sl_node *at, const char *hint, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct sl_sweep_problem *add(struct out *o, const struct sl_node *at, const char *hint, const char *fmt, ...)
{
	if (o->n == o->cap) {
		size_t nc = o->cap ? o->cap * 2 : 8;
		o->v = sl_arena_grow(o->a, o->v, o->n, nc, sizeof *o->v);
		o->cap = nc;
	}
	struct sl_sweep_problem *p = &o->v[o->n++];
	va_list ap;
	va_start(ap, fmt);
	p->message = sl_arena_vprintf(o->a, fmt, ap);
	va_end(ap);
	p->at = at;
	p->hint = hint;
	p->yaml11 = false;
	p->accepted = false;
	return p;
}

/*
 * The problems added since `from` are violations W&B only warns about: the
 * server returns them as configValidationWarnings with the created sweep
 * (wandb/cli/cli.py sweep(): handle_sweep_config_violations) and the sweeps
 * library drops the value for its default (schema.py fill_validate_metric)
 * or never reads it. Not with a local controller: `wandb sweep` then runs
 * wandb_controller.py _validate() and stops on any violation.
 */
static void accepted_since(struct out *o, size_t from, const char *what_wandb_does)
{
	/* a local controller's _validate() (wandb/wandb_controller.py) refuses every violation */
	if (o->local)
		return;
	for (size_t i = from; i < o->n; i++) {
		o->v[i].accepted = true;
		o->v[i].message = sl_arena_printf(o->a, "%s: W&B creates the sweep with a 'Malformed sweep config' warning and %s",
						  o->v[i].message, what_wandb_does);
	}
}

/* A short quoted rendering of a node for messages. */
static const char *show(struct sl_arena *a, const struct sl_node *n)
{
	if (!n)
		return "nothing";
	if (n->kind != SL_NODE_SCALAR)
		return sl_node_describe(n);
	if (n->text_len > 40)
		return sl_arena_printf(a, "'%.37s...'", n->text);
	return sl_arena_printf(a, "'%s'", n->text);
}

/*
 * A value of the wrong type. A string that a person reads as a number gets
 * the YAML 1.1 explanation and the spelling that works.
 */
static void wrong_type(struct out *o, const char *what, const struct sl_node *v, const char *want)
{
	if (v->kind == SL_NODE_SCALAR && v->value.type == SL_V_STR && v->value.looks_numeric &&
	    v->style == SL_STYLE_PLAIN) {
		char sp[128];
		bool have = sl_scalar_numeric_spelling(v->text, v->text_len, sp, sizeof sp);
		struct sl_sweep_problem *p =
			add(o, v, sl_arena_printf(o->a, "or tag it: !!float %s", v->text),
			    "%s is the string '%s', not a number: PyYAML (YAML 1.1) reads a number without a dot as "
			    "a string%s%s",
			    what, v->text, have ? "; write " : "", have ? sp : "");
		p->yaml11 = true;
		return;
	}
	add(o, v, NULL, "%s must be %s, not %s %s", what, want, sl_node_describe(v),
	    v->kind == SL_NODE_SCALAR ? show(o->a, v) : "");
	/* "not a list " leaves a trailing space: trim it */
	char *m = (char *)o->v[o->n - 1].message;
	size_t len = strlen(m);
	if (len && m[len - 1] == ' ')
		m[len - 1] = '\0';
}

static const char *type_word(enum sl_ktype t)
{
	switch (t) {
	case SL_KT_INT_FMT:
		return "an integer";
	case SL_KT_FLOAT_FMT:
	case SL_KT_NUMBER:
		return "a number";
	case SL_KT_ARRAY1:
	case SL_KT_PROBS:
		return "a non-empty list";
	case SL_KT_PARAMS:
		return "a mapping of parameters";
	default:
		return "a value";
	}
}

/* Distance for "did you mean" (Levenshtein, short strings). */
static size_t edit_distance(const char *x, const char *y)
{
	size_t nx = strlen(x), ny = strlen(y);
	if (nx > 40 || ny > 40)
		return 99;
	size_t d[41][41];
	for (size_t i = 0; i <= nx; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= ny; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= nx; i++)
		for (size_t j = 1; j <= ny; j++) {
			size_t c = d[i - 1][j - 1] + (x[i - 1] != y[j - 1]);
			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			d[i][j] = c;
		}
	return d[nx][ny];
}

static const char *nearest(const char *s, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t bd = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(s, names[i]);
		if (d < bd || (d <= 3 && strlen(s) > 6 && d < bd + 1 && !best)) {
			bd = d;
			best = names[i];
		}
	}
	return best;
}

static const char *did_you_mean(struct sl_arena *a, const char *s, const char *const *names, size_t n)
{
	const char *b = nearest(s, names, n);
	return b ? sl_arena_printf(a, "did you mean '%s'?", b) : NULL;
}

/* ---- explaining why a parameter matches no form ---- */

static void check_param(struct out *o, const struct sl_param *p);

struct extra_ctx {
	struct out *o;
	const struct sl_form *f;
	const struct sl_param *p;
	const char *what;
};

static bool report_extra(const struct sl_node *key, void *ctx)
{
	struct extra_ctx *c = ctx;
	enum sl_pkey k = key->kind == SL_NODE_SCALAR && key->value.type == SL_V_STR ? sl_sweep_pkey_parse(key->text)
										      : SL_PKEY__COUNT;
	if (k != SL_PKEY__COUNT && sl_form_allows(c->f, k))
		return true;
	if (k == SL_PKEY__COUNT) {
		static const char *const names[] = {"distribution", "value", "values", "probabilities", "min", "max",
						    "q", "mu", "sigma", "a", "b", "parameters"};
		add(c->o, key, did_you_mean(c->o->a, key->kind == SL_NODE_SCALAR ? key->text : "", names, 12),
		    "unknown key %s in parameter '%s'", show(c->o->a, key), c->p->path);
		return true;
	}
	const char *hint = NULL;
	if ((k == SL_PKEY_VALUES && sl_form_allows(c->f, SL_PKEY_VALUE)) ||
	    (k == SL_PKEY_VALUE && sl_form_allows(c->f, SL_PKEY_VALUES)))
		hint = "use either 'value' (one constant) or 'values' (a list)";
	else if (k == SL_PKEY_Q && c->f->dist == SL_DIST_INT_UNIFORM)
		hint = "add 'distribution: q_uniform' for steps of q";
	else if (k == SL_PKEY_Q && c->f->dist == SL_DIST_UNIFORM)
		hint = "add 'distribution: q_uniform' to quantize";
	else if ((k == SL_PKEY_MU || k == SL_PKEY_SIGMA) && !c->p->dist_explicit)
		hint = "add 'distribution: normal' (or log_normal)";
	else if (k == SL_PKEY_PROBABILITIES && c->f->dist == SL_DIST_CATEGORICAL)
		hint = "remove 'distribution: categorical' or write 'distribution: categorical_w_probabilities'";
	add(c->o, key, hint, "'%s' is not allowed in %s parameter ('%s')", key->text, c->what, c->p->path);
	return true;
}

static void explain_form(struct out *o, const struct sl_param *p, const struct sl_form *f, const char *what)
{
	const struct sl_node *n = p->node;
	size_t before = o->n;
	struct extra_ctx ec = {.o = o, .f = f, .p = p, .what = what};
	sl_form_each_key(n, report_extra, &ec, 0);
	for (int k = 0; k < SL_PKEY__COUNT; k++)
		if ((f->required & SL_PKEY_BIT(k)) && !sl_map_get(n, sl_sweep_pkey_name((enum sl_pkey)k)))
			add(o, p->key, NULL, "%s parameter ('%s') needs '%s'", what, p->path,
			    sl_sweep_pkey_name((enum sl_pkey)k));
	for (size_t i = 0; i < sizeof f->keys / sizeof f->keys[0]; i++) {
		const struct sl_keyspec *ks = &f->keys[i];
		if (ks->type == SL_KT_ANY)
			continue;
		const char *kn = sl_sweep_pkey_name(ks->key);
		const struct sl_node *v = sl_map_get(n, kn);
		if (!v || sl_form_value_ok(v, ks))
			continue;
		const char *label = sl_arena_printf(o->a, "%s of '%s'", kn, p->path);
		switch (ks->type) {
		case SL_KT_NUMBER:
		case SL_KT_INT_FMT:
		case SL_KT_FLOAT_FMT:
			if (ks->type == SL_KT_INT_FMT && sl_form_is_number(v))
				add(o, v, sl_arena_printf(o->a, "use 'distribution: q_uniform' or integer bounds"),
				    "%s must be an integer for int_uniform, not %s", label, show(o->a, v));
			else if (!sl_form_is_number(v))
				wrong_type(o, label, v, type_word(ks->type));
			else if (ks->cons == SL_KC_MIN0)
				add(o, v, NULL, "%s must be at least 0, not %s", label, v->text);
			else
				add(o, v,
				    f->dist == SL_DIST_LOG_UNIFORM_VALUES || f->dist == SL_DIST_INV_LOG_UNIFORM_VALUES ||
						    f->dist == SL_DIST_Q_LOG_UNIFORM_VALUES
					    ? "the *_values distributions take the real bounds, which must be positive"
					    : NULL,
				    "%s must be greater than 0, not %s", label, v->text);
			break;
		case SL_KT_ARRAY1:
			if (v->kind == SL_NODE_SEQ)
				add(o, v, NULL, "%s must not be empty", label);
			else
				add(o, v, v->kind == SL_NODE_SCALAR ? sl_arena_printf(o->a, "write [%s]", v->text) : NULL,
				    "%s must be a list, not %s", label, sl_node_describe(v));
			break;
		case SL_KT_PROBS:
			if (v->kind != SL_NODE_SEQ || v->n == 0) {
				add(o, v, NULL, "%s must be a non-empty list of numbers", label);
				break;
			}
			for (size_t j = 0; j < v->n; j++) {
				const struct sl_node *it = v->items[j];
				if (!sl_form_is_number(it))
					wrong_type(o, sl_arena_printf(o->a, "probability %zu of '%s'", j + 1, p->path), it,
						   "a number");
				else if (it->value.f < 0)
					add(o, it, NULL, "probability %s of '%s' is negative", it->text, p->path);
			}
			break;
		case SL_KT_PARAMS:
			if (v->kind != SL_NODE_MAP)
				add(o, v, NULL, "'parameters' of '%s' must be a mapping of parameters, not %s", p->path,
				    sl_node_describe(v));
			else if (v->n == 0)
				add(o, v, NULL, "'parameters' of '%s' is empty", p->path);
			/* nested parameters are checked on their own */
			break;
		default:
			break;
		}
	}
	if (o->n == before && f->dist != SL_DIST_NONE)
		add(o, p->key, NULL, "parameter '%s' matches no W&B parameter form", p->path);
}

static const struct sl_form *form_for(enum sl_dist d)
{
	for (size_t i = 0; i < sl_sweep_nforms; i++)
		if (sl_sweep_forms[i].dist == d)
			return &sl_sweep_forms[i];
	return NULL;
}

static void explain(struct out *o, const struct sl_param *p)
{
	const struct sl_node *n = p->node;
	if (n->kind != SL_NODE_MAP) {
		const char *hint = n->kind == SL_NODE_SEQ ? sl_arena_printf(o->a, "write %s: {values: [...]}", p->name)
				   : n->kind == SL_NODE_SCALAR ? sl_arena_printf(o->a, "write %s: {value: %s}", p->name,
										 n->text)
							       : NULL;
		add(o, n, hint, "parameter '%s' must be a mapping such as {value: ...} or {values: [...]}, not %s",
		    p->path, sl_node_describe(n));
		return;
	}
	if (p->distribution) {
		const struct sl_node *d = p->distribution;
		enum sl_dist dist = d->kind == SL_NODE_SCALAR && d->value.type == SL_V_STR ? sl_dist_parse(d->text)
											   : SL_DIST_NONE;
		if (dist == SL_DIST_NONE) {
			const char *names[SL_DIST__COUNT - 1];
			for (int i = 1; i < SL_DIST__COUNT; i++)
				names[i - 1] = sl_dist_name((enum sl_dist)i);
			add(o, d,
			    did_you_mean(o->a, d->kind == SL_NODE_SCALAR ? d->text : "", names, SL_DIST__COUNT - 1),
			    "unknown distribution %s for parameter '%s'", show(o->a, d), p->path);
			return;
		}
		const char *what = sl_arena_printf(o->a, "a %s", sl_dist_name(dist));
		explain_form(o, p, form_for(dist), what);
		return;
	}
	if (p->parameters) {
		explain_form(o, p, &sl_sweep_forms[sl_sweep_nforms - 1], "a nested");
		return;
	}
	if (p->value) {
		explain_form(o, p, form_for(SL_DIST_CONSTANT), "a constant");
		return;
	}
	if (p->values) {
		if (p->probabilities)
			explain_form(o, p, form_for(SL_DIST_CATEGORICAL_W_PROBABILITIES), "a categorical");
		else
			explain_form(o, p, form_for(SL_DIST_CATEGORICAL), "a categorical");
		return;
	}
	if (p->min || p->max) {
		if (sl_node_is(p->min, SL_V_INT) && sl_node_is(p->max, SL_V_INT)) {
			explain_form(o, p, form_for(SL_DIST_INT_UNIFORM), "an int_uniform");
		} else {
			/* implicit uniform: any numbers (one of them a float) */
			static const struct sl_form implicit_uniform = {
				SL_DIST_UNIFORM, "param_uniform", SL_PKEY_BIT(SL_PKEY_MIN) | SL_PKEY_BIT(SL_PKEY_MAX), true,
				{{SL_PKEY_MIN, SL_KT_NUMBER, SL_KC_NONE}, {SL_PKEY_MAX, SL_KT_NUMBER, SL_KC_NONE}}};
			explain_form(o, p, &implicit_uniform, "a uniform");
		}
		return;
	}
	const char *hint = p->mu || p->sigma ? "add 'distribution: normal'" : p->a || p->b ? "add 'distribution: beta'"
									    : "give it value, values, or min and max";
	add(o, p->key, hint, "parameter '%s' has no value, values, min/max, distribution or parameters", p->path);
}

static bool num_ge(const struct sl_node *x, const struct sl_node *y)
{
	const struct sl_value *a = &x->value, *b = &y->value;
	if (a->type == SL_V_INT && b->type == SL_V_INT && !a->big && !b->big)
		return a->i >= b->i;
	if (a->type == SL_V_INT && !a->big && b->type == SL_V_FLOAT)
		return (long double)a->i >= (long double)b->f;
	if (b->type == SL_V_INT && !b->big && a->type == SL_V_FLOAT)
		return (long double)a->f >= (long double)b->i;
	return a->f >= b->f;
}

/* schema.py: validate_min_max and validate_categorical_prob, on numbers. */
static void check_extra(struct out *o, const struct sl_param *p)
{
	if (sl_form_is_number(p->min) && sl_form_is_number(p->max) && num_ge(p->min, p->max))
		add(o, p->min, sl_arena_printf(o->a, "min must be strictly less than max"),
		    "min %s of '%s' is not less than max %s", p->min->text, p->path, p->max->text);
	if (p->values && p->probabilities && p->values->kind == SL_NODE_SEQ &&
	    p->probabilities->kind == SL_NODE_SEQ) {
		if (p->values->n != p->probabilities->n) {
			add(o, p->probabilities, NULL, "'%s' has %zu values but %zu probabilities", p->path,
			    p->values->n, p->probabilities->n);
		} else {
			double sum = 0;
			bool nums = true;
			for (size_t i = 0; i < p->probabilities->n; i++) {
				nums = nums && sl_form_is_number(p->probabilities->items[i]);
				sum += p->probabilities->items[i]->value.f;
			}
			/* np.isclose(sum, 1.0): |sum - 1| <= 1e-8 + 1e-5 * 1 */
			if (nums && !(fabs(sum - 1.0) <= 1e-8 + 1e-5))
				add(o, p->probabilities, NULL, "probabilities of '%s' sum to %g, not 1", p->path, sum);
		}
	}
}

/*
 * The wandb client's own check before it uploads a sweep (wandb/wandb@b6e29505
 * wandb/sdk/internal/internal_api.py _validate_config_and_fill_distribution(),
 * run by upsert_sweep for `wandb sweep`, wandb.sweep() and launch-sweep since
 * wandb#2337): a top-level parameter with min and max and no distribution gets
 * int_uniform when both are ints (a bool is a Python int), uniform when both
 * are floats, and otherwise raises "Parameter ... is ambiguous": no sweep is
 * created, although the schema takes the mix (wandb/sweeps#30).
 */
static void check_client(struct out *o, const struct sl_param *p)
{
	if (p->depth || p->dist_explicit || !sl_form_is_number(p->min) || !sl_form_is_number(p->max))
		return;
	bool imin = sl_node_is(p->min, SL_V_INT), imax = sl_node_is(p->max, SL_V_INT);
	if (imin == imax)
		return;
	const struct sl_node *i = imin ? p->min : p->max;
	add(o, i, "add 'distribution: uniform', or write both bounds as floats",
	    "min %s and max %s of '%s' mix an integer and a float: wandb sweep refuses the parameter as ambiguous "
	    "before it creates the sweep",
	    p->min->text, p->max->text, p->path);
}

static void check_param(struct out *o, const struct sl_param *p)
{
	if (!sl_form_name_ok(p->key))
		add(o, p->key, "names start with a letter or '_' and hold letters, digits, '_', '.', '-'",
		    "parameter name %s is not allowed", show(o->a, p->key));
	if (p->dist == SL_DIST_NONE && !p->is_dict) {
		explain(o, p);
		return;
	}
	if (p->is_dict) {
		/* a dict parameter only takes 'parameters' (its children are checked on their own) */
		if (!sl_form_ok(&sl_sweep_forms[sl_sweep_nforms - 1], p->node)) {
			size_t before = o->n;
			struct extra_ctx ec = {.o = o, .f = &sl_sweep_forms[sl_sweep_nforms - 1], .p = p, .what = "a nested"};
			sl_form_each_key(p->node, report_extra, &ec, 0);
			if (p->parameters->n == 0)
				add(o, p->parameters, NULL, "'parameters' of '%s' is empty", p->path);
			(void)before;
		}
		return;
	}
	check_extra(o, p);
	check_client(o, p);
}

/* ---- the top level ---- */

struct top_ctx {
	struct out *o;
	const struct sl_sweep *s;
};

static const char *const top_keys[] = {
	"apiVersion", "kind",  "controller", "description", "program", "job",     "image_uri",      "entity", "project",
	"method",     "command", "name",     "run_cap",     "metric",  "metrics", "scheduler", "early_terminate", "parameters",
};

static bool top_key(const struct sl_node *key, void *ctx)
{
	struct top_ctx *c = ctx;
	bool known = false;
	if (key->kind == SL_NODE_SCALAR && key->value.type == SL_V_STR) {
		for (size_t i = 0; i < sizeof top_keys / sizeof top_keys[0]; i++)
			known = known || strcmp(key->text, top_keys[i]) == 0;
		/* launch-sweep pops `launch` (queue, registry) before W&B sees the sweep */
		known = known || (c->s->launch && strcmp(key->text, "launch") == 0);
	}
	if (!known) {
		size_t before = c->o->n;
		add(c->o, key,
		    did_you_mean(c->o->a, key->kind == SL_NODE_SCALAR ? key->text : "", top_keys,
				 sizeof top_keys / sizeof top_keys[0]),
		    "unknown top-level key %s%s", show(c->o->a, key),
		    c->o->local ? ": W&B's local controller allows only its sweep keys" : "");
		/* the schema's additionalProperties: a warning the server returns with the sweep (wandb/sweeps#11) */
		accepted_since(c->o, before, "ignores it");
	}
	return true;
}

static bool is_str(const struct sl_node *n)
{
	return n && n->kind == SL_NODE_SCALAR && n->value.type == SL_V_STR;
}

static void want_string(struct out *o, const struct sl_node *root, const char *key)
{
	const struct sl_node *v = sl_map_get(root, key);
	if (v && !is_str(v))
		add(o, v, v->kind == SL_NODE_SCALAR ? sl_arena_printf(o->a, "quote it: '%s'", v->text) : NULL,
		    "'%s' must be a string, not %s", key, sl_node_describe(v));
}

static void want_enum(struct out *o, const struct sl_node *v, const char *what, const char *const *names, size_t n,
		      bool must_be_string)
{
	if (!v)
		return;
	if (is_str(v))
		for (size_t i = 0; i < n; i++)
			if (strcmp(v->text, names[i]) == 0)
				return;
	(void)must_be_string;
	struct sl_buf b;
	sl_buf_init(&b, o->a);
	for (size_t i = 0; i < n; i++)
		sl_buf_addf(&b, "%s'%s'", i ? (i + 1 == n ? " or " : ", ") : "", names[i]);
	const char *hint = v->kind == SL_NODE_SCALAR ? did_you_mean(o->a, v->text, names, n) : NULL;
	add(o, v, hint, "%s must be %s, not %s", what, b.buf,
	    is_str(v) ? show(o->a, v) : sl_node_describe(v));
}

/* draft 7 "integer": an int, or a float with no fraction */
static bool is_integer(const struct sl_node *v)
{
	return sl_node_is(v, SL_V_INT) || (sl_node_is(v, SL_V_FLOAT) && isfinite(v->value.f) && floor(v->value.f) == v->value.f);
}

static void check_metric(struct out *o, const struct sl_node *m, const char *what)
{
	if (m->kind != SL_NODE_MAP) {
		add(o, m, NULL, "%s must be a mapping with a 'name', not %s", what, sl_node_describe(m));
		return;
	}
	static const char *const keys[] = {"name", "goal", "target", "impute", "impute_while_running"};
	for (size_t i = 0; i < m->n; i++) {
		const struct sl_node *k = m->pairs[i].key;
		bool known = false;
		for (size_t j = 0; j < 5; j++)
			known = known || (is_str(k) && strcmp(k->text, keys[j]) == 0);
		if (!known && !(k->kind == SL_NODE_SCALAR && k->value.merge))
			add(o, k, did_you_mean(o->a, k->kind == SL_NODE_SCALAR ? k->text : "", keys, 5),
			    "unknown key %s in %s", show(o->a, k), what);
	}
	const struct sl_node *name = sl_map_get(m, "name");
	if (!name)
		add(o, m, NULL, "%s needs a 'name'", what);
	else if (!is_str(name))
		add(o, name, name->kind == SL_NODE_SCALAR ? sl_arena_printf(o->a, "quote it: '%s'", name->text) : NULL,
		    "%s name must be a string, not %s", what, sl_node_describe(name));
	static const char *const goals[] = {"minimize", "maximize"};
	size_t before = o->n;
	want_enum(o, sl_map_get(m, "goal"), sl_arena_printf(o->a, "%s goal", what), goals, 2, true);
	accepted_since(o, before, "minimizes");
	const struct sl_node *t = sl_map_get(m, "target");
	if (t && !sl_form_is_number(t))
		wrong_type(o, sl_arena_printf(o->a, "%s target", what), t, "a number");
	static const char *const imputes[] = {"latest", "best", "worst"};
	before = o->n;
	want_enum(o, sl_map_get(m, "impute"), sl_arena_printf(o->a, "%s impute", what), imputes, 3, true);
	accepted_since(o, before, "imputes 'worst'");
	static const char *const iwr[] = {"latest", "best", "worst", "false"};
	const struct sl_node *w = sl_map_get(m, "impute_while_running");
	if (w && sl_node_is(w, SL_V_BOOL) && !w->value.b)
		add(o, w, "quote it: 'false'", "%s impute_while_running must be the string 'false', not a boolean",
		    what);
	else
		want_enum(o, w, sl_arena_printf(o->a, "%s impute_while_running", what), iwr, 4, true);
}

static void check_early_terminate(struct out *o, const struct sl_node *e)
{
	if (e->kind != SL_NODE_MAP) {
		add(o, e, NULL, "early_terminate must be a mapping such as {type: hyperband, min_iter: 3}, not %s",
		    sl_node_describe(e));
		return;
	}
	static const char *const keys[] = {"type", "max_iter", "min_iter", "s", "eta", "strict"};
	for (size_t i = 0; i < e->n; i++) {
		const struct sl_node *k = e->pairs[i].key;
		bool known = false;
		for (size_t j = 0; j < 6; j++)
			known = known || (is_str(k) && strcmp(k->text, keys[j]) == 0);
		if (!known && !(k->kind == SL_NODE_SCALAR && k->value.merge))
			add(o, k, did_you_mean(o->a, k->kind == SL_NODE_SCALAR ? k->text : "", keys, 6),
			    "unknown key %s in early_terminate", show(o->a, k));
	}
	const struct sl_node *type = sl_map_get(e, "type");
	static const char *const types[] = {"hyperband"};
	if (!type)
		add(o, e, "add 'type: hyperband'", "early_terminate needs a 'type'");
	else
		want_enum(o, type, "early_terminate type", types, 1, true);
	const struct sl_node *max_iter = sl_map_get(e, "max_iter"), *min_iter = sl_map_get(e, "min_iter"),
			     *sv = sl_map_get(e, "s"), *eta = sl_map_get(e, "eta"), *strict = sl_map_get(e, "strict");
	if (!(max_iter && sv) && !min_iter)
		add(o, e, "give min_iter, or max_iter and s", "hyperband early_terminate needs 'min_iter', or 'max_iter' and 's'");
	if (max_iter && !is_integer(max_iter))
		wrong_type(o, "early_terminate max_iter", max_iter, "an integer");
	if (min_iter && !is_integer(min_iter))
		wrong_type(o, "early_terminate min_iter", min_iter, "an integer");
	else if (min_iter && min_iter->value.f < 1)
		add(o, min_iter, NULL, "early_terminate min_iter must be at least 1, not %s", min_iter->text);
	if (sv && !sl_form_is_number(sv))
		wrong_type(o, "early_terminate s", sv, "a number");
	if (eta && !sl_form_is_number(eta))
		wrong_type(o, "early_terminate eta", eta, "a number");
	else if (eta && eta->value.f <= 1)
		add(o, eta, NULL, "early_terminate eta must be greater than 1, not %s", eta->text);
	if (strict && !sl_node_is(strict, SL_V_BOOL))
		add(o, strict, NULL, "early_terminate strict must be true or false, not %s", sl_node_describe(strict));
}

static void check_scheduler(struct out *o, const struct sl_sweep *s, const struct sl_node *sc)
{
	const struct sl_node *root = s->root;
	if (sc->kind != SL_NODE_MAP) {
		add(o, sc, NULL, "scheduler must be a mapping with an 'engine', not %s", sl_node_describe(sc));
		return;
	}
	static const char *const keys[] = {"engine", "source", "optimizer", "search_space"};
	for (size_t i = 0; i < sc->n; i++) {
		const struct sl_node *k = sc->pairs[i].key;
		bool known = false;
		for (size_t j = 0; j < 4; j++)
			known = known || (is_str(k) && strcmp(k->text, keys[j]) == 0);
		if (!known && !(k->kind == SL_NODE_SCALAR && k->value.merge))
			add(o, k, did_you_mean(o->a, k->kind == SL_NODE_SCALAR ? k->text : "", keys, 4),
			    "unknown key %s in scheduler", show(o->a, k));
	}
	const struct sl_node *engine = sl_map_get(sc, "engine");
	static const char *const engines[] = {"optuna", "ax", "wandb"};
	if (!engine)
		add(o, sc, NULL, "scheduler needs an 'engine'");
	else
		want_enum(o, engine, "scheduler engine", engines, 3, true);
	for (size_t j = 1; j < 4; j++) {
		const struct sl_node *v = sl_map_get(sc, keys[j]);
		if (v && !is_str(v))
			add(o, v, NULL, "scheduler %s must be a string, not %s", keys[j], sl_node_describe(v));
		if (v && j >= 2 && !sl_map_get(sc, "source"))
			add(o, v, NULL, "scheduler %s needs 'source'", keys[j]);
	}
	const struct sl_node *ctl = sl_map_get(root, "controller");
	const struct sl_node *ctype = sl_map_get(ctl, "type");
	if (is_str(ctype) && strcmp(ctype->text, "local") == 0)
		add(o, ctype, NULL, "a local controller cannot be used together with scheduler");
	if (sl_map_get(root, "early_terminate"))
		add(o, sl_map_get(root, "early_terminate"), NULL, "early_terminate cannot be used together with scheduler");
	if (is_str(engine)) {
		if (strcmp(engine->text, "wandb") != 0)
			add(o, engine, NULL, "scheduler engine '%s' is not supported yet (only 'wandb')", engine->text);
		else if (s->method != SL_METHOD_GRID && s->method != SL_METHOD_BAYES && s->method != SL_METHOD_RANDOM)
			add(o, s->method_node ? s->method_node : engine, NULL,
			    "scheduler engine 'wandb' needs method grid, bayes or random");
	}
}

/*
 * A launch sweep (wandb/wandb@b6e29505 wandb/cli/cli.py launch_sweep and
 * sdk/launch/sweeps/utils.py construct_scheduler_args): what launch-sweep
 * itself refuses before it creates the sweep. Its `scheduler` block is the
 * launch scheduler's (job, settings, resource, ...), popped before W&B's
 * validation; keys it does not know are passed to the scheduler run's config
 * (a custom scheduler job may read them), so they are not findings.
 */
static void check_launch(struct out *o, const struct sl_sweep *s)
{
	const struct sl_node *root = s->root;
	const struct sl_node *job = sl_map_get(root, "job"), *img = sl_map_get(root, "image_uri");
	bool hj = sl_node_truthy(job), hi = sl_node_truthy(img);
	if (!hj && !hi)
		add(o, job ? job : img ? img : root, "add 'job: ENTITY/PROJECT/NAME:ALIAS' (or 'image_uri: IMAGE')",
		    "a launch sweep needs a top-level 'job' or 'image_uri': wandb launch-sweep refuses it without one");
	else if (hj && hi)
		add(o, img, "keep one of them", "a launch sweep takes 'job' or 'image_uri', not both");
	const struct sl_node *launch = sl_map_get(root, "launch");
	if (launch && launch->kind != SL_NODE_MAP)
		add(o, launch, NULL, "launch must be a mapping such as {queue: NAME}, not %s", sl_node_describe(launch));
	const struct sl_node *sc = sl_map_get(root, "scheduler");
	if (!sc)
		return;
	if (sc->kind != SL_NODE_MAP) {
		add(o, sc, NULL, "scheduler of a launch sweep must be a mapping such as {settings: {method: grid}}, not %s",
		    sl_node_describe(sc));
		return;
	}
	const struct sl_node *settings = sl_map_get(sc, "settings");
	if (settings && settings->kind != SL_NODE_MAP)
		add(o, settings, NULL, "scheduler settings must be a mapping such as {method: grid}, not %s",
		    sl_node_describe(settings));
	const struct sl_node *res = sl_map_get(sc, "resource");
	if (sl_node_truthy(res) && is_str(res) && strcmp(res->text, "local-process") == 0) {
		if (sl_node_truthy(sl_map_get(sc, "job")))
			add(o, res, "use 'local-container' or a remote resource",
			    "a scheduler job cannot run with the 'local-process' resource");
		else if (sl_node_truthy(sl_map_get(sc, "docker_image")))
			add(o, res, "drop docker_image or use 'local-container'",
			    "the scheduler cannot run with the 'local-process' resource and a docker_image");
	}
}

/*
 * What the bayes search refuses when W&B builds the first run at creation
 * (wandb/sweeps@b1dfc5f bayes_search.py bayes_baseline_validate_and_fill and
 * _construct_gp_data; the server answers "Invalid sweep config: Need at
 * least one searchable parameter for bayes search.", wandb#8290): a metric,
 * and one parameter that is not a constant (params.py HyperParameterSet).
 */
static void check_bayes(struct out *o, const struct sl_sweep *s)
{
	if (s->method != SL_METHOD_BAYES || !s->method_node)
		return;
	if (!s->metric) {
		add(o, s->method_node, "add metric: {name: ..., goal: minimize}",
		    "bayes search needs a 'metric': W&B refuses the sweep (\"Bayesian search requires metric\")");
		return;
	}
	size_t leaves = 0;
	for (size_t i = 0; i < s->nparams; i++) {
		const struct sl_param *p = &s->params[i];
		if (p->is_dict)
			continue;
		if (p->dist != SL_DIST_CONSTANT)
			return; /* searchable (or, with no distribution, refused on its own) */
		leaves++;
	}
	if (leaves)
		add(o, s->method_node, "give one parameter values or a distribution, or use method: grid",
		    "bayes search needs a parameter that varies: every parameter is a constant, and W&B refuses "
		    "the sweep (\"Need at least one searchable parameter\")");
}

size_t sl_sweep_validate(struct sl_arena *a, const struct sl_sweep *s, struct sl_sweep_problem **outp)
{
	struct out o = {.a = a};
	const struct sl_node *root = s->root;
	*outp = NULL;
	if (!s->is_sweep || !root)
		return 0;
	const struct sl_node *ctype = sl_map_get(sl_map_get(root, "controller"), "type");
	o.local = is_str(ctype) && strcmp(ctype->text, "local") == 0;
	struct top_ctx tc = {.o = &o, .s = s};
	sl_form_each_key(root, top_key, &tc, 0);

	static const char *const strings[] = {"apiVersion", "description", "program", "job",
					      "image_uri",  "entity",      "project", "name"};
	for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
		want_string(&o, root, strings[i]);
	static const char *const kinds[] = {"sweep"};
	want_enum(&o, sl_map_get(root, "kind"), "kind", kinds, 1, true);
	const struct sl_node *ctl = sl_map_get(root, "controller");
	if (ctl) {
		static const char *const ctypes[] = {"local", "cloud"};
		if (ctl->kind != SL_NODE_MAP)
			add(&o, ctl, NULL, "controller must be a mapping such as {type: local}, not %s", sl_node_describe(ctl));
		else if (!sl_map_get(ctl, "type"))
			add(&o, ctl, NULL, "controller needs a 'type' (local or cloud)");
		else
			want_enum(&o, sl_map_get(ctl, "type"), "controller type", ctypes, 2, true);
	}

	static const char *const methods[] = {"bayes", "random", "grid", "custom"};
	if (!s->method_node && s->launch) {
		if (!s->method_implied)
			add(&o, root, "add 'method: grid' (or random, bayes) under scheduler.settings",
			    "the launch sweep has no method: wandb launch-sweep takes it from scheduler.settings.method "
			    "or 'method' (or uses 'custom' for a scheduler job)");
	} else if (!s->method_node)
		add(&o, root, "add 'method: grid', 'random' or 'bayes'", "the sweep has no 'method'");
	else
		want_enum(&o, s->method_node, "method", methods, 4, false);

	const struct sl_node *sched = sl_map_get(root, "scheduler");
	/* a launch sweep's scheduler is popped before W&B sees the sweep */
	const struct sl_node *space =
		sched && !s->launch && sched->kind == SL_NODE_MAP ? sl_map_get(sched, "search_space") : NULL;
	if (!s->parameters && !sl_node_truthy(space))
		add(&o, root, NULL, "the sweep has no 'parameters'");

	const struct sl_node *cmd = s->command;
	if (cmd && cmd->kind != SL_NODE_SEQ)
		add(&o, cmd, cmd->kind == SL_NODE_SCALAR ? "write it as a list: [${env}, ${interpreter}, ${program}, ${args}]" : NULL,
		    "command must be a list of arguments, not %s", sl_node_describe(cmd));

	const struct sl_node *rc = s->run_cap;
	if (rc && !is_integer(rc))
		wrong_type(&o, "run_cap", rc, "an integer");
	else if (rc && !(rc->value.f > 0))
		add(&o, rc, NULL, "run_cap must be greater than 0, not %s", rc->text);

	if (s->metric)
		check_metric(&o, s->metric, "metric");
	const struct sl_node *metrics = sl_map_get(root, "metrics");
	if (metrics) {
		if (metrics->kind != SL_NODE_SEQ || metrics->n < 2)
			add(&o, metrics, NULL, "metrics must be a list of at least 2 metrics");
		else
			for (size_t i = 0; i < metrics->n; i++)
				check_metric(&o, metrics->items[i], "metrics item");
		if (s->metric)
			add(&o, metrics, "use 'metric' for one objective, 'metrics' for several",
			    "metric and metrics cannot both be set");
		else if (s->method_node && s->method != SL_METHOD_CUSTOM)
			add(&o, metrics, NULL, "metrics requires 'method: custom'");
	}
	if (s->launch)
		check_launch(&o, s);
	else if (sched)
		check_scheduler(&o, s, sched);
	if (s->early_terminate)
		check_early_terminate(&o, s->early_terminate);

	const struct sl_node *params = s->parameters;
	if (params) {
		if (params->kind != SL_NODE_MAP)
			add(&o, params, NULL, "parameters must be a mapping of parameter names, not %s",
			    sl_node_describe(params));
		else if (s->nparams == 0)
			add(&o, params, NULL, "parameters must hold at least one parameter");
		for (size_t i = 0; i < s->nparams; i++)
			check_param(&o, &s->params[i]);
	}
	check_bayes(&o, s);
	/* document order */
	for (size_t i = 1; i < o.n; i++) {
		struct sl_sweep_problem t = o.v[i];
		size_t j = i;
		while (j > 0 && o.v[j - 1].at->span.start > t.at->span.start) {
			o.v[j] = o.v[j - 1];
			j--;
		}
		o.v[j] = t;
	}
	*outp = o.v;
	return o.n;
}
