/* rewrite/split: file names for split sweeps, and a run_cap shared out among them. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sweeplint/arena.h"
#include "sweeplint/split.h"

#define MAX_COMPONENT 80 /* bytes of a value kept in a file name */

/* The code point of the valid UTF-8 sequence at s (n bytes left) and its length in *len, or *len = 0. */
static uint32_t utf8_decode(const unsigned char *s, size_t n, size_t *len)
{
	size_t k = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
	*len = 0;
	if (!k || k > n)
		return 0;
	uint32_t cp = s[0] & (0x7Fu >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	/* overlong forms and surrogates are not characters */
	if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	*len = k;
	return cp;
}

/*
 * Letters kept in a file name as they are: Latin-1 and Latin Extended-A and
 * Additional letters (Vietnamese), Greek and Cyrillic letters, kana, Hangul
 * syllables and compatibility jamo, CJK ideographs; all precomposed. Anything
 * else becomes '_': bidi controls (U+202E shows "exe.txt" as "txt.exe"),
 * zero-width characters, combining marks (an NFD "e" + U+0301 that looks like
 * an NFC "é" and that a normalizing disk stores alike), fullwidth and other
 * slashes (U+FF0F, U+2215), look-alike signs (Kelvin U+212A), compatibility
 * ideographs, C1 controls, spaces, punctuation.
 */
static bool kept_letter(uint32_t cp)
{
	return (cp >= 0xC0 && cp <= 0x17F && cp != 0xD7 && cp != 0xF7) ||
	       (cp >= 0x386 && cp <= 0x3CE && cp != 0x387 && cp != 0x38B && cp != 0x38D && cp != 0x3A2) ||
	       (cp >= 0x400 && cp <= 0x45F) || (cp >= 0x1E00 && cp <= 0x1EFF && !(cp >= 0x1E96 && cp <= 0x1E9D)) ||
	       (cp >= 0x3041 && cp <= 0x3096) || (cp >= 0x30A1 && cp <= 0x30FA) || cp == 0x30FC ||
	       (cp >= 0x3131 && cp <= 0x318E) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7A3);
}

const char *sl_split_safe_name(struct sl_arena *a, const char *value)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	const unsigned char *s = (const unsigned char *)value;
	size_t n = strlen(value);
	for (size_t i = 0; i < n && b.len < MAX_COMPONENT;) {
		unsigned char c = s[i];
		if (c >= 0x80) {
			size_t k;
			uint32_t cp = utf8_decode(s + i, n - i, &k);
			if (k && kept_letter(cp) && b.len + k <= MAX_COMPONENT) {
				sl_buf_add(&b, s + i, k); /* Korean and other text stays readable */
				i += k;
			} else {
				sl_buf_addc(&b, '_');
				i += k ? k : 1;
			}
			continue;
		}
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
			  c == '_' || c == '.' || c == '+' || c == '=' || c == '@' || c == ',';
		/* "/" and "\" would leave the folder, ".." climbs out of it, the rest troubles shells */
		if (c == '.' && i + 1 < n && s[i + 1] == '.') {
			while (i < n && s[i] == '.')
				i++;
			sl_buf_addc(&b, '_');
			continue;
		}
		sl_buf_addc(&b, ok ? (char)c : '_');
		i++;
	}
	if (!b.len)
		sl_buf_addc(&b, '_');
	/* not an option (-x), not hidden (.x), not ending in a dot or space (Windows) */
	if (b.buf[0] == '-' || b.buf[0] == '.')
		b.buf[0] = '_';
	if (b.buf[b.len - 1] == '.')
		b.buf[b.len - 1] = '_';
	return b.buf;
}

/* The lower case of a kept letter (kept_letter), as a case-blind disk (APFS, NTFS) compares them. */
static uint32_t fold_letter(uint32_t cp)
{
	if ((cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) || (cp >= 0x391 && cp <= 0x3AB) || (cp >= 0x410 && cp <= 0x42F))
		return cp + 0x20;
	if ((cp >= 0x100 && cp <= 0x137) || (cp >= 0x14A && cp <= 0x177) || (cp >= 0x1E00 && cp <= 0x1E95) ||
	    (cp >= 0x1EA0 && cp <= 0x1EFF))
		return cp | 1; /* upper case even, lower case odd */
	if ((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17E))
		return cp + (cp & 1); /* upper case odd */
	if (cp >= 0x400 && cp <= 0x40F)
		return cp + 0x50;
	switch (cp) {
	case 0x178: return 0xFF;
	case 0x130: case 0x131: return 'i';
	case 0x17F: return 's';
	case 0x386: return 0x3AC;
	case 0x388: case 0x389: case 0x38A: return cp + 0x25;
	case 0x38C: return 0x3CC;
	case 0x38E: case 0x38F: return cp + 0x3F;
	case 0x3C2: return 0x3C3;
	default: return cp;
	}
}

/* A name as a case-blind disk compares it: ASCII and the kept letters lower-cased, ß as "ss". */
static const char *fold_name(struct sl_arena *a, const char *name)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name);
	for (size_t i = 0; i < n;) {
		size_t k;
		uint32_t cp = s[i] < 0x80 ? (k = 1, s[i]) : utf8_decode(s + i, n - i, &k);
		if (!k) {
			sl_buf_addc(&b, (char)s[i++]);
			continue;
		}
		i += k;
		cp = cp < 0x80 ? (uint32_t)(cp >= 'A' && cp <= 'Z' ? cp + 0x20 : cp) : fold_letter(cp);
		if (cp == 0xDF || cp == 0x1E9E) {
			sl_buf_addf(&b, "ss");
		} else if (cp < 0x80) {
			sl_buf_addc(&b, (char)cp);
		} else {
			char u[4];
			size_t m = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
			for (size_t j = m; j-- > 1; cp >>= 6)
				u[j] = (char)(0x80 | (cp & 0x3F));
			u[0] = (char)((m == 2 ? 0xC0 : m == 3 ? 0xE0 : 0xF0) | cp);
			sl_buf_add(&b, u, m);
		}
	}
	return b.len ? b.buf : "";
}

void sl_split_names(struct sl_arena *a, const char *stem, const char *ext, const char *const *parts, size_t n,
		    const char *reserved, const char **out)
{
	/* two values that read alike (BAAI/bge-m3, BAAI_bge-m3; A and a, É and é on a case-blind disk) */
	const char **folded = sl_arena_array(a, n, sizeof *folded);
	const char *reserved_folded = reserved ? fold_name(a, reserved) : NULL;
	for (size_t i = 0; i < n; i++) {
		const char *base = parts[i] ? sl_arena_printf(a, "%s.%s", stem, sl_split_safe_name(a, parts[i])) : stem;
		const char *name = sl_arena_printf(a, "%s%s", base, ext);
		const char *key = fold_name(a, name);
		for (unsigned k = 2;; k++) {
			bool taken = reserved_folded && strcmp(key, reserved_folded) == 0;
			for (size_t j = 0; j < i && !taken; j++)
				taken = strcmp(key, folded[j]) == 0;
			if (!taken)
				break;
			name = sl_arena_printf(a, "%s-%u%s", base, k, ext);
			key = fold_name(a, name);
		}
		out[i] = name;
		folded[i] = key;
	}
}

void sl_split_stem(struct sl_arena *a, const char *path, const char **stem, const char **ext)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	/* a sweep written in Python stays code: each part is the script or notebook with its dict narrowed */
	if (dot && dot != base && (strcasecmp(dot, ".yaml") == 0 || strcasecmp(dot, ".yml") == 0 ||
				   strcmp(dot, ".py") == 0 || strcmp(dot, ".ipynb") == 0)) {
		*stem = sl_arena_strndup(a, base, (size_t)(dot - base));
		*ext = sl_arena_strdup(a, dot);
	} else {
		*stem = sl_arena_strdup(a, *base ? base : "sweep");
		*ext = ".yaml";
	}
}

bool sl_split_run_caps(uint64_t run_cap, const uint64_t *weights, size_t n, uint64_t *caps)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += weights[i];
	if (!n)
		return true;
	if (run_cap < n)
		return false;
	if (!total || run_cap == n) {
		for (size_t i = 0; i < n; i++)
			caps[i] = 1;
		return true;
	}
	/* largest remainder over run_cap - n, every file getting at least one run */
	uint64_t spare = run_cap - n, given = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned __int128 share = (unsigned __int128)spare * weights[i];
		caps[i] = 1 + (uint64_t)(share / total);
		given += caps[i] - 1;
	}
	/* the files with the largest remainders get one more, each at most once (fewer than n are left) */
	while (given < spare) {
		size_t best = SIZE_MAX;
		uint64_t best_rem = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t floor_share = (uint64_t)(((unsigned __int128)spare * weights[i]) / total);
			uint64_t r = (uint64_t)(((unsigned __int128)spare * weights[i]) % total);
			if (caps[i] - 1 > floor_share)
				continue; /* already given its extra run */
			if (best == SIZE_MAX || r > best_rem) {
				best = i;
				best_rem = r;
			}
		}
		if (best == SIZE_MAX)
			break;
		caps[best]++;
		given++;
	}
	return true;
}
