/*
 * scalar: PyYAML's YAML 1.1 implicit resolver (resolver.py, the same regular
 * expressions, compiled with PCRE2) and SafeConstructor's scalar
 * constructors (constructor.py), so that every scalar gets the type and
 * value W&B sees when it yaml.safe_load()s a sweep.
 */
#include "sweeplint/scalar.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <inttypes.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../snapshot/snapshot.h"
#include "sweeplint/arena.h"

/* The implicit resolvers in the order PyYAML registers them, then our own patterns. */
enum re_id {
	RE_BOOL,
	RE_FLOAT,
	RE_INT,
	RE_MERGE,
	RE_NULL,
	RE_TIMESTAMP,
	RE_VALUE,
	RE_TS_CONSTRUCT,  /* SafeConstructor.timestamp_regexp */
	RE_PY_FLOAT,      /* what Python's float() accepts (after PyYAML lower-cased it) */
	RE_HUMAN_NUMBER,  /* what a person reads as a number */
	RE__COUNT
};

/* Python's re.X patterns, verbatim: PCRE2_EXTENDED ignores the same whitespace. */
static const char *const patterns[RE__COUNT] = {
	[RE_BOOL] = "^(?:yes|Yes|YES|no|No|NO\n"
		    "|true|True|TRUE|false|False|FALSE\n"
		    "|on|On|ON|off|Off|OFF)$",
	[RE_FLOAT] = "^(?:[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?\n"
		     "|\\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?\n"
		     "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*\n"
		     "|[-+]?\\.(?:inf|Inf|INF)\n"
		     "|\\.(?:nan|NaN|NAN))$",
	[RE_INT] = "^(?:[-+]?0b[0-1_]+\n"
		   "|[-+]?0[0-7_]+\n"
		   "|[-+]?(?:0|[1-9][0-9_]*)\n"
		   "|[-+]?0x[0-9a-fA-F_]+\n"
		   "|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
	[RE_MERGE] = "^(?:<<)$",
	[RE_NULL] = "^(?: ~\n"
		    "|null|Null|NULL\n"
		    "| )$",
	[RE_TIMESTAMP] = "^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]\n"
			 "|[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?\n"
			 " (?:[Tt]|[ \\t]+)[0-9][0-9]?\n"
			 " :[0-9][0-9] :[0-9][0-9] (?:\\.[0-9]*)?\n"
			 " (?:[ \\t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$",
	[RE_VALUE] = "^(?:=)$",
	[RE_TS_CONSTRUCT] = "^(?P<year>[0-9][0-9][0-9][0-9])\n"
			    "-(?P<month>[0-9][0-9]?)\n"
			    "-(?P<day>[0-9][0-9]?)\n"
			    "(?:(?:[Tt]|[ \\t]+)\n"
			    "(?P<hour>[0-9][0-9]?)\n"
			    ":(?P<minute>[0-9][0-9])\n"
			    ":(?P<second>[0-9][0-9])\n"
			    "(?:\\.(?P<fraction>[0-9]*))?\n"
			    "(?:[ \\t]*(?P<tz>Z|(?P<tz_sign>[-+])(?P<tz_hour>[0-9][0-9]?)\n"
			    "(?::(?P<tz_minute>[0-9][0-9]))?))?)?$",
	[RE_PY_FLOAT] = "^[ \\t\\n\\r\\f\\v]*[-+]?(?:(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:e[-+]?[0-9]+)?"
			"|inf|infinity|nan)[ \\t\\n\\r\\f\\v]*\\z",
	[RE_HUMAN_NUMBER] = "^[-+]?(?:(?:[0-9][0-9_]*(?:\\.[0-9_]*)?|\\.[0-9][0-9_]*)[eE][-+]?[0-9]+"
			    "|[0-9][0-9_]*\\.[0-9_]*|\\.[0-9][0-9_]*"
			    "|[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\\.[0-9]+)?)\\z",
};

_Static_assert(RE__COUNT == SL_RESOLVER_PATTERNS, "snapshot.h counts the resolver's patterns");

struct sl_scalar_resolver {
	struct sl_arena *arena;
	pcre2_code *re[RE__COUNT]; /* the snapshot's, decoded; else compiled on first use (10 compiles cost a check 0.33 M instructions) */
	pcre2_match_data *md;      /* for matches whose groups nobody reads; made on first use */
};

static void free_md(void *p)
{
	pcre2_match_data_free(p);
}

static void free_code(void *p)
{
	pcre2_code_free(p);
}

struct sl_scalar_resolver *sl_scalar_resolver_new(struct sl_arena *a)
{
	struct sl_scalar_resolver *r = sl_arena_alloc(a, sizeof *r);
	r->arena = a;
#ifndef SL_SNAPSHOT_GENERATOR
	/* compiled at build time (the snapshot); compiled at first use when this PCRE2 cannot decode them */
	void *codes[RE__COUNT];
	if (sl_snapshot_decode(a, sl_snapshot.resolver_codes, sl_snapshot.resolver_codes_len, RE__COUNT, codes))
		for (int i = 0; i < RE__COUNT; i++)
			r->re[i] = codes[i];
#endif
	return r;
}

/* Pattern id, compiled on its first use (the resolver's lazily filled cache). */
static const pcre2_code *re(const struct sl_scalar_resolver *r, enum re_id id)
{
	struct sl_scalar_resolver *m = (struct sl_scalar_resolver *)r;
	if (!m->re[id]) {
		int err;
		PCRE2_SIZE off;
		uint32_t opts = id <= RE_TS_CONSTRUCT ? PCRE2_EXTENDED : 0;
		m->re[id] = pcre2_compile((PCRE2_SPTR)patterns[id], PCRE2_ZERO_TERMINATED, opts, &err, &off, NULL);
		if (!m->re[id])
			sl_oom(); /* the patterns are constant: only memory can fail here */
		sl_arena_defer(m->arena, free_code, m->re[id]);
	}
	return m->re[id];
}

size_t sl_scalar_resolver_codes(const struct sl_scalar_resolver *r, const void **codes)
{
	for (int i = 0; i < RE__COUNT; i++)
		codes[i] = re(r, (enum re_id)i);
	return RE__COUNT;
}

/* Match re against s[0..n); when md is not NULL it receives the groups. */
static bool match(const struct sl_scalar_resolver *r, enum re_id id, const char *s, size_t n,
		  pcre2_match_data *md)
{
	struct sl_scalar_resolver *m = (struct sl_scalar_resolver *)r;
	if (!md && !m->md) {
		if (!(m->md = pcre2_match_data_create(1, NULL)))
			sl_oom();
		sl_arena_defer(m->arena, free_md, m->md);
	}
	return pcre2_match(re(r, id), (PCRE2_SPTR)s, n, 0, 0, md ? md : m->md, NULL) >= 0;
}

const char *sl_vtype_name(enum sl_vtype t)
{
	static const char *const names[SL_V__COUNT] = {
		[SL_V_NULL] = "null", [SL_V_BOOL] = "bool", [SL_V_INT] = "int", [SL_V_FLOAT] = "float",
		[SL_V_STR] = "str", [SL_V_TIMESTAMP] = "timestamp", [SL_V_BINARY] = "binary",
	};
	return (unsigned)t < SL_V__COUNT ? names[t] : "?";
}

/* ---- Python int(): a small unsigned big number (2048 bits; Python floats end at 2^1024) ---- */

#define BIG_LIMBS 64

struct big {
	uint32_t limb[BIG_LIMBS]; /* little-endian */
	bool neg;
	bool overflow;            /* past 2048 bits: the float is infinite */
};

static void big_muladd(struct big *b, uint32_t mul, uint32_t add)
{
	uint64_t carry = add;
	for (int i = 0; i < BIG_LIMBS; i++) {
		uint64_t t = (uint64_t)b->limb[i] * mul + carry;
		b->limb[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry)
		b->overflow = true;
}

static void big_add(struct big *x, const struct big *y)
{
	uint64_t carry = 0;
	for (int i = 0; i < BIG_LIMBS; i++) {
		uint64_t t = (uint64_t)x->limb[i] + y->limb[i] + carry;
		x->limb[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry || y->overflow)
		x->overflow = true;
}

/* out = x * y (truncated at 2048 bits, flagged as overflow) */
static void big_mul(struct big *out, const struct big *x, const struct big *y)
{
	memset(out, 0, sizeof *out);
	out->overflow = x->overflow || y->overflow;
	for (int i = 0; i < BIG_LIMBS; i++) {
		if (!y->limb[i])
			continue;
		uint64_t carry = 0;
		for (int j = 0; j < BIG_LIMBS; j++) {
			if (i + j >= BIG_LIMBS) {
				if (x->limb[j])
					out->overflow = true;
				continue;
			}
			uint64_t t = (uint64_t)x->limb[j] * y->limb[i] + out->limb[i + j] + carry;
			out->limb[i + j] = (uint32_t)t;
			carry = t >> 32;
		}
		if (carry)
			out->overflow = true;
	}
}

static bool big_is_zero(const struct big *b)
{
	for (int i = 0; i < BIG_LIMBS; i++)
		if (b->limb[i])
			return false;
	return true;
}

/* The value into v: exact int64 when it fits, else big with f correctly rounded (as float(int)). */
static void big_to_value(const struct big *b, struct sl_value *v)
{
	v->type = SL_V_INT;
	bool small = !b->overflow;
	for (int i = 2; i < BIG_LIMBS && small; i++)
		if (b->limb[i])
			small = false;
	uint64_t mag = (uint64_t)b->limb[1] << 32 | b->limb[0];
	if (small && (mag <= INT64_MAX || (b->neg && mag == (uint64_t)INT64_MAX + 1))) {
		v->i = b->neg ? (int64_t)(0 - mag) : (int64_t)mag;
		v->f = (double)v->i;
		v->big = false;
		return;
	}
	v->big = true;
	v->i = b->neg ? INT64_MIN : INT64_MAX;
	uint64_t h = 1469598103934665603u ^ (uint64_t)b->neg ^ (uint64_t)b->overflow << 1;
	int lo = -1, hi = -1;
	for (int i = 0; i < BIG_LIMBS; i++) {
		for (int s = 0; s < 32; s += 8)
			h = (h ^ (b->limb[i] >> s & 0xff)) * 1099511628211u;
		if (b->limb[i]) {
			if (lo < 0)
				lo = i * 32 + __builtin_ctz(b->limb[i]);
			hi = i * 32 + 31 - __builtin_clz(b->limb[i]);
		}
	}
	v->bigkey = h;
	v->big_exact = !b->overflow && hi - lo < 53;
	if (b->overflow) {
		v->f = b->neg ? -HUGE_VAL : HUGE_VAL;
		return;
	}
	/* strtod rounds a hexadecimal significand correctly, as Python's int -> float does */
	char hex[2 + BIG_LIMBS * 8 + 2]; /* bound: sign, "0x", then snprintf within sizeof hex */
	size_t k = 0;
	if (b->neg)
		hex[k++] = '-';
	hex[k++] = '0';
	hex[k++] = 'x';
	int top = BIG_LIMBS - 1;
	while (top > 0 && !b->limb[top])
		top--;
	k += (size_t)snprintf(hex + k, sizeof hex - k, "%" PRIx32 "", b->limb[top]);
	for (int i = top - 1; i >= 0; i--)
		k += (size_t)snprintf(hex + k, sizeof hex - k, "%08" PRIx32, b->limb[i]);
	v->f = strtod(hex, NULL);
}

static bool is_pyspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/*
 * Python's int(s, base) for s without underscores (PyYAML removed them):
 * surrounding whitespace, one sign, the base's 0b/0o/0x prefix, digits.
 */
static bool py_int(const char *s, size_t n, int base, struct big *out)
{
	memset(out, 0, sizeof *out);
	size_t i = 0;
	while (n && is_pyspace(s[n - 1]))
		n--;
	while (i < n && is_pyspace(s[i]))
		i++;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		out->neg = s[i++] == '-';
	if (base != 10 && n - i >= 2 && s[i] == '0') {
		char p = (char)(s[i + 1] | 0x20);
		if ((base == 2 && p == 'b') || (base == 8 && p == 'o') || (base == 16 && p == 'x'))
			i += 2;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		int d = digit_value(s[i]);
		if (d >= base)
			return false;
		big_muladd(out, (uint32_t)base, (uint32_t)d);
	}
	if (big_is_zero(out))
		out->neg = false;
	return true;
}

/* A copy of text[0..n) without '_' (NUL-terminated, malloc'd; NULL on OOM is fatal). */
static char *strip_underscores(const char *text, size_t n, size_t *outn, bool lower)
{
	char *s = malloc(n + 1);
	if (!s)
		sl_oom();
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		if (c == '_')
			continue;
		if (lower && c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		s[k++] = c;
	}
	s[k] = '\0';
	*outn = k;
	return s;
}

/* SafeConstructor.construct_yaml_int. */
static bool construct_int(const char *text, size_t n, struct sl_value *v)
{
	size_t len;
	char *s = strip_underscores(text, n, &len, false);
	const char *p = s;
	bool ok = false;
	bool neg = false;
	struct big b;
	if (len == 0)
		goto out; /* value[0]: IndexError */
	if (p[0] == '-')
		neg = true;
	if (p[0] == '+' || p[0] == '-')
		p++, len--;
	if (len == 1 && p[0] == '0') {
		memset(&b, 0, sizeof b);
		ok = true;
	} else if (len >= 2 && p[0] == '0' && p[1] == 'b') {
		ok = py_int(p + 2, len - 2, 2, &b);
	} else if (len >= 2 && p[0] == '0' && p[1] == 'x') {
		ok = py_int(p + 2, len - 2, 16, &b);
	} else if (len == 0) {
		goto out; /* value[0] after the sign: IndexError */
	} else if (p[0] == '0') {
		ok = py_int(p, len, 8, &b);
	} else if (memchr(p, ':', len)) {
		/* sexagesimal: sum of int(part) * 60^k, parts from the right */
		memset(&b, 0, sizeof b);
		struct big base;
		memset(&base, 0, sizeof base);
		base.limb[0] = 1;
		const char *end = p + len;
		ok = true;
		while (ok) {
			const char *colon = end;
			while (colon > p && colon[-1] != ':')
				colon--;
			struct big part;
			ok = py_int(colon, (size_t)(end - colon), 10, &part);
			if (!ok)
				break;
			if (part.neg && !big_is_zero(&part)) {
				ok = false; /* int(" -5") inside 1:-5: too odd to model, refuse */
				break;
			}
			/* b += part * base */
			struct big acc;
			big_mul(&acc, &base, &part);
			big_add(&b, &acc);
			big_muladd(&base, 60, 0);
			if (colon == p)
				break;
			end = colon - 1;
		}
	} else {
		ok = py_int(p, len, 10, &b);
	}
	if (ok) {
		if (neg)
			b.neg = !b.neg;
		if (big_is_zero(&b))
			b.neg = false;
		big_to_value(&b, v);
	}
out:
	free(s);
	return ok;
}

/* Python's float(s) for a lower-cased s without underscores. */
static bool py_float(const struct sl_scalar_resolver *r, const char *s, size_t n, double *out)
{
	if (!match(r, RE_PY_FLOAT, s, n, NULL))
		return false;
	char *copy = strndup(s, n);
	if (!copy)
		sl_oom();
	*out = strtod(copy, NULL);
	free(copy);
	return true;
}

/* SafeConstructor.construct_yaml_float. */
static bool construct_float(const struct sl_scalar_resolver *r, const char *text, size_t n, struct sl_value *v)
{
	size_t len;
	char *s = strip_underscores(text, n, &len, true);
	const char *p = s;
	bool ok = false;
	double sign = 1.0, f = 0.0;
	if (len == 0)
		goto out;
	if (p[0] == '-')
		sign = -1.0;
	if (p[0] == '+' || p[0] == '-')
		p++, len--;
	if (len == 4 && memcmp(p, ".inf", 4) == 0) {
		f = sign * HUGE_VAL;
		ok = true;
	} else if (len == 4 && memcmp(p, ".nan", 4) == 0) {
		f = NAN;
		ok = true;
	} else if (memchr(p, ':', len)) {
		/* digits reversed; value += digit*base; base *= 60 — the same float operations */
		const char *end = p + len;
		double base = 1.0, acc = 0.0;
		ok = true;
		for (;;) {
			const char *colon = end;
			while (colon > p && colon[-1] != ':')
				colon--;
			double d;
			if (!py_float(r, colon, (size_t)(end - colon), &d)) {
				ok = false;
				break;
			}
			acc += d * base;
			base *= 60;
			if (colon == p)
				break;
			end = colon - 1;
		}
		f = sign * acc;
	} else {
		ok = py_float(r, p, len, &f);
		f = sign * f;
	}
	if (ok) {
		v->type = SL_V_FLOAT;
		v->f = f;
	}
out:
	free(s);
	return ok;
}

/* SafeConstructor.construct_yaml_bool: bool_values[value.lower()]. */
static bool construct_bool(const char *text, size_t n, struct sl_value *v)
{
	static const struct {
		const char *s;
		bool b;
	} values[] = {{"yes", true}, {"no", false}, {"true", true}, {"false", false}, {"on", true}, {"off", false}};
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		if (strlen(values[i].s) != n)
			continue;
		size_t k = 0;
		while (k < n && (text[k] | 0x20) == values[i].s[k] && (unsigned char)text[k] < 0x80)
			k++;
		if (k == n) {
			v->type = SL_V_BOOL;
			v->b = values[i].b;
			return true;
		}
	}
	return false;
}

static long group_int(pcre2_match_data *md, const struct sl_scalar_resolver *r, const char *name, const char *s,
		      bool *present)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	int g = pcre2_substring_number_from_name(re(r, RE_TS_CONSTRUCT), (PCRE2_SPTR)name);
	*present = false;
	if (g < 0 || ov[2 * g] == PCRE2_UNSET)
		return 0;
	*present = ov[2 * g + 1] > ov[2 * g];
	long x = 0;
	for (PCRE2_SIZE i = ov[2 * g]; i < ov[2 * g + 1]; i++)
		x = x * 10 + (s[i] - '0');
	return x;
}

/* SafeConstructor.construct_yaml_timestamp: datetime.date / datetime.datetime must accept the fields. */
static bool construct_timestamp(const struct sl_scalar_resolver *r, const char *text, size_t n, struct sl_value *v)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re(r, RE_TS_CONSTRUCT), NULL);
	if (!md)
		sl_oom();
	bool ok = match(r, RE_TS_CONSTRUCT, text, n, md);
	if (ok) {
		bool have, have_hour, have_sign, have_tzm;
		long year = group_int(md, r, "year", text, &have);
		long month = group_int(md, r, "month", text, &have);
		long day = group_int(md, r, "day", text, &have);
		static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
		bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
		ok = year >= 1 && month >= 1 && month <= 12 && day >= 1 &&
		     day <= mdays[month - 1] + (month == 2 && leap);
		long hour = group_int(md, r, "hour", text, &have_hour);
		if (ok && have_hour) {
			bool h;
			long minute = group_int(md, r, "minute", text, &h);
			long second = group_int(md, r, "second", text, &h);
			ok = hour < 24 && minute < 60 && second < 60;
			long tz_hour = group_int(md, r, "tz_hour", text, &have_sign);
			long tz_minute = group_int(md, r, "tz_minute", text, &have_tzm);
			/* datetime.timezone needs -24h < offset < 24h */
			if (ok && have_sign)
				ok = tz_hour * 60 + tz_minute < 24 * 60;
		}
	}
	pcre2_match_data_free(md);
	if (ok)
		v->type = SL_V_TIMESTAMP;
	return ok;
}

/* SafeConstructor.construct_yaml_binary: ASCII, then base64.decodebytes (non-strict) must accept it. */
static bool construct_binary(const char *text, size_t n, struct sl_value *v)
{
	size_t data = 0, pad = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c >= 0x80)
			return false;
		if (c == '=')
			pad++;
		else if (!pad && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
				  c == '+' || c == '/'))
			data++;
	}
	size_t rem = data % 4;
	if (rem == 1 || (rem && pad < 4 - rem))
		return false;
	v->type = SL_V_BINARY;
	return true;
}

#define TAG_PREFIX "tag:yaml.org,2002:"

/* Construct with an explicit tag; false when SafeConstructor would raise. */
static bool construct_tagged(const struct sl_scalar_resolver *r, const char *text, size_t n, const char *tag,
			     struct sl_value *v)
{
	size_t pl = strlen(TAG_PREFIX);
	if (strncmp(tag, TAG_PREFIX, pl) != 0)
		return false; /* local and foreign tags: "could not determine a constructor" */
	const char *t = tag + pl;
	if (strcmp(t, "str") == 0) {
		v->type = SL_V_STR;
		return true;
	}
	if (strcmp(t, "null") == 0) {
		v->type = SL_V_NULL;
		return true;
	}
	if (strcmp(t, "bool") == 0)
		return construct_bool(text, n, v);
	if (strcmp(t, "int") == 0)
		return construct_int(text, n, v);
	if (strcmp(t, "float") == 0)
		return construct_float(r, text, n, v);
	if (strcmp(t, "timestamp") == 0)
		return construct_timestamp(r, text, n, v);
	if (strcmp(t, "binary") == 0)
		return construct_binary(text, n, v);
	return false; /* seq/map/set/omap/pairs on a scalar, merge, value, anything else */
}

static bool first_in(char c, const char *set)
{
	return c && strchr(set, c) != NULL;
}

/* BaseResolver.resolve for a plain scalar: the tag's suffix, or NULL for str. */
static const char *resolve_implicit(const struct sl_scalar_resolver *r, const char *text, size_t n)
{
	static const struct {
		enum re_id re;
		const char *first; /* PyYAML's first-character dispatch */
		const char *tag;
	} order[] = {
		{RE_BOOL, "yYnNtTfFoO", "bool"}, {RE_FLOAT, "-+0123456789.", "float"},
		{RE_INT, "-+0123456789", "int"}, {RE_MERGE, "<", "merge"},
		{RE_NULL, "~nN", "null"},        {RE_TIMESTAMP, "0123456789", "timestamp"},
		{RE_VALUE, "=", "value"},
	};
	if (n == 0)
		return match(r, RE_NULL, text, n, NULL) ? "null" : NULL;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if (first_in(text[0], order[i].first) && match(r, order[i].re, text, n, NULL))
			return order[i].tag;
	return NULL;
}

struct sl_value sl_scalar_resolve(const struct sl_scalar_resolver *r, const char *text, size_t len, bool plain,
				  const char *tag, bool *tag_error)
{
	struct sl_value v = {.type = SL_V_STR};
	bool ok = true;
	if (tag_error)
		*tag_error = false;
	if (tag) {
		ok = construct_tagged(r, text, len, tag, &v);
	} else if (plain) {
		const char *t = resolve_implicit(r, text, len);
		if (!t)
			v.type = SL_V_STR;
		else if (strcmp(t, "merge") == 0)
			v.merge = true; /* only a mapping key may be "<<" */
		else if (strcmp(t, "value") == 0)
			ok = false;     /* SafeConstructor has no constructor for tag:yaml.org,2002:value */
		else
			ok = construct_tagged(r, text, len, strcmp(t, "null") == 0 ? TAG_PREFIX "null"
							  : strcmp(t, "bool") == 0 ? TAG_PREFIX "bool"
							  : strcmp(t, "int") == 0 ? TAG_PREFIX "int"
							  : strcmp(t, "float") == 0 ? TAG_PREFIX "float"
										   : TAG_PREFIX "timestamp",
					      &v);
	}
	if (!ok) {
		v = (struct sl_value){.type = SL_V_STR};
		if (tag_error)
			*tag_error = true;
	}
	/* every RE_HUMAN_NUMBER spelling starts with a digit or '.', after an optional sign */
	size_t at = len && (text[0] == '-' || text[0] == '+');
	if (v.type == SL_V_STR && at < len && ((text[at] >= '0' && text[at] <= '9') || text[at] == '.') &&
	    match(r, RE_HUMAN_NUMBER, text, len, NULL))
		v.looks_numeric = true;
	return v;
}

bool sl_scalar_numeric_spelling(const char *text, size_t len, char *out, size_t outsz)
{
	if (!outsz)
		return false;
	out[0] = '\0';
	size_t i = 0;
	char buf[256]; /* bound: k <= len + 4 (a sign, "0", ".", an exponent's letter and sign), len <= 200 */
	size_t k = 0;
	if (len == 0 || len > 200)
		return false;
	if (memchr(text, ',', len)) {
		/* 1,000 or -12,345.5: drop the separators of well-formed thousands groups */
		if (text[i] == '+' || text[i] == '-')
			buf[k++] = text[i++];
		size_t run = 0, groups = 0;
		for (; i < len && text[i] != '.'; i++) {
			char c = text[i];
			if (c == ',') {
				if (run == 0 || run > 3 || (groups && run != 3))
					return false;
				groups++, run = 0;
			} else if (c >= '0' && c <= '9') {
				buf[k++] = c, run++;
			} else {
				return false;
			}
		}
		if (run != 3 || !groups)
			return false;
		for (; i < len; i++) {
			if (!((text[i] >= '0' && text[i] <= '9') || (text[i] == '.' && i + 1 < len)))
				return false;
			buf[k++] = text[i];
		}
	} else {
		if (text[i] == '+' || text[i] == '-')
			buf[k++] = text[i++];
		size_t int_start = i;
		while (i < len && ((text[i] >= '0' && text[i] <= '9') || text[i] == '_'))
			i++;
		size_t int_len = i - int_start;
		size_t frac_start = i, frac_len = 0;
		bool dot = false;
		if (i < len && text[i] == '.') {
			dot = true;
			frac_start = ++i;
			while (i < len && ((text[i] >= '0' && text[i] <= '9') || text[i] == '_'))
				i++;
			frac_len = i - frac_start;
		}
		char e = 0, esign = '+';
		size_t exp_start = i, exp_len = 0;
		if (i < len && (text[i] == 'e' || text[i] == 'E')) {
			e = text[i++];
			if (i < len && (text[i] == '+' || text[i] == '-'))
				esign = text[i++];
			exp_start = i;
			while (i < len && text[i] >= '0' && text[i] <= '9')
				i++;
			exp_len = i - exp_start;
			if (!exp_len)
				return false;
		}
		if (i != len || (int_len == 0 && frac_len == 0) || (!dot && !e))
			return false;
		if (int_len) {
			memcpy(buf + k, text + int_start, int_len);
			k += int_len;
		} else {
			buf[k++] = '0';
		}
		buf[k++] = '.';
		if (frac_len) {
			memcpy(buf + k, text + frac_start, frac_len);
			k += frac_len;
		} else {
			buf[k++] = '0';
		}
		if (e) {
			buf[k++] = e;
			buf[k++] = esign;
			memcpy(buf + k, text + exp_start, exp_len);
			k += exp_len;
		}
	}
	buf[k] = '\0';
	if (k + 1 > outsz)
		return false;
	memcpy(out, buf, k + 1);
	return true;
}
