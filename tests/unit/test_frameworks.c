/* test_frameworks: rules/frameworks.yaml — it loads, each default reads through the key map, and a
 * framework is recognised by its keys (config, sweep parameter, command option) and command words only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "enumerate_internal.h"
#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/eval.h"
#include "sweeplint/memory.h"
#include "sweeplint/roles.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

#include "arena_fixture.h"

static const struct sl_sweep *sweep(const char *text)
{
	struct sl_source *src = sl_source_from_bytes(A, "sweep.yaml", text, strlen(text));
	struct sl_ydoc *doc = sl_ydoc_parse(A, src, NULL, &D);
	assert_true(doc->ok);
	return sl_sweep_load(A, doc);
}

static size_t defaults(const char *sweep_text, const char *config_text, struct sl_trainer **out)
{
	const struct sl_frameworks *fw = sl_frameworks_new(A, &D);
	assert_non_null(fw);
	const struct sl_trainer *cfg[1];
	size_t ncfg = 0;
	if (config_text) {
		struct sl_trainer *t = NULL;
		assert_int_equal(sl_trainer_load_bytes(A, "cfg.yaml", NULL, config_text, strlen(config_text), NULL, &D, &t), 0);
		cfg[ncfg++] = t;
	}
	return sl_frameworks_defaults(A, fw, sweep(sweep_text), cfg, ncfg, out);
}

static void test_loads_and_maps(void **state)
{
	(void)state;
	assert_non_null(sl_frameworks_new(A, &D));
	assert_int_equal(D.n, 0);
	struct sl_keymap *km = sl_keymap_new(A, &D);
	assert_non_null(km);
	/* every framework's every default is a key the key map reads (a typo there would be silently unused) */
	const char *by[] = {"command:\n  - llamafactory-cli\n  - train\n", "command:\n  - swift\n  - sft\n"};
	for (size_t k = 0; k < sizeof by / sizeof *by; k++) {
		struct sl_trainer *t = NULL;
		assert_int_equal(defaults(by[k], NULL, &t), 1);
		assert_true(t->from_program);
		assert_true(t->n > 0);
		for (size_t i = 0; i < t->n; i++) {
			assert_non_null(t->entries[i].how);
			const struct sl_key_rule *r = sl_keymap_match(km, t->entries[i].key, strlen(t->entries[i].key));
			if (!r)
				fail_msg("rules/frameworks.yaml default %s: no key map rule", t->entries[i].key);
		}
	}
}

static void test_llamafactory_gc_on(void **state)
{
	(void)state;
	struct sl_keymap *km = sl_keymap_new(A, &D);
	struct sl_trainer *t = NULL;
	assert_int_equal(defaults("method: grid\nparameters:\n  lr: {value: 1}\n", "finetuning_type: lora\n", &t), 1);
	const struct sl_cfg_entry *e = sl_trainer_get(t, "disable_gradient_checkpointing");
	assert_non_null(e);
	const struct sl_key_rule *r = sl_keymap_match(km, e->key, strlen(e->key));
	assert_non_null(r);
	assert_int_equal(r->role, SL_ROLE_GRADIENT_CHECKPOINTING);
	struct sl_role_value v;
	const char *why = NULL;
	assert_int_equal(sl_role_value_from_node(A, r->role, r, e->node, &v, &why), 0);
	assert_int_equal(v.u, 1); /* disable_gradient_checkpointing: false = checkpointing on */
	assert_non_null(strstr(e->how, "finetuning_type in cfg.yaml"));
}

static void test_recognised_by(void **state)
{
	(void)state;
	struct sl_trainer *t = NULL;
	/* a sweep parameter, a command option, a command word given as a path */
	assert_int_equal(defaults("parameters:\n  finetuning_type: {values: [lora, full]}\n", NULL, &t), 1);
	assert_int_equal(defaults("command:\n  - python\n  - x.py\n  - --finetuning_type=lora\n", NULL, &t), 1);
	assert_int_equal(defaults("command:\n  - /opt/bin/llamafactory-cli\n  - train\n", NULL, &t), 1);
	assert_int_equal(defaults("parameters:\n  sft_type: {value: lora}\n", NULL, &t), 1);
	assert_int_equal(defaults("parameters:\n  args.finetuning_type: {value: lora}\n", NULL, &t), 1);
	/* nothing of a framework: no defaults */
	assert_int_equal(defaults("parameters:\n  finetuning_type_x: {value: 1}\n  lr: {value: 1}\n", NULL, &t), 0);
	assert_null(t);
	assert_int_equal(defaults("command:\n  - python\n  - llamafactory_cli.py\n", "fine_tuning: true\n", &t), 0);
	assert_int_equal(defaults("program: train.py\n", NULL, &t), 0);
}

/* The settings a sweep runs with: the recognised framework's defaults first, then the config's keys
 * (the order axes.c applies them in), on a GPU with or without bf16. */
static void settings_of(const char *sweep_text, const char *config_text, bool gpu_bf16, struct sl_settings *s)
{
	struct sl_keymap *km = sl_keymap_new(A, &D);
	struct sl_trainer *fwd = NULL, *cfg = NULL;
	defaults(sweep_text, config_text, &fwd);
	assert_int_equal(sl_trainer_load_bytes(A, "cfg.yaml", NULL, config_text, strlen(config_text), NULL, &D, &cfg), 0);
	sl_settings_default(s);
	const struct sl_trainer *lists[] = {fwd, cfg};
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; lists[l] && i < lists[l]->n; i++) {
			const struct sl_cfg_entry *e = &lists[l]->entries[i];
			const struct sl_key_rule *r = sl_keymap_match(km, e->key, strlen(e->key));
			struct sl_role_value v;
			const char *why = NULL;
			if (r && sl_role_value_from_node(A, r->role, r, e->node, &v, &why) == 0)
				sl_settings_apply(s, &v, gpu_bf16);
		}
}

/* The dtype a framework loads and trains in (docs/memory-model.md "Framework defaults"): LLaMA-Factory
 * loads in its 16-bit compute dtype and casts the trainable parameters to float32 unless pure_bf16;
 * ms-swift loads the checkpoint's 16-bit dtype and casts nothing of a full fine-tune; a stated dtype
 * wins; without a framework the weights load in float32 (transformers' from_pretrained default). */
static void test_framework_dtype(void **state)
{
	(void)state;
	const char *grid = "method: grid\nparameters:\n  lr: {value: 1}\n";
	struct sl_settings s;
	settings_of(grid, "finetuning_type: lora\nbf16: true\n", true, &s);
	assert_int_equal(s.dtype, SL_DTYPE_BF16);
	assert_int_equal(s.amp, SL_AMP_BF16);
	assert_true(s.upcast_trainable);
	settings_of(grid, "finetuning_type: full\nfp16: true\n", false, &s); /* a V100: fp16 */
	assert_int_equal(s.dtype, SL_DTYPE_FP16);
	assert_true(s.upcast_trainable);
	settings_of(grid, "finetuning_type: full\npure_bf16: true\n", true, &s);
	assert_int_equal(s.dtype, SL_DTYPE_BF16);
	assert_int_equal(s.amp, SL_AMP_OFF);
	assert_false(s.upcast_trainable);
	settings_of(grid, "sft_type: full\n", true, &s);
	assert_int_equal(s.dtype, SL_DTYPE_BF16);
	assert_false(s.upcast_trainable);
	settings_of(grid, "sft_type: full\ndtype: fp32\n", true, &s);
	assert_int_equal(s.dtype, SL_DTYPE_FP32);
	settings_of(grid, "per_device_train_batch_size: 4\nbf16: true\n", true, &s);
	assert_int_equal(s.dtype, SL_DTYPE_FP32);
	assert_false(s.upcast_trainable);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_loads_and_maps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_llamafactory_gc_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recognised_by, setup, teardown),
		cmocka_unit_test_setup_teardown(test_framework_dtype, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
