/*
 * test_catalog: loading rules/models.yaml and rules/gpus.yaml, lookups by
 * name, HF id, alias and path suffix, raw GPU sizes, diagnostics for bad
 * catalog data, and local config.json checkpoints (fixtures/configs/, one
 * per family, each against its published parameter count). Runs from the
 * project root (meson's workdir).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/source.h"

struct fx {
	struct sl_arena *a;
	struct sl_diags d;
	struct sl_catalog *c;
};

static void dump(const struct sl_diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		print_error("%s:%u:%u: %s [%s]%s%s\n", d->v[i].src->display, d->v[i].span.line, d->v[i].span.col,
			    d->v[i].message, d->v[i].rule, d->v[i].hint ? " hint: " : "",
			    d->v[i].hint ? d->v[i].hint : "");
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	f->a = sl_arena_new();
	sl_diags_init(&f->d, f->a);
	int rc = sl_catalog_load(f->a, &f->c, &f->d);
	dump(&f->d);
	if (rc != 0 || f->d.n)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	sl_arena_free(f->a);
	free(f);
	return 0;
}

static const char *model_name(const struct sl_catalog *c, const char *value)
{
	const struct sl_model *m = sl_catalog_find_model(c, value);
	return m ? m->name : "(none)";
}

static const char *gpu_name(struct sl_arena *a, const struct sl_catalog *c, const char *value)
{
	const struct sl_gpu *g = sl_catalog_find_gpu(a, c, value);
	return g ? g->name : "(none)";
}

static void test_loaded(void **state)
{
	struct fx *f = *state;
	/* the seeds' models and the DESIGN's GPU names */
	static const char *const models[] = {
		"bge-m3-ko", "ko-simcse", "multilingual-minilm", "multilingual-e5-small", "mt5-small", "mt5-base",
		"mt5-large", "mt5-xl", "t5-small", "t5-base", "t5-large", "eenzeenee", "llama-3-8b", "llama-3.1-8b",
		"llama-3.2-1b", "llama-3.2-3b", "mistral-7b", "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b",
		"qwen2.5-7b", "gpt2", "polyglot-ko-1.3b", "polyglot-ko-5.8b", "kobart", "bert-base-uncased",
		"bert-large-uncased", "bert-base-cased", "bert-large-cased", "xlm-roberta-base", "xlm-roberta-large",
		"klue-bert-base", "klue-roberta-base", "klue-roberta-large", "e5-base-v2", "multilingual-e5-base",
		"multilingual-e5-large", "bge-base-en-v1.5", "bge-large-en-v1.5", "bge-small-en-v1.5",
	};
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
		assert_string_equal(model_name(f->c, models[i]), models[i]);
	static const char *const gpus[] = {
		"h100-80gb", "h200", "a100-80gb", "a100-40gb", "v100-16gb", "v100-32gb", "rtx3090",
		"rtx4090", "rtx3080", "l4", "t4", "a10g", "l40s", "a6000",
		/* issue 11: rented and owned cards, AMD included */
		"a40", "l40", "rtx6000-ada", "a800-80gb", "h800", "h20", "gh200", "gh200-144gb", "b200", "rtx5090",
		"rtx5080", "rtx2080ti", "titan-rtx", "p100-16gb", "a30", "a16", "mi210", "mi250x", "mi300x",
	};
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
		assert_string_equal(gpu_name(f->a, f->c, gpus[i]), gpus[i]);
	/* spellings people write: an L40 is not an L40S, an MI250 is one MI250X die */
	static const char *const spelled[][2] = {
		{"L40", "l40"}, {"l40s", "l40s"}, {"RTX 6000 Ada", "rtx6000-ada"}, {"A800", "a800-80gb"},
		{"H800", "h800"}, {"GH200", "gh200"}, {"B200", "b200"}, {"RTX 5090", "rtx5090"},
		{"rtx-2080-ti", "rtx2080ti"}, {"Titan RTX", "titan-rtx"}, {"P100", "p100-16gb"},
		{"MI250", "mi250x"}, {"AMD Instinct MI300X", "mi300x"}, {"MI210", "mi210"},
	};
	for (size_t i = 0; i < sizeof spelled / sizeof spelled[0]; i++)
		assert_string_equal(gpu_name(f->a, f->c, spelled[i][0]), spelled[i][1]);
}

/* Every entry is found by its own name and HF id; every alias matches only where it should. */
static void test_round_trip(void **state)
{
	struct fx *f = *state;
	for (size_t i = 0; i < f->c->nmodels; i++) {
		const struct sl_model *m = &f->c->models[i];
		assert_ptr_equal(sl_catalog_find_model(f->c, m->name), m);
		assert_ptr_equal(sl_catalog_find_model(f->c, m->hf_id), m);
		assert_true(m->arch.vocab && m->arch.hidden && m->arch.layers && m->arch.heads);
		assert_true(m->source && *m->source);
		/* embedding models are bi-encoders and carry a max_seq_length only then */
		if (m->st_max_seq_len)
			assert_int_equal(m->task, SL_TASK_BI_ENCODER);
	}
	for (size_t i = 0; i < f->c->ngpus; i++) {
		const struct sl_gpu *g = &f->c->gpus[i];
		assert_ptr_equal(sl_catalog_find_gpu(f->a, f->c, g->name), g);
		assert_ptr_equal(sl_catalog_find_gpu(f->a, f->c, g->label), g);
		/* bf16 in hardware from Ampere (compute capability 8.0) on */
		assert_int_equal(g->bf16, g->cc_major >= 8);
		/* usable memory is below the marketing size in binary units, and not far below */
		assert_true(g->bytes > (8ull << 30) && g->bytes < (256ull << 30)); /* up to MI300X / B200 */
	}
}

static void test_find_model(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *value, *name;
	} cases[] = {
		{"bge-m3-ko", "bge-m3-ko"},
		{"BGE-m3-ko", "bge-m3-ko"},
		{"BAAI/bge-m3", "bge-m3-ko"},
		{"dragonkue/BGE-m3-ko", "bge-m3-ko"},
		{"upskyy/bge-m3-korean", "bge-m3-ko"},
		{"/data/models/BAAI/bge-m3/", "bge-m3-ko"},
		{"https://huggingface.co/BAAI/bge-m3", "bge-m3-ko"},
		{"ko-simcse", "ko-simcse"},
		{"BM-K/KoSimCSE-roberta", "ko-simcse"},
		{"xlsum_mt5", "mt5-base"},
		{"csebuetnlp/mT5_multilingual_XLSum", "mt5-base"},
		{"eenzeenee", "eenzeenee"},
		{"eenzeenee/t5-base-korean-summarization", "eenzeenee"},
		{"t5-small", "t5-small"},
		{"google-t5/t5-small", "t5-small"},
		{"T5-Large", "t5-large"},
		{"mT5-XL", "mt5-xl"},
		{"meta-llama/Llama-3.2-3B", "llama-3.2-3b"},
		{"meta-llama/Llama-3.2-3B-Instruct", "llama-3.2-3b"},
		{"meta-llama/Meta-Llama-3-8B", "llama-3-8b"},
		{"Qwen/Qwen2.5-3B-Instruct", "qwen2.5-3b"},
		{"saves/qwen2.5-3b-instruct", "qwen2.5-3b"},
		{"mistralai/Mistral-7B-v0.1", "mistral-7b"},
		{"sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2", "multilingual-minilm"},
		{"multilingual-minilm", "multilingual-minilm"},
		{"intfloat/multilingual-e5-small", "multilingual-e5-small"},
		{"klue/roberta-base", "klue-roberta-base"},
		{"bert-base-uncased", "bert-base-uncased"},
		{"beomi/gemma-ko-2b", "gemma-2b"},
		{"gpt2", "gpt2"},
		/* anchored: a pattern never matches inside a longer name */
		{"bge", "(none)"},
		{"xbge-m3", "(none)"},
		{"bge-m3-ko-v2-extra", "(none)"},
		{"unknown/model", "(none)"},
		{"", "(none)"},
		{"/", "(none)"},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *got = model_name(f->c, cases[i].value);
		if (strcmp(got, cases[i].name) != 0) {
			print_error("'%s': got %s, want %s\n", cases[i].value, got, cases[i].name);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_find_gpu(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *value, *name;
	} cases[] = {
		{"h100", "h100-80gb"},       {"H100-80GB", "h100-80gb"},   {"h100-sxm5-80gb", "h100-80gb"},
		{"NVIDIA H100 80GB HBM3", "h100-80gb"}, {"h100-pcie", "h100-pcie"}, {"H200", "h200"},
		{"a100", "a100-80gb"},       {"A100-80GB", "a100-80gb"},   {"a100_40gb", "a100-40gb"},
		{"A100-SXM4-40GB", "a100-40gb"}, {"NVIDIA A100-SXM4-80GB", "a100-80gb"}, {"v100", "v100-16gb"},
		{"V100-32GB", "v100-32gb"},  {"rtx 4090", "rtx4090"},      {"RTX3090", "rtx3090"},
		{"Tesla T4", "t4"},          {"A10G", "a10g"},             {"L40S", "l40s"},
		{"RTX A6000", "a6000"},      {"L4", "l4"},                 {"tpu-v4", "(none)"},
		{"h1000", "(none)"},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *got = gpu_name(f->a, f->c, cases[i].value);
		if (strcmp(got, cases[i].name) != 0) {
			print_error("'%s': got %s, want %s\n", cases[i].value, got, cases[i].name);
			bad++;
		}
	}
	assert_int_equal(bad, 0);

	/* the sourced torch figure: "total_memory=81082MB" is MiB */
	const struct sl_gpu *h100 = sl_catalog_find_gpu(f->a, f->c, "h100-80gb");
	assert_true(h100->bytes == 81082ull * 1024 * 1024);
	assert_true(h100->bf16);
	assert_false(sl_catalog_find_gpu(f->a, f->c, "v100-16gb")->bf16);
}

static void test_sizes(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *s;
		uint64_t bytes; /* 0: not a size */
	} cases[] = {
		{"24GiB", 24ull << 30},   {"24GB", 24ull << 30},      {"24gb", 24ull << 30},
		{"80G", 80ull << 30},     {"16384MiB", 16ull << 30},  {"16384MB", 16ull << 30},
		{"0.5TiB", 512ull << 30}, {"1.5 GiB", 3ull << 29},    {" 40 ", 40ull << 30},
		{"24XB", 0},              {"-1GiB", 0},               {"0GiB", 0},
		{"GiB", 0},               {"0x10GiB", 0},             {"1e3GiB", 0},
		{"", 0},                  {"24 GiB extra", 0},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t b = 0;
		bool ok = sl_size_parse(cases[i].s, &b);
		if (ok != (cases[i].bytes != 0) || (ok && b != cases[i].bytes)) {
			print_error("'%s': ok %d bytes %llu\n", cases[i].s, ok, (unsigned long long)b);
			bad++;
		}
	}
	assert_int_equal(bad, 0);

	/* a raw size is a made-up GPU with that capacity */
	const struct sl_gpu *g = sl_catalog_find_gpu(f->a, f->c, "24GiB");
	assert_non_null(g);
	assert_true(g->bytes == 24ull << 30);
	assert_string_equal(g->name, "24GiB");
	assert_true(g->bf16);
	assert_null(sl_catalog_find_gpu(f->a, f->c, "lots"));
}

/* --- bad catalog data ------------------------------------------------------ */

struct loaded {
	int rc;
	struct sl_diags d;
	struct sl_catalog *c;
};

static struct loaded load_models_text(struct sl_arena *a, const char *yaml)
{
	struct loaded l;
	sl_diags_init(&l.d, a);
	struct sl_source *src = sl_source_from_bytes(a, "models.yaml", yaml, strlen(yaml));
	l.rc = sl_catalog_load_from(a, src, NULL, &l.c, &l.d);
	return l;
}

static struct loaded load_gpus_text(struct sl_arena *a, const char *yaml)
{
	struct loaded l;
	sl_diags_init(&l.d, a);
	struct sl_source *src = sl_source_from_bytes(a, "gpus.yaml", yaml, strlen(yaml));
	l.rc = sl_catalog_load_from(a, NULL, src, &l.c, &l.d);
	return l;
}

static void expect_one(const struct loaded *l, uint32_t line, uint32_t col, const char *needle)
{
	dump(&l->d);
	assert_int_equal(l->rc, -SL_ECONFIG);
	assert_int_equal(l->d.n, 1);
	assert_string_equal(l->d.v[0].rule, "catalog");
	assert_int_equal(l->d.v[0].severity, SL_SEV_ERROR);
	assert_int_equal(l->d.v[0].span.line, line);
	assert_int_equal(l->d.v[0].span.col, col);
	assert_non_null(strstr(l->d.v[0].message, needle));
}

#define ENTRY(name, family, extra)                                                                            \
	"  - name: " name "\n"                                                                                \
	"    hf_id: org/" name "\n"                                                                           \
	"    family: " family "\n"                                                                            \
	"    config: {vocab_size: 100, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4,\n"         \
	"             intermediate_size: 256, max_position_embeddings: 128}\n"                                \
	"    source: test\n" extra

static void test_bad_models(void **state)
{
	(void)state;
	struct sl_arena *a = sl_arena_new();

	/* a good one loads, and its count is computed */
	struct loaded l = load_models_text(a, "models:\n" ENTRY("tiny", "bert", ""));
	dump(&l.d);
	assert_int_equal(l.rc, 0);
	assert_int_equal(l.c->nmodels, 1);
	/* (100 + 128 + 2)·64 + 128 + 2·(4·(64²+64) + 128 + 2·64·256 + 256 + 64 + 128) + 64² + 64 */
	assert_true(sl_arch_params(&l.c->models[0].arch) == 230 * 64 + 128 + 2 * (4 * (4096 + 64) + 128 + 32768 + 448) + 4160);

	l = load_models_text(a, "models:\n" ENTRY("tiny", "bert", "") ENTRY("other", "xlstm", ""));
	expect_one(&l, 10, 13, "unknown family 'xlstm'");
	assert_non_null(strstr(l.d.v[0].hint, "xlm-roberta"));
	assert_int_equal(l.c->nmodels, 1); /* the good entry stays */

	l = load_models_text(a, "models:\n" ENTRY("tiny", "bert", "    aliases: ['ok', 'bad(']\n"));
	expect_one(&l, 8, 21, "invalid alias pattern 'bad('");

	l = load_models_text(a, "models:\n"
				"  - name: tiny\n"
				"    hf_id: org/tiny\n"
				"    family: llama\n"
				"    config: {vocab_size: 100, num_hidden_layers: 2}\n"
				"    source: test\n");
	expect_one(&l, 5, 13, "has no 'hidden_size'");

	l = load_models_text(a, "models:\n" ENTRY("tiny", "bert", "    task: regression\n"));
	expect_one(&l, 8, 11, "unknown task 'regression'");

	l = load_models_text(a, "models:\n" ENTRY("tiny", "bert", "") ENTRY("Tiny", "bert", ""));
	expect_one(&l, 8, 11, "duplicate model name 'Tiny'");

	/* libcyaml's own errors carry the position of its backtrace */
	l = load_models_text(a, "models:\n" ENTRY("tiny", "bert", "    colour: blue\n"));
	expect_one(&l, 8, 5, "colour");

	l = load_models_text(a, "models:\n" ENTRY("tiny", "bert", "    st_max_seq_length: many\n"));
	expect_one(&l, 8, 24, "'many'");

	l = load_models_text(a, "models:\n  - name: [unclosed\n");
	dump(&l.d);
	assert_int_equal(l.rc, -SL_ECONFIG);
	assert_true(l.d.n >= 1);
	assert_int_equal(l.d.v[0].span.line, 3);

	sl_arena_free(a);
}

static void test_bad_gpus(void **state)
{
	(void)state;
	struct sl_arena *a = sl_arena_new();
	static const char good[] = "gpus:\n"
				   "  - name: x1\n"
				   "    label: X One\n"
				   "    memory: 24GiB\n"
				   "    bf16: true\n"
				   "    cc: \"8.6\"\n"
				   "    source: test\n";
	struct loaded l = load_gpus_text(a, good);
	dump(&l.d);
	assert_int_equal(l.rc, 0);
	assert_int_equal(l.c->ngpus, 1);
	assert_true(l.c->gpus[0].bytes == 24ull << 30);
	assert_int_equal(l.c->gpus[0].cc_major, 8);
	assert_int_equal(l.c->gpus[0].cc_minor, 6);

	l = load_gpus_text(a, "gpus:\n"
			      "  - name: x1\n"
			      "    label: X One\n"
			      "    memory: lots\n"
			      "    bf16: true\n"
			      "    cc: \"8.6\"\n"
			      "    source: test\n");
	expect_one(&l, 4, 13, "invalid memory size 'lots'");

	l = load_gpus_text(a, "gpus:\n"
			      "  - name: x1\n"
			      "    label: X One\n"
			      "    memory: 24GiB\n"
			      "    bf16: true\n"
			      "    cc: ampere\n"
			      "    source: test\n");
	expect_one(&l, 6, 9, "invalid compute capability 'ampere'");
	sl_arena_free(a);
}

/* --- config.json ------------------------------------------------------------ */

/* A catalog entry, or else an architecture-table entry, by its name. */
static const struct sl_model *find_entry(const struct sl_catalog *c, const char *name)
{
	const struct sl_model *m = sl_catalog_find_model(c, name);
	for (size_t i = 0; !m && i < c->narchs; i++)
		if (strcmp(c->archs[i].name, name) == 0)
			m = &c->archs[i];
	return m;
}

static void test_config_families(void **state)
{
	struct fx *f = *state;
	/* published counts of the checkpoint each fixture copies (see docs/models.md) */
	static const struct {
		const char *dir;
		enum sl_family family;
		uint64_t params;    /* 0: none published: compare with the catalog entry instead */
		const char *entry;  /* the catalog entry of the same checkpoint */
	} cases[] = {
		{"fixtures/configs/bert", SL_FAMILY_BERT, 109482240, "bert-base-uncased"},
		{"fixtures/configs/roberta", SL_FAMILY_ROBERTA, 110618112, "ko-simcse"},
		{"fixtures/configs/xlm-roberta", SL_FAMILY_XLM_ROBERTA, 567754752, "bge-m3-ko"},
		{"fixtures/configs/electra", SL_FAMILY_ELECTRA, 0, "electra-base-discriminator"},
		{"fixtures/configs/t5", SL_FAMILY_T5, 60506624, "t5-small"},
		{"fixtures/configs/mt5", SL_FAMILY_MT5, 300176768, "mt5-small"},
		{"fixtures/configs/bart", SL_FAMILY_BART, 139420416, "bart-base"},
		{"fixtures/configs/mbart", SL_FAMILY_MBART, 610851840, NULL},
		{"fixtures/configs/llama", SL_FAMILY_LLAMA, 8030261248, "llama-3-8b"},
		{"fixtures/configs/mistral", SL_FAMILY_MISTRAL, 7241732096, "mistral-7b"},
		{"fixtures/configs/qwen2", SL_FAMILY_QWEN2, 494032768, "qwen2.5-0.5b"},
		{"fixtures/configs/gemma", SL_FAMILY_GEMMA, 2506172416, "gemma-2b"},
		{"fixtures/configs/gpt2", SL_FAMILY_GPT2, 124439808, "gpt2"},
		{"fixtures/configs/gpt_neox", SL_FAMILY_GPT_NEOX, 1331810304, "polyglot-ko-1.3b"},
		/* issue #11 families: published checkpoints' config.json values; counts from the
		 * model cards / safetensors totals (docs/models.md lists each source) */
		{"fixtures/configs/phi", SL_FAMILY_PHI, 2779683840, NULL},                 /* microsoft/phi-2 */
		{"fixtures/configs/phi3", SL_FAMILY_PHI3, 3821079552, NULL},               /* Phi-3-mini-4k */
		{"fixtures/configs/falcon", SL_FAMILY_FALCON, 6921720704, NULL},           /* tiiuae/falcon-7b */
		{"fixtures/configs/bloom", SL_FAMILY_BLOOM, 559214592, NULL},              /* bloom-560m */
		{"fixtures/configs/gpt_bigcode", SL_FAMILY_GPT_BIGCODE, 1137207296, NULL}, /* starcoderbase-1b */
		{"fixtures/configs/opt", SL_FAMILY_OPT, 1315758080, NULL},                 /* facebook/opt-1.3b */
		{"fixtures/configs/gptj", SL_FAMILY_GPTJ, 6050882784, NULL},               /* gpt-j-6b */
		{"fixtures/configs/gpt_neo", SL_FAMILY_GPT_NEO, 125198592, NULL},          /* gpt-neo-125m */
		{"fixtures/configs/gemma2", SL_FAMILY_GEMMA2, 2614341888, NULL},           /* gemma-2-2b */
		{"fixtures/configs/gemma3_text", SL_FAMILY_GEMMA3, 999885952, NULL},       /* gemma-3-1b-pt */
		{"fixtures/configs/qwen3", SL_FAMILY_QWEN3, 596049920, NULL},              /* Qwen3-0.6B */
		{"fixtures/configs/granite", SL_FAMILY_GRANITE, 2533531648, NULL},         /* granite-3.1-2b-base */
		{"fixtures/configs/deberta-v2", SL_FAMILY_DEBERTA_V2, 183831552, NULL},    /* deberta-v3-base */
		{"fixtures/configs/distilbert", SL_FAMILY_DISTILBERT, 66362880, NULL},     /* distilbert-base-uncased */
		{"fixtures/configs/albert", SL_FAMILY_ALBERT, 11683584, NULL},             /* albert-base-v2 */
		{"fixtures/configs/mpnet", SL_FAMILY_MPNET, 109486464, NULL},              /* mpnet-base */
		{"fixtures/configs/mixtral", SL_FAMILY_MIXTRAL, 46702792704, NULL},        /* Mixtral-8x7B-v0.1 */
		{"fixtures/configs/qwen2_moe", SL_FAMILY_QWEN2_MOE, 14315784192, NULL},    /* Qwen1.5-MoE-A2.7B */
		{"fixtures/configs/qwen3_moe", SL_FAMILY_QWEN3_MOE, 30532122624, NULL},    /* Qwen3-30B-A3B */
		{"fixtures/configs/whisper", SL_FAMILY_WHISPER, 37760640, NULL},           /* whisper-tiny */
		/* google/vit-base-patch16-224's shape (ViTForImageClassification, ImageNet-1k head): timm's entry */
		{"fixtures/configs/vit", SL_FAMILY_VIT, 0, "vit_base_patch16_224"},
		{"fixtures/configs/qwen", SL_FAMILY_QWEN, 7721324544, "qwen-7b"},
		/* published counts are rounded ("307M", "568M"): compare with the architecture-table entry,
		 * whose count test_arch checks against them */
		{"fixtures/configs/umt5", SL_FAMILY_UMT5, 0, "umt5-small"},       /* google/umt5-small */
		{"fixtures/configs/pegasus", SL_FAMILY_PEGASUS, 0, "pegasus-xsum"}, /* google/pegasus-xsum */
		/* issue #30 families: the published checkpoints' config.json values; the counts are rounded
		 * on their pages: compare with the table entry (test_arch checks it against them) */
		{"fixtures/configs/olmo2", SL_FAMILY_OLMO2, 0, "olmo-2-0425-1b"},
		{"fixtures/configs/smollm3", SL_FAMILY_SMOLLM3, 0, "smollm3-3b"},
		{"fixtures/configs/starcoder2", SL_FAMILY_STARCODER2, 0, "starcoder2-3b"},
		{"fixtures/configs/glm", SL_FAMILY_GLM, 0, "glm-4-9b"},
		{"fixtures/configs/glm4", SL_FAMILY_GLM4, 0, "glm-4-9b-0414"},
		{"fixtures/configs/chatglm", SL_FAMILY_CHATGLM, 0, "chatglm3-6b"},
		{"fixtures/configs/internlm2", SL_FAMILY_INTERNLM2, 0, "internlm2.5-7b"},
		/* allenai/longformer-base-4096 (its page rounds the count: "149M"); test_arch itemises it */
		{"fixtures/configs/longformer", SL_FAMILY_LONGFORMER, 0, "longformer-base-4096"},
		{"fixtures/configs/exaone", SL_FAMILY_EXAONE, 0, "exaone-3.5-2.4b"},
		{"fixtures/configs/apertus", SL_FAMILY_APERTUS, 0, "apertus-8b"},
		{"fixtures/configs/deepseek_v2", SL_FAMILY_DEEPSEEK_V2, 0, "deepseek-v2-lite"},
		{"fixtures/configs/deepseek_v3", SL_FAMILY_DEEPSEEK_V3, 0, "deepseek-v3"},
		{"fixtures/configs/gpt_oss", SL_FAMILY_GPT_OSS, 0, "gpt-oss-20b"},
		{"fixtures/configs/phimoe", SL_FAMILY_PHIMOE, 0, "phi-3.5-moe"},
		{"fixtures/configs/llama4", SL_FAMILY_LLAMA4, 0, "llama-4-scout-17b-16e"},
		{"fixtures/configs/mamba", SL_FAMILY_MAMBA, 0, "mamba-130m"},
		/* model card: "Number of parameters: 7,285,403,648" */
		{"fixtures/configs/mamba2", SL_FAMILY_MAMBA2, 7285403648, "mamba-codestral-7b"},
		{"fixtures/configs/falcon_mamba", SL_FAMILY_FALCON_MAMBA, 0, "falcon-mamba-7b"},
		{"fixtures/configs/jamba", SL_FAMILY_JAMBA, 0, "jamba-v0.1"},
		{"fixtures/configs/rwkv", SL_FAMILY_RWKV, 0, "rwkv-4-169m"},
		{"fixtures/configs/modernbert", SL_FAMILY_MODERNBERT, 0, "modernbert-base"},
		{"fixtures/configs/m2m_100", SL_FAMILY_M2M_100, 0, "nllb-200-distilled-600m"},
		{"fixtures/configs/nomic_bert", SL_FAMILY_NOMIC_BERT, 0, "nomic-embed-text-v1.5"},
		{"fixtures/configs/qwen2_5_vl", SL_FAMILY_QWEN2_5_VL, 0, "qwen2.5-vl-7b"},
		{"fixtures/configs/olmoe", SL_FAMILY_OLMOE, 0, "olmoe-1b-7b"},
		{"fixtures/configs/cohere", SL_FAMILY_COHERE, 0, "aya-expanse-8b"},
		{"fixtures/configs/cohere2", SL_FAMILY_COHERE2, 0, "c4ai-command-r7b-12-2024"},
		{"fixtures/configs/mistral3", SL_FAMILY_MISTRAL3, 0, "mistral-small-3.1-24b"},
		{"fixtures/configs/glm4_moe", SL_FAMILY_GLM4_MOE, 0, "glm-4.5-air"},
		{"fixtures/configs/exaone4", SL_FAMILY_EXAONE4, 0, "exaone-4.0-32b"},
		{"fixtures/configs/seed_oss", SL_FAMILY_SEED_OSS, 0, "seed-oss-36b"},
		{"fixtures/configs/ernie4_5", SL_FAMILY_ERNIE4_5, 0, "ernie-4.5-0.3b"},
		/* full_attn_idxs here, layer_types in the table: the same six attention layers. By hand: embedding
		 * 65536 x 2048, 16 x (two norms + SwiGLU 3 x 2048 x 8192), 10 short convolutions (2048 x 6144 +
		 * 2048 x 3 + 2048 x 2048), 6 attentions (2 x 2048^2 + 2 x 2048 x 512 + two 64-wide norms), final norm */
		{"fixtures/configs/lfm2", SL_FAMILY_LFM2, 1170340608, "lfm2-1.2b"},
		/* by hand: tied embedding 103424 x 2560, 28 x (attention 2 x 2560^2 + 2 x 2560 x 512, two norms),
		 * layer 0's MLP 3 x 2560 x 12288, 27 x (gate 2560 x 64, 64 experts 3 x 2560 x 1536, shared 3 x 2560 x
		 * 3072, 64 score corrections), final norm. No table entry: its card's "21B total" is 3.9% under this,
		 * so the id stays unknown by name rather than be called wrong (docs/models.md) */
		/* by hand: 2 x 128512 x 4096 (untied), 48 x (q/o 2 x 4096^2, k/v 2 x 4096 x 256, MLP 3 x 4096 x 10240,
		 * two norms), final norm */
		{"fixtures/configs/internlm3", SL_FAMILY_INTERNLM3, 8804241408, "internlm3-8b"},
		{"fixtures/configs/ernie4_5_moe", SL_FAMILY_ERNIE4_5_MOE, 21825437888, NULL},
		/* by hand: Qwen3-8B's 8,190,735,360 and the tower: Conv3d 3 x 2 x 16^2 x 1152 + 1152, positions 2304 x
		 * 1152, 27 x (two LayerNorms 4 x 1152, qkv 1152 x 3456 + 3456, proj 1152^2 + 1152, fc1 1152 x 4304 +
		 * 4304, fc2 4304 x 1152 + 1152), the merger (LayerNorm 2 x 1152, fc1 4608^2 + 4608, fc2 4608 x 4096 +
		 * 4096) and 3 DeepStack mergers (LayerNorm 2 x 4608, the same fc1 and fc2): 576,388,336 */
		{"fixtures/configs/qwen3_vl", SL_FAMILY_QWEN3_VL, 8767123696, "qwen3-vl-8b"},
		/* by hand: Qwen3-30B-A3B's 30,532,122,624 and the same tower with fc2 4608 x 2048 + 2048: 538,631,408 */
		{"fixtures/configs/qwen3_vl_moe", SL_FAMILY_QWEN3_VL_MOE, 31070754032, "qwen3-vl-30b-a3b"},
		/* by hand (SmolVLM-256M): embedding and untied head 2 x 49280 x 576, 30 x (q/o 2 x 576^2, k/v 2 x 576 x 192,
		 * MLP 3 x 576 x 1536, two norms), final norm: 162,974,016; the tower: patch conv 3 x 16^2 x 768 + 768,
		 * positions (512/16)^2 x 768, 12 x (q/k/v/out 4 x (768^2 + 768), fc1 768 x 3072 + 3072, fc2 3072 x 768 +
		 * 768, two LayerNorms 4 x 768), post_layernorm 2 x 768: 86,433,024; the projection 768 x 4^2 x 576: 7,077,888 */
		{"fixtures/configs/idefics3", SL_FAMILY_IDEFICS3, 256484928, "smolvlm-256m"},
		/* by hand (SmolVLM2-2.2B): SmolLM2-1.7B's layers, untied over 49280: 1,812,563,968; the 27-layer tower at
		 * 1152 over (384/14)^2 = 729 positions: 412,987,248; the projection 1152 x 3^2 x 2048: 21,233,664 */
		{"fixtures/configs/smolvlm", SL_FAMILY_SMOLVLM, 2246784880, "smolvlm2-2.2b"},
		/* by hand (Llama-3.2-11B-Vision): embed_tokens (128256 + 8) x 4096, 32 llama layers (q/o 2 x 4096^2, k/v
		 * 2 x 4096 x 1024, MLP 3 x 4096 x 14336, two norms) and 8 cross-attention layers (the same plus q/k norms
		 * 2 x 128 and two gates), final norm, head 128256 x 4096: 9,775,192,080; the tower: patch conv 3 x 14^2 x
		 * 1280, class 1280, gated positions 1 + 1601 x 1280 + 9 x 4 x 1601 x 1280, two aspect embeddings 2 x (9 x
		 * 4 x 1280 + 1), layernorm_pre/_post 4 x 1280, 32 + 8 layers of (4 x 1280^2, fc1 1280 x 5120 + 5120, fc2
		 * 5120 x 1280 + 1280, two LayerNorms 4 x 1280) and 16 gates: 863,567,379; projector 7680 x 4096 + 4096 */
		{"fixtures/configs/mllama", SL_FAMILY_MLLAMA, 10670220835, "llama-3.2-11b-vision"},
		/* by hand (Granite-4.0-H-Tiny): embedding 100352 x 1536 = 154,140,672 (tied); 40 layers of two norms
		 * 2 x 1536, the router 1536 x 64, 64 experts of input_linear 1536 x 1024 and output_linear 512 x 1536
		 * (150,994,944) and the shared MLP 1536 x 2048 + 1024 x 1536 (4,718,592): 155,814,912 each; 4 attention
		 * layers q/o 2 x 1536^2, k/v 2 x 1536 x 512: 6,291,456 each; 36 Mamba2 mixers: in_proj 1536 x (2 x 3072 +
		 * 2 x 128 + 48) = 9,904,128, conv (3072 + 256) x 4 + 3328, dt_bias/A_log/D 3 x 48, the gated norm 3072,
		 * out_proj 3072 x 1536: 14,642,576 each; final norm 1536 -> 6,939,037,248 */
		{"fixtures/configs/granitemoehybrid", SL_FAMILY_GRANITEMOEHYBRID, 6939037248, "granite-4.0-h-tiny"},
		/* by hand (Falcon-H1-7B): embedding and untied head 2 x 130048 x 3072 = 799,014,912; 44 layers, each with
		 * two norms 2 x 3072, attention q/o 2 x 3072 x 1536 and k/v 2 x 3072 x 256 (11,010,048), the mixer beside
		 * it: in_proj 3072 x (2 x 3072 + 2 x 256 + 24) = 20,520,960, conv (3072 + 512) x 4 + 3584, dt_bias/A_log/D
		 * 3 x 24, no gated norm (mamba_rms_norm false), out_proj 3072^2 without bias (29,976,136), and a SwiGLU
		 * 3 x 3072 x 12288 (113,246,208): 154,238,536 each; final norm 3072 -> 7,585,513,568 */
		{"fixtures/configs/falcon_h1", SL_FAMILY_FALCON_H1, 7585513568, "falcon-h1-7b"},
		/* by hand (Nemotron-Nano-9B-v2): embedding and untied head 2 x 131072 x 4480 = 1,174,405,120; 56 norms
		 * of 4480 and the final one: 255,360; 27 Mamba2 blocks: in_proj 4480 x (2 x 10240 + 2 x 8 x 128 + 128) =
		 * 101,498,880, conv (10240 + 2048) x 4 + 12288, 3 x 128, the gated norm 10240, out_proj 10240 x 4480:
		 * 147,446,144 each; 4 attention blocks q/o 2 x 4480 x 5120, k/v 2 x 4480 x 1024: 55,050,240 each; 25 MLP
		 * blocks up/down 2 x 4480 x 15680: 140,492,800 each -> 8,888,227,328 */
		{"fixtures/configs/nemotron_h", SL_FAMILY_NEMOTRON_H, 8888227328, "nemotron-nano-9b-v2"},
	};
	size_t seen[SL_FAMILY__COUNT] = {0};
	int bad = 0;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sl_diags d;
		sl_diags_init(&d, f->a);
		const struct sl_model *m = sl_model_from_config(f->a, cases[i].dir, &d);
		dump(&d);
		assert_non_null(m);
		assert_int_equal(d.n, 0);
		assert_int_equal(m->arch.family, cases[i].family);
		seen[m->arch.family]++;
		uint64_t got = sl_arch_params(&m->arch);
		const struct sl_model *entry = cases[i].entry ? find_entry(f->c, cases[i].entry) : NULL;
		assert_true(cases[i].params || entry);
		uint64_t want = cases[i].params ? cases[i].params : sl_arch_params(&entry->arch);
		if (got != want) {
			print_error("%s: computed %llu, official %llu\n", cases[i].dir, (unsigned long long)got,
				    (unsigned long long)want);
			bad++;
		}
		/* the same checkpoint through config.json and through models.yaml: the same shape */
		if (entry && memcmp(&entry->arch, &m->arch, sizeof m->arch) != 0) {
			print_error("%s: shape differs from catalog entry %s\n", cases[i].dir, cases[i].entry);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	for (int fam = 0; fam < SL_FAMILY__COUNT; fam++) /* a fixture per family (a custom stack has no config.json) */
		assert_int_equal(seen[fam], fam == SL_FAMILY_CUSTOM ? 0 : 1);

	/* a config.json path works as well as its directory */
	struct sl_diags d;
	sl_diags_init(&d, f->a);
	const struct sl_model *m = sl_model_from_config(f->a, "fixtures/configs/llama/config.json", &d);
	assert_non_null(m);
	assert_string_equal(m->name, "llama");
	assert_int_equal(m->task, SL_TASK_CAUSAL_LM);

	/* a sentence-transformers directory: a bi-encoder with its max_seq_length */
	m = sl_model_from_config(f->a, "fixtures/configs/st-minilm", &d);
	assert_non_null(m);
	assert_int_equal(m->task, SL_TASK_BI_ENCODER);
	assert_int_equal(m->st_max_seq_len, 128);
	assert_true(sl_arch_params(&m->arch) == 117653760);
	assert_int_equal(d.n, 0);

	/* architectures ["T5EncoderModel"] (sentence-T5, GTR): the encoder stack alone, a bi-encoder;
	 * T5EncoderModel of t5-base has 109,628,544 parameters (T5 paper table, printed model trees) */
	m = sl_model_from_config(f->a, "fixtures/configs/t5-encoder", &d);
	assert_non_null(m);
	assert_true(m->arch.enc_only);
	assert_int_equal(m->task, SL_TASK_BI_ENCODER);
	assert_true(sl_arch_params(&m->arch) == 109628544);
	assert_true(sl_arch_params_for_task(&m->arch, SL_TASK_BI_ENCODER) == 109628544);

	/* the task heads of the new encoders: deberta-v3-base for sequence classification (2 labels)
	 * is 184,423,682 (ContextPooler + classifier) */
	m = sl_model_from_config(f->a, "fixtures/configs/deberta-v2", &d);
	assert_non_null(m);
	assert_true(sl_arch_params_for_task(&m->arch, SL_TASK_SEQ_CLS) == 184423682);
	assert_int_equal(sl_arch_max_seq_len(&m->arch), 0); /* relative positions: no bound */
	m = sl_model_from_config(f->a, "fixtures/configs/mpnet", &d);
	assert_non_null(m);
	assert_int_equal(sl_arch_max_seq_len(&m->arch), 512);
	assert_int_equal(d.n, 0);
}

/* LongformerConfig's attention_window as one integer (every layer) reads as the list of the published configs */
static void test_config_longformer_window(void **state)
{
	struct fx *f = *state;
	struct sl_diags d;
	sl_diags_init(&d, f->a);
	const struct sl_model *one = sl_model_from_config(f->a, "fixtures/configs/longformer-int", &d);
	const struct sl_model *list = sl_model_from_config(f->a, "fixtures/configs/longformer", &d);
	dump(&d);
	assert_int_equal(d.n, 0);
	assert_non_null(one);
	assert_non_null(list);
	assert_int_equal(one->arch.window, 256);
	assert_int_equal(list->arch.window, 512);
	assert_int_equal(one->arch.window_layers, 12);
	assert_int_equal(sl_arch_params(&one->arch), sl_arch_params(&list->arch));
	assert_int_equal(sl_arch_params(&list->arch), 148659456);
}

static void test_config_bad(void **state)
{
	struct fx *f = *state;
	struct sl_diags d;

	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/unknown-type.json", &d));
	dump(&d);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.v[0].rule, "unknown-model");
	assert_non_null(strstr(d.v[0].message, "'xlstm'"));
	assert_non_null(strstr(d.v[0].hint, "llama"));
	assert_int_equal(d.v[0].span.line, 2);
	assert_int_equal(d.v[0].span.col, 3);

	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/missing-hidden.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'hidden_size'"));

	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/broken.json", &d));
	dump(&d);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].span.line, 3);

	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/wrong-type.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'vocab_size' must be a non-negative integer"));
	assert_int_equal(d.v[0].span.line, 3);

	/* an integer past what the field holds is too large, not of the wrong kind (turn3/cosmetic-messages 1);
	 * a negative one is of the wrong kind */
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/too-large.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'vocab_size' is 4611686018427387904, past the largest value sweeplint "
						"reads for it (4294967295)"));
	assert_int_equal(d.v[0].span.line, 7);
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/negative.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'vocab_size' must be a non-negative integer"));

	/* a sliding-window pattern is an integer or local layers closed by one global ("LLLG"); "LGLG" is neither */
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/bad-pattern.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'sliding_window_pattern' must be a non-negative integer or a pattern"));
	assert_int_equal(d.v[0].span.line, 3);

	/* lfm2's attention layers are a list of integers, its FFN multiplier a number */
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/bad-attn-idxs.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'full_attn_idxs' must be a list of non-negative integers"));
	assert_int_equal(d.v[0].span.line, 3);
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/bad-multiplier.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'block_ffn_dim_multiplier' must be a number"));
	assert_int_equal(d.v[0].span.line, 4);
	/* mllama's supported_aspect_ratios is a list of tile grids (its length counts), not a number */
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/bad-aspect-ratios.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'supported_aspect_ratios' must be a list"));
	assert_int_equal(d.v[0].span.line, 7);

	/* nemotron_h's MoE blocks ("E", Nemotron-3) are not built: the key that holds them is named where it is */
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/nemotron-moe-blocks.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message,
			       "'hybrid_override_pattern' holds a layout sweeplint does not build for model_type 'nemotron_h'"));
	assert_int_equal(d.v[0].span.line, 11);
	/* longformer's attention_window: an integer or a list of them, each even and positive */
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/longformer-window-kind.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'attention_window' must be a non-negative integer or a list of them"));
	assert_int_equal(d.v[0].span.line, 3);
	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/bad/longformer-odd-window.json", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "'attention_window of even positive widths'"));

	sl_diags_init(&d, f->a);
	assert_null(sl_model_from_config(f->a, "fixtures/configs/no-such-dir", &d));
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "cannot read"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loaded),       cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_find_model),   cmocka_unit_test(test_find_gpu),
		cmocka_unit_test(test_sizes),        cmocka_unit_test(test_bad_models),
		cmocka_unit_test(test_bad_gpus),     cmocka_unit_test(test_config_families),
		cmocka_unit_test(test_config_bad),   cmocka_unit_test(test_config_longformer_window),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
