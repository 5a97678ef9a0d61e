/*
 * memory/rl: peak device memory of preference and RL fine-tuning (docs/memory-model.md "Preference
 * and RL fine-tuning"). An algorithm (rules/algorithms.yaml, algo_table.h) changes what one step
 * runs, not how a model's layers keep their tensors, so the step is sized as the policy's own step
 * (sl_estimate over its sequences, with the loss's logits) and the algorithm adds:
 *
 *  - its frozen models: the reference (a second copy of the weights unless the policy is a PEFT
 *    adapter, whose base with the adapter disabled is the reference; none for the reference-free
 *    losses, with precompute_ref_log_probs, or a rollout algorithm whose beta is 0) and PPO's
 *    reward model;
 *  - PPO's value model, trained beside the policy (its own step: weights, gradients, optimizer
 *    states, activations);
 *  - a colocated vLLM engine's gpu_memory_utilization share of the GPU, held through training unless
 *    the engine sleeps between generations;
 *  - the generation phase of the algorithms that generate with the policy itself (no vLLM): the
 *    weights, the optimizer states and the frozen models stay while the policy's KV cache fills
 *    for the local generation batch (sl_estimate in generate mode), PPO's stacked float32 scores.
 *
 * The peak is the larger phase. Pure: no allocation, no global state.
 */
#include <string.h>

#include "algo_table.h"
#include "sweeplint/memory.h"

static uint64_t add_sat(uint64_t x, uint64_t y)
{
	return x > UINT64_MAX - y ? UINT64_MAX : x + y;
}

static uint64_t mul_sat(uint64_t x, uint64_t y)
{
	return y && x > UINT64_MAX / y ? UINT64_MAX : x * y;
}

/* bytes per weight of a frozen copy of the model: the load dtype; sharded under ZeRO-3 and FSDP */
static double frozen_bytes(const struct sl_settings *s, double params)
{
	double pb = s->dtype == SL_DTYPE_FP32 ? 4 : 2;
	double n = s->num_gpus ? s->num_gpus : 1;
	if (s->zero_stage >= 3) /* trl prepare_deepspeed: a ZeRO-3 inference engine in the half dtype */
		return (s->amp != SL_AMP_OFF || pb == 2 ? 2 : 4) * params / n;
	if (s->fsdp != SL_FSDP_NONE && s->fsdp != SL_FSDP_NO_SHARD) /* trl prepare_fsdp */
		return pb * params / n;
	return pb * params;
}

static uint64_t to_u64(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)(v + 0.5);
}

static uint64_t sum(const uint64_t *v, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t = add_sat(t, v[i]);
	return t;
}

void sl_estimate_rl(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
		    const struct sl_calib *c, struct sl_breakdown *out)
{
	const struct sl_algo_def *d = sl_algo_def_for(s);
	struct sl_settings ps = *s;
	ps.algorithm = 0;
	ps.mini_batch_size = 0; /* the RL mini batch sized the step's sequences (sl_rl_shape), not GradCache's */
	/* an encoder cannot generate or score tokens: only a reward model's classifier runs on one */
	if (a->kind == SL_ARCH_ENCODER && d->loss != SL_ALOSS_SCORE) {
		sl_estimate(a, &ps, gpu, c, out);
		return;
	}
	struct sl_rl_shape sh;
	sl_rl_shape(a, s, &sh);

	/* the policy's step over its sequences */
	bool encdec = a->kind == SL_ARCH_ENCDEC && !a->enc_only;
	ps.task = d->loss == SL_ALOSS_SCORE ? SL_TASK_SEQ_CLS : encdec ? SL_TASK_SEQ2SEQ : SL_TASK_CAUSAL_LM;
	ps.batch_size = sh.sequences;
	if (d->generates && encdec) {
		ps.seq_len = sh.prompt;
		ps.target_len = sh.completion;
	} else {
		ps.seq_len = sh.length;
		ps.target_len = 0;
	}
	ps.logit_tokens = d->completion_logits && !encdec ? sh.completion : 0;
	ps.logit_loss = (uint8_t)d->loss;
	ps.completion_len = sh.completion;
	ps.ref_logits = sh.reference_forward;
	struct sl_breakdown pol;
	sl_estimate(a, &ps, gpu, c, &pol);

	/* the frozen models: the reference, PPO's reward model (one score per sequence) */
	double frozen = 0;
	double P_lm = (double)sl_arch_params_for_task(a, ps.task);
	if (sh.reference)
		frozen += frozen_bytes(s, P_lm);
	if (d->reward_model && s->reward_model != SL_RM_ADAPTER && s->reward_model != SL_RM_API)
		frozen += frozen_bytes(s, (double)sl_arch_params_for_task(a, SL_TASK_SEQ_CLS));

	/* PPO's value model: a sequence classifier of the policy's architecture trained in full beside
	 * it (PolicyAndValueWrapper: one forward, one loss, one backward, one optimizer step), so the two
	 * models' terms add at each moment of the step, and the step's peak is the largest sum */
	struct sl_breakdown val;
	memset(&val, 0, sizeof val);
	if (d->value_model) {
		struct sl_settings vs = ps;
		vs.task = SL_TASK_SEQ_CLS;
		vs.peft_method = SL_PEFT_NONE;
		vs.lora_r = 0;
		vs.quant = SL_QUANT_NONE;
		vs.modules_to_save = 0;
		vs.logit_tokens = 0;
		vs.logit_loss = 0;
		vs.ref_logits = false;
		uint64_t best = 0;
		for (uint8_t at = SL_AT_FORWARD; at < SL_AT__COUNT; at++) {
			struct sl_breakdown pb, vb;
			ps.at_phase = vs.at_phase = at;
			sl_estimate(a, &ps, gpu, c, &pb);
			sl_estimate(a, &vs, gpu, c, &vb);
			uint64_t both = add_sat(pb.total, vb.total);
			if (both > best) {
				best = both;
				pol = pb;
				val = vb;
			}
		}
		ps.at_phase = SL_AT_PEAK;
	}

	double engine = 0;
	if (sh.engine && gpu)
		engine = (double)gpu->bytes * (double)(s->vllm_util_bp ? s->vllm_util_bp : TRL_VLLM_UTIL_BP) / 10000.0;
	uint64_t frozen_b = to_u64(frozen), engine_b = to_u64(engine);

	/* the training step */
	struct sl_breakdown st = pol;
	st.frozen_models = frozen_b;
	st.engine = s->vllm_sleep ? 0 : engine_b;
	if (d->value_model) {
		st.weights = add_sat(st.weights, val.weights);
		st.gradients = add_sat(st.gradients, val.gradients);
		st.optimizer = add_sat(st.optimizer, val.optimizer);
		st.optimizer_states = add_sat(st.optimizer_states, val.optimizer_states);
		st.activations = add_sat(st.activations, val.activations);
		st.attention = add_sat(st.attention, val.attention);
		st.logits = add_sat(st.logits, val.logits);
		st.paged = add_sat(st.paged, val.paged);
		st.params = add_sat(st.params, val.params);
		st.trainable = add_sat(st.trainable, val.trainable);
		st.zero_gather = add_sat(st.zero_gather, val.zero_gather);
		st.dynamic = add_sat(st.dynamic, val.dynamic);
		st.slack = to_u64(c->slack_frac * (double)st.dynamic + (double)c->slack_min);
		st.value_model = sum((const uint64_t[]){val.weights, val.gradients, val.optimizer, val.activations,
							val.logits}, 5);
	}
	st.total = sum((const uint64_t[]){st.cuda_context, st.workspace, st.weights, st.gradients, st.optimizer,
					  st.activations, st.logits, st.zero_gather, st.slack, st.frozen_models, st.engine},
		       11);
	st.phase_step = st.total;

	/* generation with the policy itself (model.generate over the local generation batch) */
	struct sl_breakdown gen;
	memset(&gen, 0, sizeof gen);
	if (sh.rollout_rows) {
		struct sl_settings gs = ps;
		gs.mode = SL_MODE_GENERATE;
		gs.task = encdec ? SL_TASK_SEQ2SEQ : SL_TASK_CAUSAL_LM;
		gs.batch_size = sh.rollout_rows;
		gs.seq_len = sh.prompt;
		gs.target_len = 0;
		gs.max_new_tokens = sh.completion;
		gs.num_beams = 1;
		gs.gpu_mem_util_bp = 0;
		gs.logit_tokens = 0;
		gs.logit_loss = 0;
		gs.ref_logits = false;
		sl_estimate(a, &gs, gpu, c, &gen);
		/* ZeRO-3 and FSDP gather the whole model for generation (trl unwrap_model_for_generation,
		 * ds3_gather_for_generation; summon_full_params). PPO's model is PolicyAndValueWrapper, and
		 * ZeRO-3's GatheredParameters(model.parameters()) gathers the value model with the policy
		 * (trl/models/utils.py _unwrap_model_for_generation, experimental/ppo/ppo_trainer.py train
		 * @f2cd57710ae345ea6428ae95363267fcf38a3dc8) */
		if (s->zero_stage >= 3 || (s->fsdp != SL_FSDP_NONE && s->fsdp != SL_FSDP_NO_SHARD)) {
			double gathered = (double)pol.params;
			if (d->value_model && s->zero_stage >= 3)
				gathered += (double)val.params;
			gen.zero_gather = add_sat(gen.zero_gather, to_u64(2.0 * gathered));
		}
		/* PPO: generate(output_scores=True) stacks the float32 logits of every generated token of the
		 * local batch (batch_generation) */
		if (d->rollout_logits) {
			uint64_t local = mul_sat(s->batch_size ? s->batch_size : 1, s->grad_accum ? s->grad_accum : 1);
			gen.logits = add_sat(gen.logits, mul_sat(mul_sat(local, sh.completion), mul_sat(a->vocab, 4)));
		}
		/* what stays from training: the optimizer states, gradients that persist (DeepSpeed's
		 * partitions, torch < 2.0), the value model's weights and states, the frozen models and a
		 * colocated engine (its share is generation's own when it sleeps in between: no HF cache) */
		gen.optimizer = pol.optimizer_states;
		gen.optimizer_states = pol.optimizer_states;
		gen.paged = pol.paged;
		gen.gradients = s->zero_stage > 0 || s->legacy_runtime ? pol.gradients : 0;
		if (d->value_model) {
			gen.weights = add_sat(gen.weights, val.weights);
			gen.optimizer = add_sat(gen.optimizer, val.optimizer_states);
			gen.value_model = add_sat(val.weights, val.optimizer_states);
		}
		gen.frozen_models = frozen_b;
		gen.engine = engine_b;
		gen.params = st.params;
		gen.trainable = st.trainable;
		gen.total = sum((const uint64_t[]){gen.cuda_context, gen.workspace, gen.weights, gen.gradients,
						   gen.optimizer, gen.activations, gen.kv_cache, gen.logits, gen.zero_gather,
						   gen.slack, gen.frozen_models, gen.engine},
				12);
		gen.phase = SL_PHASE_ROLLOUT;
	}
	if (gen.total > st.total) {
		*out = gen;
	} else {
		*out = st;
	}
	out->phase_step = st.total;
	out->phase_generation = gen.total;
}
