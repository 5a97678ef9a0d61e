/*
 * config: .sweeplint.yaml — discovery upward from a file, loading through
 * ydoc (so every problem has a position), ignored paths, and the overlay of
 * command line, config and defaults. See include/sweeplint/config.h. Its own
 * module (src/project/): the project's settings, not a rule.
 */
#include "sweeplint/config.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/eval.h"
#include "sweeplint/memory.h"
#include "sweeplint/path.h"
#include "sweeplint/roles.h"
#include "sweeplint/rules.h"
#include "sweeplint/source.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

static const char *const top_keys =
	"gpu, gpus, headroom, host_memory, cores, fetch, keys, models, rules, ignore, program or config_dir";

/* ---- paths ---- */

static void free_ptr(void *p)
{
	free(p);
}

/* realpath(path) in the arena, or NULL. */
static const char *absolute(struct sl_arena *a, const char *path)
{
	char *r = realpath(path, NULL);
	if (!r)
		return NULL;
	const char *s = sl_arena_strdup(a, r);
	free(r);
	return s;
}

static const char *cwd(struct sl_arena *a)
{
	char *c = getcwd(NULL, 0);
	if (!c)
		return NULL;
	sl_arena_defer(a, free_ptr, c);
	return c;
}

/* abs relative to the working directory when under it, else abs. */
static const char *shown(struct sl_arena *a, const char *abs)
{
	const char *c = cwd(a);
	size_t n = c ? strlen(c) : 0;
	if (n == 1)
		return abs[1] ? abs + 1 : abs; /* the working directory is / */
	if (n && strncmp(abs, c, n) == 0 && abs[n] == '/')
		return abs + n + 1;
	return abs;
}

static bool exists(const char *path, bool want_file)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return false;
	return !want_file || S_ISREG(st.st_mode);
}

const char *sl_config_find(struct sl_arena *a, const char *file, const char **note)
{
	if (note)
		*note = NULL;
	const char *dir = strcmp(file, "-") == 0 ? "." : sl_path_dir(a, file);
	const char *abs = absolute(a, dir);
	if (!abs)
		return NULL;
	const char *home_env = getenv("HOME");
	const char *home = home_env && home_env[0] == '/' ? absolute(a, home_env) : NULL;
	char *d = sl_arena_strdup(a, abs);
	for (;;) {
		/* outside a repository and $HOME the search never reaches / or a top-level folder (/tmp, /data):
		 * a config there is anyone's (docs/cli.md); a repository there (/workspace/.git) is searched */
		bool top = strcmp(d, "/") == 0 || !strchr(d + 1, '/');
		if (top && !(home && strcmp(d, home) == 0) &&
		    !exists(sl_arena_printf(a, "%s/.git", strcmp(d, "/") == 0 ? "" : d), false))
			return NULL;
		const char *cand = sl_arena_printf(a, "%s/%s", strcmp(d, "/") == 0 ? "" : d, SL_CONFIG_NAME);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (st.st_uid == geteuid() || st.st_uid == 0)
				return shown(a, cand);
			/* the nearest config is someone else's: used by nobody, and no farther one takes its place */
			if (note)
				*note = sl_arena_printf(a,
							"%s is not used: it belongs to another user (uid %u; you are uid %u), "
							"and a config someone else can write would configure this run; give it "
							"with --config-file to use it",
							shown(a, cand), (unsigned)st.st_uid, (unsigned)geteuid());
			return NULL;
		}
		if (exists(sl_arena_printf(a, "%s/.git", strcmp(d, "/") == 0 ? "" : d), false))
			return NULL; /* the repository root: a config above it is not the project's */
		if (home && strcmp(d, home) == 0)
			return NULL; /* the user's home: a folder above it is shared, not the project's */
		char *slash = strrchr(d, '/');
		if (!slash || strcmp(d, "/") == 0)
			return NULL;
		if (slash == d)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

/* ---- loading ---- */

struct loader {
	struct sl_run *run;
	struct sl_arena *a;
	struct sl_config *c;
	struct sl_diags *diags;
	int (*parse_size)(const char *s, uint64_t *out);
	bool bad;
};

static void problem(struct loader *L, const struct sl_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct loader *L, const struct sl_node *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct sl_span span = at ? at->span : sl_source_span(L->c->src, 0, 0);
	sl_diags_vadd(L->diags, "config", SL_SEV_ERROR, L->c->src, span, fmt, ap);
	va_end(ap);
	L->bad = true;
}

/* A scalar's text, or NULL after reporting what was expected. */
static const char *scalar(struct loader *L, const struct sl_node *n, const char *what, const char *expected)
{
	if (n && n->kind == SL_NODE_SCALAR && n->value.type != SL_V_NULL && n->text_len == strlen(n->text))
		return n->text;
	problem(L, n, "%s must be %s, not %s", what, expected, sl_node_describe(n));
	return NULL;
}

/* A whole number in [lo, hi], or 0 after reporting. */
static uint32_t whole(struct loader *L, const struct sl_node *n, const char *what, uint32_t lo, uint32_t hi)
{
	if (n && n->kind == SL_NODE_SCALAR && n->value.type == SL_V_INT && !n->value.big && n->value.i >= lo &&
	    n->value.i <= hi)
		return (uint32_t)n->value.i;
	if (n && n->kind == SL_NODE_SCALAR)
		problem(L, n, "%s must be a whole number from %u to %u, not '%s'", what, lo, hi, n->text);
	else
		problem(L, n, "%s must be a whole number from %u to %u, not %s", what, lo, hi, sl_node_describe(n));
	return 0;
}

static void load_gpu(struct loader *L, const struct sl_node *n)
{
	const char *name = scalar(L, n, "gpu", "a GPU name (h100-80gb) or a size (24GiB)");
	if (!name)
		return;
	struct sl_run *run = L->run;
	if (!run->catalog) {
		struct sl_diags quiet;
		sl_diags_init(&quiet, L->a);
		if (sl_catalog_load(L->a, &run->catalog, &quiet) != 0)
			run->catalog = NULL;
	}
	if (run->catalog && !sl_catalog_find_gpu(L->a, run->catalog, name)) {
		problem(L, n, "unknown gpu '%s' (see 'sweeplint gpus', or give a size such as 24GiB)", name);
		return;
	}
	L->c->gpu = name;
}

/* fetch: true / false — the opt-in download of config.json from the Hub (docs/models.md) */
static void load_fetch(struct loader *L, const struct sl_node *n)
{
	if (n && n->kind == SL_NODE_SCALAR && n->value.type == SL_V_BOOL) {
		L->c->fetch = n->value.b;
		return;
	}
	if (n && n->kind == SL_NODE_SCALAR)
		problem(L, n, "fetch must be true or false, not '%s'", n->text);
	else
		problem(L, n, "fetch must be true or false, not %s", sl_node_describe(n));
}

static void load_headroom(struct loader *L, const struct sl_node *n)
{
	if (n && n->kind == SL_NODE_SCALAR && (n->value.type == SL_V_FLOAT || n->value.type == SL_V_INT) &&
	    n->value.f > 0 && n->value.f <= 1) {
		L->c->headroom = n->value.f;
		return;
	}
	if (n && n->kind == SL_NODE_SCALAR)
		problem(L, n, "headroom must be a fraction in (0, 1], such as 0.85, not '%s'", n->text);
	else
		problem(L, n, "headroom must be a fraction in (0, 1], such as 0.85, not %s", sl_node_describe(n));
}

static void load_host_memory(struct loader *L, const struct sl_node *n)
{
	const char *s = scalar(L, n, "host_memory", "a size such as 512GiB");
	if (!s)
		return;
	if (n->value.type != SL_V_STR || L->parse_size(s, &L->c->host_memory) != 0) {
		L->c->host_memory = 0;
		problem(L, n, "host_memory must be a size such as 512GiB, not '%s'", s);
	}
}

/* keys: [{pattern, role, if_true, if_false}] — the first listed has the highest priority. */
static void load_keys(struct loader *L, const struct sl_node *n)
{
	if (!n || n->kind != SL_NODE_SEQ) {
		problem(L, n, "keys must be a list of {pattern, role, if_true, if_false}, not %s", sl_node_describe(n));
		return;
	}
	struct keyrule {
		const struct sl_node *pattern_node;
		const char *pattern, *if_true, *if_false;
		enum sl_role role;
	} *v = sl_arena_array(L->a, n->n ? n->n : 1, sizeof *v);
	size_t nv = 0;
	bool bad = L->bad;
	L->bad = false;
	for (size_t i = 0; i < n->n; i++) {
		const struct sl_node *e = n->items[i];
		if (e->kind != SL_NODE_MAP) {
			problem(L, e, "an item of keys must be a mapping {pattern, role, if_true, if_false}, not %s",
				sl_node_describe(e));
			continue;
		}
		struct keyrule k = {0};
		bool ok = true;
		for (size_t p = 0; p < e->n; p++) {
			const struct sl_node *key = e->pairs[p].key, *val = e->pairs[p].value;
			const char *name = key->kind == SL_NODE_SCALAR ? key->text : "";
			if (strcmp(name, "pattern") == 0) {
				k.pattern_node = val;
				ok &= (k.pattern = scalar(L, val, "pattern", "a regular expression (PCRE2)")) != NULL;
			} else if (strcmp(name, "role") == 0) {
				const char *r = scalar(L, val, "role", "a role name (batch_size, seq_len, ...)");
				int role = r ? sl_role_parse(r) : -1;
				if (r && role < 0)
					problem(L, val, "unknown role '%s' (see docs/ci.md for the role names)", r);
				ok &= role >= 0;
				k.role = role >= 0 ? (enum sl_role)role : SL_ROLE_MODEL;
			} else if (strcmp(name, "if_true") == 0) {
				ok &= (k.if_true = scalar(L, val, "if_true", "a role value")) != NULL;
			} else if (strcmp(name, "if_false") == 0) {
				ok &= (k.if_false = scalar(L, val, "if_false", "a role value")) != NULL;
			} else {
				problem(L, key, "unknown key '%s' in a keys item (expected pattern, role, if_true or if_false)",
					name);
				ok = false;
			}
		}
		if (ok && (!k.pattern || !sl_map_get(e, "role"))) {
			problem(L, e, "a keys item needs both 'pattern' and 'role'");
			ok = false;
		}
		if (ok)
			v[nv++] = k;
	}
	bool items_bad = L->bad;
	L->bad = bad || items_bad;
	if (!nv)
		return; /* the valid items are still compiled: a bad pattern is reported with the rest */
	struct sl_diags quiet;
	sl_diags_init(&quiet, L->a);
	struct sl_keymap *km = sl_keymap_new(L->a, &quiet);
	if (!km) {
		problem(L, n, "cannot load the built-in key patterns (rules/keys.yaml)");
		return;
	}
	for (size_t i = nv; i-- > 0;) {
		const char *why = NULL;
		if (sl_keymap_prepend(L->a, km, v[i].pattern, v[i].role, v[i].if_true, v[i].if_false, L->c->path,
				      &why) < 0)
			problem(L, v[i].pattern_node, "%s", why ? why : "bad key pattern");
	}
	if (!items_bad)
		L->c->keys = km;
}

/* models: [{name, config: PATH} | {name, alias-of: NAME}] */
static void load_models(struct loader *L, const struct sl_node *n)
{
	if (!n || n->kind != SL_NODE_SEQ) {
		problem(L, n, "models must be a list of {name, config} or {name, alias-of}, not %s",
			sl_node_describe(n));
		return;
	}
	struct sl_config *c = L->c;
	c->models = sl_arena_array(L->a, n->n ? n->n : 1, sizeof *c->models);
	for (size_t i = 0; i < n->n; i++) {
		const struct sl_node *e = n->items[i];
		if (e->kind != SL_NODE_MAP) {
			problem(L, e, "an item of models must be a mapping {name, config} or {name, alias-of}, not %s",
				sl_node_describe(e));
			continue;
		}
		const char *name = NULL, *target = NULL;
		const struct sl_node *config = NULL, *alias = NULL;
		bool ok = true;
		for (size_t p = 0; p < e->n; p++) {
			const struct sl_node *key = e->pairs[p].key, *val = e->pairs[p].value;
			const char *k = key->kind == SL_NODE_SCALAR ? key->text : "";
			if (strcmp(k, "name") == 0) {
				ok &= (name = scalar(L, val, "name", "the model name sweeps use")) != NULL;
			} else if (strcmp(k, "config") == 0) {
				config = val;
				ok &= (target = scalar(L, val, "config", "a local HF model folder or config.json")) != NULL;
			} else if (strcmp(k, "alias-of") == 0) {
				alias = val;
				ok &= (target = scalar(L, val, "alias-of", "a catalog model name")) != NULL;
			} else {
				problem(L, key, "unknown key '%s' in a models item (expected name, config or alias-of)", k);
				ok = false;
			}
		}
		if (!ok)
			continue;
		if (!name || (config != NULL) == (alias != NULL)) {
			problem(L, e, "a models item needs 'name' and exactly one of 'config' or 'alias-of'");
			continue;
		}
		if (config) {
			if (target[0] != '/')
				target = sl_arena_printf(L->a, "%s/%s", c->dir, target);
			enum sl_contain in = sl_path_contain(L->a, c->root, target, NULL);
			if (in == SL_CONTAIN_OUTSIDE) {
				/* never read, and whether it exists is not said either (path.h) */
				sl_diags_add(L->diags, "config", SL_SEV_WARNING, c->src, config->span,
					     "model config %s: the project's model '%s' is not used",
					     sl_path_refusal(L->a, config->text, c->root), name);
				continue;
			}
			if (in == SL_CONTAIN_MISSING || !exists(target, false)) {
				problem(L, config, "model config '%s' does not exist", config->text);
				continue;
			}
		} else if (L->run->catalog && !sl_catalog_find_model(L->run->catalog, target)) {
			problem(L, alias, "unknown model '%s' in alias-of (see 'sweeplint models')", target);
			continue;
		}
		c->models[c->nmodels].name = name;
		c->models[c->nmodels].target = target;
		c->models[c->nmodels].root = config ? c->root : NULL;
		c->nmodels++;
	}
}

/* rules: {slug: off|info|warning|error} */
static void load_rules(struct loader *L, const struct sl_node *n)
{
	if (!n || n->kind != SL_NODE_MAP) {
		problem(L, n, "rules must be a mapping of rule to off, info, warning or error, not %s",
			sl_node_describe(n));
		return;
	}
	struct sl_config *c = L->c;
	c->rules = sl_arena_array(L->a, n->n ? n->n : 1, sizeof *c->rules);
	for (size_t i = 0; i < n->n; i++) {
		const struct sl_node *key = n->pairs[i].key, *val = n->pairs[i].value;
		const char *slug = key->kind == SL_NODE_SCALAR ? key->text : "";
		const struct sl_rule *r = sl_rule_find(slug);
		if (!r) {
			problem(L, key, "unknown rule '%s' (see 'sweeplint rules')", slug);
			continue;
		}
		if (strcmp(r->slug, "syntax") == 0) {
			problem(L, key, "rule '%s' cannot be reconfigured", slug);
			continue;
		}
		/* `off` is a YAML 1.1 boolean: read the text as written */
		int sev = val && val->kind == SL_NODE_SCALAR ? sl_severity_parse(val->text) : -1;
		if (sev < 0) {
			if (val && val->kind == SL_NODE_SCALAR)
				problem(L, val, "severity of '%s' must be off, info, warning or error, not '%s'", slug,
					val->text);
			else
				problem(L, val, "severity of '%s' must be off, info, warning or error, not %s", slug,
					sl_node_describe(val));
			continue;
		}
		c->rules[c->nrules].rule = r;
		c->rules[c->nrules].severity = (enum sl_severity)sev;
		c->nrules++;
	}
}

static void load_ignore(struct loader *L, const struct sl_node *n)
{
	if (n && n->kind == SL_NODE_SCALAR && n->value.type == SL_V_STR) {
		problem(L, n, "ignore must be a list of glob patterns, such as [\"archive/\"], not a string");
		return;
	}
	if (!n || n->kind != SL_NODE_SEQ) {
		problem(L, n, "ignore must be a list of glob patterns, not %s", sl_node_describe(n));
		return;
	}
	struct sl_config *c = L->c;
	c->ignore = sl_arena_array(L->a, n->n ? n->n : 1, sizeof *c->ignore);
	c->ignore_line = sl_arena_array(L->a, n->n ? n->n : 1, sizeof *c->ignore_line);
	for (size_t i = 0; i < n->n; i++) {
		const char *g = scalar(L, n->items[i], "an ignore pattern", "a glob pattern");
		if (g && !*g)
			problem(L, n->items[i], "an ignore pattern must not be empty");
		else if (g) {
			c->ignore_line[c->nignore] = n->items[i]->span.line;
			c->ignore[c->nignore++] = g;
		}
	}
}

int sl_config_load(struct sl_run *run, const char *path, int (*parse_size)(const char *s, uint64_t *out),
		   struct sl_config **out, struct sl_diags *diags, int *errnum)
{
	struct sl_arena *a = run->arena;
	*out = NULL;
	int err = 0;
	struct sl_source *src = sl_source_read(a, path, SL_MAX_INPUT_BYTES, &err);
	if (!src) {
		*errnum = err;
		return -SL_EIO;
	}
	struct sl_config *c = sl_arena_alloc(a, sizeof *c);
	c->path = path;
	c->src = src;
	const char *dir = absolute(a, sl_path_dir(a, path));
	c->dir = dir ? dir : sl_path_dir(a, path);
	/* the paths it names (program:, config_dir:, models:) are read only inside its project (path.h) */
	c->root = sl_project_root(a, c->dir);
	if (!c->root)
		c->root = "";
	struct loader L = {.run = run, .a = a, .c = c, .diags = diags, .parse_size = parse_size};

	struct sl_diags yd;
	sl_diags_init(&yd, a);
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, run->resolver, &yd);
	for (size_t i = 0; i < yd.n; i++) {
		struct sl_diag *d = sl_diags_add(diags, "config", SL_SEV_ERROR, src, yd.v[i].span, "%s", yd.v[i].message);
		d->hint = yd.v[i].hint;
		L.bad = true;
	}
	if (!doc->ok || L.bad)
		return -SL_ECONFIG;
	const struct sl_node *root = doc->root;
	if (root && root->kind == SL_NODE_SCALAR && root->value.type == SL_V_NULL)
		root = NULL; /* an empty file, or only comments */
	if (root && root->kind != SL_NODE_MAP) {
		problem(&L, root, "%s must be a mapping of settings (%s), not %s", SL_CONFIG_NAME, top_keys,
			sl_node_describe(root));
		return -SL_ECONFIG;
	}
	for (size_t i = 0; root && i < root->n; i++) {
		const struct sl_node *key = root->pairs[i].key, *val = root->pairs[i].value;
		const char *k = key->kind == SL_NODE_SCALAR ? key->text : "";
		if (strcmp(k, "gpu") == 0)
			load_gpu(&L, val);
		else if (strcmp(k, "gpus") == 0)
			c->num_gpus = whole(&L, val, "gpus", 1, 65536);
		else if (strcmp(k, "headroom") == 0)
			load_headroom(&L, val);
		else if (strcmp(k, "host_memory") == 0)
			load_host_memory(&L, val);
		else if (strcmp(k, "cores") == 0)
			c->cores = whole(&L, val, "cores", 1, 1u << 20);
		else if (strcmp(k, "fetch") == 0)
			load_fetch(&L, val);
		else if (strcmp(k, "keys") == 0)
			load_keys(&L, val);
		else if (strcmp(k, "models") == 0)
			load_models(&L, val);
		else if (strcmp(k, "rules") == 0)
			load_rules(&L, val);
		else if (strcmp(k, "ignore") == 0)
			load_ignore(&L, val);
		else if (strcmp(k, "program") == 0 || strcmp(k, "config_dir") == 0) {
			/* the program the sweeps run / the folder its configs are in, relative to this file */
			const char *v = scalar(&L, val, k, "a path relative to .sweeplint.yaml");
			const char *abs = v ? (v[0] == '/' ? v : sl_arena_printf(run->arena, "%s/%s", c->dir, v)) : NULL;
			if (strcmp(k, "program") == 0)
				c->program = abs;
			else
				c->config_dir = abs;
		}
		else
			problem(&L, key, "unknown key '%s' (expected %s)", k, top_keys);
	}
	if (L.bad)
		return -SL_ECONFIG;
	*out = c;
	return 0;
}

/* ---- ignored paths ---- */

/* Does pattern p match rel (or a folder that holds it)? */
static bool glob_match(struct sl_arena *a, const char *p, const char *rel)
{
	bool dir_only = false, anchored = false;
	size_t n = strlen(p);
	char *pat = sl_arena_strndup(a, p, n);
	if (n >= 3 && strcmp(pat + n - 3, "/**") == 0) {
		pat[n -= 3] = '\0';
		dir_only = true;
	}
	while (n > 1 && pat[n - 1] == '/') {
		pat[--n] = '\0';
		dir_only = true;
	}
	if (strncmp(pat, "**/", 3) == 0) {
		pat += 3;
	} else if (pat[0] == '/') {
		pat++;
		anchored = true;
	} else if (strchr(pat, '/')) {
		anchored = true;
	}
	size_t len = strlen(rel);
	char *buf = sl_arena_strndup(a, rel, len);
	/* candidate = rel[start..end) with start and end at component boundaries */
	for (size_t start = 0; start < len; start++) {
		if (start > 0 && rel[start - 1] != '/')
			continue;
		if (anchored && start > 0)
			break;
		for (size_t end = start + 1; end <= len; end++) {
			if (end < len && rel[end] != '/')
				continue;
			if (dir_only && end == len)
				continue;
			memcpy(buf, rel + start, end - start);
			buf[end - start] = '\0';
			if (fnmatch(pat, buf, FNM_PATHNAME) == 0)
				return true;
		}
	}
	return false;
}

bool sl_config_ignores(struct sl_arena *a, const struct sl_config *c, const char *file)
{
	return sl_config_ignore_match(a, c, file) != 0;
}

size_t sl_config_ignore_match(struct sl_arena *a, const struct sl_config *c, const char *file)
{
	if (!c || !c->nignore || strcmp(file, "-") == 0)
		return 0;
	/* the file relative to the config's folder (as given when it is not under it) */
	const char *rel = file;
	const char *dir = absolute(a, sl_path_dir(a, file));
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	size_t n = strlen(c->dir);
	if (dir && strcmp(dir, c->dir) == 0)
		rel = base;
	else if (dir && strncmp(dir, c->dir, n) == 0 && (dir[n] == '/' || n == 1))
		rel = sl_arena_printf(a, "%s/%s", dir + (n == 1 ? 1 : n + 1), base);
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	for (size_t i = 0; i < c->nignore; i++)
		if (glob_match(a, c->ignore[i], rel))
			return i + 1;
	return 0;
}

/* ---- overlay ---- */

void sl_config_save_base(struct sl_run *run, struct sl_config_base *base)
{
	base->opt = run->opt;
	base->severity = sl_arena_array(run->arena, sl_nrules, sizeof *base->severity);
	base->severity_set = sl_arena_array(run->arena, sl_nrules, sizeof *base->severity_set);
	memcpy(base->severity, run->severity, sl_nrules * sizeof *base->severity);
	memcpy(base->severity_set, run->severity_set, sl_nrules * sizeof *base->severity_set);
}

void sl_config_apply(struct sl_run *run, const struct sl_config_base *base, const struct sl_config *c)
{
	const struct sl_options *b = &base->opt;
	struct sl_options *o = &run->opt;
	*o = *b;
	if (!o->gpu && c)
		o->gpu = c->gpu;
	if (!o->num_gpus && c)
		o->num_gpus = c->num_gpus;
	if (!o->host_memory && c)
		o->host_memory = c->host_memory;
	if (!o->cores && c)
		o->cores = c->cores;
	o->fetch = b->fetch || (c && c->fetch); /* --fetch, or the project opts in */
	if (!(o->headroom > 0))
		o->headroom = c && c->headroom > 0 ? c->headroom : SL_DEFAULT_HEADROOM;
	o->project = c ? c->path : NULL;
	o->keys = c ? c->keys : NULL;
	o->model_aliases = c ? c->models : NULL;
	if (!o->program && c)
		o->program = c->program;
	if (!o->config_dir && c)
		o->config_dir = c->config_dir;
	o->nmodel_aliases = c ? c->nmodels : 0;
	run->prepared = false; /* the GPU and the key map may have changed: sl_run_prepare() again */

	for (size_t i = 0; i < sl_nrules; i++) {
		run->severity[i] = base->severity_set[i] ? base->severity[i] : sl_rules[i].severity;
		run->severity_set[i] = base->severity_set[i];
	}
	for (size_t i = 0; c && i < c->nrules; i++) {
		size_t k = (size_t)(c->rules[i].rule - sl_rules);
		if (base->severity_set[k])
			continue; /* the command line wins */
		run->severity[k] = c->rules[i].severity;
		run->severity_set[k] = true;
	}
}
