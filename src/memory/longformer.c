/*
 * memory/longformer: Longformer's sliding-window attention as transformers runs it (eager only: the
 * family has no SDPA or flash path), per sequence and layer. docs/memory-model.md "Longformer" gives
 * the terms; the source is models/longformer/modeling_longformer.py@010a915c:
 *
 *  - LongformerModel._pad_to_window_size pads the input to a multiple of the largest attention_window
 *    W before the embeddings, so every layer runs over the padded length n (the output is cut back);
 *  - LongformerSelfAttention with w = W/2: _sliding_chunks_query_key_matmul reshapes q and k to
 *    (batch·heads, n, d) copies and einsums their overlapping chunks (_chunk: n/w - 1 chunks of 2w rows
 *    as an as_strided view, which einsum copies: (2n - W)·d per head each, what its bmm keeps); the
 *    chunk scores ((n/w - 1)·2w·2w = (2n - W)·W per head) are padded by one row
 *    (_pad_and_transpose_last_two_dims) and copied into the (n, 2w + 1) diagonal scores;
 *  - global tokens (seq-cls: LongformerForSequenceClassification puts global attention on <s>) add g
 *    score columns (_concat_with_global_key_attn_probs), key_global / value_global over every token
 *    and a (g, n) softmax for the global rows (_compute_global_attn_output_from_hidden);
 *  - softmax(..., dtype=torch.float32) keeps its float32 output; masked_fill, type_as and dropout
 *    follow (dropout keeps its mask);
 *  - _sliding_chunks_matmul_attn_probs_value pads v by w on both sides into n/w chunks of 3w rows
 *    (3n·d per head, kept) and the probabilities into diagonal chunks (_pad_and_diagonalize:
 *    (n/w)·w·3w = 1.5·n·W per head), which einsum copies and its bmm keeps.
 *
 * Pure: doubles in, bytes out.
 */
#include "estimate_internal.h"

double sl_lf_tokens(const struct sl_arch *a, double n)
{
	if (a->family != SL_FAMILY_LONGFORMER || !a->window || n <= 0)
		return n;
	double W = a->window;
	double chunks = (double)(uint64_t)((n + W - 1) / W);
	return chunks * W;
}

void sl_lf_attention(const struct sl_lf_shape *z, struct sl_lf_attn *out)
{
	double n = z->n, H = z->heads, hq = z->hq, W = z->window, g = z->global, ab = z->ab;
	double m = W + 1 + g;        /* score columns per query: the window, itself, the global keys */
	double chunk_rows = 2 * n - W; /* rows of the overlapping chunks: (n/w - 1) x 2w */
	/* q and k chunk copies (the Q·K einsum's bmm keeps both), v's 3w-row chunks (the P·V bmm keeps it) */
	out->qkv = ab * (2 * chunk_rows * hq + 3 * n * hq);
	/* float32 softmax output, dropout's mask, the diagonalised probabilities P·V keeps */
	out->scores = H * n * (m * (4 + (z->dropout ? 1 : 0)) + 1.5 * W * ab);
	if (g > 0) /* key_global / value_global outputs kept by their bmm; the (g, n) float32 softmax, mask,
		    * probabilities; the global columns' probabilities cloned for their matmul */
		out->scores += ab * 2 * n * hq + H * g * n * (4 + (z->dropout ? 1 : 0) + ab) + H * n * g * ab;
	/* backward of one layer: the softmax's float32 gradients (copies of the scores), or the Q·K chunk
	 * scores' gradient before and after the pad, whichever is larger */
	double sm = z->copies * 4 * H * n * m, qk = 2 * H * chunk_rows * W * ab;
	out->transient = (sm > qk ? sm : qk) + 4 * ab * n * hq;
	/* a no-grad forward: the chunk scores and their padded copy (Q·K), or the scores with two float32
	 * copies (softmax, masked_fill), or the probabilities with their padded and einsum copies (P·V);
	 * the reshaped q and k and the (n, W + 1) mask added to the scores */
	double qk_fwd = 2 * H * chunk_rows * W * ab, sm_fwd = H * n * m * (ab + 8), pv_fwd = H * n * (m + 3 * W) * ab;
	double peak = qk_fwd > sm_fwd ? qk_fwd : sm_fwd;
	peak = pv_fwd > peak ? pv_fwd : peak;
	out->nograd = peak + ab * (2 * n * hq + n * (W + 1));
}
