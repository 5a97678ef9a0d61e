/*
 * vllm: whether a vLLM engine starts on a GPU (docs/memory-model.md "vLLM"). vLLM plans inside a
 * share of the device, gpu_memory_utilization × capacity (vllm/v1/worker/gpu_worker.py
 * determine_available_memory @ 0012cf691b7e69423244d2b1405f4b6832156e19): it loads the weights,
 * runs a profile forward of max_num_batched_tokens tokens and a sampler over max_num_seqs rows,
 * takes the peak of torch's allocations plus what lives outside torch (the CUDA context, NCCL), and
 * gives the rest of the share to the paged KV cache pool (the CUDA context, in use before it
 * measures, stays outside the share). It refuses to start when nothing is left
 * ("No available memory for the cache blocks") or when the pool cannot hold one sequence of
 * max_model_len tokens ("To serve at least one request with the models's max seq len ...",
 * vllm/v1/core/kv_cache_utils.py _check_enough_kv_cache_memory @
 * 001cabc1be16a59a70d720ed61a13b678c060a18). Then the engine holds the whole share.
 *
 * So the run fits when weights + the profile's peak + one max_model_len
 * sequence's KV fit in the share; the total is then what the start-up needs (the context with it),
 * and the rest of the share, which vLLM pre-allocates as more KV cache blocks whatever the run needs,
 * is reported apart (`preallocated`, not in the total: it holds no tensor the run could run out on).
 * When they do not fit, the total is what they need plus the (1 - utilization) × capacity vLLM leaves
 * to others (less the context): past the capacity exactly when vLLM refuses, so the verdict reads
 * against the card as every other one does.
 * Tensor parallelism divides the weights, the sharded activations and the KV heads (down to one).
 */
#include <string.h>
#include <strings.h>

#include "estimate_internal.h"
#include "sweeplint/memory.h"

void sl_estimate_vllm(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
		      const struct sl_calib *c, double weights, struct sl_breakdown *out)
{
	memset(out, 0, sizeof *out);
	double cap = gpu ? (double)gpu->bytes : 0;
	double util = s->gpu_mem_util_bp ? s->gpu_mem_util_bp / 10000.0 : c->vllm_utilization;
	double tp = s->tensor_parallel > 1 ? s->tensor_parallel : 1;
	/* vLLM's dtype "auto" runs a float32 checkpoint in fp16 and keeps a 16-bit one: 2 bytes unless
	 * a float32 dtype is stated (weights come in already as the settings load them) */
	double ab = s->dtype == SL_DTYPE_FP32 ? 4 : 2;
	bool large = gpu && gpu->bytes >= c->vllm_large_gpu && !(gpu->name && strncasecmp(gpu->name, "a100", 4) == 0);
	double tokens = s->max_num_batched_tokens ? (double)s->max_num_batched_tokens
						  : (double)(large ? c->vllm_batched_tokens_large : c->vllm_batched_tokens);
	double rows = s->max_num_seqs ? (double)s->max_num_seqs : (double)(large ? c->vllm_max_seqs_large : c->vllm_max_seqs);
	if (rows > tokens)
		rows = tokens; /* max_num_reqs = min(max_num_seqs, max_num_batched_tokens) */

	double h = a->hidden, heads = a->heads ? a->heads : 1;
	double hd = a->head_dim ? a->head_dim : h / heads;
	double q = heads * hd, kvh = a->kv_heads ? a->kv_heads : heads;
	double I = a->intermediate;
	if (a->experts) /* the routed tokens' experts and a shared expert run as one fused MoE */
		I = (a->top_k ? a->top_k : 1) * I + a->shared_ffn;
	/* the profile forward over `tokens` tokens as one flat batch (no padding, no s x s scores): the
	 * residual stream, its norm and a layer's output, then the larger of attention (q, k, v and the
	 * output, sharded over tensor parallelism) and the FFN (gate and up merged, the activation) */
	double kv_local = kvh / tp < 1 ? 1 : kvh / tp;
	double attn = (2 * q / tp + 2 * kv_local * hd) * ab;
	double ffn = (a->gated_ffn ? 3 : 2) * I / tp * ab;
	double work = tokens * (3 * h * ab + (attn > ffn ? attn : ffn));
	/* the sampler over `rows` rows of the whole vocabulary (gathered on every rank), while the
	 * forward's hidden states are alive: vllm_sampler_bytes per logit (rules/calibration.yaml) */
	double sampler = rows * (double)a->vocab * c->vllm_sampler_bytes + tokens * h * ab;
	double peak = work > sampler ? work : sampler;

	/* one max_model_len sequence in blocks of vllm_block_size tokens: k and v of every layer */
	double len = s->max_model_len ? (double)s->max_model_len : (double)a->max_pos;
	if (!(len > 0))
		len = (double)(s->seq_len ? s->seq_len : 1) + (double)(s->max_new_tokens ? s->max_new_tokens : c->gen_max_length);
	double block = c->vllm_block_size ? (double)c->vllm_block_size : 16;
	double blocks = (double)(uint64_t)((len + block - 1) / block);
	/* k and v of every attention layer (a sliding-window layer's window, MLA's latent as vLLM's MLA
	 * backends keep it, a state-space layer's fixed state: sl_arch_cache_bytes), the KV heads split
	 * over tensor parallelism down to one each (MLA's latent is replicated on every rank) */
	double kv = sl_arch_cache_bytes(a, blocks * block, ab, true);
	double kvh_split = a->kv_lora ? 1 : kvh / kv_local;
	kv /= kvh_split;

	/* inside the share: what torch allocates (weights, the profile's peak) and what lives outside
	 * torch once the engine runs (cuBLAS, NCCL); the CUDA context was in use before vLLM measured and
	 * sits outside the share */
	double ctx = (double)c->cuda_context;
	double other = (double)c->vllm_non_torch + (tp > 1 ? (double)c->nccl_buffer : 0);
	double inside = other + weights / tp + peak + kv;
	double share = util * cap;
	out->cuda_context = sl_est_u64(ctx);
	out->workspace = sl_est_u64(other);
	out->weights = sl_est_u64(weights / tp);
	out->activations = sl_est_u64(peak);
	out->kv_cache = sl_est_u64(kv);
	out->dynamic = sl_est_u64(peak + kv);
	uint64_t v[] = {out->cuda_context, out->workspace, out->weights, out->activations, out->kv_cache};
	uint64_t t = 0;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		t = v[i] > UINT64_MAX - t ? UINT64_MAX : t + v[i];
	uint64_t used = t - out->cuda_context; /* inside the share */
	uint64_t held = sl_est_u64(share);
	if (inside <= share) {
		out->preallocated = held > used ? held - used : 0; /* the rest of the share: the KV cache pool */
		out->total = t;
	} else {
		/* the rest of the card that vLLM leaves to others: the total passes the capacity exactly when
		 * what it needs passes its share */
		out->outside_share = sl_est_u64(cap - share - ctx);
		out->total = t > UINT64_MAX - out->outside_share ? UINT64_MAX : t + out->outside_share;
	}
	out->params = sl_est_u64((double)sl_arch_params_for_task(a, SL_TASK_CAUSAL_LM));
	out->trainable = 0;
	out->phase = SL_PHASE_VLLM;
}
