/*
 * memory/algo: the training algorithms (rules/algorithms.yaml, compiled into sl_algo_table by
 * gen/gen_algos.py) as settings hold them: a row's name and spellings to its index, the names of
 * vLLM's modes and of how a reference and a reward model are held, and the shape of a run — its
 * sequences, lengths, generation batch and models (sl_rl_shape) — which the estimator (rl.c), fit and
 * the descriptions of a run read.
 */
#include <string.h>
#include <strings.h>

#include "algo_table.h"
#include "sweeplint/arena.h"

const struct sl_algo_def *sl_algo_def_of(unsigned a)
{
	return &sl_algo_table[a < sl_algo_table_n ? a : 0];
}

const struct sl_algo_def *sl_algo_def_for(const struct sl_settings *s)
{
	const struct sl_algo_def *d = sl_algo_def_of(s->algorithm);
	if (!s->mini_batch_size)
		return d;
	for (unsigned i = 0; i < sl_algo_table_n; i++)
		if (sl_algo_table[i].replaces && strcmp(sl_algo_table[i].replaces, d->name) == 0)
			return &sl_algo_table[i];
	return d;
}

const char *sl_algo_name(uint32_t a)
{
	return a < sl_algo_table_n ? sl_algo_table[a].name : "?";
}

unsigned sl_algo_count(void)
{
	return sl_algo_table_n;
}

const char *const *sl_algo_spellings(uint32_t a)
{
	return a < sl_algo_table_n ? sl_algo_table[a].spellings : NULL;
}

int sl_algo_parse(const char *s)
{
	if (!s)
		return -1;
	for (unsigned i = 0; i < sl_algo_table_n; i++) {
		if (strcasecmp(s, sl_algo_table[i].name) == 0)
			return (int)i;
		for (const char *const *sp = sl_algo_table[i].spellings; sp && *sp; sp++)
			if (strcasecmp(s, *sp) == 0)
				return (int)i;
	}
	return -1;
}

const char *sl_vllm_mode_name(enum sl_vllm_mode m)
{
	switch (m) {
	case SL_VLLM_SERVER:
		return "server";
	default:
		return "colocate";
	}
}

const char *sl_ref_model_name(enum sl_ref_model r)
{
	static const char *const names[] = {"default", "model", "precomputed", "none"};
	return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

const char *sl_reward_model_name(enum sl_reward_model r)
{
	static const char *const names[] = {"default", "model", "adapter", "api"};
	return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

static uint64_t add_sat(uint64_t x, uint64_t y)
{
	return x > UINT64_MAX - y ? UINT64_MAX : x + y;
}

static uint64_t mul_sat(uint64_t x, uint64_t y)
{
	return y && x > UINT64_MAX / y ? UINT64_MAX : x * y;
}

static bool peft_of(const struct sl_settings *s)
{
	return s->peft_method != SL_PEFT_NONE || s->lora_r > 0;
}

void sl_rl_shape(const struct sl_arch *a, const struct sl_settings *s, struct sl_rl_shape *out)
{
	(void)a;
	const struct sl_algo_def *d = sl_algo_def_for(s);
	memset(out, 0, sizeof *out);
	uint64_t b = s->batch_size ? s->batch_size : 1;
	/* a row that replaces another (TRL < 0.12 PPO): the batch is the rollout, and each forward and
	 * backward runs mini_batch_size sequences of it (batched_forward_pass, the PPO epochs' mini-batches) */
	uint64_t step = d->replaces && s->mini_batch_size && s->mini_batch_size < b ? s->mini_batch_size : b;
	out->sequences = mul_sat(step, d->sequences);
	out->mini_batches = d->replaces && s->mini_batch_size;
	out->generations = s->num_generations ? s->num_generations : d->generations;
	out->batch_quantum = 1;
	if (d->generates) {
		out->prompt = s->prompt_len ? s->prompt_len : (s->seq_len ? s->seq_len : 1);
		out->completion = s->completion_len ? s->completion_len
				: s->max_new_tokens     ? s->max_new_tokens
							: d->completion;
		out->length = add_sat(out->prompt, out->completion);
		/* GRPO/RLOO (TRL): the generation batch, per_device_train_batch_size × GPUs × steps per
		 * generation completions, holds whole groups of num_generations (grpo_config.py
		 * __post_init__): on one GPU with one step per generation the batch is a multiple of it */
		uint64_t gpus = s->num_gpus ? s->num_gpus : 1;
		uint64_t steps = s->steps_per_generation ? s->steps_per_generation : (s->grad_accum ? s->grad_accum : 1);
		if (out->generations > 1 && !s->generation_batch) {
			uint64_t g = out->generations, m = mul_sat(gpus, steps), x = g, y = m % g;
			while (y) { /* gcd(g, m) */
				uint64_t r = x % y;
				x = y, y = r;
			}
			out->batch_quantum = g / x;
		}
		bool engine_generates = s->engine == SL_ENGINE_VLLM; /* TRL use_vllm (role engine) */
		if (!engine_generates) {
			uint64_t local = s->generation_batch ? (s->generation_batch + gpus - 1) / gpus
					 : d->replaces                ? b /* the user's loop generates the batch */
								      : mul_sat(b, steps);
			if (local < b)
				local = b;
			out->rollout_rows = d->rollout_chunk && d->rollout_chunk < local ? d->rollout_chunk : local;
		}
		out->engine = engine_generates && s->vllm_mode != SL_VLLM_SERVER;
	} else {
		out->length = s->seq_len ? s->seq_len : 1;
	}
	bool beta_zero = s->beta == SL_BETA_ZERO || (s->beta == SL_BETA_DEFAULT && d->beta == 0);
	bool needed = d->reference != SL_AREF_NONE && s->ref_model != SL_REFM_NONE &&
		      !(d->reference == SL_AREF_ROLLOUT && beta_zero);
	/* precompute_ref_log_probs (DPO, KTO): the log-probs come with the dataset, and TRL keeps no
	 * reference model (dpo_trainer.py: ref_model None when is_peft_model or precompute) */
	bool precomputed = s->ref_model == SL_REFM_PRECOMPUTED && d->reference == SL_AREF_STEP;
	out->reference = needed && !precomputed && (s->ref_model == SL_REFM_MODEL || !peft_of(s));
	out->reference_forward = needed && !precomputed && d->reference == SL_AREF_STEP;
}

const char *sl_rl_frozen_label(const struct sl_settings *s)
{
	const struct sl_algo_def *d = sl_algo_def_for(s);
	struct sl_rl_shape sh;
	sl_rl_shape(NULL, s, &sh);
	bool reward = d->reward_model && s->reward_model != SL_RM_ADAPTER && s->reward_model != SL_RM_API;
	return sh.reference && reward ? "reference + reward" : reward ? "reward model" : "reference model";
}

void sl_rl_describe(struct sl_buf *b, const struct sl_settings *s)
{
	if (!s->algorithm)
		return;
	const struct sl_algo_def *d = sl_algo_def_for(s);
	struct sl_rl_shape sh;
	sl_rl_shape(NULL, s, &sh);
	sl_buf_addf(b, ", %s", d->name);
	if (d->replaces && s->batch_size)
		sl_buf_addf(b, " (forward and backward over mini-batches of %llu)", (unsigned long long)sh.sequences);
	if (d->sequences == 2 && s->batch_size)
		sl_buf_addf(b, " (%llu sequences: chosen + rejected)", (unsigned long long)sh.sequences);
	if (d->generates) {
		/* fit describes the run with its searched batch and length at 0: they are not part of it */
		sl_buf_addf(b, ": %u generation%s per prompt, ", sh.generations, sh.generations == 1 ? "" : "s");
		if (s->prompt_len || s->seq_len)
			sl_buf_addf(b, "prompt %llu + ", (unsigned long long)sh.prompt);
		sl_buf_addf(b, "completion %llu tokens", (unsigned long long)sh.completion);
		if (s->engine == SL_ENGINE_VLLM)
			sl_buf_addf(b, ", vLLM %s", sl_vllm_mode_name((enum sl_vllm_mode)s->vllm_mode));
		if (sh.engine)
			sl_buf_addf(b, " %.2f%s", (s->vllm_util_bp ? s->vllm_util_bp : TRL_VLLM_UTIL_BP) / 10000.0,
				    s->vllm_sleep ? " (sleeps between generations)" : "");
		else if (sh.rollout_rows && s->batch_size)
			sl_buf_addf(b, ", %llu sequences generated at once", (unsigned long long)sh.rollout_rows);
	}
	if (d->reference == SL_AREF_NONE)
		return;
	if (sh.reference)
		sl_buf_adds(b, ", reference model copy");
	else if (s->ref_model == SL_REFM_PRECOMPUTED && d->reference == SL_AREF_STEP)
		sl_buf_adds(b, ", reference log-probs precomputed");
	else if (sh.reference_forward || (d->reference == SL_AREF_ROLLOUT && s->ref_model != SL_REFM_NONE &&
					  !(s->beta == SL_BETA_ZERO || (s->beta == SL_BETA_DEFAULT && d->beta == 0))))
		sl_buf_adds(b, ", reference: the base with the adapter disabled");
	else
		sl_buf_adds(b, ", no reference model");
}
