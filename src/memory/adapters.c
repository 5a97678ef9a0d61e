/*
 * adapters: the trainable parameters of a PEFT method on an architecture
 * (PEFT's layer classes, docs/memory-model.md "PEFT methods"), per target
 * linear as sl_arch_targets (models.h) lists them, or from the virtual tokens
 * of the prompt methods; rules/peft.yaml's methods through peft_table.h.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "peft_table.h"
#include "sweeplint/memory.h"

/* r·(in + out) for one adapted linear: A is r×in, B is out×r, no bias. */
/*
 * Trainable parameters of one adapted linear (in -> out; ff: a feed-forward module) by method, from
 * PEFT's layer classes: LoRA A (r x in) + B (out x r); DoRA + lora_magnitude_vector (out); LoHa two
 * rank-r pairs; VeRA lambda_d (r) + lambda_b (out), A and B frozen and shared; IA3 one vector (out,
 * or in for feedforward_modules); OFT r blocks of in/r, each a skew-symmetric matrix stored as its
 * upper triangle; BOFT in/4 blocks of 4 x 4 (boft_block_size 4, one butterfly factor) + boft_s (out).
 */
static uint64_t module(enum sl_peft m, uint64_t r, uint64_t in, uint64_t out, bool ff)
{
	switch (m) {
	case SL_PEFT_DORA:
		return r * (in + out) + out;
	case SL_PEFT_LOHA:
		return 2 * r * (in + out);
	case SL_PEFT_VERA:
		return r + out;
	case SL_PEFT_IA3:
		return ff ? in : out;
	case SL_PEFT_OFT: {
		uint64_t bs = r ? in / r : 0;
		return bs ? r * (bs * (bs - 1) / 2) : 0;
	}
	case SL_PEFT_BOFT:
		return (in / 4) * 16 + out;
	default:
		return r * (in + out);
	}
}

struct module_ctx {
	enum sl_peft m;
	uint64_t r;
};

static double module_fn(const void *ctx, double in, double out, bool ff)
{
	const struct module_ctx *c = ctx;
	return (double)module(c->m, c->r, (uint64_t)in, (uint64_t)out, ff);
}

static uint64_t adapted(const struct sl_arch *a, enum sl_peft m, uint32_t r, uint32_t targets)
{
	if (targets == 0)
		targets = m == SL_PEFT_IA3 ? (SL_LORA_K | SL_LORA_V | SL_LORA_DOWN) /* PEFT's IA3 default */
					   : SL_LORA_Q | SL_LORA_V;           /* PEFT's default for every family here */
	struct module_ctx c = {m, r};
	return (uint64_t)sl_arch_targets(a, targets, module_fn, &c, NULL);
}

uint64_t sl_arch_lora_params(const struct sl_arch *a, uint32_t r, uint32_t targets)
{
	return adapted(a, SL_PEFT_LORA, r, targets);
}

uint64_t sl_arch_peft_params(const struct sl_arch *a, enum sl_peft m, uint32_t r, uint32_t targets, uint32_t tokens)
{
	uint64_t h = a->hidden, L = a->layers + (a->kind == SL_ARCH_ENCDEC && !a->enc_only ? (a->dec_layers ? a->dec_layers : a->layers) : 0);
	switch (m) {
	case SL_PEFT_PROMPT_TUNING:
	case SL_PEFT_TRAINABLE_TOKENS:
		return (uint64_t)tokens * h;             /* PromptEmbedding / TrainableTokensLayer rows */
	case SL_PEFT_P_TUNING:
		/* PromptEncoder (MLP): the embedding + Linear(h, h), Linear(h, h), Linear(h, h) with biases
		 * (encoder_hidden_size defaults to the token dim) */
		return (uint64_t)tokens * h + 3 * (h * h + h);
	case SL_PEFT_PREFIX_TUNING:
		/* PrefixEncoder without projection: num_virtual_tokens x layers x 2 x (kv heads x head dim) */
		return (uint64_t)tokens * L * 2 * (uint64_t)(a->kv_heads ? a->kv_heads : a->heads) * (a->head_dim ? a->head_dim : (a->heads ? a->hidden / a->heads : 0));
	case SL_PEFT_ADAPTION_PROMPT:
		/* AdaptedAttention per layer: adaption_prompt (adapter_len x h) + adaption_gate (1) */
		return a->layers * ((uint64_t)tokens * h + 1);
	case SL_PEFT_LN_TUNING:
		return sl_arch_norm_params(a);
	default: {
		const struct sl_peft_def *d = sl_peft_def_of(m);
		if (d) { /* rules/peft.yaml */
			struct sl_peft_sizes z;
			sl_peft_sizes(a, d, r, targets, 2, NULL, &z);
			return z.params > 0 ? (uint64_t)llround(z.params) : 0;
		}
		return adapted(a, m, r, targets);
	}
	}
}
