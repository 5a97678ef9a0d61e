/*
 * arch: parameter counts and layer shapes per family, computed from the
 * shape in struct sl_arch, module by module as the Hugging Face classes
 * build them (docs/models.md has the formulas). Nothing here allocates.
 *
 * What the counts mean:
 *  - sl_arch_params: model.num_parameters() of the class the checkpoint is
 *    published as — the base model for encoders (BertModel, XLMRobertaModel:
 *    embeddings + layers + pooler), the generative class for decoders and
 *    encoder-decoders (LlamaForCausalLM, T5ForConditionalGeneration: the LM
 *    head is counted when untied, a tied head counts once).
 *  - sl_arch_params_for_task: the class the task trains (…ForSequence-
 *    Classification with 2 labels, …ForMaskedLM, the bare AutoModel for a
 *    bi-encoder encoder, …).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "peft_table.h"
#include "sweeplint/memory.h"

/* HF num_labels default: the classifier heads have two outputs. */
#define NUM_LABELS 2u

static const char *const family_names[SL_FAMILY__COUNT] = {
	[SL_FAMILY_BERT] = "bert",
	[SL_FAMILY_ROBERTA] = "roberta",
	[SL_FAMILY_XLM_ROBERTA] = "xlm-roberta",
	[SL_FAMILY_ELECTRA] = "electra",
	[SL_FAMILY_T5] = "t5",
	[SL_FAMILY_MT5] = "mt5",
	[SL_FAMILY_BART] = "bart",
	[SL_FAMILY_MBART] = "mbart",
	[SL_FAMILY_LLAMA] = "llama",
	[SL_FAMILY_MISTRAL] = "mistral",
	[SL_FAMILY_QWEN2] = "qwen2",
	[SL_FAMILY_GEMMA] = "gemma",
	[SL_FAMILY_GPT2] = "gpt2",
	[SL_FAMILY_GPT_NEOX] = "gpt_neox",
	[SL_FAMILY_PHI] = "phi",
	[SL_FAMILY_PHI3] = "phi3",
	[SL_FAMILY_FALCON] = "falcon",
	[SL_FAMILY_BLOOM] = "bloom",
	[SL_FAMILY_GPT_BIGCODE] = "gpt_bigcode",
	[SL_FAMILY_OPT] = "opt",
	[SL_FAMILY_GPTJ] = "gptj",
	[SL_FAMILY_GPT_NEO] = "gpt_neo",
	[SL_FAMILY_GEMMA2] = "gemma2",
	[SL_FAMILY_GEMMA3] = "gemma3_text",
	[SL_FAMILY_QWEN3] = "qwen3",
	[SL_FAMILY_GRANITE] = "granite",
	[SL_FAMILY_DEBERTA_V2] = "deberta-v2",
	[SL_FAMILY_DISTILBERT] = "distilbert",
	[SL_FAMILY_ALBERT] = "albert",
	[SL_FAMILY_MPNET] = "mpnet",
	[SL_FAMILY_MIXTRAL] = "mixtral",
	[SL_FAMILY_QWEN2_MOE] = "qwen2_moe",
	[SL_FAMILY_QWEN3_MOE] = "qwen3_moe",
	[SL_FAMILY_WHISPER] = "whisper",
	[SL_FAMILY_QWEN] = "qwen",
	[SL_FAMILY_UMT5] = "umt5",
	[SL_FAMILY_PEGASUS] = "pegasus",
};

const char *sl_family_name(enum sl_family f)
{
	return (unsigned)f < SL_FAMILY__COUNT ? family_names[f] : "?";
}

int sl_family_parse(const char *s)
{
	for (int i = 0; i < SL_FAMILY__COUNT; i++)
		if (strcmp(s, family_names[i]) == 0)
			return i;
	/* spellings HF uses elsewhere (architectures, older configs) */
	if (strcmp(s, "xlm_roberta") == 0)
		return SL_FAMILY_XLM_ROBERTA;
	if (strcmp(s, "gpt-neox") == 0)
		return SL_FAMILY_GPT_NEOX;
	/* the multimodal gemma3 config: its text_config is the language model */
	if (strcmp(s, "gemma3") == 0)
		return SL_FAMILY_GEMMA3;
	if (strcmp(s, "deberta_v2") == 0)
		return SL_FAMILY_DEBERTA_V2;
	return -1;
}

static const char *const task_names[SL_TASK__COUNT] = {
	[SL_TASK_SEQ_CLS] = "seq-cls",
	[SL_TASK_TOKEN_CLS] = "token-cls",
	[SL_TASK_QA] = "qa",
	[SL_TASK_MLM] = "mlm",
	[SL_TASK_CAUSAL_LM] = "causal-lm",
	[SL_TASK_SEQ2SEQ] = "seq2seq",
	[SL_TASK_BI_ENCODER] = "bi-encoder",
};

const char *sl_task_name(enum sl_task t)
{
	return (unsigned)t < SL_TASK__COUNT ? task_names[t] : "?";
}

int sl_task_parse(const char *s)
{
	for (int i = 0; i < SL_TASK__COUNT; i++)
		if (strcasecmp(s, task_names[i]) == 0)
			return i;
	return -1;
}

void sl_arch_init(struct sl_arch *a, enum sl_family f)
{
	memset(a, 0, sizeof *a);
	a->family = f;
	switch (f) {
	case SL_FAMILY_BERT:
	case SL_FAMILY_ROBERTA:
	case SL_FAMILY_XLM_ROBERTA:
	case SL_FAMILY_ELECTRA:
	case SL_FAMILY_DEBERTA_V2:
	case SL_FAMILY_DISTILBERT:
	case SL_FAMILY_ALBERT:
	case SL_FAMILY_MPNET:
		a->kind = SL_ARCH_ENCODER;
		a->bias = true;
		a->emb_norm = true;
		a->tied = true;                    /* the MLM decoder shares the word embeddings */
		/* ElectraModel, DebertaV2Model, DistilBertModel have none */
		a->pooler = f == SL_FAMILY_BERT || f == SL_FAMILY_ROBERTA || f == SL_FAMILY_XLM_ROBERTA ||
			    f == SL_FAMILY_ALBERT || f == SL_FAMILY_MPNET;
		a->type_vocab = f == SL_FAMILY_BERT || f == SL_FAMILY_ELECTRA || f == SL_FAMILY_ALBERT ? 2
				: f == SL_FAMILY_ROBERTA || f == SL_FAMILY_XLM_ROBERTA          ? 1
												: 0;
		if (f == SL_FAMILY_MPNET)
			a->rel_buckets = 32;       /* MPNetEncoder.relative_attention_bias */
		break;
	case SL_FAMILY_T5:
	case SL_FAMILY_MT5:
	case SL_FAMILY_UMT5:
		a->kind = SL_ARCH_ENCDEC;
		a->rmsnorm = true;                 /* T5LayerNorm: weight only */
		a->final_norm = true;
		a->rel_buckets = 32;
		/* MT5Config: tie_word_embeddings=False; UMT5Config keeps the PretrainedConfig default (True),
		 * its published checkpoints state false */
		a->tied = f != SL_FAMILY_MT5;
		a->gated_ffn = f != SL_FAMILY_T5;  /* MT5Config / UMT5Config: feed_forward_proj="gated-gelu" */
		break;
	case SL_FAMILY_BART:
	case SL_FAMILY_MBART:
	case SL_FAMILY_PEGASUS:
		a->kind = SL_ARCH_ENCDEC;
		a->bias = true;
		a->emb_norm = f != SL_FAMILY_PEGASUS; /* layernorm_embedding; Pegasus has none */
		/* encoder/decoder layer_norm after the pre-norm stacks (mBART, Pegasus) */
		a->final_norm = f != SL_FAMILY_BART;
		a->tied = true;
		break;
	case SL_FAMILY_LLAMA:
	case SL_FAMILY_MISTRAL:
	case SL_FAMILY_QWEN2:
	case SL_FAMILY_QWEN:
	case SL_FAMILY_GEMMA:
	case SL_FAMILY_PHI3:
	case SL_FAMILY_GEMMA2:
	case SL_FAMILY_GEMMA3:
	case SL_FAMILY_QWEN3:
	case SL_FAMILY_GRANITE:
	case SL_FAMILY_MIXTRAL:
	case SL_FAMILY_QWEN2_MOE:
	case SL_FAMILY_QWEN3_MOE:
		a->kind = SL_ARCH_DECODER;
		a->rmsnorm = true;
		a->final_norm = true;
		a->gated_ffn = true;
		a->qkv_bias_only = f == SL_FAMILY_QWEN2 || f == SL_FAMILY_QWEN2_MOE ||
				 f == SL_FAMILY_QWEN; /* Qwen (v1): c_attn has a bias, c_proj/w1/w2 none */
		/* the config classes' tie_word_embeddings defaults */
		a->tied = f == SL_FAMILY_GEMMA || f == SL_FAMILY_GEMMA2 || f == SL_FAMILY_GEMMA3;
		a->fused_qkv = f == SL_FAMILY_PHI3 || f == SL_FAMILY_QWEN; /* qkv_proj (and gate_up_proj); Qwen c_attn */
		a->norms = f == SL_FAMILY_GEMMA2 || f == SL_FAMILY_GEMMA3 ? 4 : 0; /* pre/post-attention and -FFN */
		a->qk_norm = f == SL_FAMILY_GEMMA3 || f == SL_FAMILY_QWEN3 || f == SL_FAMILY_QWEN3_MOE;
		break;
	case SL_FAMILY_GPT2:
	case SL_FAMILY_GPT_NEOX:
	case SL_FAMILY_BLOOM:
	case SL_FAMILY_GPT_BIGCODE:
	case SL_FAMILY_OPT:
	case SL_FAMILY_GPT_NEO:
		a->kind = SL_ARCH_DECODER;
		a->bias = true;
		a->final_norm = true;
		a->tied = f != SL_FAMILY_GPT_NEOX;
		a->fused_qkv = f == SL_FAMILY_GPT2 || f == SL_FAMILY_GPT_NEOX || f == SL_FAMILY_BLOOM ||
			       f == SL_FAMILY_GPT_BIGCODE;
		a->emb_norm = f == SL_FAMILY_BLOOM;         /* word_embeddings_layernorm */
		a->no_bias = f == SL_FAMILY_GPT_NEO ? SL_NOBIAS_Q | SL_NOBIAS_K | SL_NOBIAS_V : 0;
		break;
	case SL_FAMILY_PHI:
	case SL_FAMILY_GPTJ:
	case SL_FAMILY_FALCON:
		/* parallel attention and FFN after one LayerNorm */
		a->kind = SL_ARCH_DECODER;
		a->bias = f != SL_FAMILY_FALCON;            /* FalconConfig bias=False */
		a->final_norm = true;
		a->norms = 1;
		a->tied = f == SL_FAMILY_FALCON;
		a->lm_head_bias = f != SL_FAMILY_FALCON;
		a->fused_qkv = f == SL_FAMILY_FALCON;
		a->no_bias = f == SL_FAMILY_GPTJ ? SL_NOBIAS_Q | SL_NOBIAS_K | SL_NOBIAS_V | SL_NOBIAS_O : 0;
		break;
	case SL_FAMILY_WHISPER:
		a->kind = SL_ARCH_ENCDEC;
		a->bias = true;
		a->no_bias = SL_NOBIAS_K;                   /* k_proj bias=False */
		a->final_norm = true;                       /* encoder and decoder layer_norm */
		a->tied = true;                             /* proj_out shares embed_tokens */
		a->mel_bins = 80;
		a->src_pos = 1500;
		break;
	default:
		break;
	}
}

/* --- shapes ------------------------------------------------------------- */

static uint64_t emb_dim(const struct sl_arch *a)
{
	return a->emb_dim ? a->emb_dim : a->hidden;
}

static uint64_t head_dim(const struct sl_arch *a)
{
	if (a->head_dim)
		return a->head_dim;
	return a->heads ? a->hidden / a->heads : 0;
}

/* Width of q (and of o's input): heads × head_dim. */
static uint64_t q_width(const struct sl_arch *a)
{
	return a->heads * head_dim(a);
}

/* Width of k and v: key/value heads × head_dim. */
static uint64_t kv_width(const struct sl_arch *a)
{
	return (a->kv_heads ? a->kv_heads : a->heads) * head_dim(a);
}

static uint64_t dec_layers(const struct sl_arch *a)
{
	return a->dec_layers ? a->dec_layers : a->layers;
}

static bool t5_like(const struct sl_arch *a)
{
	return a->family == SL_FAMILY_T5 || a->family == SL_FAMILY_MT5 || a->family == SL_FAMILY_UMT5;
}

static bool bart_like(const struct sl_arch *a)
{
	return a->family == SL_FAMILY_BART || a->family == SL_FAMILY_MBART || a->family == SL_FAMILY_PEGASUS;
}

/* Whether a linear of the SL_NOBIAS_* kind `which` carries a bias. */
static bool has_bias(const struct sl_arch *a, unsigned which)
{
	return a->bias && !(a->no_bias & which);
}

static uint64_t linear(const struct sl_arch *a, uint64_t in, uint64_t out)
{
	return in * out + (a->bias ? out : 0);
}

static uint64_t norm(const struct sl_arch *a, uint64_t h)
{
	return a->rmsnorm ? h : 2 * h;
}

/* Norms per layer of a decoder-only or encoder-only stack. */
static uint64_t layer_norms(const struct sl_arch *a)
{
	return a->norms ? a->norms : 2;
}

/* Rows of the learned absolute position table, 0 when positions are relative, rotary or ALiBi. */
static uint64_t pos_rows(const struct sl_arch *a)
{
	switch (a->family) {
	case SL_FAMILY_BERT:
	case SL_FAMILY_ROBERTA:
	case SL_FAMILY_XLM_ROBERTA:
	case SL_FAMILY_ELECTRA:
	case SL_FAMILY_GPT2:
	case SL_FAMILY_GPT_BIGCODE:
	case SL_FAMILY_GPT_NEO:
	case SL_FAMILY_DISTILBERT:
	case SL_FAMILY_ALBERT:
	case SL_FAMILY_MPNET:
	case SL_FAMILY_WHISPER:            /* the decoder's max_target_positions */
		return a->max_pos;
	case SL_FAMILY_DEBERTA_V2:         /* position_biased_input: the config reader zeroes max_pos when false */
		return a->max_pos;
	case SL_FAMILY_BART:
	case SL_FAMILY_MBART:
	case SL_FAMILY_OPT:
		/* BartLearnedPositionalEmbedding / OPTLearnedPositionalEmbedding offset */
		return a->max_pos ? a->max_pos + 2u : 0;
	default:
		return 0;
	}
}

/* Self-attention of one layer: q, k, v, o (with their biases), q/k norms. */
static uint64_t attention(const struct sl_arch *a)
{
	uint64_t h = a->hidden, q = q_width(a), kv = kv_width(a);
	uint64_t n = h * q + 2 * h * kv + q * h;
	if (a->bias)
		n += (has_bias(a, SL_NOBIAS_Q) ? q : 0) + (has_bias(a, SL_NOBIAS_K) ? kv : 0) +
		     (has_bias(a, SL_NOBIAS_V) ? kv : 0) + (has_bias(a, SL_NOBIAS_O) ? h : 0);
	else if (a->qkv_bias_only)
		n += q + 2 * kv;
	if (a->qk_norm)
		n += 2 * head_dim(a);
	return n;
}

/* One dense feed-forward of width i: two matrices, three when gated. */
static uint64_t dense_ffn(const struct sl_arch *a, uint64_t i)
{
	uint64_t h = a->hidden;
	uint64_t n = (a->gated_ffn ? 3 : 2) * h * i;
	if (has_bias(a, SL_NOBIAS_MLP))
		n += (a->gated_ffn ? 2 * i : i) + h;
	return n;
}

/* Feed-forward of one layer; an MoE layer: the router, every expert, the shared expert and its gate. */
static uint64_t ffn(const struct sl_arch *a)
{
	if (!a->experts)
		return dense_ffn(a, a->intermediate);
	uint64_t h = a->hidden;
	uint64_t n = h * a->experts + a->experts * dense_ffn(a, a->intermediate);
	if (a->shared_ffn)
		n += dense_ffn(a, a->shared_ffn) + h; /* shared_expert + shared_expert_gate (h → 1) */
	return n;
}

/* The parts of sl_arch_params, so that task heads can swap them. */
struct parts {
	uint64_t embeddings; /* word (+ position, type, norm, projection) embeddings, counted once */
	uint64_t body;       /* the layers and final norms */
	uint64_t pooler;     /* bert-style pooler */
	uint64_t lm_head;    /* an untied LM head */
	uint64_t decoder;    /* the decoder stack of an encoder-decoder (part of body) */
};

static void count(const struct sl_arch *a, struct parts *p)
{
	uint64_t V = a->vocab, h = a->hidden, L = a->layers;
	uint64_t PL = a->param_layers ? a->param_layers : L;
	memset(p, 0, sizeof *p);

	switch (a->kind) {
	case SL_ARCH_ENCODER: {
		uint64_t E = emb_dim(a);
		p->embeddings = (V + pos_rows(a) + a->type_vocab) * E + (a->emb_norm ? norm(a, E) : 0);
		if (E != h) /* electra embeddings_project, albert embedding_hidden_mapping_in; deberta embed_proj: no bias */
			p->embeddings += a->family == SL_FAMILY_DEBERTA_V2 ? E * h : linear(a, E, h);
		p->body = PL * (attention(a) + ffn(a) + layer_norms(a) * norm(a, h));
		if (a->rel_buckets)   /* mpnet relative_attention_bias, once per encoder */
			p->body += (uint64_t)a->rel_buckets * a->heads;
		if (a->rel_emb)       /* deberta-v2 rel_embeddings (+ LayerNorm) */
			p->body += (uint64_t)a->rel_emb * h + (a->rel_norm ? norm(a, h) : 0);
		if (a->conv_kernel)   /* deberta-v2 ConvLayer: Conv1d + LayerNorm */
			p->body += (uint64_t)a->conv_kernel * h * h + h + norm(a, h);
		p->pooler = a->pooler ? linear(a, h, h) : 0;
		break;
	}
	case SL_ARCH_DECODER: {
		uint64_t E = emb_dim(a);
		p->embeddings = V * E + pos_rows(a) * h + (a->emb_norm ? norm(a, h) : 0);
		if (E != h)
			p->embeddings += 2 * E * h; /* opt project_in / project_out, no bias */
		p->body = L * (attention(a) + ffn(a) + layer_norms(a) * norm(a, h));
		p->body += a->final_norm ? norm(a, h) : 0;
		p->lm_head = a->tied ? 0 : V * E + (a->lm_head_bias ? V : 0);
		break;
	}
	case SL_ARCH_ENCDEC:
		p->embeddings = V * h;
		if (t5_like(a)) {
			/* relative_attention_bias: layer 0 of each stack (T5, mT5); every self-attention (UMT5) */
			uint64_t rel = (uint64_t)a->rel_buckets * a->heads;
			bool every = a->family == SL_FAMILY_UMT5;
			uint64_t enc = L * (attention(a) + ffn(a) + 2 * norm(a, h)) + (every ? L : 1) * rel + norm(a, h);
			if (!a->enc_only)
				p->decoder = dec_layers(a) * (2 * attention(a) + ffn(a) + 3 * norm(a, h)) +
					     (every ? dec_layers(a) : 1) * rel + norm(a, h);
			p->body = enc + p->decoder;
		} else if (bart_like(a)) {
			uint64_t stack = pos_rows(a) * h + (a->emb_norm ? norm(a, h) : 0) +
					 (a->final_norm ? norm(a, h) : 0);
			uint64_t enc = stack + L * (attention(a) + ffn(a) + 2 * norm(a, h));
			p->decoder = stack + dec_layers(a) * (2 * attention(a) + ffn(a) + 3 * norm(a, h));
			p->body = enc + p->decoder;
		} else if (a->family == SL_FAMILY_WHISPER) {
			/* encoder: conv1 (mel → d, k 3), conv2 (d → d, k 3), positions over
			 * the 1500 frames, layers, layer_norm; decoder: positions, layers, layer_norm */
			uint64_t enc = (uint64_t)a->mel_bins * h * 3 + h + h * h * 3 + h + (uint64_t)a->src_pos * h +
				       L * (attention(a) + ffn(a) + 2 * norm(a, h)) + norm(a, h);
			p->decoder = pos_rows(a) * h + dec_layers(a) * (2 * attention(a) + ffn(a) + 3 * norm(a, h)) +
				     norm(a, h);
			p->body = enc + p->decoder;
		}
		p->lm_head = a->tied || a->enc_only ? 0 : V * h;
		break;
	default:
		break;
	}
}

uint64_t sl_arch_params(const struct sl_arch *a)
{
	struct parts p;
	count(a, &p);
	return p.embeddings + p.body + p.pooler + p.lm_head;
}

uint64_t sl_arch_params_for_task(const struct sl_arch *a, enum sl_task t)
{
	struct parts p;
	count(a, &p);
	uint64_t h = a->hidden, V = a->vocab;
	uint64_t base = p.embeddings + p.body;
	uint64_t labels = (uint64_t)NUM_LABELS * h + NUM_LABELS; /* nn.Linear(h, num_labels) */

	switch (a->kind) {
	case SL_ARCH_ENCODER:
		switch (t) {
		case SL_TASK_SEQ_CLS:
			if (a->family == SL_FAMILY_BERT || a->family == SL_FAMILY_ALBERT) /* pooler + classifier */
				return base + p.pooler + labels;
			/* roberta/electra: no pooler; ClassificationHead dense + out_proj */
			return base + linear(a, h, h) + labels;
		case SL_TASK_TOKEN_CLS:
		case SL_TASK_QA:
			return base + labels;                /* add_pooling_layer=False */
		case SL_TASK_MLM:
		case SL_TASK_CAUSAL_LM: {
			/* transform (dense + LayerNorm) and a decoder tied to the word embeddings + bias */
			uint64_t E = emb_dim(a);
			uint64_t head = linear(a, h, E) + norm(a, E) + V;
			return base + head + (a->tied ? 0 : V * E);
		}
		case SL_TASK_SEQ2SEQ:
		case SL_TASK_BI_ENCODER:
		default:
			return base + p.pooler;              /* AutoModel, as sentence-transformers loads it */
		}
	case SL_ARCH_DECODER:
		switch (t) {
		case SL_TASK_SEQ_CLS:
			return base + (uint64_t)NUM_LABELS * h; /* score: no bias */
		case SL_TASK_TOKEN_CLS:
		case SL_TASK_QA:
			return base + labels;
		case SL_TASK_BI_ENCODER:
			return base;                         /* AutoModel: no LM head */
		default:
			return base + p.lm_head;
		}
	case SL_ARCH_ENCDEC:
		switch (t) {
		case SL_TASK_SEQ_CLS:
		case SL_TASK_TOKEN_CLS:
		case SL_TASK_QA:
			/* …ForSequenceClassification: no LM head, a dense + out_proj head */
			return base + linear(a, h, h) + labels;
		case SL_TASK_BI_ENCODER:
			return base - p.decoder;             /* the encoder alone (T5EncoderModel) */
		default:
			return base + p.lm_head;
		}
	default:
		return base;
	}
}

void sl_arch_layer_matmuls(const struct sl_arch *a, uint64_t *attn, uint64_t *ffn_out)
{
	uint64_t h = a->hidden, q = q_width(a), kv = kv_width(a), I = a->intermediate;
	uint64_t w = a->gated_ffn ? 3 : 2;
	*attn = h * q + 2 * h * kv + q * h;
	*ffn_out = w * h * I;
	if (a->experts)
		*ffn_out = a->experts * w * h * I + h * a->experts + (a->shared_ffn ? w * h * a->shared_ffn + h : 0);
}

uint64_t sl_arch_largest_layer(const struct sl_arch *a)
{
	uint64_t h = a->hidden, i = a->intermediate, q = q_width(a), kv = kv_width(a);
	uint64_t best = a->vocab * (a->kind == SL_ARCH_ENCODER ? emb_dim(a) : h);
	uint64_t cand[8] = {
		a->tied ? 0 : a->vocab * h,
		pos_rows(a) * h,
		linear(a, h, i),
		linear(a, i, h),
		a->fused_qkv ? linear(a, h, q + 2 * kv) : 0,
		linear(a, h, q) + (a->qkv_bias_only ? q : 0),
		linear(a, h, kv) + (a->qkv_bias_only ? kv : 0),
		linear(a, q, h),
	};
	for (size_t k = 0; k < sizeof cand / sizeof cand[0]; k++)
		if (cand[k] > best)
			best = cand[k];
	return best;
}

uint32_t sl_arch_max_seq_len(const struct sl_arch *a)
{
	switch (a->family) {
	case SL_FAMILY_ROBERTA:
	case SL_FAMILY_XLM_ROBERTA:
		/* positions start after padding_idx 1: 514 slots hold 512 tokens */
		return a->max_pos > 2 ? a->max_pos - 2 : 0;
	case SL_FAMILY_MPNET:
		return a->max_pos > 2 ? a->max_pos - 2 : 0; /* roberta-style padding offset */
	case SL_FAMILY_BERT:
	case SL_FAMILY_ELECTRA:
	case SL_FAMILY_GPT2:
	case SL_FAMILY_GPT_BIGCODE:
	case SL_FAMILY_GPT_NEO:
	case SL_FAMILY_DISTILBERT:
	case SL_FAMILY_ALBERT:
	case SL_FAMILY_BART:
	case SL_FAMILY_MBART:
	case SL_FAMILY_OPT:
	case SL_FAMILY_PEGASUS: /* PegasusSinusoidalPositionalEmbedding: an nn.Embedding of max_pos rows */
	case SL_FAMILY_WHISPER: /* the decoder's max_target_positions */
		return a->max_pos; /* bart's and opt's tables have max_pos + 2 rows for max_pos tokens */
	case SL_FAMILY_DEBERTA_V2:
		return a->rel_emb ? 0 : a->max_pos; /* relative positions unbound it */
	default:
		return 0;
	}
}

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

double sl_arch_targets(const struct sl_arch *a, uint32_t targets,
		       double (*fn)(const void *ctx, double in, double out, bool ff), const void *ctx, double *layer)
{
	double h = (double)a->hidden, I = (double)a->intermediate, q = (double)q_width(a), kv = (double)kv_width(a);

	/* one attention block: q, k, v, o (fused qkv counts once) */
	double attn = 0;
	if (a->fused_qkv) {
		if (targets & (SL_LORA_Q | SL_LORA_K | SL_LORA_V))
			attn += fn(ctx, h, q + 2 * kv, false); /* c_attn / query_key_value / qkv_proj */
	} else {
		if (targets & SL_LORA_Q)
			attn += fn(ctx, h, q, false);
		if (targets & SL_LORA_K)
			attn += fn(ctx, h, kv, false);
		if (targets & SL_LORA_V)
			attn += fn(ctx, h, kv, false);
	}
	if (targets & SL_LORA_O)
		attn += fn(ctx, q, h, false);

	/* one feed-forward block: gate only exists when gated */
	double mlp = 0;
	if ((targets & SL_LORA_GATE) && a->gated_ffn)
		mlp += fn(ctx, h, I, true);
	if (targets & SL_LORA_UP)
		mlp += fn(ctx, h, I, true);
	if (targets & SL_LORA_DOWN)
		mlp += fn(ctx, I, h, true);
	if (a->experts) { /* every expert's projections (and the shared expert's) are adapted */
		double shared = 0, S = (double)a->shared_ffn;
		if (S) {
			shared += (targets & SL_LORA_GATE) ? fn(ctx, h, S, true) : 0;
			shared += (targets & SL_LORA_UP) ? fn(ctx, h, S, true) : 0;
			shared += (targets & SL_LORA_DOWN) ? fn(ctx, S, h, true) : 0;
		}
		mlp = (double)a->experts * mlp + shared;
	}

	if (layer)
		*layer = attn + mlp;
	if (a->kind == SL_ARCH_ENCDEC) /* decoder layers hold self- and cross-attention */
		return (double)a->layers * (attn + mlp) + (double)dec_layers(a) * (2 * attn + mlp);
	return (double)a->layers * (attn + mlp);
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

uint64_t sl_arch_norm_params(const struct sl_arch *a)
{
	uint64_t h = a->hidden, L = a->layers, n = L * layer_norms(a) * norm(a, h);
	if (a->kind == SL_ARCH_ENCDEC && !a->enc_only)
		n += dec_layers(a) * 3 * norm(a, h) + (a->final_norm ? norm(a, h) : 0);
	return n + (a->final_norm ? norm(a, h) : 0);
}

uint64_t sl_arch_peft_params(const struct sl_arch *a, enum sl_peft m, uint32_t r, uint32_t targets, uint32_t tokens)
{
	uint64_t h = a->hidden, L = a->layers + (a->kind == SL_ARCH_ENCDEC && !a->enc_only ? dec_layers(a) : 0);
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
		return (uint64_t)tokens * L * 2 * kv_width(a);
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
