/* rewrite/split: file names for split sweeps, and a run_cap shared out among them. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sweeplint/arena.h"
#include "sweeplint/split.h"

#define MAX_COMPONENT 80 /* bytes of a value kept in a file name */

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return len;
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
			size_t k = utf8_len(s + i, n - i);
			if (k && b.len + k <= MAX_COMPONENT) {
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

void sl_split_names(struct sl_arena *a, const char *stem, const char *ext, const char *const *parts, size_t n,
		    const char *reserved, const char **out)
{
	for (size_t i = 0; i < n; i++) {
		const char *base = parts[i] ? sl_arena_printf(a, "%s.%s", stem, sl_split_safe_name(a, parts[i])) : stem;
		const char *name = sl_arena_printf(a, "%s%s", base, ext);
		/* two values that read alike (BAAI/bge-m3, BAAI_bge-m3; A and a on a case-blind disk) */
		for (unsigned k = 2;; k++) {
			bool taken = reserved && strcasecmp(name, reserved) == 0;
			for (size_t j = 0; j < i && !taken; j++)
				taken = strcasecmp(name, out[j]) == 0;
			if (!taken)
				break;
			name = sl_arena_printf(a, "%s-%u%s", base, k, ext);
		}
		out[i] = name;
	}
}

void sl_split_stem(struct sl_arena *a, const char *path, const char **stem, const char **ext)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	if (dot && dot != base && (strcasecmp(dot, ".yaml") == 0 || strcasecmp(dot, ".yml") == 0)) {
		*stem = sl_arena_strndup(a, base, (size_t)(dot - base));
		*ext = sl_arena_strdup(a, dot);
	} else {
		*stem = sl_arena_strdup(a, *base ? base : "sweep");
		*ext = ".yaml";
	}
}

void sl_split_run_caps(uint64_t run_cap, const uint64_t *weights, size_t n, uint64_t *caps)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += weights[i];
	if (!n)
		return;
	if (!total || run_cap <= n) {
		for (size_t i = 0; i < n; i++)
			caps[i] = 1;
		return;
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
}
