#include <stdlib.h>
/* test_roles: key -> role mapping from rules/keys.yaml and role value parsing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/roles.h"
#include "sweeplint/ydoc.h"

struct fx {
	struct sl_arena *a;
	struct sl_diags d;
	struct sl_keymap *km;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	f->a = sl_arena_new();
	sl_diags_init(&f->d, f->a);
	f->km = sl_keymap_new(f->a, &f->d);
	*state = f;
	return f->km ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	sl_arena_free(f->a);
	free(f);
	return 0;
}

static int role_of(struct fx *f, const char *key)
{
	const struct sl_key_rule *r = sl_keymap_match(f->km, key, strlen(key));
	return r ? (int)r->role : -1;
}

static void test_key_roles(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *key;
		int role;
	} cases[] = {
		{"per_device_train_batch_size", SL_ROLE_BATCH_SIZE},
		{"training.per_device_train_batch_size", SL_ROLE_BATCH_SIZE},
		{"data.batches.bi", SL_ROLE_BATCH_SIZE},
		{"micro_batch_size", SL_ROLE_BATCH_SIZE},
		{"batch_size", SL_ROLE_BATCH_SIZE},
		{"per_device_eval_batch_size", SL_ROLE_EVAL_BATCH_SIZE},
		{"xlsum_mt5.inference.batch_size", SL_ROLE_EVAL_BATCH_SIZE},
		{"eval_batch_size", SL_ROLE_EVAL_BATCH_SIZE},
		{"gradient_accumulation_steps", SL_ROLE_GRAD_ACCUM},
		{"model.max_len", SL_ROLE_SEQ_LEN},
		{"max_seq_length", SL_ROLE_SEQ_LEN},
		{"cutoff_len", SL_ROLE_SEQ_LEN},
		{"sequence_len", SL_ROLE_SEQ_LEN},
		{"max_target_length", SL_ROLE_TARGET_LEN},
		{"fp16", SL_ROLE_AMP},
		{"training.bf16", SL_ROLE_AMP},
		{"trainer.use_amp", SL_ROLE_AMP},
		{"trainer.gradient_checkpointing", SL_ROLE_GRADIENT_CHECKPOINTING},
		{"optim", SL_ROLE_OPTIMIZER},
		{"lora_r", SL_ROLE_LORA_R},
		{"r", SL_ROLE_LORA_R},
		{"target_modules", SL_ROLE_LORA_TARGETS},
		{"load_in_4bit", SL_ROLE_QUANT},
		{"quantization_bit", SL_ROLE_QUANT},
		{"flash_attention", SL_ROLE_ATTN},
		{"attn_implementation", SL_ROLE_ATTN},
		{"zero_optimization.stage", SL_ROLE_ZERO_STAGE},
		{"zero_optimization.offload_optimizer.device", SL_ROLE_OFFLOAD},
		{"dataloader_num_workers", SL_ROLE_NUM_WORKERS},
		{"model.bi_model", SL_ROLE_MODEL},
		{"model_name_or_path", SL_ROLE_MODEL},
		{"model", SL_ROLE_MODEL},
		{"deepspeed", SL_ROLE_DEEPSPEED},
		{"learning_rate", -1},
		{"trainer.lr", -1},
		{"seed", -1},
		{"lora_alpha", -1},
		{"warmup_ratio", -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int got = role_of(f, cases[i].key);
		if (got != cases[i].role)
			fail_msg("%s: expected role %d, got %d", cases[i].key, cases[i].role, got);
	}
}

/* The key's words: split, re-spelled against keys.yaml, then the vocabulary of rules/words.yaml. */
static void test_key_words(void **state)
{
	struct fx *f = *state;
	const char *w[8];
	unsigned seg[8];
	size_t n = sl_key_words(f->a, "^trainer.perDeviceTrainBatch-size", 33, w, seg, 8);
	assert_int_equal(n, 6);
	static const char *const want[] = {"trainer", "per", "device", "train", "batch", "size"};
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(w[i], want[i]);
		assert_int_equal(seg[i], i ? 1 : 0);
	}
	n = sl_key_words(f->a, "HFModelID", 9, w, seg, 8);
	assert_int_equal(n, 3);
	assert_string_equal(w[0], "hf");
	assert_string_equal(w[1], "model");
	assert_string_equal(w[2], "id");
	static const struct {
		const char *key;
		int role;
		const char *by; /* how (a prefix of rule->by), NULL for a keys.yaml pattern as written */
	} cases[] = {
		/* re-spelled, then a keys.yaml pattern */
		{"per-device-train-batch-size", SL_ROLE_BATCH_SIZE, "read as per_device_train_batch_size"},
		{"MODEL_NAME", SL_ROLE_MODEL, "read as model_name"},
		{"VALID_BATCH_SIZE", SL_ROLE_EVAL_BATCH_SIZE, "read as valid_batch_size"},
		{"gradientAccumulationSteps", SL_ROLE_GRAD_ACCUM, "read as gradient_accumulation_steps"},
		{"--load-in-4bit", SL_ROLE_QUANT, "read as load_in_4bit"},
		{"trainer.per_device_train_batch_size", SL_ROLE_BATCH_SIZE, NULL},
		/* the vocabulary */
		{"per_device_bs", SL_ROLE_BATCH_SIZE, "by words per/device/bs"},
		{"batch_size_per_gpu", SL_ROLE_BATCH_SIZE, "by words batch/size/per/gpu"},
		{"batch_size_test", SL_ROLE_EVAL_BATCH_SIZE, "by words batch/size/test"},
		{"evaluation.batch_size", SL_ROLE_EVAL_BATCH_SIZE, NULL},
		{"test_bsz", SL_ROLE_EVAL_BATCH_SIZE, "by words test/bsz"},
		{"model_name_or_path_hf", SL_ROLE_MODEL, "by words"},
		{"hf.model_id", SL_ROLE_MODEL, NULL},
		{"hf_repo.model", SL_ROLE_MODEL, NULL},
		{"base_model_repo", SL_ROLE_MODEL, "by words base/model/repo"},
		{"model.name", SL_ROLE_MODEL, "by words model/name"},
		{"plm_name", SL_ROLE_MODEL, "by words plm/name"},
		{"max_src_len", SL_ROLE_SEQ_LEN, "by words max/src/len"},
		{"max_seq_len_train", SL_ROLE_SEQ_LEN, "by words"},
		{"tgt_max_len", SL_ROLE_TARGET_LEN, "by words tgt/max/len"},
		{"grad_accumulation", SL_ROLE_GRAD_ACCUM, "by words"},
		{"num_neg", SL_ROLE_TEXTS_PER_EXAMPLE, "by words num/neg"},
		{"use_4bit", SL_ROLE_QUANT, "by words use/4bit"},
		{"use_flash_attention", SL_ROLE_ATTN, "by words"},
		{"devices", SL_ROLE_NUM_GPUS, "by words devices"},
		{"trainer.devices", SL_ROLE_NUM_GPUS, "by words devices"},
		{"beam_size", SL_ROLE_NUM_BEAMS, NULL},
		{"gen.num_beams", SL_ROLE_NUM_BEAMS, NULL},
		{"enable_gradient_checkpointing", SL_ROLE_GRADIENT_CHECKPOINTING, "by words"},
		{"model.torch_dtype", SL_ROLE_DTYPE, NULL},
		{"optimizer.name", SL_ROLE_OPTIMIZER, "by words optimizer/name"},
		{"lora_dropout", SL_ROLE_LORA_DROPOUT, NULL}, /* a pattern of keys.yaml: its masks and copies */
		/* preference and RL fine-tuning (issue #31): TRL's GRPOConfig keys are memory now */
		{"generation_batch_size", SL_ROLE_GENERATION_BATCH_SIZE, NULL},
		{"max_completion_length", SL_ROLE_COMPLETION_LEN, NULL},
		{"max_prompt_length", SL_ROLE_PROMPT_LEN, NULL},
		{"actor_rollout_ref.rollout.n", SL_ROLE_NUM_GENERATIONS, NULL},
		{"trainer_class", SL_ROLE_ALGORITHM, NULL},
		{"stage", SL_ROLE_ALGORITHM, NULL},
		{"zero_optimization.stage", SL_ROLE_ZERO_STAGE, NULL}, /* DeepSpeed's stage comes first */
		{"precompute_ref_log_probs", SL_ROLE_REF_MODEL, NULL},
		{"vllm_gpu_memory_utilization", SL_ROLE_VLLM_GPU_MEMORY_UTILIZATION, NULL},
		{"gpu_memory_utilization", SL_ROLE_GPU_MEMORY_UTILIZATION, NULL},
		/* never memory: no entry knows a word of them, or two readings fit */
		{"optimizer.lr", -1, NULL},
		{"model.lr", -1, NULL},
		{"model.dropout", -1, NULL},
		{"model.hidden_dim", -1, NULL},
		{"model_dir", -1, NULL},
		{"model_type", -1, NULL},
		{"teacher_model", -1, NULL},
		/* TrainingArguments' push_to_hub destinations name where the result goes, not what is loaded */
		{"hub_model_id", -1, NULL},
		{"training.hub_model_id", -1, NULL},
		{"hub_model_name", -1, NULL},
		{"LEARNING_RATE", -1, NULL},
		{"weight-decay", -1, NULL},
		{"warmup_steps", -1, NULL},
		{"global_batch_size", -1, NULL},
		{"num_batches", -1, NULL},
		{"num-minibatches", -1, NULL},
		{"pre_seq_len", -1, NULL},
		{"min_length", -1, NULL},
		{"length_penalty", -1, NULL},
		{"train_negatives", -1, NULL},
		{"in_batch_negatives", -1, NULL},
		{"bnb_4bit_compute_dtype", -1, NULL},
		{"cuda_visible_devices", -1, NULL},
		{"device", -1, NULL},
		{"use_8bit_adam", -1, NULL},
		{"rank", -1, NULL},
		{"seed", -1, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct sl_key_rule *r = sl_keymap_match(f->km, cases[i].key, strlen(cases[i].key));
		int got = r ? (int)r->role : -1;
		if (got != cases[i].role)
			fail_msg("%s: expected role %d, got %d%s%s", cases[i].key, cases[i].role, got, r && r->by ? " " : "",
				 r && r->by ? r->by : "");
		if (!r)
			continue;
		if (!cases[i].by != !r->by || (cases[i].by && strncmp(r->by, cases[i].by, strlen(cases[i].by)) != 0))
			fail_msg("%s: expected %s, got %s", cases[i].key, cases[i].by ? cases[i].by : "a pattern",
				 r->by ? r->by : "a pattern");
	}
	/* the value readings ride along: use_4bit: true is nf4, num_neg: 3 is 5 texts */
	const struct sl_key_rule *r = sl_keymap_match(f->km, "use_4bit", 8);
	assert_string_equal(r->if_true, "nf4");
	r = sl_keymap_match(f->km, "num_neg", 7);
	assert_int_equal(r->add, 2);
	assert_string_equal(sl_key_rule_describe(f->a, r), "by words num/neg from rules/words.yaml");
}

/* Two readings of one key leave it unmapped; bad files are refused (rules/words.yaml itself is parsed
 * at build time: gen_catalog fails the build on a problem, check_gen_catalog.py shows it). */
static void test_words_file(void **state)
{
	struct fx *f = *state;
	const char *good = "ignore: [cfg]\nroles:\n"
			   "  - {role: batch_size, need: [[batch size, bs]], may: [train]}\n"
			   "  - {role: eval_batch_size, need: [[batch size, bs], [eval]], may: []}\n"
			   "  - {role: batch_size, need: [[bs]], may: [my]}\n"
			   "  - {role: eval_batch_size, need: [[bs]], may: [my]}\n";
	struct sl_keywords *kw = sl_keywords_parse(f->a, "t.yaml", good, strlen(good), &f->d);
	assert_non_null(kw);
	assert_int_equal(f->d.n, 0);
	f->km->words = kw;
	f->km->words_tried = true;
	const struct sl_key_rule *limited;
	assert_null(sl_keywords_match(f->km, "cfg.train_bs2", 13, &limited)); /* bs2 is no word it knows */
	const struct sl_key_rule *r = sl_keywords_match(f->km, "cfg.train_bs", 12, &limited);
	assert_non_null(r);
	assert_int_equal(r->role, SL_ROLE_BATCH_SIZE);
	assert_string_equal(r->by, "by words train/bs"); /* cfg: a parent word no entry names */
	assert_int_equal(sl_keywords_match(f->km, "eval_bs", 7, &limited)->role, SL_ROLE_EVAL_BATCH_SIZE);
	assert_null(sl_keywords_match(f->km, "my_bs", 5, &limited)); /* batch_size and eval_batch_size both fit */
	static const char *const badfiles[] = {
		"roles: [{role: nope, need: [[a]]}]\n",
		"roles: [{role: batch_size}]\n",
		"roles: [{role: batch_size, need: [a]}]\n",
		"roles: [{role: batch_size, need: [[a]], add: -1}]\n",
		"ignore: a\nroles: []\n",
		"- a\n",
	};
	for (size_t i = 0; i < sizeof badfiles / sizeof badfiles[0]; i++) {
		size_t before = f->d.n;
		if (sl_keywords_parse(f->a, "bad.yaml", badfiles[i], strlen(badfiles[i]), &f->d))
			fail_msg("accepted: %s", badfiles[i]);
		assert_true(f->d.n > before);
	}
}

static void test_prepend_overrides(void **state)
{
	struct fx *f = *state;
	const char *why = NULL;
	assert_int_equal(role_of(f, "my_len"), -1);
	assert_int_equal(sl_keymap_prepend(f->a, f->km, "^my_len$", SL_ROLE_SEQ_LEN, NULL, NULL, "test", &why), 0);
	assert_int_equal(role_of(f, "my_len"), SL_ROLE_SEQ_LEN);
	/* a project rule wins over the built-in one */
	assert_int_equal(sl_keymap_prepend(f->a, f->km, "^batch_size$", SL_ROLE_EVAL_BATCH_SIZE, NULL, NULL, "test",
					   &why),
			 0);
	assert_int_equal(role_of(f, "batch_size"), SL_ROLE_EVAL_BATCH_SIZE);
	/* a bad pattern is refused with PCRE2's message */
	assert_int_equal(sl_keymap_prepend(f->a, f->km, "(unclosed", SL_ROLE_SEQ_LEN, NULL, NULL, "test", &why),
			 -SL_ECONFIG);
	assert_non_null(strstr(why, "offset"));
}

static void test_values(void **state)
{
	struct fx *f = *state;
	struct sl_role_value v;
	const char *why = NULL;
	struct sl_value vint = {.type = SL_V_INT, .i = 256, .f = 256};
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_BATCH_SIZE, NULL, "256", &vint, &v, &why), 0);
	assert_int_equal(v.u, 256);
	struct sl_value vneg = {.type = SL_V_INT, .i = -4, .f = -4};
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_BATCH_SIZE, NULL, "-4", &vneg, &v, &why),
			 -SL_EPARSE);
	assert_non_null(strstr(why, "batch_size"));
	struct sl_value vstr = {.type = SL_V_STR};
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_SEQ_LEN, NULL, "abc", &vstr, &v, &why), -SL_EPARSE);
	struct sl_value vfl = {.type = SL_V_FLOAT, .f = 0.5};
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_SEQ_LEN, NULL, "0.5", &vfl, &v, &why), -SL_EPARSE);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_ATTN, NULL, "flash_attention_2", &vstr, &v, &why), 0);
	assert_int_equal(v.u, SL_ATTN_FLASH);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, NULL, "bf16-mixed", &vstr, &v, &why), 0);
	assert_int_equal(v.u, SL_AMP_BF16);
	assert_int_equal(v.nalso, 0);
	/* Lightning's "bf16-true": no autocast, the whole model in bf16 */
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, NULL, "bf16-true", &vstr, &v, &why), 0);
	assert_int_equal(v.u, SL_AMP_OFF);
	assert_int_equal(v.nalso, 1);
	assert_int_equal(v.also[0].role, SL_ROLE_DTYPE);
	assert_int_equal(v.also[0].u, SL_DTYPE_BF16);
	struct sl_settings st;
	sl_settings_default(&st);
	st.amp = SL_AMP_FP16;
	sl_settings_apply(&st, &v, true);
	assert_int_equal(st.amp, SL_AMP_OFF);
	assert_int_equal(st.dtype, SL_DTYPE_BF16);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, NULL, "16-true", &vstr, &v, &why), 0);
	assert_int_equal(v.also[0].u, SL_DTYPE_FP16);
	/* Lightning's strategy: deepspeed_stage_3_offload is no FSDP, ZeRO-3, states and parameters on the CPU */
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP, NULL, "deepspeed_stage_3_offload", &vstr, &v, &why), 0);
	assert_int_equal(v.u, SL_FSDP_NONE);
	sl_settings_default(&st);
	sl_settings_apply(&st, &v, true);
	assert_int_equal(st.fsdp, SL_FSDP_NONE);
	assert_int_equal(st.zero_stage, 3);
	assert_int_equal(st.offload, SL_OFFLOAD_ALL);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP, NULL, "deepspeed", &vstr, &v, &why), 0);
	sl_settings_default(&st);
	sl_settings_apply(&st, &v, true);
	assert_int_equal(st.zero_stage, 2);
	assert_int_equal(st.offload, SL_OFFLOAD_NONE);
	/* the severity of an unusable count: refused by the frameworks, or maybe the script's own */
	assert_int_equal(sl_role_count_refusal(SL_ROLE_BATCH_SIZE, "-1", NULL), SL_SEV_ERROR);
	assert_int_equal(sl_role_count_refusal(SL_ROLE_BATCH_SIZE, "1.5", NULL), SL_SEV_ERROR);
	assert_int_equal(sl_role_count_refusal(SL_ROLE_BATCH_SIZE, "auto", NULL), SL_SEV_WARNING);
	assert_int_equal(sl_role_count_refusal(SL_ROLE_GRAD_ACCUM, "-1", NULL), SL_SEV_WARNING);
	assert_int_equal(sl_role_count_refusal(SL_ROLE_GRAD_ACCUM, "0.5", NULL), SL_SEV_ERROR);
	assert_int_equal(sl_role_count_refusal(SL_ROLE_NUM_GPUS, "-1", &vneg), SL_SEV_WARNING);
	struct sl_value vinf = {.type = SL_V_FLOAT, .f = INFINITY};
	assert_int_equal(sl_role_count_refusal(SL_ROLE_SEQ_LEN, ".inf", &vinf), SL_SEV_ERROR);
	assert_int_equal(sl_role_count_refusal(SL_ROLE_ZERO_STAGE, "4", NULL), SL_SEV_ERROR);
	assert_int_equal(sl_role_count_refusal(SL_ROLE_NUM_WORKERS, "-2", NULL), SL_SEV_ERROR);
	assert_int_equal(sl_lora_targets_parse("q_proj,v_proj"), SL_LORA_Q | SL_LORA_V);
	assert_int_equal(sl_lora_targets_parse("all-linear"), SL_LORA_ALL);
	assert_int_equal(sl_lora_targets_parse("[query, value]"), SL_LORA_Q | SL_LORA_V);
	/* modules_to_save: the embedding and the head by the families' names; others are not sized */
	assert_int_equal(sl_modules_to_save_parse("embed_tokens,lm_head"), SL_MTS_EMBED | SL_MTS_HEAD);
	assert_int_equal(sl_modules_to_save_parse("['wte', 'lm_head']"), SL_MTS_EMBED | SL_MTS_HEAD);
	assert_int_equal(sl_modules_to_save_parse("model.embed_tokens"), SL_MTS_EMBED);
	assert_int_equal(sl_modules_to_save_parse("score"), -1);
	assert_int_equal(sl_modules_to_save_parse(""), -1);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_MODULES_TO_SAVE, NULL, "embed_tokens,lm_head", &vstr, &v,
						 &why), 0);
	assert_int_equal(v.u, SL_MTS_EMBED | SL_MTS_HEAD);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_QUANT, NULL, "gptq", &vstr, &v, &why), 0);
	assert_int_equal(v.u, SL_QUANT_GPTQ);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_QUANT, NULL, "awq", &vstr, &v, &why), 0);
	assert_int_equal(v.u, SL_QUANT_AWQ);
}

static void test_boolean_keys(void **state)
{
	struct fx *f = *state;
	struct sl_settings s;
	sl_settings_default(&s);
	struct sl_role_value v;
	const char *why = NULL;
	struct sl_value yes = {.type = SL_V_BOOL, .b = true}, no = {.type = SL_V_BOOL, .b = false};
	const struct sl_key_rule *fp16 = sl_keymap_match(f->km, "fp16", 4);
	const struct sl_key_rule *bf16 = sl_keymap_match(f->km, "bf16", 4);
	const struct sl_key_rule *use_amp = sl_keymap_match(f->km, "use_amp", 7);
	/* bf16: true then fp16: false keeps bf16; fp16: false then bf16: true too */
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, bf16, "true", &yes, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.amp, SL_AMP_BF16);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, fp16, "false", &no, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.amp, SL_AMP_BF16);
	/* fp16: true, then fp16: false (a sweep value overriding the config) turns it off */
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, fp16, "true", &yes, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.amp, SL_AMP_FP16);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, fp16, "false", &no, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.amp, SL_AMP_OFF);
	/* use_amp: true picks bf16 on a bf16 GPU and fp16 on a V100 */
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, use_amp, "true", &yes, &v, &why), 0);
	sl_settings_apply(&s, &v, false);
	assert_int_equal(s.amp, SL_AMP_FP16);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.amp, SL_AMP_BF16);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_AMP, use_amp, "false", &no, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.amp, SL_AMP_OFF);
	/* load_in_4bit: true -> nf4; texts_per_example from num_negatives */
	const struct sl_key_rule *l4 = sl_keymap_match(f->km, "load_in_4bit", 12);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_QUANT, l4, "true", &yes, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.quant, SL_QUANT_NF4);
	const struct sl_key_rule *neg = sl_keymap_match(f->km, "num_negatives", 13);
	struct sl_value three = {.type = SL_V_INT, .i = 3, .f = 3};
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_TEXTS_PER_EXAMPLE, neg, "3", &three, &v, &why), 0);
	assert_int_equal(v.u, 5);
	/* gradient_checkpointing: "unsloth" is on */
	struct sl_value str = {.type = SL_V_STR};
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_GRADIENT_CHECKPOINTING, NULL, "unsloth", &str, &v, &why),
			 0);
	assert_int_equal(v.u, 1);
}

/* A scalar node holding text typed as t. */
static struct sl_node *scalar(struct fx *f, const char *text, enum sl_vtype t, int64_t i, bool b)
{
	struct sl_node *n = sl_arena_alloc(f->a, sizeof *n);
	n->kind = SL_NODE_SCALAR;
	n->text = text;
	n->text_len = strlen(text);
	n->value.type = t;
	n->value.i = i;
	n->value.f = (double)i;
	n->value.b = b;
	return n;
}

/*
 * A program's value map generalises if_true / if_false: a key's value translated case by case before
 * its role's parsing (the base rule's own translation still applies to the case's value), a case that
 * makes no setting (unset: applying it changes nothing), an unknown case, a value no case names.
 */
static void test_value_maps(void **state)
{
	struct fx *f = *state;
	const struct sl_key_rule *model = sl_keymap_match(f->km, "model_name_or_path", 18);
	const struct sl_key_rule *fp16 = sl_keymap_match(f->km, "fp16", 4);
	struct sl_key_case mc[] = {
		{.when = scalar(f, "A", SL_V_STR, 0, false), .to = scalar(f, "org/a", SL_V_STR, 0, false)},
		{.when = scalar(f, "B", SL_V_STR, 0, false), .to = scalar(f, "org/b", SL_V_STR, 0, false)},
		{.when = scalar(f, "C", SL_V_STR, 0, false), .unknown = "a value computed at run time"},
	};
	struct sl_key_rule *kind = sl_key_rule_program(f->a, model, "the program maps it to model_name_or_path", mc, 3);
	assert_int_equal(kind->role, SL_ROLE_MODEL);
	assert_string_equal(sl_key_rule_describe(f->a, kind), "the program maps it to model_name_or_path");
	struct sl_role_value v;
	const char *why = NULL;
	assert_int_equal(sl_role_value_from_node(f->a, SL_ROLE_MODEL, kind, mc[1].when, &v, &why), 0);
	assert_string_equal(v.s, "org/b");
	assert_int_equal(sl_role_value_from_node(f->a, SL_ROLE_MODEL, kind, mc[2].when, &v, &why), -SL_EPARSE);
	assert_non_null(strstr(why, "not known (a value computed at run time)"));
	assert_int_equal(sl_role_value_from_node(f->a, SL_ROLE_MODEL, kind, scalar(f, "D", SL_V_STR, 0, false), &v,
						 &why),
			 -SL_EPARSE);
	assert_non_null(strstr(why, "maps no model for D"));
	/* typed: the string "1" is not the integer 1, true is not 1 */
	struct sl_key_case ic[] = {{.when = scalar(f, "1", SL_V_INT, 1, false), .to = scalar(f, "x", SL_V_STR, 0, false)}};
	struct sl_key_rule *n = sl_key_rule_program(f->a, model, "by", ic, 1);
	assert_int_equal(sl_role_value_from_node(f->a, SL_ROLE_MODEL, n, scalar(f, "1", SL_V_STR, 0, false), &v, &why),
			 -SL_EPARSE);
	assert_int_equal(sl_role_value_from_node(f->a, SL_ROLE_MODEL, n, scalar(f, "true", SL_V_BOOL, 0, true), &v, &why),
			 -SL_EPARSE);
	assert_int_equal(sl_role_value_from_node(f->a, SL_ROLE_MODEL, n, scalar(f, "1", SL_V_INT, 1, false), &v, &why), 0);
	/* a guard: use_lora true -> fp16 (the base rule's if_true then applies), false -> unset */
	struct sl_key_case gc[] = {
		{.when = scalar(f, "true", SL_V_BOOL, 0, true), .to = scalar(f, "True", SL_V_BOOL, 0, true)},
		{.when = scalar(f, "false", SL_V_BOOL, 0, false)},
	};
	struct sl_key_rule *g = sl_key_rule_program(f->a, fp16, "the program maps it to fp16", gc, 2);
	struct sl_settings s;
	sl_settings_default(&s);
	assert_int_equal(sl_role_value_from_node(f->a, SL_ROLE_AMP, g, gc[0].when, &v, &why), 0);
	assert_false(v.unset);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.amp, SL_AMP_FP16);
	assert_int_equal(sl_role_value_from_node(f->a, SL_ROLE_AMP, g, gc[1].when, &v, &why), 0);
	assert_true(v.unset);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.amp, SL_AMP_FP16); /* nothing changed */
	/* the program's rule keeps the base rule's role and translation, not its pattern or origin */
	assert_null(kind->origin);
	assert_null(kind->code);
}

/* FSDP (issue 14): the keys of HF TrainingArguments, accelerate, Lightning and torchtune, and their values */
static void test_fsdp(void **state)
{
	struct fx *f = *state;
	assert_int_equal(role_of(f, "fsdp"), SL_ROLE_FSDP);
	assert_int_equal(role_of(f, "fsdp_config.fsdp_sharding_strategy"), SL_ROLE_FSDP);
	assert_int_equal(role_of(f, "fsdp_config.sharding_strategy"), SL_ROLE_FSDP);
	assert_int_equal(role_of(f, "distributed_type"), SL_ROLE_FSDP);
	assert_int_equal(role_of(f, "trainer.strategy"), SL_ROLE_FSDP);
	assert_int_equal(role_of(f, "fsdp_cpu_offload"), SL_ROLE_FSDP);
	assert_int_equal(role_of(f, "fsdp_config.fsdp_offload_params"), SL_ROLE_FSDP_OFFLOAD);
	assert_int_equal(role_of(f, "fsdp_config.offload_params"), SL_ROLE_FSDP_OFFLOAD);
	assert_int_equal(role_of(f, "fsdp_config.fsdp_auto_wrap_policy"), SL_ROLE_FSDP_AUTO_WRAP);
	assert_int_equal(role_of(f, "cpu_offload"), SL_ROLE_OFFLOAD); /* DeepSpeed's stays */
	assert_int_equal(role_of(f, "evaluation_strategy"), -1);

	assert_int_equal(sl_fsdp_parse("full_shard auto_wrap"), SL_FSDP_FULL_SHARD);
	assert_int_equal(sl_fsdp_parse("shard_grad_op offload auto_wrap"), SL_FSDP_SHARD_GRAD_OP | SL_FSDP_OFFLOAD_BIT);
	assert_int_equal(sl_fsdp_parse("[full_shard, auto_wrap]"), SL_FSDP_FULL_SHARD);
	assert_int_equal(sl_fsdp_parse("FULL_SHARD"), SL_FSDP_FULL_SHARD);
	assert_int_equal(sl_fsdp_parse("2"), SL_FSDP_SHARD_GRAD_OP);
	assert_int_equal(sl_fsdp_parse("HYBRID_SHARD"), SL_FSDP_HYBRID_SHARD);
	assert_int_equal(sl_fsdp_parse("_HYBRID_SHARD_ZERO2"), SL_FSDP_HYBRID_SHARD_ZERO2);
	assert_int_equal(sl_fsdp_parse("no_shard"), SL_FSDP_NO_SHARD);
	assert_int_equal(sl_fsdp_parse("FSDP"), SL_FSDP_FULL_SHARD);
	assert_int_equal(sl_fsdp_parse("fsdp_cpu_offload"), SL_FSDP_FULL_SHARD | SL_FSDP_OFFLOAD_BIT);
	assert_int_equal(sl_fsdp_parse("offload"), SL_FSDP_FULL_SHARD | SL_FSDP_OFFLOAD_BIT);
	assert_int_equal(sl_fsdp_parse(""), SL_FSDP_NONE);
	assert_int_equal(sl_fsdp_parse("DEEPSPEED"), SL_FSDP_NONE);
	assert_int_equal(sl_fsdp_parse("MULTI_GPU"), SL_FSDP_NONE);
	assert_int_equal(sl_fsdp_parse("deepspeed_stage_3"), SL_FSDP_NONE);
	assert_int_equal(sl_fsdp_parse("ddp"), SL_FSDP_NONE);
	assert_int_equal(sl_fsdp_parse("full_shard shard_grad_op"), -1);
	assert_int_equal(sl_fsdp_parse("fulll_shard"), -1);

	/* values through the key rules: torchtune's fsdp_cpu_offload and reshard_after_forward are booleans */
	struct sl_settings s;
	sl_settings_default(&s);
	struct sl_role_value v;
	const char *why = NULL;
	struct sl_value vt = {.type = SL_V_BOOL, .b = true}, vf = {.type = SL_V_BOOL, .b = false};
	const struct sl_key_rule *r = sl_keymap_match(f->km, "fsdp_cpu_offload", 16);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP, r, "true", &vt, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.fsdp, SL_FSDP_FULL_SHARD);
	assert_true(s.fsdp_offload);
	r = sl_keymap_match(f->km, "fsdp_reshard_after_forward", 26);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP, r, "false", &vf, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.fsdp, SL_FSDP_SHARD_GRAD_OP);
	assert_true(s.fsdp_offload); /* a strategy alone does not turn offload off */
	/* HF TrainingArguments: fsdp: true is full_shard */
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP, NULL, "true", &vt, &v, &why), 0);
	assert_int_equal(v.u, SL_FSDP_FULL_SHARD);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP, NULL, "sharded", NULL, &v, &why), -SL_EPARSE);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP_AUTO_WRAP, NULL, "NO_WRAP", NULL, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_true(s.fsdp_no_wrap);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP_AUTO_WRAP, NULL, "TRANSFORMER_BASED_WRAP", NULL, &v,
						 &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_false(s.fsdp_no_wrap);
	assert_int_equal(sl_role_parse("fsdp_offload"), SL_ROLE_FSDP_OFFLOAD);
}

/* peft_method: PEFT's peft_type, axolotl's adapter, use_dora */
static void test_peft_method(void **state)
{
	struct fx *f = *state;
	assert_int_equal(role_of(f, "peft_type"), SL_ROLE_PEFT_METHOD);
	assert_int_equal(role_of(f, "adapter"), SL_ROLE_PEFT_METHOD);
	assert_int_equal(role_of(f, "peft_config.use_dora"), SL_ROLE_PEFT_METHOD);
	assert_int_equal(role_of(f, "num_virtual_tokens"), SL_ROLE_NUM_VIRTUAL_TOKENS);
	struct sl_settings s;
	sl_settings_default(&s);
	struct sl_role_value v;
	const char *why = NULL;
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_PEFT_METHOD, NULL, "PROMPT_TUNING", NULL, &v, &why), 0);
	assert_int_equal(v.u, SL_PEFT_PROMPT_TUNING);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_PEFT_METHOD, NULL, "qlora", NULL, &v, &why), 0);
	assert_int_equal(v.u, SL_PEFT_LORA);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_PEFT_METHOD, NULL, "", NULL, &v, &why), 0);
	assert_int_equal(v.u, SL_PEFT_NONE);
	/* the methods of rules/peft.yaml, in PEFT's peft_type spelling */
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_PEFT_METHOD, NULL, "ADALORA", NULL, &v, &why), 0);
	assert_int_equal(v.u, (uint64_t)sl_peft_parse("adalora"));
	assert_true(v.u >= SL_PEFT_TABLE);
	assert_string_equal(sl_peft_name((enum sl_peft)v.u), "adalora");
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_PEFT_METHOD, NULL, "XLORA", NULL, &v, &why), -SL_EPARSE);
	/* use_dora: false clears DoRA only */
	struct sl_value vt = {.type = SL_V_BOOL, .b = true}, vf = {.type = SL_V_BOOL, .b = false};
	const struct sl_key_rule *r = sl_keymap_match(f->km, "use_dora", 8);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_PEFT_METHOD, r, "true", &vt, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.peft_method, SL_PEFT_DORA);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_PEFT_METHOD, r, "false", &vf, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.peft_method, SL_PEFT_LORA);
	s.peft_method = SL_PEFT_IA3;
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.peft_method, SL_PEFT_IA3);

	/* runtime options by their frameworks' keys */
	assert_int_equal(role_of(f, "torch_compile"), SL_ROLE_TORCH_COMPILE);
	assert_int_equal(role_of(f, "compile"), SL_ROLE_TORCH_COMPILE);
	assert_int_equal(role_of(f, "use_liger_kernel"), SL_ROLE_LIGER);
	assert_int_equal(role_of(f, "sample_packing"), SL_ROLE_PACKING);
	assert_int_equal(role_of(f, "dataset.packed"), SL_ROLE_PACKING);
	assert_int_equal(role_of(f, "optimizer_in_bwd"), SL_ROLE_OPTIMIZER_IN_BACKWARD);
	assert_int_equal(role_of(f, "enable_activation_offloading"), SL_ROLE_ACTIVATION_OFFLOAD);
	assert_int_equal(role_of(f, "loss._component_"), SL_ROLE_CHUNKED_CE);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_CHUNKED_CE, NULL,
						 "torchtune.modules.loss.CEWithChunkedOutputLoss", NULL, &v, &why), 0);
	assert_int_equal(v.u, 1);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_CHUNKED_CE, NULL, "torch.nn.CrossEntropyLoss", NULL, &v,
						 &why), 0);
	assert_int_equal(v.u, 0);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_TORCH_COMPILE, NULL, "maybe", NULL, &v, &why), -SL_EPARSE);

	/* LoRA dropout: PEFT/TRL/LLaMA-Factory lora_dropout, ms-swift lora_dropout_p; a probability */
	assert_int_equal(role_of(f, "lora_dropout"), SL_ROLE_LORA_DROPOUT);
	assert_int_equal(role_of(f, "peft.lora_dropout"), SL_ROLE_LORA_DROPOUT);
	assert_int_equal(role_of(f, "lora_dropout_p"), SL_ROLE_LORA_DROPOUT);
	assert_int_equal(role_of(f, "model.lora_dropout"), SL_ROLE_LORA_DROPOUT);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_LORA_DROPOUT, NULL, "0.05", NULL, &v, &why), 0);
	assert_int_equal(v.u, 500);
	sl_settings_default(&s);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.lora_dropout_bp, 500);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_LORA_DROPOUT, NULL, "0", NULL, &v, &why), 0);
	assert_int_equal(v.u, 0);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_LORA_DROPOUT, NULL, "1.5", NULL, &v, &why), -SL_EPARSE);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_LORA_DROPOUT, NULL, "-0.1", NULL, &v, &why), -SL_EPARSE);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_LORA_DROPOUT, NULL, "some", NULL, &v, &why), -SL_EPARSE);

	/* the FSDP load and save roles by the keys of an accelerate YAML's fsdp_config, HF's fsdp_config,
	 * LightningCLI's strategy.init_args and torchtune's configs */
	assert_int_equal(role_of(f, "fsdp_config.fsdp_state_dict_type"), SL_ROLE_FSDP_STATE_DICT);
	assert_int_equal(role_of(f, "fsdp_config.state_dict_type"), SL_ROLE_FSDP_STATE_DICT);
	assert_int_equal(role_of(f, "trainer.strategy.init_args.state_dict_type"), SL_ROLE_FSDP_STATE_DICT);
	assert_int_equal(role_of(f, "fsdp_config.fsdp_cpu_ram_efficient_loading"), SL_ROLE_FSDP_INIT);
	assert_int_equal(role_of(f, "trainer.strategy.init_args.use_orig_params"), SL_ROLE_FSDP_USE_ORIG_PARAMS);
	/* the HF Trainer wraps PEFT adapters in units of their own whatever accelerate's use_orig_params says */
	assert_true(role_of(f, "fsdp_config.fsdp_use_orig_params") != SL_ROLE_FSDP_USE_ORIG_PARAMS);
	assert_int_equal(role_of(f, "custom_sharded_layers"), SL_ROLE_FSDP_EMBEDDING_UNITS);
	assert_int_equal(role_of(f, "prepare_model_for_kbit_training"), SL_ROLE_KBIT_PREPARE);
	static const struct {
		const char *text;
		unsigned value;
	} sd[] = {{"FULL_STATE_DICT", SL_FSDP_SD_FULL}, {"full", SL_FSDP_SD_FULL}, {"1", SL_FSDP_SD_FULL},
		  {"SHARDED_STATE_DICT", SL_FSDP_SD_SHARDED}, {"sharded", SL_FSDP_SD_SHARDED}, {"3", SL_FSDP_SD_SHARDED},
		  {"LOCAL_STATE_DICT", SL_FSDP_SD_LOCAL}, {"StateDictType.FULL_STATE_DICT", SL_FSDP_SD_FULL},
		  {"full_device", SL_FSDP_SD_FULL_DEVICE}};
	for (size_t i = 0; i < sizeof sd / sizeof sd[0]; i++) {
		assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP_STATE_DICT, NULL, sd[i].text, NULL, &v, &why), 0);
		assert_int_equal(v.u, sd[i].value);
	}
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP_STATE_DICT, NULL, "everything", NULL, &v, &why),
			 -SL_EPARSE);
	/* fsdp_cpu_ram_efficient_loading: true, rank 0 alone loads on the host; false, every process */
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP_INIT, NULL, "true", NULL, &v, &why), 0);
	assert_int_equal(v.u, SL_FSDP_INIT_RANK0);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP_INIT, NULL, "false", NULL, &v, &why), 0);
	assert_int_equal(v.u, SL_FSDP_INIT_PER_UNIT);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP_INIT, NULL, "cuda", NULL, &v, &why), 0);
	assert_int_equal(v.u, SL_FSDP_INIT_DEVICE);
	sl_settings_default(&s);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.fsdp_init, SL_FSDP_INIT_DEVICE);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_FSDP_EMBEDDING_UNITS, NULL, "tok_embeddings,output", NULL,
						 &v, &why), 0);
	assert_int_equal(v.u, 1);
	sl_settings_apply(&s, &v, true);
	assert_true(s.fsdp_embed_units);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_KBIT_PREPARE, NULL, "false", NULL, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_true(s.kbit_prepare_off);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_BNB_LEGACY, NULL, "yes", NULL, &v, &why), 0);
	sl_settings_apply(&s, &v, true);
	assert_true(s.bnb_legacy);
}

/* OpenRLHF's and verl's keys (issue 31): their per-GPU micro batches are the batch; their global batches,
 * mini batches, no-grad micro batches and other models' paths are `role: none` entries, which neither a
 * later pattern nor the words turn into a role (data.train_batch_size would be batch_size, the critic's
 * model path the model, reward_model.micro_batch_size_per_gpu a batch by words). */
static void test_openrlhf_verl_keys(void **state)
{
	struct fx *f = *state;
	assert_int_equal(role_of(f, "micro_train_batch_size"), SL_ROLE_BATCH_SIZE);
	assert_int_equal(role_of(f, "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"), SL_ROLE_BATCH_SIZE);
	assert_int_equal(role_of(f, "actor_rollout_ref.model.path"), SL_ROLE_MODEL);
	assert_int_equal(role_of(f, "pretrain"), SL_ROLE_MODEL);
	assert_int_equal(role_of(f, "actor_rollout_ref.rollout.gpu_memory_utilization"),
			 SL_ROLE_VLLM_GPU_MEMORY_UTILIZATION);
	assert_int_equal(role_of(f, "actor_rollout_ref.model.enable_gradient_checkpointing"),
			 SL_ROLE_GRADIENT_CHECKPOINTING);
	static const char *const none[] = {
		"data.train_batch_size", "data.val_batch_size", "actor_rollout_ref.actor.ppo_mini_batch_size",
		"critic.ppo_mini_batch_size", "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
		"actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu", "critic.ppo_micro_batch_size_per_gpu",
		"reward_model.micro_batch_size_per_gpu", "critic.model.path", "reward_model.model.path",
		"rollout_batch_size", "micro_rollout_batch_size", "reward_pretrain", "critic_pretrain",
	};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		if (role_of(f, none[i]) != -1)
			fail_msg("%s: role %d, expected none", none[i], role_of(f, none[i]));
		const struct sl_key_rule *r = sl_keymap_match_none(f->km, none[i], strlen(none[i]));
		assert_non_null(r);
		assert_int_equal(r->role, SL_ROLE_NONE);
	}
	/* a generic key outside verl's data section keeps its role */
	assert_int_equal(role_of(f, "train_batch_size"), SL_ROLE_BATCH_SIZE);
	assert_int_equal(role_of(f, "trainer.train_batch_size"), SL_ROLE_BATCH_SIZE);
	assert_null(sl_keymap_match_none(f->km, "train_batch_size", strlen("train_batch_size")));
}

/* Preference and RL fine-tuning (issue #31): the roles' keys, values and how they fold into settings. */
static void apply_text(struct fx *f, struct sl_settings *s, const char *key, const char *text, const struct sl_value *tv)
{
	const struct sl_key_rule *r = sl_keymap_match(f->km, key, strlen(key));
	assert_non_null(r);
	struct sl_role_value v;
	const char *why = NULL;
	if (sl_role_value_from_text(f->a, r->role, r, text, tv, &v, &why) != 0)
		fail_msg("%s: %s: %s", key, text, why ? why : "?");
	sl_settings_apply(s, &v, true);
}

static void test_rl_roles(void **state)
{
	struct fx *f = *state;
	struct sl_settings s;
	sl_settings_default(&s);
	struct sl_value vint = {.type = SL_V_INT, .i = 2, .f = 2}, vstr = {.type = SL_V_STR},
			vzero = {.type = SL_V_FLOAT, .f = 0.0}, vtrue = {.type = SL_V_BOOL, .b = true},
			vnull = {.type = SL_V_NULL};
	/* the algorithm: a trainer class, LLaMA-Factory's stage, a subclass of a trainer, a number */
	apply_text(f, &s, "trainer_class", "GRPOTrainer", &vstr);
	assert_string_equal(sl_algo_name(s.algorithm), "grpo");
	apply_text(f, &s, "stage", "rm", &vstr);
	assert_string_equal(sl_algo_name(s.algorithm), "reward");
	apply_text(f, &s, "trainer_class", "CustomDPOTrainer", &vstr); /* LLaMA-Factory's subclass */
	assert_string_equal(sl_algo_name(s.algorithm), "dpo");
	apply_text(f, &s, "trainer_class", "MyTrainer", &vstr);
	assert_string_equal(sl_algo_name(s.algorithm), "sft");
	apply_text(f, &s, "stage", "2", &vint); /* a project's own stage counter */
	assert_int_equal(s.algorithm, 0);
	struct sl_role_value v;
	const char *why = NULL;
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_ALGORITHM, NULL, "a2c", &vstr, &v, &why), -SL_EPARSE);
	assert_non_null(strstr(why, "algorithm"));
	/* beta: only whether it is 0 matters */
	apply_text(f, &s, "beta", "0.0", &vzero);
	assert_int_equal(s.beta, SL_BETA_ZERO);
	apply_text(f, &s, "kl_coef", "0.05", NULL);
	assert_int_equal(s.beta, SL_BETA_POSITIVE);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_BETA, NULL, "-1", NULL, &v, &why), -SL_EPARSE);
	/* counts and lengths */
	apply_text(f, &s, "num_generations", "16", NULL);
	assert_int_equal(s.num_generations, 16);
	apply_text(f, &s, "actor_rollout_ref.rollout.n", "5", NULL);
	assert_int_equal(s.num_generations, 5);
	apply_text(f, &s, "max_prompt_length", "512", NULL);
	apply_text(f, &s, "max_completion_length", "2048", NULL);
	apply_text(f, &s, "generation_batch_size", "64", NULL);
	apply_text(f, &s, "steps_per_generation", "4", NULL);
	assert_int_equal(s.prompt_len, 512);
	assert_int_equal(s.completion_len, 2048);
	assert_int_equal(s.generation_batch, 64);
	assert_int_equal(s.steps_per_generation, 4);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_NUM_GENERATIONS, NULL, "0", NULL, &v, &why), -SL_EPARSE);
	/* vLLM */
	apply_text(f, &s, "use_vllm", "true", &vtrue);
	apply_text(f, &s, "vllm_mode", "server", &vstr);
	apply_text(f, &s, "vllm_gpu_memory_utilization", "0.45", NULL);
	apply_text(f, &s, "vllm_enable_sleep_mode", "true", &vtrue);
	assert_true(s.engine == SL_ENGINE_VLLM && s.vllm_sleep); /* use_vllm is the role engine (issue #28) */
	assert_int_equal(s.vllm_mode, SL_VLLM_SERVER);
	assert_int_equal(s.vllm_util_bp, 4500);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_VLLM_MODE, NULL, "remote", &vstr, &v, &why), -SL_EPARSE);
	assert_int_equal(sl_role_value_from_text(f->a, SL_ROLE_VLLM_GPU_MEMORY_UTILIZATION, NULL, "1.5", NULL, &v, &why),
			 -SL_EPARSE);
	/* the reference: precomputed, a named model, LLaMA-Factory's reference-free pref_loss */
	apply_text(f, &s, "precompute_ref_log_probs", "true", &vtrue);
	assert_int_equal(s.ref_model, SL_REFM_PRECOMPUTED);
	struct sl_value vfalse = {.type = SL_V_BOOL, .b = false};
	apply_text(f, &s, "precompute_ref_log_probs", "false", &vfalse);
	assert_int_equal(s.ref_model, SL_REFM_DEFAULT);
	apply_text(f, &s, "ref_model", "org/sft-checkpoint", &vstr);
	assert_int_equal(s.ref_model, SL_REFM_MODEL);
	apply_text(f, &s, "precompute_ref_log_probs", "false", &vfalse); /* clears only "precomputed" */
	assert_int_equal(s.ref_model, SL_REFM_MODEL);
	apply_text(f, &s, "ref_model", "null", &vnull);
	assert_int_equal(s.ref_model, SL_REFM_DEFAULT);
	apply_text(f, &s, "pref_loss", "simpo", &vstr);
	assert_int_equal(s.ref_model, SL_REFM_NONE);
	apply_text(f, &s, "pref_loss", "sigmoid", &vstr);
	assert_int_equal(s.ref_model, SL_REFM_DEFAULT);
	/* LLaMA-Factory's reward_model_type */
	apply_text(f, &s, "reward_model_type", "lora", &vstr);
	assert_int_equal(s.reward_model, SL_RM_ADAPTER);
	apply_text(f, &s, "reward_model_type", "full", &vstr);
	assert_int_equal(s.reward_model, SL_RM_MODEL);
	apply_text(f, &s, "reward_model_type", "api", &vstr);
	assert_int_equal(s.reward_model, SL_RM_API);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_key_roles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_words_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prepend_overrides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boolean_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_maps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fsdp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peft_method, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rl_roles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_openrlhf_verl_keys, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
