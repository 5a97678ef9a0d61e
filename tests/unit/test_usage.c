/*
 * test_usage: the estimate as the program uses the model (issue #28) — each term checked against a
 * computation by hand in the test, from the shapes and torch's / vLLM's own formulas:
 * - a custom nn.Module's layer list (src/memory/modules.c): parameter counts per torch.nn class,
 *   repeats and groups, bounds, refusals; its training step (src/memory/custom.c);
 * - a frozen backbone (only the classifier trains), frozen bottom layers, a program's own head;
 * - the part that runs (AutoModel without the LM head, an encoder-decoder's encoder);
 * - bi-encoders: texts per example from the loss, pair vs in-batch scores, separate encoders,
 *   a query length of its own;
 * - vLLM's start-up check (src/memory/vllm.c), fitting and refused;
 * - generation's load dtype (one rule for check and estimate);
 * - the role values that carry them (src/sweep/roles.c), and the `at risk` count of an evaluation
 *   (src/enumerate/provenance.c).
 */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/eval.h"
#include "sweeplint/memory.h"
#include "sweeplint/roles.h"
#include "sweeplint/scalar.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

#define MIB (1024.0 * 1024.0)

struct env {
	struct sl_arena *a;
	struct sl_catalog *cat;
	struct sl_keymap *keys;
	const struct sl_scalar_resolver *res;
};

static int setup(void **state)
{
	static struct env e;
	e.a = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, e.a);
	if (sl_catalog_load(e.a, &e.cat, &d) != 0)
		return -1;
	e.keys = sl_keymap_new(e.a, &d);
	e.res = sl_scalar_resolver_new(e.a);
	*state = &e;
	return e.keys ? 0 : -1;
}

static int teardown(void **state)
{
	struct env *e = *state;
	sl_arena_free(e->a);
	return 0;
}

static const struct sl_model *model(struct env *e, const char *name)
{
	const struct sl_model *m = sl_catalog_find_model(e->cat, name);
	assert_non_null(m);
	return m;
}

static const struct sl_gpu *gpu(struct env *e, const char *name)
{
	const struct sl_gpu *g = sl_catalog_find_gpu(e->a, e->cat, name);
	assert_non_null(g);
	return g;
}

/* PyTorch CublasHandlePool.cpp: ":4096:2:16:8" per handle (compute capability < 9) */
static double workspace(const struct sl_gpu *g)
{
	return g->cc_major >= 9 ? 4096.0 * 1024 * 8 : 4096.0 * 1024 * 2 + 16.0 * 1024 * 8;
}

static uint64_t count(struct env *e, const char *spec)
{
	struct sl_modules m;
	const char *why = NULL;
	if (sl_modules_parse(e->a, spec, &m, &why) != 0)
		fail_msg("%s: %s", spec, why);
	return m.params;
}

/* torch.nn's constructors, counted by hand from their parameter shapes */
static void test_modules_counts(void **state)
{
	struct env *e = *state;
	/* Linear(in, out): weight out x in, bias out */
	assert_int_equal(count(e, "Linear(768, 2)"), 768 * 2 + 2);
	assert_int_equal(count(e, "nn.Linear(768, 2, bias=False)"), 768 * 2);
	/* Embedding(num, dim): one table */
	assert_int_equal(count(e, "Embedding(30000, 256)"), 30000 * 256);
	/* Conv2d(3, 64, 3): weight 64 x 3 x 3 x 3, bias 64; Conv1d with groups: in/groups per filter; 3x5 kernel */
	assert_int_equal(count(e, "Conv2d(3, 64, 3)"), 64 * 3 * 3 * 3 + 64);
	assert_int_equal(count(e, "Conv1d(16, 32, 5, groups=4)"), 32 * (16 / 4) * 5 + 32);
	assert_int_equal(count(e, "Conv2d(8, 16, kernel_size=3x5, bias=False)"), 16 * 8 * 3 * 5);
	/* MultiheadAttention(512, 8): in_proj 3e x e + 3e, out_proj e x e + e */
	assert_int_equal(count(e, "MultiheadAttention(512, 8)"), 3 * 512 * 512 + 3 * 512 + 512 * 512 + 512);
	/* TransformerEncoderLayer(256, 8, 1024): attention, linear1, linear2, norm1, norm2 */
	uint64_t tel = (3 * 256 * 256 + 3 * 256 + 256 * 256 + 256) + (256 * 1024 + 1024) + (1024 * 256 + 256) + 2 * 2 * 256;
	assert_int_equal(count(e, "TransformerEncoderLayer(256, 8, dim_feedforward=1024)"), tel);
	/* the default dim_feedforward is 2048 */
	uint64_t tel2048 = (3 * 256 * 256 + 3 * 256 + 256 * 256 + 256) + (256 * 2048 + 2048) + (2048 * 256 + 256) + 4 * 256;
	assert_int_equal(count(e, "TransformerEncoderLayer(256, 8)"), tel2048);
	/* a decoder layer adds the cross-attention and norm3 */
	uint64_t mha = 3 * 256 * 256 + 3 * 256 + 256 * 256 + 256;
	assert_int_equal(count(e, "TransformerDecoderLayer(256, 8, 1024)"), tel + mha + 2 * 256);
	/* LSTM(128, 256, num_layers=2, bidirectional=True): per layer and direction 4h(in + h) + 8h; layer 1 reads 2h */
	uint64_t l0 = 4 * 256 * (128 + 256) + 8 * 256, l1 = 4 * 256 * (512 + 256) + 8 * 256;
	assert_int_equal(count(e, "LSTM(128, 256, num_layers=2, bidirectional=True)"), 2 * (l0 + l1));
	/* GRU(100, 50): 3h(in + h) + 6h; RNN: h(in + h) + 2h */
	assert_int_equal(count(e, "GRU(100, 50)"), 3 * 50 * (100 + 50) + 6 * 50);
	assert_int_equal(count(e, "RNN(10, 20, 1, False)"), 20 * (10 + 20));
	/* LayerNorm(d): weight and bias; without affine none; BatchNorm2d(c): weight and bias */
	assert_int_equal(count(e, "LayerNorm(512)"), 2 * 512);
	assert_int_equal(count(e, "LayerNorm(512, elementwise_affine=False)"), 0 + 0 * 1); /* nothing */
	assert_int_equal(count(e, "BatchNorm2d(64)"), 2 * 64);
	/* a stack: repeats and groups, width-less activations */
	assert_int_equal(count(e, "Embedding(30000, 256); 2*TransformerEncoderLayer(256, 8, 1024); Linear(256, 2)"),
			 30000 * 256 + 2 * tel + 256 * 2 + 2);
	assert_int_equal(count(e, "3*[Linear(64, 64); ReLU(); Dropout(0.1)]; LayerNorm(64)"), 3 * (64 * 64 + 64) + 2 * 64);

	struct sl_modules m;
	const char *why = NULL;
	assert_int_equal(sl_modules_parse(e->a, "<= Linear(4096, 4096); GELU()", &m, &why), 0);
	assert_true(m.bound);
	assert_int_equal(m.width, 4096);
	assert_int_equal(m.layers, 2);
	/* refusals say where */
	static const char *const bad[] = {
		"",  "Linear(3)", "Foo(1, 2)", "Linear(1, 2", "2*[Linear(1, 2)", "0*Linear(1, 2)",
		"MultiheadAttention(10, 3)", "Conv1d(6, 4, 3, groups=4)", "Linear(1, 2) junk", "Linear(99999999999999999999999, 2)",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why = NULL;
		assert_int_equal(sl_modules_parse(e->a, bad[i], &m, &why), -1);
		assert_non_null(why);
	}
	/* saturates instead of wrapping */
	assert_int_equal(sl_modules_parse(e->a, "4*[Linear(4294967296, 4294967296)]", &m, &why), 0);
	assert_true(m.params == UINT64_MAX);
}

/* One combination of the sweep's values for the sizes in braces (moddims.c): name=value pairs. */
struct combo {
	const char *names[4];
	struct sl_modules_val vals[4];
};

static bool combo_value(void *ctx, const char *name, struct sl_modules_val *out)
{
	const struct combo *c = ctx;
	for (size_t i = 0; i < 4 && c->names[i]; i++)
		if (strcmp(c->names[i], name) == 0) {
			*out = c->vals[i];
			return true;
		}
	return false;
}

/* Every parameter ranges over [lo, hi] of the pair named (d_model 256..512, heads 4..8, layers 2..6). */
static bool combo_range(void *ctx, const char *name, double *lo, double *hi)
{
	(void)ctx;
	if (strcmp(name, "d_model") == 0)
		*lo = 256, *hi = 512;
	else if (strcmp(name, "heads") == 0)
		*lo = 4, *hi = 8;
	else if (strcmp(name, "layers") == 0)
		*lo = 2, *hi = 6;
	else
		return false;
	return true;
}

static uint64_t count_env(struct env *e, const char *spec, const struct sl_modules_env *env, bool *bound)
{
	struct sl_modules m;
	const char *why = NULL;
	if (sl_modules_parse_env(e->a, spec, env, &m, &why) != 0)
		fail_msg("%s: %s", spec, why);
	if (bound)
		*bound = m.bound;
	return m.params;
}

#define IV(x) ((struct sl_modules_val){.kind = SL_MV_INT, .i = (x)})

/* Sizes computed from sweep parameters: counted per combination, bounded over all, value maps, refusals. */
static void test_module_sizes(void **state)
{
	struct env *e = *state;
	const char *spec = "Embedding(1000, {d_model}); {layers}*[TransformerEncoderLayer({d_model}, {heads}, "
			   "dim_feedforward={d_model * 4})]; Linear({d_model}, {d_model // heads})";
	struct combo c = {{"d_model", "layers", "heads"}, {IV(512), IV(3), IV(8)}};
	struct sl_modules_env exact = {.value = combo_value, .ctx = &c};
	/* d 512, 3 layers, 8 heads: the table, three encoder layers of ff 2048, a Linear to 512 / 8 = 64 */
	uint64_t d = 512, ff = 4 * d;
	uint64_t tel = (4 * d * d + 4 * d) + (d * ff + ff) + (ff * d + d) + 4 * d;
	bool bound = true;
	assert_int_equal(count_env(e, spec, &exact, &bound), 1000 * d + 3 * tel + d * 64 + 64);
	assert_false(bound);
	/* the list names its parameters once each, in order */
	const char **names = NULL;
	assert_int_equal(sl_moddim_params(e->a, spec, &names), 3);
	assert_string_equal(names[0], "d_model");
	assert_string_equal(names[1], "layers");
	assert_string_equal(names[2], "heads");
	/* bounded: every size at its largest (d 512, 6 layers), d // heads at 512 // 4 = 128: an upper bound */
	struct sl_modules_env range = {.range = combo_range};
	assert_int_equal(count_env(e, spec, &range, &bound), 1000 * d + 6 * tel + d * 128 + 128);
	assert_true(bound);
	/* a value map of one parameter: {size['small': 256, 'large': 1024]}, a backquoted name, max() */
	struct combo s = {{"model-size"}, {{.kind = SL_MV_STR, .s = "large", .slen = 5}}};
	struct sl_modules_env exact_s = {.value = combo_value, .ctx = &s};
	assert_int_equal(count_env(e, "Linear(8, {`model-size`['small': 256, 'large': 1024]})", &exact_s, NULL),
			 8 * 1024 + 1024);
	assert_int_equal(count_env(e, "Linear({max(3, 5) + 1}, {(2 + 2) * 3 % 5})", &exact_s, NULL), 6 * 2 + 2);
	/* True/False keys match booleans, integer keys integers (1 is not true) */
	struct combo b = {{"wide"}, {{.kind = SL_MV_BOOL, .b = true}}};
	struct sl_modules_env exact_b = {.value = combo_value, .ctx = &b};
	assert_int_equal(count_env(e, "Linear(4, {wide[False: 8, True: 16]})", &exact_b, NULL), 4 * 16 + 16);
	/* refusals: no combination, a value map without the value's case, a value that is no integer, a division
	 * by a range reaching zero, a parameter the combination does not hold */
	struct combo f = {{"d_model"}, {{.kind = SL_MV_FLOAT, .f = 0.5}}};
	struct sl_modules_env exact_f = {.value = combo_value, .ctx = &f};
	struct sl_modules m;
	const char *why = NULL;
	assert_int_equal(sl_modules_parse_env(e->a, "Linear(4, {d_model})", NULL, &m, &why), -1);
	assert_non_null(strstr(why, "needs a combination"));
	assert_int_equal(sl_modules_parse_env(e->a, "Linear(4, {wide[False: 8]})", &exact_b, &m, &why), -1);
	assert_non_null(strstr(why, "no case"));
	assert_int_equal(sl_modules_parse_env(e->a, "Linear(4, {d_model})", &exact_f, &m, &why), -1);
	assert_non_null(strstr(why, "not an integer"));
	assert_int_equal(sl_modules_parse_env(e->a, "Linear(4, {d_model // (heads - 4)})", &range, &m, &why), -1);
	assert_non_null(strstr(why, "zero"));
	assert_int_equal(sl_modules_parse_env(e->a, "Linear(4, {vocab})", &exact, &m, &why), -1);
	assert_non_null(strstr(why, "vocab"));
	assert_int_equal(sl_modules_parse_env(e->a, "Linear(4, {d_model", &exact, &m, &why), -1);
}

/* What a hand-written module holds and keeps (pymodules.py writes them): Parameter, Kept, attention. */
static void test_module_extras(void **state)
{
	struct env *e = *state;
	struct sl_modules m;
	/* nn.Parameter(torch.zeros(1, 256, 384)): 98,304 parameters, nothing kept, the width unchanged */
	assert_int_equal(sl_modules_parse(e->a, "Linear(10, 384); Parameter(98304)", &m, NULL), 0);
	assert_int_equal(m.params, 10 * 384 + 384 + 98304);
	assert_int_equal(m.width, 384);
	/* Kept(N): N more elements per position, no parameters; EagerAttention(H): 3 s x s per head; SDPA(H):
	 * a logsumexp per head */
	struct sl_modules base, more;
	assert_int_equal(sl_modules_parse(e->a, "Linear(64, 64)", &base, NULL), 0);
	assert_int_equal(sl_modules_parse(e->a, "Linear(64, 64); Kept(384); EagerAttention(8); SDPA(4)", &more, NULL), 0);
	assert_int_equal(more.params, base.params);
	assert_true(more.kept == base.kept + 384);
	assert_true(more.attn_heads == 24);
	assert_true(more.sdpa_heads == 4);
	assert_int_equal(sl_modules_parse(e->a, "EagerAttention()", &m, NULL), -1);
}

/* A custom stack's training step, term by term (custom.c): fp32, AdamW, batch 32 of one position each. */
static void test_custom_estimate(void **state)
{
	struct env *e = *state;
	struct sl_modules mods;
	assert_int_equal(sl_modules_parse(e->a, "Linear(1024, 4096); ReLU(); Linear(4096, 10)", &mods, NULL), 0);
	const struct sl_model *m = sl_model_from_modules(e->a, &mods);
	assert_non_null(m);
	assert_int_equal(m->arch.family, SL_FAMILY_CUSTOM);
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	struct sl_settings s;
	sl_settings_default(&s);
	s.batch_size = 32;
	s.seq_len = 1;
	struct sl_breakdown b;
	sl_estimate(&m->arch, &s, g, &e->cat->calib, &b);
	double P = 1024.0 * 4096 + 4096 + 4096.0 * 10 + 10;
	assert_int_equal(b.params, (uint64_t)P);
	assert_int_equal(b.trainable, (uint64_t)P);
	assert_int_equal(b.weights, (uint64_t)(4 * P));
	assert_int_equal(b.gradients, (uint64_t)(4 * P));
	/* AdamW: two float32 states, and torch's foreach step one state-sized temporary */
	assert_int_equal(b.optimizer, (uint64_t)(8 * P + 4 * P));
	/* kept per position: each Linear's input, the ReLU's output, the loss's input (10 logits); the
	 * working set the largest layer's (the ReLU: input and output, 4096 each) */
	double kept = 32.0 * (1024 + 4096 + 4096 + 10) * 4, work = 32.0 * (2 * 4096) * 4;
	assert_int_equal(b.activations, (uint64_t)(kept + work));
	const struct sl_calib *c = &e->cat->calib;
	double slack = c->slack_frac * (kept + work) + (double)c->slack_min;
	assert_int_equal(b.slack, (uint64_t)llround(slack));
	double total = (double)c->cuda_context + 2 * workspace(g) + 4 * P + 4 * P + 12 * P + kept + work;
	assert_true(fabs((double)b.total - (total + slack)) <= 2);
	assert_true(b.bound);

	/* frozen: only the head the program adds trains; the stack keeps nothing but the head's input */
	s.frozen_layers = SL_FROZEN_BACKBONE;
	s.head_params = 4096 * 2 + 2;
	sl_estimate(&m->arch, &s, g, &e->cat->calib, &b);
	assert_int_equal(b.trainable, 4096 * 2 + 2);
	assert_int_equal(b.gradients, 4 * (4096 * 2 + 2));
	assert_int_equal(b.activations, (uint64_t)(32.0 * 10 * 4 + work)); /* the stack's output, 10 wide */
}

/* A frozen backbone: bert-base-uncased for sequence classification with only its classifier training. */
static void test_frozen_backbone(void **state)
{
	struct env *e = *state;
	const struct sl_model *m = model(e, "bert-base-uncased");
	const struct sl_arch *a = &m->arch;
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	const struct sl_calib *c = &e->cat->calib;
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_SEQ_CLS;
	s.batch_size = 16;
	s.seq_len = 128;
	s.frozen_layers = SL_FROZEN_BACKBONE;
	s.frozen_embeddings = true;
	struct sl_breakdown b;
	sl_estimate(a, &s, g, c, &b);
	/* BertForSequenceClassification's classifier: Linear(768, 2); bert (the pooler too) frozen */
	double T = 768.0 * 2 + 2, P = (double)sl_arch_params_for_task(a, SL_TASK_SEQ_CLS);
	assert_int_equal(b.trainable, (uint64_t)T);
	assert_int_equal(b.params, (uint64_t)P);
	/* the peak is the forward: weights, AdamW's states of the classifier, no gradient yet; no layer keeps
	 * activations (nothing below the classifier requires grad), the 4-D padding mask is kept, and the
	 * frozen layers' no-grad working set — three hidden-wide tensors, the FFN's input and output
	 * (larger than SDPA's q, k, v, out) and a mask — is alive while each runs */
	assert_int_equal(b.phase, SL_PHASE_FORWARD);
	double n = 128, h = 768, I = 3072, bs = 16;
	double mask = n * n * 4;
	double ws = 3 * n * h * 4 + fmax(4 * n * h * 4, 2 * 4 * n * I) + n * n * 4;
	assert_int_equal(b.activations, (uint64_t)(bs * (mask + ws)));
	assert_int_equal(b.frozen_ws, (uint64_t)(bs * ws));
	assert_int_equal(b.logits, (uint64_t)(bs * 1 * 2 * 12)); /* two labels' logits and loss, per sequence */
	assert_int_equal(b.weights, (uint64_t)(4 * P));
	assert_int_equal(b.optimizer, (uint64_t)(8 * T));
	assert_int_equal(b.gradients, 0);
	double dyn = bs * (mask + ws) + bs * 24;
	double total = (double)c->cuda_context + 2 * workspace(g) + 4 * P + 8 * T + dyn + c->slack_frac * dyn +
		       (double)c->slack_min;
	assert_true(fabs((double)b.total - total) <= 2);

	/* a full fine-tune of the same run is far larger: the frozen estimate is the one that fits small cards */
	struct sl_settings full = s;
	full.frozen_layers = 0;
	full.frozen_embeddings = false;
	struct sl_breakdown fb;
	sl_estimate(a, &full, g, c, &fb);
	assert_true(fb.total > b.total + (uint64_t)(12 * (P - T)));

	/* the bottom 6 of 12 layers frozen (and the embeddings): the trainable share is 6 layers' parameters
	 * with the pooler and classifier; the top layers keep their activations */
	uint64_t enc, dec;
	sl_arch_layer_params(a, &enc, &dec);
	/* one BERT layer: q, k, v, o with biases, intermediate and output dense, two LayerNorms */
	assert_int_equal(enc, 4 * (768 * 768 + 768) + (768 * 3072 + 3072) + (3072 * 768 + 768) + 2 * 2 * 768);
	s.frozen_layers = 6;
	sl_estimate(a, &s, g, c, &b);
	double embeddings = (30522.0 + 512 + 2) * 768 + 2 * 768;
	assert_int_equal(b.trainable, (uint64_t)(P - embeddings - 6.0 * (double)enc));
	struct sl_breakdown none;
	s.frozen_layers = 0;
	s.frozen_embeddings = false;
	sl_estimate(a, &s, g, c, &none);
	assert_true(b.total < none.total);

	/* a head the program adds on a frozen AutoModel (part base): it alone trains */
	s.part = SL_PART_BASE;
	s.frozen_layers = SL_FROZEN_BACKBONE;
	s.frozen_embeddings = true;
	s.head_params = 768 * 256 + 256 + 256 * 3 + 3;
	sl_estimate(a, &s, g, c, &b);
	assert_int_equal(b.trainable, s.head_params);
	assert_int_equal(b.params, sl_arch_params_for_part(a, SL_TASK_SEQ_CLS, SL_PART_BASE) + s.head_params);
}

/* The part that runs: AutoModel has no LM head; an encoder-decoder's encoder runs alone. */
static void test_part(void **state)
{
	struct env *e = *state;
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	const struct sl_calib *c = &e->cat->calib;
	const struct sl_model *llama = model(e, "llama-3.2-1b");
	/* LlamaModel: embeddings, layers and the final norm; the untied head (V x h) is gone */
	const struct sl_arch *la = &llama->arch;
	uint64_t full = sl_arch_params_for_task(la, SL_TASK_CAUSAL_LM);
	uint64_t head = la->tied ? 0 : (uint64_t)la->vocab * la->hidden;
	assert_int_equal(sl_arch_params_for_part(la, SL_TASK_CAUSAL_LM, SL_PART_BASE), full - head);
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.part = SL_PART_BASE;
	s.seq_len = 256;
	struct sl_breakdown b;
	sl_estimate(la, &s, g, c, &b);
	assert_int_equal(b.params, full - head);
	assert_true(b.logits < (uint64_t)(1 * MIB)); /* no vocabulary logits: the program's loss on hidden states */

	/* t5-base's encoder alone (T5EncoderModel, get_encoder()): no decoder, no head */
	const struct sl_model *t5 = model(e, "t5-base");
	struct sl_arch enc = t5->arch;
	enc.enc_only = true;
	sl_settings_default(&s);
	s.task = SL_TASK_SEQ2SEQ;
	s.part = SL_PART_ENCODER;
	s.seq_len = 256;
	sl_estimate(&t5->arch, &s, g, c, &b);
	assert_int_equal(b.params, sl_arch_params(&enc));
	assert_true(b.params < sl_arch_params(&t5->arch) / 2 + (uint64_t)t5->arch.vocab * t5->arch.hidden);
	assert_true(b.logits < (uint64_t)(1 * MIB));
}

/* Bi-encoders: the batch of texts is batch x texts per example, the loss decides both. */
static void test_bi_encoder(void **state)
{
	struct env *e = *state;
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	const struct sl_calib *c = &e->cat->calib;
	const struct sl_arch *a = &model(e, "bert-base-uncased")->arch;
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_BI_ENCODER;
	s.batch_size = 1024;
	s.seq_len = 8;
	/* the backbone frozen: no layer's backward, so the scores of the loss are alive at the peak */
	s.frozen_layers = SL_FROZEN_BACKBONE;
	s.frozen_embeddings = true;
	assert_int_equal(sl_settings_texts(&s), 2);
	s.loss = SL_LOSS_TRIPLET;
	assert_int_equal(sl_settings_texts(&s), 3);
	struct sl_breakdown trip, three;
	sl_estimate(a, &s, g, c, &trip);
	struct sl_settings t = s;
	t.loss = SL_LOSS_IN_BATCH;
	t.texts_per_example = 3;
	sl_estimate(a, &t, g, c, &three);
	/* the same 3 x 1024 texts through the encoder; the triplet loss scores each example (b x 2) where
	 * in-batch negatives score every pair (b x 2b), 12 bytes a score */
	assert_int_equal(trip.activations, three.activations);
	assert_int_equal(trip.phase, SL_PHASE_FORWARD);
	double bb = 1024, k = 2;
	assert_int_equal(three.logits - trip.logits, (uint64_t)(bb * bb * k * 12 - bb * k * 12));

	/* separate query and passage encoders: every static term twice */
	struct sl_breakdown one, two;
	sl_settings_default(&s);
	s.task = SL_TASK_BI_ENCODER;
	s.batch_size = 1;
	s.seq_len = 8;
	sl_estimate(a, &s, g, c, &one);
	s.separate_encoders = true;
	sl_estimate(a, &s, g, c, &two);
	assert_int_equal(two.params, 2 * one.params);
	assert_int_equal(two.trainable, 2 * one.trainable);
	assert_true(llabs((long long)two.weights - 2 * (long long)one.weights) <= 1);

	/* a query length of its own: at the passages' length the same as none; shorter, less */
	sl_settings_default(&s);
	s.task = SL_TASK_BI_ENCODER;
	s.batch_size = 64;
	s.seq_len = 512;
	struct sl_breakdown plain, same, shorter;
	sl_estimate(a, &s, g, c, &plain);
	s.query_len = 512;
	sl_estimate(a, &s, g, c, &same);
	assert_int_equal(same.total, plain.total);
	s.query_len = 32;
	sl_estimate(a, &s, g, c, &shorter);
	assert_true(shorter.activations < plain.activations);
	/* each passage in 4 chunks: 64 queries and 256 chunks through the encoder */
	s.query_len = 0;
	s.chunks_per_text = 4;
	struct sl_breakdown chunks;
	sl_estimate(a, &s, g, c, &chunks);
	s.chunks_per_text = 0;
	s.texts_per_example = 5; /* a query and four texts: the same 320 sequences */
	struct sl_breakdown five;
	sl_estimate(a, &s, g, c, &five);
	assert_true(llabs((long long)chunks.activations - (long long)five.activations) < (long long)(1 * MIB));
}

/* vLLM's start-up check by hand: llama-3.1-8b in bf16 on a 24 GiB card (no "large" defaults). */
static void test_vllm(void **state)
{
	struct env *e = *state;
	const struct sl_model *m = model(e, "llama-3.1-8b");
	const struct sl_arch *a = &m->arch;
	const struct sl_gpu *g = gpu(e, "rtx4090");
	const struct sl_calib *c = &e->cat->calib;
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = SL_TASK_CAUSAL_LM;
	s.mode = SL_MODE_GENERATE;
	s.engine = SL_ENGINE_VLLM;
	sl_settings_workload_dtype(&s, false, g->bf16);
	assert_int_equal(s.dtype, SL_DTYPE_BF16);
	struct sl_breakdown b;
	sl_estimate(a, &s, g, c, &b);
	assert_int_equal(b.phase, SL_PHASE_VLLM);
	double P = (double)sl_arch_params_for_task(a, SL_TASK_CAUSAL_LM);
	double weights = 2 * P;
	/* max_model_len: the config's 131072 positions, in blocks of 16: k and v of 32 layers, 8 KV heads of 128 */
	double kv = 2.0 * 32 * 131072 * 8 * 128 * 2;
	/* the profile run: 8192 tokens (the LLM class's default under 70 GiB), residual, norm and output,
	 * then the FFN's gate+up and activation (3 x 14336 wide, larger than attention's q, k, v, out); the
	 * sampler over 256 rows of 128256 logits at vllm_sampler_bytes each, with the hidden states alive */
	double tokens = (double)c->vllm_batched_tokens, rows = (double)c->vllm_max_seqs;
	double work = tokens * (3 * 4096 * 2 + 3 * 14336 * 2.0);
	double sampler = rows * 128256 * c->vllm_sampler_bytes + tokens * 4096 * 2;
	double peak = fmax(work, sampler);
	assert_int_equal(b.kv_cache, (uint64_t)kv);
	assert_int_equal(b.activations, (uint64_t)llround(peak));
	assert_int_equal(b.weights, (uint64_t)weights);
	double inside = (double)c->vllm_non_torch + weights + peak + kv;
	double share = c->vllm_utilization * (double)g->bytes;
	assert_true(inside > share); /* 16 GiB of KV cache for one 131072-token sequence: vLLM refuses */
	assert_true(b.total > g->bytes);
	double outside = (double)g->bytes - share - (double)c->cuda_context;
	assert_true(fabs((double)b.total - ((double)c->cuda_context + inside + outside)) <= 4);

	/* max_model_len 8192 starts: the share holds weights, the profile and a KV pool of the rest */
	s.max_model_len = 8192;
	sl_estimate(a, &s, g, c, &b);
	kv = 2.0 * 32 * 8192 * 8 * 128 * 2;
	inside = (double)c->vllm_non_torch + weights + peak + kv;
	assert_true(inside <= share);
	assert_true(b.total <= g->bytes);
	assert_true(fabs((double)(b.kv_cache + b.preallocated) - (share - (double)c->vllm_non_torch - weights - peak)) <= 4);
	assert_int_equal(b.outside_share, 0);

	/* tensor parallelism 2: half the weights and KV heads on each GPU */
	s.tensor_parallel = 2;
	struct sl_breakdown tp;
	sl_estimate(a, &s, g, c, &tp);
	assert_true(llabs((long long)tp.weights - (long long)(weights / 2)) <= 1);
	assert_int_equal(tp.kv_cache, (uint64_t)(kv / 2));
}

/* Generation loads the checkpoint's 16-bit dtype unless a precision is given; training keeps fp32. */
static void test_workload_dtype(void **state)
{
	(void)state;
	struct sl_settings s;
	sl_settings_default(&s);
	s.mode = SL_MODE_GENERATE;
	sl_settings_workload_dtype(&s, false, true);
	assert_int_equal(s.dtype, SL_DTYPE_BF16);
	sl_settings_default(&s);
	s.mode = SL_MODE_GENERATE;
	sl_settings_workload_dtype(&s, false, false); /* a V100: fp16 */
	assert_int_equal(s.dtype, SL_DTYPE_FP16);
	sl_settings_default(&s);
	s.mode = SL_MODE_GENERATE;
	sl_settings_workload_dtype(&s, true, true); /* stated: left alone */
	assert_int_equal(s.dtype, SL_DTYPE_FP32);
	sl_settings_default(&s);
	sl_settings_workload_dtype(&s, false, true); /* training: the memory model's fp32 default */
	assert_int_equal(s.dtype, SL_DTYPE_FP32);
}

static struct sl_role_value value(struct env *e, enum sl_role r, const char *key, const char *text)
{
	const struct sl_key_rule *rule = key ? sl_keymap_match(e->keys, key, strlen(key)) : NULL;
	if (key) {
		assert_non_null(rule);
		assert_int_equal(rule->role, r);
	}
	struct sl_role_value v;
	const char *why = NULL;
	if (sl_role_value_from_text(e->a, r, rule, text, NULL, &v, &why) != 0)
		fail_msg("%s=%s: %s", key ? key : sl_role_name(r), text, why);
	return v;
}

/* The roles and the keys that carry them (rules/keys.yaml). */
static void test_roles(void **state)
{
	struct env *e = *state;
	struct sl_settings s;
	sl_settings_default(&s);
	struct sl_role_value v = value(e, SL_ROLE_FROZEN, "freeze_backbone", "true");
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.frozen_layers, SL_FROZEN_BACKBONE);
	v = value(e, SL_ROLE_FROZEN, "num_frozen_layers", "6");
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.frozen_layers, 6);
	assert_true(s.frozen_embeddings);
	v = value(e, SL_ROLE_FROZEN, "freeze_embeddings", "true");
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.frozen_layers, 0);
	assert_true(s.frozen_embeddings);
	v = value(e, SL_ROLE_HEAD_PARAMS, NULL, "Linear(4096, 256); ReLU(); Linear(256, 2)");
	assert_int_equal(v.u, 4096 * 256 + 256 + 256 * 2 + 2);
	v = value(e, SL_ROLE_HEAD_PARAMS, "sweeplint_head_params", "1538");
	assert_int_equal(v.u, 1538);
	v = value(e, SL_ROLE_PART, "model_part", "T5EncoderModel");
	assert_int_equal(v.u, SL_PART_ENCODER);
	v = value(e, SL_ROLE_PART, NULL, "AutoModel");
	assert_int_equal(v.u, SL_PART_BASE);
	/* a sentence-transformers loss sets the task too */
	v = value(e, SL_ROLE_LOSS, "loss", "losses.MultipleNegativesRankingLoss");
	assert_int_equal(v.u, SL_LOSS_IN_BATCH);
	assert_int_equal(v.nalso, 1);
	assert_int_equal(v.also[0].role, SL_ROLE_TASK);
	sl_settings_default(&s);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.task, SL_TASK_BI_ENCODER);
	/* another loss leaves everything alone */
	v = value(e, SL_ROLE_LOSS, "loss", "cross_entropy");
	sl_settings_default(&s);
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.loss, SL_LOSS_NONE);
	assert_int_equal(s.task, SL_TASK_SEQ_CLS);
	/* dynamic padding: padding True / longest; pad_to_max_length false; a convolution's padding is none of it */
	sl_settings_default(&s);
	v = value(e, SL_ROLE_PADDING, "padding", "longest");
	sl_settings_apply(&s, &v, true);
	assert_true(s.dynamic_padding);
	v = value(e, SL_ROLE_PADDING, "pad_to_max_length", "true");
	sl_settings_apply(&s, &v, true);
	assert_false(s.dynamic_padding);
	v = value(e, SL_ROLE_PADDING, "pad_to_max_length", "false");
	sl_settings_apply(&s, &v, true);
	assert_true(s.dynamic_padding);
	v = value(e, SL_ROLE_PADDING, "padding", "same");
	sl_settings_apply(&s, &v, true);
	assert_true(s.dynamic_padding); /* unchanged */
	/* bi-encoder keys: the query's length is no longer the passages' seq_len */
	v = value(e, SL_ROLE_QUERY_LEN, "query_max_len", "64");
	assert_int_equal(v.u, 64);
	v = value(e, SL_ROLE_SEQ_LEN, "passage_max_len", "256");
	assert_int_equal(v.u, 256);
	v = value(e, SL_ROLE_SEPARATE_ENCODERS, "untie_encoder", "true");
	assert_int_equal(v.u, 1);
	v = value(e, SL_ROLE_SEPARATE_ENCODERS, "shared_encoder", "true");
	assert_int_equal(v.u, 0);
	/* vLLM */
	v = value(e, SL_ROLE_MAX_MODEL_LEN, "max_model_len", "8192");
	assert_int_equal(v.u, 8192);
	v = value(e, SL_ROLE_TENSOR_PARALLEL, "tensor_parallel_size", "2");
	assert_int_equal(v.u, 2);
	v = value(e, SL_ROLE_ENGINE, "use_vllm", "true");
	assert_int_equal(v.u, SL_ENGINE_VLLM);
	v = value(e, SL_ROLE_MODULES, "sweeplint_modules", "Linear(10, 2)");
	assert_int_equal(v.u, 22);
	/* a layer list that cannot be counted is refused with why */
	struct sl_role_value bad;
	const char *why = NULL;
	assert_int_equal(sl_role_value_from_text(e->a, SL_ROLE_MODULES, NULL, "Frobnicate(3)", NULL, &bad, &why),
			 -SL_EPARSE);
	assert_non_null(strstr(why, "Frobnicate"));
}

static struct sl_eval *eval_text(struct env *e, struct sl_arena *a, const char *text, const char *gpu_name)
{
	struct sl_diags d;
	sl_diags_init(&d, a);
	struct sl_source *src = sl_source_from_bytes(a, "sweep.yaml", text, strlen(text));
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, e->res, &d);
	assert_true(doc->ok);
	struct sl_sweep *sw = sl_sweep_load(a, doc);
	struct sl_eval_opts o = {.cat = e->cat, .gpu = gpu(e, gpu_name), .keys = e->keys, .headroom = 1.0,
				 .resolver = e->res};
	struct sl_eval *ev = NULL;
	const char *why = NULL;
	if (sl_eval_run(a, sw, &o, &d, &ev, &why) != 0)
		fail_msg("%s", why);
	return ev;
}

/*
 * LLaMA-Factory's freeze tuning (model/adapter.py _setup_freeze_tuning @ff6d4d12): the last 2 layers
 * train by default; negative counts the first ones; freeze_trainable_modules picks modules of those
 * layers, freeze_extra_modules adds the embeddings, the head, the final norm. Llama-2-7b by hand: a
 * layer is q, k, v, o (4h²), gate, up, down (3hI) and two RMSNorms (2h).
 */
static void test_freeze_tuning(void **state)
{
	struct env *e = *state;
	const struct sl_model *m = model(e, "llama-2-7b");
	const struct sl_arch *a = &m->arch;
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	const struct sl_calib *c = &e->cat->calib;
	double h = 4096, I = 11008, V = 32000;
	double layer = 4 * h * h + 3 * h * I + 2 * h;
	assert_int_equal((uint64_t)layer, 202383360);
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = m->task;
	s.batch_size = 4;
	s.seq_len = 512;
	s.dtype = SL_DTYPE_BF16;
	s.full_tuning = s.freeze_tuning = true;
	struct sl_breakdown b, full;
	sl_estimate(a, &s, g, c, &b);
	double P = (double)sl_arch_params_for_task(a, m->task);
	assert_int_equal(b.params, (uint64_t)P);
	assert_int_equal(b.trainable, (uint64_t)(2 * layer));
	/* AdamW's two states per trainable parameter in its dtype (bf16 here), none for the frozen ones */
	assert_int_equal(b.optimizer, (uint64_t)(2 * 2 * 2 * layer));
	assert_int_equal(b.weights, (uint64_t)(2 * P));
	struct sl_settings f = s;
	f.freeze_tuning = false;
	sl_estimate(a, &f, g, c, &full);
	assert_int_equal(full.trainable, (uint64_t)P);
	assert_true(b.total + (uint64_t)(5 * (P - 2 * layer)) < full.total);

	/* freeze_extra_modules embed_tokens, lm_head, norm: V·h twice (untied) and h */
	s.freeze_extra = SL_FZX_EMBED | SL_FZX_HEAD | SL_FZX_NORM;
	sl_estimate(a, &s, g, c, &b);
	assert_int_equal(b.trainable, (uint64_t)(2 * layer + 2 * V * h + h));
	s.freeze_extra = 0;
	/* freeze_trainable_modules mlp: gate, up, down of the last 2 layers */
	s.trainable_modules = SL_FZ_MLP;
	sl_estimate(a, &s, g, c, &b);
	assert_int_equal(b.trainable, (uint64_t)(2 * 3 * h * I));
	s.trainable_modules = SL_FZ_MLP | SL_FZ_OTHER; /* a module of another name: the whole layer */
	sl_estimate(a, &s, g, c, &b);
	assert_int_equal(b.trainable, (uint64_t)(2 * layer));
	s.trainable_modules = 0;
	/* more layers than the model has: all 32 */
	s.trainable_layers = 40;
	sl_estimate(a, &s, g, c, &b);
	assert_int_equal(b.trainable, (uint64_t)(32 * layer));

	s.batch_size = 16;
	s.seq_len = 1024;
	/* the first 2 layers (-2): the 30 frozen layers above run with grad and keep what a frozen layer
	 * keeps; LLaMA-Factory's checkpointing skips them, so what they add does not depend on it */
	struct sl_breakdown pos, neg, pos_gc, neg_gc;
	s.trainable_layers = 2;
	sl_estimate(a, &s, g, c, &pos);
	s.trainable_layers = -2;
	sl_estimate(a, &s, g, c, &neg);
	assert_int_equal(neg.trainable, pos.trainable);
	/* a frozen layer keeps less than a trainable one (no linear's input) but most of it: two more
	 * trainable layers (4 vs 2) add 2 trainable layers' worth, the 30 frozen layers above 30 frozen ones */
	struct sl_breakdown pos4;
	s.trainable_layers = 4;
	sl_estimate(a, &s, g, c, &pos4);
	double tl = ((double)pos4.activations - (double)pos.activations) / 2;
	double fl = ((double)neg.activations - (double)(pos.activations - pos.frozen_ws)) / 30;
	assert_true(fl > 0.5 * tl && fl < tl);
	s.gradient_checkpointing = true;
	s.trainable_layers = -2;
	sl_estimate(a, &s, g, c, &neg_gc);
	s.trainable_layers = 2;
	sl_estimate(a, &s, g, c, &pos_gc);
	assert_true(pos_gc.activations < pos.activations);
	double d = (double)neg.activations - (double)(pos.activations - pos.frozen_ws);
	double d_gc = (double)neg_gc.activations - (double)(pos_gc.activations - pos_gc.frozen_ws);
	/* both runs have two trainable layers (checkpointed or not) and subtracting them leaves the 30
	 * frozen ones, the same with checkpointing and without */
	assert_true(d > 0 && fabs(d - d_gc) <= 2);
	assert_int_equal(neg.frozen_ws, 0);

	/* MoE: Mixtral's expert ids (0..7) are below the trainable layer ids 30 and 31: the last 2 layers,
	 * q, o (h²), k, v (h·1024), 8 experts of 3·h·14336, the router (h·8), two norms */
	struct sl_diags dg;
	sl_diags_init(&dg, e->a);
	const struct sl_model *mx = sl_model_from_config(e->a, "fixtures/configs/mixtral", &dg);
	assert_non_null(mx);
	s.task = mx->task;
	s.gradient_checkpointing = false;
	sl_estimate(&mx->arch, &s, g, c, &b);
	double mlayer = 2 * h * h + 2 * h * 1024 + 8 * 3 * h * 14336 + h * 8 + 2 * h;
	assert_int_equal(b.trainable, (uint64_t)(2 * mlayer));
	/* Qwen3-30B-A3B's 128 experts: ".46." names expert 46 of every layer too; not modelled (every
	 * parameter counted as trainable, an upper bound) */
	const struct sl_model *q3 = sl_model_from_config(e->a, "fixtures/configs/qwen3_moe", &dg);
	assert_non_null(q3);
	s.task = q3->task;
	sl_estimate(&q3->arch, &s, g, c, &b);
	assert_int_equal(b.trainable, sl_arch_params_for_task(&q3->arch, q3->task));

	/* the role values: finetuning_type full / freeze ignore a LoRA rank in either order */
	sl_settings_default(&s);
	struct sl_role_value rank = value(e, SL_ROLE_LORA_R, "lora_rank", "16");
	struct sl_role_value ft = value(e, SL_ROLE_PEFT_METHOD, "finetuning_type", "full");
	sl_settings_apply(&s, &rank, true);
	sl_settings_apply(&s, &ft, true);
	assert_int_equal(s.lora_r, 0);
	assert_true(s.full_tuning);
	assert_false(s.freeze_tuning);
	sl_settings_default(&s);
	ft = value(e, SL_ROLE_PEFT_METHOD, "finetuning_type", "freeze");
	sl_settings_apply(&s, &ft, true);
	sl_settings_apply(&s, &rank, true);
	assert_int_equal(s.lora_r, 0);
	assert_true(s.freeze_tuning);
	assert_int_equal(s.peft_method, SL_PEFT_NONE);
	ft = value(e, SL_ROLE_PEFT_METHOD, "finetuning_type", "lora");
	sl_settings_apply(&s, &ft, true);
	sl_settings_apply(&s, &rank, true);
	assert_int_equal(s.lora_r, 16);
	assert_false(s.full_tuning || s.freeze_tuning);
	struct sl_role_value v = value(e, SL_ROLE_TRAINABLE_LAYERS, "freeze_trainable_layers", "-4");
	sl_settings_apply(&s, &v, true);
	assert_int_equal(s.trainable_layers, -4);
	v = value(e, SL_ROLE_TRAINABLE_MODULES, "freeze_trainable_modules", "mlp,self_attn");
	assert_int_equal(v.u, SL_FZ_MLP | SL_FZ_ATTN);
	v = value(e, SL_ROLE_TRAINABLE_MODULES, "freeze_trainable_modules", "all");
	assert_int_equal(v.u, 0);
	v = value(e, SL_ROLE_FREEZE_EXTRA, "freeze_extra_modules", "embed_tokens, norm");
	assert_int_equal(v.u, SL_FZX_EMBED | SL_FZX_NORM);
	const char *why = NULL;
	struct sl_role_value bad;
	assert_int_not_equal(sl_role_value_from_text(e->a, SL_ROLE_TRAINABLE_LAYERS, NULL, "0", NULL, &bad, &why), 0);
	assert_int_not_equal(sl_role_value_from_text(e->a, SL_ROLE_FREEZE_EXTRA, NULL, "classifier", NULL, &bad, &why), 0);
}

/*
 * A vision-language model's full fine-tune with the vision tower and projector frozen (LLaMA-Factory's
 * freeze_vision_tower / freeze_multi_modal_projector defaults, model_utils/visual.py get_forbidden_modules
 * @ff6d4d12). Qwen2.5-VL-7B's vision part by hand: patch Conv3d 3·2·14·14 → 1280 (no bias); 32 blocks of
 * two RMSNorms (2·1280), qkv 1280 → 3840 and proj 1280 → 1280 with biases, a gated MLP 1280 → 3420 → 1280
 * with biases; the merger: ln_q (1280), Linear(5120, 5120) and Linear(5120, 3584) with biases.
 */
static void test_frozen_vision(void **state)
{
	struct env *e = *state;
	struct sl_diags dg;
	sl_diags_init(&dg, e->a);
	const struct sl_model *m = sl_model_from_config(e->a, "fixtures/configs/qwen2_5_vl", &dg); /* the 7B's */
	assert_non_null(m);
	const struct sl_arch *a = &m->arch;
	const struct sl_gpu *g = gpu(e, "a100-80gb");
	const struct sl_calib *c = &e->cat->calib;
	double vh = 1280, I = 3420, w = 4 * vh;
	double block = 2 * vh + (vh * 3 * vh + 3 * vh) + (vh * vh + vh) + 2 * (vh * I + I) + (I * vh + vh);
	double merger = vh + (w * w + w) + (w * 3584 + 3584);
	double vis = 3 * 2 * 14 * 14 * vh + 32 * block + merger;
	assert_int_equal((uint64_t)vis, 676550144);
	assert_int_equal(sl_arch_vision_params(a), (uint64_t)vis);
	struct sl_settings s;
	sl_settings_default(&s);
	s.task = m->task;
	s.batch_size = 1;
	s.seq_len = 1024;
	s.dtype = SL_DTYPE_BF16;
	struct sl_breakdown all, frozen;
	sl_estimate(a, &s, g, c, &all);
	double P = (double)sl_arch_params_for_task(a, m->task);
	assert_int_equal(all.trainable, (uint64_t)P);
	s.freeze_vision = s.freeze_projector = true;
	sl_estimate(a, &s, g, c, &frozen);
	assert_int_equal(frozen.trainable, (uint64_t)(P - vis));
	assert_int_equal(frozen.params, (uint64_t)P);
	/* at the optimizer step AdamW's two bf16 states and its _foreach_sqrt temporary per trainable
	 * parameter: 6 B less for each frozen one */
	assert_int_equal(all.phase, SL_PHASE_OPTIMIZER);
	assert_int_equal(frozen.phase, SL_PHASE_OPTIMIZER);
	assert_int_equal(all.optimizer - frozen.optimizer, (uint64_t)(6 * vis));
	/* a trained projector beside the frozen tower: the whole vision part counted as trainable */
	s.freeze_projector = false;
	sl_estimate(a, &s, g, c, &frozen);
	assert_int_equal(frozen.trainable, (uint64_t)P);
	/* a text-only model has no vision part to freeze */
	const struct sl_model *l = model(e, "llama-2-7b");
	s.task = l->task;
	s.freeze_projector = true;
	sl_estimate(&l->arch, &s, g, c, &frozen);
	assert_int_equal(frozen.trainable, sl_arch_params_for_task(&l->arch, l->task));
}

/* An oom that rests on a guess (dynamic padding's bound) is at risk; on stated settings it is sure. */
static void test_at_risk_counts(void **state)
{
	struct env *e = *state;
	struct sl_arena *a = sl_arena_new();
	/* bert-base at 512 tokens in fp32 (stated): batch 256 does not fit 24 GiB, batch 8 does */
	const char *stated = "method: grid\nparameters:\n  model: {value: bert-base-uncased}\n"
			     "  batch_size: {values: [8, 256]}\n  max_length: {value: 512}\n  fp16: {value: false}\n"
			     "  dtype: {value: float32}\n  lr: {values: [1.0e-5, 2.0e-5, 3.0e-5]}\n";
	struct sl_eval *ev = eval_text(e, a, stated, "24GiB");
	assert_int_equal(ev->n[SL_VERDICT_OOM].value, 3);
	assert_int_equal(ev->oom_sure.value, 3);
	assert_int_equal(ev->at_risk.value, 0);
	/* with padding longest the same 512 is only a bound: a batch of short examples fits */
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_adds(&b, stated);
	sl_buf_adds(&b, "  padding: {value: longest}\n");
	ev = eval_text(e, a, b.buf, "24GiB");
	assert_int_equal(ev->n[SL_VERDICT_OOM].value, 3);
	assert_int_equal(ev->at_risk.value, 3);
	assert_int_equal(ev->oom_sure.value, 0);
	uint32_t *idx = sl_eval_combo(a, ev, SIZE_MAX, 0);
	for (size_t i = 0; i < ev->naxes; i++)
		if (ev->axes[i].role == SL_ROLE_BATCH_SIZE)
			idx[i] = 1;
	assert_int_equal(sl_eval_oom_assumed(ev, idx, 0, ev->capacity, NULL), SL_NEED_PADDING);
	/* padding swept: only the dynamic half is at risk */
	sl_buf_init(&b, a);
	sl_buf_adds(&b, stated);
	sl_buf_adds(&b, "  padding: {values: [max_length, longest]}\n");
	ev = eval_text(e, a, b.buf, "24GiB");
	assert_int_equal(ev->n[SL_VERDICT_OOM].value, 6);
	assert_int_equal(ev->at_risk.value, 3);
	assert_int_equal(ev->oom_sure.value, 3);
	/* a custom module whose sizes are bounds: never a sure oom */
	const char *custom = "method: grid\nparameters:\n  sweeplint_modules: {value: \"<= 40*[Linear(16384, 16384)]\"}\n"
			     "  batch_size: {values: [1, 2]}\n  max_length: {value: 8}\n  dtype: {value: float32}\n"
			     "  fp16: {value: false}\n";
	ev = eval_text(e, a, custom, "24GiB");
	assert_int_equal(ev->n[SL_VERDICT_OOM].value, 2);
	assert_int_equal(ev->at_risk.value, 2);
	/* exact counts whose parameters alone pass the card: sure */
	custom = "method: grid\nparameters:\n  sweeplint_modules: {value: \"40*[Linear(16384, 16384)]\"}\n"
		 "  batch_size: {values: [1, 2]}\n  max_length: {value: 8}\n  dtype: {value: float32}\n"
		 "  fp16: {value: false}\n";
	ev = eval_text(e, a, custom, "24GiB");
	assert_int_equal(ev->n[SL_VERDICT_OOM].value, 2);
	assert_int_equal(ev->oom_sure.value, 2);
	sl_arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_counts), cmocka_unit_test(test_module_sizes),
		cmocka_unit_test(test_module_extras), cmocka_unit_test(test_custom_estimate),
		cmocka_unit_test(test_frozen_backbone), cmocka_unit_test(test_part),
		cmocka_unit_test(test_bi_encoder),      cmocka_unit_test(test_vllm),
		cmocka_unit_test(test_workload_dtype),  cmocka_unit_test(test_roles),
		cmocka_unit_test(test_at_risk_counts), cmocka_unit_test(test_freeze_tuning),
		cmocka_unit_test(test_frozen_vision),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
