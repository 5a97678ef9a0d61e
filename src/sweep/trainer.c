/* trainer: trainer-config overlay — load YAML/JSON configs, pick a section, flatten to dotted keys. */
#include "sweeplint/trainer.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/json_bound.h"
#include "sweeplint/path.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"


static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void flatten(struct sl_arena *a, struct sl_trainer *t, const struct sl_node *n, const char *prefix,
		    size_t *cap, unsigned depth)
{
	if (!n || depth > 64)
		return;
	if (n->kind == SL_NODE_MAP) {
		for (size_t i = 0; i < n->n; i++) {
			const struct sl_node *k = n->pairs[i].key;
			if (k->kind != SL_NODE_SCALAR)
				continue;
			const char *key = *prefix ? sl_arena_printf(a, "%s.%s", prefix, k->text) : k->text;
			flatten(a, t, n->pairs[i].value, key, cap, depth + 1);
		}
		return;
	}
	if (!*prefix)
		return;
	if (t->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		t->entries = sl_arena_grow(a, t->entries, t->n, nc, sizeof *t->entries);
		*cap = nc;
	}
	struct sl_cfg_entry *e = &t->entries[t->n++];
	e->key = prefix;
	e->node = n;
	e->is_auto = n->kind == SL_NODE_SCALAR && strcmp(n->text, "auto") == 0 && n->style != SL_STYLE_PLAIN;
	/* DeepSpeed writes "auto" quoted; a plain auto in YAML (axolotl `bf16: auto`) is a value */
	if (t->is_json && n->kind == SL_NODE_SCALAR && strcmp(n->text, "auto") == 0)
		e->is_auto = true;
}

static void config_diag(struct sl_diags *diags, const struct sl_source *src, size_t off, const char *fmt,
			const char *arg)
{
	sl_diags_add(diags, "config", SL_SEV_ERROR, src, sl_source_span(src, off, off), fmt, arg);
}

/* JSON that libyaml cannot read (tabs in odd places, say) still gets jansson's verdict and position */
static int check_json(struct sl_arena *a, const struct sl_source *src, struct sl_diags *diags)
{
	json_error_t err;
	json_t *j = sl_json_loadb_bounded(src->bytes, src->len, 0, SL_JSON_MAX_VALUES, &err);
	if (!j) {
		size_t line = err.line > 0 ? (size_t)err.line : 1;
		size_t off = line <= src->nlines ? src->line_start[line - 1] : src->len;
		if (err.column > 0) {
			/* jansson's column counts characters of the line */
			size_t col = (size_t)err.column - 1, i = off;
			while (col > 0 && i < src->len && src->bytes[i] != '\n') {
				i++;
				while (i < src->len && ((unsigned char)src->bytes[i] & 0xC0) == 0x80)
					i++;
				col--;
			}
			off = i;
		}
		config_diag(diags, src, off, "invalid JSON: %s", sl_json_error_what(a, &err));
		return -SL_EPARSE;
	}
	bool obj = json_is_object(j);
	json_decref(j);
	if (!obj) {
		config_diag(diags, src, 0, "%s", "a trainer config must be a JSON object");
		return -SL_EPARSE;
	}
	return 0;
}

static int load_source(struct sl_arena *a, struct sl_source *src, const char *section,
		       const struct sl_scalar_resolver *res, struct sl_diags *diags, struct sl_trainer **out)
{
	const char *path = src->path;
	*out = NULL;
	struct sl_trainer *t = sl_arena_alloc(a, sizeof *t);
	t->path = src->path;
	t->section = section ? sl_arena_strdup(a, section) : NULL;
	t->src = src;
	t->is_json = ends_with(path, ".json");
	if (t->is_json) {
		src->json_lines = true;
		int rc = check_json(a, src, diags);
		if (rc < 0)
			return rc;
	}
	/* JSON is read through libyaml too, so every value keeps its position */
	struct sl_diags yd;
	sl_diags_init(&yd, a);
	const struct sl_ydoc *doc = sl_ydoc_parse(a, src, res, &yd);
	t->doc = doc;
	if (!doc->ok) {
		for (size_t i = 0; i < yd.n; i++) {
			struct sl_diag *g = sl_diags_add(diags, "config", SL_SEV_ERROR, src, yd.v[i].span, "%s",
							 yd.v[i].message);
			(void)g;
		}
		return -SL_EPARSE;
	}
	const struct sl_node *root = doc->root;
	if (!root || root->kind != SL_NODE_MAP) {
		config_diag(diags, src, root ? root->span.start : 0, "a trainer config must be a mapping, not %s",
			    sl_node_describe(root));
		return -SL_EPARSE;
	}
	if (section) {
		const struct sl_node *sec = sl_map_get(root, section);
		if (!sec) {
			struct sl_buf names;
			sl_buf_init(&names, a);
			for (size_t i = 0; i < root->n && i < 12; i++)
				if (root->pairs[i].key->kind == SL_NODE_SCALAR &&
				    root->pairs[i].value->kind == SL_NODE_MAP)
					sl_buf_addf(&names, "%s%s", names.len ? ", " : "", root->pairs[i].key->text);
			sl_diags_add(diags, "config", SL_SEV_ERROR, src, root->span,
				     "section \"%s\" not found in %s (sections: %s)", section, src->display,
				     names.len ? names.buf : "none");
			return -SL_EPARSE; /* the file exists: its content lacks the section */
		}
		if (sec->kind != SL_NODE_MAP) {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src, sec->span,
				     "section \"%s\" must be a mapping, not %s", section, sl_node_describe(sec));
			return -SL_EPARSE;
		}
		root = sec;
	}
	t->is_deepspeed = sl_map_get(root, "zero_optimization") || sl_map_get(root, "train_micro_batch_size_per_gpu") ||
			  (t->is_json && (sl_map_get(root, "fp16") || sl_map_get(root, "bf16")) &&
			   sl_map_get(root, "gradient_accumulation_steps"));
	size_t cap = 0;
	flatten(a, t, root, "", &cap, 0);
	*out = t;
	return 0;
}

int sl_trainer_load_bytes(struct sl_arena *a, const char *path, const char *section, const char *bytes,
			  size_t len, const struct sl_scalar_resolver *res, struct sl_diags *diags,
			  struct sl_trainer **out)
{
	return load_source(a, sl_source_from_bytes(a, path, bytes, len), section, res, diags, out);
}

int sl_trainer_load(struct sl_arena *a, const char *spec, const char *base_dir,
		    const struct sl_scalar_resolver *res, struct sl_diags *diags, struct sl_trainer **out)
{
	return sl_trainer_load_in(a, spec, base_dir, NULL, res, diags, out, NULL);
}

int sl_trainer_load_in(struct sl_arena *a, const char *spec, const char *base_dir, const char *root,
		       const struct sl_scalar_resolver *res, struct sl_diags *diags, struct sl_trainer **out,
		       const char **why)
{
	*out = NULL;
	const char *path = spec, *section = NULL;
	struct stat st;
	if (stat(spec, &st) != 0) {
		const char *colon = strrchr(spec, ':');
		if (colon && colon != spec && colon[1]) {
			path = sl_arena_strndup(a, spec, (size_t)(colon - spec));
			section = colon + 1;
		}
	}
	if (base_dir && path[0] != '/' && stat(path, &st) != 0) {
		const char *rel = sl_arena_printf(a, "%s/%s", base_dir, path);
		if (stat(rel, &st) == 0)
			path = rel;
	}
	const char *real = NULL;
	if (root && sl_path_contain(a, root, path, &real) == SL_CONTAIN_OUTSIDE) {
		if (why)
			*why = sl_path_refusal(a, path, root);
		return -SL_EOUTSIDE;
	}
	int err = 0;
	struct sl_source *src = sl_source_read(a, path, SL_MAX_INPUT_BYTES, &err);
	if (!src) {
		struct sl_source *name = sl_source_from_bytes(a, path, "", 0);
		sl_diags_add(diags, "config", SL_SEV_ERROR, name, sl_source_span(name, 0, 0),
			     "cannot read trainer config: %s",
			     err == EFBIG ? "larger than the " SL_MAX_INPUT_MIB " MiB limit" : err == EISDIR ? "is a directory" : sl_source_strerror(err));
		return err == ENOENT ? -SL_ENOENT : -SL_EIO;
	}
	return load_source(a, src, section, res, diags, out);
}

const struct sl_cfg_entry *sl_trainer_get(const struct sl_trainer *t, const char *key)
{
	for (size_t i = t->n; i-- > 0;)
		if (strcmp(t->entries[i].key, key) == 0)
			return &t->entries[i];
	return NULL;
}
