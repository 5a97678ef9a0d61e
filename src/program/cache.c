/*
 * cache: one evaluation of one program -> its answer, kept across the sweeps
 * of a run and, in the language server, across edits and lints (docs/program.md
 * "Budget and cache"). An entry is keyed by the program's realpath, device,
 * inode, size and modification time (nanoseconds), the interpreter asked for
 * and the request the evaluator was given (the sweep's parameters and the
 * command's options); it holds the answer, or why there is none, with:
 *   - the modules the evaluator read (its answer's "files"), each with its
 *     stat, which must not have changed;
 *   - the needs it asked the C side (a config, the Hydra composition), each
 *     with the reply it got: a hit replays them through the caller, which
 *     must reply the same (the configs it serves are served again, and a
 *     config that changed or appeared makes the entry stale).
 * A failure before any evaluation (a syntax error, a file too large, a parse
 * past its time) does not depend on the request: it is kept for the program
 * alone; one cut short at a deadline keeps that deadline, so a later run with
 * no more time does not start it again (a 250 KB f-string costs python 3.11
 * seconds on every keystroke otherwise). The interpreter's own path
 * (sys.executable, as the evaluator reports it) is kept too: a pyenv shim
 * costs 0.4 s a start, the interpreter behind it 0.02 s. Bounded: 64 MiB and
 * 1024 entries, the least recently used going first. Memory is malloc'd, not
 * in an arena: the cache outlives the runs that use it.
 */
#include "sweeplint/program.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sweeplint/arena.h"

#define MAX_ENTRIES 1024
#define MAX_BYTES ((size_t)64 << 20)

struct stamp {
	char *path;                 /* realpath */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct entry {
	struct stamp prog;
	char *python;               /* as asked for */
	char *request;              /* NULL: a failure that does not depend on it */
	char *out;                  /* the answer, or NULL */
	size_t len;
	char *why;                  /* why there is no answer, or NULL */
	char *dialog;               /* the needs and their replies: "need\nreply\n" pairs */
	size_t dialog_len;
	struct stamp *deps;         /* the modules read */
	size_t ndeps;
	long long cut_ms;           /* >= 0: stopped at this deadline (more time may finish it); -1: final */
	size_t bytes;               /* what it holds, for the bound */
	uint64_t used;              /* the last lookup, for eviction */
};

struct interp {
	char *asked, *resolved;
};

struct sl_parse_cache {
	struct entry *v;
	size_t n, cap;
	size_t bytes;
	uint64_t clock;
	struct interp *interps;
	size_t ninterps;
	size_t hits, misses;        /* for tests and -v */
};

static char *dup(const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		sl_oom();
	return d;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		sl_oom();
	if (n)
		memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* The stamp of path now (false when it cannot be had). */
static bool stamp_of(const char *path, struct stamp *s)
{
	struct stat st;
	if (!path || stat(path, &st) != 0)
		return false;
	*s = (struct stamp){.path = (char *)path, .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
			    .mtime = st.st_mtim};
	return true;
}

static bool same_stamp(const struct stamp *a, const struct stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec && strcmp(a->path, b->path) == 0;
}

struct sl_parse_cache *sl_parse_cache_new(void)
{
	struct sl_parse_cache *c = calloc(1, sizeof *c);
	if (!c)
		sl_oom();
	return c;
}

static void drop(struct sl_parse_cache *c, size_t i)
{
	struct entry *e = &c->v[i];
	c->bytes -= e->bytes;
	free(e->prog.path);
	free(e->python);
	free(e->request);
	free(e->out);
	free(e->why);
	free(e->dialog);
	for (size_t k = 0; k < e->ndeps; k++)
		free(e->deps[k].path);
	free(e->deps);
	c->v[i] = c->v[--c->n];
}

void sl_parse_cache_free(struct sl_parse_cache *c)
{
	if (!c)
		return;
	while (c->n)
		drop(c, c->n - 1);
	free(c->v);
	for (size_t i = 0; i < c->ninterps; i++) {
		free(c->interps[i].asked);
		free(c->interps[i].resolved);
	}
	free(c->interps);
	free(c);
}

/* Do the modules the entry read still have the stamps they had? */
static bool deps_fresh(const struct entry *e)
{
	for (size_t k = 0; k < e->ndeps; k++) {
		struct stamp now;
		if (!stamp_of(e->deps[k].path, &now) || !same_stamp(&now, &e->deps[k]))
			return false;
	}
	return true;
}

bool sl_parse_cache_get(struct sl_parse_cache *c, const char *path, const char *python, const char *request,
			long long have_ms, struct sl_parse_hit *hit)
{
	memset(hit, 0, sizeof *hit);
	struct stamp now;
	if (!c || !stamp_of(path, &now))
		return false;
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->v[i];
		if (!same_stamp(&e->prog, &now) || strcmp(e->python, python) != 0 ||
		    (e->request && strcmp(e->request, request ? request : "") != 0))
			continue;
		if (e->cut_ms >= 0 && have_ms > e->cut_ms)
			continue; /* stopped for want of time, and there is more now: parse again */
		if (!deps_fresh(e))
			continue;
		e->used = ++c->clock;
		hit->out = e->out;
		hit->len = e->len;
		hit->why = e->why;
		hit->dialog = e->dialog;
		hit->dialog_len = e->dialog_len;
		c->hits++;
		return true;
	}
	c->misses++;
	return false;
}

void sl_parse_cache_put(struct sl_parse_cache *c, const char *path, const char *python, const char *request,
			const struct sl_parse_hit *what, const char *const *deps, size_t ndeps, long long cut_ms)
{
	struct stamp prog;
	if (!c || !stamp_of(path, &prog))
		return;
	size_t bytes = what->len + what->dialog_len + (request ? strlen(request) : 0) + 256 * (ndeps + 1);
	if (bytes > MAX_BYTES)
		return;
	/* an older entry of the same program, interpreter and request (or failure) goes */
	for (size_t i = 0; i < c->n;) {
		const struct entry *e = &c->v[i];
		if (strcmp(e->prog.path, path) == 0 && strcmp(e->python, python) == 0 &&
		    (!e->request || !request || strcmp(e->request, request) == 0))
			drop(c, i);
		else
			i++;
	}
	while (c->n && (c->n >= MAX_ENTRIES || c->bytes + bytes > MAX_BYTES)) {
		size_t old = 0;
		for (size_t i = 1; i < c->n; i++)
			if (c->v[i].used < c->v[old].used)
				old = i;
		drop(c, old);
	}
	struct stamp *ds = calloc(ndeps ? ndeps : 1, sizeof *ds);
	if (!ds)
		sl_oom();
	size_t nd = 0;
	for (size_t k = 0; k < ndeps; k++) {
		struct stamp s;
		if (!stamp_of(deps[k], &s)) {
			for (size_t j = 0; j < nd; j++)
				free(ds[j].path);
			free(ds);
			return; /* a module gone already: nothing worth keeping */
		}
		ds[nd] = s;
		ds[nd++].path = dup(deps[k]);
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct entry *v = realloc(c->v, cap * sizeof *v);
		if (!v)
			sl_oom();
		c->v = v;
		c->cap = cap;
	}
	struct entry *e = &c->v[c->n++];
	*e = (struct entry){.prog = prog, .python = dup(python), .request = dup(request), .why = dup(what->why),
			    .deps = ds, .ndeps = nd, .cut_ms = cut_ms, .bytes = bytes, .used = ++c->clock};
	e->prog.path = dup(path);
	if (what->out) {
		e->out = dupn(what->out, what->len);
		e->len = what->len;
	}
	if (what->dialog) {
		e->dialog = dupn(what->dialog, what->dialog_len);
		e->dialog_len = what->dialog_len;
	}
	c->bytes += bytes;
}

const char *sl_parse_cache_interpreter(const struct sl_parse_cache *c, const char *python)
{
	for (size_t i = 0; c && i < c->ninterps; i++)
		if (strcmp(c->interps[i].asked, python) == 0)
			return c->interps[i].resolved;
	return python;
}

void sl_parse_cache_set_interpreter(struct sl_parse_cache *c, const char *python, const char *resolved)
{
	if (!c || !resolved || resolved[0] != '/')
		return;
	for (size_t i = 0; i < c->ninterps; i++)
		if (strcmp(c->interps[i].asked, python) == 0)
			return;
	struct interp *v = realloc(c->interps, (c->ninterps + 1) * sizeof *v);
	if (!v)
		sl_oom();
	c->interps = v;
	c->interps[c->ninterps++] = (struct interp){dup(python), dup(resolved)};
}

void sl_parse_cache_stats(const struct sl_parse_cache *c, size_t *hits, size_t *misses)
{
	*hits = c ? c->hits : 0;
	*misses = c ? c->misses : 0;
}
