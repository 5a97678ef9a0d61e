/*
 * moddims: the symbolic dimensions of a layer list (struct sl_modules, modules.c). A program builds its
 * nn.Module from sweep parameters (`nn.Linear(d_model, d_model * 4)`), so the interpreter of the program
 * (src/program/pymodules.py) writes a size it cannot know alone as `{expr}`, an expression of the sweep
 * parameters the size is computed from:
 *
 *   dim    := "{" expr "}"
 *   expr   := term (("+" | "-") term)*
 *   term   := factor (("*" | "//" | "%") factor)*
 *   factor := INTEGER | NAME ["[" case ("," case)* "]"] | "(" expr ")" | ("max" | "min") "(" expr ("," expr)* ")"
 *   case   := key ":" INTEGER          key := INTEGER | NUMBER | 'text' | True | False
 *   NAME   := [A-Za-z_][A-Za-z0-9_.]* | `any text but a backquote`
 *
 * NAME is the value a sweep parameter takes in the combination; NAME[k: v, ...] maps its values to
 * sizes (the evaluator's value map of one parameter: `{"small": 256, "large": 1024}[cfg.size]`).
 * Evaluated per combination (env->value: one value per parameter), or bounded over all of them
 * (env->range: each parameter's least and largest value, a value map's least and largest case) by
 * interval arithmetic. Nothing is allocated but the names and messages (in the arena).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/memory.h"

#define MAX_NEST 16          /* parentheses and max() nested */
#define DIM_MAX 9007199254740992.0 /* 2^53: a size past it is refused (doubles stay exact below) */

struct dparser {
	struct sl_arena *a;
	const char *p;
	const struct sl_modules_env *env;
	const char *why;
	unsigned depth;
};

struct ival {
	double lo, hi;
};

static void skip(struct dparser *D)
{
	while (*D->p == ' ' || *D->p == '\t')
		D->p++;
}

static bool dfail(struct dparser *D, const char *why)
{
	if (!D->why)
		D->why = why;
	return false;
}

/* A name: [A-Za-z_][A-Za-z0-9_.]* or `...`; its text (arena) in *out. */
static bool dname(struct dparser *D, const char **out)
{
	const char *s = D->p;
	if (*s == '`') {
		const char *e = strchr(s + 1, '`');
		if (!e || e == s + 1)
			return dfail(D, "an unterminated `name`");
		*out = sl_arena_strndup(D->a, s + 1, (size_t)(e - s - 1));
		D->p = e + 1;
		return true;
	}
	if (!isalpha((unsigned char)*s) && *s != '_')
		return dfail(D, "expected a number or a sweep parameter's name");
	const char *e = s;
	while (isalnum((unsigned char)*e) || *e == '_' || *e == '.')
		e++;
	*out = sl_arena_strndup(D->a, s, (size_t)(e - s));
	D->p = e;
	return true;
}

/* An integer (a leading '-' allowed); false when none is there. */
static bool dint(struct dparser *D, double *out)
{
	const char *s = D->p;
	bool neg = *s == '-';
	if (neg)
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	double v = 0;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s++ - '0');
		if (v > DIM_MAX)
			return dfail(D, "a number too large");
	}
	*out = neg ? -v : v;
	D->p = s;
	return true;
}

/* Whether case key at D->p names value v; D->p moves past the key. */
static bool case_key(struct dparser *D, const struct sl_modules_val *v, bool *hit)
{
	const char *s = D->p;
	*hit = false;
	if (*s == '\'') {
		const char *e = strchr(s + 1, '\'');
		if (!e)
			return dfail(D, "an unterminated 'text' key");
		size_t n = (size_t)(e - s - 1);
		*hit = v && v->kind == SL_MV_STR && v->slen == n && memcmp(v->s, s + 1, n) == 0;
		D->p = e + 1;
		return true;
	}
	if (strncmp(s, "True", 4) == 0 || strncmp(s, "False", 5) == 0) {
		bool t = s[0] == 'T';
		*hit = v && v->kind == SL_MV_BOOL && v->b == t;
		D->p = s + (t ? 4 : 5);
		return true;
	}
	char *end = NULL;
	double k = strtod(s, &end);
	if (end == s)
		return dfail(D, "expected a case key (a number, 'text', True or False)");
	bool is_float = false;
	for (const char *q = s; q < end; q++)
		is_float |= *q == '.' || *q == 'e' || *q == 'E';
	if (v && v->kind == SL_MV_INT)
		*hit = !is_float && (double)v->i == k;
	else if (v && v->kind == SL_MV_FLOAT)
		*hit = v->f == k;
	D->p = end;
	return true;
}

static bool expr(struct dparser *D, struct ival *out);

/* NAME[k: v, ...]: the case of the parameter's value (exact), or the least and largest case (bound). */
static bool cases(struct dparser *D, const char *name, const struct sl_modules_val *v, struct ival *out)
{
	D->p++; /* '[' */
	bool bound = D->env->range != NULL, found = false;
	double lo = INFINITY, hi = -INFINITY;
	for (;;) {
		skip(D);
		bool hit = false;
		if (!case_key(D, bound ? NULL : v, &hit))
			return false;
		skip(D);
		if (*D->p != ':')
			return dfail(D, "expected ':' after a case key");
		D->p++;
		skip(D);
		double x;
		if (!dint(D, &x))
			return dfail(D, D->why ? D->why : "expected a case's size");
		if (bound || (hit && !found)) {
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
			found |= hit;
		}
		skip(D);
		if (*D->p == ',') {
			D->p++;
			continue;
		}
		if (*D->p != ']')
			return dfail(D, "expected ',' or ']' in a value map");
		D->p++;
		break;
	}
	if (!bound && !found)
		return dfail(D, sl_arena_printf(D->a, "the value map of %s has no case for this value", name));
	if (lo > hi)
		return dfail(D, "an empty value map");
	*out = (struct ival){lo, hi};
	return true;
}

static bool factor(struct dparser *D, struct ival *out)
{
	skip(D);
	if (++D->depth > MAX_NEST)
		return dfail(D, "a dimension nested too deeply");
	bool ok = false;
	double x = 0;
	if (*D->p == '(') {
		D->p++;
		ok = expr(D, out);
		skip(D);
		if (ok && *D->p != ')')
			ok = dfail(D, "expected ')'");
		if (ok)
			D->p++;
	} else if (isdigit((unsigned char)*D->p)) {
		ok = dint(D, &x);
		*out = (struct ival){x, x};
	} else if ((strncmp(D->p, "max(", 4) == 0 || strncmp(D->p, "min(", 4) == 0)) {
		bool mx = D->p[1] == 'a';
		D->p += 4;
		ok = expr(D, out);
		skip(D);
		while (ok && *D->p == ',') {
			D->p++;
			struct ival b;
			ok = expr(D, &b);
			if (ok)
				*out = mx ? (struct ival){fmax(out->lo, b.lo), fmax(out->hi, b.hi)}
					  : (struct ival){fmin(out->lo, b.lo), fmin(out->hi, b.hi)};
			skip(D);
		}
		if (ok && *D->p != ')')
			ok = dfail(D, "expected ')' after max(...)");
		if (ok)
			D->p++;
	} else {
		const char *name;
		ok = dname(D, &name);
		if (ok) {
			struct sl_modules_val v = {0};
			double lo = 0, hi = 0;
			if (D->env->range) {
				/* a value map is bounded by its cases alone */
				if (*D->p != '[' && !D->env->range(D->env->ctx, name, &lo, &hi))
					ok = dfail(D, sl_arena_printf(D->a, "sweep parameter %s has no numeric range", name));
			} else if (!D->env->value || !D->env->value(D->env->ctx, name, &v)) {
				ok = dfail(D, sl_arena_printf(D->a, "sweep parameter %s has no value here", name));
			}
			if (ok && *D->p == '[') {
				ok = cases(D, name, &v, out);
			} else if (ok && D->env->range) {
				*out = (struct ival){lo, hi};
			} else if (ok) {
				if (v.kind == SL_MV_INT)
					x = (double)v.i;
				else if (v.kind == SL_MV_BOOL)
					x = v.b;
				else if (v.kind == SL_MV_FLOAT && v.f == floor(v.f) && fabs(v.f) <= DIM_MAX)
					x = v.f;
				else
					ok = dfail(D, sl_arena_printf(D->a, "sweep parameter %s is not an integer here", name));
				*out = (struct ival){x, x};
			}
		}
	}
	D->depth--;
	return ok;
}

static bool term(struct dparser *D, struct ival *out)
{
	if (!factor(D, out))
		return false;
	for (;;) {
		skip(D);
		int op = 0;
		if (D->p[0] == '/' && D->p[1] == '/')
			op = '/', D->p += 2;
		else if (*D->p == '*' || *D->p == '%')
			op = *D->p++;
		else
			return true;
		struct ival b;
		if (!factor(D, &b))
			return false;
		struct ival a = *out;
		if (op == '*') {
			double c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
			out->lo = fmin(fmin(c[0], c[1]), fmin(c[2], c[3]));
			out->hi = fmax(fmax(c[0], c[1]), fmax(c[2], c[3]));
		} else {
			if (b.lo < 1 || a.lo < 0)
				return dfail(D, "a division by a size that may be zero or negative");
			if (op == '/')
				*out = (struct ival){floor(a.lo / b.hi), floor(a.hi / b.lo)};
			else if (a.lo == a.hi && b.lo == b.hi)
				*out = (struct ival){fmod(a.lo, b.lo), fmod(a.lo, b.lo)};
			else
				*out = (struct ival){0, fmin(a.hi, b.hi - 1)};
		}
		if (fabs(out->lo) > DIM_MAX || fabs(out->hi) > DIM_MAX)
			return dfail(D, "a dimension too large");
	}
}

static bool expr(struct dparser *D, struct ival *out)
{
	if (!term(D, out))
		return false;
	for (;;) {
		skip(D);
		if (*D->p != '+' && *D->p != '-')
			return true;
		int op = *D->p++;
		struct ival b;
		if (!term(D, &b))
			return false;
		if (op == '+')
			*out = (struct ival){out->lo + b.lo, out->hi + b.hi};
		else
			*out = (struct ival){out->lo - b.hi, out->hi - b.lo};
		if (fabs(out->lo) > DIM_MAX || fabs(out->hi) > DIM_MAX)
			return dfail(D, "a dimension too large");
	}
}

bool sl_moddim_eval(struct sl_arena *a, const char **p, const struct sl_modules_env *env, double *lo, double *hi,
		    const char **why)
{
	struct dparser D = {.a = a, .p = *p, .env = env};
	if (*D.p != '{')
		return false;
	D.p++;
	struct ival v = {0, 0};
	bool ok = env ? expr(&D, &v) : dfail(&D, "a dimension computed from the sweep's values needs a combination");
	skip(&D);
	if (ok && *D.p != '}')
		ok = dfail(&D, "expected '}' closing a dimension");
	if (!ok) {
		if (why)
			*why = D.why;
		return false;
	}
	*p = D.p + 1;
	*lo = v.lo;
	*hi = v.hi;
	return true;
}

/* The end of the dimension at p ('{'), or NULL: text in '...' and `...` may hold braces. */
static const char *dim_end(const char *p)
{
	for (p++; *p; p++) {
		if (*p == '\'' || *p == '`') {
			const char *e = strchr(p + 1, *p);
			if (!e)
				return NULL;
			p = e;
		} else if (*p == '}') {
			return p;
		}
	}
	return NULL;
}

size_t sl_moddim_params(struct sl_arena *a, const char *spec, const char ***names)
{
	size_t n = 0, cap = 0;
	const char **out = NULL;
	for (const char *p = spec ? strchr(spec, '{') : NULL; p; p = strchr(p, '{')) {
		const char *end = dim_end(p);
		if (!end)
			break;
		for (const char *q = p + 1; q < end;) {
			const char *s = NULL;
			size_t len = 0;
			if (*q == '\'') {
				q = strchr(q + 1, '\'') + 1; /* a case key */
				continue;
			}
			if (*q == '`') {
				const char *e = strchr(q + 1, '`');
				s = q + 1, len = (size_t)(e - q - 1);
				q = e + 1;
			} else if (isalpha((unsigned char)*q) || *q == '_') {
				const char *e = q;
				while (isalnum((unsigned char)*e) || *e == '_' || *e == '.')
					e++;
				s = q, len = (size_t)(e - q);
				q = e;
				bool fn = (len == 3 && (strncmp(s, "max", 3) == 0 || strncmp(s, "min", 3) == 0) && *q == '(');
				bool word = (len == 4 && strncmp(s, "True", 4) == 0) || (len == 5 && strncmp(s, "False", 5) == 0);
				if (fn || word)
					continue;
			} else {
				q++;
				continue;
			}
			bool seen = false;
			for (size_t i = 0; i < n; i++)
				seen |= strlen(out[i]) == len && strncmp(out[i], s, len) == 0;
			if (!seen && len) {
				out = sl_arena_reserve(a, out, n, &cap, n + 1, sizeof *out);
				out[n++] = sl_arena_strndup(a, s, len);
			}
		}
		p = end + 1;
	}
	*names = out;
	return n;
}
