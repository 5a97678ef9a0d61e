/*
 * arena_fixture: the cmocka setup/teardown of the unit tests that share one
 * arena A and one diagnostics list D per test (test_frameworks, test_registry,
 * test_trainer). Included once by a test file: the definitions are its own.
 */
#ifndef SWEEPLINT_TESTS_ARENA_FIXTURE_H
#define SWEEPLINT_TESTS_ARENA_FIXTURE_H

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"

static struct sl_arena *A;
static struct sl_diags D;

static int setup(void **state)
{
	(void)state;
	A = sl_arena_new();
	sl_diags_init(&D, A);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sl_arena_free(A);
	return 0;
}

#endif
