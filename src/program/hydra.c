/*
 * hydra: the config a Hydra program composes (@hydra.main(config_path=,
 * config_name=)), read as trainer configs in Hydra's merge order. The
 * primary config's `defaults:` list names one option per config group
 * (`- model: kobart` -> config_path/model/kobart.yaml, placed under the key
 * `model` unless the file says `# @package _global_` or the entry says
 * `group@pkg`), recursively inside group configs; `_self_` places the
 * config's own keys (at the end when absent, as Hydra 1.1+). The sweep's
 * `group=option` arguments choose other options; `override group: option`
 * in a composed config does too (a second pass). A group the sweep varies
 * over several options is not composed: which option a run reads is the
 * sweep's choice, and the sweep parameter naming it is not a model value.
 * `${a.b}` interpolations of one composed key are resolved. Every value
 * keeps its own file:line:col.
 *
 * Bounds (hostile configs, issue 34): each file is read once per run (memo.c)
 * (a config listing /big 63 times, or itself, was parsed per inclusion:
 * 14 s and 1.8 GB for a 1.1 MB one); a config already being composed is not
 * composed again inside itself; at most MAX_DEFAULTS defaults entries are
 * followed and MAX_NOTES notes kept (then one saying how many more); `${a.b}`
 * is looked up in a hash of the composed keys (linear, not E^2: 59 s for
 * 94,500 entries). A file whose realpath is outside the project
 * root (an option `../../x`, a link out of the config folder) is refused
 * with a note, never read (path.h).
 */
#include "sweeplint/program.h"

#include <string.h>
#include <sys/stat.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/path.h"
#include "sweeplint/source.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

#define MAX_FILES 64
#define MAX_DEPTH 6
#define MAX_DEFAULTS 4096            /* defaults entries followed in one composition */
#define MAX_NOTES 32                 /* notes kept from one composition; then a count of the rest */
#define MAX_ENTRIES 16384          /* values composed (a config listed 63 times made 1.9 million; a real
				     * composition holds hundreds): each is served to the evaluator too */

/* A file read for this composition (once): its config, or NULL when it could not be read. */
struct loaded {
	const char *path;
	struct sl_trainer *t;
};

struct compose {
	struct sl_arena *a;
	const char *dir;                   /* config_path, absolute or relative to the working folder */
	const char *root;                  /* the project root: no file outside it is read */
	const struct sl_scalar_resolver *res;
	struct sl_config_memo *memo;       /* the run's files read once (NULL: none) */
	struct sl_hydra_choice *choices;   /* the sweep's first, then `override` entries found */
	size_t nchoices, cap_choices;
	struct sl_trainer **out;
	size_t nout, cap_out;
	const char **notes;
	size_t nnotes, cap_notes;
	size_t nfiles;
	bool found_override;
	struct loaded *files;              /* every file read, once */
	size_t nloaded, cap_loaded;
	const char **stack;                /* the files being composed, outermost first */
	size_t nstack, cap_stack;
	size_t ndefaults;                  /* defaults entries followed so far */
	size_t dropped;                    /* notes past MAX_NOTES */
	size_t nentries;                   /* values emitted */
	const struct sl_trainer **from;    /* out[i]'s file and package */
	const char **pkgs;
	bool full;                         /* MAX_ENTRIES reached */
};

static void note(struct compose *C, const char *s)
{
	if (C->nnotes >= MAX_NOTES) {
		C->dropped++;
		return;
	}
	if (C->nnotes == C->cap_notes) {
		size_t cap = C->cap_notes ? C->cap_notes * 2 : 8;
		C->notes = sl_arena_grow(C->a, C->notes, C->nnotes, cap, sizeof *C->notes);
		C->cap_notes = cap;
	}
	C->notes[C->nnotes++] = s;
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static const struct sl_hydra_choice *choice_of(const struct compose *C, const char *group)
{
	for (size_t i = 0; i < C->nchoices; i++)
		if (strcmp(C->choices[i].group, group) == 0)
			return &C->choices[i];
	return NULL;
}

static void add_choice(struct compose *C, const char *group, const char *option, bool varied)
{
	if (choice_of(C, group))
		return; /* the sweep's choice (first) wins */
	if (C->nchoices == C->cap_choices) {
		size_t cap = C->cap_choices ? C->cap_choices * 2 : 8;
		C->choices = sl_arena_grow(C->a, C->choices, C->nchoices, cap, sizeof *C->choices);
		C->cap_choices = cap;
	}
	C->choices[C->nchoices++] = (struct sl_hydra_choice){.group = group, .option = option, .varied = varied};
}

/* The package a `# @package X` header names ("" for _global_), or NULL when there is none. */
static const char *package_header(struct sl_arena *a, const struct sl_source *src)
{
	for (uint32_t ln = 1; ln <= src->nlines && ln <= 8; ln++) {
		size_t len;
		const char *t = sl_source_line(src, ln, &len);
		const char *p = memmem(t, len, "@package", 8);
		if (!p || t[0] != '#')
			continue;
		p += 8;
		while (p < t + len && (*p == ' ' || *p == '\t'))
			p++;
		size_t n = 0;
		while (p + n < t + len && p[n] != ' ' && p[n] != '\r' && p[n] != '\t')
			n++;
		const char *pkg = sl_arena_strndup(a, p, n);
		if (strcmp(pkg, "_group_") == 0)
			return NULL; /* the group's own package: the default */
		return strcmp(pkg, "_global_") == 0 ? "" : pkg;
	}
	return NULL;
}

/* Append a composed config c (file t at package pkg). */
static void push(struct compose *C, struct sl_trainer *c, const struct sl_trainer *t, const char *pkg)
{
	if (C->nout == C->cap_out) {
		size_t cap = C->cap_out ? C->cap_out * 2 : 8;
		C->out = sl_arena_grow(C->a, C->out, C->nout, cap, sizeof *C->out);
		C->from = sl_arena_grow(C->a, C->from, C->nout, cap, sizeof *C->from);
		C->pkgs = sl_arena_grow(C->a, C->pkgs, C->nout, cap, sizeof *C->pkgs);
		C->cap_out = cap;
	}
	C->from[C->nout] = t;
	C->pkgs[C->nout] = pkg;
	C->out[C->nout++] = c;
}

static void emit(struct compose *C, const struct sl_trainer *t, const char *pkg, const char *how)
{
	/* the same file at the same package again: its later place decides (the last value of a key wins), so
	 * the earlier copy goes (a config listing /big 63 times composes big once) */
	struct sl_trainer *again = NULL;
	for (size_t i = 0; i < C->nout && !again; i++)
		if (C->from[i] == t && C->out[i]->n && strcmp(C->pkgs[i], pkg) == 0) {
			again = C->out[i];
			C->out[i] = sl_arena_alloc(C->a, sizeof *C->out[i]); /* emptied: dropped at the end */
			C->nentries -= again->n;
		}
	if (again && C->nentries + again->n <= MAX_ENTRIES) {
		C->nentries += again->n;
		push(C, again, t, pkg);
		return;
	}
	if (C->nentries + t->n > MAX_ENTRIES) {
		if (!C->full)
			note(C, sl_arena_printf(C->a, "hydra: the composition passes %d values at %s: it and the configs "
						      "after it are not composed",
						MAX_ENTRIES, t->src ? t->src->display : "?"));
		C->full = true;
		return;
	}
	C->nentries += t->n;
	struct sl_trainer *c = sl_arena_alloc(C->a, sizeof *c);
	*c = *t;
	c->entries = sl_arena_array(C->a, t->n ? t->n : 1, sizeof *c->entries);
	c->n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct sl_cfg_entry *e = &t->entries[i];
		if (strcmp(e->key, "defaults") == 0 || strncmp(e->key, "hydra.", 6) == 0)
			continue;
		struct sl_cfg_entry *d = &c->entries[c->n++];
		*d = *e;
		d->how = how;
		if (*pkg)
			d->key = sl_arena_printf(C->a, "%s.%s", pkg, e->key);
	}
	push(C, c, t, pkg);
}

static void compose_file(struct compose *C, const char *group, const char *name, const char *pkg, unsigned depth);

/* One `defaults:` entry of a config in group `group`. */
static void default_entry(struct compose *C, const char *group, const struct sl_node *it, const char *pkg,
			  unsigned depth)
{
	if (it->kind == SL_NODE_SCALAR) {
		/* a config of the same group (or a path from the config folder), merged at this package */
		const char *t = it->text;
		if (t[0] == '/')
			compose_file(C, "", t + 1, pkg, depth + 1);
		else
			compose_file(C, group, t, pkg, depth + 1);
		return;
	}
	if (it->kind != SL_NODE_MAP || it->n != 1 || it->pairs[0].key->kind != SL_NODE_SCALAR)
		return;
	const char *key = it->pairs[0].key->text;
	const struct sl_node *val = it->pairs[0].value;
	bool is_override = strncmp(key, "override ", 9) == 0;
	if (is_override)
		key += 9;
	if (strncmp(key, "optional ", 9) == 0)
		key += 9;
	const char *at = strchr(key, '@');
	const char *gname = at ? sl_arena_strndup(C->a, key, (size_t)(at - key)) : key;
	const char *gpath = gname[0] == '/' ? gname + 1
			  : *group         ? sl_arena_printf(C->a, "%s/%s", group, gname)
					   : gname;
	if (is_override) {
		if (val->kind == SL_NODE_SCALAR && val->value.type != SL_V_NULL && !choice_of(C, gpath)) {
			add_choice(C, gpath, val->text, false);
			C->found_override = true;
		}
		return;
	}
	const struct sl_hydra_choice *ch = choice_of(C, gpath);
	if (ch && ch->varied) {
		note(C, sl_arena_printf(C->a, "hydra: group %s varies over the sweep's values: not composed", gpath));
		return;
	}
	const char *option = ch ? ch->option : NULL;
	if (!option) {
		if (val->kind != SL_NODE_SCALAR || val->value.type == SL_V_NULL || strcmp(val->text, "???") == 0)
			return;
		option = val->text;
	}
	while (option[0] == '/')
		option++;
	/* the package: group@pkg, else the group's path ("callbacks/sample" -> callbacks.sample) */
	const char *gpkg;
	if (at)
		gpkg = strcmp(at + 1, "_global_") == 0 ? "" : at + 1;
	else {
		char *d = sl_arena_strdup(C->a, gpath);
		for (char *c = d; *c; c++)
			if (*c == '/')
				*c = '.';
		gpkg = *pkg ? sl_arena_printf(C->a, "%s.%s", pkg, d) : d;
	}
	compose_file(C, gpath, option, gpkg, depth + 1);
}

/* The config at path, read once per composition (a failure once noted, then NULL). */
static struct sl_trainer *load_once(struct compose *C, const char *path)
{
	for (size_t i = 0; i < C->nloaded; i++)
		if (strcmp(C->files[i].path, path) == 0)
			return C->files[i].t;
	struct sl_trainer *t = NULL;
	const char *why = NULL;
	if (sl_config_memo_load(C->memo, C->a, path, C->res, &t, &why) < 0) {
		note(C, sl_arena_printf(C->a, "hydra: %s not read: %s", path, why));
		t = NULL;
	}
	C->files = sl_arena_reserve(C->a, C->files, C->nloaded, &C->cap_loaded, C->nloaded + 1, sizeof *C->files);
	C->files[C->nloaded++] = (struct loaded){path, t};
	return t;
}

static void compose_file(struct compose *C, const char *group, const char *name, const char *pkg, unsigned depth)
{
	if (depth > MAX_DEPTH || C->nfiles >= MAX_FILES || C->full)
		return;
	const char *rel = *group ? sl_arena_printf(C->a, "%s/%s", group, name) : name;
	const char *path = sl_arena_printf(C->a, "%s/%s.yaml", C->dir, rel);
	if (!is_file(path)) {
		const char *yml = sl_arena_printf(C->a, "%s/%s.yml", C->dir, rel);
		if (!is_file(yml)) {
			note(C, sl_arena_printf(C->a, "hydra: %s.yaml not found under %s", rel, C->dir));
			return;
		}
		path = yml;
	}
	if (sl_path_contain(C->a, C->root, path, NULL) != SL_CONTAIN_INSIDE) {
		note(C, sl_arena_printf(C->a, "hydra: %s", sl_path_refusal(C->a, path, C->root)));
		return;
	}
	for (size_t i = 0; i < C->nstack; i++)
		if (strcmp(C->stack[i], path) == 0) {
			note(C, sl_arena_printf(C->a, "hydra: %s lists itself in its defaults (through %zu file%s): not composed "
						      "again",
						path, C->nstack - i, C->nstack - i == 1 ? "" : "s"));
			return;
		}
	C->nfiles++;
	struct sl_trainer *t = load_once(C, path);
	if (!t)
		return;
	const char *hdr = package_header(C->a, t->src);
	if (hdr)
		pkg = hdr;
	const struct sl_node *defaults = t->doc && t->doc->root ? sl_map_get(t->doc->root, "defaults") : NULL;
	const char *how = *group ? sl_arena_printf(C->a, "Hydra config %s=%s", group, name)
				 : sl_arena_printf(C->a, "Hydra primary config %s", name);
	bool self_done = false;
	C->stack = sl_arena_reserve(C->a, C->stack, C->nstack, &C->cap_stack, C->nstack + 1, sizeof *C->stack);
	C->stack[C->nstack++] = path;
	if (defaults && defaults->kind == SL_NODE_SEQ) {
		for (size_t i = 0; i < defaults->n; i++) {
			const struct sl_node *it = defaults->items[i];
			if (it->kind == SL_NODE_SCALAR && strcmp(it->text, "_self_") == 0) {
				emit(C, t, pkg, how);
				self_done = true;
				continue;
			}
			if (C->ndefaults++ == MAX_DEFAULTS)
				note(C, sl_arena_printf(C->a, "hydra: more than %d defaults entries: the rest (from %s:%u) are "
							      "not composed",
							MAX_DEFAULTS, path, it->span.line));
			if (C->ndefaults > MAX_DEFAULTS)
				continue;
			default_entry(C, group, it, pkg, depth);
		}
	}
	C->nstack--;
	if (!self_done)
		emit(C, t, pkg, how);
}

/* FNV-1a of a key. */
static uint64_t key_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* One composed key: its last entry in merge order and the one before it. */
struct slot {
	const char *key;
	const struct sl_cfg_entry *last, *before;
};

/*
 * `${a.b}` values: the composed value of a.b — the last entry of that key in merge order that is not the
 * entry itself (its node, so the position is where the value is written). One pass builds a hash of the
 * keys (open addressing, twice the entries), one pass resolves: linear in the entries.
 */
static void resolve_interpolations(struct compose *C)
{
	size_t total = 0;
	for (size_t i = 0; i < C->nout; i++)
		total += C->out[i]->n;
	if (!total)
		return;
	size_t cap = 16;
	while (cap < 2 * total)
		cap *= 2;
	struct slot *tab = sl_arena_array(C->a, cap, sizeof *tab);
	for (size_t i = 0; i < C->nout; i++)
		for (size_t k = 0; k < C->out[i]->n; k++) {
			const struct sl_cfg_entry *e = &C->out[i]->entries[k];
			size_t h = (size_t)key_hash(e->key) & (cap - 1);
			while (tab[h].key && strcmp(tab[h].key, e->key) != 0)
				h = (h + 1) & (cap - 1);
			tab[h].key = e->key;
			tab[h].before = tab[h].last;
			tab[h].last = e;
		}
	for (size_t i = 0; i < C->nout; i++)
		for (size_t k = 0; k < C->out[i]->n; k++) {
			struct sl_cfg_entry *e = &C->out[i]->entries[k];
			const char *t = e->node->kind == SL_NODE_SCALAR ? e->node->text : NULL;
			size_t n = t ? strlen(t) : 0;
			if (n < 4 || strncmp(t, "${", 2) != 0 || t[n - 1] != '}' || memchr(t + 2, '$', n - 3) ||
			    memchr(t + 2, ':', n - 3))
				continue;
			const char *ref = sl_arena_strndup(C->a, t + 2, n - 3);
			size_t h = (size_t)key_hash(ref) & (cap - 1);
			while (tab[h].key && strcmp(tab[h].key, ref) != 0)
				h = (h + 1) & (cap - 1);
			if (!tab[h].key)
				continue;
			const struct sl_cfg_entry *to = tab[h].last != e ? tab[h].last : tab[h].before;
			if (to)
				e->node = to->node; /* as resolved so far, as the scan over the configs read it */
		}
}

int sl_hydra_compose(struct sl_arena *a, const char *config_dir, const char *root, const char *config_name,
		     const struct sl_hydra_choice *choices, size_t nchoices, const struct sl_scalar_resolver *res,
		     struct sl_config_memo *memo, struct sl_hydra *out)
{
	memset(out, 0, sizeof *out);
	struct compose C = {.a = a, .dir = config_dir, .root = root, .res = res, .memo = memo};
	for (size_t i = 0; i < nchoices; i++)
		add_choice(&C, choices[i].group, choices[i].option, choices[i].varied);
	compose_file(&C, "", config_name, "", 0);
	if (C.found_override) {
		/* `override` entries change choices made before them: compose again with them known (the files
		 * read stay read) */
		C.nout = 0;
		C.nnotes = 0;
		C.dropped = 0;
		C.nfiles = 0;
		C.ndefaults = 0;
		C.nentries = 0;
		C.full = false;
		C.found_override = false;
		compose_file(&C, "", config_name, "", 0);
	}
	resolve_interpolations(&C);
	if (C.dropped) /* the last note kept gives way to the count of those not kept */
		C.notes[C.nnotes - 1] = sl_arena_printf(a, "hydra: %zu more notes like these", C.dropped + 1);
	size_t w = 0; /* the copies emptied by a later one go */
	for (size_t i = 0; i < C.nout; i++)
		if (C.out[i]->n || !C.from[i]->n)
			C.out[w++] = C.out[i];
	C.nout = w;
	out->configs = C.out;
	out->nconfigs = C.nout;
	out->notes = C.notes;
	out->nnotes = C.nnotes;
	return C.nout ? 0 : -1;
}
