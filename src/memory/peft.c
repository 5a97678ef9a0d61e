/*
 * memory/peft: the PEFT methods of rules/peft.yaml (peft_table.h) over an architecture: their
 * postfix formulas evaluated per target linear, per linear kind and per model, summed into the
 * trainable parameters, the frozen bytes they add and what their forward keeps for backward.
 */
#include <math.h>
#include <string.h>

#include "peft_table.h"

const struct sl_peft_def *sl_peft_def_of(enum sl_peft m)
{
	unsigned i = (unsigned)m;
	if (i < SL_PEFT_TABLE || i - SL_PEFT_TABLE >= sl_peft_table_n)
		return NULL;
	return &sl_peft_table[i - SL_PEFT_TABLE];
}

void sl_peft_knobs_default(const struct sl_peft_def *d, struct sl_peft_knobs *k)
{
	memset(k, 0, sizeof *k);
	for (unsigned i = 0; i < d->nknobs && i < SL_PEFT_KNOBS_MAX; i++)
		k->v[i] = d->knob_values[i];
}

int sl_peft_knobs_set(const struct sl_peft_def *d, struct sl_peft_knobs *k, const char *key, double value)
{
	for (unsigned i = 0; i < d->nknobs && i < SL_PEFT_KNOBS_MAX; i++) {
		if (strcmp(d->knob_keys[i], key) == 0) {
			k->v[i] = value;
			return 0;
		}
	}
	return -1;
}

/* LyCORIS factorization(dimension, factor) (peft/tuners/lokr/layer.py): m <= n, m * n = dimension */
static void factorization(double dim, double factor, double *m_out, double *n_out)
{
	uint64_t d = dim > 0 ? (uint64_t)dim : 1;
	if (factor > 0 && d % (uint64_t)factor == 0) {
		*m_out = factor, *n_out = (double)(d / (uint64_t)factor);
		return;
	}
	uint64_t f = factor == -1 ? d : (factor > 0 ? (uint64_t)factor : d);
	uint64_t m = 1, n = d, length = m + n;
	while (m < n) {
		uint64_t nm = m + 1;
		while (d % nm != 0)
			nm++;
		uint64_t nn = d / nm;
		if (nm + nn > length || nm > f)
			break;
		m = nm, n = nn;
	}
	if (m > n) {
		uint64_t t = m;
		m = n, n = t;
	}
	*m_out = (double)m, *n_out = (double)n;
}

/* LoKrLayer.update_layer / create_adapter_parameters for a Linear */
static double lokr_params(double in, double out, double r, double factor, double both)
{
	double in_m, in_n, out_l, out_k;
	factorization(in, factor, &in_m, &in_n);
	factorization(out, factor, &out_l, &out_k);
	bool use_w1 = !(both != 0 && r < fmax(out_l, in_m) / 2);
	bool use_w2 = !(r < fmax(out_k, in_n) / 2);
	double w1 = use_w1 ? out_l * in_m : r * (out_l + in_m);
	double w2 = use_w2 ? out_k * in_n : r * (out_k + in_n);
	return w1 + w2;
}

#define STACK 32

static double eval(const struct sl_peft_expr *e, const double *vars, unsigned nvars)
{
	double st[STACK];
	unsigned sp = 0;
	if (!e->ops)
		return 0;
	for (unsigned i = 0; i < e->n; i++) {
		const struct sl_peft_op *o = &e->ops[i];
		double b, a;
		switch (o->op) {
		case SL_POP_NUM:
			if (sp < STACK)
				st[sp++] = o->num;
			continue;
		case SL_POP_VAR:
			if (sp < STACK)
				st[sp++] = o->var < nvars ? vars[o->var] : 0;
			continue;
		case SL_POP_FLOOR:
			if (sp >= 1)
				st[sp - 1] = floor(st[sp - 1]);
			continue;
		case SL_POP_CEIL:
			if (sp >= 1)
				st[sp - 1] = ceil(st[sp - 1]);
			continue;
		case SL_POP_LOKR:
			if (sp >= 5) {
				sp -= 4;
				st[sp - 1] = lokr_params(st[sp - 1], st[sp], st[sp + 1], st[sp + 2], st[sp + 3]);
			}
			continue;
		default:
			break;
		}
		if (sp < 2)
			return 0; /* gen_peft.py compiles only well-formed programs */
		b = st[--sp];
		a = st[sp - 1];
		switch (o->op) {
		case SL_POP_ADD:
			a += b;
			break;
		case SL_POP_SUB:
			a -= b;
			break;
		case SL_POP_MUL:
			a *= b;
			break;
		case SL_POP_DIV:
			a = b != 0 ? a / b : 0;
			break;
		case SL_POP_MIN:
			a = a < b ? a : b;
			break;
		case SL_POP_MAX:
			a = a > b ? a : b;
			break;
		case SL_POP_DEF:
			a = a != 0 ? a : b;
			break;
		default:
			break;
		}
		st[sp - 1] = a;
	}
	return sp ? st[sp - 1] : 0;
}

struct eval_ctx {
	const struct sl_peft_expr *e;
	double vars[SL_PV_KNOB + SL_PEFT_KNOBS_MAX];
	unsigned nvars;
};

static double per_target(const void *ctx, double in, double out, bool ff)
{
	(void)ff;
	struct eval_ctx c = *(const struct eval_ctx *)ctx;
	c.vars[SL_PV_IN] = in;
	c.vars[SL_PV_OUT] = out;
	return eval(c.e, c.vars, c.nvars);
}

/* e over every target of the model (per target), and of one layer in *layer */
static double over_targets(const struct sl_arch *a, uint32_t t, struct eval_ctx *c, const struct sl_peft_expr *e,
			   double *layer)
{
	c->e = e;
	return sl_arch_targets(a, t, per_target, c, layer);
}

void sl_peft_sizes(const struct sl_arch *a, const struct sl_peft_def *d, uint32_t r, uint32_t targets,
		   double wb, const struct sl_peft_knobs *k, struct sl_peft_sizes *out)
{
	memset(out, 0, sizeof *out);
	struct eval_ctx c;
	memset(&c, 0, sizeof c);
	uint32_t t = targets ? targets : d->targets;
	c.vars[SL_PV_R] = r ? r : d->rank_default;
	c.vars[SL_PV_L] = a->layers;
	c.vars[SL_PV_WB] = wb;
	struct sl_peft_knobs def;
	if (!k) {
		sl_peft_knobs_default(d, &def);
		k = &def;
	}
	for (unsigned i = 0; i < d->nknobs && i < SL_PEFT_KNOBS_MAX; i++)
		c.vars[SL_PV_KNOB + i] = k->v[i];
	c.nvars = SL_PV_KNOB + (d->nknobs < SL_PEFT_KNOBS_MAX ? d->nknobs : SL_PEFT_KNOBS_MAX);

	double layer = 0, kind = 0;
	/* the per-kind terms: each kind of one layer once */
	over_targets(a, t, &c, &d->params_kind, &kind);
	out->params = over_targets(a, t, &c, &d->params, NULL) + kind + eval(&d->params_model, c.vars, c.nvars);
	over_targets(a, t, &c, &d->buffers_kind, &kind);
	out->buffers = over_targets(a, t, &c, &d->buffers, NULL) + kind;
	over_targets(a, t, &c, &d->keeps_token, &layer);
	out->keeps_token = layer;
	over_targets(a, t, &c, &d->keeps_weight, &layer);
	out->keeps_weight = layer;
}
