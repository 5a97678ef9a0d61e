/*
 * test_arch: parameter counts computed from shapes against published counts.
 * The expected numbers are the official ones (HF model cards, papers, the
 * PEFT README and results) typed in from their sources — never output of the
 * code under test; the shapes are the checkpoints' config.json values.
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"

/* A shape literal: family defaults, then the config.json values. */
struct shape {
	enum sl_family f;
	uint32_t vocab, hidden, layers, dec_layers, heads, kv_heads, head_dim, intermediate, max_pos, type_vocab;
	int tied;  /* 0: family default, 1: yes, 2: no */
	int gated; /* 0: family default, 1: yes, 2: no */
	uint32_t emb_dim;
};

static struct sl_arch make(struct shape s)
{
	struct sl_arch a;
	sl_arch_init(&a, s.f);
	a.vocab = s.vocab;
	a.hidden = s.hidden;
	a.layers = s.layers;
	a.dec_layers = s.dec_layers ? s.dec_layers : (a.kind == SL_ARCH_ENCDEC ? s.layers : 0);
	a.heads = s.heads;
	a.kv_heads = s.kv_heads ? s.kv_heads : s.heads;
	a.head_dim = s.head_dim ? s.head_dim : s.hidden / s.heads;
	a.intermediate = s.intermediate;
	a.max_pos = s.max_pos;
	if (s.type_vocab)
		a.type_vocab = s.type_vocab;
	if (s.tied)
		a.tied = s.tied == 1;
	if (s.gated)
		a.gated_ffn = s.gated == 1;
	a.emb_dim = s.emb_dim;
	return a;
}

#define SHAPE(...) make((struct shape){__VA_ARGS__})

struct official {
	const char *what;
	struct sl_arch arch;
	uint64_t params;
};

static void check_official(const struct official *o, size_t n)
{
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t got = sl_arch_params(&o[i].arch);
		if (got != o[i].params) {
			print_error("%s: computed %llu, official %llu\n", o[i].what, (unsigned long long)got,
				    (unsigned long long)o[i].params);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_encoders(void **state)
{
	(void)state;
	const struct official o[] = {
		{"bert-base-uncased", SHAPE(.f = SL_FAMILY_BERT, .vocab = 30522, .hidden = 768, .layers = 12, .heads = 12,
					    .intermediate = 3072, .max_pos = 512),
		 109482240},
		{"bert-large-uncased", SHAPE(.f = SL_FAMILY_BERT, .vocab = 30522, .hidden = 1024, .layers = 24,
					     .heads = 16, .intermediate = 4096, .max_pos = 512),
		 335141888},
		{"bge-m3", SHAPE(.f = SL_FAMILY_XLM_ROBERTA, .vocab = 250002, .hidden = 1024, .layers = 24, .heads = 16,
				 .intermediate = 4096, .max_pos = 8194),
		 567754752},
		{"xlm-roberta-large", SHAPE(.f = SL_FAMILY_XLM_ROBERTA, .vocab = 250002, .hidden = 1024, .layers = 24,
					    .heads = 16, .intermediate = 4096, .max_pos = 514),
		 559890432},
		{"xlm-roberta-base", SHAPE(.f = SL_FAMILY_XLM_ROBERTA, .vocab = 250002, .hidden = 768, .layers = 12,
					   .heads = 12, .intermediate = 3072, .max_pos = 514),
		 278043648},
		{"KoSimCSE-roberta", SHAPE(.f = SL_FAMILY_ROBERTA, .vocab = 32000, .hidden = 768, .layers = 12,
					   .heads = 12, .intermediate = 3072, .max_pos = 514),
		 110618112},
		{"paraphrase-multilingual-MiniLM-L12-v2", SHAPE(.f = SL_FAMILY_BERT, .vocab = 250037, .hidden = 384,
								.layers = 12, .heads = 12, .intermediate = 1536,
								.max_pos = 512),
		 117653760},
		{"roberta-base", SHAPE(.f = SL_FAMILY_ROBERTA, .vocab = 50265, .hidden = 768, .layers = 12, .heads = 12,
				       .intermediate = 3072, .max_pos = 514),
		 124645632},
	};
	check_official(o, sizeof o / sizeof o[0]);
}

static void test_encoder_decoders(void **state)
{
	(void)state;
	const struct official o[] = {
		{"t5-small", SHAPE(.f = SL_FAMILY_T5, .vocab = 32128, .hidden = 512, .layers = 6, .heads = 8,
				   .head_dim = 64, .intermediate = 2048),
		 60506624},
		{"t5-base", SHAPE(.f = SL_FAMILY_T5, .vocab = 32128, .hidden = 768, .layers = 12, .heads = 12,
				  .head_dim = 64, .intermediate = 3072),
		 222903552},
		{"t5-large", SHAPE(.f = SL_FAMILY_T5, .vocab = 32128, .hidden = 1024, .layers = 24, .heads = 16,
				   .head_dim = 64, .intermediate = 4096),
		 737668096},
		{"mt5-small", SHAPE(.f = SL_FAMILY_MT5, .vocab = 250112, .hidden = 512, .layers = 8, .heads = 6,
				    .head_dim = 64, .intermediate = 1024),
		 300176768},
		{"mt5-base", SHAPE(.f = SL_FAMILY_MT5, .vocab = 250112, .hidden = 768, .layers = 12, .heads = 12,
				   .head_dim = 64, .intermediate = 2048),
		 582401280},
		{"mt5-large", SHAPE(.f = SL_FAMILY_MT5, .vocab = 250112, .hidden = 1024, .layers = 24, .heads = 16,
				    .head_dim = 64, .intermediate = 2816),
		 1229581312},
		{"mt5-xl", SHAPE(.f = SL_FAMILY_MT5, .vocab = 250112, .hidden = 2048, .layers = 24, .heads = 32,
				 .head_dim = 64, .intermediate = 5120),
		 3742619648},
		{"pko-t5-base (T5 config, gated, untied)",
		 SHAPE(.f = SL_FAMILY_T5, .vocab = 50358, .hidden = 768, .layers = 12, .heads = 12, .head_dim = 64,
		       .intermediate = 2048, .tied = 2, .gated = 1),
		 275579136},
		{"bart-base", SHAPE(.f = SL_FAMILY_BART, .vocab = 50265, .hidden = 768, .layers = 6, .heads = 12,
				    .intermediate = 3072, .max_pos = 1024),
		 139420416},
		{"mbart-large-cc25", SHAPE(.f = SL_FAMILY_MBART, .vocab = 250027, .hidden = 1024, .layers = 12,
					   .heads = 16, .intermediate = 4096, .max_pos = 1024),
		 610851840},
	};
	check_official(o, sizeof o / sizeof o[0]);
}

static void test_decoders(void **state)
{
	(void)state;
	const struct official o[] = {
		{"Meta-Llama-3-8B", SHAPE(.f = SL_FAMILY_LLAMA, .vocab = 128256, .hidden = 4096, .layers = 32,
					  .heads = 32, .kv_heads = 8, .intermediate = 14336),
		 8030261248},
		{"Llama-3.2-3B", SHAPE(.f = SL_FAMILY_LLAMA, .vocab = 128256, .hidden = 3072, .layers = 28, .heads = 24,
				       .kv_heads = 8, .head_dim = 128, .intermediate = 8192, .tied = 1),
		 3212749824},
		{"Llama-3.2-1B", SHAPE(.f = SL_FAMILY_LLAMA, .vocab = 128256, .hidden = 2048, .layers = 16, .heads = 32,
				       .kv_heads = 8, .head_dim = 64, .intermediate = 8192, .tied = 1),
		 1235814400},
		{"Mistral-7B-v0.1", SHAPE(.f = SL_FAMILY_MISTRAL, .vocab = 32000, .hidden = 4096, .layers = 32,
					  .heads = 32, .kv_heads = 8, .intermediate = 14336),
		 7241732096},
		{"Qwen2.5-0.5B", SHAPE(.f = SL_FAMILY_QWEN2, .vocab = 151936, .hidden = 896, .layers = 24, .heads = 14,
				       .kv_heads = 2, .intermediate = 4864, .tied = 1),
		 494032768},
		{"Qwen2.5-7B", SHAPE(.f = SL_FAMILY_QWEN2, .vocab = 152064, .hidden = 3584, .layers = 28, .heads = 28,
				     .kv_heads = 4, .intermediate = 18944),
		 7615616512},
		{"gemma-7b", SHAPE(.f = SL_FAMILY_GEMMA, .vocab = 256000, .hidden = 3072, .layers = 28, .heads = 16,
				   .head_dim = 256, .intermediate = 24576),
		 8537680896},
		{"gpt2", SHAPE(.f = SL_FAMILY_GPT2, .vocab = 50257, .hidden = 768, .layers = 12, .heads = 12,
			       .intermediate = 3072, .max_pos = 1024),
		 124439808},
		{"polyglot-ko-1.3b", SHAPE(.f = SL_FAMILY_GPT_NEOX, .vocab = 30080, .hidden = 2048, .layers = 24,
					   .heads = 16, .intermediate = 8192, .max_pos = 2048),
		 1331810304},
	};
	check_official(o, sizeof o / sizeof o[0]);
}

/* Every catalog entry with a published count computes to it, and the brief's list is all there. */
static void test_catalog_counts(void **state)
{
	(void)state;
	static const struct {
		const char *hf_id;
		uint64_t params;
	} brief[] = {
		{"BAAI/bge-m3", 567754752},
		{"FacebookAI/xlm-roberta-large", 559890432},
		{"FacebookAI/xlm-roberta-base", 278043648},
		{"google-bert/bert-base-uncased", 109482240},
		{"google-bert/bert-large-uncased", 335141888},
		{"google-t5/t5-small", 60506624},
		{"google-t5/t5-base", 222903552},
		{"google-t5/t5-large", 737668096},
		{"google/mt5-small", 300176768},
		{"google/mt5-base", 582401280},
		{"google/mt5-large", 1229581312},
		{"google/mt5-xl", 3742619648},
		{"paust/pko-t5-base", 275579136},
		{"BM-K/KoSimCSE-roberta", 110618112},
		{"sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2", 117653760},
		{"intfloat/multilingual-e5-small", 117653760},
		{"meta-llama/Meta-Llama-3-8B", 8030261248},
		{"meta-llama/Llama-3.2-3B", 3212749824},
		{"meta-llama/Llama-3.2-1B", 1235814400},
		{"mistralai/Mistral-7B-v0.1", 7241732096},
		{"Qwen/Qwen2.5-0.5B", 494032768},
		{"Qwen/Qwen2.5-7B", 7615616512},
		{"openai-community/gpt2", 124439808},
	};
	struct sl_arena *a = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, a);
	struct sl_catalog *c = NULL;
	int rc = sl_catalog_load(a, &c, &d);
	for (size_t i = 0; i < d.n; i++)
		print_error("%s:%u:%u: %s\n", d.v[i].src->display, d.v[i].span.line, d.v[i].span.col, d.v[i].message);
	assert_int_equal(rc, 0);
	assert_int_equal(d.n, 0);

	for (size_t i = 0; i < sizeof brief / sizeof brief[0]; i++) {
		const struct sl_model *m = sl_catalog_find_model(c, brief[i].hf_id);
		if (!m)
			print_error("not in the catalog: %s\n", brief[i].hf_id);
		assert_non_null(m);
		if (sl_arch_params(&m->arch) != brief[i].params)
			print_error("%s: computed %llu, official %llu\n", brief[i].hf_id,
				    (unsigned long long)sl_arch_params(&m->arch), (unsigned long long)brief[i].params);
		assert_true(sl_arch_params(&m->arch) == brief[i].params);
	}

	size_t checked = 0;
	int bad = 0;
	for (size_t i = 0; i < c->nmodels; i++) {
		const struct sl_model *m = &c->models[i];
		if (!m->official_params)
			continue;
		checked++;
		if (sl_arch_params(&m->arch) != m->official_params) {
			print_error("%s: computed %llu, official %llu\n", m->name,
				    (unsigned long long)sl_arch_params(&m->arch),
				    (unsigned long long)m->official_params);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	assert_true(checked >= 40);

	/* the architecture table: every entry has a published count; rounded ones within their tolerance */
	for (size_t i = 0; i < c->narchs; i++) {
		const struct sl_model *m = &c->archs[i];
		double got = (double)sl_arch_params(&m->arch), want = (double)m->official_params;
		double off = want > 0 ? (got > want ? got - want : want - got) / want : 1;
		bool ok = m->tolerance > 0 ? off <= m->tolerance : sl_arch_params(&m->arch) == m->official_params;
		if (!ok) {
			print_error("table %s: computed %llu, official %llu (%.3f%% off, tolerance %.3f%%)\n", m->name,
				    (unsigned long long)sl_arch_params(&m->arch), (unsigned long long)m->official_params,
				    off * 100, m->tolerance * 100);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	assert_true(c->narchs >= 80);
	sl_arena_free(a);
}

/*
 * Longformer (modeling_longformer.py@010a915c), itemised: LongformerEmbeddings (word V x h, 4098 positions,
 * one token type, LayerNorm); per layer query/key/value and query_global/key_global/value_global (h x h
 * with bias each), the output dense and LayerNorm, intermediate and output dense and LayerNorm; the pooler.
 */
static void test_longformer(void **state)
{
	(void)state;
	struct sl_arch base = SHAPE(.f = SL_FAMILY_LONGFORMER, .vocab = 50265, .hidden = 768, .layers = 12, .heads = 12,
				    .intermediate = 3072, .max_pos = 4098);
	uint64_t h = 768, I = 3072, V = 50265, L = 12;
	uint64_t emb = V * h + 4098 * h + 1 * h + 2 * h;
	uint64_t attn = 6 * (h * h + h) + (h * h + h) + 2 * h; /* local q/k/v, global q/k/v, output dense + LN */
	uint64_t ffn = (h * I + I) + (I * h + h) + 2 * h;
	uint64_t pooler = h * h + h;
	assert_true(emb + L * (attn + ffn) + pooler == 148659456);
	assert_true(sl_arch_params(&base) == 148659456);
	/* roberta-base (124,645,632) + 3,584 more positions + the global projections of 12 layers */
	assert_true(148659456 == 124645632 + 3584 * h + L * 3 * (h * h + h));
	/* LongformerForSequenceClassification: no pooler, LongformerClassificationHead dense h x h + out_proj */
	assert_true(sl_arch_params_for_task(&base, SL_TASK_SEQ_CLS) == 148659456 - pooler + (h * h + h) + (2 * h + 2));
	/* LongformerForMaskedLM: no pooler; LongformerLMHead dense + layer_norm + bias, decoder tied */
	assert_true(sl_arch_params_for_task(&base, SL_TASK_MLM) == 148659456 - pooler + (h * h + h) + 2 * h + V);
	/* the model page rounds it: "149M params" */
	assert_true(fabs((double)sl_arch_params(&base) - 149e6) / 149e6 < 0.005);
	assert_int_equal(sl_arch_max_seq_len(&base), 4096);
	assert_int_equal(base.window, 512); /* LongformerConfig attention_window default */

	struct sl_arch large = SHAPE(.f = SL_FAMILY_LONGFORMER, .vocab = 50265, .hidden = 1024, .layers = 24,
				     .heads = 16, .intermediate = 4096, .max_pos = 4098);
	h = 1024, I = 4096, L = 24;
	emb = V * h + 4098 * h + h + 2 * h;
	attn = 7 * (h * h + h) + 2 * h;
	ffn = (h * I + I) + (I * h + h) + 2 * h;
	assert_true(emb + L * (attn + ffn) + (h * h + h) == 434600960);
	assert_true(sl_arch_params(&large) == 434600960);
	assert_true(fabs((double)sl_arch_params(&large) - 435e6) / 435e6 < 0.005); /* "435M params" */
}

/* Task heads: the HF classes' counts, from the head shapes (num_labels 2). */
static void test_task_heads(void **state)
{
	(void)state;
	struct sl_arch bert = SHAPE(.f = SL_FAMILY_BERT, .vocab = 30522, .hidden = 768, .layers = 12, .heads = 12,
				    .intermediate = 3072, .max_pos = 512);
	uint64_t h = 768, V = 30522, base = sl_arch_params(&bert), pooler = h * h + h;
	/* BertForSequenceClassification: BertModel + classifier (h×2 + 2): 109,483,778 */
	assert_true(sl_arch_params_for_task(&bert, SL_TASK_SEQ_CLS) == 109483778);
	/* BertForTokenClassification / QA: no pooler */
	assert_true(sl_arch_params_for_task(&bert, SL_TASK_TOKEN_CLS) == base - pooler + 2 * h + 2);
	assert_true(sl_arch_params_for_task(&bert, SL_TASK_QA) == base - pooler + 2 * h + 2);
	/* BertForMaskedLM: no pooler; transform dense + LayerNorm, decoder bias (weight tied): 109,514,298 */
	assert_true(sl_arch_params_for_task(&bert, SL_TASK_MLM) == 109514298);
	assert_true(sl_arch_params_for_task(&bert, SL_TASK_MLM) == base - pooler + (h * h + h) + 2 * h + V);
	assert_true(sl_arch_params_for_task(&bert, SL_TASK_BI_ENCODER) == base);

	/* RobertaForSequenceClassification: no pooler, dense h×h + out_proj: roberta-base 124,647,170 */
	struct sl_arch rob = SHAPE(.f = SL_FAMILY_ROBERTA, .vocab = 50265, .hidden = 768, .layers = 12, .heads = 12,
				   .intermediate = 3072, .max_pos = 514);
	assert_true(sl_arch_params_for_task(&rob, SL_TASK_SEQ_CLS) == 124647170);

	/* LlamaForCausalLM is the checkpoint class; the bi-encoder (AutoModel) drops the untied head */
	struct sl_arch llama = SHAPE(.f = SL_FAMILY_LLAMA, .vocab = 128256, .hidden = 4096, .layers = 32,
				     .heads = 32, .kv_heads = 8, .intermediate = 14336);
	assert_true(sl_arch_params_for_task(&llama, SL_TASK_CAUSAL_LM) == 8030261248);
	assert_true(sl_arch_params_for_task(&llama, SL_TASK_BI_ENCODER) == 8030261248 - 128256ull * 4096);
	/* LlamaForSequenceClassification: score h×2, no bias, no LM head */
	assert_true(sl_arch_params_for_task(&llama, SL_TASK_SEQ_CLS) == 8030261248 - 128256ull * 4096 + 2 * 4096);

	/* a tied LM head is counted once, whatever the task */
	struct sl_arch l3b = SHAPE(.f = SL_FAMILY_LLAMA, .vocab = 128256, .hidden = 3072, .layers = 28, .heads = 24,
				   .kv_heads = 8, .head_dim = 128, .intermediate = 8192, .tied = 1);
	assert_true(sl_arch_params_for_task(&l3b, SL_TASK_CAUSAL_LM) == 3212749824);

	/* the T5 encoder alone (T5EncoderModel, sentence-t5): t5-base encoder 109,628,544 */
	struct sl_arch t5 = SHAPE(.f = SL_FAMILY_T5, .vocab = 32128, .hidden = 768, .layers = 12, .heads = 12,
				  .head_dim = 64, .intermediate = 3072);
	assert_true(sl_arch_params_for_task(&t5, SL_TASK_BI_ENCODER) == 109628544);
	assert_true(sl_arch_params_for_task(&t5, SL_TASK_SEQ2SEQ) == 222903552);
}

/* LoRA: PEFT print_trainable_parameters() outputs. */
static void test_lora(void **state)
{
	(void)state;
	struct sl_arch llama3 = SHAPE(.f = SL_FAMILY_LLAMA, .vocab = 128256, .hidden = 4096, .layers = 32,
				      .heads = 32, .kv_heads = 8, .intermediate = 14336);
	/* r=8 on q_proj, v_proj: 32 · 8 · ((4096+4096) + (4096+1024)) */
	assert_true(sl_arch_lora_params(&llama3, 8, SL_LORA_Q | SL_LORA_V) == 3407872);
	assert_true(sl_arch_lora_params(&llama3, 8, 0) == 3407872); /* 0: PEFT default q, v */
	/* all linear layers, r=16: QLoRA-style: 41,943,040 */
	assert_true(sl_arch_lora_params(&llama3, 16, SL_LORA_ALL) == 41943040);

	/* PEFT method_comparison: Llama-3.2-3B, LoRA r=32, default targets: 9,175,040 trainable */
	struct sl_arch l3b = SHAPE(.f = SL_FAMILY_LLAMA, .vocab = 128256, .hidden = 3072, .layers = 28, .heads = 24,
				   .kv_heads = 8, .head_dim = 128, .intermediate = 8192, .tied = 1);
	assert_true(sl_arch_lora_params(&l3b, 32, 0) == 9175040);

	/* PEFT README: bigscience/mt0-large (mt5-large shape), r=8:
	 * "trainable params: 2359296 || all params: 1231940608" — q, v in encoder self-attention and
	 * decoder self- and cross-attention */
	struct sl_arch mt0 = SHAPE(.f = SL_FAMILY_MT5, .vocab = 250112, .hidden = 1024, .layers = 24, .heads = 16,
				   .head_dim = 64, .intermediate = 2816);
	assert_true(sl_arch_lora_params(&mt0, 8, 0) == 2359296);
	assert_true(sl_arch_params(&mt0) + sl_arch_lora_params(&mt0, 8, 0) == 1231940608);

	/* gpt2: c_attn is one fused h→3h linear: 12 · 8 · (768 + 2304) = 294,912 */
	struct sl_arch gpt2 = SHAPE(.f = SL_FAMILY_GPT2, .vocab = 50257, .hidden = 768, .layers = 12, .heads = 12,
				    .intermediate = 3072, .max_pos = 1024);
	assert_true(sl_arch_lora_params(&gpt2, 8, SL_LORA_Q | SL_LORA_V) == 294912);
	assert_true(sl_arch_lora_params(&gpt2, 8, SL_LORA_Q) == sl_arch_lora_params(&gpt2, 8, SL_LORA_V));

	/* bert "query", "value": 12 · 8 · 2 · (768 + 768) = 294,912; gate does not exist */
	struct sl_arch bert = SHAPE(.f = SL_FAMILY_BERT, .vocab = 30522, .hidden = 768, .layers = 12, .heads = 12,
				    .intermediate = 3072, .max_pos = 512);
	assert_true(sl_arch_lora_params(&bert, 8, 0) == 294912);
	assert_true(sl_arch_lora_params(&bert, 8, SL_LORA_GATE) == 0);
}

static void test_largest_layer(void **state)
{
	(void)state;
	/* the word embeddings are the largest module ZeRO-3 gathers for these */
	struct sl_arch bge = SHAPE(.f = SL_FAMILY_XLM_ROBERTA, .vocab = 250002, .hidden = 1024, .layers = 24,
				   .heads = 16, .intermediate = 4096, .max_pos = 8194);
	assert_true(sl_arch_largest_layer(&bge) == 250002ull * 1024);
	struct sl_arch llama3 = SHAPE(.f = SL_FAMILY_LLAMA, .vocab = 128256, .hidden = 4096, .layers = 32,
				      .heads = 32, .kv_heads = 8, .intermediate = 14336);
	assert_true(sl_arch_largest_layer(&llama3) == 128256ull * 4096);
	/* t5-11b: the FFN (1024 × 65536) outweighs the 32128-row embedding */
	struct sl_arch t5_11b = SHAPE(.f = SL_FAMILY_T5, .vocab = 32128, .hidden = 1024, .layers = 24, .heads = 128,
				      .head_dim = 128, .intermediate = 65536);
	assert_true(sl_arch_largest_layer(&t5_11b) == 1024ull * 65536);
	/* and no single layer exceeds the whole model */
	assert_true(sl_arch_largest_layer(&t5_11b) < sl_arch_params(&t5_11b));
}

/* The longest input: learned positions bound it; relative and rotary ones do not. */
static void test_max_seq_len(void **state)
{
	(void)state;
	struct sl_arch bge = SHAPE(.f = SL_FAMILY_XLM_ROBERTA, .vocab = 250002, .hidden = 1024, .layers = 24,
				   .heads = 16, .intermediate = 4096, .max_pos = 8194);
	assert_int_equal(sl_arch_max_seq_len(&bge), 8192); /* bge-m3: "max_length 8192" */
	struct sl_arch bert = SHAPE(.f = SL_FAMILY_BERT, .vocab = 30522, .hidden = 768, .layers = 12, .heads = 12,
				    .intermediate = 3072, .max_pos = 512);
	assert_int_equal(sl_arch_max_seq_len(&bert), 512);
	struct sl_arch t5 = SHAPE(.f = SL_FAMILY_T5, .vocab = 32128, .hidden = 512, .layers = 6, .heads = 8,
				  .head_dim = 64, .intermediate = 2048, .max_pos = 512);
	assert_int_equal(sl_arch_max_seq_len(&t5), 0);

	/* sentence-transformers never declares more than the architecture holds */
	struct sl_arena *a = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, a);
	struct sl_catalog *c = NULL;
	assert_int_equal(sl_catalog_load(a, &c, &d), 0);
	for (size_t i = 0; i < c->nmodels; i++) {
		uint32_t max = sl_arch_max_seq_len(&c->models[i].arch);
		if (max && c->models[i].st_max_seq_len)
			assert_true(c->models[i].st_max_seq_len <= max);
	}
	sl_arena_free(a);
}

static void test_names(void **state)
{
	(void)state;
	for (int f = 0; f < SL_FAMILY__COUNT; f++) /* a custom module stack never comes from a config's model_type */
		assert_int_equal(sl_family_parse(sl_family_name((enum sl_family)f)), f == SL_FAMILY_CUSTOM ? -1 : f);
	assert_int_equal(sl_family_parse("xlm_roberta"), SL_FAMILY_XLM_ROBERTA);
	assert_int_equal(sl_family_parse("xlstm"), -1);
	for (int t = 0; t < SL_TASK__COUNT; t++)
		assert_int_equal(sl_task_parse(sl_task_name((enum sl_task)t)), t);
	assert_int_equal(sl_task_parse("bi-encoder"), SL_TASK_BI_ENCODER);
	assert_int_equal(sl_task_parse("regression"), -1);
}

/* A from-scratch shape (sl_model_from_hparams): GPT-2's published sizes from their n_layer/n_embd/n_head. */
static void test_hparams(void **state)
{
	(void)state;
	struct sl_arena *a = sl_arena_new();
	/* gpt2 (124,439,808) and gpt2-medium (354,823,168): vocabulary 50257, 1024 positions, FFN 4h, tied */
	const struct sl_hparams small = {.layers = 12, .hidden = 768, .heads = 12, .vocab = 50257, .context = 1024,
					 .keys = "test"};
	const struct sl_model *m = sl_model_from_hparams(a, &small);
	assert_non_null(m);
	assert_int_equal(m->arch.family, SL_FAMILY_GPT2);
	assert_true(sl_arch_params(&m->arch) == 124439808);
	assert_string_equal(m->resolved_by, "hyperparameters");
	assert_null(strstr(m->resolved_note, "vocabulary")); /* given: not assumed */
	const struct sl_hparams medium = {.layers = 24, .hidden = 1024, .heads = 16};
	m = sl_model_from_hparams(a, &medium);
	assert_non_null(m);
	assert_true(sl_arch_params(&m->arch) == 354823168);
	assert_non_null(strstr(m->resolved_note, "vocabulary 50257")); /* assumed, and said */
	/* an explicit FFN width and head size are used */
	const struct sl_hparams wide = {.layers = 2, .hidden = 512, .heads = 8, .ffn = 1024, .head_dim = 32};
	m = sl_model_from_hparams(a, &wide);
	assert_non_null(m);
	assert_int_equal(m->arch.intermediate, 1024);
	assert_int_equal(m->arch.head_dim, 32);
	/* not a shape: a missing part, or a hidden size that does not split into the heads */
	const struct sl_hparams no_heads = {.layers = 2, .hidden = 512};
	assert_null(sl_model_from_hparams(a, &no_heads));
	const struct sl_hparams odd = {.layers = 2, .hidden = 500, .heads = 12};
	assert_null(sl_model_from_hparams(a, &odd));
	sl_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoders),     cmocka_unit_test(test_encoder_decoders),
		cmocka_unit_test(test_decoders),     cmocka_unit_test(test_catalog_counts),
		cmocka_unit_test(test_task_heads),   cmocka_unit_test(test_lora),
		cmocka_unit_test(test_largest_layer), cmocka_unit_test(test_max_seq_len),
		cmocka_unit_test(test_names), cmocka_unit_test(test_hparams),
		cmocka_unit_test(test_longformer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
