/*
 * arena: one bump allocator per run. Everything a run creates (sources, node
 * trees, strings, diagnostics, edits) lives in the run's arena and is released
 * at once by sl_arena_free(); nothing is freed individually. Foreign objects
 * (PCRE2 codes, libcyaml data) are registered with sl_arena_defer() when they
 * are created, so the arena's release is the one teardown path.
 *
 * Allocation never fails: out of memory prints a message and exits 70.
 */
#ifndef SWEEPLINT_ARENA_H
#define SWEEPLINT_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct sl_arena;

/* A new, empty arena. Never NULL. */
struct sl_arena *sl_arena_new(void);

/* Release every block and run every deferred destructor, last registered first. */
void sl_arena_free(struct sl_arena *a);

/* n zeroed bytes aligned for any object; never NULL (n == 0 gives a unique pointer). */
void *sl_arena_alloc(struct sl_arena *a, size_t n);

/* An array of count elements of size each, overflow-checked, zeroed. */
void *sl_arena_array(struct sl_arena *a, size_t count, size_t size);

/* Grow an arena array: returns a new array of new_count elements holding the old ones. */
void *sl_arena_grow(struct sl_arena *a, void *old, size_t old_count, size_t new_count, size_t size);

/*
 * Room for need elements in an arena array of *cap (count of them in use):
 * returns old when it has room, else a copy with the capacity doubled (at
 * least need), so appending n elements one by one costs O(n) bytes, not the
 * O(n^2) of sl_arena_grow(.., count, count + 1, ..) in a loop.
 */
void *sl_arena_reserve(struct sl_arena *a, void *old, size_t count, size_t *cap, size_t need, size_t size);

/* A NUL-terminated copy of s[0..n). */
char *sl_arena_strndup(struct sl_arena *a, const char *s, size_t n);
char *sl_arena_strdup(struct sl_arena *a, const char *s);

/* printf into the arena. */
char *sl_arena_printf(struct sl_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *sl_arena_vprintf(struct sl_arena *a, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Run fn(p) when the arena is freed. */
void sl_arena_defer(struct sl_arena *a, void (*fn)(void *), void *p);

/* Bytes handed out so far (for tests and benchmarks). */
size_t sl_arena_used(const struct sl_arena *a);

/* Print "sweeplint: out of memory" and exit 70. */
_Noreturn void sl_oom(void);

/*
 * A growable byte buffer in an arena (git's strbuf, arena-backed). buf is
 * always NUL-terminated; len excludes the NUL.
 */
struct sl_buf {
	struct sl_arena *arena; /* owner of buf */
	char *buf;              /* NUL-terminated contents */
	size_t len;             /* bytes used, excluding the NUL */
	size_t cap;             /* bytes allocated, including the NUL */
};

void sl_buf_init(struct sl_buf *b, struct sl_arena *a);
void sl_buf_add(struct sl_buf *b, const void *p, size_t n);
void sl_buf_adds(struct sl_buf *b, const char *s);
void sl_buf_addc(struct sl_buf *b, char c);
void sl_buf_addf(struct sl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sl_buf_vaddf(struct sl_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
