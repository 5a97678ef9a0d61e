/*
 * memory/algo_table: the training algorithms of rules/algorithms.yaml, compiled at build time by
 * gen/gen_algos.py into a static table (algo_table.c in the build directory). An algorithm is
 * its index in the table (struct sl_settings.algorithm; 0 is sft); sl_algo_parse and sl_algo_name
 * (algo.c) read it, sl_estimate_rl (rl.c) sizes it.
 */
#ifndef SL_MEMORY_ALGO_TABLE_H
#define SL_MEMORY_ALGO_TABLE_H

#include <stdbool.h>

#include "sweeplint/memory.h"

/* Where the reference model's log-probs come from. */
enum sl_algo_ref {
	SL_AREF_NONE,    /* no reference model (ORPO, SimPO, reward models, SFT) */
	SL_AREF_STEP,    /* a reference forward inside the training step (DPO, KTO) */
	SL_AREF_ROLLOUT, /* reference log-probs under no_grad after generation (GRPO, RLOO, PPO) */
};

/* What the loss keeps of the vocabulary logits. */
enum sl_algo_loss {
	SL_ALOSS_CE,       /* a full log-softmax kept for backward (the model's causal LM loss) */
	SL_ALOSS_LOGPROBS, /* TRL selective_log_softmax: gathered log-probs of the labels */
	SL_ALOSS_NLL,      /* logprobs, and a cross-entropy over the chosen half (ORPO, CPO/SimPO) */
	SL_ALOSS_SCORE,    /* a sequence classifier's score: no vocabulary logits (reward models) */
	SL_ALOSS_RESPONSE, /* PPO: logits over every position alive, logprobs over the response's slice */
};

struct sl_algo_def {
	const char *name;             /* the algorithm role value */
	const char *const *spellings; /* other names, NULL-terminated (matched without case) */
	const char *source;
	unsigned sequences;           /* sequences per batch element through the policy */
	enum sl_algo_ref reference;
	bool kl_batch;                /* KTO's KL batch: a no-grad policy and reference forward more */
	enum sl_algo_loss loss;
	bool generates;               /* completions generated inside training */
	unsigned generations;         /* default num_generations */
	unsigned completion;          /* default completion length in tokens */
	double beta;                  /* default KL coefficient (0: no reference model for rollout algorithms) */
	bool completion_logits;       /* logits over the completion only (logits_to_keep) */
	bool reward_model;            /* a frozen reward model */
	bool value_model;             /* a trained value model */
	bool rollout_logits;          /* generation keeps float32 logits of every generated token */
	unsigned rollout_chunk;       /* sequences generated at once (0: the whole local generation batch) */
	/* the row a run of algorithm `replaces` reads when it states mini_batch_size (NULL: none): its batch
	 * is the rollout, and the step runs mini_batch_size sequences of it at a time (TRL < 0.12 PPO) */
	const char *replaces;
};

/* TRL's GRPOConfig/RLOOConfig vllm_gpu_memory_utilization default (grpo_config.py @ f2cd577) */
#define TRL_VLLM_UTIL_BP 3000u

extern const struct sl_algo_def sl_algo_table[];
extern const unsigned sl_algo_table_n;

/* The row of algorithm a (struct sl_settings.algorithm); the sft row for an index past the table. */
const struct sl_algo_def *sl_algo_def_of(unsigned a);

/* The row a run reads: its algorithm's, or the row that replaces it when the run states
 * mini_batch_size (struct sl_algo_def.replaces). */
const struct sl_algo_def *sl_algo_def_for(const struct sl_settings *s);

#endif
