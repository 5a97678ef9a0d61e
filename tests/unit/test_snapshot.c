/*
 * test_snapshot: the build-time snapshot of the embedded catalogs and key
 * map (src/snapshot/) against a fresh parse of the same embedded YAML,
 * field by field: every model, GPU, calibration constant and key rule; the
 * serialised patterns against the patterns the parsers compile; estimates,
 * parameter counts and lookups through both; and the fallbacks (patterns
 * PCRE2 cannot decode are compiled from their text; a pattern that does not
 * compile either makes the loader parse the YAML).
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ctype.h>
#include <pcre2.h>

#include "../../src/snapshot/snapshot.h"
#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/roles.h"

struct fx {
	struct sl_arena *a;
	struct sl_diags d;
	struct sl_catalog *snap, *parsed; /* sl_catalog_load / sl_catalog_load_from the embedded YAML */
	struct sl_keymap *ksnap, *kparsed;
};

static struct sl_keymap *parse_keys(struct sl_arena *a, struct sl_diags *d)
{
	const struct sl_blob *b = sl_data_get("keys.yaml");
	assert_non_null(b);
	return sl_keymap_parse(a, "rules/keys.yaml", b->bytes, b->len, d);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	f->a = sl_arena_new();
	sl_diags_init(&f->d, f->a);
	int rc = sl_catalog_load(f->a, &f->snap, &f->d);
	rc |= sl_catalog_load_from(f->a, NULL, NULL, &f->parsed, &f->d);
	/* the models library leaves the calibration to memory/calib.c */
	if (!rc)
		rc |= sl_calib_parse_embedded(f->a, &f->parsed->calib, &f->d);
	f->ksnap = sl_keymap_new(f->a, &f->d);
	f->kparsed = parse_keys(f->a, &f->d);
	*state = f;
	return rc || f->d.n || !f->ksnap || !f->kparsed ? -1 : 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	sl_arena_free(f->a);
	free(f);
	return 0;
}

static void str_eq(const char *x, const char *y)
{
	if (!x || !y)
		assert_ptr_equal(x, y);
	else
		assert_string_equal(x, y);
}

static void arch_eq(const struct sl_arch *x, const struct sl_arch *y)
{
	assert_int_equal(x->family, y->family);
	assert_int_equal(x->kind, y->kind);
	assert_int_equal(x->vocab, y->vocab);
	assert_int_equal(x->hidden, y->hidden);
	assert_int_equal(x->layers, y->layers);
	assert_int_equal(x->dec_layers, y->dec_layers);
	assert_int_equal(x->heads, y->heads);
	assert_int_equal(x->kv_heads, y->kv_heads);
	assert_int_equal(x->head_dim, y->head_dim);
	assert_int_equal(x->intermediate, y->intermediate);
	assert_int_equal(x->max_pos, y->max_pos);
	assert_int_equal(x->type_vocab, y->type_vocab);
	assert_int_equal(x->rel_buckets, y->rel_buckets);
	assert_int_equal(x->gated_ffn, y->gated_ffn);
	assert_int_equal(x->tied, y->tied);
	assert_int_equal(x->pooler, y->pooler);
	assert_int_equal(x->bias, y->bias);
	assert_int_equal(x->rmsnorm, y->rmsnorm);
	assert_int_equal(x->final_norm, y->final_norm);
	assert_int_equal(x->emb_norm, y->emb_norm);
	assert_int_equal(x->qkv_bias_only, y->qkv_bias_only);
	assert_int_equal(x->scale_emb, y->scale_emb);
	assert_int_equal(x->emb_dim, y->emb_dim);
	/* every field, those added since included: the generator must write each one */
	assert_memory_equal(x, y, sizeof *x);
}

static void aliases_eq(const char **x, size_t nx, const char **y, size_t ny)
{
	assert_int_equal(nx, ny);
	for (size_t j = 0; j < nx; j++)
		str_eq(x[j], y[j]);
}

/* Doubles bit for bit (the generator writes them as hexadecimal constants). */
static void double_eq(double x, double y)
{
	assert_memory_equal(&x, &y, sizeof x);
}

static void calib_eq(const struct sl_calib *x, const struct sl_calib *y)
{
	assert_int_equal(x->cuda_context, y->cuda_context);
	assert_int_equal(x->cuda_context_legacy, y->cuda_context_legacy);
	double_eq(x->slack_frac, y->slack_frac);
	assert_int_equal(x->slack_min, y->slack_min);
	double_eq(x->eager_attn_copies, y->eager_attn_copies);
	double_eq(x->sdpa_attn_bytes, y->sdpa_attn_bytes);
	double_eq(x->act_extra_frac, y->act_extra_frac);
	double_eq(x->zero_reuse_distance, y->zero_reuse_distance);
	double_eq(x->zero_sub_group, y->zero_sub_group);
	double_eq(x->zero_reduce_bucket, y->zero_reduce_bucket);
	double_eq(x->zero_prefetch_bucket, y->zero_prefetch_bucket);
	assert_int_equal(x->nccl_buffer, y->nccl_buffer);
	assert_int_equal(x->host_base, y->host_base);
	assert_int_equal(x->host_per_worker, y->host_per_worker);
	double_eq(x->host_load_factor, y->host_load_factor);
	double_eq(x->host_overhead_frac, y->host_overhead_frac);
	double_eq(x->flash_bwd_bytes, y->flash_bwd_bytes);
	double_eq(x->host_offload_factor, y->host_offload_factor);
	assert_int_equal(x->gen_max_length, y->gen_max_length);
	assert_int_equal(x->bnb_min_8bit_size, y->bnb_min_8bit_size);
	assert_int_equal(x->bnb_block, y->bnb_block);
	assert_int_equal(x->bnb_paged_min, y->bnb_paged_min);
	double_eq(x->vllm_utilization, y->vllm_utilization);
	assert_int_equal(x->vllm_batched_tokens, y->vllm_batched_tokens);
	assert_int_equal(x->vllm_batched_tokens_large, y->vllm_batched_tokens_large);
	assert_int_equal(x->vllm_max_seqs, y->vllm_max_seqs);
	assert_int_equal(x->vllm_max_seqs_large, y->vllm_max_seqs_large);
	assert_int_equal(x->vllm_large_gpu, y->vllm_large_gpu);
	assert_int_equal(x->vllm_block_size, y->vllm_block_size);
	assert_int_equal(x->vllm_non_torch, y->vllm_non_torch);
	double_eq(x->vllm_sampler_bytes, y->vllm_sampler_bytes);
}

static void models_eq(const struct sl_model *x, size_t nx, const struct sl_model *y, size_t ny)
{
	assert_int_equal(nx, ny);
	for (size_t i = 0; i < nx; i++) {
		const struct sl_model *m = &x[i], *n = &y[i];
		str_eq(m->name, n->name);
		str_eq(m->hf_id, n->hf_id);
		aliases_eq(m->aliases, m->naliases, n->aliases, n->naliases);
		aliases_eq(m->names, m->nnames, n->names, n->nnames);
		arch_eq(&m->arch, &n->arch);
		assert_int_equal(m->task, n->task);
		assert_int_equal(m->st_max_seq_len, n->st_max_seq_len);
		assert_int_equal(m->official_params, n->official_params);
		double_eq(m->tolerance, n->tolerance);
		str_eq(m->source, n->source);
	}
}

static void catalog_eq(const struct sl_catalog *x, const struct sl_catalog *y)
{
	models_eq(x->models, x->nmodels, y->models, y->nmodels);
	models_eq(x->archs, x->narchs, y->archs, y->narchs);
	assert_true(x->narchs > 0);
	assert_int_equal(x->ngpus, y->ngpus);
	for (size_t i = 0; i < x->ngpus; i++) {
		const struct sl_gpu *g = &x->gpus[i], *h = &y->gpus[i];
		str_eq(g->name, h->name);
		str_eq(g->label, h->label);
		assert_int_equal(g->bytes, h->bytes);
		assert_int_equal(g->bf16, h->bf16);
		assert_int_equal(g->cc_major, h->cc_major);
		assert_int_equal(g->cc_minor, h->cc_minor);
		assert_int_equal(g->host_cores, h->host_cores);
		aliases_eq(g->aliases, g->naliases, h->aliases, h->naliases);
		str_eq(g->source, h->source);
	}
	calib_eq(&x->calib, &y->calib);
}

static void keys_eq(const struct sl_keymap *x, const struct sl_keymap *y)
{
	assert_int_equal(x->n, y->n);
	for (size_t i = 0; i < x->n; i++) {
		const struct sl_key_rule *r = &x->rules[i], *s = &y->rules[i];
		str_eq(r->pattern, s->pattern);
		assert_int_equal(r->role, s->role);
		str_eq(r->if_true, s->if_true);
		str_eq(r->if_false, s->if_false);
		assert_int_equal(r->add, s->add);
		str_eq(r->origin, s->origin);
		assert_non_null(r->code);
		assert_non_null(s->code);
	}
}

/* pcre2_serialize_encode of the compiled patterns equals bytes[0..len). */
static void codes_eq(const pcre2_code **codes, size_t n, const unsigned char *bytes, size_t len)
{
	uint8_t *enc = NULL;
	PCRE2_SIZE enc_len = 0;
	if (n) {
		assert_int_equal(pcre2_serialize_encode(codes, (int32_t)n, &enc, &enc_len, NULL), n);
	}
	assert_int_equal(enc_len, len);
	if (n)
		assert_memory_equal(enc, bytes, len);
	pcre2_serialize_free(enc);
}

/* The alias patterns of a catalog, models' then GPUs'; *n receives the count. */
static const pcre2_code **alias_codes(struct sl_arena *a, const struct sl_catalog *c, size_t *count)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nmodels; i++)
		n += c->models[i].naliases;
	for (size_t i = 0; i < c->ngpus; i++)
		n += c->gpus[i].naliases;
	const pcre2_code **codes = sl_arena_array(a, n + 1, sizeof *codes);
	size_t k = 0;
	for (int gpu = 0; gpu < 2; gpu++)
		for (size_t i = 0; i < (gpu ? c->ngpus : c->nmodels); i++)
			for (size_t j = 0; j < (gpu ? c->gpus[i].naliases : c->models[i].naliases); j++) {
				codes[k] = sl_catalog_alias_code(c, gpu, i, j);
				assert_non_null(codes[k]);
				k++;
			}
	*count = n;
	return codes;
}

static const pcre2_code **key_codes(struct sl_arena *a, const struct sl_keymap *km)
{
	const pcre2_code **codes = sl_arena_array(a, km->n + 1, sizeof *codes);
	for (size_t i = 0; i < km->n; i++)
		codes[i] = km->rules[i].code;
	return codes;
}

static void alias_codes_eq(struct sl_arena *a, const struct sl_catalog *c, const unsigned char *bytes, size_t len)
{
	size_t n;
	const pcre2_code **codes = alias_codes(a, c, &n);
	codes_eq(codes, n, bytes, len);
}

static void key_codes_eq(struct sl_arena *a, const struct sl_keymap *km, const unsigned char *bytes, size_t len)
{
	codes_eq(key_codes(a, km), km->n, bytes, len);
}

/*
 * A decoded pattern against the one compiled from its text: a decoded code
 * differs in a private flag (its tables are shared), so it is compared by
 * what PCRE2 says about it.
 */
static void codes_alike(const pcre2_code *x, const pcre2_code *y)
{
	static const uint32_t what[] = {
		PCRE2_INFO_ALLOPTIONS, PCRE2_INFO_ARGOPTIONS, PCRE2_INFO_BACKREFMAX, PCRE2_INFO_BSR,
		PCRE2_INFO_CAPTURECOUNT, PCRE2_INFO_FIRSTCODETYPE, PCRE2_INFO_FIRSTCODEUNIT, PCRE2_INFO_HASCRORLF,
		PCRE2_INFO_JCHANGED, PCRE2_INFO_LASTCODETYPE, PCRE2_INFO_LASTCODEUNIT, PCRE2_INFO_MATCHEMPTY,
		PCRE2_INFO_MAXLOOKBEHIND, PCRE2_INFO_MINLENGTH, PCRE2_INFO_NAMECOUNT, PCRE2_INFO_NEWLINE,
	};
	for (size_t i = 0; i < sizeof what / sizeof what[0]; i++) {
		uint32_t u = 0, v = 0;
		assert_int_equal(pcre2_pattern_info(x, what[i], &u), 0);
		assert_int_equal(pcre2_pattern_info(y, what[i], &v), 0);
		assert_int_equal(u, v);
	}
	size_t u = 0, v = 0;
	assert_int_equal(pcre2_pattern_info(x, PCRE2_INFO_SIZE, &u), 0);
	assert_int_equal(pcre2_pattern_info(y, PCRE2_INFO_SIZE, &v), 0);
	assert_int_equal(u, v);
}

static void test_catalog_fields(void **state)
{
	struct fx *f = *state;
	assert_true(f->parsed->nmodels > 40); /* the real catalog, not an empty one */
	assert_true(f->parsed->ngpus > 10);
	catalog_eq(f->snap, f->parsed);
	/* the entries are read-only (const in struct sl_catalog): the catalog is the snapshot's own tables */
	assert_ptr_equal(f->snap->models, sl_snapshot.models);
	assert_ptr_equal(f->snap->gpus, sl_snapshot.gpus);
}

static void test_calib(void **state)
{
	struct fx *f = *state;
	struct sl_calib loaded, parsed;
	assert_int_equal(sl_calib_load(f->a, &loaded, &f->d), 0);
	assert_int_equal(sl_calib_parse_embedded(f->a, &parsed, &f->d), 0);
	assert_int_equal(f->d.n, 0);
	calib_eq(&loaded, &parsed);
	calib_eq(&f->snap->calib, &parsed);
	assert_true(parsed.cuda_context > 0);
}

static void test_keys(void **state)
{
	struct fx *f = *state;
	assert_true(f->kparsed->n > 20);
	keys_eq(f->ksnap, f->kparsed);
	assert_ptr_not_equal(f->ksnap->rules, sl_snapshot.keys);
	assert_non_null(f->ksnap->match_data);
}

static void test_serialised_patterns(void **state)
{
	struct fx *f = *state;
	/* what the parsers compile today serialises to the snapshot's bytes */
	alias_codes_eq(f->a, f->parsed, sl_snapshot.alias_codes, sl_snapshot.alias_codes_len);
	key_codes_eq(f->a, f->kparsed, sl_snapshot.key_codes, sl_snapshot.key_codes_len);
	/* and what was decoded from them is those patterns */
	size_t n, m;
	const pcre2_code **x = alias_codes(f->a, f->snap, &n), **y = alias_codes(f->a, f->parsed, &m);
	assert_int_equal(n, m);
	for (size_t i = 0; i < n; i++)
		codes_alike(x[i], y[i]);
	x = key_codes(f->a, f->ksnap);
	y = key_codes(f->a, f->kparsed);
	for (size_t i = 0; i < f->kparsed->n; i++)
		codes_alike(x[i], y[i]);
}

static void breakdown_eq(const struct sl_breakdown *x, const struct sl_breakdown *y)
{
	assert_int_equal(x->cuda_context, y->cuda_context);
	assert_int_equal(x->workspace, y->workspace);
	assert_int_equal(x->weights, y->weights);
	assert_int_equal(x->gradients, y->gradients);
	assert_int_equal(x->optimizer, y->optimizer);
	assert_int_equal(x->activations, y->activations);
	assert_int_equal(x->attention, y->attention);
	assert_int_equal(x->logits, y->logits);
	assert_int_equal(x->zero_gather, y->zero_gather);
	assert_int_equal(x->slack, y->slack);
	assert_int_equal(x->total, y->total);
	assert_int_equal(x->params, y->params);
	assert_int_equal(x->trainable, y->trainable);
	assert_int_equal(x->dynamic, y->dynamic);
	assert_int_equal(x->phase, y->phase);
}

/* Whatever a field the comparisons above might miss, the estimates through both catalogs agree. */
static void test_estimates(void **state)
{
	struct fx *f = *state;
	const struct sl_catalog *x = f->snap, *y = f->parsed;
	size_t runs = 0;
	for (size_t i = 0; i < x->nmodels; i++) {
		const struct sl_arch *ax = &x->models[i].arch, *ay = &y->models[i].arch;
		assert_int_equal(sl_arch_params(ax), sl_arch_params(ay));
		assert_int_equal(sl_arch_largest_layer(ax), sl_arch_largest_layer(ay));
		assert_int_equal(sl_arch_max_seq_len(ax), sl_arch_max_seq_len(ay));
		for (int t = 0; t < SL_TASK__COUNT; t++)
			assert_int_equal(sl_arch_params_for_task(ax, (enum sl_task)t),
					 sl_arch_params_for_task(ay, (enum sl_task)t));
		assert_int_equal(sl_arch_lora_params(ax, 16, SL_LORA_ALL), sl_arch_lora_params(ay, 16, SL_LORA_ALL));
		for (unsigned v = 0; v < 16; v++) {
			size_t g = (i + v) % x->ngpus;
			struct sl_settings s;
			sl_settings_default(&s);
			s.task = x->models[i].task;
			s.batch_size = 1u << (v % 6);
			s.seq_len = 128u << (v % 3);
			s.target_len = v & 1 ? 64 : 0;
			s.dtype = (enum sl_dtype)(v % SL_DTYPE__COUNT);
			s.amp = (enum sl_amp)((v / 3) % SL_AMP__COUNT);
			s.gradient_checkpointing = v & 2;
			s.attn = (enum sl_attn)(v % SL_ATTN__COUNT);
			s.optimizer = (enum sl_optim)(v % SL_OPTIM__COUNT);
			s.lora_r = v & 4 ? 8 : 0;
			s.zero_stage = v % 4;
			s.num_gpus = v & 8 ? 4 : 1;
			s.num_workers = v % 5;
			struct sl_breakdown bx, by;
			sl_estimate(ax, &s, &x->gpus[g], &x->calib, &bx);
			sl_estimate(ay, &s, &y->gpus[g], &y->calib, &by);
			breakdown_eq(&bx, &by);
			sl_estimate_eval(ax, &s, &x->gpus[g], &x->calib, &bx);
			sl_estimate_eval(ay, &s, &y->gpus[g], &y->calib, &by);
			breakdown_eq(&bx, &by);
			struct sl_host_breakdown hx, hy;
			sl_estimate_host(ax, &s, &x->calib, &hx);
			sl_estimate_host(ay, &s, &y->calib, &hy);
			assert_int_equal(hx.total, hy.total);
			runs++;
		}
	}
	assert_true(runs > 600);
}

/* Index of a lookup's result in its catalog, -1 when none. */
static long model_index(const struct sl_catalog *c, const char *name)
{
	const struct sl_model *m = sl_catalog_find_model(c, name);
	return m ? (long)(m - c->models) : -1;
}

static long gpu_index(struct sl_arena *a, const struct sl_catalog *c, const char *name)
{
	const struct sl_gpu *g = sl_catalog_find_gpu(a, c, name);
	if (!g)
		return -1;
	return g >= c->gpus && g < c->gpus + c->ngpus ? (long)(g - c->gpus) : -2; /* -2: a raw size */
}

/* Spellings of a name users write: upper case, '_' for '-', no org, under a path. */
static void probes_of(struct sl_arena *a, const char *name, const char **out)
{
	char *up = sl_arena_strdup(a, name), *under = sl_arena_strdup(a, name);
	for (char *p = up; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	for (char *p = under; *p; p++)
		if (*p == '-')
			*p = '_';
	const char *slash = strrchr(name, '/');
	out[0] = name;
	out[1] = up;
	out[2] = under;
	out[3] = slash ? slash + 1 : name;
	out[4] = sl_arena_printf(a, "/models/%s/", name);
	out[5] = sl_arena_printf(a, "%s-v2", name);
}

static void lookups_eq(struct sl_arena *a, const struct sl_catalog *x, const struct sl_catalog *y)
{
	size_t hits = 0;
	for (size_t i = 0; i < y->nmodels; i++) {
		const char *names[] = {y->models[i].name, y->models[i].hf_id};
		for (size_t k = 0; k < 2; k++) {
			const char *p[6];
			probes_of(a, names[k], p);
			for (size_t j = 0; j < 6; j++) {
				long ix = model_index(x, p[j]);
				assert_int_equal(ix, model_index(y, p[j]));
				hits += ix >= 0;
			}
		}
	}
	static const char *const values[] = {"bge-m3", "BAAI/bge-m3", "klue/roberta-base", "xlmr-large",
					      "meta-llama/Meta-Llama-3-8B", "gpt2-medium", "t5-v1_1-base",
					      "/ckpt/run-3/checkpoint-500", "no-such-model", ""};
	for (size_t j = 0; j < sizeof values / sizeof values[0]; j++)
		assert_int_equal(model_index(x, values[j]), model_index(y, values[j]));
	assert_true(hits > 4 * y->nmodels);

	for (size_t i = 0; i < y->ngpus; i++) {
		const char *names[] = {y->gpus[i].name, y->gpus[i].label};
		for (size_t k = 0; k < 2; k++) {
			const char *p[6];
			probes_of(a, names[k], p);
			for (size_t j = 0; j < 6; j++)
				assert_int_equal(gpu_index(a, x, p[j]), gpu_index(a, y, p[j]));
		}
	}
	static const char *const gpus[] = {"h100", "A100-80GB", "a100", "nvidia h100", "rtx 4090", "v100",
					   "24GiB", "80G", "tpu"};
	for (size_t j = 0; j < sizeof gpus / sizeof gpus[0]; j++)
		assert_int_equal(gpu_index(a, x, gpus[j]), gpu_index(a, y, gpus[j]));
	assert_true(gpu_index(a, x, "h100") >= 0);
}

static void test_lookups(void **state)
{
	struct fx *f = *state;
	lookups_eq(f->a, f->snap, f->parsed);
}

static void keys_match_eq(const struct sl_keymap *x, const struct sl_keymap *y)
{
	static const char *const keys[] = {
		"per_device_train_batch_size", "training.per_device_train_batch_size", "data.batches.bi",
		"batch_size", "per_device_eval_batch_size", "gradient_accumulation_steps", "model.max_len",
		"max_seq_length", "max_target_length", "fp16", "training.bf16", "trainer.use_amp",
		"trainer.gradient_checkpointing", "optim", "lora_r", "target_modules", "load_in_4bit",
		"attn_implementation", "zero_optimization.stage", "zero_optimization.offload_optimizer.device",
		"dataloader_num_workers", "num_negatives", "model.bi_model", "model_name_or_path", "seed",
		"learning_rate", "trainer.lr", "warmup_ratio", "x.y.z", "",
	};
	size_t hits = 0;
	for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++) {
		const struct sl_key_rule *r = sl_keymap_match(x, keys[j], strlen(keys[j]));
		const struct sl_key_rule *s = sl_keymap_match(y, keys[j], strlen(keys[j]));
		assert_int_equal(r ? r - x->rules : -1, s ? s - y->rules : -1);
		hits += r != NULL;
	}
	/* every rule's own pattern text, as a key, is matched (or not) alike */
	for (size_t i = 0; i < y->n; i++) {
		const char *k = y->rules[i].pattern;
		const struct sl_key_rule *r = sl_keymap_match(x, k, strlen(k));
		const struct sl_key_rule *s = sl_keymap_match(y, k, strlen(k));
		assert_int_equal(r ? r - x->rules : -1, s ? s - y->rules : -1);
	}
	assert_true(hits > 20);
}

static void test_key_matches(void **state)
{
	struct fx *f = *state;
	keys_match_eq(f->ksnap, f->kparsed);
}

/* A copy of serialised patterns that this PCRE2 refuses (another version's magic number). */
static const unsigned char *refused(struct sl_arena *a, const unsigned char *bytes, size_t len)
{
	unsigned char *b = sl_arena_alloc(a, len);
	memcpy(b, bytes, len);
	b[0] ^= 0xFF;
	assert_true(pcre2_serialize_get_number_of_codes(b) < 0);
	return b;
}

static void test_fallback_compile(void **state)
{
	struct fx *f = *state;
	struct sl_snapshot s = sl_snapshot;
	s.alias_codes = refused(f->a, s.alias_codes, s.alias_codes_len);
	s.key_codes = refused(f->a, s.key_codes, s.key_codes_len);
	void *codes[1];
	assert_false(sl_snapshot_decode(f->a, s.key_codes, s.key_codes_len, sl_snapshot.nkeys, codes));
	assert_false(sl_snapshot_decode(f->a, sl_snapshot.key_codes, 8, sl_snapshot.nkeys, codes));

	struct sl_catalog *c = NULL;
	assert_int_equal(sl_catalog_from_snapshot(f->a, &s, &c, &f->d), 0);
	assert_int_equal(f->d.n, 0);
	catalog_eq(c, f->parsed);
	/* compiled from the text: the same patterns */
	alias_codes_eq(f->a, c, sl_snapshot.alias_codes, sl_snapshot.alias_codes_len);
	lookups_eq(f->a, c, f->parsed);

	struct sl_keymap *km = sl_keymap_from_snapshot(f->a, &s, &f->d);
	assert_non_null(km);
	keys_eq(km, f->kparsed);
	key_codes_eq(f->a, km, sl_snapshot.key_codes, sl_snapshot.key_codes_len);
	keys_match_eq(km, f->kparsed);
}

static void test_fallback_parse(void **state)
{
	struct fx *f = *state;
	/* refused bytes and a pattern that does not compile: the loaders parse the embedded YAML */
	struct sl_snapshot s = sl_snapshot;
	s.alias_codes = refused(f->a, s.alias_codes, s.alias_codes_len);
	s.key_codes = refused(f->a, s.key_codes, s.key_codes_len);
	struct sl_model *models = sl_arena_array(f->a, s.nmodels, sizeof *models);
	memcpy(models, s.models, s.nmodels * sizeof *models);
	static const char *bad[] = {"bge(-m3"};
	models[0].aliases = bad;
	models[0].naliases = 1;
	s.models = models;
	struct sl_key_rule *keys = sl_arena_array(f->a, s.nkeys, sizeof *keys);
	memcpy(keys, s.keys, s.nkeys * sizeof *keys);
	keys[s.nkeys - 1].pattern = "(";
	s.keys = keys;

	struct sl_catalog *c = NULL;
	assert_int_equal(sl_catalog_from_snapshot(f->a, &s, &c, &f->d), 0);
	assert_int_equal(f->d.n, 0);
	catalog_eq(c, f->parsed);
	lookups_eq(f->a, c, f->parsed);
	struct sl_keymap *km = sl_keymap_from_snapshot(f->a, &s, &f->d);
	assert_non_null(km);
	keys_eq(km, f->kparsed);
	keys_match_eq(km, f->kparsed);
}

/* Project key rules go ahead of the snapshot's, as they went ahead of the parsed ones. */
static void test_prepend(void **state)
{
	struct fx *f = *state;
	const char *why = NULL;
	size_t n = f->ksnap->n;
	for (int i = 0; i < 70; i++)
		assert_int_equal(sl_keymap_prepend(f->a, f->ksnap, "^(my_bs|seed)$", SL_ROLE_BATCH_SIZE, NULL, NULL,
						   "proj.yaml", &why),
				 0);
	assert_int_equal(f->ksnap->n, n + 70);
	const struct sl_key_rule *r = sl_keymap_match(f->ksnap, "seed", 4);
	assert_non_null(r);
	assert_string_equal(r->origin, "proj.yaml");
	r = sl_keymap_match(f->ksnap, "data.batches.bi", strlen("data.batches.bi"));
	assert_non_null(r);
	assert_string_equal(r->origin, "rules/keys.yaml");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_catalog_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_calib, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_serialised_patterns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_estimates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_matches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fallback_compile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fallback_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepend, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
