/*
 * resolve: a sweep's model value → a model, in the documented order
 * (docs/models.md "Resolving a model value"): an explicit local config, the
 * Hugging Face cache of this machine, the catalog, the architecture table by
 * name, the opt-in download (hub.h), else unknown. The result is an arena copy that says how it resolved
 * (resolved_by, resolved_from, resolved_note). Nothing here reads the
 * environment: the CLI passes the cache folder (sl_hf_cache_dir).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/hub.h"
#include "sweeplint/models.h"
#include "sweeplint/path.h"
#include "sweeplint/source.h"

static bool set(const char *s)
{
	return s && *s;
}

const char *sl_hf_cache_dir(struct sl_arena *a, const char *hf_hub_cache, const char *hf_home,
			    const char *xdg_cache_home, const char *home)
{
	/* huggingface_hub constants.py: HF_HUB_CACHE defaults to HF_HOME/hub, HF_HOME to XDG_CACHE_HOME/huggingface */
	if (set(hf_hub_cache))
		return sl_arena_strdup(a, hf_hub_cache);
	if (set(hf_home))
		return sl_arena_printf(a, "%s/hub", hf_home);
	if (set(xdg_cache_home))
		return sl_arena_printf(a, "%s/huggingface/hub", xdg_cache_home);
	if (set(home))
		return sl_arena_printf(a, "%s/.cache/huggingface/hub", home);
	return NULL;
}

/* A Hub repo id: NAME or ORG/NAME of [A-Za-z0-9._-], no part starting with '.' or '-', no "..". */
static bool is_hub_id(const char *s)
{
	size_t parts = 0, len = 0;
	for (const char *p = s;; p++) {
		if (*p == '/' || *p == '\0') {
			if (len == 0 || len > 96)
				return false;
			parts++;
			if (*p == '\0')
				break;
			len = 0;
			continue;
		}
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			  *p == '_' || *p == '.' || *p == '-';
		if (!ok || (len == 0 && (*p == '.' || *p == '-')) || (p[0] == '.' && p[1] == '.'))
			return false;
		len++;
	}
	return parts <= 2;
}

static bool is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *sl_hf_cache_config(struct sl_arena *a, const char *hf_cache, const char *id)
{
	if (!set(hf_cache) || !id || !is_hub_id(id))
		return NULL;
	/* models--ORG--NAME: '/' becomes "--" (huggingface_hub repo_folder_name) */
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_addf(&b, "%s/models--", hf_cache);
	for (const char *p = id; *p; p++) {
		if (*p == '/')
			sl_buf_adds(&b, "--");
		else
			sl_buf_add(&b, p, 1);
	}
	const char *repo = b.buf;

	/* refs/main holds the commit whose snapshot is current: read only from a regular file of at most
	 * 127 bytes (O_NONBLOCK, fstat: a FIFO there never blocks the run) */
	char hash[128];
	int err = 0;
	struct sl_source *ref = sl_source_read(a, sl_arena_printf(a, "%s/refs/main", repo), sizeof hash - 1, &err);
	if (!ref)
		return NULL;
	size_t n = ref->len;
	memcpy(hash, ref->bytes, n);
	while (n && (hash[n - 1] == '\n' || hash[n - 1] == '\r' || hash[n - 1] == ' '))
		n--;
	hash[n] = '\0';
	if (!n || strchr(hash, '/') || strstr(hash, ".."))
		return NULL;
	const char *cfg = sl_arena_printf(a, "%s/snapshots/%s/config.json", repo, hash);
	return is_file(cfg) ? cfg : NULL;
}

/* A value written as a path (not a bare name that happens to exist here). */
static bool looks_like_path(const char *s)
{
	return s[0] == '/' || s[0] == '.' || s[0] == '~' || strstr(s, "config.json") != NULL;
}

const char *sl_model_sizes_str(struct sl_arena *a, const struct sl_model *m)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < m->nsizes; i++) {
		uint64_t p = sl_arch_params(&m->sizes[i]->arch);
		sl_buf_addf(&b, "%s%s %.*f%s", i ? ", " : "", m->sizes[i]->name, p >= 1000000000ull ? 1 : 0,
			    p >= 1000000000ull ? (double)p / 1e9 : (double)p / 1e6, p >= 1000000000ull ? "B" : "M");
	}
	return b.buf ? b.buf : "";
}

static struct sl_model *copy(struct sl_arena *a, const struct sl_model *m, const char *by, const char *from)
{
	struct sl_model *c = sl_arena_alloc(a, sizeof *c);
	*c = *m;
	c->resolved_by = by;
	c->resolved_from = from;
	return c;
}

const struct sl_model *sl_model_resolve(struct sl_arena *a, const struct sl_catalog *c, const char *value,
					const struct sl_resolve_opts *o, struct sl_diags *diags)
{
	if (!value || !*value)
		return NULL;
	struct sl_diags quiet;
	sl_diags_init(&quiet, a);

	/* 1. an explicit config: a local folder or config.json, as given or beside the sweep */
	struct stat st;
	const char *path = value;
	if (o && o->base_dir && value[0] != '/' && stat(value, &st) != 0)
		path = sl_arena_printf(a, "%s/%s", o->base_dir, value);
	const char *root = o ? o->root : NULL;
	bool refused = false;
	if (stat(path, &st) == 0 && root) {
		/* the folder and the config.json read in it, both inside the project, or neither is read (path.h) */
		const char *inner = sl_arena_printf(a, "%s/config.json", path);
		refused = sl_path_contain(a, root, path, NULL) == SL_CONTAIN_OUTSIDE ||
			  (S_ISDIR(st.st_mode) && sl_path_contain(a, root, inner, NULL) == SL_CONTAIN_OUTSIDE);
		if (refused && o->refused)
			*o->refused = sl_path_refusal(a, path, root);
	}
	if (!refused && stat(path, &st) == 0) {
		/* written as a path, or a folder transformers would load (it holds a config.json) */
		bool explicit = looks_like_path(value) || !S_ISDIR(st.st_mode) ||
				is_file(sl_arena_printf(a, "%s/config.json", path));
		const struct sl_model *m = sl_model_from_config_in(a, path, root, explicit ? diags : &quiet);
		if (m)
			return copy(a, m, "config", m->source);
		if (explicit)
			return NULL;
	}
	/* a path outside the project goes on as one that is not here: the cache, the catalog, the name */

	/* 2. the Hugging Face cache of this machine */
	const char *cached = sl_hf_cache_config(a, o ? o->hf_cache : NULL, value);
	if (cached) {
		const struct sl_model *m = sl_model_from_config(a, cached, &quiet);
		if (m) {
			struct sl_model *r = copy(a, m, "hf-cache", cached);
			r->name = value;
			r->hf_id = value;
			return r;
		}
	}

	/* 3. the catalog by name, HF id or alias */
	const struct sl_model *m = sl_catalog_find_model(c, value);
	if (m)
		return copy(a, m, "catalog", sl_arena_printf(a, "rules/models.yaml#%s", m->name));

	/* 4. the architecture table by name: a Vision Transformer as timm or torchvision names it (vitname.c),
	 * else a fine-tune by the base it names */
	const struct sl_model *vit = sl_vit_resolve(a, c, value);
	if (vit)
		return vit;
	struct sl_name_match nm;
	sl_catalog_match_name(a, c, value, &nm);
	if (nm.model && !nm.other) {
		bool table = nm.model >= c->archs && nm.model < c->archs + c->narchs;
		struct sl_model *r = copy(a, nm.model, "name",
					  sl_arena_printf(a, "rules/%s.yaml#%s", table ? "architectures" : "models", nm.model->name));
		r->quant = nm.quant;
		r->resolved_note = sl_arena_printf(a, "resolved by name as %s%s; give its config.json to be exact%s",
						   nm.model->name,
						   nm.quant == SL_QUANT_NF4    ? " with a 4-bit base, as the id says"
						   : nm.quant == SL_QUANT_INT8 ? " with an 8-bit base, as the id says"
									       : "",
						   nm.gguf ? "; a GGUF repack is llama.cpp's format, not trainable as it is "
							     "(transformers dequantises it on load): estimated as its base"
							   : "");
		return r;
	}

	/* 5. opt-in download (--fetch, `fetch: true`): the Hub id's config.json into the cache */
	if (o && o->hub && sl_hub_is_repo_id(value)) {
		const char *why = NULL;
		const char *got = sl_hub_config(o->hub, value, &why);
		const struct sl_model *f = got ? sl_model_from_config(a, got, &quiet) : NULL;
		if (got && !f) /* say why in the unknown-model finding, not at a line of the cached file */
			sl_hub_fail(o->hub, value,
				    sl_arena_printf(a, "the downloaded %s: %s", got,
						    quiet.n ? quiet.v[quiet.n - 1].message : "unusable"));
		if (f) {
			struct sl_model *r = copy(a, f, "fetch", got);
			r->name = value;
			r->hf_id = value;
			return r;
		}
	}
	/* 6. the name gives a series and no size: any of its sizes, the largest as the bound (byname.c);
	 * after --fetch, which reads the real config */
	if (!nm.model && nm.series && nm.nsizes >= 2) {
		const struct sl_model *big = nm.sizes[nm.nsizes - 1];
		struct sl_model *r = copy(a, big, "family", sl_arena_printf(a, "series %s of rules/*.yaml", nm.series));
		r->name = sl_arena_printf(a, "%s (any size)", nm.series);
		r->hf_id = value; /* not the largest's id: the model is only known to be one of the sizes */
		r->quant = nm.quant;
		r->sizes = (const struct sl_model *const *)nm.sizes;
		r->nsizes = nm.nsizes;
		r->resolved_note = sl_arena_printf(a, "any %s size (%s): resolved by name as the %s family, which names no "
						      "size; each combination is judged at every size and gets a verdict "
						      "only where all agree; give its config.json to be exact%s",
						   nm.series, sl_model_sizes_str(a, r), nm.series,
						   nm.quant == SL_QUANT_NF4    ? "; with a 4-bit base, as the id says"
						   : nm.quant == SL_QUANT_INT8 ? "; with an 8-bit base, as the id says"
									       : "");
		return r;
	}

	return NULL;
}
