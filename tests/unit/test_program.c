/*
 * test_program: following a sweep's program — finding it (program:, command:
 * with python -m / launchers / shell scripts, Windows and foreign absolute
 * paths) and reading its literal settings with python3's ast (argparse
 * defaults, dataclass fields, keyword literals, from_pretrained), each at the
 * position of its literal; hostile programs end in a note within bounds.
 * Needs python3 on PATH (skips without it, except the test that makes it absent).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/path.h"
#include "sweeplint/program.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

static struct sl_arena *A;
static char dir[256];

static bool have_python(void)
{
	return system("python3 -c pass >/dev/null 2>&1") == 0;
}

static int setup(void **state)
{
	(void)state;
	A = sl_arena_new();
	snprintf(dir, sizeof dir, "%s/sweeplint-program-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	sl_arena_free(A);
	return 0;
}

static const char *write_file(const char *rel, const char *text)
{
	const char *path = sl_arena_printf(A, "%s/%s", dir, rel);
	/* make the folders on the way */
	char *p = sl_arena_strdup(A, path);
	for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(text, 1, strlen(text), f);
	fclose(f);
	return path;
}

static struct sl_pyread *read_py(const char *text)
{
	struct sl_program_opts o = {0};
	return sl_pyread_bytes(A, "train.py", text, strlen(text), &o);
}

/* The entry for key holds value, and its span starts where anchor's literal is in text. */
static void expect(const struct sl_pyread *r, const char *text, const char *key, const char *value,
		   const char *anchor)
{
	assert_non_null(r->settings);
	const struct sl_cfg_entry *e = sl_trainer_get(r->settings, key);
	if (!e)
		fail_msg("no setting %s", key);
	assert_string_equal(e->node->text, value);
	assert_non_null(e->how);
	const char *at = strstr(text, anchor);
	assert_non_null(at);
	assert_int_equal(e->node->span.start, (size_t)(at - text));
	/* the line is the anchor's line */
	uint32_t line = 1;
	for (const char *c = text; c < at; c++)
		line += *c == '\n';
	assert_int_equal(e->node->span.line, line);
}

#define NEED_PYTHON()                       \
	do {                                \
		if (!have_python())         \
			skip();             \
	} while (0)

static void test_argparse(void **state)
{
	(void)state;
	NEED_PYTHON();
	const char *text = "import argparse\n"
			   "p = argparse.ArgumentParser()\n"
			   "p.add_argument('--model_name', type=str, default='klue/roberta-large')\n"
			   "p.add_argument('-b', '--batch-size', type=int, default=16)\n"
			   "p.add_argument('--fp16', action='store_true')\n"
			   "p.add_argument('--no_gc', dest='gc', action='store_false')\n"
			   "p.add_argument('--max_len', default=-1)\n"
			   "p.add_argument('--lr', default=float(os.environ['LR']))\n"
			   "p.add_argument('--targets', nargs='+', default=['q', 'v'])\n"
			   "p.set_defaults(seq_len=512)\n";
	struct sl_pyread *r = read_py(text);
	assert_null(r->error);
	expect(r, text, "model_name", "klue/roberta-large", "'klue/roberta-large'");
	expect(r, text, "batch_size", "16", "16)");
	expect(r, text, "fp16", "False", "p.add_argument('--fp16'");
	expect(r, text, "gc", "True", "p.add_argument('--no_gc'");
	expect(r, text, "max_len", "-1", "-1)");
	expect(r, text, "targets", "['q', 'v']", "['q', 'v']");
	expect(r, text, "seq_len", "512", "512)");
	/* computed from what the text does not show: never guessed, said why */
	assert_null(sl_trainer_get(r->settings, "lr"));
	assert_true(r->nnotes >= 1);
	assert_non_null(strstr(r->notes[0], "--lr is computed"));
	assert_string_equal(sl_trainer_get(r->settings, "model_name")->how, "argparse default of --model_name");
}

static void test_dataclass_fields(void **state)
{
	(void)state;
	NEED_PYTHON();
	const char *text = "from dataclasses import dataclass, field\n"
			   "from typing import Optional\n"
			   "@dataclass\n"
			   "class ModelArguments:\n"
			   "    model_name_or_path: str = field(default=\"meta-llama/Llama-2-7b-hf\", metadata={})\n"
			   "    max_seq_length: Optional[int] = 2048\n"
			   "    targets: list = field(default_factory=lambda: ['q'])\n"
			   "    lr: float = os.cpu_count() * 1e-5\n"
			   "class NotADataclass:\n"
			   "    batch_size: int = 99\n";
	struct sl_pyread *r = read_py(text);
	assert_null(r->error);
	expect(r, text, "model_name_or_path", "meta-llama/Llama-2-7b-hf", "\"meta-llama");
	expect(r, text, "max_seq_length", "2048", "2048");
	assert_null(sl_trainer_get(r->settings, "targets"));
	assert_null(sl_trainer_get(r->settings, "lr"));
	assert_null(sl_trainer_get(r->settings, "batch_size"));
	assert_string_equal(sl_trainer_get(r->settings, "max_seq_length")->how,
			    "dataclass field ModelArguments.max_seq_length");
}

static void test_keyword_literals(void **state)
{
	(void)state;
	NEED_PYTHON();
	const char *text = "import torch\n"
			   "from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments, Trainer\n"
			   "tok = AutoTokenizer.from_pretrained('gpt2')\n"
			   "bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4')\n"
			   "model = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B', torch_dtype=torch.bfloat16,\n"
			   "    attn_implementation='flash_attention_2', quantization_config=bnb)\n"
			   "model.gradient_checkpointing_enable()\n"
			   "if args.x:\n"
			   "    model.gradient_checkpointing_enable()\n"
			   "cfg = LoraConfig(r=16, lora_alpha=32, target_modules=['q_proj', 'v_proj'])\n"
			   "ta = TrainingArguments(output_dir='o', bf16=True, per_device_train_batch_size=4,\n"
			   "    gradient_accumulation_steps=args.accum)\n"
			   "Trainer(model=model, args=ta).train()\n";
	struct sl_pyread *r = read_py(text);
	assert_null(r->error);
	expect(r, text, "model_name_or_path", "Qwen/Qwen2.5-7B", "'Qwen/");
	expect(r, text, "torch_dtype", "bfloat16", "torch.bfloat16");
	expect(r, text, "attn_implementation", "flash_attention_2", "'flash_attention_2'");
	expect(r, text, "load_in_4bit", "True", "True, bnb");
	expect(r, text, "bnb_4bit_quant_type", "nf4", "'nf4'");
	expect(r, text, "gradient_checkpointing", "True", "model.gradient_checkpointing_enable()\nif");
	expect(r, text, "lora.r", "16", "16, lora_alpha");
	expect(r, text, "lora.target_modules", "['q_proj', 'v_proj']", "['q_proj'");
	expect(r, text, "bf16", "True", "True, per_device");
	expect(r, text, "per_device_train_batch_size", "4", "4,\n");
	assert_null(sl_trainer_get(r->settings, "gradient_accumulation_steps"));
	assert_int_equal(r->trains, 1);
	/* the conditional gradient_checkpointing_enable() is not read, and a note says so */
	bool said = false;
	for (size_t i = 0; i < r->nnotes; i++)
		said |= strstr(r->notes[i], "under a condition") != NULL;
	assert_true(said);
}

/* The trainer class a program builds is its algorithm (issue #31): trainer_class, at the call (the
 * interpreter's trainer sink, src/program/pysinks.py). */
static void test_trainer_class(void **state)
{
	(void)state;
	NEED_PYTHON();
	const char *text = "from trl import DPOConfig, DPOTrainer\n"
			   "cfg = DPOConfig(output_dir='o', beta=0.1, precompute_ref_log_probs=True)\n"
			   "trainer = DPOTrainer(model='Qwen/Qwen2.5-0.5B', args=cfg)\n"
			   "trainer.train()\n";
	struct sl_pyread *r = read_py(text);
	assert_null(r->error);
	expect(r, text, "trainer_class", "DPOTrainer", "DPOTrainer(model");
	expect(r, text, "precompute_ref_log_probs", "True", "True)");
	assert_int_equal(r->trains, 1);
}

static void test_models_and_inference(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* two different model literals: neither is the model */
	const char *two = "teacher = AutoModel.from_pretrained('bert-large-uncased')\n"
			  "student = AutoModel.from_pretrained('bert-base-uncased')\n"
			  "opt = torch.optim.AdamW(student.parameters())\n";
	struct sl_pyread *r = read_py(two);
	assert_null(sl_trainer_get(r->settings, "model_name_or_path"));
	assert_int_equal(r->nnotes, 1);
	assert_non_null(strstr(r->notes[0], "several model literals"));
	assert_int_equal(r->trains, 1);
	/* a script that only generates */
	const char *gen = "from vllm import LLM, SamplingParams\n"
			  "llm = LLM(model='meta-llama/Llama-2-7b-hf')\n"
			  "out = llm.generate(['hi'], SamplingParams(max_tokens=64))\n";
	r = read_py(gen);
	assert_int_equal(r->trains, 0);
	/* a Lightning Trainer */
	const char *pl = "import lightning as L\n"
			 "trainer = L.Trainer(precision='bf16-mixed', devices=4, strategy='deepspeed_stage_2',\n"
			 "    accumulate_grad_batches=8)\n";
	r = read_py(pl);
	expect(r, pl, "precision", "bf16-mixed", "'bf16-mixed'");
	expect(r, pl, "num_gpus", "4", "4,");
	expect(r, pl, "trainer.strategy", "deepspeed_stage_2", "'deepspeed_stage_2'");
	expect(r, pl, "accumulate_grad_batches", "8", "8)");
	assert_int_equal(r->trains, 1);
	/* Lightning's FSDPStrategy: full_shard and use_orig_params=True unless its arguments say otherwise */
	const char *fsdp = "from lightning.fabric.strategies import FSDPStrategy\n"
			   "strategy = FSDPStrategy(auto_wrap_policy={Block}, state_dict_type='full', cpu_offload=False)\n";
	r = read_py(fsdp);
	expect(r, fsdp, "FSDPStrategy.sharding_strategy", "full_shard", "FSDPStrategy(auto");
	expect(r, fsdp, "FSDPStrategy.use_orig_params", "True", "FSDPStrategy(auto");
	expect(r, fsdp, "FSDPStrategy.state_dict_type", "full", "'full'");
	expect(r, fsdp, "FSDPStrategy.cpu_offload", "False", "False)");
	/* Fabric takes the Trainer's precision and devices */
	const char *fab = "fabric = L.Fabric(devices=2, strategy=strategy, precision='bf16-true')\n";
	r = read_py(fab);
	expect(r, fab, "precision", "bf16-true", "'bf16-true'");
	expect(r, fab, "num_gpus", "2", "2,");
	const char *no = "s = FSDPStrategy(sharding_strategy='SHARD_GRAD_OP', use_orig_params=False)\n";
	r = read_py(no);
	expect(r, no, "FSDPStrategy.sharding_strategy", "SHARD_GRAD_OP", "'SHARD_GRAD_OP'");
	expect(r, no, "FSDPStrategy.use_orig_params", "False", "False)");
}

/* What the program does with the model (issue #28): the sweeplint_* settings the reader emits. */
static void test_usage_sinks(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* a frozen backbone under a literal head; dynamic padding bounded by max_length */
	const char *frozen = "import torch\n"
			     "model = AutoModel.from_pretrained('bert-base-uncased')\n"
			     "model.requires_grad_(False)\n"
			     "head = torch.nn.Sequential(torch.nn.Linear(768, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))\n"
			     "opt = torch.optim.AdamW(head.parameters())\n"
			     "def enc(t):\n"
			     "    return tok(t, padding=True, truncation=True, max_length=256)\n"
			     "enc(x)\n";
	struct sl_pyread *r = read_py(frozen);
	expect(r, frozen, "sweeplint_frozen", "backbone", "model.requires_grad_(False)");
	expect(r, frozen, "sweeplint_head_params", "Linear(768, 64); ReLU(); Linear(64, 2)", "torch.nn.Sequential");
	expect(r, frozen, "sweeplint_part", "base", "AutoModel.from_pretrained");
	expect(r, frozen, "sweeplint_padding", "longest", "True, truncation");
	expect(r, frozen, "max_length", "256", "256)");
	assert_int_equal(r->trains, 1);
	/* truncation to max_length and no padding: a collator pads each batch to its longest, max_length bounds
	 * it (DataCollatorForSeq2Seq pads to the longest by default); truncation alone, with no max_length,
	 * bounds nothing here */
	const char *trunc = "src = tok(doc, max_length=768, truncation=True)\n"
			    "tgt = tok(text_target=summary, max_length=96, truncation=True)\n"
			    "col = DataCollatorForSeq2Seq(tok, model=model)\n";
	r = read_py(trunc);
	expect(r, trunc, "sweeplint_padding", "longest", "DataCollatorForSeq2Seq");
	expect(r, trunc, "max_length", "768", "768");
	expect(r, trunc, "max_target_length", "96", "96");
	const char *one = "src = tok(doc, max_length=768, truncation=True)\n";
	r = read_py(one);
	expect(r, one, "sweeplint_padding", "longest", "True)");
	expect(r, one, "max_length", "768", "768");
	const char *bare = "x = tok(doc, truncation=True)\n";
	r = read_py(bare);
	assert_true(!r->settings || !sl_trainer_get(r->settings, "sweeplint_padding"));
	/* sentence-transformers: the length its model.max_seq_length is given, and its own dynamic padding */
	const char *stm = "from sentence_transformers import SentenceTransformer\n"
			 "model = SentenceTransformer('BAAI/bge-base-en-v1.5')\n"
			 "model.max_seq_length = 200\n";
	r = read_py(stm);
	expect(r, stm, "max_seq_length", "200", "200");
	expect(r, stm, "sweeplint_padding", "longest", "SentenceTransformer('BAAI");
	const char *col = "col = DataCollatorForTokenClassification(tok)\n";
	r = read_py(col);
	expect(r, col, "sweeplint_padding", "longest", "DataCollatorForTokenClassification");
	/* the bottom 6 layers; a feature extractor under no_grad in the training loop */
	const char *layers = "model = AutoModelForSequenceClassification.from_pretrained('bert-base-uncased')\n"
			     "for layer in model.bert.encoder.layer[:6]:\n"
			     "    for p in layer.parameters():\n"
			     "        p.requires_grad = False\n"
			     "trainer.train()\n";
	r = read_py(layers);
	expect(r, layers, "sweeplint_frozen", "6", "for p in");
	const char *nograd = "backbone = AutoModel.from_pretrained('roberta-base')\n"
			     "for batch in loader:\n"
			     "    with torch.no_grad():\n"
			     "        feats = backbone(**batch).last_hidden_state\n"
			     "    head(feats).sum().backward()\n";
	r = read_py(nograd);
	expect(r, nograd, "sweeplint_frozen", "backbone", "with torch.no_grad()");
	/* not frozen: an evaluation under no_grad, a teacher the program does not load as its model, the
	 * embeddings only, a PEFT model (its base is frozen anyway), freezing under a condition */
	const char *evaluation = "model = AutoModel.from_pretrained('roberta-base')\n"
				 "for batch in loader:\n    model(**batch).loss.backward()\n"
				 "def evaluate():\n    with torch.no_grad():\n        model(x)\n";
	r = read_py(evaluation);
	assert_null(sl_trainer_get(r->settings, "sweeplint_frozen"));
	const char *emb = "model = AutoModel.from_pretrained('roberta-base')\nmodel.embeddings.requires_grad_(False)\n"
			  "loss.backward()\n";
	r = read_py(emb);
	expect(r, emb, "sweeplint_frozen", "embeddings", "model.embeddings");
	const char *peft = "model = AutoModelForCausalLM.from_pretrained('gpt2')\nmodel.requires_grad_(False)\n"
			   "model = get_peft_model(model, LoraConfig(r=8))\nloss.backward()\n";
	r = read_py(peft);
	assert_null(sl_trainer_get(r->settings, "sweeplint_frozen"));
	const char *cond = "model = AutoModel.from_pretrained('roberta-base')\n"
			   "for n, p in model.named_parameters():\n    if 'layer.1' in n:\n        p.requires_grad = False\n"
			   "loss.backward()\n";
	r = read_py(cond);
	assert_null(sl_trainer_get(r->settings, "sweeplint_frozen"));
	/* the part: T5EncoderModel is the encoder alone */
	const char *t5 = "m = T5EncoderModel.from_pretrained('t5-base')\nloss.backward()\n";
	r = read_py(t5);
	expect(r, t5, "sweeplint_part", "encoder", "T5EncoderModel.from_pretrained");
	/* sentence-transformers: the loss and the texts of each example */
	const char *st = "model = SentenceTransformer('bert-base-uncased')\n"
			 "ex = [InputExample(texts=['q', 'p', 'n'])]\n"
			 "loss = losses.MultipleNegativesRankingLoss(model)\n"
			 "model.fit(train_objectives=[(dl, loss)])\n";
	r = read_py(st);
	expect(r, st, "sweeplint_loss", "MultipleNegativesRankingLoss", "losses.Multiple");
	expect(r, st, "texts_per_example", "3", "['q'");
	/* vLLM: the model, its start-up keywords and the engine; an inference-only program says so */
	const char *vllm = "from vllm import LLM, SamplingParams\n"
			   "llm = LLM(model='meta-llama/Llama-3.1-8B', max_model_len=8192, tensor_parallel_size=2)\n"
			   "out = llm.generate(['hi'], SamplingParams(max_tokens=64))\n";
	r = read_py(vllm);
	expect(r, vllm, "model_name_or_path", "meta-llama/Llama-3.1-8B", "'meta-llama");
	expect(r, vllm, "max_model_len", "8192", "8192");
	expect(r, vllm, "tensor_parallel_size", "2", "2)");
	expect(r, vllm, "sweeplint_engine", "vllm", "LLM(model");
	expect(r, vllm, "sweeplint_mode", "generate", "LLM(model");
	assert_int_equal(r->trains, 0);
	/* HF generate: its lengths, and the batch of the program's loop over the prompts */
	const char *hfgen = "BATCH = 16\n"
			    "model = AutoModelForCausalLM.from_pretrained('gpt2')\n"
			    "for i in range(0, len(prompts), BATCH):\n"
			    "    enc = tok(prompts[i:i + BATCH], return_tensors='pt')\n"
			    "    model.generate(**enc, max_new_tokens=128, num_beams=4)\n";
	r = read_py(hfgen);
	expect(r, hfgen, "batch_size", "16", "16\n");
	expect(r, hfgen, "max_new_tokens", "128", "128,");
	expect(r, hfgen, "num_beams", "4", "4)");
	expect(r, hfgen, "sweeplint_mode", "generate", "model.generate");
	/* transformers' TrainingArguments without a per-device batch: its default is the program's */
	const char *hf = "args = TrainingArguments(output_dir='o', learning_rate=1e-5)\n";
	r = read_py(hf);
	expect(r, hf, "sweeplint_hf_trainer_defaults", "TrainingArguments", "TrainingArguments(");
	const char *hf_bs = "args = TrainingArguments(output_dir='o', per_device_train_batch_size=bs)\n";
	r = read_py(hf_bs);
	assert_null(sl_trainer_get(r->settings, "sweeplint_hf_trainer_defaults"));
	/* a trainer class chosen by an if/else and generate in an evaluation hook: it trains */
	const char *chosen = "class T(SFTTrainer):\n    def evaluate(self):\n        return self.model.generate(x)\n"
			     "cls = T if flag else SFTTrainer\n"
			     "trainer = cls(model=m, args=a)\ntrainer.train()\n";
	r = read_py(chosen);
	assert_int_equal(r->trains, 1);
	assert_null(sl_trainer_get(r->settings, "sweeplint_mode"));
}

static void test_hostile_programs(void **state)
{
	(void)state;
	NEED_PYTHON();
	struct sl_pyread *r = read_py("def f(:\n    pass\n");
	assert_non_null(r->error);
	assert_non_null(strstr(r->error, "train.py:1: syntax error"));
	/* not UTF-8 and no coding cookie */
	r = read_py("x = '\xff\xfe'\n");
	assert_non_null(r->error);
	/* deep nesting: python's parser refuses it, a note and no crash */
	struct sl_buf b;
	sl_buf_init(&b, A);
	sl_buf_adds(&b, "x = ");
	for (int i = 0; i < 5000; i++)
		sl_buf_addc(&b, '(');
	for (int i = 0; i < 5000; i++)
		sl_buf_addc(&b, ')');
	sl_buf_adds(&b, "\n");
	sl_buf_addc(&b, '\0');
	time_t t0 = time(NULL);
	r = read_py(b.buf);
	assert_non_null(r->error);
	/* 10 MB: refused from its size, python3 is not started */
	size_t big = (size_t)10 << 20;
	char *text = sl_arena_alloc(A, big + 1);
	for (size_t i = 0; i < big; i++)
		text[i] = (i % 64 == 63) ? '\n' : 'x';
	text[big] = '\0';
	r = read_py(text);
	assert_non_null(r->error);
	assert_non_null(strstr(r->error, "larger than 256 KiB"));
	assert_true(time(NULL) - t0 < SL_PROGRAM_TIMEOUT_MS / 1000);
}

static void test_python_absent(void **state)
{
	(void)state;
	struct sl_program_opts o = {.python = "/nonexistent/python3"};
	struct sl_pyread *r = sl_pyread_bytes(A, "train.py", "x = 1\n", 6, &o);
	assert_non_null(r->error);
	assert_non_null(strstr(r->error, "was not found"));
	assert_null(r->settings);
}

/* ---- finding the program ---- */

static struct sl_sweep *sweep_of(const char *text)
{
	struct sl_source *src = sl_source_from_bytes(A, "sweep.yaml", text, strlen(text));
	struct sl_diags d;
	sl_diags_init(&d, A);
	return sl_sweep_load(A, sl_ydoc_parse(A, src, NULL, &d));
}

static const char *find(const char *sweep_rel, const char *sweep_text)
{
	const char *sweep_dir = sl_path_dir(A, sl_arena_printf(A, "%s/%s", dir, sweep_rel));
	struct sl_program_opts o = {.sweep_dir = sweep_dir};
	struct sl_program_ref ref;
	if (!sl_program_find(A, sweep_of(sweep_text), &o, &ref))
		return NULL;
	/* relative to the test folder */
	char *real = realpath(ref.path, NULL);
	char *rdir = realpath(dir, NULL);
	assert_non_null(real);
	const char *rel = sl_arena_strdup(A, real + strlen(rdir) + 1);
	free(real);
	free(rdir);
	return rel;
}

static void test_find(void **state)
{
	(void)state;
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	write_file("train.py", "x = 1\n");
	write_file("pkg/mod.py", "x = 1\n");
	write_file("src/__main__.py", "x = 1\n");
	write_file("scripts/run.sh", "#!/bin/sh\nset -e\nexport X=1\n"
				     "accelerate launch --num_processes 2 \\\n    pkg/mod.py --lr 1 \"$@\"\n");
	write_file("configs/sweeps/s.yaml", "");
	/* program: from the sweep's folder up to the repository root */
	assert_string_equal(find("configs/sweeps/s.yaml", "program: train.py\nmethod: grid\n"), "train.py");
	/* Windows separators, and an absolute path from another machine by its tail */
	assert_string_equal(find("s.yaml", "program: pkg\\mod.py\n"), "pkg/mod.py");
	assert_string_equal(find("s.yaml", "program: /home/someone/proj/pkg/mod.py\n"), "pkg/mod.py");
	/* command: python -m, launchers and their flags */
	assert_string_equal(find("s.yaml", "method: grid\ncommand: [python, -m, pkg.mod, '${args}']\n"),
			    "pkg/mod.py");
	assert_string_equal(find("s.yaml", "program: x.py\ncommand: [torchrun, --nproc_per_node, 4, --standalone, "
					   "train.py, '${args}']\n"),
			    "train.py");
	assert_string_equal(find("s.yaml", "command: [accelerate launch --mixed_precision bf16 train.py]\n"),
			    "train.py");
	/* the interpreter in program: and the script after it; a package folder */
	assert_string_equal(find("s.yaml", "program: C:\\venv\\Scripts\\python.exe\n"
					   "command: ['${program}', train.py, '${args}']\n"),
			    "train.py");
	assert_string_equal(find("s.yaml", "program: src\ncommand: [python, '${program}', '${args_no_hyphens}']\n"),
			    "src/__main__.py");
	/* a shell script: the Python script it runs */
	assert_string_equal(find("s.yaml", "program: scripts/run.sh\n"), "pkg/mod.py");
	/* not found: false, with a reason */
	struct sl_program_opts o = {.sweep_dir = dir};
	struct sl_program_ref ref;
	assert_false(sl_program_find(A, sweep_of("program: nothere.py\n"), &o, &ref));
	assert_non_null(strstr(ref.how, "nothere.py: not found"));
	assert_false(sl_program_find(A, sweep_of("method: grid\n"), &o, &ref));
	assert_null(ref.how);
	/* .sweeplint.yaml names it */
	o.program = "pkg/mod.py";
	assert_true(sl_program_find(A, sweep_of("program: train.py\n"), &o, &ref));
	assert_non_null(strstr(ref.path, "pkg/mod.py"));
}

static void test_follow_modules(void **state)
{
	(void)state;
	NEED_PYTHON();
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	write_file("config.py", "from dataclasses import dataclass\n@dataclass\nclass Cfg:\n    max_len: int = 256\n"
				"    batch_size: int = 8\n");
	write_file("train.py", "from config import Cfg\nimport os\nimport argparse\np = argparse.ArgumentParser()\n"
			       "p.add_argument('--batch_size', default=32)\n"
			       "model = AutoModel.from_pretrained('bert-base-uncased')\nloss.backward()\n");
	struct sl_program_opts o = {.sweep_dir = dir};
	struct sl_program *p = sl_program_follow(A, sweep_of("program: train.py\n"), &o);
	assert_non_null(p);
	assert_int_equal(p->nsettings, 3);
	/* the module's declarations first (lower precedence), the program's own, then what reaches a sink */
	assert_non_null(strstr(p->settings[0]->src->path, "config.py"));
	assert_string_equal(sl_trainer_get(p->settings[0], "max_len")->node->text, "256");
	assert_string_equal(sl_trainer_get(p->settings[1], "batch_size")->node->text, "32");
	assert_string_equal(sl_trainer_get(p->settings[2], "model_name_or_path")->node->text, "bert-base-uncased");
	assert_int_equal(p->trains, 1);
	/* an inference-only program keeps its settings and says it generates (issue #28: they were dropped) */
	write_file("gen.py", "m = AutoModelForCausalLM.from_pretrained('gpt2')\nm.generate(x)\n");
	p = sl_program_follow(A, sweep_of("program: gen.py\n"), &o);
	assert_int_equal(p->trains, 0);
	assert_int_equal(p->nsettings, 1);
	assert_string_equal(sl_trainer_get(p->settings[0], "model_name_or_path")->node->text, "gpt2");
	assert_string_equal(sl_trainer_get(p->settings[0], "sweeplint_mode")->node->text, "generate");
	assert_int_equal(sl_trainer_get(p->settings[0], "sweeplint_mode")->node->span.line, 2);
}

static void test_hydra_compose(void **state)
{
	(void)state;
	/* a primary config with a defaults list, group options, packages, _self_ and an override */
	write_file("conf/config.yaml", "defaults:\n  - data: small\n  - model: bert\n  - trainer@train: gpu\n"
				       "  - _self_\nseed: 1\nbatch_size: ${data.batch_size}\n");
	write_file("conf/data/small.yaml", "batch_size: 8\nmax_seq_length: 128\n");
	write_file("conf/data/big.yaml", "batch_size: 64\nmax_seq_length: 512\n");
	write_file("conf/model/bert.yaml", "# @package _global_\nmodel_name_or_path: bert-base-uncased\n");
	write_file("conf/model/t5.yaml", "defaults:\n  - override /data: big\nmodel_name_or_path: t5-large\n");
	write_file("conf/trainer/gpu.yaml", "# @package _group_\nfp16: true\n");
	const char *cdir = sl_arena_printf(A, "%s/conf", dir);
	struct sl_hydra h;
	assert_int_equal(sl_hydra_compose(A, cdir, NULL, "config", NULL, 0, NULL, NULL, &h), 0);
	/* merge order: data, model, trainer, then the primary's own keys */
	assert_int_equal(h.nconfigs, 4);
	assert_string_equal(sl_trainer_get(h.configs[0], "data.batch_size")->node->text, "8");
	assert_string_equal(sl_trainer_get(h.configs[1], "model_name_or_path")->node->text, "bert-base-uncased");
	assert_non_null(sl_trainer_get(h.configs[2], "train.fp16"));
	/* ${data.batch_size}: the composed value, at its own position in data/small.yaml */
	const struct sl_cfg_entry *bs = sl_trainer_get(h.configs[3], "batch_size");
	assert_string_equal(bs->node->text, "8");
	assert_int_equal(bs->node->span.line, 1);
	/* the sweep chooses model=t5, whose override entry chooses data=big */
	struct sl_hydra_choice ch = {.group = "model", .option = "t5"};
	assert_int_equal(sl_hydra_compose(A, cdir, NULL, "config", &ch, 1, NULL, NULL, &h), 0);
	assert_string_equal(sl_trainer_get(h.configs[0], "data.batch_size")->node->text, "64");
	/* t5.yaml has no @package header: its keys are under the group's package */
	assert_string_equal(sl_trainer_get(h.configs[1], "model.model_name_or_path")->node->text, "t5-large");
	/* a group the sweep varies is not composed */
	ch.varied = true;
	ch.option = NULL;
	assert_int_equal(sl_hydra_compose(A, cdir, NULL, "config", &ch, 1, NULL, NULL, &h), 0);
	for (size_t i = 0; i < h.nconfigs; i++)
		assert_null(sl_trainer_get(h.configs[i], "model_name_or_path"));
	assert_true(h.nnotes >= 1);
	assert_non_null(strstr(h.notes[0], "group model varies"));
}

static void test_follow_configs_hydra_shell(void **state)
{
	(void)state;
	NEED_PYTHON();
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	/* a Hydra program whose model is read from the config object */
	write_file("conf/config.yaml", "defaults:\n  - model: bert\nmodel:\n  name: overridden-by-group\n");
	write_file("conf/model/bert.yaml", "name: bert-large-uncased\nbatch: 4\n");
	write_file("conf/model/t5.yaml", "name: t5-small\n");
	write_file("hy.py", "import hydra\n@hydra.main(config_path='conf', config_name='config')\ndef main(cfg):\n"
			    "    m = AutoModel.from_pretrained(cfg.model.name)\n    m.train(); loss.backward()\n");
	struct sl_program_opts o = {.sweep_dir = dir};
	struct sl_program *p = sl_program_follow(A, sweep_of("program: hy.py\nparameters:\n  lr: {values: [1, 2]}\n"), &o);
	/* the last settings group that gives the model (a later one may say what part runs: AutoModel) */
	const struct sl_trainer *last = NULL;
	for (size_t i = p->nsettings; i-- > 0 && !last;)
		if (sl_trainer_get(p->settings[i], "model_name_or_path"))
			last = p->settings[i];
	assert_non_null(last);
	/* _self_ absent: the primary's own keys last, so model.name is its value; the ref reads that */
	assert_string_equal(sl_trainer_get(last, "model_name_or_path")->node->text, "overridden-by-group");
	assert_int_equal(p->nignore_params, 0);
	/* a sweep that varies the group: the parameter is a choice, not a model value */
	p = sl_program_follow(A, sweep_of("program: hy.py\nparameters:\n  model: {values: [bert, t5]}\n"), &o);
	assert_int_equal(p->nignore_params, 1);
	assert_string_equal(p->ignore_params[0], "model");
	/* a config named by an argparse default and one named by a sweep value */
	write_file("cfg/base.yaml", "per_device_train_batch_size: 2\n");
	write_file("cfg/other.yaml", "per_device_train_batch_size: 32\n");
	write_file("ap.py", "import argparse, yaml\np = argparse.ArgumentParser()\n"
			    "p.add_argument('--config', default='cfg/base.yaml')\nlosses.backward()\n");
	p = sl_program_follow(A, sweep_of("program: ap.py\n"), &o);
	last = p->settings[p->nsettings - 1];
	assert_non_null(strstr(last->src->path, "cfg/base.yaml"));
	assert_int_equal(sl_trainer_get(last, "per_device_train_batch_size")->node->span.line, 1);
	p = sl_program_follow(A, sweep_of("program: ap.py\nparameters:\n  config: {value: cfg/other.yaml}\n"), &o);
	last = p->settings[p->nsettings - 1];
	assert_non_null(strstr(last->src->path, "cfg/other.yaml"));
	/* a shell script's literal options, last (over the program's defaults), "$@" skipped */
	write_file("run.sh", "#!/bin/bash\npython ap.py --per_device_train_batch_size 16 --bf16 --lr \"$LR\" \"$@\"\n");
	p = sl_program_follow(A, sweep_of("program: run.sh\n"), &o);
	last = p->settings[p->nsettings - 1];
	assert_string_equal(sl_trainer_get(last, "per_device_train_batch_size")->node->text, "16");
	assert_string_equal(sl_trainer_get(last, "bf16")->node->text, "true");
	assert_null(sl_trainer_get(last, "lr"));
	assert_int_equal(sl_trainer_get(last, "bf16")->node->span.line, 2);
	/* a single-dash option on the shell line (-c FILE): the program's parser maps it to its dest, and the
	 * config it names is the one the program loads (was: only --long options were read, so the default's
	 * cfg/base.yaml was looked for) */
	write_file("ap2.py", "import argparse, yaml\np = argparse.ArgumentParser()\n"
			     "p.add_argument('-c', '--cfg-file', dest='cfg_path', default='cfg/base.yaml')\n"
			     "args = p.parse_args()\ncfg = yaml.safe_load(open(args.cfg_path))\n"
			     "t = TrainingArguments('o', per_device_train_batch_size=cfg['per_device_train_batch_size'])\n"
			     "losses.backward()\n");
	write_file("run2.sh", "#!/bin/bash\npython ap2.py -c cfg/other.yaml -x=1 -1 \"$@\"\n");
	p = sl_program_follow(A, sweep_of("program: run2.sh\n"), &o);
	const struct sl_trainer *in = NULL;
	const struct sl_cfg_entry *bs = NULL;
	for (size_t i = p->nsettings; i-- > 0 && !bs;)
		if ((bs = sl_trainer_get(p->settings[i], "per_device_train_batch_size")))
			in = p->settings[i];
	assert_non_null(bs);
	assert_string_equal(bs->node->text, "32");
	assert_non_null(strstr(in->src->path, "cfg/other.yaml"));
	assert_non_null(sl_trainer_get(p->ref.shell, "c"));
	assert_string_equal(sl_trainer_get(p->ref.shell, "x")->node->text, "1");
	assert_null(sl_trainer_get(p->ref.shell, "1")); /* a negative number is no option */
}

/* A program not where the sweep says: the one file of its name in the project, a guess marked as such. */
static void test_program_elsewhere(void **state)
{
	(void)state;
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	write_file("sweeps/s.yaml", "program: train.py\n");
	write_file("cli/train.py", "loss.backward()\n");
	/* copies W&B and environments keep are not the project's program */
	write_file("wandb/run-1/files/code/train.py", "loss.backward()\n");
	write_file(".venv/lib/train.py", "x = 1\n");
	write_file("node_modules/x/train.py", "x = 1\n");
	struct sl_program_ref ref;
	struct sl_program_opts o = {.sweep_dir = sl_arena_printf(A, "%s/sweeps", dir)};
	assert_true(sl_program_find(A, sweep_of("program: train.py\n"), &o, &ref));
	assert_non_null(strstr(ref.path, "cli/train.py"));
	assert_non_null(ref.guessed);
	assert_non_null(strstr(ref.guessed, "read cli/train.py, the only train.py in the project"));
	/* a path that ends in the relative name wins over a file of the same name elsewhere */
	write_file("pkg/src/run.py", "loss.backward()\n");
	write_file("other/run.py", "loss.backward()\n");
	assert_true(sl_program_find(A, sweep_of("program: src/run.py\n"), &o, &ref));
	assert_non_null(strstr(ref.path, "pkg/src/run.py"));
	/* none ends so: the one file of that name */
	write_file("app/main_entry.py", "loss.backward()\n");
	assert_true(sl_program_find(A, sweep_of("program: src/main_entry.py\n"), &o, &ref));
	assert_non_null(strstr(ref.path, "app/main_entry.py"));
	assert_non_null(strstr(ref.guessed, "the only main_entry.py in the project"));
	/* two candidates: not guessed */
	write_file("tools/train.py", "x = 1\n");
	assert_false(sl_program_find(A, sweep_of("program: train.py\n"), &o, &ref));
	assert_null(ref.path);
	assert_non_null(strstr(ref.how, "more than one file of the project has a path ending in train.py"));
	assert_non_null(strstr(ref.how, "not guessed"));
	/* found beside the sweep: no search, no guess */
	write_file("sweeps/train.py", "loss.backward()\n");
	assert_true(sl_program_find(A, sweep_of("program: train.py\n"), &o, &ref));
	assert_null(ref.guessed);
}

/* ---- a trainer the program launches in a subprocess (pylaunch.py, follow.c launched) ---------------- */

static const struct sl_param_role *role_of(const struct sl_program *p, const char *param, const char *key)
{
	for (size_t i = 0; i < p->nroles; i++)
		if (strcmp(p->roles[i].param, param) == 0 && strcmp(p->roles[i].key, key) == 0)
			return &p->roles[i];
	return NULL;
}

static bool has_note(const struct sl_program *p, const char *part)
{
	for (size_t i = 0; i < p->nnotes; i++)
		if (strstr(p->notes[i], part))
			return true;
	return false;
}

static const struct sl_cfg_entry *last_setting(const struct sl_program *p, const char *key)
{
	for (size_t i = p->nsettings; i-- > 0;) {
		const struct sl_cfg_entry *e = sl_trainer_get(p->settings[i], key);
		if (e)
			return e;
	}
	return NULL;
}

static void test_launched_trainer(void **state)
{
	(void)state;
	NEED_PYTHON();
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	const char *trainer = "import argparse\np = argparse.ArgumentParser()\n"
			      "p.add_argument('--batch-size', type=int, default=4)\n"
			      "p.add_argument('--ckpt', action='store_true')\n"
			      "p.add_argument('--model', default='bert-base-uncased')\nargs = p.parse_args()\n"
			      "model = AutoModelForCausalLM.from_pretrained(args.model)\n"
			      "if args.ckpt:\n    model.gradient_checkpointing_enable()\n"
			      "dl = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)\nloss.backward()\n";
	write_file("src/trainer.py", trainer);
	/* the agent: wandb.config read, a list built with a branch on one sweep value, append and += */
	write_file("agent.py", "import subprocess, sys, wandb\ndef train():\n    wandb.init()\n    cfg = wandb.config\n"
			       "    if cfg.kind == 'big':\n        bs = cfg.bs_big\n        flag = '--ckpt'\n"
			       "    else:\n        bs = cfg.bs_small\n        flag = ''\n"
			       "    cmd = [sys.executable, 'src/trainer.py', '--batch-size', str(bs)]\n"
			       "    if flag:\n        cmd.append(flag)\n    cmd += ['--model', 'gpt2']\n"
			       "    subprocess.run(cmd, check=True)\n"
			       "if __name__ == '__main__':\n    train()\n");
	struct sl_program_opts o = {.sweep_dir = dir};
	const char *params = "parameters:\n  kind: {values: [big, small]}\n  bs_big: {values: [8, 16]}\n"
			     "  bs_small: {values: [32]}\n";
	struct sl_program *p = sl_program_follow(A, sweep_of(sl_arena_printf(A, "program: agent.py\n%s", params)), &o);
	assert_non_null(p);
	assert_non_null(strstr(p->ref.path, "src/trainer.py"));
	assert_non_null(strstr(p->ref.how, "subprocess.run"));
	assert_true(has_note(p, "agent.py:15: subprocess.run(...)): the program read"));
	assert_int_equal(p->reaches, 1);
	/* each batch parameter is the batch where kind chooses it */
	const struct sl_param_role *big = role_of(p, "bs_big", "per_device_train_batch_size");
	const struct sl_param_role *small = role_of(p, "bs_small", "per_device_train_batch_size");
	assert_non_null(big);
	assert_non_null(small);
	assert_string_equal(big->only_param, "kind");
	assert_int_equal(big->nonly, 1);
	assert_string_equal(big->only_values[0]->text, "big");
	assert_string_equal(small->only_values[0]->text, "small");
	/* the flag appended under `if flag:` is a map of kind; the literal --model at the launch's place */
	const struct sl_param_role *ck = role_of(p, "kind", "gradient_checkpointing");
	assert_non_null(ck);
	assert_int_equal(ck->ncases, 2);
	const struct sl_cfg_entry *m = last_setting(p, "model_name_or_path");
	assert_non_null(m);
	assert_string_equal(m->node->text, "gpt2");
	assert_int_equal(m->node->span.line, 15);

	/* os.system of an f-string: each formatted value a word, --x={v} an option and its value */
	write_file("train2.py", trainer);
	write_file("agent2.py", "import os, wandb\nwandb.init()\ncfg = wandb.config\n"
				"os.system(f\"python train2.py --model {cfg.m} --batch-size={cfg.bs}\")\n");
	p = sl_program_follow(A, sweep_of("program: agent2.py\nparameters:\n  bs: {values: [2, 4]}\n"
					  "  m: {values: [gpt2, t5-small]}\n"), &o);
	assert_non_null(strstr(p->ref.path, "train2.py"));
	assert_non_null(role_of(p, "bs", "per_device_train_batch_size"));
	assert_non_null(role_of(p, "m", "model_name_or_path"));

	/* a script chosen by a sweep value: which one a run trains is not guessed */
	write_file("agent3.py", "import subprocess, wandb\nwandb.init()\ncfg = wandb.config\n"
				"script = 'src/trainer.py' if cfg.kind == 'big' else 'train2.py'\n"
				"subprocess.run(['python', script, '--batch-size', str(cfg.bs_big)])\n");
	p = sl_program_follow(A, sweep_of(sl_arena_printf(A, "program: agent3.py\n%s", params)), &o);
	assert_non_null(strstr(p->ref.path, "agent3.py"));
	assert_true(has_note(p, "launches one of src/trainer.py, train2.py, as the sweep's kind chooses"));
	assert_null(role_of(p, "bs_big", "per_device_train_batch_size"));

	/* two different scripts launched one after the other: not decided either */
	write_file("agent4.py", "import subprocess\nsubprocess.run(['python', 'train2.py'])\n"
				"subprocess.check_call(['python', 'src/trainer.py'])\n");
	p = sl_program_follow(A, sweep_of("program: agent4.py\n"), &o);
	assert_non_null(strstr(p->ref.path, "agent4.py"));
	assert_true(has_note(p, "launches several scripts"));
}

/* Hostile launches: a program that launches itself, two that launch each other, a huge argument list. */
static void test_launched_hostile(void **state)
{
	(void)state;
	NEED_PYTHON();
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	struct sl_program_opts o = {.sweep_dir = dir};
	write_file("self.py", "import subprocess\nsubprocess.run(['python', 'self.py', '--x', '1'])\n");
	struct sl_program *p = sl_program_follow(A, sweep_of("program: self.py\n"), &o);
	assert_non_null(strstr(p->ref.path, "self.py"));
	assert_true(has_note(p, "launches the program itself: not followed again"));
	/* a launches b launches a: followed at most twice, then read as it is */
	write_file("a.py", "import subprocess\nsubprocess.run(['python', 'b.py'])\n");
	write_file("b.py", "import subprocess\nsubprocess.run(['python', 'a.py'])\n");
	p = sl_program_follow(A, sweep_of("program: a.py\n"), &o);
	assert_non_null(p);
	assert_true(has_note(p, "/a.py:2: subprocess.run"));
	assert_true(has_note(p, "/b.py:2: subprocess.run"));
	/* 20,000 words: past the evaluator's list bound, a command the text does not show */
	struct sl_buf b;
	sl_buf_init(&b, A);
	sl_buf_addf(&b, "import subprocess\nsubprocess.run(['python', 'train.py'");
	for (int i = 0; i < 20000; i++)
		sl_buf_addf(&b, ", '--x%d'", i);
	sl_buf_addf(&b, "])\n");
	write_file("train.py", "loss.backward()\n");
	write_file("huge.py", b.buf);
	p = sl_program_follow(A, sweep_of("program: huge.py\n"), &o);
	assert_non_null(strstr(p->ref.path, "huge.py"));
	assert_true(has_note(p, "launches a command the text does not show"));
	/* 242 words (inside the bound): the script is followed, its options read */
	sl_buf_init(&b, A);
	sl_buf_addf(&b, "import subprocess\nsubprocess.run(['python', 'train.py'");
	for (int i = 0; i < 120; i++)
		sl_buf_addf(&b, ", '--x%d', '%d'", i, i);
	sl_buf_addf(&b, "])\n");
	write_file("many.py", b.buf);
	p = sl_program_follow(A, sweep_of("program: many.py\n"), &o);
	assert_non_null(strstr(p->ref.path, "train.py"));
}

/* ---- custom nn.Modules built from hyperparameters (pymodules.py) ----------------------------------- */

/* The program's layer list (sweeplint_modules), or NULL; the note holding part in *why_note when asked. */
static const char *modules_of(const struct sl_program *p)
{
	const char *v = NULL;
	for (size_t i = 0; i < p->nsettings; i++) {
		const struct sl_cfg_entry *e = sl_trainer_get(p->settings[i], "sweeplint_modules");
		if (e)
			v = e->node->text;
	}
	return v;
}

/* The program's value of one setting, or NULL. */
static const char *setting_of(const struct sl_program *p, const char *key)
{
	const char *v = NULL;
	for (size_t i = 0; i < p->nsettings; i++) {
		const struct sl_cfg_entry *e = sl_trainer_get(p->settings[i], key);
		if (e)
			v = e->node->text;
	}
	return v;
}

static bool program_noted(const struct sl_program *p, const char *part)
{
	for (size_t i = 0; i < p->nnotes; i++)
		if (strstr(p->notes[i], part))
			return true;
	return false;
}

/* The parameters of a layer list for one combination: name=value integers, counted by modules.c. */
struct ints {
	const char *names[4];
	int64_t vals[4];
};

static bool ints_value(void *ctx, const char *name, struct sl_modules_val *out)
{
	const struct ints *c = ctx;
	for (size_t i = 0; i < 4 && c->names[i]; i++)
		if (strcmp(c->names[i], name) == 0) {
			*out = (struct sl_modules_val){.kind = SL_MV_INT, .i = c->vals[i]};
			return true;
		}
	return false;
}

static uint64_t params_for(const char *spec, struct ints c)
{
	struct sl_modules_env env = {.value = ints_value, .ctx = &c};
	struct sl_modules m;
	const char *why = NULL;
	if (sl_modules_parse_env(A, spec, &env, &m, &why) != 0)
		fail_msg("%s: %s", spec, why);
	return m.params;
}

static struct sl_program *follow_sweep(const char *sweep)
{
	struct sl_program_opts o = {.sweep_dir = dir};
	struct sl_program *p = sl_program_follow(A, sweep_of(sweep), &o);
	assert_non_null(p);
	return p;
}

/* argparse dests into a class's __init__: nn.Embedding, nn.TransformerEncoder(layer, n), nn.Linear */
static void test_modules_argparse(void **state)
{
	(void)state;
	NEED_PYTHON();
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	write_file("train.py", "import argparse\nimport torch\nimport torch.nn as nn\n"
			       "p = argparse.ArgumentParser()\n"
			       "p.add_argument('--d_model', type=int, default=256)\n"
			       "p.add_argument('--layers', type=int, default=2)\n"
			       "p.add_argument('--heads', type=int, default=8)\n"
			       "args = p.parse_args()\n"
			       "VOCAB = 8000\n"
			       "class Encoder(nn.Module):\n"
			       "    def __init__(self, vocab, d, n, h):\n"
			       "        super().__init__()\n"
			       "        self.emb = nn.Embedding(vocab, d)\n"
			       "        block = nn.TransformerEncoderLayer(d, h, dim_feedforward=d * 4, batch_first=True)\n"
			       "        self.enc = nn.TransformerEncoder(block, num_layers=n)\n"
			       "        self.out = nn.Linear(d, 2)\n"
			       "    def forward(self, x):\n"
			       "        return self.out(self.enc(self.emb(x)).mean(1))\n"
			       "model = Encoder(VOCAB, args.d_model, args.layers, args.heads).to('cuda')\n"
			       "opt = torch.optim.AdamW(model.parameters())\n");
	struct sl_program *p = follow_sweep("program: train.py\nmethod: grid\nparameters:\n"
					    "  d_model: {values: [256, 512]}\n  layers: {distribution: int_uniform, min: 2, max: 6}\n");
	const char *m = modules_of(p);
	assert_non_null(m);
	/* d_model * 4 of a listed parameter is a value map; the layer count a range parameter's own value;
	 * mean() keeps one tensor of the widest size */
	assert_string_equal(m, "Embedding(8000, {d_model}); {layers}*[TransformerEncoderLayer({d_model}, 8, "
			       "dim_feedforward={d_model[256: 1024, 512: 2048]})]; Linear({d_model}, 2); "
			       "Kept({max(d_model, 2)})");
	/* counted for d_model 512, 3 layers: by hand from torch's shapes */
	uint64_t d = 512, ff = 2048;
	uint64_t tel = (4 * d * d + 4 * d) + (d * ff + ff) + (ff * d + d) + 4 * d;
	assert_int_equal(params_for(m, (struct ints){{"d_model", "layers"}, {512, 3}}), 8000 * d + 3 * tel + d * 2 + 2);
}

/* a dataclass config into a minGPT-style model: nn.Parameter of a tensor's shape, blocks from a
 * comprehension, a hand-written attention with its heads, sizes of two wandb.config parameters */
static void test_modules_mingpt(void **state)
{
	(void)state;
	NEED_PYTHON();
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	write_file("gpt.py", "from dataclasses import dataclass\nimport torch\nimport torch.nn as nn\n"
			     "import torch.nn.functional as F\n"
			     "@dataclass\nclass Conf:\n    block: int = 128\n    vocab: int = 96\n    n_layer: int = 4\n"
			     "    n_head: int = 4\n    d: int = 128\n"
			     "class Attn(nn.Module):\n"
			     "    def __init__(self, c):\n"
			     "        super().__init__()\n"
			     "        self.qkv = nn.Linear(c.d, 3 * c.d)\n"
			     "        self.o = nn.Linear(c.d, c.d)\n"
			     "        self.n_head = c.n_head\n"
			     "    def forward(self, x):\n"
			     "        q, k, v = self.qkv(x).chunk(3, -1)\n"
			     "        w = F.softmax(q @ k.transpose(-2, -1), dim=-1)\n"
			     "        return self.o(w @ v)\n"
			     "class Block(nn.Module):\n"
			     "    def __init__(self, c):\n"
			     "        super().__init__()\n"
			     "        self.ln = nn.LayerNorm(c.d)\n"
			     "        self.attn = Attn(c)\n"
			     "        self.ff = nn.Sequential(nn.Linear(c.d, c.d // c.n_head * 16), nn.GELU(),\n"
			     "                                nn.Linear(c.d // c.n_head * 16, c.d))\n"
			     "class GPT(nn.Module):\n"
			     "    def __init__(self, c):\n"
			     "        super().__init__()\n"
			     "        self.tok = nn.Embedding(c.vocab, c.d)\n"
			     "        self.pos = nn.Parameter(torch.zeros(1, c.block, c.d))\n"
			     "        self.blocks = nn.Sequential(*[Block(c) for _ in range(c.n_layer)])\n"
			     "        self.head = nn.Linear(c.d, c.vocab, bias=False)\n");
	write_file("train.py", "import wandb\nimport torch\nfrom gpt import GPT, Conf\n"
			       "wandb.init()\ncfg = wandb.config\n"
			       "d, h = cfg.d_model, cfg.n_head\n"
			       "if d % h != 0:\n    h = 1\n"
			       "model = GPT(Conf(d=d, n_head=h, n_layer=cfg.get('n_layer', 4)))\n"
			       "opt = torch.optim.AdamW(model.parameters())\n");
	struct sl_program *p = follow_sweep("program: train.py\nmethod: grid\nparameters:\n"
					    "  d_model: {values: [128, 256]}\n  n_head: {values: [4, 8]}\n"
					    "  n_layer: {values: [2, 4]}\n");
	const char *m = modules_of(p);
	assert_non_null(m);
	/* d % h != 0 never holds for these values: h stays the sweep's; d // h * 16 is of two parameters */
	assert_string_equal(m, "Embedding(96, {d_model}); Parameter({128 * d_model}); {n_layer}*[LayerNorm({d_model}); "
			       "Linear({d_model}, {d_model[128: 384, 256: 768]}); Linear({d_model}, {d_model}); "
			       "EagerAttention({n_head}); Kept({6 * d_model}); Linear({d_model}, {(d_model // n_head) * 16}); "
			       "GELU(); Linear({(d_model // n_head) * 16}, {d_model})]; Linear({d_model}, 96, bias=False)");
	/* d 256, 8 heads, 2 layers: the FFN is 256 // 8 * 16 = 512 wide */
	uint64_t d = 256, f = 512;
	uint64_t block = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + (d * f + f) + (f * d + d);
	assert_int_equal(params_for(m, (struct ints){{"d_model", "n_head", "n_layer"}, {256, 8, 2}}),
			 96 * d + 128 * d + 2 * block + d * 96);
}

/* recurrent and convolutional layers, a ModuleList filled in a loop, a submodule chosen by a condition the
 * program does not decide (both counted: a bound), a tokenizer encoding's vocabulary */
static void test_modules_layers(void **state)
{
	(void)state;
	NEED_PYTHON();
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	write_file("net.py", "import os, tiktoken\nimport torch.nn as nn\n"
			     "class Tagger(nn.Module):\n"
			     "    def __init__(self, hidden, n):\n"
			     "        super().__init__()\n"
			     "        enc = tiktoken.get_encoding('gpt2')\n"
			     "        self.emb = nn.Embedding(enc.n_vocab, 64)\n"
			     "        self.conv = nn.Conv1d(64, 64, 3, padding=1)\n"
			     "        self.rnn = nn.LSTM(64, hidden, num_layers=2, bidirectional=True, batch_first=True)\n"
			     "        self.attn = nn.MultiheadAttention(2 * hidden, 4)\n"
			     "        self.layers = nn.ModuleList()\n"
			     "        for _ in range(n):\n"
			     "            self.layers.append(nn.GRU(2 * hidden, 2 * hidden))\n"
			     "        self.proj = nn.Identity()\n"
			     "        if os.environ.get('PROJ'):\n"
			     "            self.proj = nn.Linear(2 * hidden, 2 * hidden)\n"
			     "        self.out = nn.Linear(2 * hidden, 9)\n");
	write_file("tag.py", "import argparse\nfrom net import Tagger\np = argparse.ArgumentParser()\n"
			     "p.add_argument('--hidden', type=int, default=128)\n"
			     "p.add_argument('--n', type=int, default=1)\nargs = p.parse_args()\n"
			     "model = Tagger(args.hidden, args.n)\nloss.backward()\n");
	struct sl_program *p = follow_sweep("program: tag.py\nmethod: grid\nparameters:\n  hidden: {values: [128]}\n"
					    "  n: {values: [1, 2]}\n");
	const char *m = modules_of(p);
	assert_non_null(m);
	assert_string_equal(m, "<= Embedding(50257, 64); Conv1d(64, 64, 3); LSTM(64, {hidden}, num_layers=2, "
			       "bidirectional=True); MultiheadAttention({hidden[128: 256]}, 4); {n}*[GRU({hidden[128: 256]}, "
			       "{hidden[128: 256]})]; Linear({hidden[128: 256]}, {hidden[128: 256]}); Identity(); "
			       "Linear({hidden[128: 256]}, 9)");
	uint64_t h = 128, H = 256;
	uint64_t lstm = 2 * (4 * h * (64 + h) + 8 * h) + 2 * (4 * h * (2 * h + h) + 8 * h);
	uint64_t gru = 3 * H * (H + H) + 6 * H;
	assert_int_equal(params_for(m, (struct ints){{"hidden", "n"}, {128, 2}}),
			 50257 * 64 + (64 * 64 * 3 + 64) + lstm + (4 * H * H + 4 * H) + 2 * gru + (H * H + H) +
				 (H * 9 + 9));
}

/* what is not read, and says so: a vocabulary counted from the data, a forward that runs a submodule in a
 * loop, a library model inside the module (the program loads a pretrained model: no layer list at all) */
static void test_modules_refused(void **state)
{
	(void)state;
	NEED_PYTHON();
	mkdir(sl_arena_printf(A, "%s/.git", dir), 0755);
	write_file("data.py", "import torch.nn as nn\ntext = open('corpus.txt').read()\nchars = sorted(set(text))\n"
			      "class CharLM(nn.Module):\n"
			      "    def __init__(self):\n        super().__init__()\n"
			      "        self.emb = nn.Embedding(len(chars), 64)\n"
			      "model = CharLM()\nloss.backward()\n");
	struct sl_program *p = follow_sweep("program: data.py\n");
	assert_null(modules_of(p));
	assert_true(program_noted(p, "the custom nn.Module CharLM is not read: nn.Embedding num_embeddings is not known"));
	write_file("loop.py", "import torch.nn as nn\n"
			      "class Loop(nn.Module):\n"
			      "    def __init__(self, steps):\n        super().__init__()\n"
			      "        self.cell = nn.Linear(64, 64)\n        self.steps = steps\n"
			      "    def forward(self, x):\n"
			      "        for _ in range(self.steps):\n            x = self.cell(x)\n        return x\n"
			      "model = Loop(8)\nloss.backward()\n");
	p = follow_sweep("program: loop.py\n");
	assert_null(modules_of(p));
	assert_true(program_noted(p, "Loop.forward runs a submodule in a loop"));
	write_file("head.py", "import torch.nn as nn\nfrom transformers import AutoModel\n"
			      "class Clf(nn.Module):\n"
			      "    def __init__(self):\n        super().__init__()\n"
			      "        self.bert = AutoModel.from_pretrained('bert-base-uncased')\n"
			      "        self.head = nn.Linear(768, 2)\n"
			      "model = Clf()\nloss.backward()\n");
	p = follow_sweep("program: head.py\n");
	assert_null(modules_of(p));
	write_file("lib.py", "import torch.nn as nn\nimport timm\n"
			     "class Wrap(nn.Module):\n"
			     "    def __init__(self):\n        super().__init__()\n"
			     "        self.body = timm.create_model('vit_base_patch16_224')\n"
			     "        self.head = nn.Linear(768, 2)\n"
			     "model = Wrap()\nloss.backward()\n");
	p = follow_sweep("program: lib.py\n");
	assert_null(modules_of(p));
	/* timm.create_model is a model loader (pysinks.py vision_call): the model is the one it names */
	assert_string_equal(setting_of(p, "model_name_or_path"), "vit_base_patch16_224");
	/* an LSTM with a projection (weight_hr, proj_size-wide states) is not counted; proj_size=0 is none */
	write_file("proj.py", "import torch.nn as nn\n"
			      "class Proj(nn.Module):\n"
			      "    def __init__(self, p):\n        super().__init__()\n"
			      "        self.rnn = nn.LSTM(64, 128, proj_size=p)\n"
			      "model = Proj(32)\nloss.backward()\n");
	p = follow_sweep("program: proj.py\n");
	assert_null(modules_of(p));
	assert_true(program_noted(p, "nn.LSTM with proj_size"));
	write_file("noproj.py", "import torch.nn as nn\n"
				"class NoProj(nn.Module):\n"
				"    def __init__(self):\n        super().__init__()\n"
				"        self.rnn = nn.LSTM(64, 128, 1, True, True, 0.0, False, 0)\n"
				"model = NoProj()\nloss.backward()\n");
	p = follow_sweep("program: noproj.py\n");
	assert_string_equal(modules_of(p), "LSTM(64, 128, num_layers=1, bias=True, bidirectional=False)");
	/* one layer, one direction: 4h(in + h) + 8h = 4*128*(64 + 128) + 8*128 */
	assert_int_equal(params_for(modules_of(p), (struct ints){{NULL}, {0}}), 4 * 128 * (64 + 128) + 8 * 128);
	/* weight tying (head.weight = emb.weight): torch counts the shared tensor once, the list twice, so
	 * the list is an upper bound ("<="), never an exact count an error could rest on */
	write_file("tied.py", "import torch.nn as nn\n"
			      "class Tied(nn.Module):\n"
			      "    def __init__(self, v, d):\n        super().__init__()\n"
			      "        self.emb = nn.Embedding(v, d)\n"
			      "        self.head = nn.Linear(d, v, bias=False)\n"
			      "        self.emb.weight = self.head.weight\n"
			      "model = Tied(1000, 64)\nloss.backward()\n");
	p = follow_sweep("program: tied.py\n");
	assert_non_null(modules_of(p));
	assert_true(strncmp(modules_of(p), "<= ", 3) == 0);
	struct sl_modules tm;
	assert_int_equal(sl_modules_parse(A, modules_of(p), &tm, NULL), 0);
	assert_true(tm.bound);
	assert_int_equal(tm.params, 1000 * 64 + 64 * 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_argparse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dataclass_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keyword_literals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trainer_class, setup, teardown),
		cmocka_unit_test_setup_teardown(test_models_and_inference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage_sinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_programs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_python_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_modules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hydra_compose, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_configs_hydra_shell, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_launched_trainer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_launched_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_argparse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_mingpt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_layers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modules_refused, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
