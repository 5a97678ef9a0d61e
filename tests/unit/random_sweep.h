/*
 * random_sweep: the random cases the enumeration's property tests share
 * (test_fastpath, test_walk): settings, and grid sweeps over keys with a
 * role (some roles twice, some values that do not parse) with a trainer
 * config and --set fixes. xorshift64 with fixed seeds: the same cases on
 * every machine. Header-only (static functions) for the test executables;
 * every string lives in the arena passed in. random_eval evaluates a case
 * with cmocka's assertions: include this after <cmocka.h>.
 */
#ifndef SWEEPLINT_TESTS_RANDOM_SWEEP_H
#define SWEEPLINT_TESTS_RANDOM_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/eval.h"
#include "sweeplint/memory.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

/* What the property tests evaluate with: the catalogs and key map, loaded once per executable. */
struct env {
	struct sl_arena *a;
	struct sl_catalog *cat;
	struct sl_keymap *keys;
	const struct sl_scalar_resolver *res;
};

/* The cmocka group setup and teardown of the property tests: one env per executable. */
static inline int random_env_setup(void **state)
{
	static struct env e;
	e.a = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, e.a);
	if (sl_catalog_load(e.a, &e.cat, &d) != 0)
		return -1;
	e.keys = sl_keymap_new(e.a, &d);
	e.res = sl_scalar_resolver_new(e.a);
	*state = &e;
	return e.keys ? 0 : -1;
}

static inline int random_env_teardown(void **state)
{
	struct env *e = *state;
	sl_arena_free(e->a);
	return 0;
}

/* xorshift64: fixed seeds, the same cases on every machine */
static inline uint64_t next(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

static inline uint64_t pick(uint64_t *r, uint64_t n)
{
	return next(r) % n;
}

static inline void random_settings(uint64_t *r, struct sl_settings *s)
{
	sl_settings_default(s);
	s->task = (enum sl_task)pick(r, SL_TASK__COUNT);
	s->batch_size = pick(r, 300);
	s->eval_batch_size = pick(r, 3) * 16;
	s->grad_accum = pick(r, 4);
	s->seq_len = pick(r, 9000);
	s->target_len = pick(r, 3) ? 0 : pick(r, 2000);
	s->dtype = (enum sl_dtype)pick(r, SL_DTYPE__COUNT);
	s->amp = (enum sl_amp)pick(r, SL_AMP__COUNT);
	s->gradient_checkpointing = pick(r, 2);
	s->optimizer = (enum sl_optim)pick(r, SL_OPTIM__COUNT);
	s->lora_r = pick(r, 3) ? 0 : (uint32_t)pick(r, 128);
	s->lora_dropout_bp = pick(r, 2) ? 0 : (uint32_t)pick(r, 2000);
	s->lora_targets = (uint32_t)pick(r, SL_LORA_ALL + 1);
	s->quant = (enum sl_quant)pick(r, SL_QUANT__COUNT);
	s->attn = (enum sl_attn)pick(r, SL_ATTN__COUNT);
	s->zero_stage = (uint32_t)pick(r, 4);
	s->offload = (enum sl_offload)pick(r, SL_OFFLOAD__COUNT);
	s->zero3_init = pick(r, 2);
	s->num_gpus = 1 + (uint32_t)pick(r, 8);
	s->num_workers = (uint32_t)pick(r, 9);
	s->texts_per_example = (uint32_t)pick(r, 6);
	s->mini_batch_size = pick(r, 3) ? 0 : pick(r, 64);
	s->legacy_runtime = pick(r, 5) == 0;
}

struct key_choice {
	const char *key;
	const char *values[6];
};

/* Keys with a role (some roles twice: the later axis wins), and values some of which do not parse. */
static const struct key_choice keys[] = {
	{"model", {"bert-base-uncased", "t5-small", "gpt2", "bge-m3-ko", "no-such-model", "bart-base"}},
	{"model_name_or_path", {"roberta-base", "xlm-roberta-base", "multilingual-e5-small", "ko-simcse"}},
	{"batch_size", {"1", "8", "32", "x", "128", "3"}},
	{"per_device_train_batch_size", {"2", "4", "64", "16"}},
	{"max_seq_length", {"16", "128", "512", "2048", "0", "77"}},
	{"max_len", {"64", "256", "1024"}},
	{"max_target_length", {"32", "64", "300"}},
	{"gradient_checkpointing", {"true", "false", "maybe"}},
	{"attn_implementation", {"eager", "sdpa", "flash_attention_2", "default"}},
	{"fp16", {"true", "false"}},
	{"bf16", {"true", "false"}},
	{"optim", {"adamw_torch", "adafactor", "sgd", "adamw_bnb_8bit", "lion_32bit"}},
	{"lora_r", {"8", "16", "64"}},
	{"lora_target_modules", {"q_proj", "all-linear", "query,value"}},
	{"num_workers", {"0", "4", "16"}},
	{"per_device_eval_batch_size", {"8", "64", "512"}},
	{"num_negatives", {"1", "3", "7"}},
	{"mini_batch_size", {"4", "32"}},
	{"zero_stage", {"0", "2", "3"}},
	{"num_gpus", {"1", "4", "8"}},
	{"torch_dtype", {"bf16", "fp32", "auto", "float16"}},
	{"load_in_4bit", {"true", "false"}},
	{"gradient_accumulation_steps", {"1", "4"}},
	{"lr", {"1.0e-5", "3.0e-5"}},
	{"dataloader_pin_memory", {"true", "false"}},
	{"do_train", {"true", "false"}},
	{"num_beams", {"1", "4"}},
	{"max_new_tokens", {"32", "256"}},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static inline size_t nvalues(const struct key_choice *k)
{
	size_t n = 0;
	while (n < 6 && k->values[n])
		n++;
	return n;
}

/* The workload and the DataLoader's pinning, at random (random_settings leaves them at their defaults). */
static inline void random_workload(uint64_t *r, struct sl_settings *s)
{
	s->mode = (enum sl_mode)pick(r, SL_MODE__COUNT);
	s->pin_memory = pick(r, 2);
	s->num_beams = (uint32_t)pick(r, 5);
	s->max_new_tokens = pick(r, 3) ? 0 : pick(r, 1000);
	s->gpu_mem_util_bp = pick(r, 4) ? 0 : (uint32_t)(5000 + pick(r, 4000));
	s->modules_to_save = (uint32_t)pick(r, 4);
	s->gpus_per_node = (uint32_t)pick(r, 3);
}

/* A random grid sweep (and a trainer config, and --set fixes) in the arena. */
static inline const char *random_sweep(struct sl_arena *a, uint64_t *r, const char **config, const char **sets, size_t *nsets)
{
	struct sl_buf b, c;
	sl_buf_init(&b, a);
	sl_buf_init(&c, a);
	sl_buf_adds(&b, "program: train.py\nmethod: grid\nparameters:\n");
	size_t naxes = 3 + pick(r, 7);
	bool used[NKEYS] = {0};
	/* a model almost always, so that most combinations are known */
	if (pick(r, 8)) {
		used[pick(r, 2)] = true;
		naxes--;
	}
	for (size_t i = 0; i < naxes; i++)
		used[pick(r, NKEYS)] = true;
	for (size_t k = 0; k < NKEYS; k++) {
		if (!used[k])
			continue;
		size_t nv = nvalues(&keys[k]);
		if (pick(r, 5) == 0) { /* a single value */
			sl_buf_addf(&b, "  %s: {value: %s}\n", keys[k].key, keys[k].values[pick(r, nv)]);
			continue;
		}
		if (pick(r, 6) == 0 && k >= 2 && k <= 6) { /* an integer range */
			uint64_t lo = 1 + pick(r, 40);
			sl_buf_addf(&b, "  %s: {distribution: int_uniform, min: %llu, max: %llu}\n", keys[k].key,
				    (unsigned long long)lo, (unsigned long long)(lo + pick(r, 12)));
			continue;
		}
		sl_buf_addf(&b, "  %s: {values: [", keys[k].key);
		size_t take = 1 + pick(r, nv);
		for (size_t j = 0; j < take; j++)
			sl_buf_addf(&b, "%s%s", j ? ", " : "", keys[k].values[pick(r, nv)]);
		sl_buf_adds(&b, "]}\n");
	}
	/* a trainer config under the sweep: its values apply first */
	for (size_t k = 0; k < NKEYS; k++)
		if (pick(r, 6) == 0)
			sl_buf_addf(&c, "%s: %s\n", keys[k].key, keys[k].values[pick(r, nvalues(&keys[k]))]);
	*config = c.len ? c.buf : NULL;
	static const char *const fixes[] = {"batch_size=4",      "seq_len=256",       "target_len=48",
					    "gradient_checkpointing=true", "dtype=bf16", "amp=fp16",
					    "max_len=96",        "model=gpt2",        "num_workers=2"};
	*nsets = 0;
	for (size_t i = 0; i < sizeof fixes / sizeof fixes[0]; i++)
		if (pick(r, 10) == 0)
			sets[(*nsets)++] = fixes[i];
	return b.buf;
}

/* The evaluation of a case (a sweep's text, its trainer config, --set fixes) in the arena; fails the test when it cannot run. */
static inline struct sl_eval *random_eval(const struct env *e, struct sl_arena *a, const char *text, const char *config,
					  const char *const *sets, size_t nsets, const struct sl_gpu *gpu, double headroom,
					  uint32_t gpus, uint64_t max_combos, bool exhaustive, int case_no)
{
	struct sl_diags d;
	sl_diags_init(&d, a);
	struct sl_source *src = sl_source_from_bytes(a, "sweep.yaml", text, strlen(text));
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, e->res, &d);
	assert_true(doc->ok);
	struct sl_sweep *sw = sl_sweep_load(a, doc);
	struct sl_trainer *tr = NULL;
	if (config)
		assert_int_equal(sl_trainer_load_bytes(a, "train.yaml", NULL, config, strlen(config), e->res, &d, &tr), 0);
	const struct sl_trainer *const configs[1] = {tr};
	struct sl_eval_opts o = {
		.cat = e->cat, .gpu = gpu, .keys = e->keys, .configs = configs, .nconfigs = tr ? 1 : 0,
		.sets = sets, .nsets = nsets, .headroom = headroom, .num_gpus = gpus, .max_combos = max_combos,
		.resolver = e->res, .exhaustive = exhaustive,
	};
	struct sl_eval *ev = NULL;
	const char *why = NULL;
	if (sl_eval_run(a, sw, &o, &d, &ev, &why) != 0)
		fail_msg("case %d: %s", case_no, why);
	return ev;
}

#endif
