/*
 * path: file-name helpers (the directory of a path, a lexical tidy) and the
 * containment rule for files read on a project's behalf (include/sweeplint/path.h,
 * docs/reliability.md "Containment").
 */
#include "sweeplint/path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweeplint/arena.h"

const char *sl_path_dir(struct sl_arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ".";
	if (slash == path)
		return "/";
	return sl_arena_strndup(a, path, (size_t)(slash - path));
}

const char *sl_path_tidy(struct sl_arena *a, const char *path)
{
	size_t cap = 1;
	for (const char *c = path; *c; c++)
		cap += *c == '/';
	const char **parts = sl_arena_array(a, cap, sizeof *parts);
	size_t n = 0;
	bool abs = path[0] == '/';
	char *copy = sl_arena_strdup(a, path);
	char *save = NULL;
	for (char *tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0 && n > 0 && strcmp(parts[n - 1], "..") != 0) {
			n--;
			continue;
		}
		if (strcmp(tok, "..") == 0 && abs)
			continue; /* "/.." is "/" */
		parts[n++] = tok; /* n < cap: one part per '/'-separated field at most */
	}
	struct sl_buf b;
	sl_buf_init(&b, a);
	if (abs)
		sl_buf_addc(&b, '/');
	for (size_t i = 0; i < n; i++)
		sl_buf_addf(&b, "%s%s", i ? "/" : "", parts[i]);
	if (!b.len)
		sl_buf_addc(&b, '.');
	sl_buf_addc(&b, '\0');
	return b.buf;
}

/* realpath(path) in the arena, or NULL. */
static const char *real_of(struct sl_arena *a, const char *path)
{
	char *r = realpath(path, NULL);
	if (!r)
		return NULL;
	const char *s = sl_arena_strdup(a, r);
	free(r);
	return s;
}

bool sl_path_inside(const char *root, const char *real)
{
	if (!root)
		return true;
	if (!*root)
		return false; /* "": no project, nothing is inside */
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return real[0] == '/';
	return strncmp(real, root, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

/* / or a folder directly under it (/tmp, /home, /data): never a project root. */
static bool top_level(const char *dir)
{
	return strcmp(dir, "/") == 0 || strchr(dir + 1, '/') == NULL;
}

/* DIR/NAME exists and you or root own it (git's safe.directory: a marker planted by another user does not count). */
static bool marker(struct sl_arena *a, const char *dir, const char *name, bool want_file)
{
	struct stat st;
	if (stat(sl_arena_printf(a, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name), &st) != 0)
		return false;
	if (want_file && !S_ISREG(st.st_mode))
		return false;
	return st.st_uid == geteuid() || st.st_uid == 0;
}

const char *sl_project_root(struct sl_arena *a, const char *dir)
{
	const char *d = real_of(a, dir && *dir ? dir : ".");
	if (!d)
		return NULL;
	const char *home_env = getenv("HOME");
	const char *home = home_env && home_env[0] == '/' ? real_of(a, home_env) : NULL;
	if (home && strcmp(home, "/") == 0)
		home = NULL;
	/* no marker at $HOME or above it counts, none in /, and in a top-level folder only a repository
	 * (/workspace, /app in a container; /tmp/.sweeplint.yaml makes no project of /tmp) */
	const char *cfg = NULL;
	char *p = sl_arena_strdup(a, d);
	while (strcmp(p, "/") != 0 && !(home && sl_path_inside(p, home))) {
		if (marker(a, p, ".git", false))
			return sl_arena_strdup(a, p);
		if (top_level(p))
			break;
		if (!cfg && marker(a, p, ".sweeplint.yaml", true))
			cfg = sl_arena_strdup(a, p);
		char *slash = strrchr(p, '/');
		if (slash == p)
			break;
		*slash = '\0';
	}
	return cfg ? cfg : d;
}

/*
 * The realpath of path's deepest existing folder followed by the rest of path (tidied lexically: the
 * components that do not exist are no links), or NULL.
 */
static const char *resolve_partial(struct sl_arena *a, const char *path)
{
	const char *abs = path;
	if (path[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
		abs = sl_arena_printf(a, "%s/%s", cwd, path);
		free(cwd);
	}
	char *head = sl_arena_strdup(a, abs);
	for (;;) {
		char *slash = strrchr(head, '/');
		if (!slash)
			return NULL;
		*slash = '\0';
		const char *real = real_of(a, *head ? head : "/");
		if (real)
			return sl_path_tidy(a, sl_arena_printf(a, "%s/%s", real, abs + (slash - head) + 1));
		if (slash == head)
			return NULL;
	}
}

enum sl_contain sl_path_contain(struct sl_arena *a, const char *root, const char *path, const char **real)
{
	if (real)
		*real = NULL;
	if (!path || !*path)
		return SL_CONTAIN_MISSING;
	const char *r = real_of(a, path);
	bool missing = !r;
	if (missing) {
		r = resolve_partial(a, path);
		if (!r)
			return SL_CONTAIN_MISSING;
	}
	if (!sl_path_inside(root, r))
		return SL_CONTAIN_OUTSIDE;
	if (missing)
		return SL_CONTAIN_MISSING;
	if (real)
		*real = r;
	return SL_CONTAIN_INSIDE;
}

const char *sl_path_refusal(struct sl_arena *a, const char *path, const char *root)
{
	return sl_arena_printf(a, "%s is outside the project (%s): not read", path, root ? root : "?");
}
