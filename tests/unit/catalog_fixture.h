/*
 * catalog_fixture: the cmocka setup/teardown of the unit tests that estimate with the bundled
 * catalog and calibration (test_estimate, test_peft, test_zero): one arena per group, the catalog
 * and rules/calibration.yaml loaded once into struct env. Included once by a test file: the
 * definitions are its own.
 */
#ifndef SWEEPLINT_TESTS_CATALOG_FIXTURE_H
#define SWEEPLINT_TESTS_CATALOG_FIXTURE_H

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"

struct env {
	struct sl_arena *arena;
	struct sl_catalog *cat;
	struct sl_calib calib;
};

static int catalog_setup(void **state)
{
	static struct env e;
	e.arena = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, e.arena);
	if (sl_catalog_load(e.arena, &e.cat, &d) != 0 || sl_calib_load(e.arena, &e.calib, &d) != 0)
		return -1;
	*state = &e;
	return 0;
}

static int catalog_teardown(void **state)
{
	struct env *e = *state;
	sl_arena_free(e->arena);
	return 0;
}

#endif
