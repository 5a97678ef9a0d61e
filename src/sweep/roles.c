/*
 * roles: key -> role mapping (rules/keys.yaml via libcyaml, PCRE2) and role
 * value parsing. The embedded keys.yaml is parsed and its patterns compiled
 * at build time (../snapshot/gen_catalog.c): sl_keymap_new starts from
 * that snapshot.
 */
#include "sweeplint/roles.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <cyaml/cyaml.h>
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../snapshot/snapshot.h"
#include "roles_rl.h"
#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/diag.h"
#include "sweeplint/ydoc.h"

static const char *const role_names[SL_ROLE__COUNT] = {
	[SL_ROLE_MODEL] = "model",
	[SL_ROLE_TASK] = "task",
	[SL_ROLE_BATCH_SIZE] = "batch_size",
	[SL_ROLE_EVAL_BATCH_SIZE] = "eval_batch_size",
	[SL_ROLE_GRAD_ACCUM] = "grad_accum",
	[SL_ROLE_SEQ_LEN] = "seq_len",
	[SL_ROLE_TARGET_LEN] = "target_len",
	[SL_ROLE_DTYPE] = "dtype",
	[SL_ROLE_AMP] = "amp",
	[SL_ROLE_GRADIENT_CHECKPOINTING] = "gradient_checkpointing",
	[SL_ROLE_OPTIMIZER] = "optimizer",
	[SL_ROLE_LORA_R] = "lora_r",
	[SL_ROLE_LORA_TARGETS] = "lora_targets",
	[SL_ROLE_QUANT] = "quant",
	[SL_ROLE_ATTN] = "attn",
	[SL_ROLE_ZERO_STAGE] = "zero_stage",
	[SL_ROLE_OFFLOAD] = "offload",
	[SL_ROLE_NUM_GPUS] = "num_gpus",
	[SL_ROLE_NUM_WORKERS] = "num_workers",
	[SL_ROLE_TEXTS_PER_EXAMPLE] = "texts_per_example",
	[SL_ROLE_MINI_BATCH_SIZE] = "mini_batch_size",
	[SL_ROLE_ZERO3_INIT] = "zero3_init",
	[SL_ROLE_PIN_MEMORY] = "pin_memory",
	[SL_ROLE_DEEPSPEED] = "deepspeed",
	[SL_ROLE_MODULES_TO_SAVE] = "modules_to_save",
	[SL_ROLE_LAYERS] = "layers",
	[SL_ROLE_HIDDEN_SIZE] = "hidden_size",
	[SL_ROLE_HEADS] = "heads",
	[SL_ROLE_FFN_SIZE] = "ffn_size",
	[SL_ROLE_VOCAB_SIZE] = "vocab_size",
	[SL_ROLE_HEAD_DIM] = "head_dim",
	[SL_ROLE_MODE] = "mode",
	[SL_ROLE_NUM_BEAMS] = "num_beams",
	[SL_ROLE_MAX_NEW_TOKENS] = "max_new_tokens",
	[SL_ROLE_GPU_MEMORY_UTILIZATION] = "gpu_memory_utilization",
	[SL_ROLE_FSDP] = "fsdp",
	[SL_ROLE_FSDP_OFFLOAD] = "fsdp_offload",
	[SL_ROLE_FSDP_AUTO_WRAP] = "fsdp_auto_wrap",
	[SL_ROLE_PEFT_METHOD] = "peft_method",
	[SL_ROLE_NUM_VIRTUAL_TOKENS] = "num_virtual_tokens",
	[SL_ROLE_TORCH_COMPILE] = "torch_compile",
	[SL_ROLE_LIGER] = "liger",
	[SL_ROLE_CHUNKED_CE] = "chunked_ce",
	[SL_ROLE_PACKING] = "packing",
	[SL_ROLE_OPTIMIZER_IN_BACKWARD] = "optimizer_in_backward",
	[SL_ROLE_ACTIVATION_OFFLOAD] = "activation_offload",
	[SL_ROLE_LORA_DROPOUT] = "lora_dropout",
	[SL_ROLE_FSDP_INIT] = "fsdp_init",
	[SL_ROLE_FSDP_STATE_DICT] = "fsdp_state_dict",
	[SL_ROLE_FSDP_USE_ORIG_PARAMS] = "fsdp_use_orig_params",
	[SL_ROLE_KBIT_PREPARE] = "kbit_prepare",
	[SL_ROLE_FSDP_EMBEDDING_UNITS] = "fsdp_embedding_units",
	[SL_ROLE_BNB_LEGACY] = "bnb_legacy",
	[SL_ROLE_UPCAST_TRAINABLE] = "upcast_trainable",
	[SL_ROLE_FROZEN] = "frozen",
	[SL_ROLE_HEAD_PARAMS] = "head_params",
	[SL_ROLE_PART] = "part",
	[SL_ROLE_SEPARATE_ENCODERS] = "separate_encoders",
	[SL_ROLE_QUERY_LEN] = "query_len",
	[SL_ROLE_CHUNKS_PER_TEXT] = "chunks_per_text",
	[SL_ROLE_LOSS] = "loss",
	[SL_ROLE_PADDING] = "padding",
	[SL_ROLE_ENGINE] = "engine",
	[SL_ROLE_MAX_MODEL_LEN] = "max_model_len",
	[SL_ROLE_TENSOR_PARALLEL] = "tensor_parallel_size",
	[SL_ROLE_MAX_NUM_BATCHED_TOKENS] = "max_num_batched_tokens",
	[SL_ROLE_MAX_NUM_SEQS] = "max_num_seqs",
	[SL_ROLE_MODULES] = "modules",
	[SL_ROLE_TRAINABLE_LAYERS] = "trainable_layers",
	[SL_ROLE_TRAINABLE_MODULES] = "trainable_modules",
	[SL_ROLE_FREEZE_EXTRA] = "freeze_extra",
	[SL_ROLE_FREEZE_VISION] = "freeze_vision",
	[SL_ROLE_FREEZE_PROJECTOR] = "freeze_projector",
	[SL_ROLE_ALGORITHM] = "algorithm",
	[SL_ROLE_BETA] = "beta",
	[SL_ROLE_NUM_GENERATIONS] = "num_generations",
	[SL_ROLE_PROMPT_LEN] = "prompt_len",
	[SL_ROLE_COMPLETION_LEN] = "completion_len",
	[SL_ROLE_VLLM_MODE] = "vllm_mode",
	[SL_ROLE_VLLM_GPU_MEMORY_UTILIZATION] = "vllm_gpu_memory_utilization",
	[SL_ROLE_VLLM_SLEEP] = "vllm_sleep_mode",
	[SL_ROLE_REF_MODEL] = "ref_model",
	[SL_ROLE_REWARD_MODEL] = "reward_model",
	[SL_ROLE_GENERATION_BATCH_SIZE] = "generation_batch_size",
	[SL_ROLE_STEPS_PER_GENERATION] = "steps_per_generation",
	[SL_ROLE_IMAGE_SIZE] = "image_size",
	[SL_ROLE_NUM_CLASSES] = "num_classes",
	[SL_ROLE_IN_CHANS] = "in_chans",
	[SL_ROLE_OPTIMIZER_IMPL] = "optimizer_impl",
};

bool sl_role_is_shape(enum sl_role r)
{
	return r >= SL_ROLE_LAYERS && r <= SL_ROLE_HEAD_DIM;
}

const char *sl_role_name(enum sl_role r)
{
	return (unsigned)r < SL_ROLE__COUNT ? role_names[r] : "?";
}

int sl_role_parse(const char *name)
{
	for (int i = 0; i < SL_ROLE__COUNT; i++)
		if (strcmp(name, role_names[i]) == 0)
			return i;
	return -1;
}

/* ---- rules/keys.yaml ------------------------------------------------------------------ */

struct key_entry {
	char *role;
	char **patterns;
	unsigned patterns_count;
	char *if_true;
	char *if_false;
	int add;
};

struct key_file {
	struct key_entry *keys;
	unsigned keys_count;
};

static const cyaml_schema_value_t string_ptr_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 0, CYAML_UNLIMITED),
};

static const cyaml_schema_field_t entry_fields[] = {
	CYAML_FIELD_STRING_PTR("role", CYAML_FLAG_POINTER, struct key_entry, role, 1, 64),
	CYAML_FIELD_SEQUENCE("patterns", CYAML_FLAG_POINTER, struct key_entry, patterns, &string_ptr_schema, 1,
			     CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("if_true", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct key_entry, if_true, 0,
			       64),
	CYAML_FIELD_STRING_PTR("if_false", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct key_entry, if_false,
			       0, 64),
	CYAML_FIELD_INT("add", CYAML_FLAG_OPTIONAL, struct key_entry, add),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t entry_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct key_entry, entry_fields),
};

static const cyaml_schema_field_t file_fields[] = {
	CYAML_FIELD_SEQUENCE("keys", CYAML_FLAG_POINTER, struct key_file, keys, &entry_schema, 1, CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t file_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct key_file, file_fields),
};

struct cyaml_log_ctx {
	struct sl_arena *a;
	struct sl_buf msg;
};

static void cyaml_log_to_buf(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
	struct cyaml_log_ctx *c = ctx;
	if (level < CYAML_LOG_ERROR)
		return;
	sl_buf_vaddf(&c->msg, fmt, args);
}

struct cyaml_free_ctx {
	const cyaml_config_t *cfg;
	void *data;
};

static const cyaml_config_t cyaml_cfg_base = {
	.log_level = CYAML_LOG_ERROR,
	.mem_fn = cyaml_mem,
	.flags = CYAML_CFG_DEFAULT,
};

static void free_key_file(void *p)
{
	cyaml_free(&cyaml_cfg_base, &file_schema, p, 0);
}

static void free_code(void *p)
{
	pcre2_code_free(p);
}

static void free_match_data(void *p)
{
	pcre2_match_data_free(p);
}

static int compile_rule(struct sl_arena *a, struct sl_key_rule *r, const char **why)
{
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &errcode,
					 &erroff, NULL);
	if (!code) {
		PCRE2_UCHAR buf[256];
		pcre2_get_error_message(errcode, buf, sizeof buf);
		if (why)
			*why = sl_arena_printf(a, "bad key pattern \"%s\" at offset %zu: %s", r->pattern,
					       (size_t)erroff, (const char *)buf);
		return -SL_ECONFIG;
	}
	/* no JIT: a run matches each pattern against a handful of keys, and JIT
	 * compiling them all cost more than every match of a check together */
	sl_arena_defer(a, free_code, code);
	r->code = code;
	return 0;
}

static void keymap_reserve(struct sl_arena *a, struct sl_keymap *km, size_t more)
{
	if (km->n + more <= km->cap)
		return;
	size_t cap = km->cap ? km->cap * 2 : 64;
	while (cap < km->n + more)
		cap *= 2;
	km->rules = sl_arena_grow(a, km->rules, km->n, cap, sizeof *km->rules);
	km->cap = cap;
}

/* A problem in rules/keys.yaml (its source and line table are made only then). */
static void keys_error(struct sl_arena *a, struct sl_diags *diags, const char *name, const char *bytes, size_t len,
		       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void keys_error(struct sl_arena *a, struct sl_diags *diags, const char *name, const char *bytes, size_t len,
		       const char *fmt, ...)
{
	struct sl_source *src = sl_source_from_bytes(a, name, bytes, len);
	va_list ap;
	va_start(ap, fmt);
	sl_diags_vadd(diags, "internal", SL_SEV_ERROR, src, sl_source_span(src, 0, 0), fmt, ap);
	va_end(ap);
}

static void free_match_context(void *p)
{
	pcre2_match_context_free(p);
}

static void *new_match_context(struct sl_arena *a)
{
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	if (!mc)
		sl_oom();
	sl_arena_defer(a, free_match_context, mc);
	pcre2_set_match_limit(mc, SL_KEYMAP_MATCH_LIMIT);
	pcre2_set_depth_limit(mc, SL_KEYMAP_DEPTH_LIMIT);
	return mc;
}

static void *new_match_data(struct sl_arena *a)
{
	pcre2_match_data *md = pcre2_match_data_create(4, NULL);
	if (!md)
		sl_oom();
	sl_arena_defer(a, free_match_data, md);
	return md;
}

struct sl_keymap *sl_keymap_parse(struct sl_arena *a, const char *name, const char *bytes, size_t len,
				  struct sl_diags *diags)
{
	struct cyaml_log_ctx lc = {.a = a};
	sl_buf_init(&lc.msg, a);
	cyaml_config_t cfg = cyaml_cfg_base;
	cfg.log_fn = cyaml_log_to_buf;
	cfg.log_ctx = &lc;
	struct key_file *kf = NULL;
	cyaml_err_t err = cyaml_load_data((const uint8_t *)bytes, len, &cfg, &file_schema, (cyaml_data_t **)&kf, NULL);
	if (err != CYAML_OK) {
		keys_error(a, diags, name, bytes, len, "cannot load the key map: %s%s%s", cyaml_strerror(err),
			   lc.msg.len ? ": " : "", lc.msg.buf);
		return NULL;
	}
	sl_arena_defer(a, free_key_file, kf);
	struct sl_keymap *km = sl_arena_alloc(a, sizeof *km);
	for (unsigned i = 0; i < kf->keys_count; i++) {
		const struct key_entry *e = &kf->keys[i];
		int role = strcmp(e->role, "none") == 0 ? (int)SL_ROLE_NONE : sl_role_parse(e->role);
		if (role < 0) {
			keys_error(a, diags, name, bytes, len, "unknown role \"%s\" in the key map", e->role);
			return NULL;
		}
		keymap_reserve(a, km, e->patterns_count);
		for (unsigned j = 0; j < e->patterns_count; j++) {
			struct sl_key_rule *r = &km->rules[km->n];
			r->pattern = sl_arena_strdup(a, e->patterns[j]);
			r->role = (enum sl_role)role;
			r->if_true = e->if_true ? sl_arena_strdup(a, e->if_true) : NULL;
			r->if_false = e->if_false ? sl_arena_strdup(a, e->if_false) : NULL;
			r->add = e->add;
			r->origin = "rules/keys.yaml";
			const char *why = NULL;
			if (compile_rule(a, r, &why) < 0) {
				keys_error(a, diags, name, bytes, len, "%s", why);
				return NULL;
			}
			km->n++;
		}
	}
	km->match_data = new_match_data(a);
	km->match_context = new_match_context(a);
	km->arena = a;
	return km;
}

/* The generator (../snapshot/gen_catalog.c) links this file to parse; the snapshot is its output. */
#ifndef SL_SNAPSHOT_GENERATOR
static struct sl_keymap *keymap_parse_embedded(struct sl_arena *a, struct sl_diags *diags)
{
	const struct sl_blob *blob = sl_data_get("keys.yaml");
	return sl_keymap_parse(a, "rules/keys.yaml", blob ? blob->bytes : "", blob ? blob->len : 0, diags);
}

struct sl_keymap *sl_keymap_from_snapshot(struct sl_arena *a, const struct sl_snapshot *s, struct sl_diags *diags)
{
	struct sl_keymap *km = sl_arena_alloc(a, sizeof *km);
	km->n = km->cap = s->nkeys;
	km->rules = sl_arena_array(a, s->nkeys ? s->nkeys : 1, sizeof *km->rules);
	if (s->nkeys)
		memcpy(km->rules, s->keys, s->nkeys * sizeof *km->rules);
	void **codes = sl_arena_array(a, s->nkeys ? s->nkeys : 1, sizeof *codes);
	if (sl_snapshot_decode(a, s->key_codes, s->key_codes_len, s->nkeys, codes)) {
		for (size_t i = 0; i < s->nkeys; i++)
			km->rules[i].code = codes[i];
	} else {
		/* another PCRE2 at run time: compile from the text, or parse when that fails too */
		for (size_t i = 0; i < s->nkeys; i++)
			if (compile_rule(a, &km->rules[i], NULL) < 0)
				return keymap_parse_embedded(a, diags);
	}
	km->match_data = new_match_data(a);
	km->match_context = new_match_context(a);
	km->arena = a;
	return km;
}

struct sl_keymap *sl_keymap_new(struct sl_arena *a, struct sl_diags *diags)
{
	return sl_keymap_from_snapshot(a, &sl_snapshot, diags);
}
#endif

int sl_keymap_prepend(struct sl_arena *a, struct sl_keymap *km, const char *pattern, enum sl_role role,
		      const char *if_true, const char *if_false, const char *origin, const char **why)
{
	struct sl_key_rule r = {
		.pattern = sl_arena_strdup(a, pattern),
		.role = role,
		.if_true = if_true ? sl_arena_strdup(a, if_true) : NULL,
		.if_false = if_false ? sl_arena_strdup(a, if_false) : NULL,
		.origin = origin ? sl_arena_strdup(a, origin) : "project",
	};
	int rc = compile_rule(a, &r, why);
	if (rc < 0)
		return rc;
	keymap_reserve(a, km, 1);
	memmove(km->rules + 1, km->rules, km->n * sizeof *km->rules);
	km->rules[0] = r;
	km->n++;
	return 0;
}

const struct sl_key_rule *sl_keymap_match_patterns(const struct sl_keymap *km, const char *key, size_t len,
						   const struct sl_key_rule **limited)
{
	*limited = NULL;
	if (!km)
		return NULL;
	for (size_t i = 0; i < km->n; i++) {
		int rc = pcre2_match(km->rules[i].code, (PCRE2_SPTR)key, len, 0, 0, km->match_data, km->match_context);
		if (rc >= 0)
			return &km->rules[i];
		if (rc != PCRE2_ERROR_NOMATCH) {
			*limited = &km->rules[i]; /* match/depth/heap limit or another failure: not "no match" */
			return NULL;
		}
	}
	return NULL;
}

const struct sl_key_rule *sl_keymap_match_limited(const struct sl_keymap *km, const char *key, size_t len,
						  const struct sl_key_rule **limited)
{
	const struct sl_key_rule *r = sl_keymap_match_patterns(km, key, len, limited);
	if (r && r->role == SL_ROLE_NONE)
		return NULL; /* known to have no role: the words are not asked */
#ifndef SL_SNAPSHOT_GENERATOR
	if (!r && !*limited && km)
		r = sl_keywords_match(km, key, len, limited);
#endif
	return r;
}

const struct sl_key_rule *sl_keymap_match_none(const struct sl_keymap *km, const char *key, size_t len)
{
	const struct sl_key_rule *limited;
	const struct sl_key_rule *r = sl_keymap_match_patterns(km, key, len, &limited);
	return r && r->role == SL_ROLE_NONE ? r : NULL;
}

struct sl_key_rule *sl_key_rule_program(struct sl_arena *a, const struct sl_key_rule *base, const char *by,
					const struct sl_key_case *cases, size_t ncases)
{
	struct sl_key_rule *r = sl_arena_alloc(a, sizeof *r);
	*r = *base;
	r->code = NULL;
	r->origin = NULL;
	r->by = by;
	r->cases = cases;
	r->ncases = ncases;
	return r;
}

const char *sl_key_rule_describe(struct sl_arena *a, const struct sl_key_rule *r)
{
	if (r->by && !r->code && !r->origin)
		return r->by; /* a program's rule: what the program does with the key */
	const char *origin = r->origin ? r->origin : "the key map";
	if (r->by && !r->code)
		return sl_arena_printf(a, "%s from %s", r->by, origin); /* the vocabulary: its words say it */
	if (r->by)
		return sl_arena_printf(a, "%s: %s from %s", r->by, r->pattern, origin);
	return sl_arena_printf(a, "%s from %s", r->pattern, origin);
}

const struct sl_key_rule *sl_keymap_match(const struct sl_keymap *km, const char *key, size_t len)
{
	const struct sl_key_rule *limited;
	return sl_keymap_match_limited(km, key, len, &limited);
}

/* ---- values --------------------------------------------------------------------------- */

struct name_map {
	const char *name;
	int value;
};

static const struct name_map amp_names[] = {
	{"off", SL_AMP_OFF}, {"no", SL_AMP_OFF}, {"none", SL_AMP_OFF}, {"false", SL_AMP_OFF},
	{"fp32", SL_AMP_OFF}, {"float32", SL_AMP_OFF}, {"32", SL_AMP_OFF}, {"32-true", SL_AMP_OFF},
	{"fp16", SL_AMP_FP16}, {"float16", SL_AMP_FP16}, {"half", SL_AMP_FP16}, {"16", SL_AMP_FP16},
	{"16-mixed", SL_AMP_FP16}, {"bf16", SL_AMP_BF16}, {"bfloat16", SL_AMP_BF16}, {"bf16-mixed", SL_AMP_BF16},
	{NULL, 0},
};

static const struct name_map dtype_names[] = {
	{"fp32", SL_DTYPE_FP32}, {"float32", SL_DTYPE_FP32}, {"float", SL_DTYPE_FP32}, {"32", SL_DTYPE_FP32},
	{"torch.float32", SL_DTYPE_FP32}, {"bf16", SL_DTYPE_BF16}, {"bfloat16", SL_DTYPE_BF16},
	{"torch.bfloat16", SL_DTYPE_BF16}, {"bf16-true", SL_DTYPE_BF16}, {"fp16", SL_DTYPE_FP16},
	{"float16", SL_DTYPE_FP16}, {"half", SL_DTYPE_FP16}, {"torch.float16", SL_DTYPE_FP16},
	{"16-true", SL_DTYPE_FP16}, {NULL, 0},
};

static const struct name_map quant_names[] = {
	{"none", SL_QUANT_NONE}, {"no", SL_QUANT_NONE}, {"off", SL_QUANT_NONE}, {"false", SL_QUANT_NONE},
	{"16", SL_QUANT_NONE}, {"int8", SL_QUANT_INT8}, {"8", SL_QUANT_INT8}, {"8bit", SL_QUANT_INT8},
	{"llm.int8", SL_QUANT_INT8}, {"nf4", SL_QUANT_NF4}, {"fp4", SL_QUANT_NF4}, {"4", SL_QUANT_NF4},
	{"4bit", SL_QUANT_NF4}, {"int4", SL_QUANT_NF4}, {"qlora", SL_QUANT_NF4}, {"gptq", SL_QUANT_GPTQ},
	{"auto_gptq", SL_QUANT_GPTQ}, {"autogptq", SL_QUANT_GPTQ}, {"awq", SL_QUANT_AWQ}, {"autoawq", SL_QUANT_AWQ}, {NULL, 0},
};

static const struct name_map attn_names[] = {
	{"default", SL_ATTN_DEFAULT}, {"auto", SL_ATTN_DEFAULT}, {"eager", SL_ATTN_EAGER},
	{"sdpa", SL_ATTN_SDPA}, {"flash", SL_ATTN_FLASH}, {"flash_attention_2", SL_ATTN_FLASH},
	{"flash_attention_3", SL_ATTN_FLASH}, {"flash_attn", SL_ATTN_FLASH}, {"flash-attn", SL_ATTN_FLASH},
	{"kernels-community/flash-attn", SL_ATTN_FLASH}, {NULL, 0},
};

static const struct name_map offload_names[] = {
	{"none", SL_OFFLOAD_NONE}, {"no", SL_OFFLOAD_NONE}, {"off", SL_OFFLOAD_NONE},
	{"optimizer", SL_OFFLOAD_OPTIMIZER}, {"all", SL_OFFLOAD_ALL}, {"param", SL_OFFLOAD_ALL},
	{"params", SL_OFFLOAD_ALL}, {NULL, 0},
};

static int lookup(const struct name_map *m, const char *s)
{
	for (; m->name; m++)
		if (strcasecmp(m->name, s) == 0)
			return m->value;
	return -1;
}

/* true/false of a boolean-like value; -1 when it is neither */
static int truthy(const char *text, const struct sl_value *v)
{
	if (v) {
		switch (v->type) {
		case SL_V_BOOL:
			return v->b;
		case SL_V_INT:
			return v->big || v->i != 0;
		case SL_V_FLOAT:
			return v->f != 0;
		case SL_V_NULL:
			return 0;
		default:
			break;
		}
	}
	static const char *const yes[] = {"true", "yes", "on", "y", "1", "cpu", "nvme", "unsloth", "enable",
					  "enabled", NULL};
	static const char *const no[] = {"false", "no", "off", "n", "0", "none", "", "disable", "disabled", NULL};
	for (int i = 0; yes[i]; i++)
		if (strcasecmp(text, yes[i]) == 0)
			return 1;
	for (int i = 0; no[i]; i++)
		if (strcasecmp(text, no[i]) == 0)
			return 0;
	return -1;
}

/*
 * A positive integer from an int or a string of digits. A float, even 8.0, is not one: W&B passes
 * --per_device_train_batch_size=8.0, which argparse type=int and HfArgumentParser refuse, and a program
 * reading it from wandb.config or a YAML config hands torch's DataLoader, a tokenizer's max_length or
 * nn.Linear a float they refuse. floats_ok: an integral float is read (DeepSpeed's ZeRO stage, an int
 * Enum that 2.0 selects).
 */
static int positive_int(const char *text, const struct sl_value *v, uint64_t max, bool floats_ok, uint64_t *out)
{
	if (v && v->type == SL_V_INT && !v->big) {
		if (v->i <= 0 || (uint64_t)v->i > max)
			return -1;
		*out = (uint64_t)v->i;
		return 0;
	}
	if (v && v->type == SL_V_FLOAT && !floats_ok)
		return -1;
	if (v && v->type == SL_V_FLOAT) {
		if (!(v->f >= 1) || v->f > (double)max || floor(v->f) != v->f)
			return -1;
		*out = (uint64_t)v->f;
		return 0;
	}
	if (v && v->type != SL_V_STR)
		return -1;
	if (!text || !*text || strlen(text) > 19)
		return -1;
	for (const char *p = text; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	errno = 0;
	unsigned long long n = strtoull(text, NULL, 10);
	if (errno || n == 0 || n > max)
		return -1;
	*out = n;
	return 0;
}

/* Every sweep parameter a layer list's sizes name, taken as 1..8 to check the list's form. */
static bool template_range(void *ctx, const char *name, double *lo, double *hi)
{
	(void)ctx, (void)name;
	*lo = 1;
	*hi = 8;
	return true;
}

/* the value text for messages */
static const char *show(struct sl_arena *a, const char *text)
{
	if (!text)
		return "null";
	if (strlen(text) > 40)
		return sl_arena_printf(a, "\"%.37s...\"", text);
	return sl_arena_printf(a, "\"%s\"", text);
}

#define MAX_COUNT ((uint64_t)1 << 40) /* batch sizes, lengths: past this nothing is physical */

const struct sl_role_count *sl_role_count(enum sl_role r)
{
	static const struct sl_role_count positive = {"a positive integer", MAX_COUNT, false, true};
	static const struct sl_role_count positive_own = {"a positive integer", MAX_COUNT, false, false};
	static const struct sl_role_count workers = {"a whole number of workers (0 or more)", 4096, true, true};
	static const struct sl_role_count stage = {"a ZeRO stage: 0, 1, 2 or 3", 3, true, true};
	static const struct sl_role_count shape = {"a positive integer", (uint64_t)1 << 31, false, true};
	static const struct sl_role_count small = {"a positive integer", (uint64_t)1 << 20, false, true};
	switch (r) {
	case SL_ROLE_BATCH_SIZE:
	case SL_ROLE_EVAL_BATCH_SIZE:
	case SL_ROLE_SEQ_LEN:
	case SL_ROLE_TARGET_LEN:
	case SL_ROLE_LORA_R:
	case SL_ROLE_MINI_BATCH_SIZE:
	case SL_ROLE_NUM_BEAMS:
	case SL_ROLE_MAX_NEW_TOKENS:
	case SL_ROLE_NUM_VIRTUAL_TOKENS:
	case SL_ROLE_QUERY_LEN:
	case SL_ROLE_MAX_MODEL_LEN:
	case SL_ROLE_MAX_NUM_BATCHED_TOKENS:
	case SL_ROLE_NUM_GENERATIONS:     /* TRL refuses fewer than 2 for GRPO; 1 is PPO's */
	case SL_ROLE_PROMPT_LEN:
	case SL_ROLE_COMPLETION_LEN:
	case SL_ROLE_GENERATION_BATCH_SIZE:
	case SL_ROLE_STEPS_PER_GENERATION:
		return &positive;
	case SL_ROLE_CHUNKS_PER_TEXT:
	case SL_ROLE_TENSOR_PARALLEL:
	case SL_ROLE_MAX_NUM_SEQS:
	case SL_ROLE_IMAGE_SIZE:
	case SL_ROLE_NUM_CLASSES:
	case SL_ROLE_IN_CHANS:
		return &small;
	case SL_ROLE_GRAD_ACCUM:         /* -1: "derive it from a global batch" in many scripts */
	case SL_ROLE_NUM_GPUS:           /* Lightning devices=-1: every GPU; 0: the CPU */
	case SL_ROLE_TEXTS_PER_EXAMPLE:  /* -1 negatives: "all in the batch" */
		return &positive_own;
	case SL_ROLE_LAYERS:
	case SL_ROLE_HIDDEN_SIZE:
	case SL_ROLE_HEADS:
	case SL_ROLE_FFN_SIZE:
	case SL_ROLE_VOCAB_SIZE:
	case SL_ROLE_HEAD_DIM:
		return &shape;
	case SL_ROLE_NUM_WORKERS:
		return &workers;
	case SL_ROLE_ZERO_STAGE:
		return &stage;
	default:
		return NULL;
	}
}

enum sl_severity sl_role_count_refusal(enum sl_role r, const char *text, const struct sl_value *typed)
{
	const struct sl_role_count *c = sl_role_count(r);
	double x;
	if (!c)
		return SL_SEV_WARNING;
	if (typed && typed->type == SL_V_INT && !typed->big) {
		x = (double)typed->i;
	} else if (typed && (typed->type == SL_V_FLOAT || (typed->type == SL_V_INT && typed->big))) {
		x = typed->f;
	} else if (typed && typed->type != SL_V_STR) {
		return SL_SEV_WARNING; /* true, null: what the script makes of it is its own */
	} else {
		if (!text)
			return SL_SEV_WARNING;
		while (isspace((unsigned char)*text))
			text++;
		char *end = NULL;
		x = strtod(text, &end);
		while (end && isspace((unsigned char)*end))
			end++;
		if (!end || end == text || *end)
			return SL_SEV_WARNING; /* a word ("auto", "max") whose meaning is the script's */
	}
	if (!isfinite(x) || floor(x) != x || x > (double)c->max)
		return SL_SEV_ERROR;
	if (typed && typed->type == SL_V_FLOAT && r != SL_ROLE_ZERO_STAGE)
		return SL_SEV_ERROR; /* 8.0: a float no int argument takes (positive_int) */
	bool below = c->zero_ok ? x < 0 : x <= 0;
	return below && !c->below_refused ? SL_SEV_WARNING : SL_SEV_ERROR;
}

int sl_role_value_from_text(struct sl_arena *a, enum sl_role r, const struct sl_key_rule *rule,
			    const char *text, const struct sl_value *typed, struct sl_role_value *out,
			    const char **why)
{
	memset(out, 0, sizeof *out);
	out->role = r;
	if (!text)
		text = "";
	const char *t = text;
	/* boolean-like keys: fp16: true means amp=fp16 */
	if (rule && (rule->if_true || rule->if_false)) {
		if (strcasecmp(text, "auto") == 0 && (r == SL_ROLE_AMP || r == SL_ROLE_DTYPE)) {
			t = rule->if_true ? rule->if_true : "auto";
		} else {
			int b = truthy(text, typed);
			if (b < 0 && r != SL_ROLE_QUANT && r != SL_ROLE_ATTN && r != SL_ROLE_AMP)
				goto bad;
			if (b == 1 && rule->if_true)
				t = rule->if_true;
			else if (b == 0 && rule->if_false) {
				t = rule->if_false;
				/* "fp16: false" only turns fp16 off; it says nothing about bf16 */
				struct sl_role_value pos;
				if (rule->if_true && strcasecmp(rule->if_true, "auto") != 0 &&
				    sl_role_value_from_text(a, r, NULL, rule->if_true, NULL, &pos, NULL) == 0) {
					out->negates = true;
					out->negated = pos.u;
				}
			}
		}
	}
	const struct sl_role_count *cr = sl_role_count(r);
	if (cr) {
		uint64_t n;
		const struct sl_value *tv = t == text ? typed : NULL;
		bool zero = (tv && tv->type == SL_V_INT && !tv->big && tv->i == 0) || strcmp(t, "0") == 0;
		if (zero && cr->zero_ok) {
			out->u = 0;
			return 0;
		}
		if (positive_int(t, tv, cr->max, r == SL_ROLE_ZERO_STAGE, &n) < 0)
			goto bad;
		if (rule && rule->add > 0)
			n += (uint64_t)rule->add;
		out->u = n;
		return 0;
	}
	int rl = sl_role_rl_value(r, t, t == text ? typed : NULL, out);
	if (rl > 0)
		return 0;
	if (rl < 0)
		goto bad;
	switch (r) {
	case SL_ROLE_MODEL:
	case SL_ROLE_DEEPSPEED:
		if (typed && typed->type != SL_V_STR)
			goto bad;
		if (!*t)
			goto bad;
		out->s = sl_arena_strdup(a, t);
		return 0;
	case SL_ROLE_TASK: {
		int k = sl_task_parse(t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_PEFT_METHOD: {
		/* axolotl leaves `adapter:` empty for a full fine-tune */
		/* LLaMA-Factory finetuning_type / ms-swift sft_type: full and freeze train without an adapter */
		if (strcasecmp(t, "full") == 0 || strcasecmp(t, "freeze") == 0) {
			out->u = strcasecmp(t, "full") == 0 ? SL_PEFT_FULL_ROLE : SL_PEFT_FREEZE_ROLE;
			return 0;
		}
		int k = (!*t || strcasecmp(t, "null") == 0 || strcasecmp(t, "false") == 0) ? SL_PEFT_NONE : sl_peft_parse(t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_TRAINABLE_LAYERS: {
		/* a nonzero integer: the last N layers, or the first -N (LLaMA-Factory freeze_trainable_layers) */
		const struct sl_value *tv = t == text ? typed : NULL;
		long long n = 0;
		if (tv && tv->type == SL_V_INT && !tv->big)
			n = tv->i;
		else if (!tv || tv->type == SL_V_STR) {
			char *end = NULL;
			errno = 0;
			n = strtoll(t, &end, 10);
			if (errno || end == t || *end)
				n = 0;
		}
		if (n == 0 || n > (1 << 20) || n < -(1 << 20))
			goto bad;
		out->u = (uint64_t)(int64_t)n;
		return 0;
	}
	case SL_ROLE_TRAINABLE_MODULES:
	case SL_ROLE_FREEZE_EXTRA: {
		int bits = sl_freeze_modules_parse(t, r == SL_ROLE_FREEZE_EXTRA);
		if (bits < 0)
			goto bad;
		out->u = (uint64_t)bits;
		return 0;
	}
	case SL_ROLE_FSDP: {
		int k = sl_fsdp_parse(t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		/* Lightning's DeepSpeed strategies: "deepspeed" is stage 2 (DeepSpeedStrategy's default);
		 * _offload moves the optimizer states (stage 2) or the states and parameters (stage 3) to the CPU */
		static const struct {
			const char *name;
			unsigned stage, offload;
		} ds[] = {
			{"deepspeed", 2, SL_OFFLOAD_NONE}, {"deepspeed_stage_1", 1, SL_OFFLOAD_NONE},
			{"deepspeed_stage_2", 2, SL_OFFLOAD_NONE}, {"deepspeed_stage_2_offload", 2, SL_OFFLOAD_OPTIMIZER},
			{"deepspeed_stage_3", 3, SL_OFFLOAD_NONE}, {"deepspeed_stage_3_offload", 3, SL_OFFLOAD_ALL},
			{"deepspeed_stage_3_offload_nvme", 3, SL_OFFLOAD_ALL},
		};
		for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
			if (strcasecmp(t, ds[i].name) == 0) {
				out->also[0].role = SL_ROLE_ZERO_STAGE;
				out->also[0].u = ds[i].stage;
				out->also[1].role = SL_ROLE_OFFLOAD;
				out->also[1].u = ds[i].offload;
				out->nalso = ds[i].offload == SL_OFFLOAD_NONE ? 1 : 2; /* leave a config's offload alone */
			}
		return 0;
	}
	case SL_ROLE_FSDP_INIT: {
		/*
		 * the whole model on the GPU before FSDP wraps it: device / gpu / cuda (model.to(device), a
		 * device_map); per unit, every process loading on its CPU: cpu / per_unit; per unit with only
		 * local rank 0 holding the model on the host: rank0 / meta, and accelerate's
		 * fsdp_cpu_ram_efficient_loading as a boolean (true: rank 0 loads on the CPU, the others
		 * build on the meta device; false: every process loads)
		 */
		static const struct name_map init_names[] = {
			{"device", SL_FSDP_INIT_DEVICE}, {"gpu", SL_FSDP_INIT_DEVICE}, {"cuda", SL_FSDP_INIT_DEVICE},
			{"per_unit", SL_FSDP_INIT_PER_UNIT}, {"cpu", SL_FSDP_INIT_PER_UNIT}, {"meta", SL_FSDP_INIT_RANK0},
			{"rank0", SL_FSDP_INIT_RANK0}, {NULL, 0},
		};
		int k = lookup(init_names, t);
		if (k < 0) {
			int b = truthy(t, t == text ? typed : NULL);
			if (b < 0)
				goto bad;
			k = b ? SL_FSDP_INIT_RANK0 : SL_FSDP_INIT_PER_UNIT;
		}
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_FSDP_STATE_DICT: {
		/* torch StateDictType names, accelerate's fsdp_state_dict_type numbers (1 FULL_STATE_DICT,
		 * 2 LOCAL_STATE_DICT, 3 SHARDED_STATE_DICT), Lightning's state_dict_type "full" / "sharded" */
		static const struct name_map sd_names[] = {
			{"full", SL_FSDP_SD_FULL}, {"full_state_dict", SL_FSDP_SD_FULL}, {"statedicttype.full_state_dict", SL_FSDP_SD_FULL},
			{"1", SL_FSDP_SD_FULL}, {"sharded", SL_FSDP_SD_SHARDED}, {"sharded_state_dict", SL_FSDP_SD_SHARDED},
			{"statedicttype.sharded_state_dict", SL_FSDP_SD_SHARDED}, {"3", SL_FSDP_SD_SHARDED},
			{"local", SL_FSDP_SD_LOCAL}, {"local_state_dict", SL_FSDP_SD_LOCAL},
			{"statedicttype.local_state_dict", SL_FSDP_SD_LOCAL}, {"2", SL_FSDP_SD_LOCAL},
			{"full_device", SL_FSDP_SD_FULL_DEVICE}, {"full_gpu", SL_FSDP_SD_FULL_DEVICE}, {NULL, 0},
		};
		int k = lookup(sd_names, t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_FSDP_AUTO_WRAP:
		/* accelerate fsdp_auto_wrap_policy: a policy wraps each block, NO_WRAP leaves one unit */
		if (strcasecmp(t, "TRANSFORMER_BASED_WRAP") == 0 || strcasecmp(t, "SIZE_BASED_WRAP") == 0) {
			out->u = 1;
			return 0;
		}
		if (strcasecmp(t, "NO_WRAP") == 0) {
			out->u = 0;
			return 0;
		}
		/* else a boolean */
		__attribute__((fallthrough));
	case SL_ROLE_CHUNKED_CE:
		/* torchtune names the loss class: loss._component_: torchtune.modules.loss.CEWithChunkedOutputLoss */
		if (strchr(t, '.') && !(typed && typed->type != SL_V_STR)) {
			out->u = strcasestr(t, "chunked") != NULL;
			return 0;
		}
		__attribute__((fallthrough));
	case SL_ROLE_FSDP_EMBEDDING_UNITS:
		/* torchtune custom_sharded_layers: the module names wrapped on their own, e.g. [tok_embeddings, output] */
		if (strcasestr(t, "embed") || strcasestr(t, "output") || strcasestr(t, "lm_head")) {
			out->u = 1;
			return 0;
		}
		if (!*t || strcmp(t, "[]") == 0) {
			out->u = 0;
			return 0;
		}
		__attribute__((fallthrough));
	case SL_ROLE_FSDP_USE_ORIG_PARAMS:
	case SL_ROLE_KBIT_PREPARE:
	case SL_ROLE_BNB_LEGACY:
	case SL_ROLE_UPCAST_TRAINABLE:
	case SL_ROLE_FREEZE_VISION:
	case SL_ROLE_FREEZE_PROJECTOR:
	case SL_ROLE_TORCH_COMPILE:
	case SL_ROLE_LIGER:
	case SL_ROLE_PACKING:
	case SL_ROLE_OPTIMIZER_IN_BACKWARD:
	case SL_ROLE_ACTIVATION_OFFLOAD:
	case SL_ROLE_FSDP_OFFLOAD:
	case SL_ROLE_GRADIENT_CHECKPOINTING:
	case SL_ROLE_ZERO3_INIT:
	case SL_ROLE_PIN_MEMORY: {
		int b = truthy(t, t == text ? typed : NULL);
		if (b < 0)
			goto bad;
		out->u = (uint64_t)b;
		return 0;
	}
	case SL_ROLE_AMP: {
		if (strcasecmp(t, "auto") == 0 || (t == text && truthy(t, typed) == 1 && lookup(amp_names, t) < 0)) {
			out->is_auto = true;
			out->u = SL_AMP_BF16;
			return 0;
		}
		/* Lightning Trainer(precision=...) "bf16-true" / "16-true": the whole model in 16 bits */
		static const struct name_map pure_names[] = {
			{"bf16-true", SL_DTYPE_BF16}, {"16-true", SL_DTYPE_FP16}, {NULL, 0},
		};
		int k = lookup(pure_names, t);
		if (k >= 0) {
			out->u = SL_AMP_OFF;
			out->also[out->nalso].role = SL_ROLE_DTYPE;
			out->also[out->nalso++].u = (uint64_t)k;
			return 0;
		}
		k = lookup(amp_names, t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_DTYPE: {
		if (strcasecmp(t, "auto") == 0) {
			out->is_auto = true;
			out->u = SL_DTYPE_BF16;
			return 0;
		}
		int k = lookup(dtype_names, t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_OPTIMIZER: {
		int k = sl_optim_parse(t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_OPTIMIZER_IMPL: {
		int k = sl_optim_impl_parse(t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_LORA_TARGETS: {
		uint32_t bits = sl_lora_targets_parse(t);
		if (!bits)
			goto bad;
		out->u = bits;
		return 0;
	}
	case SL_ROLE_MODULES_TO_SAVE: {
		int bits = sl_modules_to_save_parse(t);
		if (bits < 0)
			goto bad;
		out->u = (uint64_t)bits;
		return 0;
	}
	case SL_ROLE_QUANT: {
		int k = lookup(quant_names, t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_ATTN: {
		int k = lookup(attn_names, t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_MODE: {
		int k = sl_mode_parse(t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_PART: {
		int k = sl_part_parse(t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_LOSS: {
		/* a loss that is not a sentence-transformers one (cross_entropy, mse) says nothing to the
		 * memory model: SL_LOSS__COUNT, which leaves the settings alone */
		int k = sl_loss_parse(t);
		if (k < 0)
			k = SL_LOSS__COUNT;
		out->u = (uint64_t)k;
		/* a sentence-transformers loss trains a bi-encoder */
		if (k != SL_LOSS_NONE && k != SL_LOSS__COUNT) {
			out->also[0].role = SL_ROLE_TASK;
			out->also[0].u = SL_TASK_BI_ENCODER;
			out->nalso = 1;
		}
		return 0;
	}
	case SL_ROLE_ENGINE: {
		int k = sl_engine_parse(t);
		if (k < 0)
			goto bad;
		out->u = (uint64_t)k;
		return 0;
	}
	case SL_ROLE_PADDING: {
		/* padding="max_length" pads every sequence to it; True / "longest" / False ("do_not_pad",
		 * then a collator pads each batch) make each batch as long as its longest example */
		if (strcasecmp(t, "max_length") == 0 || strcasecmp(t, "fixed") == 0 ||
		    strcasecmp(t, "PaddingStrategy.MAX_LENGTH") == 0) {
			out->u = 0;
			return 0;
		}
		const struct sl_value *tv = t == text ? typed : NULL;
		bool boolean = tv ? tv->type == SL_V_BOOL : (strcasecmp(t, "true") == 0 || strcasecmp(t, "false") == 0);
		if (strcasecmp(t, "longest") == 0 || strcasecmp(t, "dynamic") == 0 || strcasecmp(t, "do_not_pad") == 0 ||
		    strcasecmp(t, "PaddingStrategy.LONGEST") == 0 || strcasecmp(t, "PaddingStrategy.DO_NOT_PAD") == 0 ||
		    boolean) {
			out->u = 1;
			return 0;
		}
		/* another padding (a convolution's "same", 1): not a tokenizer's, left alone */
		out->u = 2;
		return 0;
	}
	case SL_ROLE_SEPARATE_ENCODERS: {
		int b = truthy(t, t == text ? typed : NULL);
		if (b < 0)
			goto bad;
		out->u = (uint64_t)b;
		return 0;
	}
	case SL_ROLE_FROZEN: {
		/* none | embeddings | backbone (the whole model but its head) | N: the embeddings and N layers */
		const struct sl_value *tv = t == text ? typed : NULL;
		int b = truthy(t, tv);
		char *end = NULL;
		unsigned long long n = isdigit((unsigned char)*t) ? strtoull(t, &end, 10) : 0;
		if (end && !*end && n < SL_FROZEN_BACKBONE) {
			out->u = n;
			return 0;
		}
		if (strcasecmp(t, "none") == 0 || b == 0) {
			out->u = 0;
			return 0;
		}
		if (strcasecmp(t, "embeddings") == 0 || strcasecmp(t, "embedding") == 0) {
			out->u = SL_FROZEN_EMBEDDINGS_ROLE;
			return 0;
		}
		if (strcasecmp(t, "backbone") == 0 || strcasecmp(t, "base") == 0 || strcasecmp(t, "encoder") == 0 ||
		    strcasecmp(t, "model") == 0 || strcasecmp(t, "all") == 0 || b == 1) {
			out->u = SL_FROZEN_BACKBONE;
			return 0;
		}
		goto bad;
	}
	case SL_ROLE_HEAD_PARAMS:
	case SL_ROLE_MODULES: {
		/* a count (head_params) or a layer list (struct sl_modules) */
		const struct sl_value *tv = t == text ? typed : NULL;
		uint64_t n;
		if (r == SL_ROLE_HEAD_PARAMS && positive_int(t, tv, MAX_COUNT, true, &n) == 0) {
			out->u = n;
			return 0;
		}
		struct sl_modules mods;
		const char *mwhy = NULL;
		const char **names = NULL;
		if (r == SL_ROLE_MODULES && sl_moddim_params(a, t, &names) > 0) {
			/* sizes computed from sweep parameters ({d_model * 4}): counted per combination when the
			 * axes are built (axes.c); here the form alone is checked, every parameter taken as 1..8 */
			struct sl_modules_env dry = {.range = template_range};
			if (sl_modules_parse_env(a, t, &dry, &mods, &mwhy) != 0) {
				if (why)
					*why = sl_arena_printf(a, "modules %s is not a layer list sweeplint can count (%s)",
							       show(a, text), mwhy ? mwhy : "?");
				return -SL_EPARSE;
			}
			out->u = 0;
			out->s = sl_arena_strdup(a, t);
			return 0;
		}
		if (sl_modules_parse(a, t, &mods, &mwhy) != 0) {
			if (why)
				*why = sl_arena_printf(a, "%s %s is not a parameter count or a layer list sweeplint can "
							  "count (%s)",
						       sl_role_name(r), show(a, text), mwhy ? mwhy : "?");
			return -SL_EPARSE;
		}
		out->u = mods.params;
		out->s = mods.text;
		return 0;
	}
	case SL_ROLE_GPU_MEMORY_UTILIZATION: {
		/* a fraction in (0, 1]: vLLM refuses anything else */
		const struct sl_value *tv = t == text ? typed : NULL;
		char *end = NULL;
		double f = tv && tv->type == SL_V_FLOAT ? tv->f
			 : tv && tv->type == SL_V_INT && !tv->big ? (double)tv->i
			 : strtod(t, &end);
		if (end && (end == t || *end))
			goto bad;
		if (!(f > 0 && f <= 1))
			goto bad;
		out->u = (uint64_t)llround(f * 10000);
		return 0;
	}
	case SL_ROLE_LORA_DROPOUT: {
		/* a probability in [0, 1) (torch.nn.Dropout refuses p outside [0, 1]; p = 1 drops everything) */
		const struct sl_value *tv = t == text ? typed : NULL;
		char *end = NULL;
		double f = tv && tv->type == SL_V_FLOAT ? tv->f
			 : tv && tv->type == SL_V_INT && !tv->big ? (double)tv->i
			 : strtod(t, &end);
		if (end && (end == t || *end))
			goto bad;
		if (!(f >= 0 && f <= 1))
			goto bad;
		out->u = (uint64_t)llround(f * 10000);
		return 0;
	}
	case SL_ROLE_OFFLOAD: {
		int k = lookup(offload_names, t);
		if (k < 0) {
			/* offload devices: cpu / nvme move the states off the GPU */
			int b = truthy(t, NULL);
			if (b < 0)
				goto bad;
			k = b ? SL_OFFLOAD_OPTIMIZER : SL_OFFLOAD_NONE;
		}
		out->u = (uint64_t)k;
		return 0;
	}
	default:
		break;
	}
bad:
	if (why)
		*why = sl_arena_printf(a, "%s %s is not a value sweeplint understands for role %s", r == SL_ROLE_MODEL ? "model" : "value",
				       show(a, text), sl_role_name(r));
	return -SL_EPARSE;
}

bool sl_node_same_value(const struct sl_node *x, const struct sl_node *y)
{
	if (!x || !y || x->kind != SL_NODE_SCALAR || y->kind != SL_NODE_SCALAR || x->value.type != y->value.type)
		return false;
	switch (x->value.type) {
	case SL_V_INT:
		if (x->value.big || y->value.big)
			return x->value.big && y->value.big && x->value.bigkey == y->value.bigkey;
		return x->value.i == y->value.i;
	case SL_V_FLOAT:
		return x->value.f == y->value.f;
	case SL_V_BOOL:
		return x->value.b == y->value.b;
	case SL_V_NULL:
		return true;
	default:
		return x->text_len == y->text_len && memcmp(x->text, y->text, x->text_len) == 0;
	}
}

/* A value map: the case for node, translated by the rule without its cases. */
static int from_case(struct sl_arena *a, enum sl_role r, const struct sl_key_rule *rule, const struct sl_node *node,
		     struct sl_role_value *out, const char **why)
{
	memset(out, 0, sizeof *out);
	out->role = r;
	for (size_t i = 0; i < rule->ncases; i++) {
		const struct sl_key_case *c = &rule->cases[i];
		if (!sl_node_same_value(c->when, node))
			continue;
		if (!c->to && !c->unknown) {
			out->unset = true;
			return 0;
		}
		if (!c->to) {
			if (why)
				*why = sl_arena_printf(a, "the program's %s for %s is not known (%s)", sl_role_name(r),
						       node->text, c->unknown);
			return -SL_EPARSE;
		}
		struct sl_key_rule plain = *rule;
		plain.cases = NULL;
		plain.ncases = 0;
		return sl_role_value_from_node(a, r, &plain, c->to, out, why);
	}
	if (why)
		*why = sl_arena_printf(a, "the program maps no %s for %s", sl_role_name(r),
				       node && node->kind == SL_NODE_SCALAR ? node->text : sl_node_describe(node));
	return -SL_EPARSE;
}

int sl_role_value_from_node(struct sl_arena *a, enum sl_role r, const struct sl_key_rule *rule,
			    const struct sl_node *node, struct sl_role_value *out, const char **why)
{
	if (rule && rule->ncases)
		return from_case(a, r, rule, node, out, why);
	if (node && node->kind == SL_NODE_SEQ &&
	    (r == SL_ROLE_LORA_TARGETS || r == SL_ROLE_MODULES_TO_SAVE || r == SL_ROLE_FSDP ||
	     r == SL_ROLE_FSDP_EMBEDDING_UNITS)) {
		struct sl_buf b;
		sl_buf_init(&b, a);
		for (size_t i = 0; i < node->n; i++) {
			if (node->items[i]->kind != SL_NODE_SCALAR)
				continue;
			if (b.len)
				sl_buf_addc(&b, ',');
			sl_buf_adds(&b, node->items[i]->text);
		}
		return sl_role_value_from_text(a, r, rule, b.buf, NULL, out, why);
	}
	if (node && node->kind == SL_NODE_SEQ && r == SL_ROLE_NUM_GPUS && node->n) {
		/* Lightning devices: [0, 1] — the GPUs listed */
		memset(out, 0, sizeof *out);
		out->role = r;
		out->u = node->n;
		return 0;
	}
	if (!node || node->kind != SL_NODE_SCALAR) {
		memset(out, 0, sizeof *out);
		out->role = r;
		if (why)
			*why = sl_arena_printf(a, "role %s needs a single value, not %s", sl_role_name(r),
					       sl_node_describe(node));
		return -SL_EPARSE;
	}
	if (sl_node_has_nul(node)) {
		/* read as C text it would be cut at the NUL: "bert-base-uncased\0junk" resolved as bert-base-uncased */
		memset(out, 0, sizeof *out);
		out->role = r;
		if (why)
			*why = sl_arena_printf(a, "value %s holds a NUL byte: no run can use it", show(a, node->text));
		return -SL_EPARSE;
	}
	return sl_role_value_from_text(a, r, rule, node->text, &node->value, out, why);
}

static void apply_one(struct sl_settings *s, const struct sl_role_value *v, bool gpu_bf16);

void sl_settings_apply(struct sl_settings *s, const struct sl_role_value *v, bool gpu_bf16)
{
	if (v->unset)
		return;
	apply_one(s, v, gpu_bf16);
	for (unsigned i = 0; i < v->nalso && i < 2; i++) {
		struct sl_role_value w = {.role = v->also[i].role, .u = v->also[i].u};
		apply_one(s, &w, gpu_bf16);
	}
}

static void apply_one(struct sl_settings *s, const struct sl_role_value *v, bool gpu_bf16)
{
	if (sl_settings_apply_rl(s, v))
		return;
	uint64_t u = v->u;
	switch (v->role) {
	case SL_ROLE_TASK:
		s->task = (enum sl_task)u;
		break;
	case SL_ROLE_BATCH_SIZE:
		s->batch_size = u;
		break;
	case SL_ROLE_EVAL_BATCH_SIZE:
		s->eval_batch_size = u;
		break;
	case SL_ROLE_GRAD_ACCUM:
		s->grad_accum = u;
		break;
	case SL_ROLE_SEQ_LEN:
		s->seq_len = u;
		break;
	case SL_ROLE_TARGET_LEN:
		s->target_len = u;
		break;
	case SL_ROLE_DTYPE:
		s->dtype = v->is_auto ? (gpu_bf16 ? SL_DTYPE_BF16 : SL_DTYPE_FP16) : (enum sl_dtype)u;
		break;
	case SL_ROLE_AMP:
		if (v->negates) {
			/* fp16: false turns fp16 off, leaves bf16 alone */
			if (s->amp == (enum sl_amp)v->negated)
				s->amp = (enum sl_amp)u;
			break;
		}
		s->amp = v->is_auto ? (gpu_bf16 ? SL_AMP_BF16 : SL_AMP_FP16) : (enum sl_amp)u;
		break;
	case SL_ROLE_GRADIENT_CHECKPOINTING:
		s->gradient_checkpointing = u != 0;
		break;
	case SL_ROLE_OPTIMIZER:
		s->optimizer = (enum sl_optim)(u & ~(uint64_t)(SL_OPTIM_PAGED | SL_OPTIM_FUSED | SL_OPTIM_LOOP));
		s->optimizer_paged = (u & SL_OPTIM_PAGED) != 0;
		/* a name that says how the step runs (adamw_torch_fused, adamw_hf); another leaves what
		 * optimizer_impl set (torchtune's optimizer.fused beside optimizer._component_) */
		if (u & SL_OPTIM_FUSED)
			s->optimizer_impl = SL_OPTIM_IMPL_FUSED;
		else if (u & SL_OPTIM_LOOP)
			s->optimizer_impl = SL_OPTIM_IMPL_LOOP;
		break;
	case SL_ROLE_OPTIMIZER_IMPL:
		if (u < SL_OPTIM_IMPL__COUNT)
			s->optimizer_impl = (uint8_t)u;
		break;
	case SL_ROLE_LORA_R:
		if (!s->full_tuning) /* LLaMA-Factory reads lora_rank only for finetuning_type lora / oft */
			s->lora_r = (uint32_t)u;
		break;
	case SL_ROLE_LORA_DROPOUT:
		s->lora_dropout_bp = u > 10000 ? 10000 : (uint32_t)u;
		break;
	case SL_ROLE_MODULES_TO_SAVE:
		s->modules_to_save = (uint32_t)u;
		break;
	case SL_ROLE_LORA_TARGETS:
		s->lora_targets = (uint32_t)u;
		break;
	case SL_ROLE_QUANT:
		if (!v->negates || s->quant == (enum sl_quant)v->negated)
			s->quant = (enum sl_quant)u;
		break;
	case SL_ROLE_ATTN:
		if (!v->negates || s->attn == (enum sl_attn)v->negated)
			s->attn = (enum sl_attn)u;
		break;
	case SL_ROLE_ZERO_STAGE:
		s->zero_stage = (uint32_t)u;
		break;
	case SL_ROLE_OFFLOAD:
		if (v->negates) {
			if (s->offload == (enum sl_offload)v->negated)
				s->offload = (enum sl_offload)u;
			break;
		}
		if ((enum sl_offload)u > s->offload || u == SL_OFFLOAD_NONE)
			s->offload = (enum sl_offload)u;
		break;
	case SL_ROLE_NUM_GPUS:
		s->num_gpus = (uint32_t)u;
		break;
	case SL_ROLE_NUM_WORKERS:
		s->num_workers = (uint32_t)u;
		break;
	case SL_ROLE_TEXTS_PER_EXAMPLE:
		s->texts_per_example = (uint32_t)u;
		break;
	case SL_ROLE_MINI_BATCH_SIZE:
		s->mini_batch_size = u;
		break;
	case SL_ROLE_ZERO3_INIT:
		s->zero3_init = u != 0;
		break;
	case SL_ROLE_MODE:
		s->mode = (enum sl_mode)u;
		break;
	case SL_ROLE_NUM_BEAMS:
		s->num_beams = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
		break;
	case SL_ROLE_MAX_NEW_TOKENS:
		s->max_new_tokens = u;
		break;
	case SL_ROLE_GPU_MEMORY_UTILIZATION:
		s->gpu_mem_util_bp = (uint32_t)u;
		break;
	case SL_ROLE_PIN_MEMORY:
		s->pin_memory = u != 0;
		break;
	case SL_ROLE_FSDP:
		s->fsdp = (enum sl_fsdp)(u & ~(uint64_t)SL_FSDP_OFFLOAD_BIT);
		if (u & SL_FSDP_OFFLOAD_BIT)
			s->fsdp_offload = true;
		break;
	case SL_ROLE_FSDP_OFFLOAD:
		s->fsdp_offload = u != 0;
		break;
	case SL_ROLE_PEFT_METHOD:
		if (u == SL_PEFT_FULL_ROLE || u == SL_PEFT_FREEZE_ROLE) {
			s->peft_method = SL_PEFT_NONE;
			s->full_tuning = true;
			s->freeze_tuning = u == SL_PEFT_FREEZE_ROLE;
			s->lora_r = 0;
			break;
		}
		/* use_dora: false turns DoRA off, leaves another method alone */
		if (!v->negates || s->peft_method == (enum sl_peft)v->negated) {
			s->peft_method = (enum sl_peft)u;
			s->full_tuning = s->freeze_tuning = false;
		}
		break;
	case SL_ROLE_TRAINABLE_LAYERS:
		s->trainable_layers = (int32_t)(int64_t)u;
		break;
	case SL_ROLE_TRAINABLE_MODULES:
		s->trainable_modules = (uint32_t)u;
		break;
	case SL_ROLE_FREEZE_EXTRA:
		s->freeze_extra = (uint32_t)u;
		break;
	case SL_ROLE_FREEZE_VISION:
		s->freeze_vision = u != 0;
		break;
	case SL_ROLE_FREEZE_PROJECTOR:
		s->freeze_projector = u != 0;
		break;
	case SL_ROLE_NUM_VIRTUAL_TOKENS:
		s->num_virtual_tokens = u > UINT32_MAX ? UINT32_MAX : (uint32_t)u;
		break;
	case SL_ROLE_TORCH_COMPILE:
		s->torch_compile = u != 0;
		break;
	case SL_ROLE_LIGER:
		s->liger = u != 0;
		break;
	case SL_ROLE_CHUNKED_CE:
		s->chunked_ce = u != 0;
		break;
	case SL_ROLE_PACKING:
		s->packing = u != 0;
		break;
	case SL_ROLE_OPTIMIZER_IN_BACKWARD:
		s->optimizer_in_backward = u != 0;
		break;
	case SL_ROLE_ACTIVATION_OFFLOAD:
		s->activation_offload = u != 0;
		break;
	case SL_ROLE_FSDP_AUTO_WRAP:
		s->fsdp_no_wrap = u == 0;
		break;
	case SL_ROLE_FSDP_INIT:
		s->fsdp_init = (enum sl_fsdp_init)u;
		break;
	case SL_ROLE_FSDP_STATE_DICT:
		s->fsdp_state_dict = (enum sl_fsdp_sd)u;
		break;
	case SL_ROLE_FSDP_USE_ORIG_PARAMS:
		s->fsdp_orig_params = u != 0;
		break;
	case SL_ROLE_KBIT_PREPARE:
		s->kbit_prepare_off = u == 0;
		break;
	case SL_ROLE_FSDP_EMBEDDING_UNITS:
		s->fsdp_embed_units = u != 0;
		break;
	case SL_ROLE_BNB_LEGACY:
		s->bnb_legacy = u != 0;
		break;
	case SL_ROLE_UPCAST_TRAINABLE:
		s->upcast_trainable = u != 0;
		break;
	case SL_ROLE_FROZEN:
		s->frozen_layers = u == SL_FROZEN_EMBEDDINGS_ROLE ? 0 : (uint32_t)u;
		s->frozen_embeddings = u != 0;
		break;
	case SL_ROLE_HEAD_PARAMS:
		s->head_params = u;
		break;
	case SL_ROLE_PART:
		s->part = (enum sl_part)u;
		break;
	case SL_ROLE_SEPARATE_ENCODERS:
		s->separate_encoders = u != 0;
		break;
	case SL_ROLE_QUERY_LEN:
		s->query_len = u;
		break;
	case SL_ROLE_CHUNKS_PER_TEXT:
		s->chunks_per_text = (uint32_t)u;
		break;
	case SL_ROLE_IMAGE_SIZE:
		s->image_size = (uint32_t)u;
		break;
	case SL_ROLE_NUM_CLASSES:
		s->num_classes = (uint32_t)u;
		break;
	case SL_ROLE_IN_CHANS:
		s->in_chans = (uint32_t)u;
		break;
	case SL_ROLE_LOSS:
		if (u < SL_LOSS__COUNT)
			s->loss = (enum sl_loss)u;
		break;
	case SL_ROLE_PADDING:
		if (u < 2)
			s->dynamic_padding = u != 0;
		break;
	case SL_ROLE_ENGINE:
		s->engine = (enum sl_engine)u;
		break;
	case SL_ROLE_MAX_MODEL_LEN:
		s->max_model_len = u;
		break;
	case SL_ROLE_TENSOR_PARALLEL:
		s->tensor_parallel = (uint32_t)u;
		break;
	case SL_ROLE_MAX_NUM_BATCHED_TOKENS:
		s->max_num_batched_tokens = u;
		break;
	case SL_ROLE_MAX_NUM_SEQS:
		s->max_num_seqs = (uint32_t)u;
		break;
	default:
		break;
	}
}

int sl_fsdp_parse(const char *text)
{
	/*
	 * torch ShardingStrategy names; accelerate's fsdp_sharding_strategy numbers (1 FULL_SHARD,
	 * 2 SHARD_GRAD_OP, 3 NO_SHARD, 4 HYBRID_SHARD, 5 HYBRID_SHARD_ZERO2); accelerate
	 * distributed_type and Lightning strategy names; HF TrainingArguments.fsdp options
	 * ("full_shard offload auto_wrap"; a bool True is full_shard there).
	 */
	static const struct {
		const char *name;
		int value;
	} words[] = {
		{"full_shard", SL_FSDP_FULL_SHARD}, {"shard_grad_op", SL_FSDP_SHARD_GRAD_OP},
		{"hybrid_shard", SL_FSDP_HYBRID_SHARD}, {"hybrid_shard_zero2", SL_FSDP_HYBRID_SHARD_ZERO2},
		{"_hybrid_shard_zero2", SL_FSDP_HYBRID_SHARD_ZERO2}, {"no_shard", SL_FSDP_NO_SHARD},
		{"fsdp", SL_FSDP_FULL_SHARD}, {"fsdp2", SL_FSDP_FULL_SHARD}, {"fsdp_native", SL_FSDP_FULL_SHARD},
		{"true", SL_FSDP_FULL_SHARD}, {"yes", SL_FSDP_FULL_SHARD},
		/* Lightning's registered alias: FSDPStrategy(cpu_offload=True) */
		{"fsdp_cpu_offload", SL_FSDP_FULL_SHARD | SL_FSDP_OFFLOAD_BIT},
		{"1", SL_FSDP_FULL_SHARD}, {"2", SL_FSDP_SHARD_GRAD_OP}, {"3", SL_FSDP_NO_SHARD},
		{"4", SL_FSDP_HYBRID_SHARD}, {"5", SL_FSDP_HYBRID_SHARD_ZERO2},
		/* no FSDP: HF's empty default, accelerate's other distributed types, Lightning's other strategies */
		{"none", SL_FSDP_NONE}, {"no", SL_FSDP_NONE}, {"false", SL_FSDP_NONE}, {"off", SL_FSDP_NONE},
		{"null", SL_FSDP_NONE}, {"multi_gpu", SL_FSDP_NONE}, {"deepspeed", SL_FSDP_NONE},
		{"megatron_lm", SL_FSDP_NONE}, {"xla", SL_FSDP_NONE}, {"multi_cpu", SL_FSDP_NONE},
		{"ddp", SL_FSDP_NONE}, {"ddp_spawn", SL_FSDP_NONE}, {"ddp_notebook", SL_FSDP_NONE},
		{"ddp_find_unused_parameters_true", SL_FSDP_NONE}, {"dp", SL_FSDP_NONE}, {"auto", SL_FSDP_NONE},
		{"single_device", SL_FSDP_NONE},
	};
	int strategy = -1, bits = 0;
	bool any = false;
	const char *p = text ? text : "";
	for (;;) {
		while (*p == ' ' || *p == ',' || *p == '[' || *p == ']' || *p == '\'' || *p == '"')
			p++;
		if (!*p)
			break;
		const char *e = p;
		while (*e && *e != ',' && *e != ' ' && *e != ']' && *e != '\'' && *e != '"')
			e++;
		size_t n = (size_t)(e - p);
		any = true;
		if (n == 7 && strncasecmp(p, "offload", n) == 0) {
			bits |= SL_FSDP_OFFLOAD_BIT;
		} else if (n == 9 && strncasecmp(p, "auto_wrap", n) == 0) {
			/* the wrap policy: a unit per block is what sweeplint assumes */
		} else {
			size_t i = 0;
			for (; i < sizeof words / sizeof words[0]; i++)
				if (strlen(words[i].name) == n && strncasecmp(words[i].name, p, n) == 0)
					break;
			/* deepspeed_stage_3 and the like: another strategy */
			if (i == sizeof words / sizeof words[0] && !(n > 10 && strncasecmp(p, "deepspeed_", 10) == 0))
				return -1;
			int v = i < sizeof words / sizeof words[0] ? words[i].value : SL_FSDP_NONE;
			bits |= v & SL_FSDP_OFFLOAD_BIT;
			v &= ~SL_FSDP_OFFLOAD_BIT;
			if (strategy < 0 || (strategy == SL_FSDP_NONE && v != SL_FSDP_NONE))
				strategy = v;
			else if (v != SL_FSDP_NONE && v != strategy)
				return -1; /* two strategies: not a value FSDP accepts */
		}
		p = e;
	}
	if (!any)
		return SL_FSDP_NONE; /* HF's default "" */
	if (strategy < 0)
		strategy = SL_FSDP_FULL_SHARD; /* "offload auto_wrap": FSDP on, accelerate's default FULL_SHARD */
	return strategy == SL_FSDP_NONE ? SL_FSDP_NONE : strategy | bits;
}

/* One name of a comma list (quotes and brackets around it skipped): its length, *p moved past it. */
static size_t list_item(const char **p, const char **name)
{
	const char *q = *p;
	while (*q == ' ' || *q == ',' || *q == '[' || *q == ']' || *q == '\'' || *q == '"')
		q++;
	const char *e = q;
	while (*e && *e != ',' && *e != ' ' && *e != ']' && *e != '\'' && *e != '"')
		e++;
	*name = q;
	*p = e;
	return (size_t)(e - q);
}

int sl_freeze_modules_parse(const char *list, bool extra)
{
	/* freeze_trainable_modules: module names of a layer as the families name them (LLaMA-Factory
	 * checks them against the names after ".0."); freeze_extra_modules: modules outside the layers */
	static const struct {
		const char *name;
		int bits;
	} layer[] = {
		{"all", 0}, {"self_attn", SL_FZ_ATTN}, {"attn", SL_FZ_ATTN}, {"attention", SL_FZ_ATTN},
		{"self_attention", SL_FZ_ATTN}, {"mlp", SL_FZ_MLP}, {"feed_forward", SL_FZ_MLP},
		{"ffn", SL_FZ_MLP}, {"block_sparse_moe", SL_FZ_MLP}, {"input_layernorm", SL_FZ_NORM},
		{"post_attention_layernorm", SL_FZ_NORM}, {"ln_1", SL_FZ_NORM}, {"ln_2", SL_FZ_NORM},
	}, outside[] = {
		{"embed_tokens", SL_FZX_EMBED}, {"wte", SL_FZX_EMBED}, {"word_embeddings", SL_FZX_EMBED},
		{"embed_in", SL_FZX_EMBED}, {"tok_embeddings", SL_FZX_EMBED}, {"lm_head", SL_FZX_HEAD},
		{"embed_out", SL_FZX_HEAD}, {"output", SL_FZX_HEAD}, {"norm", SL_FZX_NORM}, {"ln_f", SL_FZX_NORM},
		{"final_layernorm", SL_FZX_NORM}, {"norm_f", SL_FZX_NORM},
	};
	int bits = 0;
	bool all = false;
	const char *p = list;
	while (p && *p) {
		const char *name;
		size_t n = list_item(&p, &name);
		if (!n)
			break;
		if (n == 4 && (strncasecmp(name, "none", 4) == 0 || strncasecmp(name, "null", 4) == 0))
			continue;
		size_t cnt = extra ? sizeof outside / sizeof outside[0] : sizeof layer / sizeof layer[0];
		size_t i = 0;
		for (; i < cnt; i++) {
			const char *known = extra ? outside[i].name : layer[i].name;
			if (strlen(known) == n && strncasecmp(known, name, n) == 0)
				break;
		}
		if (i == cnt) {
			if (extra)
				return -1; /* a module sweeplint cannot size */
			bits |= SL_FZ_OTHER; /* a layer module of another name: the whole layer counted */
			continue;
		}
		if (!extra && !layer[i].bits)
			all = true;
		bits |= extra ? outside[i].bits : layer[i].bits;
	}
	return all ? 0 : bits;
}

int sl_modules_to_save_parse(const char *list)
{
	/* the input embedding and the LM head under the names the families give them (PEFT
	 * modules_to_save, LLaMA-Factory additional_target, axolotl lora_modules_to_save) */
	static const struct {
		const char *name;
		int bits;
	} names[] = {
		{"embed_tokens", SL_MTS_EMBED}, {"wte", SL_MTS_EMBED}, {"word_embeddings", SL_MTS_EMBED},
		{"embed_in", SL_MTS_EMBED}, {"tok_embeddings", SL_MTS_EMBED}, {"shared", SL_MTS_EMBED},
		{"lm_head", SL_MTS_HEAD}, {"embed_out", SL_MTS_HEAD}, {"output", SL_MTS_HEAD},
		{"none", 0}, {"null", 0}, {"[]", 0},
	};
	int bits = 0;
	const char *p = list;
	bool any = false;
	while (p && *p) {
		while (*p == ' ' || *p == ',' || *p == '[' || *p == ']' || *p == '\'' || *p == '"')
			p++;
		const char *e = p;
		while (*e && *e != ',' && *e != ' ' && *e != ']' && *e != '\'' && *e != '"')
			e++;
		size_t n = (size_t)(e - p);
		if (!n)
			break;
		/* a dotted path names its last component: model.embed_tokens */
		const char *last = p;
		for (const char *q = p; q < e; q++)
			if (*q == '.')
				last = q + 1;
		size_t ln = (size_t)(e - last);
		size_t i = 0;
		for (; i < sizeof names / sizeof names[0]; i++)
			if (strlen(names[i].name) == ln && strncasecmp(names[i].name, last, ln) == 0)
				break;
		if (i == sizeof names / sizeof names[0])
			return -1; /* a module sweeplint cannot size (a classifier head, a norm, ...) */
		bits |= names[i].bits;
		any = true;
		p = e;
	}
	return any ? bits : -1;
}

uint32_t sl_lora_targets_parse(const char *list)
{
	static const struct {
		const char *name;
		uint32_t bits;
	} names[] = {
		{"q_proj", SL_LORA_Q}, {"query", SL_LORA_Q}, {"q", SL_LORA_Q}, {"wq", SL_LORA_Q},
		{"k_proj", SL_LORA_K}, {"key", SL_LORA_K}, {"k", SL_LORA_K}, {"wk", SL_LORA_K},
		{"v_proj", SL_LORA_V}, {"value", SL_LORA_V}, {"v", SL_LORA_V}, {"wv", SL_LORA_V},
		{"o_proj", SL_LORA_O}, {"out_proj", SL_LORA_O}, {"o", SL_LORA_O}, {"wo_attn", SL_LORA_O},
		{"dense", SL_LORA_O}, {"output_proj", SL_LORA_O}, {"c_proj", SL_LORA_O},
		{"qkv_proj", SL_LORA_Q | SL_LORA_K | SL_LORA_V}, {"c_attn", SL_LORA_Q | SL_LORA_K | SL_LORA_V},
		{"query_key_value", SL_LORA_Q | SL_LORA_K | SL_LORA_V},
		{"gate_proj", SL_LORA_GATE}, {"w1", SL_LORA_GATE}, {"wi_0", SL_LORA_GATE},
		{"up_proj", SL_LORA_UP}, {"w3", SL_LORA_UP}, {"wi_1", SL_LORA_UP}, {"wi", SL_LORA_UP},
		{"intermediate.dense", SL_LORA_UP}, {"fc1", SL_LORA_UP}, {"c_fc", SL_LORA_UP},
		{"dense_h_to_4h", SL_LORA_UP},
		{"down_proj", SL_LORA_DOWN}, {"w2", SL_LORA_DOWN}, {"wo", SL_LORA_DOWN}, {"fc2", SL_LORA_DOWN},
		{"output.dense", SL_LORA_DOWN}, {"dense_4h_to_h", SL_LORA_DOWN}, {"mlp.c_proj", SL_LORA_DOWN},
		{"all", SL_LORA_ALL}, {"all-linear", SL_LORA_ALL}, {"all_linear", SL_LORA_ALL}, {"true", SL_LORA_ALL},
	};
	uint32_t bits = 0;
	const char *p = list;
	while (p && *p) {
		while (*p == ' ' || *p == ',' || *p == '[' || *p == ']' || *p == '\'' || *p == '"')
			p++;
		const char *e = p;
		while (*e && *e != ',' && *e != ' ' && *e != ']' && *e != '\'' && *e != '"')
			e++;
		size_t n = (size_t)(e - p);
		for (size_t i = 0; n && i < sizeof names / sizeof names[0]; i++)
			if (strlen(names[i].name) == n && strncasecmp(names[i].name, p, n) == 0) {
				bits |= names[i].bits;
				break;
			}
		p = e;
	}
	return bits;
}
