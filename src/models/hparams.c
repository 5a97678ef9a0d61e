/*
 * hparams: the model of a from-scratch sweep (issue #11): when no key sets
 * a model but the sweep or its configs give the shape — layers, hidden size,
 * heads (and maybe FFN width, vocabulary, head size, context) — that shape
 * is the architecture, a GPT-2-style decoder (learned positions, LayerNorm,
 * biases, a 4h GELU FFN, a tied LM head: what nanoGPT and minGPT build).
 * What was assumed is said in resolved_note (shown by -v and in JSON).
 */
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/models.h"

#define GPT2_VOCAB 50257u   /* GPT-2's BPE vocabulary (nanoGPT rounds it to 50304) */
#define GPT2_CONTEXT 1024u  /* GPT-2's n_positions */

const struct sl_model *sl_model_from_hparams(struct sl_arena *a, const struct sl_hparams *h)
{
	if (!h || !h->layers || !h->hidden || !h->heads)
		return NULL;
	if (!h->head_dim && h->hidden % h->heads != 0)
		return NULL; /* hidden must split into heads when no head size is given */
	struct sl_model *m = sl_arena_alloc(a, sizeof *m);
	struct sl_arch *r = &m->arch;
	sl_arch_init(r, SL_FAMILY_GPT2);
	r->layers = h->layers;
	r->hidden = h->hidden;
	r->heads = h->heads;
	r->kv_heads = h->heads;
	r->head_dim = h->head_dim ? h->head_dim : h->hidden / h->heads;
	r->intermediate = h->ffn ? h->ffn : 4 * h->hidden;
	r->vocab = h->vocab ? h->vocab : GPT2_VOCAB;
	r->max_pos = h->context ? h->context : GPT2_CONTEXT;
	m->task = SL_TASK_CAUSAL_LM;
	m->name = sl_arena_printf(a, "gpt2-style-L%u-h%u", h->layers, h->hidden);
	m->source = h->keys;
	m->resolved_by = "hyperparameters";
	m->resolved_from = h->keys;
	const char *assumed[3]; /* bound: three defaults below, at most one entry each */
	size_t n = 0;
	if (!h->vocab)
		assumed[n++] = "vocabulary 50257 (GPT-2's)";
	if (!h->ffn)
		assumed[n++] = "FFN 4 × hidden";
	if (!h->context)
		assumed[n++] = "1024 positions";
	m->resolved_note = sl_arena_printf(
		a, "a GPT-2-style decoder of the sweep's shape (%u layers, hidden %u, %u heads)%s%s%s%s%s%s; give its "
		   "config.json to be exact",
		h->layers, h->hidden, h->heads, n ? ", assumed: " : "", n > 0 ? assumed[0] : "", n > 1 ? ", " : "",
		n > 1 ? assumed[1] : "", n > 2 ? ", " : "", n > 2 ? assumed[2] : "");
	return m;
}
