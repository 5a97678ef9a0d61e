/*
 * state: what a sequence keeps between decoding steps (docs/memory-model.md
 * "Generation"): the KV cache of the attention layers and the recurrent state
 * of the state-space and RWKV layers, by layer, from the architecture alone.
 *
 * - Attention: k and v of kv_heads x head_dim per token (DynamicCache); a
 *   sliding-window layer (gemma3's local layers, gpt-oss's sliding_attention)
 *   keeps its last `window` tokens (DynamicSlidingWindowLayer, transformers
 *   cache_utils.py).
 * - Multi-head latent attention: transformers' DeepseekV2/V3Attention update
 *   the cache with the decompressed per-head key (qk_nope + qk_rope) and value
 *   (v_head_dim) states (modular_deepseek_v3.py@000c33fd); vLLM's MLA backends
 *   cache the normalised latent and the rope key, kv_lora + qk_rope per token.
 * - Mamba (MambaCache): conv_states I x d_conv and ssm_states I x d_state per
 *   layer; Mamba2: conv over I + 2·n_groups·d_state channels and heads x
 *   head_dim x d_state; in the model's dtype, whatever the length.
 * - The Mamba2 hybrids (issue #30, fifth part): Granite-4.0-H (Bamba's
 *   HybridMambaAttentionDynamicCache: conv and SSM states for the "mamba" layers, empty tensors for the
 *   others), Falcon-H1 (FalconHybridMambaAttentionDynamicCache, modular_falcon_h1.py@00511f5d: conv and SSM
 *   states for every layer and a KV cache for every layer), Nemotron-H (the "M" layers; its MLP blocks
 *   keep nothing; mamba_ssm_cache_dtype float32, NemotronHConfig's default, keeps the SSM state in float32).
 * - LFM2 (Lfm2Cache, modular_lfm2.py@02f41779): a conv_state of hidden x conv_L_cache per layer, in
 *   the model's dtype, allocated for every layer, attention layers included.
 * - RWKV-4 (RwkvModel state): five h-wide vectors per layer, float32.
 */
#include "sweeplint/memory.h"

static double min_d(double x, double y)
{
	return x < y ? x : y;
}

double sl_arch_cache_bytes(const struct sl_arch *a, double tokens, double elem, bool latent)
{
	double hd = a->head_dim ? a->head_dim : (a->heads ? (double)a->hidden / a->heads : 0);
	double kvh = a->kv_heads ? a->kv_heads : a->heads;
	double per_token = 2 * kvh * hd; /* k and v */
	if (a->kv_lora)
		per_token = latent ? (double)a->kv_lora + a->rope_dim : (double)a->heads * (hd + a->v_head_dim);
	double I = a->ssm_inner, N = a->ssm_state, K = a->ssm_conv;
	double conv = a->ssm_heads ? (I + 2.0 * (a->ssm_groups ? a->ssm_groups : 1) * N) * K : I * K;
	double ssm = conv * elem + I * N * (a->ssm_state_fp32 ? 4 : elem);
	double sum = 0;
	uint32_t windowed = 0, attn = 0;
	uint64_t n_attn, n_moe;
	sl_arch_layer_counts(a, &n_attn, &n_moe);
	attn = (uint32_t)n_attn; /* at most a->layers */
	windowed = a->window && a->window_layers < attn ? a->window_layers : a->window ? attn : 0;
	sum += (double)(attn - windowed) * tokens * per_token * elem;
	sum += (double)windowed * min_d(tokens, a->window) * per_token * elem;
	if (a->family == SL_FAMILY_RWKV)
		sum += (double)a->layers * 5 * a->hidden * 4;
	else if (a->sconv_kernel)
		sum += (double)a->layers * a->hidden * a->sconv_kernel * elem;
	else
		sum += (double)sl_arch_ssm_layers(a) * ssm;
	if (a->kind == SL_ARCH_ENCDEC) /* the decoder's self-attention, and its cross-attention over the encoder */
		sum = (double)(a->dec_layers ? a->dec_layers : a->layers) * tokens * per_token * elem;
	return sum;
}
