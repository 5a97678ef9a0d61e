/*
 * test_rl: preference and RL fine-tuning (src/memory/rl.c, algo.c; docs/memory-model.md "Preference
 * and RL fine-tuning"). Each algorithm's terms are computed here by hand from the architecture and
 * the trainer's source — the reference copy (P × bytes), the logits the loss keeps (sequences ×
 * positions × vocabulary × bytes per logit), the generation's KV cache (rows × 2 × layers × tokens
 * × kv width × bytes), a colocated vLLM share (utilization × capacity), PPO's reward and value
 * models — and compared with what the estimator reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"

struct env {
	struct sl_arena *arena;
	struct sl_catalog *cat;
	const struct sl_arch *a;  /* llama-3.2-1b */
	const struct sl_gpu *gpu; /* h100-80gb */
};

static int setup(void **state)
{
	static struct env e;
	e.arena = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, e.arena);
	if (sl_catalog_load(e.arena, &e.cat, &d) != 0)
		return -1;
	const struct sl_model *m = sl_catalog_find_model(e.cat, "llama-3.2-1b");
	e.gpu = sl_catalog_find_gpu(e.arena, e.cat, "h100-80gb");
	if (!m || !e.gpu)
		return -1;
	e.a = &m->arch;
	*state = &e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;
	sl_arena_free(e->arena);
	return 0;
}

static int algo(const char *name)
{
	int k = sl_algo_parse(name);
	assert_true(k > 0);
	return k;
}

/* A causal LM step as TRL runs it by default: fp32 weights under bf16 autocast, checkpointing. */
static void base(struct sl_settings *s, const char *algorithm, uint64_t batch, uint64_t len)
{
	sl_settings_default(s);
	s->task = SL_TASK_CAUSAL_LM;
	s->algorithm = (uint32_t)algo(algorithm);
	s->batch_size = batch;
	s->seq_len = len;
	s->amp = SL_AMP_BF16;
	s->gradient_checkpointing = true;
}

static void run(struct env *e, const struct sl_settings *s, struct sl_breakdown *b)
{
	sl_estimate(e->a, s, e->gpu, &((const struct sl_catalog *)e->cat)->calib, b);
	uint64_t sum = b->cuda_context + b->workspace + b->weights + b->gradients + b->optimizer + b->activations +
		       b->logits + b->zero_gather + b->kv_cache + b->slack + b->frozen_models + b->engine;
	assert_int_equal(sum, b->total); /* the terms add up to the peak */
	if (s->algorithm)
		assert_true(b->total == b->phase_step || b->total == b->phase_generation);
}

static uint64_t rnd(double v)
{
	return (uint64_t)(v + 0.5);
}

static double P_lm(struct env *e)
{
	return (double)sl_arch_params_for_task(e->a, SL_TASK_CAUSAL_LM);
}

/* DPO: chosen and rejected in one forward (2 × batch sequences); the reference forward keeps its
 * float32 logits to the end of the loss; a full fine-tune holds a reference copy of the weights. */
static void test_dpo(void **state)
{
	struct env *e = *state;
	double V = e->a->vocab, L = 256;
	struct sl_settings s;
	struct sl_breakdown b;

	/* LoRA: no copy (the adapter is disabled for the reference pass); the peak is the end of the
	 * forward (autocast's cached half weights are still alive): per logit the policy's float32 logits
	 * kept by logsumexp (4), their bf16 original while converted (2) and the reference's (4) */
	base(&s, "dpo", 2, (uint64_t)L);
	s.lora_r = 16;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, 0);
	assert_int_equal(b.phase, SL_PHASE_FORWARD);
	assert_int_equal(b.logits, rnd(4 * L * V * (4 + 2 + 4)));
	assert_int_equal(b.trainable, sl_arch_lora_params(e->a, 16, 0));

	/* precompute_ref_log_probs: no reference logits in the step */
	s.ref_model = SL_REFM_PRECOMPUTED;
	run(e, &s, &b);
	assert_int_equal(b.logits, rnd(4 * L * V * (4 + 2)));

	/* a full fine-tune: a copy of the weights as loaded (fp32) */
	base(&s, "dpo", 2, (uint64_t)L);
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, rnd(4 * P_lm(e)));
	s.ref_model = SL_REFM_PRECOMPUTED;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, 0);

	/* pure bf16 without autocast: 16-bit logits, a log-softmax per sequence kept beside them; at the
	 * start of backward three logits-sized gradients: 6 B either way */
	base(&s, "dpo", 2, (uint64_t)L);
	s.amp = SL_AMP_OFF;
	s.dtype = SL_DTYPE_BF16;
	s.lora_r = 8;
	run(e, &s, &b);
	assert_true(b.phase == SL_PHASE_FORWARD || b.phase == SL_PHASE_BACKWARD);
	assert_int_equal(b.logits, rnd(4 * L * V * (2 * 2 + 2)));
	/* a reference model named for it is a copy even under PEFT: the load dtype */
	s.ref_model = SL_REFM_MODEL;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, rnd(2 * P_lm(e)));

	/* bf16 under DeepSpeed (ZeRO-2 on 2 GPUs): accelerate turns native_amp on only outside DeepSpeed,
	 * so there is no autocast and no convert_outputs_to_fp32, and the engine runs the module cast to
	 * bf16: the loss sees the 16-bit logits as in pure bf16 — per logit the policy's 2 B and its
	 * per-sequence log-softmax's 2 B, the reference's 2 B; 6 B at the start of backward. The same
	 * settings under autocast without DeepSpeed read 4 + 2 + 4 (above). */
	base(&s, "dpo", 2, (uint64_t)L);
	s.lora_r = 16;
	s.zero_stage = 2;
	s.num_gpus = 2;
	run(e, &s, &b);
	assert_true(b.phase == SL_PHASE_FORWARD || b.phase == SL_PHASE_BACKWARD);
	assert_int_equal(b.logits, rnd(4 * L * V * (2 * 2 + 2)));
	/* FSDP with bf16 mixed precision: accelerate's native_amp is on, the prepared forward returns
	 * float32 logits: 4 + 2 + 4 at the end of the forward, 3 × 4 at the start of the backward */
	s.zero_stage = 0;
	s.fsdp = SL_FSDP_FULL_SHARD;
	run(e, &s, &b);
	assert_int_equal(b.phase, SL_PHASE_BACKWARD);
	assert_int_equal(b.logits, rnd(4 * L * V * 12));
}

/* ORPO and SimPO: pairs, no reference, the chosen half's NLL (a shifted copy and its log-softmax). */
static void test_orpo_simpo(void **state)
{
	struct env *e = *state;
	double V = e->a->vocab, L = 256;
	const char *names[] = {"orpo", "simpo", "CPOTrainer"};
	for (size_t i = 0; i < 3; i++) {
		struct sl_settings s;
		struct sl_breakdown b;
		base(&s, names[i], 3, (uint64_t)L);
		s.lora_r = 16;
		run(e, &s, &b);
		assert_int_equal(b.frozen_models, 0);
		assert_int_equal(b.phase, SL_PHASE_FORWARD);
		assert_int_equal(b.logits, rnd(6 * L * V * (4 + 2 + 4)));
		/* a full fine-tune keeps no reference either */
		s.lora_r = 0;
		run(e, &s, &b);
		assert_int_equal(b.frozen_models, 0);
	}
}

/* KTO: unpaired examples (batch sequences, not pairs), a reference forward in the step. */
static void test_kto(void **state)
{
	struct env *e = *state;
	double V = e->a->vocab, L = 512;
	struct sl_settings s;
	struct sl_breakdown b;
	base(&s, "KTOTrainer", 4, (uint64_t)L);
	s.lora_r = 16;
	run(e, &s, &b);
	assert_int_equal(b.phase, SL_PHASE_FORWARD);
	assert_int_equal(b.logits, rnd(4 * L * V * (4 + 2 + 4)));
	assert_int_equal(b.frozen_models, 0);
	s.lora_r = 0;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, rnd(4 * P_lm(e)));
}

/* GRPO: logits over the completion only; the generation phase holds the KV cache of the local
 * generation batch; a colocated vLLM engine holds its share of the GPU. */
static void test_grpo(void **state)
{
	struct env *e = *state;
	double V = e->a->vocab, prompt = 128, completion = 256;
	struct sl_settings s;
	struct sl_breakdown b;
	base(&s, "grpo", 8, (uint64_t)prompt);
	s.completion_len = (uint64_t)completion;
	s.lora_r = 16;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, 0); /* beta 0 by default: no reference */
	assert_int_equal(b.phase, SL_PHASE_FORWARD);
	assert_int_equal(b.logits, rnd(8 * completion * V * (4 + 2)));
	assert_true(b.phase_generation > 0 && b.phase_generation < b.phase_step);

	/* a generation batch of 2 × 128 completions (steps_per_generation = grad_accum 128) of 1024
	 * tokens: generation is the peak, at the last decoding step: the cache of every layer at prompt +
	 * completion (bf16 under autocast) */
	s.batch_size = 2;
	s.grad_accum = 128;
	s.completion_len = 1024;
	run(e, &s, &b);
	assert_int_equal(b.phase, SL_PHASE_ROLLOUT);
	double kvd = (double)e->a->kv_heads * (e->a->head_dim ? e->a->head_dim : e->a->hidden / e->a->heads);
	assert_int_equal(b.kv_cache, rnd(256 * 2 * (double)e->a->layers * (prompt + 1024) * kvd * 2));
	assert_int_equal(b.total, b.phase_generation);
	/* generation_batch_size gives the same batch over the GPUs */
	struct sl_settings g = s;
	g.grad_accum = 1;
	g.generation_batch = 512;
	g.num_gpus = 2;
	g.batch_size = 4;
	struct sl_breakdown bg;
	run(e, &g, &bg);
	assert_int_equal(bg.kv_cache, b.kv_cache);

	/* beta > 0: a reference copy for a full fine-tune, the disabled adapter under LoRA */
	base(&s, "grpo", 8, (uint64_t)prompt);
	s.completion_len = (uint64_t)completion;
	s.beta = SL_BETA_POSITIVE;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, rnd(4 * P_lm(e)));
	s.lora_r = 8;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, 0);
}

static void test_grpo_vllm(void **state)
{
	struct env *e = *state;
	struct sl_settings s;
	struct sl_breakdown colo, srv, sleep;
	base(&s, "grpo", 8, 256);
	s.completion_len = 1024;
	s.lora_r = 16;
	s.engine = SL_ENGINE_VLLM; /* TRL use_vllm: role engine */
	run(e, &s, &colo); /* vllm_mode unstated: colocate (TRL >= 1.0), 0.3 of the GPU */
	assert_int_equal(colo.engine, rnd(0.3 * (double)e->gpu->bytes));
	assert_int_equal(colo.phase_generation, 0); /* the engine generates inside its share */
	s.vllm_util_bp = 4500;
	run(e, &s, &colo);
	assert_int_equal(colo.engine, rnd(0.45 * (double)e->gpu->bytes));
	s.vllm_mode = SL_VLLM_SERVER;
	run(e, &s, &srv);
	assert_int_equal(srv.engine, 0);
	assert_int_equal(colo.total - srv.total, colo.engine);
	s.vllm_mode = SL_VLLM_COLOCATE;
	s.vllm_sleep = true; /* the engine frees its share after each generation */
	run(e, &s, &sleep);
	assert_int_equal(sleep.engine, 0);
	assert_int_equal(sleep.total, srv.total);
}

/* PPO: four models — the policy and a value model trained, the reference and a reward model frozen. */
static void test_ppo(void **state)
{
	struct env *e = *state;
	double P_cls = (double)sl_arch_params_for_task(e->a, SL_TASK_SEQ_CLS);
	struct sl_settings s;
	struct sl_breakdown b;
	base(&s, "ppo", 4, 256);
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, rnd(4 * P_lm(e) + 4 * P_cls));
	assert_int_equal(b.trainable, rnd(P_lm(e) + P_cls));
	assert_int_equal(b.params, rnd(P_lm(e) + P_cls));
	assert_true(b.value_model > rnd(4 * P_cls)); /* its weights, and its gradients, states, activations */
	/* LLaMA-Factory's reward adapter: no reward copy */
	s.reward_model = SL_RM_ADAPTER;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, rnd(4 * P_lm(e)));
	/* a LoRA policy: the reference is its base with the adapter disabled */
	s.reward_model = SL_RM_DEFAULT;
	s.lora_r = 16;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, rnd(4 * P_cls));
	assert_int_equal(b.trainable, rnd((double)sl_arch_lora_params(e->a, 16, 0) + P_cls));

	/* generation keeps the float32 scores of every generated token of the local batch (8 × 8) as
	 * well as the last decoding step's logits (64 rows, bf16 + float32 copy + log-softmax) */
	base(&s, "ppo", 8, 128);
	s.lora_r = 16;
	s.grad_accum = 8;
	s.completion_len = 2048;
	run(e, &s, &b);
	assert_int_equal(b.phase, SL_PHASE_ROLLOUT);
	double V = e->a->vocab;
	assert_int_equal(b.logits, rnd(64 * V * (2 + 4 + 4)) + rnd(64 * 2048 * V * 4));
}

/* PPO under ZeRO-3: generation runs inside unwrap_model_for_generation(self.model), whose
 * GatheredParameters(model.parameters()) gathers the whole PolicyAndValueWrapper — the value model's
 * 16-bit weights beside the policy's — where GRPO gathers the policy alone: the same generation
 * (8 rows of 128 + 2048 tokens) holds 2 B × the value model's parameters more. */
static void test_ppo_zero3_gather(void **state)
{
	struct env *e = *state;
	double P_cls = (double)sl_arch_params_for_task(e->a, SL_TASK_SEQ_CLS);
	struct sl_settings s, g;
	struct sl_breakdown ppo, gen;
	base(&s, "ppo", 1, 128);
	s.completion_len = 2048;
	s.grad_accum = 8; /* 8 rows generated at once: generation is the peak */
	s.zero_stage = 3;
	s.num_gpus = 8;
	s.reward_model = SL_RM_API; /* the frozen models aside */
	s.ref_model = SL_REFM_NONE;
	run(e, &s, &ppo);
	assert_int_equal(ppo.phase, SL_PHASE_ROLLOUT);
	/* the same generation alone (8 rows, ZeRO-3 over 8 GPUs): what it gathers of its own */
	sl_settings_default(&g);
	g.task = SL_TASK_CAUSAL_LM;
	g.batch_size = 8;
	g.seq_len = 128;
	g.amp = SL_AMP_BF16;
	g.gradient_checkpointing = true;
	g.mode = SL_MODE_GENERATE;
	g.max_new_tokens = 2048;
	g.num_beams = 1;
	g.zero_stage = 3;
	g.num_gpus = 8;
	sl_estimate(e->a, &g, e->gpu, &((const struct sl_catalog *)e->cat)->calib, &gen);
	assert_int_equal(ppo.zero_gather, gen.zero_gather + rnd(2 * (P_lm(e) + P_cls)));
}

/* TRL's PPOTrainer before 0.12 (a run of ppo that states mini_batch_size): batch_size samples are
 * generated by the user's loop in chunks of 4 (PPOTrainer.generate's batch_size), each forward and
 * backward runs mini_batch_size of them; the value head is on the policy (no value model) and the
 * reward is the user's (no reward model); a full fine-tune copies the policy for the reference. */
static void test_ppo_legacy(void **state)
{
	struct env *e = *state;
	double prompt = 128, completion = 256;
	struct sl_settings s;
	struct sl_breakdown one, four;
	struct sl_rl_shape sh;
	base(&s, "PPOTrainer", 8, (uint64_t)prompt);
	s.completion_len = (uint64_t)completion;
	s.lora_r = 16;
	s.mini_batch_size = 1;
	sl_rl_shape(e->a, &s, &sh);
	assert_int_equal(sh.sequences, 1);
	assert_int_equal(sh.rollout_rows, 4);
	assert_int_equal(sh.length, prompt + completion);
	run(e, &s, &one);
	assert_int_equal(one.frozen_models, 0); /* LoRA: the reference is the base, no reward model */
	assert_int_equal(one.value_model, 0);
	assert_int_equal(one.trainable, sl_arch_lora_params(e->a, 16, 0));
	/* the step's logits scale with the mini batch, not with the batch of 8 */
	s.mini_batch_size = 4;
	run(e, &s, &four);
	assert_true(four.logits + 4 >= 4 * one.logits && four.logits <= 4 * one.logits + 4);
	/* generation runs 4 rows at once (of the 8): a phase of its own, below the step here */
	assert_true(one.phase_generation > 0 && one.phase_generation < one.phase_step);
	/* a full fine-tune: a reference copy in the load dtype (fp32), still no reward or value model */
	base(&s, "ppo", 8, (uint64_t)prompt);
	s.completion_len = (uint64_t)completion;
	s.mini_batch_size = 2;
	run(e, &s, &one);
	assert_int_equal(one.frozen_models, rnd(4 * P_lm(e)));
	assert_int_equal(one.value_model, 0);
	assert_int_equal(one.trainable, rnd(P_lm(e)));
	/* without mini_batch_size the run is TRL's current PPO: four models */
	s.mini_batch_size = 0;
	run(e, &s, &four);
	assert_true(four.value_model > 0);
}

/* Reward modelling: a sequence classifier over [chosen, rejected]: twice the sequences of the batch. */
static void test_reward(void **state)
{
	struct env *e = *state;
	struct sl_settings s, sft;
	struct sl_breakdown b, one;
	base(&s, "RewardTrainer", 4, 512);
	s.lora_r = 16;
	run(e, &s, &b);
	assert_int_equal(b.frozen_models, 0);
	sl_settings_default(&sft);
	sft.task = SL_TASK_SEQ_CLS;
	sft.batch_size = 4;
	sft.seq_len = 512;
	sft.amp = SL_AMP_BF16;
	sft.gradient_checkpointing = true;
	sft.lora_r = 16;
	run(e, &sft, &one);
	uint64_t twice = 2 * one.activations;
	assert_true(b.activations + 2 >= twice && b.activations <= twice + 2);
}

/* The batch the trainer accepts: GRPO's generation batch holds whole groups of num_generations. */
static void test_shape(void **state)
{
	struct env *e = *state;
	struct sl_settings s;
	struct sl_rl_shape sh;
	base(&s, "grpo", 8, 100);
	s.num_generations = 8;
	sl_rl_shape(e->a, &s, &sh);
	assert_int_equal(sh.batch_quantum, 8);
	assert_int_equal(sh.length, 100 + 512); /* TRL's max_completion_length default */
	s.grad_accum = 4;
	sl_rl_shape(e->a, &s, &sh);
	assert_int_equal(sh.batch_quantum, 2);
	s.num_gpus = 8;
	sl_rl_shape(e->a, &s, &sh);
	assert_int_equal(sh.batch_quantum, 1);
	s.num_gpus = 1;
	s.num_generations = 6;
	sl_rl_shape(e->a, &s, &sh);
	assert_int_equal(sh.batch_quantum, 3);
	/* a prompt length stated apart from seq_len, max_new_tokens for the completion */
	s.prompt_len = 300;
	s.max_new_tokens = 700;
	sl_rl_shape(e->a, &s, &sh);
	assert_int_equal(sh.length, 1000);
	base(&s, "dpo", 5, 100);
	sl_rl_shape(e->a, &s, &sh);
	assert_int_equal(sh.sequences, 10);
	assert_int_equal(sh.batch_quantum, 1);
}

/* Names: rows, spellings, trainer classes; an encoder runs only the reward model's classifier. */
static void test_names(void **state)
{
	struct env *e = *state;
	assert_int_equal(sl_algo_parse("sft"), 0);
	assert_int_equal(sl_algo_parse("Trainer"), 0);
	assert_int_equal(sl_algo_parse("dpotrainer"), sl_algo_parse("dpo"));
	assert_int_equal(sl_algo_parse("rm"), sl_algo_parse("reward"));
	assert_int_equal(sl_algo_parse("lora_dpo_single_device"), sl_algo_parse("dpo"));
	assert_int_equal(sl_algo_parse("cpo"), sl_algo_parse("simpo"));
	assert_int_equal(sl_algo_parse("a2c"), -1);
	assert_string_equal(sl_algo_name((uint32_t)sl_algo_parse("GRPOTrainer")), "grpo");
	const struct sl_model *bert = sl_catalog_find_model(e->cat, "bert-base-uncased");
	assert_non_null(bert);
	struct sl_settings s, sft;
	struct sl_breakdown b, c;
	base(&s, "dpo", 4, 128);
	s.task = SL_TASK_SEQ_CLS;
	sft = s;
	sft.algorithm = 0;
	sl_estimate(&bert->arch, &s, e->gpu, &e->cat->calib, &b);
	sl_estimate(&bert->arch, &sft, e->gpu, &e->cat->calib, &c);
	assert_int_equal(b.total, c.total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dpo),    cmocka_unit_test(test_orpo_simpo), cmocka_unit_test(test_kto),
		cmocka_unit_test(test_grpo),   cmocka_unit_test(test_grpo_vllm),  cmocka_unit_test(test_ppo), cmocka_unit_test(test_ppo_zero3_gather), cmocka_unit_test(test_ppo_legacy),
		cmocka_unit_test(test_reward), cmocka_unit_test(test_shape),      cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
