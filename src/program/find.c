/*
 * find: which file a sweep's runs execute. W&B runs `${env} ${interpreter}
 * ${program} ${args}` unless `command:` says otherwise, so the program is
 * `program:`, or the script a custom command runs (python -m pkg.mod,
 * accelerate launch / torchrun / deepspeed wrappers, a package folder with
 * __main__.py), or, for a shell script, the Python script the script runs.
 * Paths are taken relative to the sweep's folder, then its parents up to the
 * project root; Windows separators and absolute paths from another machine
 * are tried by their tail. A file whose realpath is outside the project root
 * (path.h: `..`, an absolute path, a link out) is refused, never read.
 */
#include "sweeplint/path.h"
#include "sweeplint/program.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/scalar.h"
#include "sweeplint/ydoc.h"

#define MAX_UP 3                       /* parent folders searched when no project marker is found */
#define MAX_SHELL_BYTES ((size_t)256 << 10)

struct search {
	const char *dirs[MAX_UP + 1];
	size_t n;
	const char *root;                  /* the project root (sl_project_root): nothing outside it is read */
	const char *refused;               /* the first file refused for being outside it (a note), or NULL */
};

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The sweep's folder and its parents up to the project root (at most MAX_UP up; none above the root). */
static void search_dirs(struct sl_arena *a, const char *dir, const char *root, struct search *s)
{
	s->n = 0;
	s->root = root;
	s->refused = NULL;
	const char *d = dir && *dir ? dir : ".";
	for (size_t up = 0; up <= MAX_UP && s->n < MAX_UP + 1; up++) {
		const char *real = NULL;
		if (sl_path_contain(a, root, d, &real) != SL_CONTAIN_INSIDE)
			return;
		s->dirs[s->n++] = d;
		if (root && strcmp(real, root) == 0)
			return;
		d = sl_arena_printf(a, "%s/..", d);
	}
}

/* p when it lies inside the project, else NULL (s->refused says why, for the first one refused). */
static const char *contained(struct sl_arena *a, struct search *s, const char *p)
{
	if (sl_path_contain(a, s->root, p, NULL) == SL_CONTAIN_INSIDE)
		return p;
	if (!s->refused)
		s->refused = sl_path_refusal(a, p, s->root);
	return NULL;
}

/* dir/path ("." and absolute paths kept as they are) */
static const char *join(struct sl_arena *a, const char *dir, const char *path)
{
	if (path[0] == '/' || strcmp(dir, ".") == 0)
		return path;
	return sl_arena_printf(a, "%s/%s", dir, path);
}

/* A file for path under one folder: the file, a package folder's __main__.py; inside the project. */
static const char *at(struct sl_arena *a, struct search *s, const char *dir, const char *path)
{
	const char *p = sl_path_tidy(a, join(a, dir, path));
	if (is_file(p))
		return contained(a, s, p);
	if (is_dir(p)) {
		const char *m = sl_arena_printf(a, "%s/__main__.py", p);
		if (is_file(m))
			return contained(a, s, m);
	}
	return NULL;
}

/* Resolve a path as the sweep writes it; *root receives the folder it was found from. */
static const char *resolve(struct sl_arena *a, struct search *s, const char *text, const char **root)
{
	char *path = sl_arena_strdup(a, text);
	for (char *c = path; *c; c++)
		if (*c == '\\')
			*c = '/';
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (!*path)
		return NULL;
	if (path[0] == '/') {
		if (is_file(path) && contained(a, s, path)) {
			*root = sl_path_dir(a, path);
			return path;
		}
		/* written on another machine: its tail inside the project (/home/u/proj/sweep.py -> sweep.py) */
		for (const char *tail = strchr(path + 1, '/'); tail; tail = strchr(tail + 1, '/'))
			for (size_t i = 0; i < s->n; i++) {
				const char *p = at(a, s, s->dirs[i], tail + 1);
				if (p && !is_dir(sl_arena_printf(a, "%s/%s", s->dirs[i], tail + 1))) {
					*root = s->dirs[i];
					return p;
				}
			}
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		const char *p = at(a, s, s->dirs[i], path);
		if (p) {
			*root = s->dirs[i];
			return p;
		}
	}
	return NULL;
}

static const char *resolve_module(struct sl_arena *a, struct search *s, const char *mod, const char **root)
{
	char *rel = sl_arena_strdup(a, mod);
	for (char *c = rel; *c; c++)
		if (*c == '.')
			*c = '/';
	for (size_t i = 0; i < s->n; i++) {
		const char *p = sl_arena_printf(a, "%s.py", join(a, s->dirs[i], rel));
		if (is_file(p))
			p = contained(a, s, p);
		else
			p = at(a, s, s->dirs[i], rel);
		if (p && is_file(p)) {
			*root = s->dirs[i];
			return p;
		}
	}
	return NULL;
}

/* An interpreter or launcher word, whose own options come before the script. */
static bool is_launcher(const char *w)
{
	const char *base = strrchr(w, '/');
	base = base ? base + 1 : w;
	const char *bs = strrchr(base, '\\');
	base = bs ? bs + 1 : base;
	static const char *const names[] = {"python", "python3", "python.exe", "python3.exe", "accelerate", "launch",
					    "torchrun", "deepspeed", "env", "srun", "uv", "run", "poetry", "exec",
					    "nohup", "CUDA_VISIBLE_DEVICES", "time", "composer", "lightning"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(base, names[i]) == 0)
			return true;
	/* python3.11, pythonw */
	if (strncmp(base, "python", 6) != 0)
		return false;
	for (const char *c = base + 6; *c; c++)
		if (!((*c >= '0' && *c <= '9') || *c == '.' || *c == 'w'))
			return false;
	return true;
}

/* A word naming a script: what the runs execute. */
static bool is_script(const char *w)
{
	return ends_with(w, ".py") || ends_with(w, ".sh");
}

static bool find_in_shell(struct sl_arena *a, const char *sh, const struct sl_program_opts *o,
			  struct sl_program_ref *ref, unsigned depth);

#define MAX_SEARCH_DEPTH 6          /* folders below the project root looked in for a program not found */
#define MAX_SEARCH_ENTRIES 20000    /* directory entries looked at in that search, at most */

/* Folders never searched for a program: version control, environments, caches, W&B's copies of code. */
static bool skipped_dir(const char *name)
{
	static const char *const names[] = {"node_modules", "site-packages", "venv", "env", "__pycache__", "build",
					    "dist", "wandb", "outputs", "multirun", "lightning_logs", "mlruns"};
	if (name[0] == '.' || strncmp(name, "build-", 6) == 0 || strncmp(name, "build_", 6) == 0)
		return true;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/*
 * A program the sweep names that is found neither beside the sweep nor in its parents up to the project
 * root: W&B runs it from the agent's working folder, which sweeplint cannot see. The files of the project
 * whose path ends in the same relative name (train.py -> cli/train.py), else whose name is the same
 * (src/train.py -> train.py), looked for below the project root (MAX_SEARCH_DEPTH folders down, at most
 * MAX_SEARCH_ENTRIES entries; hidden folders, environments and caches skipped, links not followed): the one
 * file of the first kind that has any, else NULL. *guess says what was done either way (NULL: nothing).
 */
static const char *search_project(struct sl_arena *a, struct search *s, const char *rel, const char **root,
				  const char **guess)
{
	*guess = NULL;
	if (s->n == 0 || rel[0] == '/' || !s->root)
		return NULL;
	/* the project root, as a path from the working folder when it is below it (paths are shown so) */
	const char *top = s->root;
	const char *real = NULL;
	char cwd[4096];
	if (sl_path_contain(a, s->root, s->dirs[s->n - 1], &real) == SL_CONTAIN_INSIDE && strcmp(real, s->root) == 0)
		top = s->dirs[s->n - 1]; /* the sweep's folder's parents reach it: as they are written */
	else if (getcwd(cwd, sizeof cwd)) {
		char *rc = realpath(cwd, NULL);
		size_t lc = rc ? strlen(rc) : 0;
		size_t lt = strlen(top);
		if (rc && strcmp(top, rc) == 0) {
			top = ".";
		} else if (rc && strncmp(top, rc, lc) == 0 && top[lc] == '/') {
			top = sl_arena_strdup(a, top + lc + 1);
		} else if (rc && strncmp(rc, top, lt) == 0 && rc[lt] == '/') {
			/* the working folder is inside the project: up to its root */
			struct sl_buf up;
			sl_buf_init(&up, a);
			for (const char *c = rc + lt; *c; c++)
				if (*c == '/')
					sl_buf_adds(&up, up.len ? "/.." : "..");
			top = up.buf;
		}
		free(rc);
	}
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	size_t lrel = strlen(rel);
	/* found by tail ("/" rel) and by name: the first two of each, and how many */
	const char *tail[2] = {0}, *named[2] = {0};
	size_t ntail = 0, nnamed = 0, seen = 0;
	struct item {
		const char *dir;
		unsigned depth;
	};
	size_t cap = 64, head = 0, n = 0;
	struct item *q = sl_arena_array(a, cap, sizeof *q);
	q[n++] = (struct item){top, 0};
	bool cut = false;
	while (head < n) {
		struct item it = q[head++];
		DIR *d = opendir(it.dir);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (++seen > MAX_SEARCH_ENTRIES) {
				cut = true;
				break;
			}
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			const char *path = strcmp(it.dir, ".") == 0 ? sl_arena_strdup(a, e->d_name)
								    : sl_arena_printf(a, "%s/%s", it.dir, e->d_name);
			struct stat st;
			if (lstat(path, &st) != 0)
				continue;
			if (S_ISDIR(st.st_mode)) {
				if (skipped_dir(e->d_name) || it.depth + 1 > MAX_SEARCH_DEPTH)
					continue;
				if (n == cap) {
					q = sl_arena_grow(a, q, n, cap * 2, sizeof *q);
					cap *= 2;
				}
				q[n++] = (struct item){path, it.depth + 1};
				continue;
			}
			if (!S_ISREG(st.st_mode) || strcmp(e->d_name, base) != 0)
				continue;
			size_t lp = strlen(path);
			if (lp > lrel && path[lp - lrel - 1] == '/' && strcmp(path + lp - lrel, rel) == 0) {
				if (ntail < 2)
					tail[ntail] = path;
				ntail++;
			}
			if (nnamed < 2)
				named[nnamed] = path;
			nnamed++;
		}
		closedir(d);
		if (cut)
			break;
	}
	const char *const *set = ntail ? tail : named;
	size_t count = ntail ? ntail : nnamed;
	const char *kind = ntail ? "path ending in" : "name like";
	const char *top_shown = sl_path_tidy(a, top);
	if (count == 0) {
		if (cut)
			*guess = sl_arena_printf(a, "not beside the sweep, and none found in the first %d entries of the "
						    "project", MAX_SEARCH_ENTRIES);
		return NULL;
	}
	/* shown relative to the project root */
	const char *shown[2];
	for (size_t i = 0; i < 2 && i < count; i++) {
		const char *t = sl_path_tidy(a, set[i]);
		size_t lt = strlen(top_shown);
		shown[i] = strcmp(top_shown, ".") != 0 && strncmp(t, top_shown, lt) == 0 && t[lt] == '/' ? t + lt + 1 : t;
	}
	if (count > 1 || cut) {
		*guess = count > 1 ? sl_arena_printf(a, "not found beside the sweep; more than one file of the project has a "
						     "%s %s: not guessed", kind, ntail ? rel : base)
				   : sl_arena_printf(a, "not beside the sweep; the project was searched only in part (%d "
						     "entries): not guessed", MAX_SEARCH_ENTRIES);
		return NULL;
	}
	const char *p = contained(a, s, sl_path_tidy(a, set[0]));
	if (!p)
		return NULL;
	*root = top;
	*guess = sl_arena_printf(a, "%s not beside the sweep; read %s, the only %s in the project", rel, shown[0],
				 ntail ? rel : base);
	return p;
}

/* A found path: a shell script is followed to the Python script it runs. */
static bool found(struct sl_arena *a, const char *path, const char *root, const char *how,
		  const struct sl_program_opts *o, struct sl_program_ref *ref, unsigned depth)
{
	if (ends_with(path, ".sh") && depth < 2) {
		struct sl_program_ref inner = {0};
		if (find_in_shell(a, path, o, &inner, depth + 1)) {
			*ref = inner;
			ref->how = sl_arena_printf(a, "%s, which runs %s", how, inner.how);
			return true;
		}
		ref->path = NULL;
		ref->how = inner.how ? sl_arena_printf(a, "%s, which runs %s", how, inner.how)
				     : sl_arena_printf(a, "%s: a shell script that runs no Python script sweeplint can find", how);
		return false;
	}
	ref->path = path;
	ref->root = root;
	ref->how = how;
	return true;
}

/* Words of a command: the script after the launchers, or -m MODULE. */
static bool from_words(struct sl_arena *a, const char *const *w, size_t n, struct search *s,
		       const char *how_prefix, const struct sl_program_opts *o, struct sl_program_ref *ref,
		       unsigned depth, size_t *at)
{
	for (size_t i = 0; i < n; i++) {
		const char *root = NULL;
		if (!w[i])
			continue; /* a word the launching program computes: not a script name */
		if (at)
			*at = i + (strcmp(w[i], "-m") == 0);
		if (strcmp(w[i], "-m") == 0 && i + 1 < n && w[i + 1]) {
			const char *p = resolve_module(a, s, w[i + 1], &root);
			if (p)
				return found(a, p, root, sl_arena_printf(a, "%s -m %s", how_prefix, w[i + 1]), o, ref,
					     depth);
			ref->how = s->refused ? sl_arena_printf(a, "%s -m %s: %s", how_prefix, w[i + 1], s->refused)
					      : sl_arena_printf(a, "%s -m %s: no such module file", how_prefix, w[i + 1]);
			return false;
		}
		if (is_script(w[i])) {
			const char *p = resolve(a, s, w[i], &root);
			if (p)
				return found(a, p, root, sl_arena_printf(a, "%s %s", how_prefix, w[i]), o, ref, depth);
			const char *guess = NULL;
			if (!s->refused && (p = search_project(a, s, w[i], &root, &guess))) {
				bool ok = found(a, p, root, sl_arena_printf(a, "%s %s (found at %s)", how_prefix, w[i], p), o,
						ref, depth);
				if (ok)
					ref->guessed = sl_arena_printf(a, "%s %s", how_prefix, guess);
				return ok;
			}
			ref->how = s->refused ? sl_arena_printf(a, "%s %s: %s", how_prefix, w[i], s->refused)
				   : guess    ? sl_arena_printf(a, "%s %s: %s", how_prefix, w[i], guess)
					      : sl_arena_printf(a, "%s %s: not found", how_prefix, w[i]);
			return false;
		}
	}
	return false;
}

/* Split one shell command line into words (quotes removed; a word with $ or ` is kept as written). */
static size_t shell_words(struct sl_arena *a, const char *line, size_t len, const char **w, size_t max)
{
	size_t n = 0, i = 0;
	while (i < len && n < max) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= len || line[i] == '#' || line[i] == ';' || line[i] == '|' || line[i] == '&')
			break;
		struct sl_buf b;
		sl_buf_init(&b, a);
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != ';' && line[i] != '|') {
			char q = line[i];
			if (q == '"' || q == '\'') {
				i++;
				while (i < len && line[i] != q)
					sl_buf_addc(&b, line[i++]);
				i++;
				continue;
			}
			sl_buf_addc(&b, line[i++]);
		}
		sl_buf_addc(&b, '\0');
		w[n++] = b.buf;
	}
	return n;
}

/* One option value of a shell line as a node (typed as PyYAML types a plain scalar), spanning the line. */
static struct sl_node *word_node(struct sl_arena *a, const struct sl_source *src, uint32_t line, const char *text,
				 const struct sl_scalar_resolver *res)
{
	struct sl_node *n = sl_arena_alloc(a, sizeof *n);
	size_t start = src->line_start[line - 1];
	size_t len;
	sl_source_line(src, line, &len);
	n->span = sl_source_span(src, start, start + len);
	n->kind = SL_NODE_SCALAR;
	n->weight = 1;
	n->text = text;
	n->text_len = strlen(text);
	n->value = sl_scalar_resolve(res, text, n->text_len, true, NULL, NULL);
	return n;
}

/*
 * The literal options a shell line passes after the script: --key value, --key=value, a bare --flag
 * (true), and argparse's single-dash options (-c conf.yaml, -lr=0.1; the program's parser maps them to
 * their dest: pysources.py argparse_value). Words holding $ or ` (variables, "$@") are not literals and end
 * nothing: they are skipped.
 */
static struct sl_trainer *shell_options(struct sl_arena *a, const struct sl_source *src, uint32_t line,
					const char *const *w, size_t n, const struct sl_program_opts *o)
{
	size_t i = 0;
	while (i < n && !is_script(w[i]) && strcmp(w[i], "-m") != 0)
		i++;
	i += i < n && strcmp(w[i], "-m") == 0 ? 2 : 1;
	const struct sl_scalar_resolver *res = o->res ? o->res : sl_scalar_resolver_new(a);
	struct sl_trainer *t = sl_arena_alloc(a, sizeof *t);
	t->path = src->path;
	t->src = src;
	t->from_program = true;
	t->entries = sl_arena_array(a, n ? n : 1, sizeof *t->entries);
	for (; i < n; i++) {
		const char *word = w[i];
		/* --key, or -k (a letter after one dash: not a negative number, not a bare "-") */
		size_t dashes = strncmp(word, "--", 2) == 0 ? 2 : word[0] == '-' && isalpha((unsigned char)word[1]) ? 1 : 0;
		if (!dashes || !word[dashes] || strchr(word, '$') || strchr(word, '`'))
			continue;
		const char *eq = strchr(word, '=');
		const char *key = eq ? sl_arena_strndup(a, word + dashes, (size_t)(eq - word) - dashes)
				     : word + dashes;
		const char *value = NULL;
		if (eq)
			value = eq + 1;
		else if (i + 1 < n && w[i + 1][0] != '-' && !strchr(w[i + 1], '$'))
			value = w[++i];
		else if (i + 1 < n && strchr(w[i + 1], '$'))
			continue; /* --key "$VAR": not a literal */
		if (value && (strchr(value, '$') || strchr(value, '`')))
			continue;
		char *k = sl_arena_strdup(a, key);
		for (char *c = k; *c; c++)
			if (*c == '-')
				*c = '_';
		struct sl_cfg_entry *e = &t->entries[t->n++];
		e->key = k;
		e->node = word_node(a, src, line, value ? value : "true", res);
		e->how = sl_arena_printf(a, "%s passes %.*s%s%s", src->display, (int)dashes, "--", key,
					 value ? "" : " (a flag)");
	}
	return t;
}

static bool find_in_shell(struct sl_arena *a, const char *sh, const struct sl_program_opts *o,
			  struct sl_program_ref *ref, unsigned depth)
{
	int err = 0;
	struct sl_source *src = sl_source_read(a, sh, MAX_SHELL_BYTES, &err);
	if (!src)
		return false;
	struct search s;
	search_dirs(a, sl_path_dir(a, sh), o->root, &s);
	/* join continued lines, then look at each command that runs python or a launcher */
	struct sl_buf line;
	sl_buf_init(&line, a);
	uint32_t first = 1;
	for (uint32_t ln = 1; ln <= src->nlines; ln++) {
		size_t len;
		const char *t = sl_source_line(src, ln, &len);
		while (len && (t[len - 1] == '\r' || t[len - 1] == ' '))
			len--;
		if (!line.len)
			first = ln;
		bool cont = len && t[len - 1] == '\\';
		sl_buf_add(&line, t, cont ? len - 1 : len);
		if (cont) {
			sl_buf_addc(&line, ' ');
			continue;
		}
		const char *w[256];
		size_t n = shell_words(a, line.buf ? line.buf : "", line.len, w, 256);
		line.len = 0;
		bool runs = false;
		for (size_t i = 0; i < n; i++)
			if (is_launcher(w[i]))
				runs = true;
		if (!runs)
			continue;
		const char *prefix = sl_arena_printf(a, "%s:%u:", src->display, first);
		if (from_words(a, w, n, &s, prefix, o, ref, depth, NULL)) {
			if (!ref->shell)
				ref->shell = shell_options(a, src, first, w, n, o);
			return true;
		}
	}
	return false;
}

#define MAX_AGENT_FILES 200 /* Python files looked at for the one that runs the sweep with wandb.agent */

/*
 * What a run's sweeps share in that search (a check of n sweeps in one folder listed the folder once per
 * sweep: n^2): each folder's listing, read once per run — its first MAX_AGENT_FILES .py files (in readdir's
 * order, then sorted by name), each with whether it holds "wandb.agent" at all, so a sweep's search opens
 * only those — and each search's answer by folder and sweep file name (split's parts search once).
 */
struct agent_dir {
	const char **names;
	bool *agent;
	size_t n;
};

struct agent_found {
	const char *path, *root; /* path NULL: none */
};

/* One entry of the memo's hash table: a folder ("D") or a search ("S" folder NUL base). */
struct memo_item {
	const char *key;
	size_t len;
	void *val;
	struct memo_item *next;
};

struct sl_program_memo {
	struct sl_arena *a;
	struct memo_item **buckets;
	size_t nbuckets, n;
};

struct sl_program_memo *sl_program_memo_new(struct sl_arena *a)
{
	struct sl_program_memo *m = sl_arena_alloc(a, sizeof *m);
	m->a = a;
	m->nbuckets = 64;
	m->buckets = sl_arena_array(a, m->nbuckets, sizeof *m->buckets);
	return m;
}

static size_t hash_bytes(const char *s, size_t n)
{
	size_t h = (size_t)1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * (size_t)1099511628211u;
	return h;
}

static void *memo_get(const struct sl_program_memo *m, const char *key, size_t len)
{
	if (!m)
		return NULL;
	for (const struct memo_item *e = m->buckets[hash_bytes(key, len) % m->nbuckets]; e; e = e->next)
		if (e->len == len && memcmp(e->key, key, len) == 0)
			return e->val;
	return NULL;
}

static void memo_put(struct sl_program_memo *m, const char *key, size_t len, void *val)
{
	if (m->n >= m->nbuckets) {
		/* grow: rehash into twice the buckets */
		size_t nb = m->nbuckets * 2;
		struct memo_item **b = sl_arena_array(m->a, nb, sizeof *b);
		for (size_t i = 0; i < m->nbuckets; i++)
			for (struct memo_item *x = m->buckets[i], *next; x; x = next) {
				next = x->next;
				size_t k = hash_bytes(x->key, x->len) % nb;
				x->next = b[k];
				b[k] = x;
			}
		m->buckets = b;
		m->nbuckets = nb;
	}
	struct memo_item *e = sl_arena_alloc(m->a, sizeof *e);
	char *k = sl_arena_alloc(m->a, len + 1); /* a search's key holds a NUL: copied whole */
	memcpy(k, key, len);
	e->key = k;
	e->len = len;
	e->val = val;
	size_t at = hash_bytes(key, len) % m->nbuckets;
	e->next = m->buckets[at];
	m->buckets[at] = e;
	m->n++;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/*
 * Whether buf[0..n) holds name as the end of a string literal: "name" or 'name', or a path ending in it
 * ("sweeps/name", f"{d}/name"); a mention in a comment or a docstring's prose does not count.
 */
static bool names_in_string(const char *buf, size_t n, const char *name, size_t l)
{
	for (const char *p = buf; (p = memmem(p, n - (size_t)(p - buf), name, l)); p++) {
		size_t at = (size_t)(p - buf);
		if (at == 0 || at + l >= n)
			continue;
		char before = buf[at - 1], after = buf[at + l];
		if ((after == '"' || after == '\'') &&
		    (before == '"' || before == '\'' || before == '/' || before == '\\' || before == '}'))
			return true;
	}
	return false;
}

/*
 * Whether the regular file at path (not a link) names the file `name` in a string literal (NULL: any) and
 * holds `word`, in its first MAX_SHELL_BYTES bytes, read in chunks (no line table: a split of 1,000 parts looks
 * at the same files once per part).
 */
static bool names_and_holds(const char *path, const char *name, const char *word)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	/* the tail kept between chunks holds a straddling name with the character before it, or the word */
	size_t l1 = name ? strlen(name) : 0, l2 = strlen(word), keep = (l1 + 1 > l2 - 1 ? l1 + 1 : l2 - 1);
	char buf[16384];
	size_t have = 0, total = 0;
	bool f1 = !name, f2 = false;
	while (!(f1 && f2) && total < MAX_SHELL_BYTES && keep < sizeof buf / 2) {
		ssize_t r = read(fd, buf + have, sizeof buf - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		total += (size_t)r;
		f1 = f1 || names_in_string(buf, have, name, l1);
		f2 = f2 || memmem(buf, have, word, l2);
		size_t k = have < keep ? have : keep;
		memmove(buf, buf + have - k, k);
		have = k;
	}
	close(fd);
	return f1 && f2;
}

/*
 * A sweep with neither program: nor command: is often run by a script of its own: it names the sweep's
 * file (wandb.sweep(yaml.safe_load(open("sweep.yaml")))) and runs wandb.agent(sweep_id, function=train).
 * The name must be written in a string literal (a comment naming the file does not count).
 * The first such .py file (by name) in the sweep's folder or its parents up to the project root; at most
 * MAX_AGENT_FILES files of at most MAX_SHELL_BYTES are looked at. NULL: none.
 */
/* The folder's listing: from the memo, else read (into the memo's arena when there is one, else a). */
static const struct agent_dir *agent_dir(struct sl_arena *a, struct sl_program_memo *memo, const char *path)
{
	const char *key = sl_arena_printf(a, "D%s", path);
	struct agent_dir *e = memo_get(memo, key, strlen(key));
	if (e)
		return e;
	struct sl_arena *into = memo ? memo->a : a;
	e = sl_arena_alloc(into, sizeof *e);
	DIR *dir = opendir(path);
	if (dir) {
		e->names = sl_arena_array(into, MAX_AGENT_FILES, sizeof *e->names);
		struct dirent *d;
		while ((d = readdir(dir)) && e->n < MAX_AGENT_FILES)
			if (ends_with(d->d_name, ".py"))
				e->names[e->n++] = sl_arena_strdup(into, d->d_name);
		closedir(dir);
		qsort(e->names, e->n, sizeof *e->names, by_name);
		e->agent = sl_arena_array(into, e->n ? e->n : 1, sizeof *e->agent);
		for (size_t i = 0; i < e->n; i++)
			e->agent[i] = names_and_holds(sl_arena_printf(a, "%s/%s", path, e->names[i]), NULL, "wandb.agent");
	}
	if (memo)
		memo_put(memo, key, strlen(key), e);
	return e;
}

static const char *agent_search(struct sl_arena *a, const char *base, const struct search *s,
				struct sl_program_memo *memo, const char **root, bool *opened)
{
	size_t looked = 0;
	for (size_t d = 0; d < s->n && looked < MAX_AGENT_FILES; d++) {
		const struct agent_dir *e = agent_dir(a, memo, s->dirs[d]);
		for (size_t i = 0; i < e->n && looked < MAX_AGENT_FILES; i++, looked++) {
			if (!e->agent[i])
				continue;
			const char *path = sl_arena_printf(a, "%s/%s", s->dirs[d], e->names[i]);
			*opened = true;
			if (names_and_holds(path, base, "wandb.agent")) {
				*root = s->dirs[s->n - 1];
				return path;
			}
		}
	}
	return NULL;
}

static const char *agent_script(struct sl_arena *a, const struct sl_sweep *sw, const struct search *s,
				struct sl_program_memo *memo, const char **root)
{
	const char *sweep_path = sw->doc && sw->doc->src ? sw->doc->src->path : NULL;
	if (!sweep_path || strcmp(sweep_path, "-") == 0 || s->n == 0)
		return NULL;
	const char *base = strrchr(sweep_path, '/') ? strrchr(sweep_path, '/') + 1 : sweep_path;
	/* the search's key: "S" folder NUL file name */
	size_t ld = strlen(s->dirs[0]), lb = strlen(base);
	char *key = sl_arena_alloc(a, ld + lb + 3);
	key[0] = 'S';
	memcpy(key + 1, s->dirs[0], ld);
	memcpy(key + 2 + ld, base, lb);
	size_t klen = ld + lb + 2;
	const struct agent_found *f = memo_get(memo, key, klen);
	if (f) {
		*root = f->root ? sl_arena_strdup(a, f->root) : NULL;
		return f->path ? sl_arena_strdup(a, f->path) : NULL;
	}
	bool opened = false;
	const char *p = agent_search(a, base, s, memo, root, &opened);
	if (memo && opened) { /* a search that opened no file costs no more than the memo: not kept */
		struct agent_found *n = sl_arena_alloc(memo->a, sizeof *n);
		n->path = p ? sl_arena_strdup(memo->a, p) : NULL;
		n->root = p && *root ? sl_arena_strdup(memo->a, *root) : NULL;
		memo_put(memo, key, klen, n);
	}
	return p;
}

bool sl_program_find(struct sl_arena *a, const struct sl_sweep *sw, const struct sl_program_opts *o,
		     struct sl_program_ref *ref)
{
	memset(ref, 0, sizeof *ref);
	struct sl_program_opts with_root = *o;
	if (!with_root.root)
		with_root.root = sl_project_root(a, o->sweep_dir);
	if (!with_root.root) {
		ref->how = sl_arena_printf(a, "the sweep's folder %s cannot be resolved", o->sweep_dir ? o->sweep_dir : ".");
		return false;
	}
	o = &with_root;
	struct search s;
	search_dirs(a, o->sweep_dir, o->root, &s);
	const char *root = NULL;
	if (o->code) {
		/* a sweep defined in Python: the code that defines it is what the runs execute */
		ref->path = o->code;
		ref->shown = o->code_src ? o->code_src->display : NULL;
		ref->root = o->code_root ? o->code_root : sl_path_dir(a, o->code);
		ref->how = o->code_how ? o->code_how : "the code that defines the sweep";
		return true;
	}
	if (o->program) {
		const char *p = resolve(a, &s, o->program, &root);
		if (p)
			return found(a, p, root, sl_arena_printf(a, "program %s (.sweeplint.yaml)", o->program), o, ref, 0);
		ref->how = s.refused ? sl_arena_printf(a, "program %s (.sweeplint.yaml): %s", o->program, s.refused)
				     : sl_arena_printf(a, "program %s (.sweeplint.yaml): not found", o->program);
		return false;
	}
	const char *program = sw->program && sw->program->kind == SL_NODE_SCALAR ? sw->program->text : NULL;
	/* the words W&B runs: the command's items, ${program} standing for program: */
	const char *w[256];
	const size_t room = sizeof w / sizeof w[0];
	size_t n = 0;
	if (sw->default_command || !sw->cmd) {
		if (program && n < sizeof w / sizeof w[0])
			w[n++] = program;
	} else {
		/* each item adds at most two words: n + 2 <= room before it */
		for (size_t i = 0; i < sw->ncmd && n + 2 <= sizeof w / sizeof w[0]; i++) {
			const struct sl_cmd_item *c = &sw->cmd[i];
			if (c->kind == SL_CMD_PROGRAM && program) {
				w[n++] = program;
			} else if (c->kind == SL_CMD_LITERAL && c->node && c->node->kind == SL_NODE_SCALAR) {
				/* "python train.py" written as one item */
				const char *t = c->node->text;
				n += shell_words(a, t, strlen(t), w + n, room - n);
			} else if (c->kind == SL_CMD_OPTION && c->value_node != c->node && c->value) {
				/* "-m pkg.mod", or a launcher flag the parser paired with the script after it */
				if (strcmp(c->key, "m") == 0)
					w[n++] = "-m";
				w[n++] = c->value;
			}
		}
	}
	if (n == 0) {
		const char *p = !program && !sw->command ? agent_script(a, sw, &s, o->memo, &root) : NULL;
		if (p && found(a, p, root, sl_arena_printf(a, "%s runs it with wandb.agent", sl_path_tidy(a, p)), o, ref,
			       0)) {
			ref->by_agent = true;
			return true;
		}
		return false;
	}
	if (from_words(a, w, n, &s, sw->default_command || !sw->cmd ? "program:" : "command:", o, ref, 0, NULL))
		return true;
	if (ref->how)
		return false;
	/* `program: src` (a package run as `python src`) or a script without a .py suffix */
	if (program && !is_launcher(program)) {
		const char *p = resolve(a, &s, program, &root);
		if (p)
			return found(a, p, root, sl_arena_printf(a, "program: %s", program), o, ref, 0);
		ref->how = s.refused ? sl_arena_printf(a, "program: %s: %s", program, s.refused)
				     : sl_arena_printf(a, "program: %s: not found", program);
	}
	return false;
}

bool sl_program_find_launched(struct sl_arena *a, const char *from_file, const char *const *words, size_t n,
			      const char *how_prefix, const struct sl_program_opts *o, struct sl_program_ref *ref,
			      size_t *at)
{
	memset(ref, 0, sizeof *ref);
	const char *root = o->root ? o->root : sl_project_root(a, sl_path_dir(a, from_file));
	if (!root)
		return false;
	struct sl_program_opts with_root = *o;
	with_root.root = root;
	struct search s;
	search_dirs(a, sl_path_dir(a, from_file), root, &s);
	return from_words(a, words, n, &s, how_prefix, &with_root, ref, 0, at);
}
