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

#include "sweeplint/models.h"

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
	[SL_FAMILY_OLMO2] = "olmo2",
	[SL_FAMILY_SMOLLM3] = "smollm3",
	[SL_FAMILY_STARCODER2] = "starcoder2",
	[SL_FAMILY_GLM] = "glm",
	[SL_FAMILY_GLM4] = "glm4",
	[SL_FAMILY_CHATGLM] = "chatglm",
	[SL_FAMILY_INTERNLM2] = "internlm2",
	[SL_FAMILY_EXAONE] = "exaone",
	[SL_FAMILY_APERTUS] = "apertus",
	[SL_FAMILY_DEEPSEEK_V2] = "deepseek_v2",
	[SL_FAMILY_DEEPSEEK_V3] = "deepseek_v3",
	[SL_FAMILY_GPT_OSS] = "gpt_oss",
	[SL_FAMILY_PHIMOE] = "phimoe",
	[SL_FAMILY_LLAMA4] = "llama4",
	[SL_FAMILY_MAMBA] = "mamba",
	[SL_FAMILY_MAMBA2] = "mamba2",
	[SL_FAMILY_FALCON_MAMBA] = "falcon_mamba",
	[SL_FAMILY_JAMBA] = "jamba",
	[SL_FAMILY_RWKV] = "rwkv",
	[SL_FAMILY_MODERNBERT] = "modernbert",
	[SL_FAMILY_M2M_100] = "m2m_100",
	[SL_FAMILY_NOMIC_BERT] = "nomic_bert",
	[SL_FAMILY_QWEN2_5_VL] = "qwen2_5_vl",
	[SL_FAMILY_OLMOE] = "olmoe",
	[SL_FAMILY_COHERE] = "cohere",
	[SL_FAMILY_COHERE2] = "cohere2",
	[SL_FAMILY_MISTRAL3] = "mistral3",
	[SL_FAMILY_GLM4_MOE] = "glm4_moe",
	[SL_FAMILY_EXAONE4] = "exaone4",
	[SL_FAMILY_SEED_OSS] = "seed_oss",
	[SL_FAMILY_ERNIE4_5] = "ernie4_5",
	[SL_FAMILY_LFM2] = "lfm2",
	[SL_FAMILY_ERNIE4_5_MOE] = "ernie4_5_moe",
	[SL_FAMILY_INTERNLM3] = "internlm3",
	[SL_FAMILY_QWEN3_VL] = "qwen3_vl",
	[SL_FAMILY_QWEN3_VL_MOE] = "qwen3_vl_moe",
	[SL_FAMILY_IDEFICS3] = "idefics3",
	[SL_FAMILY_SMOLVLM] = "smolvlm",
	[SL_FAMILY_MLLAMA] = "mllama",
	[SL_FAMILY_GRANITEMOEHYBRID] = "granitemoehybrid",
	[SL_FAMILY_FALCON_H1] = "falcon_h1",
	[SL_FAMILY_NEMOTRON_H] = "nemotron_h",
	[SL_FAMILY_LONGFORMER] = "longformer",
	[SL_FAMILY_VIT] = "vit",
	[SL_FAMILY_CUSTOM] = "custom",
};

const char *sl_family_name(enum sl_family f)
{
	return (unsigned)f < SL_FAMILY__COUNT ? family_names[f] : "?";
}

int sl_family_parse(const char *s)
{
	/* a custom module stack is built from its layer list (modules.c), never from a config's model_type */
	for (int i = 0; i < SL_FAMILY__COUNT; i++)
		if (i != SL_FAMILY_CUSTOM && strcmp(s, family_names[i]) == 0)
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
	/* the language models of the multimodal configs, as their text_config names them */
	if (strcmp(s, "llama4_text") == 0)
		return SL_FAMILY_LLAMA4;
	if (strcmp(s, "qwen2_5_vl_text") == 0)
		return SL_FAMILY_QWEN2_5_VL;
	if (strcmp(s, "mllama_text_model") == 0)
		return SL_FAMILY_MLLAMA;
	if (strcmp(s, "qwen3_vl_text") == 0)
		return SL_FAMILY_QWEN3_VL;
	if (strcmp(s, "qwen3_vl_moe_text") == 0)
		return SL_FAMILY_QWEN3_VL_MOE;
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
	case SL_FAMILY_MODERNBERT:
	case SL_FAMILY_NOMIC_BERT:
	case SL_FAMILY_LONGFORMER:
		a->kind = SL_ARCH_ENCODER;
		a->bias = true;
		a->emb_norm = true;
		a->tied = true;                    /* the MLM decoder shares the word embeddings */
		/* ElectraModel, DebertaV2Model, DistilBertModel have none */
		a->pooler = f == SL_FAMILY_BERT || f == SL_FAMILY_ROBERTA || f == SL_FAMILY_XLM_ROBERTA ||
			    f == SL_FAMILY_ALBERT || f == SL_FAMILY_MPNET || f == SL_FAMILY_LONGFORMER;
		a->type_vocab = f == SL_FAMILY_BERT || f == SL_FAMILY_ELECTRA || f == SL_FAMILY_ALBERT ? 2
				: f == SL_FAMILY_ROBERTA || f == SL_FAMILY_XLM_ROBERTA ||
						f == SL_FAMILY_LONGFORMER
					? 1
					: 0;
		if (f == SL_FAMILY_LONGFORMER)
			a->window = 512; /* LongformerConfig attention_window=512 */
		if (f == SL_FAMILY_MPNET)
			a->rel_buckets = 32;       /* MPNetEncoder.relative_attention_bias */
		if (f == SL_FAMILY_MODERNBERT) {
			/* ModernBertModel: LayerNorms without bias (norm_bias false), no linear biases, Wi h -> 2I
			 * (GLU), no token types, no position table (rotary), no pooler, final_norm; layer 0 has no
			 * attn_norm (nn.Identity) */
			a->bias = false;
			a->no_bias = SL_NOBIAS_NORM;
			a->final_norm = true;
			a->gated_ffn = true;
			a->fused_qkv = true;
		}
		if (f == SL_FAMILY_NOMIC_BERT) {
			/* NomicBertModel: Wqkv, out_proj, fc11/fc12/fc2 (SwiGLU) without biases, rotary, token
			 * types, no pooler */
			a->bias = false;
			a->gated_ffn = true;
			a->fused_qkv = true;
			a->type_vocab = 2;
		}
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
	case SL_FAMILY_M2M_100:
		/* M2M100 (NLLB): sinusoidal positions, pre-norm stacks each closed by a layer_norm, no
		 * layernorm_embedding: Pegasus's layout (modeling_m2m_100.py) */
		a->kind = SL_ARCH_ENCDEC;
		a->bias = true;
		a->emb_norm = f != SL_FAMILY_PEGASUS && f != SL_FAMILY_M2M_100; /* layernorm_embedding */
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
	case SL_FAMILY_OLMO2:
	case SL_FAMILY_SMOLLM3:
	case SL_FAMILY_GLM:
	case SL_FAMILY_GLM4:
	case SL_FAMILY_CHATGLM:
	case SL_FAMILY_INTERNLM2:
	case SL_FAMILY_EXAONE:
	case SL_FAMILY_APERTUS:
	case SL_FAMILY_DEEPSEEK_V2:
	case SL_FAMILY_DEEPSEEK_V3:
	case SL_FAMILY_GPT_OSS:
	case SL_FAMILY_LLAMA4:
	case SL_FAMILY_QWEN2_5_VL:
	case SL_FAMILY_OLMOE:
	case SL_FAMILY_COHERE:
	case SL_FAMILY_COHERE2:
	case SL_FAMILY_MISTRAL3:
	case SL_FAMILY_GLM4_MOE:
	case SL_FAMILY_EXAONE4:
	case SL_FAMILY_SEED_OSS:
	case SL_FAMILY_ERNIE4_5:
	case SL_FAMILY_ERNIE4_5_MOE:
	case SL_FAMILY_INTERNLM3:
	case SL_FAMILY_QWEN3_VL:
	case SL_FAMILY_QWEN3_VL_MOE:
	case SL_FAMILY_IDEFICS3:
	case SL_FAMILY_SMOLVLM:
	case SL_FAMILY_MLLAMA:
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
		a->qk_norm = f == SL_FAMILY_GEMMA3 || f == SL_FAMILY_QWEN3 || f == SL_FAMILY_QWEN3_MOE ||
			     f == SL_FAMILY_OLMO2 || f == SL_FAMILY_APERTUS || f == SL_FAMILY_QWEN3_VL ||
			     f == SL_FAMILY_QWEN3_VL_MOE; /* Qwen3VLTextAttention: qwen3's q_norm/k_norm */
		/* issue #30 (docs/models.md): Olmo2Attention q_norm/k_norm over heads x head_dim; GlmAttention
		 * q/k/v biases, o none; InternLM2 wqkv and ChatGLM query_key_value packed; Apertus xIELU's
		 * alpha_p and alpha_n and a plain up/down MLP; SmolLM3Config ties the head; gpt-oss biases on
		 * q/k/v/o, the router and the experts, and a sink per head; Qwen2.5-VL's language model is qwen2 */
		a->qk_norm_full = f == SL_FAMILY_OLMO2;
		a->qkv_bias_only = a->qkv_bias_only || f == SL_FAMILY_GLM || f == SL_FAMILY_GLM4 ||
				   f == SL_FAMILY_CHATGLM || f == SL_FAMILY_QWEN2_5_VL;
		a->fused_qkv = a->fused_qkv || f == SL_FAMILY_INTERNLM2 || f == SL_FAMILY_CHATGLM;
		a->norms = f == SL_FAMILY_GLM4 ? 4 : a->norms;      /* post_self_attn / post_mlp layernorms */
		a->act_params = f == SL_FAMILY_APERTUS ? 2 : 0;
		a->gated_ffn = f != SL_FAMILY_APERTUS;
		a->tied = a->tied || f == SL_FAMILY_SMOLLM3;
		a->shared_gate = f == SL_FAMILY_QWEN2_MOE;
		/* OlmoeAttention (modular_olmoe.py@12e8d459): q_norm over hidden, k_norm over the key/value width,
		 * like olmo2, pre-norm. CohereDecoderLayer (modular_cohere.py@7792ab1a): one input_layernorm
		 * (CohereLayerNorm: a weight, no bias) before attention and MLP in parallel; CohereConfig and
		 * Cohere2Config tie the head */
		a->qk_norm = a->qk_norm || f == SL_FAMILY_OLMOE || f == SL_FAMILY_EXAONE4;
		a->qk_norm_full = a->qk_norm_full || f == SL_FAMILY_OLMOE;
		if (f == SL_FAMILY_COHERE || f == SL_FAMILY_COHERE2) {
			a->norms = 1;
			a->tied = true;
		}
		if (f == SL_FAMILY_GPT_OSS) {
			a->bias = true;
			a->router_bias = true;
			a->sinks = true;
		}
		break;
	case SL_FAMILY_STARCODER2:
		/* Starcoder2: LayerNorm, biases on every linear (use_bias), c_fc / c_proj GELU MLP, rotary */
		a->kind = SL_ARCH_DECODER;
		a->bias = true;
		a->final_norm = true;
		a->tied = true;
		break;
	case SL_FAMILY_LFM2:
		/* Lfm2DecoderLayer (modular_lfm2.py@02f41779): operator_norm and ffn_norm (RMSNorm), attention
		 * (q/k/v/out_proj without bias, q_layernorm / k_layernorm over head_dim) or Lfm2ShortConv, a
		 * SwiGLU w1/w3/w2 without bias, the final RMSNorm; Lfm2Config: tie_word_embeddings true,
		 * conv_L_cache 3, conv_bias false */
		a->kind = SL_ARCH_DECODER;
		a->rmsnorm = true;
		a->final_norm = true;
		a->gated_ffn = true;
		a->qk_norm = true;
		a->tied = true;
		a->sconv_kernel = 3;
		break;
	case SL_FAMILY_PHIMOE:
		/* PhimoeDecoderLayer: LayerNorms, attention biases (attention_bias), experts w1/w2/w3 without
		 * bias, router without bias, lm_head with a bias (lm_head_bias) */
		a->kind = SL_ARCH_DECODER;
		a->bias = true;
		a->no_bias = SL_NOBIAS_MLP;
		a->gated_ffn = true;
		a->final_norm = true;
		a->lm_head_bias = true;
		break;
	case SL_FAMILY_MAMBA:
	case SL_FAMILY_MAMBA2:
	case SL_FAMILY_FALCON_MAMBA:
		/* one RMSNorm and one mixer per layer, norm_f; MambaConfig / Mamba2Config: use_bias false,
		 * use_conv_bias true, tie_word_embeddings true (Mamba2Config: false) */
		a->kind = SL_ARCH_DECODER;
		a->rmsnorm = true;
		a->final_norm = true;
		a->norms = 1;
		a->tied = f != SL_FAMILY_MAMBA2;
		a->ssm_conv_bias = true;
		a->ssm_conv = 4;
		a->ssm_state = f == SL_FAMILY_MAMBA2 ? 128 : 16;
		break;
	case SL_FAMILY_JAMBA:
		/* JambaConfig: attention every 8th layer from 4, MoE every 2nd from 1, mamba_conv_bias true,
		 * mamba_proj_bias false, dt/B/C RMSNorms, untied */
		a->kind = SL_ARCH_DECODER;
		a->rmsnorm = true;
		a->final_norm = true;
		a->gated_ffn = true;
		a->ssm_conv_bias = true;
		a->ssm_dt_norms = true;
		a->ssm_conv = 4;
		a->ssm_state = 16;
		a->attn_every = 8;
		a->attn_offset = 4;
		a->moe_every = 2;
		a->moe_offset = 1;
		break;
	case SL_FAMILY_GRANITEMOEHYBRID:
		/* GraniteMoeHybridDecoderLayer (modular_granitemoehybrid.py@023633dd): input_layernorm and
		 * post_attention_layernorm (RMSNorm); BambaMixer (Mamba2's mixer with mamba_* keys) or
		 * GraniteMoeSharedAttention by layer_types; shared_mlp (input_linear h -> 2 x shared_intermediate_size,
		 * output_linear, no biases) and, with num_local_experts > 0, the MoE (a bias-free router, the
		 * experts' input_linear h -> 2I and output_linear). GraniteMoeHybridConfig
		 * (configuration_granitemoehybrid.py@008f5c8c): mamba_d_state 256, mamba_d_conv 4, mamba_conv_bias
		 * true, mamba_proj_bias false, untied */
		a->kind = SL_ARCH_DECODER;
		a->rmsnorm = true;
		a->final_norm = true;
		a->gated_ffn = true;
		a->ssm_conv_bias = true;
		a->ssm_conv = 4;
		a->ssm_state = 256;
		break;
	case SL_FAMILY_FALCON_H1:
		/* FalconH1DecoderLayer (modular_falcon_h1.py@00511f5d): input_layernorm before FalconH1Mixer and
		 * FalconH1Attention (llama's q/k/v/o) side by side, pre_ff_layernorm before a llama MLP; the muP
		 * multipliers are floats and a non-persistent mup_vector buffer. FalconH1Config
		 * (configuration_falcon_h1.py@020a37d2): mamba_d_state 256, mamba_d_conv 4, mamba_conv_bias true,
		 * mamba_proj_bias false (in_proj), projectors_bias false (out_proj), mamba_rms_norm false, untied */
		a->kind = SL_ARCH_DECODER;
		a->rmsnorm = true;
		a->final_norm = true;
		a->gated_ffn = true;
		a->ssm_parallel = true;
		a->ssm_no_norm = true;
		a->ssm_out_own = true;
		a->ssm_conv_bias = true;
		a->ssm_conv = 4;
		a->ssm_state = 256;
		break;
	case SL_FAMILY_NEMOTRON_H:
		/* NemotronHBlock (modular_nemotron_h.py@008d9e95): one RMSNorm and one mixer per layer:
		 * NemotronHMamba2Mixer, NemotronHAttention (Jamba's bias-free q/k/v/o) or NemotronHMLP (up_proj,
		 * relu2, down_proj); NemotronHConfig (configuration_nemotron_h.py@13923c63): ssm_state_size 128,
		 * conv_kernel 4, use_conv_bias true, use_bias false, mlp_bias false, untied */
		a->kind = SL_ARCH_DECODER;
		a->rmsnorm = true;
		a->final_norm = true;
		a->norms = 1;
		a->blocks = true;
		a->ssm_conv_bias = true;
		a->ssm_conv = 4;
		a->ssm_state = 128;
		break;
	case SL_FAMILY_RWKV:
		/* RwkvForCausalLM: LayerNorms (ln1, ln2, pre_ln in block 0, ln_out), untied head */
		a->kind = SL_ARCH_DECODER;
		a->bias = true;
		a->final_norm = true;
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
	case SL_FAMILY_VIT:
		/* timm VisionTransformer's defaults (timm/models/vision_transformer.py @aa4b5850: img_size 224,
		 * patch_size 16, in_chans 3, num_classes 1000, qkv_bias, class_token, final norm, LayerNorm,
		 * a fused qkv Linear), which torchvision's VisionTransformer shares (vision_transformer.py
		 * @07a929e8: conv_proj 3 -> hidden, class_token, nn.MultiheadAttention with in_proj_bias,
		 * encoder.ln, heads.head) */
		a->kind = SL_ARCH_ENCODER;
		a->bias = true;
		a->final_norm = true;
		a->fused_qkv = true;
		a->vis_patch = 16;
		a->vis_image = 224;
		a->vis_chans = 3;
		a->classes = 1000;
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
	return a->family == SL_FAMILY_BART || a->family == SL_FAMILY_MBART || a->family == SL_FAMILY_PEGASUS ||
	       a->family == SL_FAMILY_M2M_100;
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
	return a->rmsnorm || (a->no_bias & SL_NOBIAS_NORM) ? h : 2 * h;
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
	case SL_FAMILY_LONGFORMER:
	case SL_FAMILY_WHISPER:            /* the decoder's max_target_positions */
		return a->max_pos;
	case SL_FAMILY_DEBERTA_V2:         /* position_biased_input: the config reader zeroes max_pos when false */
		return a->max_pos;
	case SL_FAMILY_VIT:                /* pos_embed: the patches and the class token */
		return sl_arch_vit_tokens(a);
	case SL_FAMILY_BART:
	case SL_FAMILY_MBART:
	case SL_FAMILY_OPT:
		/* BartLearnedPositionalEmbedding / OPTLearnedPositionalEmbedding offset */
		return a->max_pos ? a->max_pos + 2u : 0;
	default:
		return 0;
	}
}

/*
 * Multi-head latent attention (DeepseekV2Attention / DeepseekV3Attention, modular_deepseek_v3.py
 * @000c33fd): q_proj h -> H·d, or q_a_proj h -> q_lora + q_a_layernorm + q_b_proj q_lora -> H·d
 * (d = qk_nope + qk_rope); kv_a_proj_with_mqa h -> kv_lora + rope, kv_a_layernorm, kv_b_proj
 * kv_lora -> H·(nope + v); o_proj H·v -> h. attention_bias (false in the published configs) biases
 * q_a, kv_a and o.
 */
static uint64_t mla(const struct sl_arch *a)
{
	uint64_t h = a->hidden, H = a->heads, d = head_dim(a), r = a->rope_dim, v = a->v_head_dim;
	uint64_t nope = d > r ? d - r : 0, b = a->bias ? 1 : 0;
	uint64_t n = a->q_lora ? h * a->q_lora + b * a->q_lora + a->q_lora + a->q_lora * H * d : h * H * d;
	n += h * (a->kv_lora + r) + b * (a->kv_lora + r) + a->kv_lora + a->kv_lora * H * (nope + v);
	return n + H * v * h + b * h;
}

/* Self-attention of one layer: q, k, v, o (with their biases), q/k norms, sinks. */
static uint64_t attention(const struct sl_arch *a)
{
	if (a->kv_lora)
		return mla(a);
	uint64_t h = a->hidden, q = q_width(a), kv = kv_width(a);
	uint64_t n = h * q + 2 * h * kv + q * h;
	if (a->bias)
		n += (has_bias(a, SL_NOBIAS_Q) ? q : 0) + (has_bias(a, SL_NOBIAS_K) ? kv : 0) +
		     (has_bias(a, SL_NOBIAS_V) ? kv : 0) + (has_bias(a, SL_NOBIAS_O) ? h : 0);
	else if (a->qkv_bias_only)
		n += q + 2 * kv;
	if (a->qk_norm) /* over head_dim (qwen3, gemma3), or the whole q and k (olmo2) */
		n += a->qk_norm_full ? q + kv : 2 * head_dim(a);
	if (a->sinks) /* gpt-oss GptOssAttention.sinks: one per head */
		n += a->heads;
	if (a->family == SL_FAMILY_LONGFORMER) /* LongformerSelfAttention query_global, key_global, value_global */
		n += 3 * (h * q + q);
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

/* Feed-forward of an MoE layer: the router, every expert, the shared expert (and its gate). */
static uint64_t moe_ffn(const struct sl_arch *a)
{
	uint64_t h = a->hidden;
	uint64_t n = h * a->experts + (a->router_bias ? a->experts : 0) + a->experts * dense_ffn(a, a->intermediate);
	n += a->moe_stats ? a->experts : 0; /* Ernie4_5_MoeStatics.e_score_correction_bias, an nn.Parameter */
	if (a->shared_ffn)
		n += dense_ffn(a, a->shared_ffn) + (a->shared_gate ? h : 0); /* shared_expert_gate (h -> 1) */
	return n;
}

/* Whether layer i's feed-forward is an MoE one (deepseek first_k_dense_replace, llama4
 * interleave_moe_layer_step, jamba expert_layer_period/offset). */
static bool moe_layer(const struct sl_arch *a, uint64_t i)
{
	if (!a->experts || i < a->moe_first || (a->moe_end && i >= a->moe_end))
		return false;
	return a->moe_every <= 1 || i % a->moe_every == a->moe_offset;
}

/* Whether layer i mixes tokens by attention (else by its state-space mixer: mamba, jamba; falcon_h1 by both). */
static bool attn_layer(const struct sl_arch *a, uint64_t i)
{
	if (a->ssm_parallel)
		return true;
	if (a->attn_listed)
		return i < SL_ARCH_MAX_LISTED && (a->attn_map[i / 32] >> (i % 32) & 1u);
	if (!a->ssm_inner)
		return true;
	return a->attn_every && i % a->attn_every == a->attn_offset;
}

/* How many i in [0, n) have i % every == offset (every >= 1). */
static uint64_t periodic_upto(uint64_t n, uint64_t every, uint64_t offset)
{
	return offset < every && n > offset ? (n - offset - 1) / every + 1 : 0;
}

/*
 * How many of the layers mix by attention and how many have an MoE feed-forward, as attn_layer and
 * moe_layer decide them layer by layer, counted without visiting each layer (a config's layer count
 * is any 32-bit number: 4e9 visits per count hung a check).
 */
static void layer_counts(const struct sl_arch *a, uint64_t *n_attn, uint64_t *n_moe)
{
	uint64_t L = a->layers;
	if (a->family == SL_FAMILY_RWKV)
		*n_attn = 0;
	else if (a->ssm_parallel)
		*n_attn = L;
	else if (a->attn_listed) {
		uint64_t n = L < SL_ARCH_MAX_LISTED ? L : SL_ARCH_MAX_LISTED, c = 0;
		for (uint64_t i = 0; i < n; i++)
			c += a->attn_map[i / 32] >> (i % 32) & 1u;
		*n_attn = c;
	} else if (!a->ssm_inner)
		*n_attn = L;
	else
		*n_attn = a->attn_every ? periodic_upto(L, a->attn_every, a->attn_offset) : 0;
	uint64_t lo = a->moe_first, hi = a->moe_end && a->moe_end < L ? a->moe_end : L;
	if (!a->experts || hi <= lo)
		*n_moe = 0;
	else if (a->moe_every <= 1)
		*n_moe = hi - lo;
	else
		*n_moe = periodic_upto(hi, a->moe_every, a->moe_offset) - periodic_upto(lo, a->moe_every, a->moe_offset);
}

/* How many of the first n layers have bit i set in a layer map (attn_map, mlp_map). */
static uint64_t map_count(const uint32_t *map, uint64_t n)
{
	uint64_t c = 0;
	n = n < SL_ARCH_MAX_LISTED ? n : SL_ARCH_MAX_LISTED;
	for (uint64_t i = 0; i < n; i++)
		c += map[i / 32] >> (i % 32) & 1u;
	return c;
}

/* nemotron_h: how many layers are MLP blocks (mlp_map); 0 for every other layout. */
static uint64_t mlp_blocks(const struct sl_arch *a)
{
	return a->blocks ? map_count(a->mlp_map, a->layers) : 0;
}

/* How many layers hold a state-space (or short-convolution) mixer: every layer of falcon_h1, the layers
 * that neither attend nor are MLP blocks otherwise. */
static uint64_t ssm_layers(const struct sl_arch *a, uint64_t n_attn)
{
	uint64_t L = a->layers, m = mlp_blocks(a);
	if (a->family == SL_FAMILY_RWKV || (!a->ssm_inner && !a->sconv_kernel))
		return 0;
	if (a->ssm_parallel)
		return L;
	return L > n_attn + m ? L - n_attn - m : 0;
}

/*
 * A selective state-space mixer. Mamba (MambaMixer, modeling_mamba.py; FalconMambaMixer adds only
 * weightless RMS norms; JambaMambaMixer adds dt/B/C RMSNorms): in_proj h -> 2I, conv1d (I channels,
 * depthwise, kernel K), x_proj I -> dt_rank + 2N, dt_proj dt_rank -> I with bias, A_log I x N, D I,
 * out_proj I -> h. Mamba2 (Mamba2Mixer, modeling_mamba2.py): in_proj h -> 2I + 2GN + nheads, conv1d
 * over I + 2GN channels, dt_bias, A_log and D per head, a gated RMSNorm over I, out_proj I -> h.
 */
static uint64_t ssm_mixer(const struct sl_arch *a)
{
	uint64_t h = a->hidden, I = a->ssm_inner, N = a->ssm_state, K = a->ssm_conv;
	uint64_t pb = a->ssm_proj_bias ? 1 : 0, cb = a->ssm_conv_bias ? 1 : 0;
	if (a->ssm_heads) {
		/* FalconH1Mixer: the gated RMSNorm only when mamba_rms_norm, out_proj's bias by projectors_bias */
		uint64_t G = a->ssm_groups ? a->ssm_groups : 1, nh = a->ssm_heads;
		uint64_t conv = I + 2 * G * N, proj = 2 * I + 2 * G * N + nh;
		uint64_t ob = a->ssm_out_own ? (a->ssm_out_bias ? 1 : 0) : pb;
		return h * proj + pb * proj + conv * K + cb * conv + 3 * nh + (a->ssm_no_norm ? 0 : I) + I * h + ob * h;
	}
	uint64_t R = a->ssm_dt_rank;
	uint64_t n = h * 2 * I + pb * 2 * I + I * K + cb * I + I * (R + 2 * N) + R * I + I + I * N + I + I * h + pb * h;
	if (a->ssm_dt_norms)
		n += R + 2 * N;
	return n;
}

/*
 * LFM2's gated short convolution (Lfm2ShortConv, modular_lfm2.py@02f41779): in_proj h -> 3h (B, C and
 * x), a depthwise Conv1d over h channels of kernel conv_L_cache, out_proj h -> h; biases when conv_bias.
 */
static uint64_t short_conv(const struct sl_arch *a)
{
	uint64_t h = a->hidden, K = a->sconv_kernel, b = a->sconv_bias ? 1 : 0;
	return h * 3 * h + b * 3 * h + h * K + b * h + h * h + b * h;
}

/*
 * RWKV-4 (modeling_rwkv.py RwkvBlock): ln1, ln2; attention (time mixing): time_decay, time_first and
 * three time_mix vectors of h, key/value/receptance h -> A and output A -> h without bias (A:
 * attention_hidden_size, held as head_dim with one head); feed_forward (channel mixing): two time_mix
 * vectors, key h -> I, receptance h -> h, value I -> h; block 0 has pre_ln.
 */
static uint64_t rwkv_layer(const struct sl_arch *a)
{
	uint64_t h = a->hidden, A = q_width(a), I = a->intermediate;
	return 2 * norm(a, h) + 5 * h + 3 * h * A + A * h + 2 * h + h * I + h * h + I * h;
}

/*
 * The decoder's layers: each its norms and activation parameters, its mixer (attention where attn_layer,
 * else the short convolution or state-space mixer) and its feed-forward (MoE where moe_layer, else dense),
 * summed from the counts of each kind (layer_counts); RWKV's blocks and its pre-LayerNorm of layer 0.
 */
static uint64_t decoder_layers(const struct sl_arch *a)
{
	uint64_t L = a->layers;
	if (!L)
		return 0;
	if (a->family == SL_FAMILY_RWKV)
		return L * rwkv_layer(a) + norm(a, a->hidden);
	uint64_t n_attn, n_moe;
	layer_counts(a, &n_attn, &n_moe);
	uint64_t dense = a->intermediate ? dense_ffn(a, a->experts && a->dense_ffn ? a->dense_ffn : a->intermediate) : 0;
	uint64_t n_ssm = ssm_layers(a, n_attn);
	uint64_t mixer = n_ssm ? (a->sconv_kernel ? short_conv(a) : ssm_mixer(a)) : 0;
	if (a->blocks) /* nemotron_h: one norm and one block per layer; the MLP blocks are the only feed-forwards */
		return L * norm(a, a->hidden) + n_attn * (n_attn ? attention(a) : 0) + n_ssm * mixer +
		       mlp_blocks(a) * dense;
	/* mllama's MllamaCrossAttentionDecoderLayer: the self-attention's q/k/v/o, plus q_norm and k_norm over
	 * head_dim and the two tanh gates (cross_attn_attn_gate, cross_attn_mlp_gate) */
	uint64_t xattn = (uint64_t)a->xattn_layers * (2 * head_dim(a) + 2);
	return L * (layer_norms(a) * norm(a, a->hidden) + a->act_params) + n_attn * (n_attn ? attention(a) : 0) +
	       n_ssm * mixer + n_moe * (n_moe ? moe_ffn(a) : 0) + (L - n_moe) * dense + xattn;
}

/* Feed-forward of a layer of a uniform stack (encoders, encoder-decoders): dense, or MoE in every layer. */
static uint64_t ffn(const struct sl_arch *a)
{
	return a->experts ? moe_ffn(a) : dense_ffn(a, a->intermediate);
}

/*
 * The vision tower and its projector into the language model.
 * SigLIP (SiglipVisionModel without head, as Gemma3ForConditionalGeneration holds it;
 * modeling_siglip.py, modeling_gemma3.py): patch Conv2d 3 -> vh (kernel p, bias), a position table of
 * (image/p)^2 rows, layers of q/k/v/out with biases, fc1/fc2 with biases and two LayerNorms,
 * post_layernorm; Gemma3MultiModalProjector: mm_input_projection_weight vh x h and mm_soft_emb_norm
 * (RMSNorm over vh).
 * Qwen2.5-VL (Qwen2_5_VisionTransformerPretrainedModel, modeling_qwen2_5_vl.py): patch Conv3d
 * 3 -> vh (kernel T x p x p, no bias), blocks of two RMSNorms, qkv vh -> 3vh and proj with biases, a
 * gated MLP with biases; the merger: ln_q (RMSNorm over vh), Linear(vh·m², vh·m²), GELU,
 * Linear(vh·m², out).
 * Llama-4 (Llama4VisionModel, modeling_llama4.py): an unfold linear 3·p² -> vh without bias, a class
 * embedding, (image/p)² + 1 positions, layernorm_pre and _post, layers of q/k/v/o and fc1/fc2 with
 * biases and two LayerNorms; the pixel-shuffle adapter's fc1 (vf -> projector_input_dim) and fc2
 * (projector_output_dim square), no biases; Llama4MultiModalProjector linear_1 vision_output_dim -> h.
 * Pixtral (PixtralVisionModel, modeling_pixtral.py@4a1e279e, as Mistral3ForConditionalGeneration holds
 * it): patch_conv 3 -> vh (kernel p, no bias), ln_pre (RMSNorm), layers of attention_norm and ffn_norm
 * (RMSNorms), q/k/v/o vh -> vh and a gated MLP, no biases, rotary positions (no table), no final norm;
 * Mistral3MultiModalProjector (modular_mistral3.py@70721ef4): norm (RMSNorm over vh), the patch merger's
 * merging_layer vh·m² -> vh without bias, linear_1 vh -> h and linear_2 h -> h (biases when
 * multimodal_projector_bias; one vision_feature_layer, the default -1).
 * Qwen3-VL (Qwen3VLVisionModel, modeling_qwen3_vl.py@68a7b7e2; the MoE checkpoints hold the same tower):
 * patch Conv3d 3 -> vh (kernel T x p x p, with bias), pos_embed num_position_embeddings x vh (bilinearly
 * interpolated to the grid), blocks of two LayerNorms, qkv vh -> 3vh and proj with biases, fc1/fc2 with
 * biases (not gated); the merger Qwen3VLVisionPatchMerger: a LayerNorm over vh, linear_fc1 vh·m² -> vh·m²
 * and linear_fc2 vh·m² -> out_hidden_size with biases; one more merger per deepstack_visual_indexes entry,
 * its LayerNorm over vh·m² (use_postshuffle_norm).
 * Idefics3 / SmolVLM (Idefics3VisionTransformer, modeling_idefics3.py@9a80143c; SmolVLMVisionTransformer,
 * modeling_smolvlm.py@b282e23b): SigLIP's embeddings and layers (as above) and post_layernorm, no head;
 * the connector pixel-shuffles s x s patches (scale_factor s) into one and projects it with
 * modality_projection.proj vh·s² -> h without bias.
 * Mllama (MllamaVisionModel, modeling_mllama.py@befb7955): a bias-free patch conv, a class embedding, the
 * gated position embedding (its gate, (image/p)² + 1 rows, and a tile table of (aspects + 1) rows of
 * tiles x positions x vh), the pre- and post-tile aspect-ratio embeddings ((aspects + 1) x tiles·vh and a
 * gate each), layernorm_pre and _post, vis_layers layers of bias-free q/k/v/o, fc1/fc2 with biases and
 * two LayerNorms, then vis_global such layers with two gates each; multi_modal_projector
 * vision_output_dim -> h with bias.
 */
static uint64_t vision(const struct sl_arch *a)
{
	uint64_t vh = a->vis_hidden, vf = a->vis_ffn, L = a->vis_layers, p = a->vis_patch, h = a->hidden;
	switch (a->vis_kind) {
	case SL_VISION_SIGLIP: {
		uint64_t side = p ? a->vis_image / p : 0;
		uint64_t layer = 4 * (vh * vh + vh) + vh * vf + vf + vf * vh + vh + 4 * vh;
		return 3 * p * p * vh + vh + side * side * vh + L * layer + 2 * vh + vh * h + vh;
	}
	case SL_VISION_QWEN2_5: {
		uint64_t T = a->vis_temporal ? a->vis_temporal : 2, m = a->vis_merge ? a->vis_merge : 2;
		uint64_t layer = 2 * vh + vh * 3 * vh + 3 * vh + vh * vh + vh + 3 * vh * vf + 2 * vf + vh;
		uint64_t w = vh * m * m;
		return 3 * T * p * p * vh + L * layer + vh + w * w + w + w * h + h;
	}
	case SL_VISION_LLAMA4: {
		uint64_t side = p ? a->vis_image / p : 0, pin = a->vis_proj_in, pout = a->vis_proj_out;
		uint64_t layer = 4 * (vh * vh + vh) + vh * vf + vf + vf * vh + vh + 4 * vh;
		return 3 * p * p * vh + vh + (side * side + 1) * vh + 4 * vh + L * layer + vf * pin + pout * pout + pout * h;
	}
	case SL_VISION_PIXTRAL: {
		uint64_t m = a->vis_merge ? a->vis_merge : 2, b = a->vis_proj_bias ? 1 : 0;
		uint64_t layer = 2 * vh + 4 * vh * vh + 3 * vh * vf;
		return 3 * p * p * vh + vh + L * layer + vh + vh * m * m * vh + vh * h + b * h + h * h + b * h;
	}
	case SL_VISION_IDEFICS3: {
		uint64_t side = p ? a->vis_image / p : 0, s = a->vis_merge;
		uint64_t layer = 4 * (vh * vh + vh) + vh * vf + vf + vf * vh + vh + 4 * vh;
		return 3 * p * p * vh + vh + side * side * vh + L * layer + 2 * vh + vh * s * s * h;
	}
	case SL_VISION_MLLAMA: {
		uint64_t np = (p ? (uint64_t)(a->vis_image / p) * (a->vis_image / p) : 0) + 1;
		uint64_t rows = (uint64_t)a->vis_aspects + 1, T = a->vis_tiles, G = a->vis_global;
		uint64_t layer = 4 * vh * vh + vh * vf + vf + vf * vh + vh + 4 * vh;
		return 3 * p * p * vh + vh + (1 + np * vh + rows * T * np * vh) + 2 * (rows * T * vh + 1) + 4 * vh +
		       L * layer + G * (layer + 2) + (uint64_t)a->vis_proj_in * h + h;
	}
	case SL_VISION_QWEN3: {
		uint64_t T = a->vis_temporal ? a->vis_temporal : 2, m = a->vis_merge ? a->vis_merge : 2;
		uint64_t out = a->vis_proj_out ? a->vis_proj_out : h, w = vh * m * m;
		uint64_t layer = 4 * vh + vh * 3 * vh + 3 * vh + vh * vh + vh + vh * vf + vf + vf * vh + vh;
		uint64_t mlp = w * w + w + w * out + out; /* linear_fc1, linear_fc2 */
		return 3 * T * p * p * vh + vh + (uint64_t)a->vis_pos * vh + L * layer + 2 * vh + mlp +
		       (uint64_t)a->vis_deepstack * (2 * w + mlp);
	}
	default:
		return 0;
	}
}

/* jina-embeddings-v3 (XLMRobertaLoRA): per task, rank-r A and B on every Linear and Embedding. */
static uint64_t task_loras(const struct sl_arch *a)
{
	if (!a->lora_tasks)
		return 0;
	uint64_t h = a->hidden, q = q_width(a), kv = kv_width(a), I = a->intermediate;
	uint64_t layer = (h + q + 2 * kv) + (q + h) + (h + I) + (I + h); /* Wqkv, out_proj, fc1, fc2 */
	uint64_t sum = a->layers * layer + (a->vocab + h) + (a->type_vocab + h) + (a->pooler ? 2 * h : 0);
	return (uint64_t)a->lora_tasks * a->lora_rank * sum;
}

/* The parts of sl_arch_params, so that task heads can swap them. */
struct parts {
	uint64_t embeddings; /* word (+ position, type, norm, projection) embeddings, counted once */
	uint64_t body;       /* the layers and final norms */
	uint64_t pooler;     /* bert-style pooler */
	uint64_t lm_head;    /* an untied LM head */
	uint64_t decoder;    /* the decoder stack of an encoder-decoder (part of body) */
	uint64_t vision;     /* a vision tower and its projector (part of body) */
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
		if (a->family == SL_FAMILY_MODERNBERT && PL) /* layer 0's attn_norm is nn.Identity */
			p->body -= norm(a, h);
		p->body += a->final_norm ? norm(a, h) : 0;
		p->body += task_loras(a);
		if (a->rel_buckets)   /* mpnet relative_attention_bias, once per encoder */
			p->body += (uint64_t)a->rel_buckets * a->heads;
		if (a->rel_emb)       /* deberta-v2 rel_embeddings (+ LayerNorm) */
			p->body += (uint64_t)a->rel_emb * h + (a->rel_norm ? norm(a, h) : 0);
		if (a->conv_kernel)   /* deberta-v2 ConvLayer: Conv1d + LayerNorm */
			p->body += (uint64_t)a->conv_kernel * h * h + h + norm(a, h);
		p->pooler = a->pooler ? linear(a, h, h) : 0;
		if (a->family == SL_FAMILY_VIT) {
			/* patch_embed.proj / conv_proj: Conv2d(chans, h, kernel p, stride p) with bias; cls_token /
			 * class_token; the classifier head(s) Linear(h, classes) */
			uint64_t pp = (uint64_t)a->vis_patch * a->vis_patch;
			p->embeddings += (uint64_t)a->vis_chans * pp * h + h + h;
			p->lm_head = a->classes ? linear(a, h, a->classes) : 0;
		}
		break;
	}
	case SL_ARCH_DECODER: {
		uint64_t E = emb_dim(a);
		p->embeddings = (V + a->extra_vocab) * E + pos_rows(a) * h + (a->emb_norm ? norm(a, h) : 0);
		if (E != h)
			p->embeddings += 2 * E * h; /* opt project_in / project_out, no bias */
		p->body += decoder_layers(a);
		p->body += a->final_norm ? norm(a, h) : 0;
		p->vision = vision(a);
		p->body += p->vision;
		/* a checkpoint of the bare model class (MistralModel, Qwen3Model) stores no LM head */
		p->lm_head = a->tied || a->enc_only ? 0 : V * E + (a->lm_head_bias ? V : 0);
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
	if (a->modules)
		return a->modules->params;
	struct parts p;
	count(a, &p);
	return p.embeddings + p.body + p.pooler + p.lm_head;
}

uint64_t sl_arch_params_for_task(const struct sl_arch *a, enum sl_task t)
{
	if (a->modules)
		return a->modules->params; /* the layer list is the whole model, its head included */
	struct parts p;
	count(a, &p);
	uint64_t h = a->hidden, V = a->vocab;
	uint64_t base = p.embeddings + p.body;
	uint64_t labels = (uint64_t)NUM_LABELS * h + NUM_LABELS; /* nn.Linear(h, num_labels) */

	switch (a->kind) {
	case SL_ARCH_ENCODER:
		if (a->family == SL_FAMILY_VIT)
			return base + p.pooler + p.lm_head; /* the image classifier as built, whatever the task */
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

bool sl_arch_attn_layer(const struct sl_arch *a, uint32_t i)
{
	return a->family != SL_FAMILY_RWKV && attn_layer(a, i);
}

bool sl_arch_moe_layer(const struct sl_arch *a, uint32_t i)
{
	return moe_layer(a, i);
}

void sl_arch_layer_counts(const struct sl_arch *a, uint64_t *n_attn, uint64_t *n_moe)
{
	layer_counts(a, n_attn, n_moe);
}

uint64_t sl_arch_ssm_layers(const struct sl_arch *a)
{
	uint64_t n_attn, n_moe;
	layer_counts(a, &n_attn, &n_moe);
	return ssm_layers(a, n_attn);
}

uint64_t sl_arch_mlp_blocks(const struct sl_arch *a)
{
	return mlp_blocks(a);
}

/* Layers that differ from one another (dense first layers, interleaved MoE, hybrid mixers, RWKV). */
static bool mixed_layers(const struct sl_arch *a)
{
	return a->ssm_inner || a->attn_listed || a->family == SL_FAMILY_RWKV || a->moe_first || a->moe_end || a->moe_every > 1;
}

uint64_t sl_arch_params_for_part(const struct sl_arch *a, enum sl_task t, enum sl_part part)
{
	if (part == SL_PART_FULL || a->modules)
		return sl_arch_params_for_task(a, t);
	struct parts p;
	count(a, &p);
	/* AutoModel: embeddings and layers (and an encoder's pooler: BertModel builds it), no task head;
	 * an encoder-decoder's T5Model / BartModel holds both stacks. The encoder part of an
	 * encoder-decoder (T5EncoderModel, get_encoder()) leaves the decoder out. */
	uint64_t base = p.embeddings + p.body + (a->kind == SL_ARCH_ENCODER ? p.pooler : 0);
	if (part == SL_PART_ENCODER && a->kind == SL_ARCH_ENCDEC)
		return base - p.decoder;
	return base;
}

void sl_arch_layer_params(const struct sl_arch *a, uint64_t *enc, uint64_t *dec)
{
	uint64_t h = a->hidden;
	*enc = attention(a) + ffn(a) + layer_norms(a) * norm(a, h);
	*dec = a->kind == SL_ARCH_ENCDEC ? 2 * attention(a) + ffn(a) + 3 * norm(a, h) : 0;
	if (a->kind == SL_ARCH_ENCDEC)
		*enc = attention(a) + ffn(a) + 2 * norm(a, h);
}

uint64_t sl_arch_frozen_params(const struct sl_arch *a, enum sl_task t, enum sl_part part, uint32_t layers,
			       bool embeddings)
{
	if (a->modules)
		return layers == SL_FROZEN_BACKBONE ? a->modules->params : 0;
	uint64_t all = sl_arch_params_for_part(a, t, part);
	struct parts p;
	count(a, &p);
	if (layers == SL_FROZEN_BACKBONE) {
		/* everything but the task head of the class (a classifier, an untied LM head): freezing
		 * model.bert / model.base_model freezes an encoder's pooler too when the class builds one */
		uint64_t body = p.embeddings + p.body;
		if (part == SL_PART_ENCODER && a->kind == SL_ARCH_ENCDEC)
			body -= p.decoder;
		if (a->kind == SL_ARCH_ENCODER && a->pooler) {
			bool with_pooler = part != SL_PART_FULL || t == SL_TASK_BI_ENCODER || t == SL_TASK_SEQ2SEQ ||
					   (t == SL_TASK_SEQ_CLS &&
					    (a->family == SL_FAMILY_BERT || a->family == SL_FAMILY_ALBERT));
			body += with_pooler ? p.pooler : 0;
		}
		return body < all ? body : all;
	}
	uint64_t enc, dec;
	sl_arch_layer_params(a, &enc, &dec);
	uint64_t L = a->param_layers ? a->param_layers : a->layers, D = a->kind == SL_ARCH_ENCDEC && !a->enc_only &&
									  part != SL_PART_ENCODER
									      ? dec_layers(a)
									      : 0;
	uint64_t f = embeddings || layers ? p.embeddings : 0;
	uint64_t n = layers;
	f += (n < L ? n : L) * enc;
	if (n > L)
		f += ((n - L) < D ? (n - L) : D) * dec;
	return f < all ? f : all;
}

uint64_t sl_arch_vision_params(const struct sl_arch *a)
{
	return a->kind == SL_ARCH_DECODER && !a->modules ? vision(a) : 0;
}

/*
 * LLaMA-Factory's freeze tuning (model/adapter.py _setup_freeze_tuning @ff6d4d12): a parameter trains
 * when its name holds ".{i}." of a trainable layer id (with ".{i}.{module}" for named modules) or an
 * extra module's name. Modelled for a uniform decoder stack; an MoE model whose expert ids reach the
 * first trainable layer id is not (".3." names expert 3 of every layer too).
 */
uint64_t sl_arch_freeze_params(const struct sl_arch *a, uint32_t k, uint32_t first_id, uint32_t mods, uint32_t extra)
{
	if (a->kind != SL_ARCH_DECODER || a->modules || !a->layers || mixed_layers(a) ||
	    (a->experts && first_id < a->experts))
		return 0;
	uint64_t h = a->hidden, L = a->layers;
	uint64_t norms = layer_norms(a) * norm(a, h) + a->act_params;
	uint64_t layer = norms + attention(a) + ffn(a);
	uint64_t per = layer;
	if (mods && !(mods & SL_FZ_OTHER))
		per = ((mods & SL_FZ_ATTN) ? attention(a) : 0) + ((mods & SL_FZ_MLP) ? ffn(a) : 0) +
		      ((mods & SL_FZ_NORM) ? norms : 0);
	struct parts p;
	count(a, &p);
	uint64_t n = (k < L ? k : L) * per;
	n += (extra & SL_FZX_EMBED) ? p.embeddings : 0;
	n += (extra & SL_FZX_HEAD) ? p.lm_head : 0;
	n += (extra & SL_FZX_NORM) && a->final_norm ? norm(a, h) : 0;
	return n;
}

void sl_arch_layer_matmuls(const struct sl_arch *a, uint64_t *attn, uint64_t *ffn_out)
{
	if (a->modules) { /* one "layer": the whole stack's matmul weights */
		*attn = 0;
		*ffn_out = a->modules->matmul;
		return;
	}
	uint64_t h = a->hidden, q = q_width(a), kv = kv_width(a), I = a->intermediate;
	uint64_t w = a->gated_ffn ? 3 : 2;
	*attn = a->kv_lora ? mla(a) : h * q + 2 * h * kv + q * h;
	if (a->family == SL_FAMILY_LONGFORMER)
		*attn += 3 * h * q; /* the global projections */
	*ffn_out = w * h * I;
	if (a->experts)
		*ffn_out = a->experts * w * h * I + h * a->experts + (a->shared_ffn ? w * h * a->shared_ffn + h : 0);
	if (!mixed_layers(a) || !a->layers || a->kind != SL_ARCH_DECODER)
		return;
	/* the average layer: the mixers (attention, state space, RWKV's) and feed-forwards summed over the layers */
	uint64_t at = 0, ff = 0, dense = w * h * (a->experts && a->dense_ffn ? a->dense_ffn : I);
	uint64_t L = a->layers;
	if (a->family == SL_FAMILY_RWKV) {
		at = L * (4 * h * q);
		ff = L * (2 * h * I + h * h);
	} else {
		uint64_t n_attn, n_moe;
		layer_counts(a, &n_attn, &n_moe);
		uint64_t n_ssm = ssm_layers(a, n_attn);
		at = n_attn * *attn + (n_ssm ? n_ssm * (a->sconv_kernel ? short_conv(a) : ssm_mixer(a)) : 0);
		ff = n_moe * *ffn_out + (a->blocks ? mlp_blocks(a) : L - n_moe) * (I ? dense : 0);
	}
	*attn = at / L;
	*ffn_out = ff / L;
}

uint64_t sl_arch_largest_layer(const struct sl_arch *a)
{
	if (a->modules)
		return a->modules->largest;
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
	if (a->family == SL_FAMILY_VIT && a->classes && linear(a, h, a->classes) > best)
		best = linear(a, h, a->classes);
	return best;
}

uint32_t sl_arch_vit_tokens(const struct sl_arch *a)
{
	if (a->family != SL_FAMILY_VIT || !a->vis_patch)
		return 0;
	uint32_t side = a->vis_image / a->vis_patch;
	return side * side + 1u;
}

uint32_t sl_arch_max_seq_len(const struct sl_arch *a)
{
	switch (a->family) {
	case SL_FAMILY_ROBERTA:
	case SL_FAMILY_XLM_ROBERTA:
		/* positions start after padding_idx 1: 514 slots hold 512 tokens */
		return a->max_pos > 2 ? a->max_pos - 2 : 0;
	case SL_FAMILY_MPNET:
	case SL_FAMILY_LONGFORMER: /* LongformerEmbeddings: roberta's positions, 4098 slots hold 4096 tokens */
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

uint64_t sl_arch_norm_params(const struct sl_arch *a)
{
	uint64_t h = a->hidden, L = a->layers, n = L * layer_norms(a) * norm(a, h);
	if (a->kind == SL_ARCH_ENCDEC && !a->enc_only)
		n += dec_layers(a) * 3 * norm(a, h) + (a->final_norm ? norm(a, h) : 0);
	return n + (a->final_norm ? norm(a, h) : 0);
}
