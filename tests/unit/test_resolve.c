/*
 * test_resolve: the resolution order of sl_model_resolve (docs/models.md):
 * the hub cache folder chosen from the environment as huggingface_hub
 * does, a fake cache made in a temporary HOME (refs/main → snapshot), the
 * cache before the catalog, ids that are not Hub ids never looked up, and
 * unknown values staying unknown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"

struct fx {
	struct sl_arena *a;
	struct sl_diags d;
	struct sl_catalog *c;
	char home[64];
	const char *hub;
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void mkdirs(struct sl_arena *a, const char *path)
{
	char *p = sl_arena_strdup(a, path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0700);
			*s = '/';
		}
	mkdir(p, 0700);
}

/* A cached repo: refs/main → rev, and snapshots/rev/config.json when config is not NULL. */
static void cache_repo(struct fx *f, const char *folder, const char *rev, const char *config)
{
	const char *repo = sl_arena_printf(f->a, "%s/%s", f->hub, folder);
	mkdirs(f->a, sl_arena_printf(f->a, "%s/refs", repo));
	mkdirs(f->a, sl_arena_printf(f->a, "%s/snapshots/%s", repo, rev));
	write_file(sl_arena_printf(f->a, "%s/refs/main", repo), sl_arena_printf(f->a, "%s\n", rev));
	if (config)
		write_file(sl_arena_printf(f->a, "%s/snapshots/%s/config.json", repo, rev), config);
}

static const char gpt2_two_layers[] =
	"{\"model_type\": \"gpt2\", \"vocab_size\": 50257, \"n_embd\": 768, \"n_layer\": 2, \"n_head\": 12}";

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	f->a = sl_arena_new();
	sl_diags_init(&f->d, f->a);
	snprintf(f->home, sizeof f->home, "/tmp/sl-resolve-XXXXXX");
	if (!mkdtemp(f->home) || sl_catalog_load(f->a, &f->c, &f->d) != 0)
		return -1;
	f->hub = sl_hf_cache_dir(f->a, NULL, NULL, NULL, f->home);
	mkdirs(f->a, f->hub);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->home);
	int rc = system(cmd);
	sl_arena_free(f->a);
	free(f);
	return rc == 0 ? 0 : -1;
}

/* huggingface_hub constants.py: HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else ~ */
static void test_cache_dir_order(void **state)
{
	struct fx *f = *state;
	assert_string_equal(sl_hf_cache_dir(f->a, "/c", "/h", "/x", "/home/u"), "/c");
	assert_string_equal(sl_hf_cache_dir(f->a, "", "/h", "/x", "/home/u"), "/h/hub");
	assert_string_equal(sl_hf_cache_dir(f->a, NULL, NULL, "/x", "/home/u"), "/x/huggingface/hub");
	assert_string_equal(sl_hf_cache_dir(f->a, NULL, "", "", "/home/u"), "/home/u/.cache/huggingface/hub");
	assert_null(sl_hf_cache_dir(f->a, NULL, NULL, NULL, NULL));
}

static void test_cache_before_catalog(void **state)
{
	struct fx *f = *state;
	cache_repo(f, "models--gpt2", "0123abcd", gpt2_two_layers);
	struct sl_resolve_opts o = {.hf_cache = f->hub};
	const struct sl_model *m = sl_model_resolve(f->a, f->c, "gpt2", &o, &f->d);
	assert_non_null(m);
	assert_string_equal(m->resolved_by, "hf-cache");
	assert_int_equal(m->arch.layers, 2);
	assert_non_null(strstr(m->resolved_from, "/models--gpt2/snapshots/0123abcd/config.json"));
	/* without the cache the catalog answers, with the published 12 layers */
	m = sl_model_resolve(f->a, f->c, "gpt2", &(struct sl_resolve_opts){0}, &f->d);
	assert_non_null(m);
	assert_string_equal(m->resolved_by, "catalog");
	assert_int_equal(m->arch.layers, 12);
	assert_int_equal(f->d.n, 0);
}

static void test_org_folder_name(void **state)
{
	struct fx *f = *state;
	cache_repo(f, "models--acme--tiny", "r1", gpt2_two_layers);
	const char *cfg = sl_hf_cache_config(f->a, f->hub, "acme/tiny");
	assert_non_null(cfg);
	assert_non_null(strstr(cfg, "/models--acme--tiny/snapshots/r1/config.json"));
	assert_null(sl_hf_cache_config(f->a, f->hub, "acme/other"));
}

static void test_stale_ref_and_bad_config(void **state)
{
	struct fx *f = *state;
	cache_repo(f, "models--acme--stale", "missing", NULL);
	assert_null(sl_hf_cache_config(f->a, f->hub, "acme/stale"));
	struct sl_resolve_opts o = {.hf_cache = f->hub};
	assert_null(sl_model_resolve(f->a, f->c, "acme/stale", &o, &f->d));
	/* a cached config sweeplint cannot read: passed over quietly, the catalog answers */
	cache_repo(f, "models--t5-small", "r2", "{\"model_type\": \"not_a_family\"}");
	const struct sl_model *m = sl_model_resolve(f->a, f->c, "t5-small", &o, &f->d);
	assert_non_null(m);
	assert_string_equal(m->resolved_by, "catalog");
	assert_int_equal(f->d.n, 0);
}

static void test_not_hub_ids(void **state)
{
	struct fx *f = *state;
	cache_repo(f, "models--acme--tiny", "r1", gpt2_two_layers);
	static const char *const bad[] = {"acme/../acme/tiny", "a/b/c", ".hidden", "-x/y", "acme/", "/acme", "ac me/x", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_null(sl_hf_cache_config(f->a, f->hub, bad[i]));
}

static void test_explicit_config(void **state)
{
	struct fx *f = *state;
	const struct sl_model *m = sl_model_resolve(f->a, f->c, "fixtures/configs/qwen2", &(struct sl_resolve_opts){0}, &f->d);
	assert_non_null(m);
	assert_string_equal(m->resolved_by, "config");
	assert_string_equal(m->resolved_from, "fixtures/configs/qwen2/config.json");
	/* relative to the sweep's folder */
	m = sl_model_resolve(f->a, f->c, "../configs/qwen2", &(struct sl_resolve_opts){.base_dir = "fixtures/resolve"}, &f->d);
	assert_non_null(m);
	assert_string_equal(m->resolved_by, "config");
	/* a path that does not parse is reported, not passed over */
	assert_null(sl_model_resolve(f->a, f->c, "fixtures/configs/bad/unknown-type.json", &(struct sl_resolve_opts){0}, &f->d));
	assert_int_equal(f->d.n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cache_dir_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_before_catalog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_org_folder_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_ref_and_bad_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_hub_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explicit_config, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
