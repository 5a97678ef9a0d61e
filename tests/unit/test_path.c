/* test_path: the file-name helpers and the containment rule of src/base/path.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/path.h"

static void test_path_dir(void **state)
{
	(void)state;
	struct sl_arena *a = sl_arena_new();
	assert_string_equal(sl_path_dir(a, "a/b/c.yaml"), "a/b");
	assert_string_equal(sl_path_dir(a, "c.yaml"), ".");
	assert_string_equal(sl_path_dir(a, "/c.yaml"), "/");
	assert_string_equal(sl_path_dir(a, "/a/c.yaml"), "/a");
	sl_arena_free(a);
}

static void test_path_tidy(void **state)
{
	(void)state;
	struct sl_arena *a = sl_arena_new();
	assert_string_equal(sl_path_tidy(a, "a/./b/../c"), "a/c");
	assert_string_equal(sl_path_tidy(a, "../a/../../b"), "../../b");
	assert_string_equal(sl_path_tidy(a, "/../x"), "/x");
	assert_string_equal(sl_path_tidy(a, "./"), ".");
	/* no bound on the parts (a fixed 64 returned a path of 65 parts untidied) */
	char deep[400] = "";
	for (int i = 0; i < 100; i++)
		strcat(deep, "d/");
	strcat(deep, "../x");
	const char *t = sl_path_tidy(a, deep);
	assert_int_equal(strlen(t), 99 * 2 + 1);
	assert_string_equal(t + strlen(t) - 3, "d/x");
	sl_arena_free(a);
}

/* A scratch tree: TMP/home, TMP/victim/secret.yml, TMP/repo/.git, TMP/repo/sub/.sweeplint.yaml, links out. */
struct tree {
	char root[256];
	char *old_home;
};

static void mk(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void tree_make(struct tree *t)
{
	char tmpl[] = "/tmp/sweeplint-test-path-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	char *real = realpath(tmpl, NULL);
	snprintf(t->root, sizeof t->root, "%s", real);
	free(real);
	char p[512];
#define AT(fmt) (snprintf(p, sizeof p, "%s/" fmt, t->root), p)
	assert_int_equal(mkdir(AT("home"), 0755), 0);
	assert_int_equal(mkdir(AT("victim"), 0755), 0);
	mk(AT("victim/secret.yml"), "token: x\n");
	assert_int_equal(mkdir(AT("repo"), 0755), 0);
	assert_int_equal(mkdir(AT("repo/.git"), 0755), 0);
	assert_int_equal(mkdir(AT("repo/sub"), 0755), 0);
	mk(AT("repo/sub/.sweeplint.yaml"), "");
	mk(AT("repo/sub/cfg.yml"), "a: 1\n");
	assert_int_equal(symlink("../../victim/secret.yml", AT("repo/sub/out.yml")), 0);
	assert_int_equal(symlink("../victim", AT("repo/vdir")), 0);
	assert_int_equal(symlink("sub/cfg.yml", AT("repo/in.yml")), 0);
	assert_int_equal(mkdir(AT("loose"), 0755), 0);
	assert_int_equal(mkdir(AT("loose/a"), 0755), 0);
	assert_int_equal(mkdir(AT("cfgonly"), 0755), 0);
	assert_int_equal(mkdir(AT("cfgonly/a"), 0755), 0);
	mk(AT("cfgonly/.sweeplint.yaml"), "");
	assert_int_equal(mkdir(AT("home/.git"), 0755), 0);
	assert_int_equal(mkdir(AT("home/proj"), 0755), 0);
	const char *h = getenv("HOME");
	t->old_home = h ? strdup(h) : NULL;
	assert_int_equal(setenv("HOME", AT("home"), 1), 0);
#undef AT
}

static void tree_free(struct tree *t)
{
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->root);
	assert_int_equal(system(cmd), 0);
	if (t->old_home) {
		setenv("HOME", t->old_home, 1);
		free(t->old_home);
	} else {
		unsetenv("HOME");
	}
}

static const char *at(struct sl_arena *a, const struct tree *t, const char *rel)
{
	return sl_arena_printf(a, "%s/%s", t->root, rel);
}

static void test_project_root(void **state)
{
	(void)state;
	struct tree t;
	tree_make(&t);
	struct sl_arena *a = sl_arena_new();
	/* the repository root wins over a nearer .sweeplint.yaml */
	assert_string_equal(sl_project_root(a, at(a, &t, "repo/sub")), at(a, &t, "repo"));
	assert_string_equal(sl_project_root(a, at(a, &t, "repo")), at(a, &t, "repo"));
	/* no repository: the nearest .sweeplint.yaml, else the folder itself */
	assert_string_equal(sl_project_root(a, at(a, &t, "cfgonly/a")), at(a, &t, "cfgonly"));
	assert_string_equal(sl_project_root(a, at(a, &t, "loose/a")), at(a, &t, "loose/a"));
	/* a repository at $HOME (dotfiles) makes no project of the home folder */
	assert_string_equal(sl_project_root(a, at(a, &t, "home/proj")), at(a, &t, "home/proj"));
	/* a folder that does not exist has no root */
	assert_null(sl_project_root(a, at(a, &t, "nowhere")));
	sl_arena_free(a);
	tree_free(&t);
}

static void test_contain(void **state)
{
	(void)state;
	struct tree t;
	tree_make(&t);
	struct sl_arena *a = sl_arena_new();
	const char *root = sl_project_root(a, at(a, &t, "repo/sub"));
	const char *real = NULL;
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "repo/sub/cfg.yml"), &real), SL_CONTAIN_INSIDE);
	assert_string_equal(real, at(a, &t, "repo/sub/cfg.yml"));
	/* a link inside the project to a file inside it: read, as its target */
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "repo/in.yml"), &real), SL_CONTAIN_INSIDE);
	assert_string_equal(real, at(a, &t, "repo/sub/cfg.yml"));
	/* `..`, an absolute path, a link to a file out, a path through a linked folder out */
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "repo/sub/../../victim/secret.yml"), &real),
			 SL_CONTAIN_OUTSIDE);
	assert_null(real);
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "victim/secret.yml"), NULL), SL_CONTAIN_OUTSIDE);
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "repo/sub/out.yml"), NULL), SL_CONTAIN_OUTSIDE);
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "repo/vdir/secret.yml"), NULL), SL_CONTAIN_OUTSIDE);
	/* a file outside that does not exist reads as outside too (no answer says whether it exists) */
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "victim/none.yml"), NULL), SL_CONTAIN_OUTSIDE);
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "repo/vdir/none/deeper.yml"), NULL), SL_CONTAIN_OUTSIDE);
	assert_int_equal(sl_path_contain(a, root, at(a, &t, "repo/none.yml"), NULL), SL_CONTAIN_MISSING);
	/* a sibling whose name starts with the root's is not inside it */
	assert_false(sl_path_inside("/a/repo", "/a/repo2/x"));
	assert_true(sl_path_inside("/a/repo", "/a/repo"));
	assert_true(sl_path_inside("/", "/x"));
	assert_false(sl_path_inside("", "/x"));
	assert_true(sl_path_inside(NULL, "/x"));
	/* relative paths are taken from the working folder */
	char *cwd = getcwd(NULL, 0);
	assert_int_equal(chdir(at(a, &t, "repo/sub")), 0);
	assert_int_equal(sl_path_contain(a, root, "cfg.yml", NULL), SL_CONTAIN_INSIDE);
	assert_int_equal(sl_path_contain(a, root, "../../victim/secret.yml", NULL), SL_CONTAIN_OUTSIDE);
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	assert_string_equal(sl_path_refusal(a, "../x.yml", "/r"), "../x.yml is outside the project (/r): not read");
	sl_arena_free(a);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_dir),
		cmocka_unit_test(test_path_tidy),
		cmocka_unit_test(test_project_root),
		cmocka_unit_test(test_contain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
