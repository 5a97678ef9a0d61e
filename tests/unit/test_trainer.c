/* test_trainer: trainer-config overlay — sections, flattening, DeepSpeed JSON, errors with positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

#include "arena_fixture.h"

static struct sl_trainer *load(const char *path, const char *section, const char *text, int want_rc)
{
	struct sl_trainer *t = NULL;
	int rc = sl_trainer_load_bytes(A, path, section, text, strlen(text), NULL, &D, &t);
	assert_int_equal(rc, want_rc);
	return t;
}

static void test_seed_sections(void **state)
{
	(void)state;
	/* seed 003's layout: one section per model, training/inference inside */
	const char *text = "xlsum_mt5:\n"
			   "  training:\n"
			   "    per_device_train_batch_size: 1\n"
			   "    gradient_accumulation_steps: 4\n"
			   "  inference:\n"
			   "    batch_size: 2\n"
			   "eenzeenee:\n"
			   "  training:\n"
			   "    per_device_train_batch_size: 4\n";
	struct sl_trainer *t = load("config.yaml", "xlsum_mt5", text, 0);
	assert_int_equal(t->n, 3);
	const struct sl_cfg_entry *e = sl_trainer_get(t, "training.per_device_train_batch_size");
	assert_non_null(e);
	assert_string_equal(e->node->text, "1");
	assert_int_equal(e->node->span.line, 3);
	assert_int_equal(e->node->span.col, 34);
	assert_non_null(sl_trainer_get(t, "inference.batch_size"));
	assert_null(sl_trainer_get(t, "eenzeenee.training.per_device_train_batch_size"));

	/* a section that does not exist names the ones that do; the file exists, so it is its content
	 * (-SL_EPARSE), not a missing file (-SL_ENOENT, which callers take for "not found") */
	assert_null(load("config.yaml", "mt5", text, -SL_EPARSE));
	assert_int_equal(D.n, 1);
	assert_non_null(strstr(D.v[0].message, "xlsum_mt5, eenzeenee"));
}

static void test_deepspeed_json(void **state)
{
	(void)state;
	const char *text = "{\n"
			   "  \"fp16\": {\"enabled\": \"auto\"},\n"
			   "  \"zero_optimization\": {\n"
			   "    \"stage\": 3,\n"
			   "    \"offload_optimizer\": {\"device\": \"cpu\", \"pin_memory\": true}\n"
			   "  },\n"
			   "  \"train_micro_batch_size_per_gpu\": \"auto\"\n"
			   "}";
	struct sl_trainer *t = load("ds_config.json", NULL, text, 0);
	assert_true(t->is_json);
	assert_true(t->is_deepspeed);
	const struct sl_cfg_entry *e = sl_trainer_get(t, "zero_optimization.stage");
	assert_non_null(e);
	assert_false(e->is_auto);
	assert_int_equal(e->node->value.type, SL_V_INT);
	assert_int_equal(e->node->span.line, 4);
	assert_true(sl_trainer_get(t, "fp16.enabled")->is_auto);
	assert_true(sl_trainer_get(t, "train_micro_batch_size_per_gpu")->is_auto);
	assert_string_equal(sl_trainer_get(t, "zero_optimization.offload_optimizer.device")->node->text, "cpu");

	/* a raw U+2028 or NEL in a JSON string ends no line: positions as JSON readers and editors count
	 * (a YAML source counts them as breaks, as PyYAML does) */
	t = load("ds_ls.json", NULL, "{\"note\": \"a\xe2\x80\xa8" "b\xc2\x85" "c\",\n \"zero_optimization\": {\"stage\": 2}}", 0);
	e = sl_trainer_get(t, "zero_optimization.stage");
	assert_non_null(e);
	assert_int_equal(e->node->span.line, 2);
}

static void test_errors_have_positions(void **state)
{
	(void)state;
	/* invalid JSON: jansson's verdict at its line:column */
	assert_null(load("bad.json", NULL, "{\n  \"a\": 1,\n  \"b\": ,\n}", -SL_EPARSE));
	assert_int_equal(D.n, 1);
	assert_string_equal(D.v[0].rule, "config");
	assert_int_equal(D.v[0].span.line, 3);
	assert_non_null(strstr(D.v[0].message, "invalid JSON"));
	/* ... naming the place, never quoting the file (jansson's " near 'TOKEN'": a secret's first bytes) */
	size_t before = D.n;
	assert_null(load("secret.json", NULL, "AKIASECRETTOKEN", -SL_EPARSE));
	assert_int_equal(D.n, before + 1);
	assert_null(strstr(D.v[before].message, "AKIA"));
	assert_null(strstr(D.v[before].message, "near"));
	D.n = before;
	/* bad YAML: libyaml's problem mark (the corpus' `report_to:wandb` case) */
	assert_null(load("bad.yaml", NULL, "a: 1\nreport_to:wandb\nb: 2\n", -SL_EPARSE));
	assert_int_equal(D.n, 2);
	assert_int_equal(D.v[1].span.line, 3);
	/* a root that is not a mapping */
	assert_null(load("list.yaml", NULL, "- 1\n- 2\n", -SL_EPARSE));
	assert_non_null(strstr(D.v[2].message, "must be a mapping"));
}

static void test_plain_auto_is_a_value(void **state)
{
	(void)state;
	/* axolotl writes `bf16: auto`: a setting (bf16 when the GPU has it), not a DeepSpeed placeholder */
	struct sl_trainer *t = load("qlora.yml", NULL, "bf16: auto\nfp16:\nsequence_len: 1024\n", 0);
	assert_false(sl_trainer_get(t, "bf16")->is_auto);
	assert_int_equal(sl_trainer_get(t, "fp16")->node->value.type, SL_V_NULL);
	assert_false(t->is_deepspeed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_seed_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deepspeed_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_have_positions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_auto_is_a_value, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
