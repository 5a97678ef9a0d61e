/*
 * memory/estimate: peak device memory of one training step (DESIGN §4),
 * term by term, from the architecture, the run settings and the fitted
 * constants of rules/calibration.yaml. docs/memory-model.md gives every
 * formula with its source.
 *
 * The step is followed through its phases — end of forward, start of
 * backward (all saved activations plus the loss gradients), one layer's
 * backward, the optimizer step — and the peak is the largest of them.
 * Saved activations are counted tensor by tensor as PyTorch autograd keeps
 * them for the Hugging Face modules: a linear keeps its input only when its
 * weight trains (LoRA freezes them), non-linear ops keep what the input
 * gradient needs, autocast keeps one half copy of a float32 input per
 * consuming linear and runs softmax and layer norm in float32.
 *
 * Pure: no allocation, no global state; doubles inside, bytes out.
 */
#include <math.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "estimate_internal.h"
#include "algo_table.h"
#include "peft_table.h"
#include "sweeplint/memory.h"
#include "zero.h"

#define MIB (1024.0 * 1024.0)

/* cuBLAS workspace per handle and stream: PyTorch CublasHandlePool.cpp
 * ":4096:2:16:8" = 8.125 MiB, 32 MiB on Hopper and later. The forward runs
 * on the Python thread and the backward on the autograd thread: two handles. */
#define CUBLAS_WS (4096.0 * 1024 * 2 + 16.0 * 1024 * 8)
#define CUBLAS_WS_SM90 (4096.0 * 1024 * 8)

/* bitsandbytes NF4: 4 bits + one fp32 absmax per block of 64 (no double quantisation). */
#define NF4_BYTES (0.5 + 4.0 / 64.0)
/* LLM.int8(): 1 byte + one fp32 scale per row (negligible). */
#define INT8_BYTES 1.0
/* GPTQ / AWQ 4-bit: packed int4 weights + per group of 128 input rows one fp16 scale and one
 * packed 4-bit zero per output column (auto-gptq QuantLinear qweight/scales/qzeros, AutoAWQ
 * WQLinear; group_size 128, the published checkpoints' setting). */
#define GPTQ_BYTES (0.5 + (2.0 + 0.5) / 128.0)

/* Bytes per quantised parameter, 0 when the base is not quantised. */
static double quant_bytes(enum sl_quant q)
{
	switch (q) {
	case SL_QUANT_NF4:
		return NF4_BYTES;
	case SL_QUANT_INT8:
		return INT8_BYTES;
	case SL_QUANT_GPTQ:
	case SL_QUANT_AWQ:
		return GPTQ_BYTES;
	default:
		return 0;
	}
}

/* Parameters below this size keep 32-bit states in bitsandbytes (min_8bit_size). */

struct ctx {
	const struct sl_arch *a;
	const struct sl_settings *s;
	const struct sl_calib *c;
	double h, hq, kvd, I, heads;
	double wb;       /* bytes of the weights as the matmuls read them (FSDP mixed precision: param_dtype) */
	double pb;       /* bytes of a full fine-tune's trainable parameter as stored (upcast_trainable: 4) */
	double frozen_b; /* bytes of a frozen parameter as stored: the load dtype's */
	double ab;       /* bytes of linear outputs (activation dtype) */
	double nb;       /* bytes of the residual stream and layer-norm outputs */
	double fb;       /* bytes of the FFN's intermediate tensors (gate, up, activation): ab, or the residual's
	                  * dtype where a bitsandbytes linear returns its output in its input's dtype */
	double sm_b;     /* bytes of softmax probabilities */
	bool amp;        /* autocast over float32 weights (half copies of the weights, a float32 residual stream) */
	bool autocast;   /* autocast runs at all: mixed precision on, not under DeepSpeed (which opens none) */
	bool eager;
	bool cast_probs; /* a half copy of float32 probabilities goes to P·V */
	double p_hidden; /* hidden dropout */
	double p_attn;   /* attention-probability dropout */
	bool train_w;    /* base linear weights train (full fine-tune) */
	bool train_norm; /* the norms' weights train (full fine-tune, ln_tuning) */
	bool fused;      /* torch.compile or Liger: RMSNorm and the gated activation fused (fewer saved tensors) */
	double peft_tok; /* per token and layer: what IA3's scaling or DoRA's magnitude keeps (bytes) */
	bool train_head; /* the LM head trains (full fine-tune, or a modules_to_save copy) */
	bool full;       /* a full fine-tune: the embeddings train too */
	bool kbit32;     /* a bitsandbytes base after prepare_model_for_kbit_training: a float32 residual stream */
	bool bnb_keeps;  /* bitsandbytes < 0.43.2: each 4-bit linear keeps its input (bnb_legacy) */
	unsigned lora;   /* LoRA target bits (0: none) */
	double r;
	double lora_b;   /* bytes of the adapters' weights in their matmul: float32 (PEFT), FSDP param_dtype */
	bool lora_drop;  /* lora_dropout > 0: nn.Dropout on each adapter's input (else nn.Identity) */
	bool t5;
	bool gqa_repeat; /* k and v expanded to all heads before attention */
	bool vocab;      /* the part that runs computes vocabulary logits (an LM head) */
	bool encdec;     /* the decoder stack runs too (not a bi-encoder, an encoder alone) */
	double L_train;  /* encoder (or decoder-only) layers that keep activations: above the frozen ones */
	double D_train;  /* an encoder-decoder's decoder layers that keep activations */
	bool frozen;     /* some layer, or the embeddings, is frozen in a full fine-tune */
	bool freeze;     /* LLaMA-Factory freeze tuning: L_train layers train (docs/memory-model.md "Freeze tuning") */
	double L_path;   /* frozen layers autograd records (their input requires grad): what a frozen layer keeps */
	double T_freeze; /* freeze: the parameters that train */
	double lf_global; /* longformer: tokens with global attention (seq-cls: <s>) */
};

static bool has_vocab_logits(const struct sl_arch *a, enum sl_task t);

/* Llama-style decoders (RMSNorm, rotary, softmax upcast to float32): llama, mistral, qwen2/3, gemma 1-3,
 * granite, phi3 and the MoE decoders. */
static bool llama_like(const struct sl_arch *a)
{
	return a->kind == SL_ARCH_DECODER && a->rmsnorm;
}

static bool t5_like(enum sl_family f)
{
	return f == SL_FAMILY_T5 || f == SL_FAMILY_MT5 || f == SL_FAMILY_UMT5;
}

/* The attention implementation current transformers uses by default. */
static enum sl_attn attn_impl(const struct sl_arch *a, enum sl_attn want)
{
	if (want != SL_ATTN_DEFAULT)
		return want;
	/* T5/mT5/UMT5 attention has no SDPA path: eager (softmax over s²); nor have bloom (ALiBi baddbmm), GPT-J,
	 * GPT-Neo, MPNet and DeBERTa-v2 (disentangled attention) */
	switch (a->family) {
	case SL_FAMILY_T5:
	case SL_FAMILY_MT5:
	case SL_FAMILY_UMT5:
	case SL_FAMILY_BLOOM:
	case SL_FAMILY_GPTJ:
	case SL_FAMILY_GPT_NEO:
	case SL_FAMILY_MPNET:
	case SL_FAMILY_DEBERTA_V2:
	case SL_FAMILY_LONGFORMER: /* its own sliding-window attention (longformer.c), whatever is asked */
		return SL_ATTN_EAGER;
	default:
		return SL_ATTN_SDPA;
	}
}

/* Dropout the family trains with: hidden / attention probabilities (HF config defaults). */
static void dropout_of(enum sl_family f, double *hidden, double *attn)
{
	switch (f) {
	case SL_FAMILY_BERT:
	case SL_FAMILY_ROBERTA:
	case SL_FAMILY_XLM_ROBERTA:
	case SL_FAMILY_ELECTRA:
	case SL_FAMILY_GPT2:
	case SL_FAMILY_GPT_BIGCODE:  /* resid_pdrop, attn_pdrop 0.1 */
	case SL_FAMILY_DEBERTA_V2:
	case SL_FAMILY_DISTILBERT:   /* dropout, attention_dropout 0.1 */
	case SL_FAMILY_MPNET:
	case SL_FAMILY_LONGFORMER:   /* the published configs' hidden_dropout_prob, attention_probs_dropout_prob */
		*hidden = 0.1, *attn = 0.1; /* hidden_dropout_prob, attention_probs_dropout_prob */
		break;
	case SL_FAMILY_PHI:          /* phi-2: resid_pdrop 0.1, attention_dropout 0 */
	case SL_FAMILY_OPT:          /* dropout 0.1, attention_dropout 0 */
		*hidden = 0.1, *attn = 0.0;
		break;
	case SL_FAMILY_T5:
	case SL_FAMILY_MT5:
	case SL_FAMILY_UMT5:
		*hidden = 0.1, *attn = 0.1; /* dropout_rate is used for both */
		break;
	case SL_FAMILY_BART:
	case SL_FAMILY_MBART:
	case SL_FAMILY_PEGASUS:
		*hidden = 0.1, *attn = 0.0; /* dropout 0.1, attention_dropout 0.0 (PegasusConfig defaults too) */
		break;
	default:
		/* llama family: attention_dropout 0, no hidden dropout; falcon, bloom, gptj, gpt_neo,
		 * albert(-v2), whisper: 0 in their published configs */
		*hidden = 0.0, *attn = 0.0;
		break;
	}
}

static double dim_head(const struct sl_arch *a)
{
	if (a->head_dim)
		return a->head_dim;
	return a->heads ? (double)a->hidden / a->heads : 0;
}

/* The PEFT method a run uses: LoRA when only a rank is given, none for a full fine-tune. */
static enum sl_peft peft_of(const struct sl_settings *s)
{
	if (s->peft_method != SL_PEFT_NONE)
		return s->peft_method;
	return s->lora_r ? SL_PEFT_LORA : SL_PEFT_NONE;
}

/* The rank of a rank-r method: lora_r, else PEFT's default (LoraConfig, LoHaConfig, OFTConfig r=8; VeraConfig r=256). */
static uint32_t peft_rank(const struct sl_settings *s)
{
	if (s->lora_r || sl_peft_def_of(s->peft_method)) /* rules/peft.yaml: 0 is the row's rank_default */
		return s->lora_r;
	return s->peft_method == SL_PEFT_VERA ? 256 : 8;
}

/* bytes per token one VeRA target keeps: A's output (r) and B's (out), float32 */
static double vera_kept(const void *ctx, double in, double out, bool ff)
{
	(void)in, (void)ff;
	return 4 * (*(const double *)ctx + out);
}

/* The framework casts the trainable parameters to float32 after loading (role upcast_trainable): in training only
 * (LLaMA-Factory's init_adapter casts when is_trainable) */
static bool upcast(const struct sl_settings *s)
{
	return s->upcast_trainable && s->mode == SL_MODE_TRAIN;
}

/* The first layer id that trains under freeze tuning and how many do (LLaMA-Factory's trainable_layer_ids:
 * range(L - k, L) for k > 0, range(-k) for k < 0; use_llama_pro's strided ids are not modelled). */
static uint32_t freeze_layers(const struct sl_settings *s, uint32_t L, uint32_t *first)
{
	int64_t k = s->trainable_layers ? s->trainable_layers : SL_FREEZE_DEFAULT_LAYERS;
	uint64_t n = (uint64_t)(k < 0 ? -k : k);
	if (n > L)
		n = L;
	*first = k > 0 ? L - (uint32_t)n : 0;
	return (uint32_t)n;
}

/*
 * LLaMA-Factory's freeze tuning (model/adapter.py _setup_freeze_tuning @ff6d4d12; docs/memory-model.md
 * "Freeze tuning"): the trainable layers' parameters (and freeze_extra_modules) have gradients and
 * optimizer states, the rest is frozen, the LM head and final norm included. Its gradient checkpointing
 * (model_utils/checkpointing.py get_custom_gradient_checkpointing_func) checkpoints a layer only when
 * it has a trainable parameter and runs the others plainly: below the first trainable layer nothing
 * requires grad, so those keep nothing; above it (the first N layers train, or the embeddings do)
 * autograd records the frozen layers, which keep what a frozen layer keeps, checkpointing or not.
 */
static void freeze_ctx(struct ctx *x, enum sl_peft pm)
{
	const struct sl_arch *a = x->a;
	const struct sl_settings *s = x->s;
	if (!s->freeze_tuning || pm != SL_PEFT_NONE || s->mode != SL_MODE_TRAIN || x->frozen)
		return;
	uint32_t first, k = freeze_layers(s, a->layers, &first);
	uint64_t T = sl_arch_freeze_params(a, k, first, s->trainable_modules, s->freeze_extra);
	if (!T)
		return; /* not modelled: every parameter trains (an upper bound) */
	x->freeze = x->frozen = true;
	x->T_freeze = (double)T;
	x->L_train = k;
	bool emb = s->freeze_extra & SL_FZX_EMBED;
	x->L_path = s->trainable_layers < 0 || emb ? (double)a->layers - k : 0;
	x->train_head = x->vocab && (a->tied ? emb : (s->freeze_extra & SL_FZX_HEAD) != 0);
}

/* The adapters share FSDP units with frozen base weights whose gradients FSDP1 then computes and keeps
 * (use_orig_params=True under a block wrap policy): a run that adapts the layers' linears. */
static bool fsdp_mixed_units(const struct sl_settings *s)
{
	if (s->fsdp == SL_FSDP_NONE || !s->fsdp_orig_params || s->quant != SL_QUANT_NONE)
		return false;
	enum sl_peft pm = peft_of(s);
	return pm != SL_PEFT_NONE && pm != SL_PEFT_PROMPT_TUNING && pm != SL_PEFT_P_TUNING &&
	       pm != SL_PEFT_PREFIX_TUNING && pm != SL_PEFT_TRAINABLE_TOKENS;
}

static void ctx_init(struct ctx *x, const struct sl_arch *a, const struct sl_settings *s, const struct sl_calib *c)
{
	memset(x, 0, sizeof *x);
	x->a = a, x->s = s, x->c = c;
	x->h = a->hidden;
	x->heads = a->heads;
	x->hq = a->heads * dim_head(a);
	x->kvd = (a->kv_heads ? a->kv_heads : a->heads) * dim_head(a);
	x->I = a->intermediate;
	x->t5 = t5_like(a->family);
	/* a full fine-tune whose framework casts the trainable parameters to float32 after a 16-bit load
	 * (LLaMA-Factory's cast_trainable_params_to_fp32, model/adapter.py): the weights the matmuls read
	 * are float32 as after a float32 load; only the frozen ones stay in the load dtype */
	x->frozen_b = s->dtype == SL_DTYPE_FP32 ? 4 : 2;
	x->pb = upcast(s) && peft_of(s) == SL_PEFT_NONE && s->quant == SL_QUANT_NONE ? 4 : x->frozen_b;
	double wb = x->pb;
	/* FSDP's MixedPrecision(param_dtype) hands the units their parameters already in the low
	 * precision and casts the inputs: the forward runs as a pure 16-bit one (autocast finds
	 * nothing to cast) */
	if (s->fsdp != SL_FSDP_NONE && s->amp != SL_AMP_OFF)
		wb = 2;
	/* DeepSpeed casts the module to its fp16/bf16 before training (engine.py _configure_distributed_model:
	 * module.half() / module.bfloat16()) and the HF Trainer opens no autocast under DeepSpeed: a pure
	 * 16-bit forward whatever dtype the weights were loaded in */
	if (s->zero_stage > 0 && s->fsdp == SL_FSDP_NONE && s->amp != SL_AMP_OFF)
		wb = 2;
	x->wb = wb;
	x->amp = s->amp != SL_AMP_OFF && wb == 4;
	x->autocast = s->amp != SL_AMP_OFF && !(s->zero_stage > 0 && s->fsdp == SL_FSDP_NONE);
	x->ab = x->amp ? 2 : wb;
	/* under autocast the residual stream is float32: layer norm runs in float32
	 * and a half tensor added to a float32 one promotes */
	x->nb = x->amp ? 4 : wb;
	x->fb = x->ab;
	/*
	 * A bitsandbytes base after peft prepare_model_for_kbit_training (every fp16/bf16 parameter that is
	 * not a Params4bit cast to float32: peft/utils/other.py @ 5d602fdb): the float32 embedding makes the
	 * residual stream float32 (autocast leaves embedding and RMSNorm alone; LlamaRMSNorm multiplies its
	 * float32 weight by the input in the input's dtype), and each Linear4bit / Linear8bitLt casts its
	 * input to the compute dtype and returns its output cast back to the input's dtype
	 * (bitsandbytes/nn/modules.py Linear4bit.forward ".to(inp_dtype)" @ 95f9af30): the q/k/v/o and FFN
	 * outputs are float32, SDPA and the adapters (under autocast) keep half copies. Without autocast the
	 * whole forward is float32. DeepSpeed casts the module back to 16 bits and a sharded FSDP QLoRA is not
	 * prepared by TRL: only single-process and DDP runs.
	 */
	x->kbit32 = (s->quant == SL_QUANT_NF4 || s->quant == SL_QUANT_INT8) && !s->kbit_prepare_off &&
		    s->zero_stage == 0 && s->fsdp == SL_FSDP_NONE && s->dtype != SL_DTYPE_FP32;
	x->bnb_keeps = s->bnb_legacy && s->quant == SL_QUANT_NF4;
	if (x->kbit32) {
		x->nb = x->fb = 4;
		if (s->amp != SL_AMP_OFF) {
			x->amp = true; /* autocast over float32 tensors: half copies for SDPA and the adapters */
			x->ab = 2;
		} else {
			x->ab = 4;
			x->wb = 4; /* the float32 head reads a float32 input: float32 logits */
		}
	}
	enum sl_attn impl = attn_impl(a, s->attn);
	x->eager = impl == SL_ATTN_EAGER;
	bool upcast = llama_like(a) || x->t5; /* softmax(..., dtype=float32) / .float() */
	x->sm_b = (x->amp || upcast) ? 4 : x->ab;
	x->cast_probs = x->sm_b > x->ab;
	dropout_of(a->family, &x->p_hidden, &x->p_attn);
	enum sl_peft pm = peft_of(s);
	uint32_t tgt = s->lora_targets ? s->lora_targets : (SL_LORA_Q | SL_LORA_V);
	/* adapters that keep their input (cast to their dtype) and an r-wide product: LoRA, DoRA;
	 * LoHa and BOFT multiply the input by a materialised weight, OFT rotates it: the input copy, no
	 * r-wide output (VeRA: below) */
	x->lora = 0;
	if (pm == SL_PEFT_LORA || pm == SL_PEFT_DORA)
		x->lora = tgt, x->r = peft_rank(s);
	else if (pm == SL_PEFT_LOHA || pm == SL_PEFT_OFT || pm == SL_PEFT_BOFT)
		x->lora = tgt, x->r = 0;
	x->lora_b = s->fsdp != SL_FSDP_NONE && s->amp != SL_AMP_OFF ? 2 : 4;
	x->lora_drop = (pm == SL_PEFT_LORA || pm == SL_PEFT_DORA) && s->lora_dropout_bp > 0;
	x->train_w = pm == SL_PEFT_NONE;
	x->full = x->train_w;
	x->train_norm = x->train_w || pm == SL_PEFT_LN_TUNING;
	x->fused = s->torch_compile || s->liger;
	if (pm == SL_PEFT_IA3 || pm == SL_PEFT_DORA) {
		/* IA3: the vector's product keeps the other operand — a target's output, or a feed-forward
		 * module's input; DoRA: each target's base output, scaled by the magnitude (PEFT DoraLinearLayer) */
		uint32_t t = pm == SL_PEFT_IA3 && !s->lora_targets ? (SL_LORA_K | SL_LORA_V | SL_LORA_DOWN) : tgt;
		double q = x->hq, kv = x->kvd, h = x->h, I = x->I;
		bool ia3 = pm == SL_PEFT_IA3;
		double d = ((t & SL_LORA_Q) ? q : 0) + ((t & SL_LORA_K) ? kv : 0) + ((t & SL_LORA_V) ? kv : 0) +
			   ((t & SL_LORA_O) ? h : 0);
		if (a->gated_ffn && (t & SL_LORA_GATE))
			d += ia3 ? h : I;
		d += (t & SL_LORA_UP) ? (ia3 ? h : I) : 0;
		d += (t & SL_LORA_DOWN) ? (ia3 ? I : h) : 0;
		x->peft_tok = x->ab * d;
	}
	if (pm == SL_PEFT_VERA) {
		/* VeRA (peft/tuners/vera/layer.py): F.linear(x, A) and F.linear(., B) with the shared A, B frozen
		 * keep no input; lambda_d's product keeps A's r-wide output, lambda_b's B's out-wide one (float32) */
		double r = peft_rank(s), layer = 0;
		sl_arch_targets(a, tgt, vera_kept, &r, &layer);
		x->peft_tok = layer;
	}
	const struct sl_peft_def *pd = sl_peft_def_of(pm);
	if (pd) {
		/* a method of rules/peft.yaml: what its forward keeps per token (the row's keeps_token) */
		struct sl_peft_sizes z;
		sl_peft_sizes(a, pd, s->lora_r, s->lora_targets, x->wb, NULL, &z);
		x->peft_tok = z.keeps_token;
	}
	x->train_head = x->train_w || (s->modules_to_save & SL_MTS_HEAD);
	/* FSDP1 use_orig_params with the adapters in the blocks' units: the frozen weights are views of a
	 * flat parameter that requires grad, so autograd computes their gradients and every linear and norm
	 * of a block keeps what a full fine-tune keeps; the root unit (embeddings, head) stays frozen */
	if (fsdp_mixed_units(s))
		x->train_w = x->train_norm = true;
	/* eager attention and SDPA with a padding mask expand k/v to all heads (repeat_kv) */
	x->gqa_repeat = true;
	/* the part that runs: AutoModel and an encoder alone have no LM head; a bi-encoder or an encoder
	 * alone runs no decoder stack */
	x->vocab = s->part == SL_PART_FULL && has_vocab_logits(a, s->task);
	x->encdec = a->kind == SL_ARCH_ENCDEC && s->task != SL_TASK_BI_ENCODER && !a->enc_only;
	double L = a->layers, D = x->encdec ? (a->dec_layers ? a->dec_layers : a->layers) : 0;
	x->L_train = L, x->D_train = D;
	/* frozen layers in a full fine-tune (docs/memory-model.md "What trains"): autograd records nothing
	 * for a frozen layer whose input does not require grad either, so the bottom frozen_layers keep no
	 * activations, and with the whole backbone frozen no layer does; the task head still trains when
	 * it has weights of its own (a classifier, an untied LM head) */
	if (pm == SL_PEFT_NONE && (s->frozen_layers || s->frozen_embeddings)) {
		x->frozen = true;
		double f = s->frozen_layers == SL_FROZEN_BACKBONE ? L + D : (double)s->frozen_layers;
		x->L_train = f >= L ? 0 : L - f;
		x->D_train = f <= L ? D : (f - L >= D ? 0 : D - (f - L));
		if (s->frozen_layers == SL_FROZEN_BACKBONE)
			x->train_head = x->vocab && !a->tied;
	}
	freeze_ctx(x, pm);
	/* LongformerForSequenceClassification gives <s> global attention when the caller gives no
	 * global_attention_mask; the other heads and LongformerModel give none (modeling_longformer.py@010a915c) */
	x->lf_global = a->family == SL_FAMILY_LONGFORMER && s->task == SL_TASK_SEQ_CLS && s->part == SL_PART_FULL ? 1 : 0;
}

/*
 * Bytes a set of linears keeps of an input tensor of `elems` elements whose
 * own dtype has in_b bytes: nothing when their weights are frozen; under
 * autocast one half copy per linear for a float32 input; otherwise the
 * tensor once. LoRA adapters on `lora_n` of them keep their own input
 * (cast to the fp32 adapter, or to half under autocast) and the r-wide
 * output of A. With lora_dropout > 0 each adapter's nn.Dropout makes its own
 * copy of the (cast) input, which A keeps, and keeps a bool mask of it (PEFT
 * lora/layer.py Linear.forward: lora_B(lora_A(dropout(x))); torch's
 * native_dropout saves the mask): lora_n × (adapter bytes + 1) per element,
 * and nothing of the input is shared between adapters any more.
 */
static double lin_in(const struct ctx *x, int consumers, int lora_n, double tokens, double width, double in_b)
{
	double b = 0, elems = tokens * width;
	if (x->train_w && consumers > 0)
		b += (x->amp && in_b > x->ab) ? consumers * x->ab * elems : in_b * elems;
	/* bitsandbytes before 0.43.2: MatMul4Bit saved its input A for a backward that never reads it
	 * (ctx.tensors = (A, B); bitsandbytes#1270 "delete useless buffered activation", 9e753741): the
	 * input cast to the compute dtype, one copy per linear when that is a cast, else the tensor once —
	 * unless an adapter already keeps that very tensor */
	/* under autocast over a 16-bit input PEFT still casts each adapter's input to the float32 adapter
	 * (tuners_utils.py _cast_input_dtype, lora/layer.py Linear.forward @ 5d602fdb) and autocast casts
	 * that back for A's matmul: A keeps a half copy per adapter, the float32 one is freed */
	bool ac = x->amp || (x->autocast && x->lora_b > in_b);
	bool lora_shares = lora_n > 0 && !x->lora_drop && !(ac || in_b < (ac ? x->ab : x->lora_b));
	if (x->bnb_keeps && !x->train_w && consumers > 0 && !lora_shares)
		b += in_b > 2 ? consumers * 2 * elems : in_b * elems;
	if (lora_n > 0) {
		double lb = ac ? x->ab : x->lora_b;
		if (x->lora_drop)
			b += lora_n * (lb + 1) * elems; /* each dropout's output (cast) and its mask */
		else if (ac || in_b < lb)
			b += lora_n * lb * elems;   /* a cast copy per adapter */
		else if (!x->train_w)
			b += in_b * elems;          /* the input itself, shared */
		b += lora_n * lb * tokens * x->r; /* A's output, kept by B */
	}
	return b;
}

static int bits(unsigned v, unsigned mask)
{
	return __builtin_popcount(v & mask);
}

/* A norm keeps: LayerNorm its input; RMSNorm (HF) a float32 copy, T5 also its input, and the normalised tensor when its weight trains. */
static double norm_saved(const struct ctx *x, double n)
{
	if (!x->a->rmsnorm)
		return n * x->h * x->nb + n * 8; /* input + mean/rstd */
	if (x->fused) /* one fused kernel (inductor, Liger LigerRMSNorm): its input and the rstd */
		return n * x->h * x->nb + n * 4;
	double b = 4;
	if (x->t5 && x->nb < 4)
		b += x->nb;
	if (x->train_norm)
		b += x->nb;
	return n * x->h * b + n * 4;
}

/* Bytes per element of the s² tensors eager attention keeps. */
static double eager_s2_bytes(const struct ctx *x)
{
	double b = x->sm_b; /* softmax keeps its output */
	if (x->p_attn > 0)
		b += 1 + x->ab; /* dropout mask; P·V keeps the dropped (half) probabilities */
	else if (x->cast_probs)
		b += x->ab;     /* P·V keeps the half copy */
	return b;
}

/* Longformer's attention over n (padded) tokens of one sequence, as longformer.c models it. */
static void lf_attention(const struct ctx *x, double n, struct sl_lf_attn *out)
{
	struct sl_lf_shape z = {
		.n = n,
		.heads = x->heads,
		.hq = x->hq,
		.window = x->a->window,
		.global = x->lf_global,
		.ab = x->ab,
		.copies = x->c->eager_attn_copies,
		.dropout = x->p_attn > 0 && x->s->mode == SL_MODE_TRAIN,
	};
	sl_lf_attention(&z, out);
}

struct layer {
	double saved;     /* bytes kept for backward */
	double attn;      /* of which attention's s² (eager) or O(s) (SDPA) tensors */
	double transient; /* bytes alive at the peak of this layer's backward */
};

/*
 * An attention block over n query tokens and m key tokens: its norm,
 * q/k/v/o projections, the attention itself, output dropout. cross: k and v
 * come from the encoder output (its linear inputs are counted per model).
 */
static void attn_block(const struct ctx *x, double n, double m, bool cross, struct layer *L)
{
	double h = x->h, hq = x->hq, kv = x->gqa_repeat ? hq : x->kvd;
	double b = norm_saved(x, n);
	unsigned lq = x->lora & SL_LORA_Q, lkv = x->lora & (SL_LORA_K | SL_LORA_V);
	if (cross) {
		b += lin_in(x, 1, lq ? 1 : 0, n, h, x->nb);
		if (x->amp)  /* k and v cast the encoder output each (shared otherwise: per model) */
			b += lin_in(x, 2, bits(lkv, ~0u), m, h, x->nb);
	} else {
		/* longformer with global tokens: key_global and value_global read the layer input too */
		int readers = 3 + (x->lf_global > 0 ? 2 : 0);
		b += lin_in(x, readers, bits(x->lora, SL_LORA_Q | SL_LORA_K | SL_LORA_V), n, h, x->nb);
	}
	if (x->a->family == SL_FAMILY_LONGFORMER && !cross) {
		/* the sliding-window attention over the padded length (longformer.c) */
		struct sl_lf_attn lf;
		lf_attention(x, n, &lf);
		b += lf.qkv + lf.scores;
		L->transient = lf.transient;
		b += lin_in(x, 1, (x->lora & SL_LORA_O) ? 1 : 0, n, hq, x->ab);
		if (x->p_hidden > 0)
			b += n * h;
		L->saved += b;
		L->attn += lf.scores;
		return;
	}
	/* q, k, v as the attention keeps them (RoPE outputs, reshape copies) */
	b += x->ab * (n * hq + 2 * m * kv);
	if (x->a->qk_norm) /* RMSNorm over head_dim on q and k: float32 copies */
		b += 4 * (n * hq + m * x->kvd);
	double at;
	if (x->eager) {
		at = x->heads * n * m * eager_s2_bytes(x);
		b += at;
		L->transient = x->c->eager_attn_copies * x->sm_b * x->heads * n * m + 4 * x->ab * n * hq;
	} else {
		at = x->heads * n * x->c->sdpa_attn_bytes + x->ab * n * hq; /* logsumexp + output */
		b += at;
		L->transient = x->c->flash_bwd_bytes * (x->ab / 2) * n * hq;
	}
	if (x->a->kv_lora && !cross) {
		/* multi-head latent attention (modular_deepseek_v3.py@000c33fd): q_a_proj's output through
		 * q_a_layernorm (a float32 copy) into q_b_proj; kv_a_proj_with_mqa's latent through
		 * kv_a_layernorm into kv_b_proj, and the rope key expanded to every head */
		double ql = x->a->q_lora, kl = x->a->kv_lora, r = x->a->rope_dim;
		if (ql > 0)
			b += 4 * n * ql + lin_in(x, 1, 0, n, ql, x->ab);
		b += 4 * n * kl + lin_in(x, 1, 0, n, kl, x->ab) + x->ab * n * (kl + r);
	}
	/* o_proj input: a contiguous copy of the attention output */
	b += lin_in(x, 1, (x->lora & SL_LORA_O) ? 1 : 0, n, hq, x->ab);
	if (x->p_hidden > 0)
		b += n * h; /* dropout mask */
	L->saved += b;
	L->attn += at;
}

/*
 * An MoE feed-forward over n tokens (MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock): the router's
 * logits and float32 routing weights over every expert, then each token through its top-k experts
 * — the gathered input copy, the gated expert's tensors, the down input and the weighted output per
 * routed token — and the shared expert over every token with its sigmoid gate. Every expert's
 * weights stay resident (the parameter count has them all).
 */
static void moe_block(const struct ctx *x, double n, struct layer *L)
{
	const struct sl_arch *a = x->a;
	double h = x->h, I = x->I, E = a->experts, S = a->shared_ffn;
	double routed = n * (a->top_k ? a->top_k : 1);
	int lu = bits(x->lora, SL_LORA_UP) + bits(x->lora, SL_LORA_GATE), ld = bits(x->lora, SL_LORA_DOWN);
	double b = x->a->norms == 1 ? 0 : norm_saved(x, n);
	b += lin_in(x, 1, 0, n, h, x->nb);               /* the router's input */
	b += n * E * (x->ab + 4);                        /* router logits, float32 routing weights */
	b += lin_in(x, 2, lu, routed, h, x->ab);         /* hidden_states[top_x]: a copy per routed token */
	b += 3 * x->fb * routed * I;                     /* act input, act output, up output */
	b += lin_in(x, 1, ld, routed, I, x->fb);         /* down's input */
	b += x->ab * routed * h;                         /* expert output, kept by × routing weight */
	double t = 3 * x->fb * (routed / (E > 0 ? E : 1)) * I;
	if (S > 0) {
		b += lin_in(x, 2, lu, n, h, x->nb) + 3 * x->fb * n * S + lin_in(x, 1, ld, n, S, x->fb);
		b += n * 4 + x->ab * n * h;                  /* shared_expert_gate sigmoid, gated output */
		t += 3 * x->fb * n * S;
	}
	L->saved += b;
	if (t > L->transient)
		L->transient = t;
}

/* A feed-forward block over n tokens: norm, up (+ gate), activation, down, dropout. */
static void ffn_block(const struct ctx *x, double n, struct layer *L)
{
	if (x->a->experts) {
		moe_block(x, n, L);
		return;
	}
	double h = x->h, I = x->I;
	bool gated = x->a->gated_ffn;
	/* parallel attention and FFN (phi, gptj, falcon-7b) read one norm's output, counted by attention */
	double b = x->a->norms == 1 ? 0 : norm_saved(x, n);
	if (x->a->norms == 4)
		b += 2 * norm_saved(x, n); /* gemma2/3 post-attention and post-FFN norms */
	int lu = bits(x->lora, SL_LORA_UP) + (gated ? bits(x->lora, SL_LORA_GATE) : 0);
	b += lin_in(x, gated ? 2 : 1, lu, n, h, x->nb);
	/* activation input; gated: activation output and up output kept by the product */
	/* fused (inductor, LigerSiLUMulFunction): gate and up outputs, the product recomputed in backward */
	b += (gated ? (x->fused ? 2 : 3) : 1) * x->fb * n * I;
	if (x->t5 && x->p_hidden > 0)
		b += n * I; /* T5 drops out the hidden layer before wo */
	/* down's input is a new tensor except T5's relu output without dropout */
	bool shared = x->t5 && !gated && x->p_hidden == 0;
	b += lin_in(x, shared ? 0 : 1, bits(x->lora, SL_LORA_DOWN), n, I, x->fb);
	if (x->p_hidden > 0)
		b += n * h;
	L->saved += b;
	double t = (gated ? 3 : 2) * x->fb * n * I;
	if (t > L->transient)
		L->transient = t;
}

/*
 * A selective state-space mixer over n tokens with its norm, as the CUDA kernels that transformers
 * calls in training keep tensors for backward (state-spaces/mamba mamba_ssm/ops/selective_scan_interface.py
 * MambaInnerFn: xz, x_dbl, the contiguous B and C, the scan's output and its float32 chunk states,
 * conv1d_out and delta recomputed in backward (checkpoint_lvl 1); mamba_ssm/ops/triton/ssd_combined.py
 * MambaSplitConv1dScanCombinedFn for Mamba2: zxbcdt, out_x and the gated norm's rstd). in_proj's input
 * is kept by autograd outside the kernel while its weight trains. Jamba's mixer runs the pieces one by
 * one (modeling_jamba.py cuda_kernels_forward): the conv input and output, delta, the scan's output and
 * out_proj's input stay too, and its dt/B/C RMSNorms keep float32 copies.
 */
static void ssm_block(const struct ctx *x, double n, struct layer *L)
{
	const struct sl_arch *a = x->a;
	double h = x->h, I = a->ssm_inner, N = a->ssm_state, R = a->ssm_dt_rank, ab = x->ab;
	/* falcon_h1: the mixer reads the input_layernorm the attention beside it reads (counted there), scaled
	 * by ssm_in_multiplier into a tensor of its own: in_proj's input */
	double b = (a->ssm_parallel ? 0 : norm_saved(x, n)) + lin_in(x, 1, 0, n, h, x->nb);
	if (a->ssm_heads) {
		double G = a->ssm_groups ? a->ssm_groups : 1;
		b += ab * n * (2 * I + 2 * G * N + a->ssm_heads + I) + 4 * n * G;
	} else {
		b += ab * n * (2 * I + R + 4 * N + I) + 4 * I * 2 * N * ceil(n / 2048);
		if (a->ssm_dt_norms)
			b += ab * n * 4 * I + 4 * n * (R + 2 * N);
	}
	L->saved += b;
	double t = ab * n * 4 * I; /* conv1d_out and delta recomputed, dxz */
	if (t > L->transient)
		L->transient = t;
}

/*
 * LFM2's gated short convolution over n tokens (Lfm2ShortConv.slow_forward, modular_lfm2.py@02f41779):
 * operator_norm, in_proj's input, its output B, C and x (3h, kept for B*x and C*conv_out), Bx (the
 * conv's input), conv_out, and y = C*conv_out (out_proj's input).
 */
static void short_conv_block(const struct ctx *x, double n, struct layer *L)
{
	double h = x->h, ab = x->ab;
	double b = norm_saved(x, n) + lin_in(x, 1, 0, n, h, x->nb) + ab * n * (3 * h + 2 * h) + lin_in(x, 1, 0, n, h, ab);
	L->saved += b;
	double t = ab * n * 3 * h; /* in_proj's output, transposed */
	if (t > L->transient)
		L->transient = t;
}

/*
 * An RWKV-4 block over n tokens (modeling_rwkv.py RwkvBlock with the CUDA WKV kernel): ln1 and ln2,
 * the time-shifted mixes into key, value and receptance (their inputs), k and v and the WKV output
 * the kernel keeps, sigmoid(r), output's input; channel mixing: two mixed inputs, relu(k)² (its input
 * and output), sigmoid(r), value's input.
 */
static void rwkv_block(const struct ctx *x, double n, struct layer *L)
{
	const struct sl_arch *a = x->a;
	double h = x->h, A = (double)a->heads * (a->head_dim ? a->head_dim : a->hidden), I = x->I, ab = x->ab;
	double b = 2 * norm_saved(x, n) + lin_in(x, 3, 0, n, h, ab) + ab * n * 4 * A + lin_in(x, 1, 0, n, A, ab);
	b += lin_in(x, 2, 0, n, h, ab) + ab * n * (2 * I + h) + lin_in(x, 1, 0, n, I, ab);
	L->saved += b;
	double t = 3 * ab * n * I;
	if (t > L->transient)
		L->transient = t;
}

static void add_layer(struct layer *sum, const struct layer *one, double share)
{
	sum->saved += share * one->saved;
	sum->attn += share * one->attn;
	if (one->transient > sum->transient)
		sum->transient = one->transient;
}

/*
 * One decoder layer over n tokens. Layers that differ (dense first layers and interleaved MoE ones,
 * hybrids of attention and state-space mixers, RWKV) give the average layer: each kind's saved
 * tensors weighted by its share of the layers, the largest transients.
 */
static void decoder_layer(const struct ctx *x, double n, struct layer *L)
{
	const struct sl_arch *a = x->a;
	if (a->family == SL_FAMILY_RWKV) {
		rwkv_block(x, n, L);
		return;
	}
	if (!a->ssm_inner && !a->attn_listed && !a->moe_first && a->moe_every <= 1) {
		attn_block(x, n, n, false, L);
		ffn_block(x, n, L);
		return;
	}
	double layers = a->layers ? a->layers : 1;
	uint64_t na, nm;
	sl_arch_layer_counts(a, &na, &nm);
	double n_attn = (double)na, n_moe = (double)nm, n_ssm = (double)sl_arch_ssm_layers(a);
	struct layer one = {0};
	if (n_attn > 0) {
		attn_block(x, n, n, false, &one);
		add_layer(L, &one, n_attn / layers);
	}
	if (n_ssm > 0) {
		one = (struct layer){0};
		if (a->sconv_kernel)
			short_conv_block(x, n, &one);
		else
			ssm_block(x, n, &one);
		add_layer(L, &one, n_ssm / layers);
	}
	if (a->blocks) {
		/* nemotron_h: the MLP blocks are the only feed-forwards, each after a norm of its own */
		double n_mlp = (double)sl_arch_mlp_blocks(a);
		if (n_mlp > 0 && a->intermediate) {
			struct sl_arch mlp = *a;
			mlp.norms = 2;
			struct ctx mx = *x;
			mx.a = &mlp;
			one = (struct layer){0};
			ffn_block(&mx, n, &one);
			add_layer(L, &one, n_mlp / layers);
		}
		return;
	}
	if (n_moe > 0) {
		one = (struct layer){0};
		moe_block(x, n, &one);
		add_layer(L, &one, n_moe / layers);
	}
	if (n_moe < layers && (a->intermediate || a->dense_ffn)) {
		/* the dense layers' feed-forward: the same block over a dense arch of their width */
		struct sl_arch dense = *a;
		dense.experts = 0;
		dense.intermediate = a->experts && a->dense_ffn ? a->dense_ffn : a->intermediate;
		struct ctx dx = *x;
		dx.a = &dense;
		dx.I = dense.intermediate;
		one = (struct layer){0};
		ffn_block(&dx, n, &one);
		add_layer(L, &one, (layers - n_moe) / layers);
	}
}

/* Layer input a checkpointed layer keeps (reentrant torch.utils.checkpoint). */
static double ckpt_input(const struct ctx *x, double n)
{
	return n * x->h * x->nb;
}

/* Matmul parameters of the layers (+ LM head): what autocast casts and bitsandbytes quantises. */
static double matmul_params(const struct sl_arch *a, bool lm_head, double *per_layer)
{
	double h = a->hidden;
	uint64_t attn_u, ffn_u;
	sl_arch_layer_matmuls(a, &attn_u, &ffn_u);
	double attn = (double)attn_u, ffn = (double)ffn_u;
	/* albert: the shared layer's weights once */
	double enc = (a->param_layers ? a->param_layers : a->layers) * (attn + ffn), dec = 0;
	if (a->kind == SL_ARCH_ENCDEC && !a->enc_only)
		dec = (a->dec_layers ? a->dec_layers : a->layers) * (2 * attn + ffn);
	if (per_layer)
		*per_layer = a->kind == SL_ARCH_ENCDEC ? 2 * attn + ffn : attn + ffn;
	return enc + dec + (lm_head ? (double)a->vocab * h : 0);
}

/* in x out summed over one layer's target linears (q, v when none are given) */
static double target_weights(const struct sl_arch *a, uint32_t t)
{
	double h = a->hidden, q = a->heads * dim_head(a), kv = (a->kv_heads ? a->kv_heads : a->heads) * dim_head(a);
	double I = a->intermediate;
	if (!t)
		t = SL_LORA_Q | SL_LORA_V;
	double w = ((t & SL_LORA_Q) ? h * q : 0) + ((t & SL_LORA_K) ? h * kv : 0) + ((t & SL_LORA_V) ? h * kv : 0) +
		   ((t & SL_LORA_O) ? q * h : 0) + ((t & SL_LORA_UP) ? h * I : 0) + ((t & SL_LORA_DOWN) ? I * h : 0);
	return w + ((a->gated_ffn && (t & SL_LORA_GATE)) ? h * I : 0);
}

/* Embedding parameters (word + positions + token types): gathered, not multiplied. */
static double embedding_params(const struct sl_arch *a)
{
	double E = a->emb_dim ? a->emb_dim : a->hidden;
	double pos = a->max_pos && !t5_like(a->family) && !llama_like(a) ? a->max_pos : 0;
	return ((double)a->vocab + pos + a->type_vocab) * E;
}

/* Adafactor's factored second moment: rows + columns per matrix, full vectors. */
static double adafactor_elems(const struct sl_arch *a, double P)
{
	double h = a->hidden, q = a->heads * dim_head(a);
	double kv = (a->kv_heads ? a->kv_heads : a->heads) * dim_head(a), I = a->intermediate;
	double attn = (h + q) * 2 + (h + kv) * 2;
	double ffn = (a->gated_ffn ? 3.0 : 2.0) * (h + I);
	double L = a->layers, D = a->kind == SL_ARCH_ENCDEC ? (a->dec_layers ? a->dec_layers : a->layers) : 0;
	double mats = matmul_params(a, false, NULL) + embedding_params(a);
	double factored = L * (attn + ffn) + D * (2 * attn + ffn) + (double)a->vocab + h;
	double vectors = P > mats ? P - mats : 0;
	return factored + vectors;
}

static bool has_vocab_logits(const struct sl_arch *a, enum sl_task t)
{
	switch (t) {
	case SL_TASK_MLM:
	case SL_TASK_CAUSAL_LM:
	case SL_TASK_SEQ2SEQ:
		return a->vocab > 0;
	default:
		return false;
	}
}

struct acts {
	double saved;       /* at the start of backward */
	double attn;        /* attention part of saved */
	double recompute;   /* GC: one layer's activations rebuilt during backward */
	double transient;   /* one layer's backward */
	double logits_fwd;  /* logits + loss at the end of forward */
	double logits_bwd;  /* loss gradients at the start of backward */
	double frozen_ws;   /* a frozen layer's no-grad forward working set (end of forward) */
};

/* What activations() needs per sequence at one length pair: everything but the batch. */
struct per_len {
	double n, t;        /* the lengths it holds */
	double saved;       /* body + once: kept for backward per sequence */
	double attn;        /* of which attention (0 under checkpointing) */
	double recompute;   /* GC: the larger layer rebuilt in backward */
	double tr;          /* one layer's backward transients */
	double out_tokens;  /* tokens the head sees */
	bool vocab;         /* logits over the vocabulary */
	double logit_b;     /* their bytes per element: logits, float32 copy, log_softmax */
	double logit_bwd_b; /* per element at the start of backward */
	double flce;        /* Liger fused linear cross-entropy: bytes per output token instead of the logits */
	double frozen_ws;   /* a frozen layer's no-grad forward working set */
};

static double nograd_layer(const struct ctx *x, double n);
/*
 * The logits of a preference or RL loss computed outside the model (s->logit_loss: enum
 * sl_algo_loss, src/memory/algo_table.h): TRL's selective_log_softmax over the model's output
 * (trl/trainer/utils.py @ f2cd577). Under mixed precision accelerate's prepared forward returns the
 * outputs converted to float32 (accelerator.py prepare_model: convert_outputs_to_fp32 @ 16cb6eb), so
 * the 16-bit logits live only while the copy is made. accelerate wraps the forward so only when its
 * native_amp is on, which Accelerator.__init__ leaves off under DeepSpeed (accelerator.py @ 00093722:
 * "distributed_type not in (DEEPSPEED, MEGATRON_LM)"); DeepSpeed's engine runs the module cast to 16
 * bits (x->autocast false), and transformers >= 4.46 returns the logits in the head's dtype
 * (modeling_llama.py @ 5dd4a635: "do not upcast them to float if we are not computing the loss"): the
 * loss sees 16-bit logits there. Float32 logits go through logsumexp per row,
 * which keeps them for backward (4 B), 16-bit ones through a log_softmax per row, which keeps its
 * output beside the logits (2 × 2 B). A reference forward inside the step (DPO, KTO) keeps its
 * logits to the end of the loss. ORPO and CPO add a cross-entropy over the chosen half: a contiguous
 * shifted copy and its log-softmax (2 B or 4 B each over half the sequences). Backward: the gathered
 * log-probs' gradient scattered over the vocabulary, the rows' gradients stacked and their sum:
 * three tensors of the logits' size (the causal LM loss's 12 B under mixed precision). PPO keeps the
 * logits of every position and takes the response's slice (SL_ALOSS_RESPONSE).
 */
static void rl_logit_bytes(const struct ctx *x, struct per_len *P)
{
	const struct sl_settings *s = x->s;
	bool mixed = x->autocast;            /* accelerate's autocast and float32 outputs: not under DeepSpeed */
	double ob = mixed ? 4 : x->wb;       /* the logits as the loss sees them */
	double conv = mixed ? x->ab : 0;     /* the 16-bit logits while they are converted */
	double kept = ob >= 4 ? ob : 2 * ob; /* what selective_log_softmax keeps */
	P->logit_b = kept + conv + (s->ref_logits ? ob : 0);
	P->logit_bwd_b = 3 * ob;
	if (s->logit_loss == SL_ALOSS_NLL) {
		P->logit_b += ob; /* (copy + log-softmax) × half the sequences */
		P->logit_bwd_b += ob;
	} else if (s->logit_loss == SL_ALOSS_RESPONSE && P->out_tokens > 0) {
		/* PPO (trl/experimental/ppo/ppo_trainer.py): the logits of every position stay alive, the
		 * log-probs are the response's slice of them (its share f of the positions): in backward the
		 * slice's gradients (2 × f) and the whole logits' gradient the slice scatters into */
		double f = s->completion_len && (double)s->completion_len < P->out_tokens
				   ? (double)s->completion_len / P->out_tokens
				   : 1;
		P->logit_b = kept + conv;
		P->logit_bwd_b = ob + ob + 2 * f * ob;
	}
}

/* Activations of one sequence of n tokens (t decoder tokens): the terms that do not depend on the batch. */
static void activations_len(const struct ctx *x, double n, double t, struct per_len *P)
{
	const struct sl_arch *a = x->a;
	const struct sl_settings *s = x->s;
	bool gc = s->gradient_checkpointing;
	memset(P, 0, sizeof *P);
	P->n = n, P->t = t;

	struct layer enc = {0}, dec = {0};
	double L = x->L_train, D = 0;
	bool encdec = x->encdec;
	double n_out = n;
	n = sl_lf_tokens(a, n); /* longformer: every layer runs over the input padded to its window */
	if (a->kind == SL_ARCH_DECODER) {
		decoder_layer(x, n, &enc);
	} else {
		attn_block(x, n, n, false, &enc);
		ffn_block(x, n, &enc);
	}
	enc.saved += n * x->peft_tok;
	if (encdec) {
		D = x->D_train;
		attn_block(x, t, t, false, &dec);
		attn_block(x, t, n, true, &dec);
		ffn_block(x, t, &dec);
		dec.saved += t * x->peft_tok;
	}

	double body, attn;
	/* activation offloading (torchtune OffloadActivations): each saved tensor goes to the host as the
	 * forward makes it and comes back before its backward; on the device the layer being computed and
	 * the one in flight on the copy stream */
	double Lk = L, Dk = D;
	if (s->activation_offload) {
		Lk = L < 2 ? L : 2;
		Dk = encdec ? (D < 2 ? D : 2) : 0;
	}
	if (gc) {
		body = Lk * ckpt_input(x, n) + Dk * ckpt_input(x, t);
		attn = 0;
		P->recompute = Dk > 0 && dec.saved > enc.saved ? dec.saved : Lk > 0 ? enc.saved : 0;
	} else {
		body = Lk * enc.saved + Dk * dec.saved;
		attn = Lk * enc.attn + Dk * dec.attn;
	}
	P->tr = enc.transient > dec.transient ? enc.transient : dec.transient;
	if (L + D == 0)
		P->tr = 0; /* nothing trains below the head: no layer's backward runs */
	if (x->L_path > 0) {
		/* freeze tuning: frozen layers on the backward path run outside checkpointing and keep what a
		 * frozen layer keeps (no linear's input: its weight does not train) */
		struct ctx y = *x;
		y.train_w = y.train_norm = false;
		y.lora = 0, y.peft_tok = 0;
		struct layer fl = {0};
		decoder_layer(&y, n, &fl);
		body += x->L_path * fl.saved;
		attn += x->L_path * fl.attn;
		if (fl.transient > P->tr)
			P->tr = fl.transient;
	}
	/* a frozen layer's forward under no grad: its working set, freed as the next one starts */
	P->frozen_ws = x->frozen && (L + x->L_path < a->layers ||
				     (encdec && D < (a->dec_layers ? a->dec_layers : a->layers)))
			       ? nograd_layer(x, n)
			       : 0;

	/* once per model: embeddings (norm + dropout while they train), the
	 * attention mask, final norm, the head's input, the encoder output kept
	 * by every cross-attention k/v */
	double once = 0;
	if (x->full && !s->frozen_embeddings && !(x->frozen && s->frozen_layers) &&
	    !(x->freeze && !(s->freeze_extra & SL_FZX_EMBED))) {
		if (a->emb_norm)
			once += n * x->h * x->nb + (x->p_hidden > 0 ? n * x->h : 0);
		else if (x->p_hidden > 0)
			once += n * x->h;
	}
	if (a->family == SL_FAMILY_WHISPER) /* conv front end over 2 × 1500 mel frames: input, conv1 out, gelu out */
		once += 2 * n * (a->mel_bins * x->nb + 2 * x->h * x->ab);
	else
		once += a->family == SL_FAMILY_VIT || a->family == SL_FAMILY_LONGFORMER
				? 0 /* every image is all its patches: no mask; longformer's masks are (batch, n) */
				: n * n * (a->kind == SL_ARCH_DECODER ? 1 : x->nb); /* 4-D padding mask */
	if (a->final_norm && (L > 0 || D > 0))
		once += norm_saved(x, encdec ? t : n) + (encdec && L > 0 ? norm_saved(x, n) : 0);
	if (encdec) {
		once += t * t + t * n;               /* decoder masks */
		if (!x->amp && (x->train_w || (x->lora & (SL_LORA_K | SL_LORA_V))))
			once += n * x->h * x->nb;        /* encoder output, shared by all cross k/v */
	}

	P->out_tokens = encdec ? t : n_out; /* longformer cuts the padding off before its head */
	if (s->logit_tokens && (double)s->logit_tokens < P->out_tokens)
		P->out_tokens = (double)s->logit_tokens; /* TRL logits_to_keep: the completion's positions */
	/* a trainable head the program adds (head_params) keeps its input, one hidden-wide tensor per
	 * token at most (a pooled head keeps less) */
	if (s->head_params)
		once += P->out_tokens * x->h * x->ab;
	if (x->vocab) {
		P->vocab = true;
		if (x->train_head)
			once += P->out_tokens * x->h * (x->amp ? x->ab : x->nb); /* lm_head input */
		double lb = x->amp ? x->ab : x->wb;
		P->logit_b = lb + (lb < 4 ? 4 : 0) + 4;
		P->logit_bwd_b = 12;
		if (encdec && !x->autocast) {
			/* T5, mT5, BART, Pegasus: CrossEntropyLoss on the logits as they are (no .float(), unlike
			 * the causal LMs' ForCausalLMLoss): log_softmax keeps its output in the logits' dtype, and
			 * backward starts from it, its gradient and the logits'. Under autocast, over float32
			 * weights or 16-bit ones alike, the loss runs in float32 (pytorch aten/src/ATen/
			 * autocast_mode.h @ d70fe7f3: log_softmax in AT_FORALL_FP32_SET_OPT_DTYPE, nll_loss in
			 * AT_FORALL_FP32): the float32 terms as for the causal LMs */
			P->logit_b = 2 * lb;
			P->logit_bwd_b = 3 * lb;
		}
		if (s->liger) {
			/* LigerFusedLinearCrossEntropyFunction: the logits of one chunk of tokens at a time (chunks
			 * of about BT·h/V tokens: V·chunk ≈ BT·h elements, in the logits dtype and float32) and the
			 * hidden states' gradient, computed in the forward: per token h × (lb + 4 + 4 + lb) */
			P->vocab = false;
			P->flce = x->h * (2 * lb + 8);
		} else if (s->logit_loss) {
			rl_logit_bytes(x, P);
		} else if (s->chunked_ce) {
			/* torchtune CEWithChunkedOutputLoss: the logits stay whole in their dtype, the float32
			 * upcast and log-softmax run one chunk (of 8) at a time, and so does the gradient */
			P->logit_b = lb + 8.0 / 8;
			P->logit_bwd_b = lb + (8.0 + lb) / 8;
		}
	}
	P->saved = body + once;
	P->attn = attn;
}

/* Activations of one micro-batch of `seqs` sequences from the per-length terms; batch: the batch size setting. */
static void activations(const struct ctx *x, const struct per_len *P, double seqs, uint64_t batch, struct acts *A)
{
	const struct sl_arch *a = x->a;
	const struct sl_settings *s = x->s;
	memset(A, 0, sizeof *A);
	if (s->gradient_checkpointing)
		A->recompute = seqs * P->recompute;

	if (P->vocab) {
		double V = a->vocab;
		/* forward: logits, their float32 copy for the loss, log_softmax output */
		A->logits_fwd = seqs * P->out_tokens * V * P->logit_b;
		/* backward start: log_softmax output, its gradient, the logits' gradient
		 * (the Trainer has dropped the logits by then) */
		A->logits_bwd = seqs * P->out_tokens * V * P->logit_bwd_b;
	} else if (P->flce > 0) {
		A->logits_fwd = A->logits_bwd = seqs * P->out_tokens * P->flce;
	} else if (s->task == SL_TASK_BI_ENCODER) {
		/* in-batch negatives: b × b·(texts-1) similarity scores through cross-entropy; a pair or
		 * triplet loss scores each example alone (b × (texts-1)) */
		double b = (double)batch, texts = sl_settings_texts(s), k = texts > 1 ? texts - 1 : 1;
		double chunks = s->chunks_per_text > 1 ? s->chunks_per_text : 1;
		bool in_batch = s->loss == SL_LOSS_NONE || s->loss == SL_LOSS_IN_BATCH || s->loss == SL_LOSS_CACHED;
		double sim = (in_batch ? b : 1) * b * k * 12;
		A->logits_fwd = sim + b * (1 + k * chunks) * x->h * 4 * 2; /* + pooled embeddings and their grads */
		A->logits_bwd = A->logits_fwd;
	} else {
		double labels = s->task == SL_TASK_SEQ_CLS ? 1 : P->out_tokens;
		A->logits_fwd = A->logits_bwd = seqs * labels * 2 * 12;
	}

	A->saved = seqs * P->saved;
	A->attn = seqs * P->attn;
	A->transient = seqs * P->tr;
	A->frozen_ws = seqs * P->frozen_ws;
}

/*
 * How bitsandbytes keeps the states of a set of trainable tensors (bitsandbytes/optim/optimizer.py
 * init_state and get_state_buffer; rules/calibration.yaml bnb_*): q8, the share of the elements in
 * tensors of bnb_min_8bit_size elements and more (8-bit states under an 8-bit optimizer, float32
 * below); pg, the share in tensors of bnb_paged_min elements and more (a paged optimizer keeps their
 * states in CUDA managed memory).
 */
struct bnb_split {
	double q8, pg;
};

struct min_ctx {
	double r, min;
};

/* elements of one linear's weight (in × out) when the tensor has at least min */
static double linear_at_least(const void *ctx, double in, double out, bool ff)
{
	(void)ff;
	const struct min_ctx *m = ctx;
	return in * out >= m->min ? in * out : 0;
}

/* elements of one target's LoRA A (r × in) and B (out × r), each counted when it has at least min */
static double lora_at_least(const void *ctx, double in, double out, bool ff)
{
	(void)ff;
	const struct min_ctx *m = ctx;
	double A = m->r * in, B = m->r * out;
	return (A >= m->min ? A : 0) + (B >= m->min ? B : 0);
}

/* The share of a full fine-tune's parameters in tensors of at least min elements: the layers'
 * linears (each weight one tensor), the embeddings and an untied LM head; norms, biases and classifier
 * heads count as small. */
static double full_share(const struct sl_arch *a, enum sl_task task, double min)
{
	double P = (double)sl_arch_params_for_task(a, task);
	if (!(P > 0))
		return 0;
	struct min_ctx all = {0, 0}, big = {0, min};
	double lin = sl_arch_targets(a, SL_LORA_ALL, linear_at_least, &all, NULL);
	double n = lin > 0 ? matmul_params(a, false, NULL) * sl_arch_targets(a, SL_LORA_ALL, linear_at_least, &big,
									      NULL) / lin
			   : 0;
	double E = a->emb_dim ? a->emb_dim : a->hidden;
	double pos = a->max_pos && !t5_like(a->family) && !llama_like(a) ? a->max_pos : 0;
	double head = !a->tied && has_vocab_logits(a, task) ? (double)a->vocab * E : 0; /* an untied LM head */
	const double tensors[] = {(double)a->vocab * E, pos * E, (double)a->type_vocab * E, head};
	for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; i++)
		if (tensors[i] >= min)
			n += tensors[i];
	return n < P ? n / P : 1;
}

/* The split of the trainable parameters T of statics (modules_to_save apart) */
static struct bnb_split bnb_split_of(const struct sl_arch *a, const struct sl_settings *s, const struct sl_calib *c,
				     enum sl_peft pm)
{
	struct bnb_split sp = {1, 0}; /* the other PEFT methods: 8-bit states, nothing paged (on the device) */
	if (pm == SL_PEFT_NONE) {
		sp.q8 = full_share(a, s->task, (double)c->bnb_min_8bit_size);
		sp.pg = full_share(a, s->task, (double)c->bnb_paged_min);
	} else if (pm == SL_PEFT_LORA || pm == SL_PEFT_DORA) {
		uint32_t tgt = s->lora_targets ? s->lora_targets : (SL_LORA_Q | SL_LORA_V);
		double r = peft_rank(s);
		struct min_ctx all = {r, 0}, q8 = {r, (double)c->bnb_min_8bit_size}, pg = {r, (double)c->bnb_paged_min};
		double n = sl_arch_targets(a, tgt, lora_at_least, &all, NULL);
		if (n > 0) {
			sp.q8 = sl_arch_targets(a, tgt, lora_at_least, &q8, NULL) / n;
			sp.pg = sl_arch_targets(a, tgt, lora_at_least, &pg, NULL) / n;
		}
	}
	if (sp.pg > sp.q8)
		sp.pg = sp.q8; /* paged tensors are 8-bit ones (bnb_paged_min > bnb_min_8bit_size) */
	return sp;
}

/*
 * The optimizer's state bytes on the device for T trainable elements (sb: the state dtype of torch's
 * optimizers, the parameters'); a paged optimizer adds the states it keeps in CUDA managed memory
 * to *paged. bitsandbytes (8-bit names, every paged name): 8-bit states of 1 B per state and element
 * plus a float32 absmax per bnb_block elements and state, ordinary device tensors even when paged;
 * float32 states under bnb_min_8bit_size elements and for its 32-bit optimizers. transformers'
 * Trainer registers 32-bit overrides for nn.Embedding only when the optimizer class is named
 * "Adam8bit" (trainer.py create_optimizer), which its bitsandbytes optim values never are (they
 * build bnb.optim.AdamW / Lion with optim_bits=8): the embeddings have 8-bit states.
 */
static double optim_states(const struct sl_arch *a, const struct sl_settings *s, const struct sl_calib *c, double T,
			   double sb, double P, bool full, struct bnb_split sp, double *paged)
{
	double pg = s->optimizer_paged ? sp.pg * T : 0;
	switch (s->optimizer) {
	case SL_OPTIM_ADAMW:
		if (s->optimizer_paged) { /* bitsandbytes 32-bit: float32 states */
			*paged += 8 * pg;
			return 8 * (T - pg);
		}
		return 2 * sb * T;
	case SL_OPTIM_ADAMW_8BIT:
	case SL_OPTIM_LION_8BIT:
	case SL_OPTIM_ADEMAMIX_8BIT: {
		/* states per element: AdamW 2, Lion 1, AdEMAMix 3 (state1 a double buffer of the two EMAs,
		 * absmax1 (2, blocks): bitsandbytes/optim/ademamix.py init_state) */
		double n = s->optimizer == SL_OPTIM_LION_8BIT ? 1 : s->optimizer == SL_OPTIM_ADEMAMIX_8BIT ? 3 : 2;
		double q = sp.q8 * T;
		double absmax = n * 4 * q / (double)(c->bnb_block ? c->bnb_block : 1);
		*paged += n * pg;
		return n * (q - pg) + absmax + 4 * n * (T - q);
	}
	case SL_OPTIM_ADEMAMIX: /* bitsandbytes 32-bit: three float32 states whatever the parameter dtype */
		*paged += 12 * pg;
		return 12 * (T - pg);
	case SL_OPTIM_ADAFACTOR:
		return sb * (full ? adafactor_elems(a, P) : T);
	case SL_OPTIM_SGD:
		return 0;
	case SL_OPTIM_LION:
		if (s->optimizer_paged) {
			*paged += 4 * pg;
			return 4 * (T - pg);
		}
		return sb * T;
	case SL_OPTIM_SGD_MOMENTUM:
		return sb * T;
	default:
		return 2 * sb * T;
	}
}

/* Temporaries of the optimizer step (torch/optim/adamw.py @ 002d2f0b `adamw`): torch >= 2.0 runs the
 * foreach implementations on CUDA (one temporary per state list: _multi_tensor_adamw's
 * _foreach_sqrt(exp_avg_sqs)); fused=True one in-place kernel (_fused_adamw: torch._fused_adamw_, also
 * SGD's and Adagrad's fused kernels), none; foreach=False, torch < 2.0 and transformers' own AdamW a loop
 * over parameters (_single_tensor_adamw: exp_avg_sq.sqrt() and its quotient, two temporaries of the
 * largest tensor). */
static double optim_temp(const struct sl_arch *a, const struct sl_settings *s, double T, double sb)
{
	double big = (double)a->vocab * (a->emb_dim ? a->emb_dim : a->hidden);
	double ffn = (double)a->hidden * a->intermediate;
	if (big < ffn)
		big = ffn;
	if (big > T)
		big = T;
	if (s->optimizer_paged)
		return 0; /* bitsandbytes: one fused update kernel per parameter (update_step), no temporaries */
	if (s->optimizer_impl == SL_OPTIM_IMPL_FUSED &&
	    (s->optimizer == SL_OPTIM_ADAMW || s->optimizer == SL_OPTIM_SGD_MOMENTUM || s->optimizer == SL_OPTIM_SGD))
		return 0;
	if ((s->legacy_runtime || s->optimizer_impl == SL_OPTIM_IMPL_LOOP) && s->optimizer != SL_OPTIM_ADAFACTOR)
		return s->optimizer == SL_OPTIM_ADAMW || s->optimizer == SL_OPTIM_LION ? 2 * sb * big : 0;
	switch (s->optimizer) {
	case SL_OPTIM_ADAMW:
		return sb * T;          /* _foreach_sqrt(exp_avg_sq) */
	case SL_OPTIM_LION:
		return 2 * sb * T;      /* _foreach_lerp + sign */
	case SL_OPTIM_ADAFACTOR:
		return 3 * 4 * big; /* per-parameter update temporaries */
	default:
		return 0;
	}
}

static uint64_t u64(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 1.8e19)
		return UINT64_MAX;
	if (v < 4503599627370496.0) {
		/* below 2^52 this is llround without the call: v - trunc(v) is exact
		 * (signed conversions: one instruction each way) */
		int64_t i = (int64_t)v;
		return (uint64_t)i + (v - (double)i >= 0.5);
	}
	/* from 2^52 doubles are integers; from 2^63 llround's long long would overflow */
	return v >= 9223372036854775808.0 ? (uint64_t)v : (uint64_t)llround(v);
}

uint64_t sl_est_u64(double v)
{
	return u64(v);
}

double sl_est_workspace(const struct sl_gpu *gpu, double handles)
{
	return handles * (gpu && gpu->cc_major >= 9 ? CUBLAS_WS_SM90 : CUBLAS_WS);
}

double sl_est_optim_flat(const struct sl_settings *s, const struct sl_calib *c, double T, double sb, double *paged,
			 double *temp)
{
	struct sl_arch none;
	memset(&none, 0, sizeof none);
	double pg = 0;
	double o = optim_states(&none, s, c, T, sb, T, false, (struct bnb_split){1, 1}, &pg);
	if (paged)
		*paged = pg;
	if (temp)
		*temp = optim_temp(&none, s, T, sb);
	return o;
}

/* A byte total that saturates at UINT64_MAX instead of wrapping (terms may be saturated). */
static uint64_t sat_sum(const uint64_t *v, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t = v[i] > UINT64_MAX - t ? UINT64_MAX : t + v[i];
	return t;
}

struct statics {
	double P, T;
	double weights;     /* resident weights (incl. quantised base, adapters) */
	double copies;      /* autocast half copies of the matmul weights */
	double layer_copy;  /* of one layer */
	double grads;       /* gradients, resident size */
	double optim;       /* optimizer states on the device */
	double paged;       /* a paged optimizer's states in CUDA managed memory (not on the device's books) */
	double opt_temp;
	double gather;      /* gathered parameters (ZeRO-3, FSDP) at the end of the forward and the start of the backward */
	double gather_layer; /* ... during one layer's backward */
	double gather_step; /* ... at the optimizer step */
	double comm;        /* communication buffers */
	double ctx;         /* CUDA context */
	double ws;          /* cuBLAS workspaces */
	bool grads_persist; /* gradients resident through forward/backward */
	bool grad_transient; /* ZeRO: a module's whole gradient exists until reduced into the partitions */
	double first_grads; /* gradients allocated at the start of backward (LM head) */
	double layer_grads;
	double dequant;     /* a quantised layer's weight dequantised for its matmul */
	/* FSDP outside the step (0: not modelled): the whole model on the GPU before wrapping and the unit
	 * FSDP flattens next (fsdp_init device); the parameters gathered for the checkpoint (fsdp_state_dict) */
	double load_weights, load_unit, save_gather;
};

/*
 * FSDP (torch.distributed.fsdp, docs/memory-model.md "FSDP"). Each unit (a decoder block under
 * auto-wrap; the rest of the model — embeddings, final norm, head — is the root unit; without a
 * wrap policy the whole model is one unit) keeps 1/F of its flat parameter, gradient and optimizer
 * state, F the shard group: the world (full_shard, shard_grad_op), one node (the hybrid
 * strategies), 1 (no_shard, and every strategy at world size 1: _init_core_state clamps it to
 * NO_SHARD). Parameters stay in their own dtype — pure 16-bit FSDP keeps no float32 master — except
 * that accelerate (HF Trainer) upcasts trainable low-precision flat parameters to float32 when
 * mixed precision is on; MixedPrecision(param_dtype) then computes in 16 bits. A unit's full
 * parameters are all-gathered in the compute dtype for its forward and again for its backward:
 * full_shard frees them after each (the root unit only after the backward), with the next unit
 * prefetched (backward_prefetch BACKWARD_PRE, limit_all_gathers: two in flight); shard_grad_op keeps
 * them from the forward to the backward. Under no_shard with mixed precision the low-precision copy
 * of a unit lives the same way. Gradients are computed whole per unit in the compute dtype and
 * reduce-scattered into the shard (the per-layer gradient transient of the phases); CPU offload
 * keeps shards, gradients and the optimizer step on the host.
 */
static void fsdp_statics(const struct ctx *x, struct statics *S, double base, double adapters, double Tm, bool full,
			 const struct bnb_split *sp, const struct bnb_split *spm, double *gbp)
{
	const struct sl_arch *a = x->a;
	const struct sl_settings *s = x->s;
	double N = s->num_gpus ? s->num_gpus : 1;
	double F = N;
	if (s->fsdp == SL_FSDP_NO_SHARD)
		F = 1;
	else if ((s->fsdp == SL_FSDP_HYBRID_SHARD || s->fsdp == SL_FSDP_HYBRID_SHARD_ZERO2) && s->gpus_per_node &&
		 s->gpus_per_node < N)
		F = s->gpus_per_node;
	double P = S->P, T = S->T - Tm;
	double pb = x->pb;
	bool mixed = s->amp != SL_AMP_OFF;
	/* trainable parameters: accelerate's upcast under mixed precision, the framework's (upcast_trainable) */
	double tb = mixed || upcast(s) ? 4 : pb;
	double cb = x->wb;           /* the compute dtype the units are gathered in */
	double per_layer = 0;
	double Mq = matmul_params(a, false, &per_layer);
	double root = P > Mq ? P - Mq : 0;

	/* the shards: a full fine-tune's parameters in tb; LoRA's frozen base as loaded, its adapters float32 */
	double W = full ? tb * P : base + adapters + tb * Tm;
	double G = full ? tb * T : 4 * T + tb * Tm;
	double paged = 0;
	double states = optim_states(a, s, x->c, T / F, full ? tb : 4, P / F, full, *sp, &paged) +
			(Tm > 0 ? optim_states(a, s, x->c, Tm / F, tb, P / F, false, *spm, &paged) : 0);
	if (s->fsdp_offload) {
		S->weights = S->grads = S->optim = S->opt_temp = 0;
	} else {
		S->weights = W / F;
		S->grads = G / F;
		S->optim = states;
		S->paged = paged;
		S->opt_temp = optim_temp(a, s, (T + Tm) / F, full ? tb : 4);
	}
	/*
	 * Gradient accumulation through accelerate (Accelerator.accumulate / the HF Trainer: no_sync on every
	 * micro-batch but the last) and Lightning (_FSDPBackwardSyncControl.no_backward_sync: module.no_sync())
	 * runs the micro-batches under FSDP.no_sync(): each unit keeps its whole (unsharded) gradient in the
	 * compute dtype until the synchronising micro-batch reduce-scatters it. With the adapters inside
	 * the blocks' units (fsdp_orig_params) that gradient covers the frozen weights of every block too:
	 * the whole model once more on every rank (Lightning-AI/litgpt finetune/lora.py @ 8641822: 22.18 GB
	 * for Llama-2-7B on 2 A100s where a single GPU needed 21.30 GB). Unaccumulated, the unit's gradient
	 * is reduce-scattered into a shard of the parameters' dtype that stays until zero_grad.
	 */
	double frozen = fsdp_mixed_units(s) ? Mq + (double)sl_arch_norm_params(a) : 0;
	if (s->grad_accum > 1 && F > 1) {
		S->grads += (full ? cb : x->lora_b) * T + cb * Tm + cb * frozen;
	} else if (frozen > 0 && !s->fsdp_offload) {
		S->grads += pb * frozen / F;
	}
	if (frozen > 0) /* a block's gradient before its reduce-scatter, in the compute dtype */
		S->layer_grads = cb * per_layer;

	/* the gathered units in the compute dtype (a quantised base is gathered as stored) */
	double gb_w = s->quant != SL_QUANT_NONE ? (full ? cb : W / (P > 0 ? P : 1)) : cb;
	bool sharded = F > 1 || s->fsdp_offload;
	double gather = 0;
	if (sharded || cb < tb) {
		bool keep = sharded && (s->fsdp == SL_FSDP_SHARD_GRAD_OP || s->fsdp == SL_FSDP_HYBRID_SHARD_ZERO2);
		if (s->fsdp_no_wrap || keep)
			gather = gb_w * P;
		else if (s->fsdp_embed_units) {
			/* the embeddings and the head are units of their own (torchtune custom_sharded_layers:
			 * [tok_embeddings, output]), resharded after their forward like a block: the root keeps only
			 * the norms, and the backward starts with the head gathered next to the last block */
			double E = (double)a->vocab * a->hidden, small = root > 2 * E ? root - 2 * E : 0;
			gather = gb_w * (small + (E > per_layer ? E : per_layer) + per_layer);
		} else
			gather = gb_w * (root + 2 * per_layer);
	}
	S->gather = gather;
	S->comm = 0; /* the process group's NCCL memory is outside the allocator: with the context (statics) */
	*gbp = full ? cb : 4;

	/*
	 * The load peak (docs/memory-model.md "FSDP load and save peaks"). FSDP1 wraps bottom-up: each unit's
	 * parameters are moved to (or materialised on) the GPU, concatenated into a flat parameter
	 * (FlatParamHandle.flatten_tensors: torch.cat, a second copy of the unit), sharded (_get_shard clones
	 * the rank's chunk) and the unsharded flat storage freed (torch/distributed/fsdp/_init_utils.py
	 * _init_param_handle_from_module, _flat_param.py @ v2.5.0). A model built or loaded on the CPU or the
	 * meta device therefore never holds more than a unit or two on the GPU while it loads; one already on
	 * the GPU (fsdp_init device) holds all of it, as loaded, plus the unit being flattened.
	 */
	double pw = s->quant != SL_QUANT_NONE ? base / (P > 0 ? P : 1) : pb; /* a parameter as loaded */
	if (s->fsdp_init == SL_FSDP_INIT_DEVICE) {
		S->load_weights = base + adapters + pb * Tm;
		S->load_unit = pw * (root > per_layer ? root : per_layer);
	}
	/*
	 * The save peak. FULL_STATE_DICT unshards each unit in its parameters' own precision (no mixed
	 * precision: _unshard_fsdp_state_params) and clones its tensors (_full_post_state_dict_hook); with
	 * offload_to_cpu=True, rank0_only=True — what accelerate's FullyShardedDataParallelPlugin, the HF
	 * Trainer and Lightning's _get_full_state_dict_context configure — each clone goes to the host and
	 * the unit is resharded before the next: the root unit (unsharded first, resharded last) and one
	 * block on the GPU. SHARDED_STATE_DICT converts a unit at a time the same way. torch's own
	 * FullStateDictConfig() defaults (offload_to_cpu=False) keep every clone on the GPU: the whole model.
	 * Saved after the optimizer step and zero_grad: shards and optimizer states, no gradients.
	 */
	if (s->fsdp_state_dict == SL_FSDP_SD_FULL_DEVICE)
		S->save_gather = full ? tb * P : base + adapters + tb * Tm;
	else if (s->fsdp_state_dict != SL_FSDP_SD_NONE && sharded)
		S->save_gather = (full ? tb : pw) * (root + per_layer);
}

/*
 * The model as DeepSpeed ZeRO traces it (src/memory/zero.c): the head (V·h, the tied embedding's
 * weight when tied), an untied input embedding, one layer's parameters (what is left over the
 * layers of both stacks), the largest module of a layer and the largest trainable parameter.
 */
static void zero_shape(const struct sl_arch *a, const struct sl_settings *s, double P, double T, double wb,
		       double Tm, struct sl_zero_shape *z)
{
	bool lm = has_vocab_logits(a, s->task);
	double vh = (double)a->vocab * a->hidden;
	double E = embedding_params(a);
	double L = a->layers + (a->kind == SL_ARCH_ENCDEC && !a->enc_only ? (a->dec_layers ? a->dec_layers : a->layers)
									  : 0);
	double head = lm ? vh : 0;
	double embed = lm && a->tied ? (E > vh ? E - vh : 0) : E;
	double rest = P - E - (lm && !a->tied ? vh : 0);
	struct sl_arch nv = *a; /* the largest module of a layer: the largest module without the vocabulary */
	nv.vocab = 0;
	nv.tied = true;
	double unit = (double)sl_arch_largest_layer(&nv);
	bool full = peft_of(s) == SL_PEFT_NONE;
	*z = (struct sl_zero_shape){
		.stage = s->zero_stage,
		.N = s->num_gpus ? s->num_gpus : 1,
		.wb = wb,
		.mixed = wb == 2,
		.offload = s->offload != SL_OFFLOAD_NONE,
		.gc = s->gradient_checkpointing,
		.T = T,
		.head = head,
		.tied = lm && a->tied,
		.embed = embed,
		.layer = L > 0 && rest > 0 ? rest / L : 0,
		.layers = L,
		.unit = unit,
		.largest = full ? (double)sl_arch_largest_layer(a) : Tm > 0 ? vh : 0,
		.hidden = a->hidden,
	};
}

static void statics(const struct ctx *x, const struct sl_gpu *gpu, struct statics *S)
{
	const struct sl_arch *a = x->a;
	const struct sl_settings *s = x->s;
	const struct sl_calib *c = x->c;
	memset(S, 0, sizeof *S);
	enum sl_task task = s->task;
	/* the part that runs (AutoModel, an encoder alone); a full fine-tune's head the program adds
	 * (head_params) is one more trainable module, a PEFT run's trains in full next to the adapter */
	double P = (double)sl_arch_params_for_part(a, task, s->part);
	enum sl_peft pm = peft_of(s);
	bool full = pm == SL_PEFT_NONE;
	double head = (double)s->head_params;
	if (full)
		P += head;
	double T = full ? P : (double)sl_arch_peft_params(a, pm, peft_rank(s), s->lora_targets, s->num_virtual_tokens);
	if (full && x->frozen)
		T = x->freeze ? x->T_freeze
			      : P - (double)sl_arch_frozen_params(a, task, s->part, s->frozen_layers, s->frozen_embeddings);
	/* a vision tower and its projector frozen (LLaMA-Factory's default; docs/memory-model.md "What
	 * trains"): no gradients or states; a trained projector beside a frozen tower counts the whole vision
	 * part as trainable (an upper bound); freeze tuning's count has no vision part anyway */
	if (full && !x->freeze && s->freeze_vision && s->freeze_projector && s->mode == SL_MODE_TRAIN &&
	    s->frozen_layers != SL_FROZEN_BACKBONE) {
		double v = (double)sl_arch_vision_params(a);
		T -= v < T ? v : T;
	}
	double N = s->num_gpus ? s->num_gpus : 1;
	double pb = x->pb;
	bool lm = x->vocab;
	double per_layer = 0;
	double Mcast = matmul_params(a, lm, NULL);
	if (x->frozen) {
		/* autocast caches (and autograd keeps) the half copy of a weight only for the layers above
		 * the frozen ones (autocast_mode.h cached_cast: arg.requires_grad()); a frozen layer's copy
		 * lives while it runs (layer_copy below) */
		uint64_t at, ff;
		sl_arch_layer_matmuls(a, &at, &ff);
		Mcast = x->L_train * (double)(at + ff) + x->D_train * (double)(2 * at + ff) +
			(lm && x->train_head ? (double)a->vocab * a->hidden : 0);
	}
	S->P = P, S->T = T;

	/* weights. A quantised base quantises the layers' linears only: bitsandbytes keeps the output
	 * embedding (get_keys_to_not_convert), GPTQ/AWQ the lm_head. The rest (embeddings, norms, the
	 * head) stays in the load dtype, and for bitsandbytes peft's prepare_model_for_kbit_training
	 * (called by TRL, the Qwen and PEFT QLoRA scripts) casts every non-Params4bit fp16/bf16
	 * parameter to float32 — AWQ too (its packed tensors are buffers); GPTQ is skipped there. */
	double base, rest_b = pb;
	double Mq = matmul_params(a, false, &per_layer);
	if (s->quant == SL_QUANT_NONE) {
		/* a full fine-tune's trainable parameters in pb, the frozen ones (and a PEFT base) as loaded */
		base = full ? pb * T + x->frozen_b * (P - T) : x->frozen_b * P;
	} else {
		if (s->quant != SL_QUANT_GPTQ && !s->kbit_prepare_off)
			rest_b = 4;
		if (s->zero_stage > 0 && s->fsdp == SL_FSDP_NONE && (s->amp != SL_AMP_OFF || pb == 2))
			rest_b = 2; /* DeepSpeed casts the module (the upcast norms and embeddings too) to 16 bits */
		base = quant_bytes(s->quant) * Mq + rest_b * (P > Mq ? P - Mq : 0);
		/* one layer's weight dequantised to the compute dtype while its matmul runs */
		S->dequant = 2 * (double)a->hidden * (a->intermediate > a->hidden ? a->intermediate : a->hidden);
	}
	double adapters = full ? 0 : 4 * T; /* PEFT keeps adapters in float32 */
	/* a method of rules/peft.yaml: the frozen buffers it adds (projections, SVD factors), what it keeps
	 * per trainable parameter (AdaLoRA's importance scores) and its weights kept for backward */
	const struct sl_peft_def *pd = sl_peft_def_of(pm);
	struct sl_peft_sizes pz = {0};
	if (pd) {
		sl_peft_sizes(a, pd, s->lora_r, s->lora_targets, x->wb, NULL, &pz);
		adapters += pz.buffers + pd->state * T;
	}
	/* modules_to_save: a trainable copy of the embedding / LM head next to the frozen original,
	 * in the dtype the original has when PEFT wraps it (ModulesToSaveWrapper deep-copies it) */
	double Tm = full ? 0 : head;
	if (!full && s->modules_to_save) {
		double vh = (double)a->vocab * a->hidden;
		if (s->modules_to_save & SL_MTS_EMBED)
			Tm += vh;
		if (s->modules_to_save & SL_MTS_HEAD)
			Tm += vh;
	}
	double mb = upcast(s) ? 4 : rest_b; /* a trainable copy: float32 where the framework upcasts it */
	double gb = full ? pb : 4;          /* gradient = parameter dtype */
	double sb = gb;                     /* torch optimizer states follow the parameter dtype */

	S->grads_persist = (s->legacy_runtime || s->grad_accum > 1) && !s->optimizer_in_backward;
	S->T = T + Tm;
	/* the split is bitsandbytes' (8-bit and paged states): torch's optimizers never read it */
	bool bnb = s->optimizer_paged || s->optimizer == SL_OPTIM_ADAMW_8BIT || s->optimizer == SL_OPTIM_LION_8BIT ||
		   s->optimizer == SL_OPTIM_ADEMAMIX_8BIT;
	struct bnb_split sp = bnb ? bnb_split_of(a, s, c, pm) : (struct bnb_split){1, 0};
	double vh = (double)a->vocab * a->hidden; /* a modules_to_save copy: one tensor */
	struct bnb_split spm = {vh >= (double)c->bnb_min_8bit_size, vh >= (double)c->bnb_paged_min};
	if (s->fsdp != SL_FSDP_NONE) {
		fsdp_statics(x, S, base, adapters, Tm, full, &sp, &spm, &gb);
	} else if (s->zero_stage == 0) {
		S->weights = base + adapters + mb * Tm;
		if (x->amp && s->quant == SL_QUANT_NONE) {
			S->copies = 2 * Mcast;
			S->layer_copy = 2 * per_layer;
		}
		/* a prepared bitsandbytes base under autocast: its float32 head (bitsandbytes keeps the output
		 * embedding, prepare_model_for_kbit_training upcasts it) is cast to half for its matmul and the
		 * copy kept for the backward */
		if (x->kbit32 && x->amp && lm)
			S->copies += 2 * (double)a->vocab * a->hidden;
		if (pm == SL_PEFT_LOHA || pm == SL_PEFT_BOFT) {
			/* the delta (LoHa) or rotated (BOFT) weight of each target, float32, kept by its matmul; OFT
			 * rotates the input instead (OFTRotationModule: an einsum over in/r blocks keeps the input) */
			double w = 4 * target_weights(a, s->lora_targets);
			S->copies += a->layers * w;
			S->layer_copy += w;
		}
		if (pd) { /* materialised weights or deltas (FourierFT, HiRA, OSF, ...): the row's keeps_weight */
			S->copies += a->layers * pz.keeps_weight;
			S->layer_copy += pz.keeps_weight;
		}
		S->grads = gb * T + mb * Tm;
		S->optim = optim_states(a, s, c, T, sb, P, full && !x->frozen, sp, &S->paged) +
			   (Tm > 0 ? optim_states(a, s, c, Tm, mb, P, false, spm, &S->paged) : 0);
		S->opt_temp = optim_temp(a, s, T + Tm, sb > mb ? sb : mb);
		if (s->optimizer_in_backward) {
			/* torchtune optimizer_in_bwd: a post-accumulate-grad hook steps each parameter and frees
			 * its gradient, so only the parameter being stepped has one, with that step's temporaries */
			double big = (double)sl_arch_largest_layer(a);
			if (big > T + Tm)
				big = T + Tm;
			S->grads = gb * big;
			S->opt_temp = (sb > mb ? sb : mb) * big;
		}
		if (N > 1)
			S->comm = gb * T + (double)c->nccl_buffer; /* DDP gradient buckets */
	} else {
		/* DeepSpeed: the model in half under fp16/bf16, a float32 master partition and the
		 * optimizer's float32 states (docs/memory-model.md "ZeRO"); the gradient partitions in the
		 * model dtype, made float32 one sub-group at a time at the step (src/memory/zero.c) */
		bool mixed = s->amp != SL_AMP_OFF || pb == 2;
		double wb = mixed ? 2 : 4;
		/* a paged client optimizer's states are counted on the device here (docs/memory-model.md) */
		struct sl_settings unpaged = *s;
		unpaged.optimizer_paged = false;
		double unused = 0;
		double ob = optim_states(a, &unpaged, c, T + Tm, 4, P, full, sp, &unused) + (mixed ? 4 : 0) * (T + Tm);
		double wfull = s->quant == SL_QUANT_NONE ? wb * P : base;
		S->weights = (s->zero_stage >= 3 ? wfull / N : wfull) + adapters + wb * Tm;
		if (s->zero_stage >= 3 && s->offload == SL_OFFLOAD_ALL)
			S->weights = adapters;
		S->grads = s->zero_stage >= 2 ? wb * (T + Tm) / N : wb * (T + Tm);
		if (s->zero_stage >= 2 && s->offload != SL_OFFLOAD_NONE)
			S->grads = 0; /* reduced straight into the host partition */
		S->optim = s->offload != SL_OFFLOAD_NONE ? 0 : ob / N;
		/* gathered parameters, buckets and the step's transients (FusedAdam / DeepSpeedCPUAdam update in
		 * place): src/memory/zero.c */
		struct sl_zero_shape z;
		zero_shape(a, s, P, T + Tm, wb, Tm, &z);
		struct sl_zero_terms zt;
		sl_zero_terms(&z, c, &zt);
		S->opt_temp = zt.step_temp;
		S->gather = zt.gather_fwd;
		S->gather_layer = zt.gather_layer;
		S->gather_step = 0; /* stage3.py step(): _partition_all_parameters first */
		/* DeepSpeed initialises torch.distributed at every world size and its optimizers run
		 * collectives at one rank too (stage3.py _setup_for_real_optimizer: dist.barrier(); the
		 * overflow and norm all_reduces): the NCCL communicator exists on one GPU as well */
		S->comm = zt.buckets + zt.offload_buf + (double)c->nccl_buffer;
		S->grads_persist = true; /* DeepSpeed keeps its gradient partitions */
		S->grad_transient = true;
		gb = wb;
	}
	if (full && lm && x->train_head) {
		S->first_grads = gb * (double)a->vocab * a->hidden;
		S->layer_grads = x->L_train + x->D_train > 0 ? gb * per_layer : 0;
	}
	if (s->task == SL_TASK_BI_ENCODER && s->separate_encoders) {
		/* a query and a passage encoder with weights of their own (DPR, untie_encoder): every static
		 * term twice; each text still goes through one of them */
		S->P *= 2, S->T *= 2;
		S->weights *= 2, S->copies *= 2, S->grads *= 2, S->optim *= 2, S->paged *= 2, S->opt_temp *= 2;
	}

	if (s->zero_stage > 0 && s->fsdp == SL_FSDP_NONE) {
		S->gather_layer += S->dequant;
	} else {
		S->gather_layer = S->gather + S->dequant;
		S->gather_step = S->gather + S->dequant;
	}
	S->gather += S->dequant;
	S->ctx = (double)(s->legacy_runtime ? c->cuda_context_legacy : c->cuda_context);
	/* FSDP initialises an NCCL process group even at world size 1: its communicator's device memory
	 * is outside torch's allocator, like the context */
	if (s->fsdp != SL_FSDP_NONE)
		S->ctx += (double)c->nccl_buffer;
	bool hopper = gpu && gpu->cc_major >= 9;
	S->ws = 2 * (hopper ? CUBLAS_WS_SM90 : CUBLAS_WS);
}

static void fill(struct sl_breakdown *o, const struct statics *S, double copies, double grads, double acts,
		 double attn, double logits, double dyn, const struct sl_calib *c)
{
	memset(o, 0, sizeof *o);
	o->cuda_context = u64(S->ctx);
	o->workspace = u64(S->ws);
	o->weights = u64(S->weights + copies);
	o->gradients = u64(grads);
	o->optimizer = u64(S->optim);
	o->paged = u64(S->paged);
	o->activations = u64(acts);
	o->attention = u64(attn);
	o->logits = u64(logits);
	o->zero_gather = u64(S->gather + S->comm);
	o->slack = u64(c->slack_frac * dyn + (double)c->slack_min);
	o->dynamic = u64(dyn);
	o->total = sat_sum((const uint64_t[]){o->cuda_context, o->workspace, o->weights, o->gradients, o->optimizer,
					      o->activations, o->logits, o->zero_gather, o->slack}, 9);
	o->params = u64(S->P);
	o->trainable = u64(S->T);
	o->optimizer_states = u64(S->optim);
}

/*
 * A phase's terms that do not depend on the batch or the lengths: the sum
 * of its static terms (in the order the peak adds them) and their bytes.
 */
struct phase_fixed {
	double sum;         /* weights + copies + gradients + optimizer + gathered parameters and buckets */
	double copies, grads;
	uint64_t weights, gradients, optimizer, gather;
};

struct sl_estimate_plan {
	struct sl_settings s;   /* the prepared settings (ctx.s points here) */
	struct sl_arch arch;    /* the architecture as the run uses it (arch_of; ctx.a points here) */
	const struct sl_gpu *gpu;
	struct ctx x;
	struct statics S;
	struct phase_fixed ph[3]; /* end of forward, start of backward, one layer's backward */
	double op;                /* the optimizer step: all static */
	uint64_t op_optimizer;    /* its optimizer bytes, with the temporaries */
	uint64_t ctx_b, ws_b, gather_step_b, params_b, trainable_b, paged_b;
	uint64_t load_b, save_b;  /* the FSDP load and save phases' totals (0: not modelled) */
	bool have_len;          /* len holds the terms of one length pair */
	struct per_len len;
	bool have_qlen;         /* qlen: a bi-encoder's query length (query_len) */
	struct per_len qlen;
};

struct sl_estimate_plan *sl_estimate_plan_new(struct sl_arena *a)
{
	return sl_arena_alloc(a, sizeof(struct sl_estimate_plan));
}

static void phase_fixed(struct phase_fixed *ph, const struct statics *S, double copies, double grads, double sum,
			double gather)
{
	ph->sum = sum + gather;
	ph->copies = copies;
	ph->grads = grads;
	ph->weights = u64(S->weights + copies);
	ph->gradients = u64(grads);
	ph->optimizer = u64(S->optim);
	ph->gather = u64(gather);
}

/* The architecture as a run uses it: an encoder-decoder's encoder stack alone under part encoder. */
static const struct sl_arch *arch_of(const struct sl_arch *a, const struct sl_settings *s, struct sl_arch *copy)
{
	*copy = *a;
	if (s->part == SL_PART_ENCODER && a->kind == SL_ARCH_ENCDEC)
		copy->enc_only = true;
	if (a->family == SL_FAMILY_VIT) {
		/* the image size, head and input channels the program builds it with: the position table is
		 * (image / patch)^2 + 1 rows (timm img_size, torchvision image_size), the head Linear(h, classes),
		 * the patch conv in_chans -> h */
		if (s->image_size && a->vis_patch && s->image_size >= a->vis_patch) {
			copy->vis_image = s->image_size - s->image_size % a->vis_patch; /* the conv's stride drops the rest */
			copy->max_pos = sl_arch_vit_tokens(copy);
		}
		if (s->num_classes)
			copy->classes = s->num_classes;
		if (s->in_chans)
			copy->vis_chans = s->in_chans;
	}
	return copy;
}

void sl_estimate_prepare(struct sl_estimate_plan *p, const struct sl_arch *a, const struct sl_settings *s,
			 const struct sl_gpu *gpu, const struct sl_calib *c)
{
	p->s = *s;
	p->gpu = gpu;
	a = arch_of(a, s, &p->arch);
	ctx_init(&p->x, a, &p->s, c);
	statics(&p->x, gpu, &p->S);
	p->have_len = p->have_qlen = false;

	/* the phases of sl_estimate_at, their static parts summed in the same order */
	const struct statics *S = &p->S;
	bool gc = p->s.gradient_checkpointing;
	double G = S->grads_persist ? S->grads : 0;
	double copies_bwd = gc ? 0 : S->copies;
	/* the head's gradient at the start of the backward, a layer's during its backward: kept until the
	 * step without ZeRO, reduced into the partitions under it (the head's before a layer's) */
	bool whole = !S->grads_persist || S->grad_transient;
	double g_bwd = G + (whole ? S->first_grads : 0);
	double g_layer = G + (whole ? (S->grad_transient ? 0 : S->first_grads) + S->layer_grads : 0);
	double copies_layer = gc ? S->layer_copy : S->copies;
	phase_fixed(&p->ph[0], S, S->copies, G, S->weights + S->copies + G + S->optim, S->gather + S->comm);
	phase_fixed(&p->ph[1], S, copies_bwd, g_bwd, S->weights + copies_bwd + g_bwd + S->optim, S->gather + S->comm);
	phase_fixed(&p->ph[2], S, copies_layer, g_layer, S->weights + copies_layer + g_layer + S->optim,
		    S->gather_layer + S->comm);
	p->op = S->weights + S->grads + S->optim + S->opt_temp + S->gather_step + S->comm;
	p->op_optimizer = u64(S->optim + S->opt_temp);
	p->ctx_b = u64(S->ctx);
	p->ws_b = u64(S->ws);
	p->gather_step_b = u64(S->gather_step + S->comm);
	p->params_b = u64(S->P);
	p->trainable_b = u64(S->T);
	p->paged_b = u64(S->paged);
	/* the phases outside the step: static, with the allocator's floor */
	double floor = S->ctx + S->ws + (double)c->slack_min;
	p->load_b = S->load_weights > 0 ? u64(floor + S->load_weights + S->load_unit) : 0;
	p->save_b = S->save_gather > 0 ? u64(floor + S->weights + S->optim + S->save_gather) : 0;
}

/* Replaces the step's terms in out with those of a phase outside it (load or save) when it is larger. */
static void outside_phase(const struct sl_estimate_plan *p, struct sl_breakdown *out)
{
	const struct statics *S = &p->S;
	const struct sl_calib *c = p->x.c;
	out->load_total = p->load_b;
	out->save_total = p->save_b;
	bool load = p->load_b > out->total && p->load_b >= p->save_b;
	bool save = !load && p->save_b > out->total;
	if (!load && !save)
		return;
	out->gradients = out->activations = out->attention = out->logits = 0;
	out->slack = c->slack_min;
	out->dynamic = 0;
	if (load) {
		out->weights = u64(S->load_weights);
		out->optimizer = 0;
		out->zero_gather = u64(S->load_unit);
		out->phase = SL_PHASE_LOAD;
	} else {
		out->weights = u64(S->weights);
		out->optimizer = u64(S->optim);
		out->zero_gather = u64(S->save_gather);
		out->phase = SL_PHASE_SAVE;
	}
	out->total = sat_sum((const uint64_t[]){out->cuda_context, out->workspace, out->weights, out->gradients,
						out->optimizer, out->activations, out->logits, out->zero_gather,
						out->slack}, 9);
}

/*
 * The encoder and decoder lengths of a step. Whisper's encoder always sees its 1500 frames (30 s of
 * audio, 3000 mel frames through the stride-2 conv); the settings' length is the decoder's labels.
 */
static void step_lengths(const struct sl_arch *a, const struct sl_settings *s, double *n, double *t)
{
	*n = s->seq_len ? s->seq_len : 1;
	/* prompt tuning and P-tuning prepend their virtual tokens to every sequence */
	if (s->peft_method == SL_PEFT_PROMPT_TUNING || s->peft_method == SL_PEFT_P_TUNING)
		*n += s->num_virtual_tokens;
	*t = s->target_len ? s->target_len : *n;
	if (a->family == SL_FAMILY_VIT) /* every image is (image / patch)^2 patches and the class token */
		*n = *t = sl_arch_vit_tokens(a);
	if (a->family == SL_FAMILY_WHISPER && a->src_pos) {
		*t = s->target_len ? s->target_len : s->seq_len ? s->seq_len : (a->max_pos ? a->max_pos : 448);
		*n = a->src_pos;
	}
}

static void estimate_mode(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
			  const struct sl_calib *c, struct sl_breakdown *out);

void sl_estimate_at(struct sl_estimate_plan *p, const struct sl_settings *s, struct sl_breakdown *out)
{
	const struct ctx *xp = &p->x;
	const struct statics *S = &p->S;
	const struct sl_calib *c = xp->c;
	if (s->algorithm && s->mode == SL_MODE_TRAIN && !xp->a->modules) {
		/* preference and RL fine-tuning: the policy's step is this estimate again, over its sequences */
		sl_estimate_rl(xp->a, s, p->gpu, c, out);
		return;
	}
	if (xp->a->modules) {
		sl_estimate_custom(xp->a, s, p->gpu, c, s->mode, out);
		return;
	}
	if (s->mode != SL_MODE_TRAIN) {
		estimate_mode(xp->a, s, p->gpu, c, out);
		return;
	}

	double b = s->batch_size ? s->batch_size : 1;
	double n, t;
	step_lengths(xp->a, s, &n, &t);
	double seqs = b, queries = 0;
	if (p->s.task == SL_TASK_BI_ENCODER) {
		/* each example: a query, then texts - 1 passages, each split into chunks_per_text chunks
		 * (sentence-transformers encodes every text of the batch in one step); the query at its own
		 * length when query_len says */
		double texts = sl_settings_texts(&p->s), chunks = p->s.chunks_per_text > 1 ? p->s.chunks_per_text : 1;
		double passages = b * (texts > 1 ? texts - 1 : 1) * chunks;
		uint64_t mini = p->s.mini_batch_size;
		if (!mini && p->s.loss == SL_LOSS_CACHED)
			mini = 32; /* CachedMultipleNegativesRankingLoss(mini_batch_size=32) */
		if (mini && (double)mini < b + passages) {
			seqs = (double)mini; /* GradCache: activations of one mini-batch at a time, at the longer length */
		} else if (p->s.query_len && (double)p->s.query_len != n) {
			seqs = passages, queries = b;
		} else {
			seqs = b + passages;
		}
	}
	if (!p->have_len || p->len.n != n || p->len.t != t) {
		activations_len(xp, n, t, &p->len);
		p->have_len = true;
	}
	struct acts A;
	activations(xp, &p->len, seqs, s->batch_size, &A);
	if (queries > 0) {
		/* the queries' forward at their own length: its saved tensors add up; the transients of one
		 * layer's backward are the larger of the two batches' */
		double q = (double)p->s.query_len;
		if (!p->have_qlen || p->qlen.n != q) {
			activations_len(xp, q, q, &p->qlen);
			p->have_qlen = true;
		}
		struct acts Q;
		activations(xp, &p->qlen, queries, s->batch_size, &Q);
		A.saved += Q.saved, A.attn += Q.attn;
		A.transient = A.transient > Q.transient ? A.transient : Q.transient;
		A.recompute = A.recompute > Q.recompute ? A.recompute : Q.recompute;
		A.frozen_ws = A.frozen_ws > Q.frozen_ws ? A.frozen_ws : Q.frozen_ws;
	}

	/* end of forward: under checkpointing the cast cache is still alive; a frozen part's no-grad
	 * working set while it runs (counted with the forward) */
	double f_dyn = A.saved + A.logits_fwd + A.frozen_ws;
	double f = p->ph[0].sum + f_dyn;
	/* start of backward: the loss gradients on top of everything saved */
	double b_dyn = A.saved + A.logits_bwd;
	double bw = p->ph[1].sum + b_dyn;
	/* one layer's backward (the last layer: everything still saved) */
	double l_dyn = A.saved + A.recompute + A.transient;
	double l = p->ph[2].sum + l_dyn;
	/* optimizer step: static (its temporaries are reported with the optimizer) */
	double op = p->op;

	/*
	 * Phases are compared with their allocator slack (a share of each phase's
	 * dynamic bytes): comparing them without it and adding the winner's slack
	 * afterwards lets a bigger batch move the peak to a phase with less slack
	 * and report less memory. Each phase grows with the batch, so their max does.
	 */
	double k = c->slack_frac;
	const struct phase_fixed *ph = &p->ph[0];
	double peak = f + k * f_dyn, dyn = f_dyn, acts = A.saved + A.frozen_ws, logits = A.logits_fwd;
	int phase = SL_PHASE_FORWARD;
	/* at_phase: that phase rather than the largest (sl_estimate_rl adds a second model's at the same
	 * moment of the step) */
	int want = s->at_phase;
	if (want ? want == SL_AT_BACKWARD : bw + k * b_dyn > peak) {
		peak = bw + k * b_dyn, dyn = b_dyn, ph = &p->ph[1], phase = SL_PHASE_BACKWARD;
		logits = A.logits_bwd;
	}
	if (want ? want == SL_AT_LAYER_BACKWARD : l + k * l_dyn > peak) {
		peak = l + k * l_dyn, dyn = l_dyn, ph = &p->ph[2], phase = SL_PHASE_BACKWARD;
		acts = A.saved + A.recompute + A.transient, logits = 0;
	}
	memset(out, 0, sizeof *out);
	out->cuda_context = p->ctx_b;
	out->workspace = p->ws_b;
	out->params = p->params_b;
	out->trainable = p->trainable_b;
	out->paged = p->paged_b;
	if (want ? want == SL_AT_OPTIMIZER : op + k * S->opt_temp > peak) {
		dyn = S->opt_temp;
		phase = SL_PHASE_OPTIMIZER;
		out->weights = u64(S->weights + 0.0);
		out->gradients = u64(S->grads);
		out->optimizer = p->op_optimizer;
		out->zero_gather = p->gather_step_b;
		out->activations = out->attention = out->logits = 0;
	} else {
		out->zero_gather = ph->gather;
		out->weights = ph->weights;
		out->gradients = ph->gradients;
		out->optimizer = ph->optimizer;
		out->activations = u64(acts);
		out->attention = u64(A.attn);
		out->logits = u64(logits);
		out->frozen_ws = phase == SL_PHASE_FORWARD ? u64(A.frozen_ws) : 0;
	}
	out->slack = u64(c->slack_frac * dyn + (double)c->slack_min);
	out->dynamic = u64(dyn);
	out->total = sat_sum((const uint64_t[]){out->cuda_context, out->workspace, out->weights, out->gradients,
						out->optimizer, out->activations, out->logits, out->zero_gather,
						out->slack}, 9);
	out->phase = phase;
	out->optimizer_states = p->ph[0].optimizer;
	outside_phase(p, out);
}

void sl_estimate(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
		 const struct sl_calib *c, struct sl_breakdown *out)
{
	struct sl_estimate_plan p;
	sl_estimate_prepare(&p, a, s, gpu, c);
	sl_estimate_at(&p, s, out);
}

/*
 * One layer's forward working set under no_grad for one sequence of n
 * tokens: hidden states, the attention scores and probabilities (eager) or
 * the output (SDPA), the FFN.
 */
static double nograd_layer(const struct ctx *x, double n)
{
	const struct sl_arch *a = x->a;
	double hs = 3 * n * x->h * x->nb;
	double at = x->eager ? x->heads * n * n * (x->ab + x->sm_b) : x->ab * n * x->hq * 4;
	double mask = n * n * x->nb;
	if (a->family == SL_FAMILY_LONGFORMER) { /* n padded by the caller: the sliding window, no n x n mask */
		struct sl_lf_attn lf;
		lf_attention(x, n, &lf);
		at = lf.nograd;
		mask = 0;
	}
	double ffw = a->experts ? (a->top_k ? a->top_k : 1) * x->I + a->shared_ffn : x->I; /* MoE: routed width */
	double ff = (a->gated_ffn ? 3 : 2) * x->ab * n * ffw;
	return hs + (at > ff ? at : ff) + mask;
}

void sl_estimate_eval(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
		      const struct sl_calib *c, struct sl_breakdown *out)
{
	if (a->modules) {
		sl_estimate_custom(a, s, gpu, c, SL_MODE_EVAL, out);
		return;
	}
	struct sl_arch arch;
	a = arch_of(a, s, &arch);
	struct ctx x;
	ctx_init(&x, a, s, c);
	struct statics S;
	statics(&x, gpu, &S);
	S.ws /= 2; /* no autograd thread */

	double b = s->eval_batch_size ? s->eval_batch_size : (s->batch_size ? s->batch_size : 1);
	double n, t;
	step_lengths(a, s, &n, &t);
	if (s->task == SL_TASK_BI_ENCODER)
		t = n;
	bool encdec = x.encdec;
	double q = encdec ? t : n;

	double layer = nograd_layer(&x, sl_lf_tokens(a, n)); /* longformer: over the input padded to its window */
	double attn = x.eager ? b * x.heads * n * n * (x.ab + x.sm_b) : 0;
	if (a->family == SL_FAMILY_LONGFORMER) {
		struct sl_lf_attn lf;
		lf_attention(&x, sl_lf_tokens(a, n), &lf);
		attn = b * lf.nograd;
	}
	double kv = 0;
	if (a->kind == SL_ARCH_DECODER) /* use_cache=True keeps k, v of every layer (state.c) */
		kv = sl_arch_cache_bytes(a, n, x.ab, false);
	else if (encdec)
		kv = (2 * t * x.kvd + 2 * n * x.kvd) * x.ab * (a->dec_layers ? a->dec_layers : a->layers);
	double logits = 0;
	if (x.vocab) {
		double lb = x.amp ? x.ab : x.wb;
		logits = q * a->vocab * (lb + (lb < 4 ? 4 : 0) + 4);
	}
	double dyn = b * (layer + kv + logits);
	double G = s->legacy_runtime ? S.grads : 0;
	/* autocast caches the half weights for the whole forward */
	fill(out, &S, S.copies, G, b * (layer + kv), attn, b * logits,
	     dyn, c);
	out->phase = SL_PHASE_EVAL;
}

/*
 * Generation (docs/memory-model.md "Generation"): the weights as loaded, no
 * gradients or optimizer; the KV cache of batch × beams sequences (HF
 * expands the prompts by num_beams before the prefill) per layer and KV
 * head; the peak is the larger of the prefill (the prompt's no_grad forward
 * with the cache filled to the prompt, the last position's logits upcast to
 * float32 and their log-softmax) and the last decoding step (the cache at
 * prompt + new tokens, one layer's cache copied as DynamicCache grows it by
 * torch.cat, the logits again). Under vLLM (gpu_memory_utilization) the
 * process holds that fraction of the GPU whatever it needs less.
 */
static void estimate_generate(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
			      const struct sl_calib *c, struct sl_breakdown *out)
{
	struct ctx x;
	ctx_init(&x, a, s, c);
	struct statics S;
	statics(&x, gpu, &S);
	S.ws /= 2; /* no autograd thread */
	double rows = (double)(s->batch_size ? s->batch_size : 1) * (s->num_beams > 1 ? s->num_beams : 1);
	double prompt = s->seq_len ? (double)s->seq_len : 1;
	double fresh = s->max_new_tokens ? (double)s->max_new_tokens
					 : (double)c->gen_max_length > prompt ? (double)c->gen_max_length - prompt : 1;
	bool encdec = a->kind == SL_ARCH_ENCDEC && !a->enc_only;
	double L = encdec && a->dec_layers ? a->dec_layers : a->layers;
	/* per sequence: k and v of every layer; an encoder-decoder caches its cross-attention over the prompt */
	double kv_prompt = 2 * L * prompt * x.kvd * x.ab;
	double kv_full = 2 * L * (prompt + fresh) * x.kvd * x.ab;
	if (!encdec) {
		/* sliding windows, the MLA cache (the latent under vLLM), recurrent states: state.c */
		bool latent = s->gpu_mem_util_bp > 0;
		kv_prompt = sl_arch_cache_bytes(a, prompt, x.ab, latent);
		kv_full = sl_arch_cache_bytes(a, prompt + fresh, x.ab, latent);
	}
	double logits = 0;
	if (has_vocab_logits(a, SL_TASK_CAUSAL_LM)) {
		double lb = x.amp ? x.ab : x.wb;
		logits = a->vocab * (lb + 4 + 4); /* the last position's logits, their float32 copy, the log-softmax */
	}
	double prefill = rows * (nograd_layer(&x, prompt) + kv_prompt + logits);
	double decode = rows * (kv_full + kv_full / L + logits + nograd_layer(&x, 1));
	bool at_prefill = prefill > decode;
	double dyn = at_prefill ? prefill : decode;
	double copies = x.amp ? S.copies : 0;
	memset(out, 0, sizeof *out);
	out->cuda_context = u64(S.ctx);
	out->workspace = u64(S.ws);
	out->weights = u64(S.weights + copies);
	out->kv_cache = u64(rows * (at_prefill ? kv_prompt : kv_full));
	out->logits = u64(rows * logits);
	out->activations = u64(dyn - rows * (at_prefill ? kv_prompt : kv_full) - rows * logits);
	out->zero_gather = u64(S.gather + S.comm);
	out->slack = u64(c->slack_frac * dyn + (double)c->slack_min);
	out->dynamic = u64(dyn);
	out->total = sat_sum((const uint64_t[]){out->cuda_context, out->workspace, out->weights, out->kv_cache,
						out->activations, out->logits, out->zero_gather, out->slack}, 8);
	out->params = u64(S.P);
	out->trainable = 0;
	out->phase = at_prefill ? SL_PHASE_PREFILL : SL_PHASE_DECODE;
}

/* A workload other than a training step: an evaluation forward (no optimizer: nothing trains), or generation. */
static void estimate_mode(const struct sl_arch *a, const struct sl_settings *s, const struct sl_gpu *gpu,
			  const struct sl_calib *c, struct sl_breakdown *out)
{
	if (sl_settings_vllm(s) && a->kind == SL_ARCH_DECODER) {
		/* vLLM: the weights as loaded (the dtype, a quantised base) through the training statics */
		struct ctx x;
		ctx_init(&x, a, s, c);
		struct statics S;
		statics(&x, gpu, &S);
		sl_estimate_vllm(a, s, gpu, c, S.weights, out);
		return;
	}
	if (s->mode == SL_MODE_GENERATE && a->kind != SL_ARCH_ENCODER && !a->enc_only) {
		estimate_generate(a, s, gpu, c, out);
		return;
	}
	sl_estimate_eval(a, s, gpu, c, out);
	out->total -= out->optimizer;
	out->optimizer = 0;
	out->paged = 0;
	out->trainable = 0;
}

uint64_t sl_attention_only_bytes(enum sl_attn impl, uint64_t batch, uint32_t heads, uint32_t head_dim,
				 uint64_t seq_len, unsigned dtype_bytes, const struct sl_calib *c)
{
	/* one layer's attention with the estimator's terms: q, k, v leaves and
	 * the output (+ their gradients in backward), what the attention keeps
	 * (probabilities, or logsumexp), and the backward's transient tensors */
	double b = batch, a = heads, s = seq_len, e = dtype_bytes;
	double bsh = b * s * a * head_dim;
	double io = 4 * e * bsh; /* q, k, v, out */
	double kept, tr;
	if (impl == SL_ATTN_EAGER) {
		kept = a * b * s * s * e;                            /* softmax output, no dropout */
		tr = c->eager_attn_copies * e * a * b * s * s + 4 * e * bsh;
	} else {
		kept = a * b * s * c->sdpa_attn_bytes;
		tr = c->flash_bwd_bytes * (e / 2) * bsh;
	}
	return u64(io + kept + tr);
}

const char *sl_phase_name(enum sl_phase p)
{
	static const char *const names[SL_PHASE__COUNT] = {
		[SL_PHASE_FORWARD] = "end of forward",
		[SL_PHASE_BACKWARD] = "backward",
		[SL_PHASE_OPTIMIZER] = "optimizer step",
		[SL_PHASE_EVAL] = "evaluation forward",
		[SL_PHASE_PREFILL] = "generation prefill",
		[SL_PHASE_DECODE] = "last decoding step",
		[SL_PHASE_LOAD] = "model loading",
		[SL_PHASE_SAVE] = "checkpoint save",
		[SL_PHASE_VLLM] = "vLLM start-up (profile run and one max_model_len sequence)",
		[SL_PHASE_ROLLOUT] = "generation of the completions",
	};
	return (unsigned)p < SL_PHASE__COUNT ? names[p] : "?";
}
