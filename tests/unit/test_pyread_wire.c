/*
 * test_pyread_wire: the python3 -> C protocol of the program reader (pyread.py's wire() -> jansson)
 * holds every literal (issue 34, program-inf-literal). A property test: random literals — integers of
 * 1 to 40 digits (past 2^63 too), doubles from random bit patterns, 1e999 and -1e999 (inf), strings of
 * random code points with NULs, non-BMP characters and lone surrogates — written as keywords of one
 * TrainingArguments call per program; every one comes back with its exact value, except a string with
 * a lone surrogate (no UTF-8 holds it), which is dropped alone with a note naming its keyword. Before
 * wire() one such literal dropped the whole program. Needs python3 on PATH (skips without it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/program.h"
#include "sweeplint/scalar.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

#define PROGRAMS 12
#define LITERALS 160 /* per program */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	/* xorshift64*: a fixed seed, so every run tries the same literals */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717u;
}

enum kind { K_INT, K_BIG, K_FLOAT, K_INF, K_NINF, K_STR, K_SURROGATE };

struct lit {
	enum kind kind;
	int64_t i;
	char digits[48];
	double f;
	char bytes[256]; /* the string's UTF-8 */
	size_t len;
};

static void add_utf8(struct lit *l, uint32_t cp)
{
	unsigned char *b = (unsigned char *)l->bytes + l->len;
	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		l->len += 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xC0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3F));
		l->len += 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp & 0x3F));
		l->len += 3;
	} else {
		b[0] = (unsigned char)(0xF0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[3] = (unsigned char)(0x80 | (cp & 0x3F));
		l->len += 4;
	}
}

/* One random literal: its Python spelling appended to src, its expected value in l. */
static void make(struct lit *l, struct sl_buf *src)
{
	memset(l, 0, sizeof *l);
	switch (next() % 7) {
	case 0:
	case 1: { /* 1 to 40 digits, either sign: past 2^63 from 19 digits on */
		size_t n = 1 + next() % 40;
		bool neg = next() % 2;
		char *d = l->digits;
		if (neg)
			*d++ = '-';
		for (size_t i = 0; i < n; i++)
			d[i] = (char)('0' + (i == 0 ? 1 + next() % 9 : next() % 10));
		d[n] = '\0';
		errno = 0;
		long long v = strtoll(l->digits, NULL, 10);
		l->kind = errno == ERANGE ? K_BIG : K_INT;
		l->i = v;
		sl_buf_adds(src, l->digits);
		break;
	}
	case 2:
	case 3: { /* a finite double from random bits, written so python3 reads the same double */
		uint64_t bits;
		double f;
		do {
			bits = next();
			memcpy(&f, &bits, sizeof f);
		} while (!isfinite(f));
		l->kind = K_FLOAT;
		l->f = f;
		char text[40];
		snprintf(text, sizeof text, "%.17g", f);
		sl_buf_addf(src, "%s%s", text, strpbrk(text, ".e") ? "" : ".0"); /* 1e16 prints as digits: a float */
		break;
	}
	case 4: /* past double range: python's float('inf') */
		l->kind = next() % 2 ? K_INF : K_NINF;
		sl_buf_adds(src, l->kind == K_INF ? "1e999" : "-1e999");
		break;
	default: { /* a string of code points (NULs, controls, non-BMP), some with a lone surrogate */
		l->kind = K_STR;
		size_t n = next() % 24;
		sl_buf_addc(src, '"');
		for (size_t i = 0; i < n; i++) {
			uint32_t cp;
			switch (next() % 6) {
			case 0:
				cp = 0;
				break;
			case 1:
				cp = (uint32_t)(next() % 0x20);
				break;
			case 2:
				cp = 0x10000 + (uint32_t)(next() % 0xFFFFF);
				break;
			case 3:
				cp = next() % 8 == 0 ? 0xD800 + (uint32_t)(next() % 0x800) : 'a';
				break;
			default:
				cp = 0x20 + (uint32_t)(next() % 0xFFE0);
			}
			if (cp >= 0xD800 && cp <= 0xDFFF)
				l->kind = K_SURROGATE;
			else
				add_utf8(l, cp);
			sl_buf_addf(src, "\\U%08x", cp);
		}
		sl_buf_addc(src, '"');
	}
	}
}

static bool have_python(void)
{
	return system("python3 -c pass >/dev/null 2>&1") == 0;
}

static void test_every_literal_crosses(void **state)
{
	(void)state;
	if (!have_python())
		skip();
	struct sl_arena *a = sl_arena_new();
	struct sl_program_opts o = {.res = sl_scalar_resolver_new(a)};
	size_t seen[K_SURROGATE + 1] = {0};
	for (int p = 0; p < PROGRAMS; p++) {
		struct lit *lits = sl_arena_array(a, LITERALS, sizeof *lits);
		struct sl_buf src;
		sl_buf_init(&src, a);
		sl_buf_adds(&src, "from transformers import TrainingArguments\nargs = TrainingArguments(\n");
		for (int i = 0; i < LITERALS; i++) {
			sl_buf_addf(&src, "    a%d=", i);
			make(&lits[i], &src);
			sl_buf_adds(&src, ",\n");
			seen[lits[i].kind]++;
		}
		sl_buf_adds(&src, ")\n");
		struct sl_pyread *r = sl_pyread_bytes(a, "train.py", src.buf, src.len, &o);
		if (r->error)
			fail_msg("program %d not read: %s", p, r->error);
		assert_non_null(r->settings);
		for (int i = 0; i < LITERALS; i++) {
			const struct lit *l = &lits[i];
			const struct sl_cfg_entry *e = sl_trainer_get(r->settings, sl_arena_printf(a, "a%d", i));
			if (l->kind == K_SURROGATE) {
				if (e)
					fail_msg("program %d: a%d holds a lone surrogate and was read", p, i);
				bool noted = false;
				const char *want = sl_arena_printf(a, ": a%d: not read (it holds a lone surrogate)", i);
				for (size_t k = 0; k < r->nnotes; k++)
					noted |= strstr(r->notes[k], want) != NULL;
				if (!noted)
					fail_msg("program %d: no note says a%d was dropped", p, i);
				continue;
			}
			if (!e)
				fail_msg("program %d: a%d (kind %d) missing", p, i, l->kind);
			const struct sl_value *v = &e->node->value;
			switch (l->kind) {
			case K_INT:
				if (v->type != SL_V_INT || v->big || v->i != l->i)
					fail_msg("a%d: %s read as '%s' (type %d big %d i %" PRId64 " want %" PRId64 ")", i, l->digits,
						 e->node->text, v->type, v->big, v->i, l->i);
				break;
			case K_BIG:
				if (v->type != SL_V_INT || !v->big || strcmp(e->node->text, l->digits) != 0)
					fail_msg("a%d: %s read as '%s' (type %d big %d)", i, l->digits, e->node->text, v->type, v->big);
				break;
			case K_FLOAT:
				if (v->type != SL_V_FLOAT || !(v->f == l->f))
					fail_msg("a%d: %.17g read as '%s'", i, l->f, e->node->text);
				break;
			case K_INF:
			case K_NINF:
				if (v->type != SL_V_FLOAT || !isinf(v->f) || (v->f > 0) != (l->kind == K_INF))
					fail_msg("a%d: %s read as '%s'", i, l->kind == K_INF ? "1e999" : "-1e999", e->node->text);
				break;
			case K_STR:
				if (v->type != SL_V_STR || e->node->text_len != l->len || memcmp(e->node->text, l->bytes, l->len) != 0)
					fail_msg("a%d: a string of %zu bytes read as %zu bytes", i, l->len, e->node->text_len);
				break;
			default:
				break;
			}
		}
	}
	/* the generator reached every kind */
	for (int k = 0; k <= K_SURROGATE; k++)
		assert_true(seen[k] > 20);
	sl_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_literal_crosses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
