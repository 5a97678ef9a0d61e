/* test_path: the file-name helpers of src/base/path.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
