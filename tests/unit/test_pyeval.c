/*
 * test_pyeval: the program evaluator (docs/program.md §2) on small fixture programs written for these
 * tests: a value followed through names, calls, modules and the config files the program loads to the
 * sink that makes it a setting, each at the place it is written; and hostile programs (recursion,
 * import cycles, 10,000-branch ifs, self-referential objects, huge literals, exponential calls) ending
 * in a note within the bounds. Each test writes a project folder (with a .git marker) and follows its
 * sweep's program with sl_program_follow. Needs python3 on PATH (skips without it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
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

#define NEED_PYTHON()                       \
	do {                                \
		if (!have_python())         \
			skip();             \
	} while (0)

static int setup(void **state)
{
	(void)state;
	A = sl_arena_new();
	snprintf(dir, sizeof dir, "%s/sweeplint-pyeval-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	char git[300];
	snprintf(git, sizeof git, "%s/.git", dir);
	mkdir(git, 0755);
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

static struct sl_sweep *sweep_of(const char *text)
{
	struct sl_source *src = sl_source_from_bytes(A, sl_arena_printf(A, "%s/sweep.yaml", dir), text, strlen(text));
	struct sl_diags d;
	sl_diags_init(&d, A);
	return sl_sweep_load(A, sl_ydoc_parse(A, src, NULL, &d));
}

static struct sl_program *follow(const char *sweep)
{
	struct sl_program_opts o = {.sweep_dir = dir};
	struct sl_program *p = sl_program_follow(A, sweep_of(sweep), &o);
	assert_non_null(p);
	return p;
}

/* The value the settings give key (the last setting of it wins, as in the eval), or NULL. */
static const struct sl_cfg_entry *setting(const struct sl_program *p, const char *key, const struct sl_trainer **in)
{
	for (size_t i = p->nsettings; i-- > 0;) {
		const struct sl_cfg_entry *e = sl_trainer_get(p->settings[i], key);
		if (e) {
			if (in)
				*in = p->settings[i];
			return e;
		}
	}
	return NULL;
}

/*
 * key's value is `value`, written in file `rel` on the line holding `anchor` (at its column), and it was
 * read through `how_part` (its how or its provenance chain holds that text).
 */
static void expect(const struct sl_program *p, const char *key, const char *value, const char *rel,
		   const char *anchor, const char *how_part)
{
	const struct sl_trainer *in = NULL;
	const struct sl_cfg_entry *e = setting(p, key, &in);
	if (!e)
		fail_msg("no setting %s", key);
	if (strcmp(e->node->text, value) != 0)
		fail_msg("%s is %s, not %s", key, e->node->text, value);
	const char *src = in->src->bytes;
	if (!strstr(in->src->path, rel))
		fail_msg("%s is read from %s, not %s", key, in->src->path, rel);
	const char *at = strstr(src, anchor);
	assert_non_null(at);
	if (e->node->span.start != (size_t)(at - src))
		fail_msg("%s at byte %zu, not %zu (%s)", key, e->node->span.start, (size_t)(at - src), anchor);
	if (how_part && !strstr(e->how, how_part) && !(e->chain && strstr(e->chain, how_part)))
		fail_msg("%s: '%s' is neither in its how '%s' nor its chain '%s'", key, how_part, e->how,
			 e->chain ? e->chain : "");
}

static const struct sl_param_role *role_of(const struct sl_program *p, const char *param, const char *key);

static bool noted(const struct sl_program *p, const char *part)
{
	for (size_t i = 0; i < p->nnotes; i++)
		if (strstr(p->notes[i], part))
			return true;
	return false;
}

/* ---- values followed through names ---------------------------------------------------------------- */

static void test_argparse_dest_through_a_variable(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("train.py", "import argparse\n"
			       "from sentence_transformers import SentenceTransformer\n"
			       "p = argparse.ArgumentParser()\n"
			       "p.add_argument('--enc', default='klue/roberta-base')\n"
			       "args = p.parse_args()\n"
			       "name = args.enc\n"
			       "model = SentenceTransformer(name)\n"
			       "model.fit(train_objectives=[])\n");
	struct sl_program *p = follow("program: train.py\nmethod: grid\nparameters:\n  lr: {values: [1, 2]}\n");
	/* the sink decides: enc is the model, at the default's own place, through the variable */
	expect(p, "model_name_or_path", "klue/roberta-base", "train.py", "'klue/roberta-base'", "name = args.enc");
	expect(p, "model_name_or_path", "klue/roberta-base", "train.py", "'klue/roberta-base'",
	       "train.py:7");
}

static void test_module_constants_and_defaults(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("settings.py", "from types import SimpleNamespace\n"
				  "C = SimpleNamespace()\n"
				  "C.BACKBONE = 'bert-base-uncased'\n"
				  "SEQ = 96\n"
				  "SETTINGS = 'conf/base.yaml'\n");
	write_file("conf/base.yaml", "model:\n  name: roberta-large\ntrain:\n  per_device_train_batch_size: 4\n"
				     "  bf16: true\n");
	write_file("train.py", "import argparse, yaml\n"
			       "from settings import C, SEQ, SETTINGS\n"
			       "from transformers import AutoModel, AutoTokenizer, TrainingArguments\n"
			       "def read_settings(path=SETTINGS):\n"
			       "    with open(path) as f:\n"
			       "        return yaml.safe_load(f)\n"
			       "def encode(tok, texts, max_len=SEQ):\n"
			       "    return tok(texts, padding='max_length', truncation=True, max_length=max_len)\n"
			       "p = argparse.ArgumentParser()\n"
			       "p.add_argument('--backbone', default=C.BACKBONE)\n"
			       "args = p.parse_args()\n"
			       "cfg = read_settings()\n"
			       "tok = AutoTokenizer.from_pretrained(args.backbone)\n"
			       "model = AutoModel.from_pretrained(args.backbone)\n"
			       "encode(tok, ['a'])\n"
			       "ta = TrainingArguments(output_dir='o', **cfg['train'])\n");
	struct sl_program *p = follow("program: train.py\n");
	/* C.BACKBONE, set in the imported module, through an argparse default into the loader */
	expect(p, "model_name_or_path", "bert-base-uncased", "settings.py", "'bert-base-uncased'", "from_pretrained");
	/* a module constant as a function default, into the tokenizer's max_length */
	expect(p, "max_length", "96", "settings.py", "96", "passed as max_len");
	/* the config file a function default names, loaded by the program: its values at their own place */
	expect(p, "per_device_train_batch_size", "4", "conf/base.yaml", "4", "TrainingArguments");
	expect(p, "bf16", "true", "conf/base.yaml", "true", NULL);
}

static void test_config_accessors_and_rebinding(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("conf/retriever.json", "{\"retriever\": {\"encoder\": {\"name\": \"bert-large-uncased\"},"
					  " \"max_len\": 384}, \"teacher\": {\"model_name\": \"gpt2-xl\"}}\n");
	write_file("model.py", "from transformers import AutoModel\n"
			       "class Retriever:\n"
			       "    def __init__(self, cfg):\n"
			       "        self.cfg = cfg\n"
			       "        self.enc = AutoModel.from_pretrained(self.cfg['encoder'].get('name'))\n"
			       "        self.n = getattr(cfg, 'layers', 4)\n");
	write_file("train.py", "import json, os\n"
			       "from model import Retriever\n"
			       "ROOT = os.path.dirname(__file__)\n"
			       "cfg = json.load(open(os.path.join(ROOT, 'conf', 'retriever.json')))\n"
			       "cfg = cfg['retriever']\n"
			       "r = Retriever(cfg)\n"
			       "tok(x, padding='max_length', max_length=cfg.get('max_len', 128))\n"
			       "loss.backward()\n");
	struct sl_program *p = follow("program: train.py\n");
	/* rebinding and self.: the retriever's encoder, not the teacher elsewhere in the same file */
	expect(p, "model_name_or_path", "bert-large-uncased", "conf/retriever.json", "\"bert-large-uncased\"",
	       "model.py:5");
	expect(p, "max_length", "384", "conf/retriever.json", "384", NULL);
	/* the file mapped as the program reads it: the subtree it takes (retriever, whole), not the teacher's */
	assert_non_null(setting(p, "retriever.max_len", NULL));
	assert_null(setting(p, "teacher.model_name", NULL));
	assert_true(noted(p, "3 values, 2 mapped: the program takes only retriever"));
	/* a config handed whole to code the text does not show may be read there whole: all of it mapped */
	write_file("train.py", "import json\n"
			       "from transformers import AutoModel\n"
			       "cfg = json.load(open('conf/retriever.json'))\n"
			       "m = AutoModel.from_pretrained(cfg['retriever']['encoder']['name'])\n"
			       "build_everything(cfg)\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	assert_non_null(setting(p, "teacher.model_name", NULL));
	/* ** of a subtree takes all of it; wandb.init(config=cfg) only logs it (a read through wandb.config
	 * counts where it reads); a key no known value names takes all of it */
	write_file("train.py", "import json, wandb\n"
			       "from transformers import AutoModel, TrainingArguments\n"
			       "cfg = json.load(open('conf/retriever.json'))\n"
			       "wandb.init(config=cfg)\n"
			       "t = TrainingArguments(**cfg['retriever'])\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	assert_non_null(setting(p, "retriever.encoder.name", NULL));
	assert_null(setting(p, "teacher.model_name", NULL));
	write_file("train.py", "import json, wandb\n"
			       "cfg = json.load(open('conf/retriever.json'))\n"
			       "wandb.init(config=cfg)\n"
			       "name = wandb.config.teacher['model_name']\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	assert_non_null(setting(p, "teacher.model_name", NULL));
	assert_null(setting(p, "retriever.max_len", NULL));
	write_file("train.py", "import json, os\n"
			       "cfg = json.load(open('conf/retriever.json'))\n"
			       "part = cfg[os.environ['PART']]\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	assert_non_null(setting(p, "teacher.model_name", NULL));
	assert_non_null(setting(p, "retriever.max_len", NULL));
}

/*
 * Settings written where a library calls back: a lambda handed to ds.map runs (once, like a function no
 * evaluated call reaches); a labels-only tokenizer call (text_target=) is the seq2seq target's length, not
 * the source's; sentence-transformers' fit(use_amp=True) is TrainingArguments(fp16=use_amp).
 */
static void test_library_callbacks_and_targets(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("train.py", "from datasets import load_dataset\n"
			       "from transformers import AutoTokenizer, AutoModelForSeq2SeqLM\n"
			       "from sentence_transformers import SentenceTransformer\n"
			       "SRC = 384\n"
			       "TGT = 96\n"
			       "tok = AutoTokenizer.from_pretrained('t5-small')\n"
			       "model = AutoModelForSeq2SeqLM.from_pretrained('t5-small')\n"
			       "ds = load_dataset('x')\n"
			       "ds = ds.map(lambda b: tok(b['doc'], truncation=True, max_length=SRC, padding='max_length'))\n"
			       "ds = ds.map(lambda b: tok(text_target=b['sum'], max_length=TGT, padding='max_length'))\n"
			       "st = SentenceTransformer('all-MiniLM-L6-v2')\n"
			       "st.fit(train_objectives=[(loader, loss)], epochs=1, use_amp=True)\n");
	struct sl_program *p = follow("program: train.py\n");
	expect(p, "max_length", "384", "train.py", "384", "tokenizer(max_length=");
	expect(p, "max_target_length", "96", "train.py", "96", "tokenizer(max_length=");
	expect(p, "fp16", "True", "train.py", "True)", "fit(use_amp=");
}

static void test_unknown_stays_unknown(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("train.py", "import os, torch\n"
			       "name = 'bert-base-uncased' if torch.cuda.is_available() else 'bert-large-uncased'\n"
			       "m = AutoModel.from_pretrained(name)\n"
			       "bs = int(os.environ['BS'])\n"
			       "ta = TrainingArguments(per_device_train_batch_size=bs, bf16=True)\n");
	struct sl_program *p = follow("program: train.py\n");
	/* two possibilities the text does not decide: no model; an environment variable: no batch */
	assert_null(setting(p, "model_name_or_path", NULL));
	assert_true(noted(p, "several model literals (bert-base-uncased, bert-large-uncased)"));
	assert_null(setting(p, "per_device_train_batch_size", NULL));
	expect(p, "bf16", "True", "train.py", "True)", NULL);
}

static void test_kwargs_and_hydra(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* **kwargs of a config subtree into a local class, and TrainingArguments(**cfg.train) */
	write_file("conf/enc.yaml", "encoders:\n  base:\n    name: roberta-large\n    max_len: 384\n"
				    "train:\n  per_device_train_batch_size: 8\n  gradient_checkpointing: true\n");
	write_file("train.py", "from omegaconf import OmegaConf\n"
			       "class Encoder:\n"
			       "    def __init__(self, name, max_len=128):\n"
			       "        self.m = AutoModel.from_pretrained(name)\n"
			       "        self.len = max_len\n"
			       "    def encode(self, x):\n"
			       "        return tok(x, padding='max_length', max_length=self.len)\n"
			       "cfg = OmegaConf.load('conf/enc.yaml')\n"
			       "enc = Encoder(**cfg.encoders.base)\n"
			       "enc.encode(['a'])\n"
			       "ta = TrainingArguments(output_dir='o', **cfg.train)\n");
	struct sl_program *p = follow("program: train.py\n");
	expect(p, "model_name_or_path", "roberta-large", "conf/enc.yaml", "roberta-large", "passed as name");
	expect(p, "max_length", "384", "conf/enc.yaml", "384", NULL);
	expect(p, "per_device_train_batch_size", "8", "conf/enc.yaml", "8\n  gradient", "TrainingArguments");
	expect(p, "gradient_checkpointing", "true", "conf/enc.yaml", "true", NULL);
	/* a config that builds on others (include:, _base_:): theirs first, its own over them */
	write_file("conf/base.yaml", "model:\n  name: bert-base-uncased\n  max_len: 128\n");
	write_file("conf/mid.yaml", "_base_: base.yaml\nmodel:\n  max_len: 256\n");
	write_file("conf/run.yaml", "include: [mid.yaml]\ntrain:\n  batch: 4\n");
	write_file("inc.py", "import yaml\ncfg = yaml.safe_load(open('conf/run.yaml'))\n"
			     "m = AutoModel.from_pretrained(cfg['model']['name'])\n"
			     "tok(x, padding='max_length', max_length=cfg['model']['max_len'])\nloss.backward()\n");
	p = follow("program: inc.py\n");
	expect(p, "model_name_or_path", "bert-base-uncased", "conf/base.yaml", "bert-base-uncased", NULL);
	expect(p, "max_length", "256", "conf/mid.yaml", "256", NULL);
	/* a Hydra program: main() gets the composed config; the sweep's override of one key is its value */
	write_file("hconf/config.yaml", "defaults:\n  - model: small\n  - _self_\ntrain:\n  batch: 16\n");
	write_file("hconf/model/small.yaml", "name: bert-base-uncased\nmax_len: 256\n");
	write_file("hy.py", "import hydra\n"
			    "from torch.utils.data import DataLoader\n"
			    "@hydra.main(config_path='hconf', config_name='config')\n"
			    "def main(cfg):\n"
			    "    m = AutoModel.from_pretrained(cfg.model.name)\n"
			    "    DataLoader(train_set, batch_size=cfg.train.batch, shuffle=True)\n"
			    "    loss.backward()\n"
			    "if __name__ == '__main__':\n    main()\n");
	p = follow("program: hy.py\nmethod: grid\ncommand: [python, hy.py, '${args_no_hyphens}']\n"
		   "parameters:\n  train.batch: {values: [8, 32]}\n");
	expect(p, "model_name_or_path", "bert-base-uncased", "hconf/model/small.yaml", "bert-base-uncased", "Hydra");
	const struct sl_param_role *r = role_of(p, "train.batch", "per_device_train_batch_size");
	assert_non_null(r);
	assert_non_null(strstr(r->chain, "Hydra override"));
}

/* ---- sweep parameters that reach a sink: roles and value maps ------------------------------------- */

/* The role the program gives sweep parameter param for key (NULL: none). */
static const struct sl_param_role *role_of(const struct sl_program *p, const char *param, const char *key)
{
	for (size_t i = 0; i < p->nroles; i++)
		if (strcmp(p->roles[i].param, param) == 0 && strcmp(p->roles[i].key, key) == 0)
			return &p->roles[i];
	return NULL;
}

/* The case of r for the sweep value written `when`: its value's text, "unset" or "unknown". */
static const char *case_of(const struct sl_param_role *r, const char *when)
{
	for (size_t i = 0; i < r->ncases; i++)
		if (strcmp(r->cases[i].when->text, when) == 0)
			return r->cases[i].unset ? "unset" : r->cases[i].to ? r->cases[i].to->text : "unknown";
	return NULL;
}

static void test_roles_and_value_maps(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("train.py", "import argparse, wandb\n"
			       "from peft import LoraConfig, get_peft_model\n"
			       "SIZES = {'s': 'org/small', 'l': 'org/large'}\n"
			       "p = argparse.ArgumentParser()\n"
			       "p.add_argument('--enc', default='x')\n"
			       "p.add_argument('--kind', default='A')\n"
			       "p.add_argument('--size', default='s')\n"
			       "p.add_argument('--use_lora', action='store_true')\n"
			       "args = p.parse_args()\n"
			       "wandb.init(config={'bs': 16})\n"
			       "cfg = wandb.config\n"
			       "tok = AutoModel.from_pretrained(args.enc)\n"
			       "name = 'org/a' if args.kind == 'A' else 'org/b'\n"
			       "cls = AutoModelForSequenceClassification.from_pretrained(name)\n"
			       "ta = TrainingArguments(per_device_train_batch_size=cfg.get('bs', 8),\n"
			       "    gradient_accumulation_steps=cfg.accum, max_steps=SIZES[args.size])\n"
			       "if args.use_lora:\n"
			       "    cls = get_peft_model(cls, LoraConfig(r=16))\n"
			       "loss.backward()\n");
	struct sl_program *p = follow("program: train.py\nmethod: grid\nparameters:\n"
				      "  enc: {values: [bert-base-uncased, bert-large-uncased]}\n"
				      "  kind: {values: [A, B]}\n  size: {values: [s, l]}\n  use_lora: {values: [true, false]}\n"
				      "  accum: {values: [1, 2]}\n");
	/* two model sinks (enc's loader and the branch's): several models, neither is the model */
	assert_null(role_of(p, "enc", "model_name_or_path"));
	assert_null(role_of(p, "kind", "model_name_or_path"));
	assert_true(noted(p, "several models"));
	/* wandb.config.get with the sweep not setting bs: the default given to wandb.init, at its place */
	expect(p, "per_device_train_batch_size", "16", "train.py", "16}", "wandb.config.bs");
	/* wandb.config.accum: the sweep's accum is gradient accumulation */
	const struct sl_param_role *r = role_of(p, "accum", "gradient_accumulation_steps");
	assert_non_null(r);
	assert_int_equal(r->ncases, 0);
	/* a dict lookup on a sweep value: a value map */
	r = role_of(p, "size", "max_steps");
	assert_non_null(r);
	assert_string_equal(case_of(r, "s"), "org/small");
	assert_string_equal(case_of(r, "l"), "org/large");
	/* the guard: LoRA only where use_lora is true */
	r = role_of(p, "use_lora", "lora.r");
	assert_non_null(r);
	assert_string_equal(case_of(r, "True"), "16");
	assert_string_equal(case_of(r, "False"), "unset");
	assert_non_null(role_of(p, "use_lora", "peft_method"));

	/* one model sink: a branch on kind is the model's value map, enc passed alone is the model */
	write_file("one.py", "import argparse\n"
			     "p = argparse.ArgumentParser()\n"
			     "p.add_argument('--kind', default='A')\n"
			     "args = p.parse_args()\n"
			     "if args.kind == 'A':\n    name = 'org/a'\nelif args.kind == 'B':\n    name = 'org/b'\n"
			     "else:\n    name = open('x').read()\n"
			     "m = AutoModel.from_pretrained(name)\n"
			     "loss.backward()\n");
	p = follow("program: one.py\nmethod: grid\nparameters:\n  kind: {values: [A, B, C]}\n");
	r = role_of(p, "kind", "model_name_or_path");
	assert_non_null(r);
	assert_string_equal(case_of(r, "A"), "org/a");
	assert_string_equal(case_of(r, "B"), "org/b");
	assert_string_equal(case_of(r, "C"), "unknown");
	/* no program: and no command: the script that names the sweep and runs wandb.agent is the program */
	write_file("run_sweep.py", "import wandb, yaml\n"
				   "def train():\n"
				   "    run = wandb.init()\n"
				   "    m = AutoModel.from_pretrained(run.config.model)\n"
				   "    loss.backward()\n"
				   "sweep_id = wandb.sweep(yaml.safe_load(open('sweep.yaml')), project='p')\n"
				   "wandb.agent(sweep_id, function=train, count=4)\n");
	const char *agent_text = "method: grid\nparameters:\n  model: {values: [bert-base-uncased, bert-large-uncased]}\n";
	write_file("sweep.yaml", agent_text);
	p = follow(agent_text);
	assert_non_null(p->ref.path);
	assert_non_null(strstr(p->ref.path, "run_sweep.py"));
	assert_non_null(strstr(p->ref.how, "wandb.agent"));
	assert_non_null(role_of(p, "model", "model_name_or_path"));
	assert_int_equal(p->reaches, 1);
	/* the agent calls the function in-process: no command line carries the values */
	assert_true(p->ref.by_agent);
	assert_false(p->args_passed);
	/* the sweep's own file handed to wandb.sweep is not a config of the run */
	assert_true(noted(p, "the sweep's own file"));
	unlink(sl_arena_printf(A, "%s/sweep.yaml", dir));
	/* a run's sweeps share the search (split's parts): the second finds it in the memo, the same script */
	struct sl_program_memo *memo = sl_program_memo_new(A);
	struct sl_program_opts mo = {.sweep_dir = dir, .memo = memo};
	struct sl_program_ref r1, r2;
	const char *agent_sweep = "method: grid\nparameters:\n  model: {values: [bert-base-uncased]}\n";
	assert_true(sl_program_find(A, sweep_of(agent_sweep), &mo, &r1));
	unlink(sl_arena_printf(A, "%s/run_sweep.py", dir));
	assert_true(sl_program_find(A, sweep_of(agent_sweep), &mo, &r2));
	assert_string_equal(r1.path, r2.path);
	/* without the memo the script (now gone) is looked for again */
	assert_false(sl_program_find(A, sweep_of(agent_sweep), &(struct sl_program_opts){.sweep_dir = dir}, &r2));
	/* the folder is listed once per run, whatever the sweep (n sweeps in one folder listed it n times: n^2):
	 * a script written after the listing is not seen through the memo, and is without it */
	write_file("c_run.py", "import wandb\nwandb.agent(wandb.sweep(open('other.yaml')), function=print)\n");
	struct sl_source *other = sl_source_from_bytes(A, sl_arena_printf(A, "%s/other.yaml", dir), agent_sweep,
						       strlen(agent_sweep));
	struct sl_diags dg;
	sl_diags_init(&dg, A);
	struct sl_sweep *osw = sl_sweep_load(A, sl_ydoc_parse(A, other, NULL, &dg));
	assert_false(sl_program_find(A, osw, &mo, &r2));
	assert_true(sl_program_find(A, osw, &(struct sl_program_opts){.sweep_dir = dir}, &r2));
	assert_non_null(strstr(r2.path, "c_run.py"));
	unlink(sl_arena_printf(A, "%s/c_run.py", dir));
	/* a file that names the sweep only in a comment (a Python sweep's YAML twin described) does not run it;
	 * one that names it in a string, as a path's last part, does */
	write_file("a_twin.py", "# the YAML twin of this sweep is sweep.yaml\nimport wandb\n"
				"wandb.agent(wandb.sweep({'method': 'grid'}), function=print)\n");
	assert_false(sl_program_find(A, sweep_of(agent_sweep), &(struct sl_program_opts){.sweep_dir = dir}, &r2));
	write_file("b_run.py", "import wandb, yaml\nsid = wandb.sweep(yaml.safe_load(open(f\"{ROOT}/sweep.yaml\")))\n"
				"wandb.agent(sid, function=print)\n");
	assert_true(sl_program_find(A, sweep_of(agent_sweep), &(struct sl_program_opts){.sweep_dir = dir}, &r2));
	assert_non_null(strstr(r2.path, "b_run.py"));
	unlink(sl_arena_printf(A, "%s/a_twin.py", dir));
	unlink(sl_arena_printf(A, "%s/b_run.py", dir));
	/* a class chosen by the model name, its classmethod quantizing with another parameter's value: the
	 * quantization holds only for the models that take that branch (two parameters) */
	write_file("two.py", "import argparse\n"
			     "from transformers import T5ForConditionalGeneration, BitsAndBytesConfig\n"
			     "from peft import prepare_model_for_kbit_training\n"
			     "class Big:\n"
			     "    @classmethod\n"
			     "    def load(cls, name, q):\n"
			     "        bnb = BitsAndBytesConfig(load_in_8bit=q == '8bit', load_in_4bit=q == '4bit')\n"
			     "        m = T5ForConditionalGeneration.from_pretrained(name, quantization_config=bnb)\n"
			     "        return cls(prepare_model_for_kbit_training(m))\n"
			     "    def __init__(self, m):\n        self.m = m\n"
			     "class Small(Big):\n"
			     "    @classmethod\n"
			     "    def load(cls, name, q):\n"
			     "        return cls(T5ForConditionalGeneration.from_pretrained(name, torch_dtype='bfloat16'))\n"
			     "p = argparse.ArgumentParser()\np.add_argument('--model', default='t5-small')\n"
			     "p.add_argument('--q', default='8bit')\nargs = p.parse_args()\n"
			     "kind = Big if '11b' in args.model else Small\n"
			     "if type(kind).__name__ == 'Big':\n    raise SystemExit(1)\n"
			     "t = kind.load(args.model, args.q)\nloss.backward()\n");
	p = follow("program: two.py\nmethod: grid\nparameters:\n  model: {values: [t5-11b, t5-large]}\n"
		   "  q: {values: [4bit, 8bit]}\n");
	r = role_of(p, "q", "load_in_4bit");
	assert_non_null(r);
	assert_string_equal(r->only_param, "model");
	assert_int_equal(r->nonly, 1);
	assert_string_equal(r->only_values[0]->text, "t5-11b");
	assert_string_equal(case_of(r, "4bit"), "True");
	r = role_of(p, "model", "gradient_checkpointing");
	assert_non_null(r);
	assert_string_equal(case_of(r, "t5-11b"), "True");
	assert_string_equal(case_of(r, "t5-large"), "unset");
	r = role_of(p, "model", "torch_dtype");
	assert_string_equal(case_of(r, "t5-large"), "bfloat16");
	/* the command passes no ${args}: argparse keeps its defaults, the branch is decided (A) */
	p = follow("program: one.py\nmethod: grid\ncommand: [python, one.py]\nparameters:\n  kind: {values: [A, B]}\n");
	assert_null(role_of(p, "kind", "model_name_or_path"));
	expect(p, "model_name_or_path", "org/a", "one.py", "'org/a'", NULL);
}

/* ---- whether the sweep reaches the run ------------------------------------------------------------- */

static void test_sweep_reach(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("plain.py", "import argparse\np = argparse.ArgumentParser()\np.add_argument('--bs', default=8)\n"
			       "args = p.parse_args()\nloss.backward()\n");
	write_file("reads.py", "import wandb\nwandb.init()\nbs = wandb.config.bs\nloss.backward()\n");
	write_file("flag.py", "import argparse, wandb\np = argparse.ArgumentParser()\n"
			      "p.add_argument('--sweep', action='store_true')\nargs = p.parse_args()\n"
			      "if args.sweep:\n    cfg = dict(wandb.config)\nloss.backward()\n");
	write_file("maybe.py", "import wandb\ndef train():\n    return wandb.config.lr\nloss.backward()\n");
	const char *params = "parameters:\n  bs: {values: [1, 2]}\n";
	/* no ${args} and no wandb.config read: the values never reach the runs */
	struct sl_program *p = follow(sl_arena_printf(A, "method: grid\ncommand: [python, plain.py]\n%s", params));
	assert_int_equal(p->reaches, 0);
	assert_non_null(strstr(p->reach_why, "no ${args}"));
	/* the default command passes ${args} */
	p = follow(sl_arena_printf(A, "method: grid\nprogram: plain.py\n%s", params));
	assert_int_equal(p->reaches, 1);
	/* ${args_no_hyphens} passes them too */
	p = follow(sl_arena_printf(A, "method: grid\ncommand: [python, plain.py, '${args_no_hyphens}']\n%s", params));
	assert_int_equal(p->reaches, 1);
	/* wandb.config read where the run goes: they reach */
	p = follow(sl_arena_printf(A, "method: grid\ncommand: [python, reads.py]\n%s", params));
	assert_int_equal(p->reaches, 1);
	/* read only behind a flag the command does not set: they never reach */
	p = follow(sl_arena_printf(A, "method: grid\ncommand: [python, flag.py]\n%s", params));
	assert_int_equal(p->reaches, 0);
	/* the command sets the flag: the read runs */
	p = follow(sl_arena_printf(A, "method: grid\ncommand: [python, flag.py, --sweep]\n%s", params));
	assert_int_equal(p->reaches, 1);
	/* read in a function no call reaches (a framework may call it): not known, never claimed */
	p = follow(sl_arena_printf(A, "method: grid\ncommand: [python, maybe.py]\n%s", params));
	assert_int_equal(p->reaches, -1);
	/* a local module the program imports does not parse: not known either */
	write_file("broken.py", "def f(:\n");
	write_file("imp.py", "import broken\nloss.backward()\n");
	p = follow(sl_arena_printf(A, "method: grid\ncommand: [python, imp.py]\n%s", params));
	assert_int_equal(p->reaches, -1);
	/* ${args} passed to a program that parses no command line (its libraries read none) and reads no
	 * wandb.config: they never reach, and the cause says so */
	write_file("fixed.py", "import torch\nfrom transformers import AutoModel\nm = AutoModel.from_pretrained('gpt2')\n"
			       "loss.backward()\n");
	p = follow(sl_arena_printf(A, "method: grid\nprogram: fixed.py\n%s", params));
	assert_int_equal(p->reaches, 0);
	assert_true(p->args_passed);
	assert_non_null(strstr(p->reach_why, "fixed.py reads no command-line arguments"));
	/* a library not in the project: its own command-line reader would be named in the program (absl, fire,
	 * typer, sacred ...), and this one names none */
	write_file("lib.py", "import torch\nfrom myproject.cli import setup\nsetup()\nloss.backward()\n");
	p = follow(sl_arena_printf(A, "method: grid\nprogram: lib.py\n%s", params));
	assert_int_equal(p->reaches, 0);
	/* the project's own package, installed from another folder of it (src/myproject): it may parse it */
	write_file("src/myproject/cli.py", "def setup():\n    pass\n");
	p = follow(sl_arena_printf(A, "method: grid\nprogram: lib.py\n%s", params));
	assert_int_equal(p->reaches, 1);
	/* a library that reads it by itself, named in the program */
	write_file("absl_prog.py", "from absl import app, flags\nFLAGS = flags.FLAGS\nloss.backward()\n");
	p = follow(sl_arena_printf(A, "method: grid\nprogram: absl_prog.py\n%s", params));
	assert_int_equal(p->reaches, 1);
	/* a relative import the project does not hold: not known, so it may */
	write_file("rel.py", "from .options import opts\nloss.backward()\n");
	p = follow(sl_arena_printf(A, "method: grid\nprogram: rel.py\n%s", params));
	assert_int_equal(p->reaches, 1);
	/* sys.argv read directly */
	write_file("argv.py", "import sys\nbs = int(sys.argv[1])\nloss.backward()\n");
	p = follow(sl_arena_printf(A, "method: grid\nprogram: argv.py\n%s", params));
	assert_int_equal(p->reaches, 1);
	assert_int_equal(p->nrefused_params, 0);
	/* ${args} given to a program whose only command-line reader is argparse's parse_args(), every flag
	 * shown: a parameter no flag accepts stops every run (unrecognized arguments); its values stay judged
	 * (the runs the sweep means) unless the program replaces wandb.config with its own mapping: then they
	 * never reach, and when that is every parameter the sweep does not reach the run */
	const char *two = "parameters:\n  bs: {values: [1, 2]}\n  lr: {values: [0.1]}\n";
	p = follow(sl_arena_printf(A, "method: grid\nprogram: plain.py\n%s", two));
	assert_int_equal(p->nrefused_params, 1);
	assert_string_equal(p->refused_params[0], "lr");
	assert_int_equal(p->reaches, 1);
	assert_int_equal(p->nunread_params, 0);
	write_file("none.py", "import argparse, json, wandb\np = argparse.ArgumentParser()\n"
			      "p.add_argument('--epochs', type=int, default=3)\nargs = p.parse_args()\nwandb.init()\n"
			      "wandb.config = json.load(open('c.json'))\nbs = wandb.config['bs']\nloss.backward()\n");
	p = follow(sl_arena_printf(A, "method: grid\nprogram: none.py\n%s", two));
	assert_int_equal(p->nrefused_params, 2);
	assert_int_equal(p->reaches, 0);
	assert_non_null(strstr(p->reach_why, "replaces wandb.config with its own values ("));
	assert_non_null(strstr(p->reach_why, "none.py:6)"));
	/* a unique prefix of a flag is accepted (argparse's allow_abbrev), and '-' for '_' is not claimed;
	 * a nested parameter is passed as its top-level key */
	write_file("pre.py", "import argparse\np = argparse.ArgumentParser()\np.add_argument('--bs-per-device')\n"
			     "p.add_argument('--lr_max')\np.add_argument('--opt', type=str)\nargs = p.parse_args()\n"
			     "loss.backward()\n");
	p = follow("method: grid\nprogram: pre.py\nparameters:\n  bs_per: {values: [1]}\n  lr: {values: [1]}\n"
		   "  opt:\n    parameters:\n      beta: {values: [0.9]}\n");
	assert_int_equal(p->nrefused_params, 0);
	/* refused only when every flag is known: parse_known_args, a computed flag, a parent parser, sys.argv,
	 * another command-line library, a parser the evaluation does not show */
	const char *opens[] = {
		"import argparse\np = argparse.ArgumentParser()\nargs, rest = p.parse_known_args()\nloss.backward()\n",
		"import argparse\np = argparse.ArgumentParser()\nfor k in KEYS:\n    p.add_argument('--' + k)\n"
		"args = p.parse_args()\nloss.backward()\n",
		"import argparse\nbase = argparse.ArgumentParser(add_help=False)\n"
		"p = argparse.ArgumentParser(parents=[base])\nargs = p.parse_args()\nloss.backward()\n",
		"import argparse, sys\np = argparse.ArgumentParser()\nargs = p.parse_args()\nx = sys.argv\nloss.backward()\n",
		"import argparse\ndef add(p):\n    p.add_argument('--lr')\np = argparse.ArgumentParser()\n"
		"args = p.parse_args()\nadd(get_parser())\nloss.backward()\n",
		"import argparse\np = argparse.ArgumentParser()\nargs = p.parse_args(['--x'])\nloss.backward()\n",
	};
	for (size_t i = 0; i < sizeof opens / sizeof *opens; i++) {
		write_file("open.py", opens[i]);
		p = follow(sl_arena_printf(A, "method: grid\nprogram: open.py\n%s", two));
		assert_int_equal(p->nrefused_params, 0);
	}
	/* ${args} through a shell script, or no ${args} at all: nothing refused */
	p = follow(sl_arena_printf(A, "method: grid\ncommand: [python, plain.py]\n%s", two));
	assert_int_equal(p->nrefused_params, 0);
}

/* ---- hostile programs ------------------------------------------------------------------------------ */

static double cpu_of(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 + (double)ru->ru_stime.tv_sec +
	       (double)ru->ru_stime.tv_usec / 1e6;
}

/*
 * Follow the sweep of prog (written as train.py) and measure the evaluator: the CPU it took (a loaded
 * machine stretches wall time, not CPU) and the largest memory of any child so far, when it is the child's own.
 */
static struct sl_program *follow_timed(const char *prog, double *secs, long *max_kb)
{
	write_file("train.py", prog);
	struct rusage r0, r1;
	getrusage(RUSAGE_CHILDREN, &r0);
	struct sl_program *p = follow("program: train.py\nmethod: grid\nparameters:\n  k: {values: [1, 2, 3]}\n");
	getrusage(RUSAGE_CHILDREN, &r1);
	*secs = cpu_of(&r1) - cpu_of(&r0);
	/* a child starts with this process's high-water RSS (Linux's exec keeps the old mm's hiwater_rss in
	 * signal->maxrss, also through posix_spawn's shared mm), so a children's peak no higher than this
	 * process's own may be that inheritance, not the evaluator's: under ASan the test process alone passes
	 * 64 MiB by the time these cases run. Only a higher peak is the child's own. */
	struct rusage self;
	getrusage(RUSAGE_SELF, &self);
	*max_kb = r1.ru_maxrss > self.ru_maxrss ? r1.ru_maxrss : 0;
	return p;
}

static char *repeat_lines(const char *head, const char *fmt, int n, const char *tail)
{
	struct sl_buf b;
	sl_buf_init(&b, A);
	sl_buf_adds(&b, head);
	for (int i = 1; i <= n; i++)
		sl_buf_addf(&b, fmt, i, i);
	sl_buf_adds(&b, tail);
	sl_buf_addc(&b, '\0');
	return b.buf;
}

static void test_hostile_programs(void **state)
{
	(void)state;
	NEED_PYTHON();
	double secs;
	long kb;
	/* recursion (direct and mutual) and an import cycle: each a note, the rest still read */
	write_file("cyc1.py", "import cyc2\nNAME = 'bert-base-uncased'\nY = cyc2.Z\n");
	write_file("cyc2.py", "import cyc1\nZ = cyc1.NAME\n");
	struct sl_program *p = follow_timed("import cyc1\n"
					    "def f(n):\n    return f(n - 1) + 1\n"
					    "def a(x):\n    return b(x)\n"
					    "def b(x):\n    return a(x)\n"
					    "f(10)\na(1)\n"
					    "m = AutoModel.from_pretrained(cyc1.NAME)\n",
					    &secs, &kb);
	assert_true(noted(p, "f() calls itself: its result is not evaluated"));
	assert_true(noted(p, "a() calls itself"));
	expect(p, "model_name_or_path", "bert-base-uncased", "cyc1.py", "'bert-base-uncased'", NULL);
	assert_true(secs < 2.0);
	/* 10,000 branches: an elif chain python's parser refuses (nested too deeply), and 10,000 ifs whose
	 * syntax tree is past the evaluator's memory bound: a note each, within the bounds */
	const char *head = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--k', default=1)\n"
			   "k = p.parse_args().k\nm = 'bert-base-uncased'\nif k == 0: m = 0\n";
	p = follow_timed(repeat_lines(head, "elif k == %d: m = %d\n", 9999, "x = AutoModel.from_pretrained(m)\n"),
			 &secs, &kb);
	assert_true(noted(p, "ran out of memory"));
	assert_true(secs < 2.0 && kb < 64 * 1024);
	p = follow_timed(repeat_lines(head, "if k==%d:m=%d\n", 10000, "x = AutoModel.from_pretrained(m)\n"), &secs, &kb);
	assert_true(noted(p, "ran out of memory"));
	assert_true(secs < 2.0 && kb < 64 * 1024);
	/* 1,000 ifs on a sweep parameter are evaluated: the model is a function of k (a value map) */
	p = follow_timed(repeat_lines(head, "if k == %d: m = 'm%d'\n", 1000, "x = AutoModel.from_pretrained(m)\n"),
			 &secs, &kb);
	assert_false(noted(p, "stopped"));
	assert_int_equal(p->nroles, 1);
	assert_string_equal(p->roles[0].param, "k");
	assert_int_equal(p->roles[0].ncases, 3);
	assert_string_equal(p->roles[0].cases[1].to->text, "m2");
	assert_true(secs < 2.0 && kb < 64 * 1024);
	/* exponential calls (each level calls the next twice): the depth bound, then the step bound */
	struct sl_buf b;
	sl_buf_init(&b, A);
	for (int i = 0; i < 40; i++)
		sl_buf_addf(&b, "def f%d():\n    f%d()\n    f%d()\n    return 1\n", i, i + 1, i + 1);
	sl_buf_adds(&b, "def f40():\n    return 1\nf0()\nm = AutoModel.from_pretrained('gpt2')\n");
	sl_buf_addc(&b, '\0');
	p = follow_timed(b.buf, &secs, &kb);
	assert_true(noted(p, "calls nested past 12 levels"));
	expect(p, "model_name_or_path", "gpt2", "train.py", "'gpt2'", NULL);
	assert_true(secs < 2.0 && kb < 64 * 1024);
	/* nested loops over known lists: 64^4 iterations stop at the step bound, with a note */
	p = follow_timed("L = list(range(64))\nL = [" "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,"
			 "27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,"
			 "57,58,59,60,61,62,63]\n"
			 "for i in L:\n  for j in L:\n    for k in L:\n      for l in L:\n        x = i + j\n"
			 "m = AutoModel.from_pretrained('gpt2')\n",
			 &secs, &kb);
	assert_true(noted(p, "the evaluation stopped after"));
	assert_true(secs < 2.0 && kb < 64 * 1024);
	/* a config that includes itself, and two that include each other: a note, each read once */
	write_file("conf/self.yaml", "include: self.yaml\nmodel: gpt2\n");
	write_file("conf/a.yaml", "include: b.yaml\nx: 1\n");
	write_file("conf/b.yaml", "include: a.yaml\ny: 2\n");
	p = follow_timed("import yaml\nc = yaml.safe_load(open('conf/self.yaml'))\nd = yaml.safe_load(open('conf/a.yaml'))\n"
			 "m = AutoModel.from_pretrained(c['model'])\n",
			 &secs, &kb);
	assert_true(noted(p, "a cycle): not read again"));
	expect(p, "model_name_or_path", "gpt2", "conf/self.yaml", "gpt2", NULL);
	assert_true(secs < 2.0 && kb < 64 * 1024);
	/* a self-referential mapping merged into itself, and a huge literal: notes, no crash */
	p = follow_timed("from omegaconf import OmegaConf\ncfg = {}\ncfg['self'] = cfg\n"
			 "c = OmegaConf.merge(cfg, cfg, cfg)\nx = AutoModel.from_pretrained(c['self']['self']['x'])\n",
			 &secs, &kb);
	assert_null(setting(p, "model_name_or_path", NULL));
	assert_true(secs < 2.0 && kb < 64 * 1024);
	p = follow_timed(repeat_lines("X = [", "'a%d%d',", 20000, "]\nY = X + X\nm = AutoModel.from_pretrained(Y[3])\n"),
			 &secs, &kb);
	assert_null(setting(p, "model_name_or_path", NULL));
	assert_true(secs < 2.0 && kb < 64 * 1024);
}

/* ---- the code that defines a sweep is its program (pysweep.h): entry points, in-process runs ---- */

static void test_entry_and_in_process(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* model_init is no call's callee here: as an entry it is reached, its model proven */
	const char *code = write_file("tune.py", "import argparse\n"
						 "from transformers import AutoModelForSequenceClassification, Trainer\n"
						 "p = argparse.ArgumentParser()\n"
						 "p.add_argument('--per_device_train_batch_size', type=int, default=4)\n"
						 "args = p.parse_args()\n"
						 "def model_init(trial):\n"
						 "    return AutoModelForSequenceClassification.from_pretrained('roberta-large')\n"
						 "trainer = Trainer(model_init=model_init)\n");
	const char *entry[] = {"model_init", NULL};
	struct sl_program_opts o = {.sweep_dir = dir, .code = code, .code_how = "the code", .entry = entry,
				    .in_process = true, .hp_search = true};
	struct sl_sweep *sw = sweep_of("method: grid\nparameters:\n  per_device_train_batch_size: {values: [64]}\n");
	struct sl_program *p = sl_program_follow(A, sw, &o);
	assert_non_null(p);
	assert_string_equal(p->ref.path, code);
	expect(p, "model_name_or_path", "roberta-large", "tune.py", "'roberta-large'", "from_pretrained");
	/* in process: the sweep's value does not arrive as --per_device_train_batch_size (no command line):
	 * argparse keeps its default */
	expect(p, "per_device_train_batch_size", "4", "tune.py", "4)", "argparse default");
	assert_int_equal(p->reaches, 1); /* hyperparameter_search sets trainer.args */

	/* wandb.agent's function reads no wandb.config and trains with its own settings: the sweep's values
	 * never reach the runs */
	code = write_file("agent.py", "import wandb\n"
				      "from transformers import TrainingArguments\n"
				      "def train():\n"
				      "    wandb.init()\n"
				      "    args = TrainingArguments('out', per_device_train_batch_size=8)\n"
				      "    wandb.log({'loss': 1.0})\n");
	const char *entry2[] = {"train", NULL};
	struct sl_program_opts o2 = {.sweep_dir = dir, .code = code, .entry = entry2, .in_process = true};
	p = sl_program_follow(A, sw, &o2);
	assert_int_equal(p->reaches, 0);
	assert_string_equal(p->reach_why, "the function wandb.agent runs reads no wandb.config");
	/* one that shows no training or generation (a skeleton: wandb.init() only) has no settings of its own
	 * to judge instead: not decided, a note says why */
	code = write_file("agent0.py", "import wandb\n"
				       "def train():\n"
				       "    wandb.init()\n"
				       "    wandb.log({'loss': 1.0})\n");
	o2.code = code;
	p = sl_program_follow(A, sw, &o2);
	assert_int_equal(p->reaches, -1);
	assert_true(noted(p, "shows no training or generation of its own: the sweep's values are judged"));
	/* wandb.config taken whole and handed on to code the text does not show (W&B's quickstart:
	 * config = wandb.config): not refused, no key is known unread */
	code = write_file("agent1.py", "import wandb\n"
				       "from transformers import Trainer\n"
				       "def train(config=None):\n"
				       "    with wandb.init(config=config):\n"
				       "        config = wandb.config\n"
				       "        trainer = Trainer()\n"
				       "        trainer.train()\n");
	o2.code = code;
	p = sl_program_follow(A, sw, &o2);
	assert_int_equal(p->reaches, -1);
	assert_int_equal(p->nunread_params, 0);
	/* the same program reading wandb.config: they do */
	code = write_file("agent2.py", "import wandb\n"
				       "def train():\n"
				       "    run = wandb.init()\n"
				       "    bs = wandb.config.per_device_train_batch_size\n");
	o2.code = code;
	p = sl_program_follow(A, sw, &o2);
	assert_int_equal(p->reaches, 1);
	/* a program (not in process: program: hp.py, ${args}) that reads no command line but runs
	 * Trainer.hyperparameter_search(backend="wandb"): _hp_search_setup sets trainer.args from the run's
	 * wandb.config, every key; another backend does not read it */
	const char *hp = write_file("hp.py", "from transformers import Trainer, TrainingArguments\n"
					     "def model_init(trial):\n"
					     "    return AutoModelForSequenceClassification.from_pretrained('roberta-large')\n"
					     "trainer = Trainer(model_init=model_init, args=TrainingArguments('out'))\n"
					     "trainer.hyperparameter_search(backend='wandb', n_trials=4)\n");
	struct sl_sweep *sw_hp = sweep_of("program: hp.py\nmethod: grid\n"
					  "parameters:\n  per_device_train_batch_size: {values: [64]}\n");
	struct sl_program_opts o3 = {.sweep_dir = dir};
	p = sl_program_follow(A, sw_hp, &o3);
	assert_non_null(p);
	assert_string_equal(p->ref.path, hp);
	assert_int_equal(p->reaches, 1);
	assert_int_equal(p->nunread_params, 0);
	write_file("hp.py", "from transformers import Trainer, TrainingArguments\n"
			    "trainer = Trainer(args=TrainingArguments('out'))\n"
			    "trainer.hyperparameter_search(backend='optuna', n_trials=4)\n");
	p = sl_program_follow(A, sw_hp, &o3);
	assert_int_equal(p->reaches, 0);
}

static void test_adapter_rank_declared_beside_a_guard(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* `--lora_r` declared with a default and passed to a LoraConfig applied only under `if args.use_lora:`:
	 * the rank is read where the config is applied (under the guard), not by its name too, which made the
	 * use_lora false runs LoRA (the estimate takes a rank alone for LoRA) and hid a full fine-tune */
	write_file("train.py", "import argparse\n"
			       "from peft import LoraConfig, get_peft_model\n"
			       "from transformers import AutoModelForCausalLM\n"
			       "p = argparse.ArgumentParser()\n"
			       "p.add_argument('--use_lora', action='store_true')\n"
			       "p.add_argument('--lora_r', type=int, default=32)\n"
			       "p.add_argument('--lora_dropout', type=float, default=0.05)\n"
			       "args = p.parse_args()\n"
			       "m = AutoModelForCausalLM.from_pretrained('gpt2-large')\n"
			       "if args.use_lora:\n"
			       "    m = get_peft_model(m, LoraConfig(r=args.lora_r, lora_dropout=args.lora_dropout))\n"
			       "m.train()\n");
	struct sl_program *p = follow("program: train.py\nmethod: grid\nparameters:\n"
				      "  use_lora: {values: [true, false]}\n");
	assert_null(setting(p, "lora_r", NULL));
	assert_null(setting(p, "lora_dropout", NULL));
	const struct sl_param_role *r = role_of(p, "use_lora", "lora.r");
	assert_non_null(r);
	assert_string_equal(case_of(r, "True"), "32");
	assert_string_equal(case_of(r, "False"), "unset");
	/* the sweep does not set use_lora: the flag is false, the branch is decided and never runs, no config is
	 * made: the declared rank sizes nothing (a full fine-tune) */
	p = follow("program: train.py\nmethod: grid\nparameters:\n  lr: {values: [0.1, 0.2]}\n");
	assert_null(setting(p, "lora_r", NULL));
	assert_null(role_of(p, "use_lora", "lora.r"));
	/* a declaration no LoraConfig takes is still read by its name */
	write_file("train.py", "import argparse\n"
			       "p = argparse.ArgumentParser()\n"
			       "p.add_argument('--lora_r', type=int, default=32)\n"
			       "args = p.parse_args()\n");
	p = follow("program: train.py\n");
	expect(p, "lora_r", "32", "train.py", "32)", "argparse default");
}

/* ---- a table of quantization configs, and a package this checkout has no __init__.py of ------------- */

static void test_quant_table_picked(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* the lookup's key is known ("full"): no entry is picked, so the load is not quantized (every entry
	 * of the table was read as applied before: quant from the 8-bit one) */
	write_file("conf.yaml", "model: Qwen/Qwen2.5-7B\nprecision: full\n");
	write_file("train.py", "import yaml, torch\n"
			       "from transformers import AutoModelForCausalLM, BitsAndBytesConfig\n"
			       "cfg = yaml.safe_load(open('conf.yaml'))\n"
			       "quant = {\n"
			       "    '4bits': BitsAndBytesConfig(load_in_4bit=True),\n"
			       "    '8bits': BitsAndBytesConfig(load_in_8bit=True),\n"
			       "}.get(cfg['precision'], None)\n"
			       "m = AutoModelForCausalLM.from_pretrained(cfg['model'], torch_dtype=torch.bfloat16,\n"
			       "                                         quantization_config=quant)\n");
	struct sl_program *p = follow("program: train.py\n");
	assert_null(setting(p, "load_in_4bit", NULL));
	assert_null(setting(p, "load_in_8bit", NULL));
	assert_null(p->quant_open);
	assert_true(noted(p, "a table of alternatives: only the one the program looks up is read"));
	expect(p, "torch_dtype", "bfloat16", "train.py", "torch.bfloat16", "from_pretrained(torch_dtype=");
	/* a key that picks one: that entry is the setting */
	write_file("conf.yaml", "model: Qwen/Qwen2.5-7B\nprecision: 4bits\n");
	p = follow("program: train.py\n");
	expect(p, "load_in_4bit", "True", "train.py", "True),\n    '8bits'", "BitsAndBytesConfig(load_in_4bit=");
	assert_null(setting(p, "load_in_8bit", NULL));
	assert_null(p->quant_open);
}

static void test_quant_table_undecided(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* the key comes from the environment: the quantization is open, none of the entries is read, and
	 * the program says so (the eval then makes no oom sure that a 4-bit base would not also hit) */
	write_file("train.py", "import os, torch\n"
			       "from transformers import AutoModelForCausalLM, BitsAndBytesConfig\n"
			       "QUANT = {'4bit': BitsAndBytesConfig(load_in_4bit=True),\n"
			       "         '8bit': BitsAndBytesConfig(load_in_8bit=True)}\n"
			       "m = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B', torch_dtype=torch.bfloat16,\n"
			       "                                         quantization_config=QUANT.get(os.environ['Q']))\n");
	struct sl_program *p = follow("program: train.py\n");
	assert_null(setting(p, "load_in_4bit", NULL));
	assert_null(setting(p, "load_in_8bit", NULL));
	assert_non_null(p->quant_open);
	assert_non_null(strstr(p->quant_open, "train.py:6: quantization_config is one of "
					       "BitsAndBytesConfig(load_in_4bit=True), BitsAndBytesConfig(load_in_8bit=True), None"));
	/* one config is no table: read where it is made, as before */
	write_file("train.py", "import os\n"
			       "from transformers import AutoModelForCausalLM, BitsAndBytesConfig\n"
			       "kw = {'quantization_config': BitsAndBytesConfig(load_in_4bit=True)}\n"
			       "m = AutoModelForCausalLM.from_pretrained(os.environ['M'], **kw)\n");
	p = follow("program: train.py\n");
	expect(p, "load_in_4bit", "True", "train.py", "True)}", NULL);
	assert_null(p->quant_open);
}

/* The optimizer a program builds (pysinks.py optimizer_call): one class is the setting, fused=True and
 * foreach=False its implementation; a class per sweep value a value map; two classes built unconditionally,
 * or one under a condition the text does not decide, no optimizer at all. */
static void test_program_optimizer(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("train.py", "import torch\n"
			       "import bitsandbytes as bnb\n"
			       "from transformers import AutoModelForCausalLM\n"
			       "m = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B')\n"
			       "opt = torch.optim.AdamW(m.parameters(), lr=1e-4, fused=True)\n"
			       "m(x).loss.backward()\n");
	struct sl_program *p = follow("program: train.py\n");
	expect(p, "optimizer", "adamw_torch", "train.py", "torch.optim.AdamW(", "AdamW(...) call");
	expect(p, "optimizer.fused", "True", "train.py", "torch.optim.AdamW(", "AdamW(...) call");
	/* SGD with momentum keeps a buffer; bitsandbytes' paged 8-bit class by its name */
	write_file("train.py", "import torch\n"
			       "opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=False)\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	expect(p, "optimizer", "sgd_momentum", "train.py", "torch.optim.SGD(", "SGD(...) call");
	expect(p, "optimizer.foreach", "False", "train.py", "torch.optim.SGD(", "SGD(...) call");
	write_file("train.py", "import bitsandbytes as bnb\n"
			       "opt = bnb.optim.PagedAdamW8bit(model.parameters(), lr=1e-4)\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	expect(p, "optimizer", "paged_adamw_8bit", "train.py", "bnb.optim.PagedAdamW8bit(", "PagedAdamW8bit(...) call");
	/* a class per value of a sweep parameter: a value map */
	write_file("train.py", "import argparse, torch\n"
			       "p = argparse.ArgumentParser()\n"
			       "p.add_argument('--opt', default='adamw')\n"
			       "args = p.parse_args()\n"
			       "if args.opt == 'sgd':\n"
			       "    o = torch.optim.SGD(model.parameters(), lr=0.1)\n"
			       "else:\n"
			       "    o = torch.optim.AdamW(model.parameters(), lr=1e-4)\n"
			       "loss.backward()\n");
	p = follow("program: train.py\nmethod: grid\nparameters:\n  opt: {values: [sgd, adamw]}\n");
	const struct sl_param_role *r = role_of(p, "opt", "optimizer");
	assert_non_null(r);
	assert_string_equal(case_of(r, "sgd"), "sgd");
	assert_string_equal(case_of(r, "adamw"), "adamw_torch");
	/* two optimizers built unconditionally (a GAN): which one steps the model is not said */
	write_file("train.py", "import torch\n"
			       "og = torch.optim.Adam(gen.parameters(), lr=2e-4)\n"
			       "od = torch.optim.SGD(disc.parameters(), lr=1e-2)\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	assert_null(setting(p, "optimizer", NULL));
	assert_true(noted(p, "the program builds several optimizers (adam, sgd): not read"));
	/* one under a condition the text does not decide, beside an unconditional one: neither is read */
	write_file("train.py", "import os, torch\n"
			       "o = torch.optim.AdamW(model.parameters())\n"
			       "if os.environ.get('SGD'):\n"
			       "    o = torch.optim.SGD(model.parameters(), lr=0.1)\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	assert_null(setting(p, "optimizer", NULL));
	assert_true(noted(p, "SGD(...) runs under a condition the program does not decide: no optimizer is read"));
	/* beside an HF Trainer given no optimizers=, the trainer's own (TrainingArguments.optim) steps the model */
	write_file("train.py", "import torch\n"
			       "from transformers import Trainer, TrainingArguments\n"
			       "probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)\n"
			       "Trainer(model=m, args=TrainingArguments('o', per_device_train_batch_size=4)).train()\n");
	p = follow("program: train.py\n");
	assert_null(setting(p, "optimizer", NULL));
	assert_true(noted(p, "SGD(...) is not the trainer's optimizer"));
	/* given to it (optimizers=(opt, sched)): that one */
	write_file("train.py", "import torch\n"
			       "from transformers import Trainer, TrainingArguments\n"
			       "opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)\n"
			       "Trainer(model=m, args=TrainingArguments('o'), optimizers=(opt, None)).train()\n");
	p = follow("program: train.py\n");
	expect(p, "optimizer", "sgd_momentum", "train.py", "torch.optim.SGD(", "SGD(...) call");
	/* a class of another module (the project's own Adam) is not read */
	write_file("train.py", "from mylib import AdamW\n"
			       "o = AdamW(model.parameters())\n"
			       "loss.backward()\n");
	p = follow("program: train.py\n");
	assert_null(setting(p, "optimizer", NULL));
}

/* dargparser's dargparse(dataclasses=(A, B)): each dataclass filled from the command line, its dArg(default=...)
 * fields the defaults (OliverZim/nlp-research-template's train.py) */
static void test_dargparse(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("train.py", "from dataclasses import dataclass\n"
			       "from dargparser import dArg, dargparse\n"
			       "from torch.utils.data import DataLoader\n"
			       "from transformers import AutoModelForMaskedLM\n"
			       "@dataclass\n"
			       "class TrainingArgs:\n"
			       "    model_name_or_path: str = dArg(default='roberta-base', help='id', aliases='--model')\n"
			       "    max_sequence_length: int = dArg(default=512, aliases=['--seq_len'])\n"
			       "    batch_size_per_device: int = dArg(default=8, aliases='-b')\n"
			       "@dataclass\n"
			       "class MiscArgs:\n"
			       "    seed: int = dArg(default=42)\n"
			       "def main(groups):\n"
			       "    args, misc = groups\n"
			       "    m = AutoModelForMaskedLM.from_pretrained(args.model_name_or_path)\n"
			       "    loader = DataLoader(train_ds, batch_size=args.batch_size_per_device)\n"
			       "    m(x).loss.backward()\n"
			       "if __name__ == '__main__':\n"
			       "    main(dargparse(dataclasses=(TrainingArgs, MiscArgs)))\n");
	struct sl_program *p = follow("program: train.py\nmethod: grid\nparameters:\n"
				      "  batch_size_per_device: {values: [8, 64]}\n");
	expect(p, "model_name_or_path", "roberta-base", "train.py", "'roberta-base'", "from_pretrained");
	/* the sweep's value through ${args} (--batch_size_per_device) reaches the loader */
	const struct sl_param_role *r = role_of(p, "batch_size_per_device", "per_device_train_batch_size");
	assert_non_null(r);
}

/* TRL's SFTTrainer without packing pads each batch to its longest example (its collator, any TRL version):
 * max_length bounds the step (sweeplint_padding longest); packing fills it, and a program that tokenizes
 * with padding="max_length" itself makes every example full: no bound then. */
static void test_sft_dynamic_padding(void **state)
{
	(void)state;
	NEED_PYTHON();
	write_file("train.py", "from trl import SFTTrainer, SFTConfig\n"
			       "from transformers import AutoModelForCausalLM\n"
			       "m = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B')\n"
			       "cfg = SFTConfig(output_dir='o', max_length=2048, per_device_train_batch_size=4)\n"
			       "SFTTrainer(model=m, args=cfg, train_dataset=ds).train()\n");
	struct sl_program *p = follow("program: train.py\n");
	expect(p, "sweeplint_padding", "longest", "train.py", "SFTTrainer(", "TRL's collator pads each batch");
	write_file("train.py", "from trl import SFTTrainer, SFTConfig\n"
			       "from transformers import AutoModelForCausalLM\n"
			       "m = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B')\n"
			       "cfg = SFTConfig(output_dir='o', max_length=2048, packing=True)\n"
			       "SFTTrainer(model=m, args=cfg, train_dataset=ds).train()\n");
	p = follow("program: train.py\n");
	assert_null(setting(p, "sweeplint_padding", NULL));
	write_file("train.py", "from trl import SFTTrainer, SFTConfig\n"
			       "from transformers import AutoModelForCausalLM, AutoTokenizer\n"
			       "tok = AutoTokenizer.from_pretrained('Qwen/Qwen2.5-7B')\n"
			       "ds = ds.map(lambda b: tok(b['text'], padding='max_length', max_length=1024, truncation=True))\n"
			       "m = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B')\n"
			       "SFTTrainer(model=m, args=SFTConfig(output_dir='o'), train_dataset=ds).train()\n");
	p = follow("program: train.py\n");
	assert_null(setting(p, "sweeplint_padding", NULL));
	expect(p, "max_length", "1024", "train.py", "1024", "padding=\"max_length\"");
}

static void test_package_without_init(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* `from lib.model import Loader` where lib/model/ has no __init__.py in this copy: the one module of the
	 * folder that defines Loader is read for it */
	write_file("lib/model/loader.py", "from transformers import AutoModelForCausalLM\n"
					  "class Loader:\n"
					  "    def __init__(self, name):\n"
					  "        self.m = AutoModelForCausalLM.from_pretrained(name)\n");
	write_file("lib/model/other.py", "class Other:\n    pass\n");
	write_file("train.py", "from lib.model import Loader\n"
			       "NAME = 'gpt2-medium'\n"
			       "Loader(NAME)\n");
	struct sl_program *p = follow("program: train.py\n");
	expect(p, "model_name_or_path", "gpt2-medium", "train.py", "'gpt2-medium'", "from_pretrained");
	assert_true(noted(p, "lib.model has no __init__.py here: Loader read from lib.model.loader"));
	/* two modules define it: which one a package __init__ would export is not known */
	write_file("lib/model/other.py", "class Loader:\n    pass\n");
	p = follow("program: train.py\n");
	assert_null(setting(p, "model_name_or_path", NULL));
}

/* ---- Unsloth (docs/program.md "Unsloth") ------------------------------------------------------------ */

static void test_unsloth_defaults(void **state)
{
	(void)state;
	NEED_PYTHON();
	/* the calls as Unsloth's notebooks write them, keywords left out: each default's key is emitted (the
	 * defaults themselves are rules/frameworks.yaml's), the model keeps its head (no part), and SFTTrainer
	 * without packing bounds the length (padding-free batching) */
	write_file("train.py", "import wandb\n"
			       "from unsloth import FastLanguageModel\n"
			       "from trl import SFTTrainer, SFTConfig\n"
			       "wandb.init()\n"
			       "cfg = wandb.config\n"
			       "model, tok = FastLanguageModel.from_pretrained('unsloth/Meta-Llama-3.1-8B-bnb-4bit',\n"
			       "    max_seq_length=cfg.seq, dtype=None)\n"
			       "model = FastLanguageModel.get_peft_model(model, r=cfg.rank)\n"
			       "t = SFTTrainer(model=model, tokenizer=tok, args=SFTConfig(per_device_train_batch_size=4,\n"
			       "    output_dir='o'))\n"
			       "t.train()\n");
	struct sl_program *p = follow("program: train.py\nparameters:\n  seq: {values: [1024, 2048]}\n"
				      "  rank: {values: [8, 64]}\n");
	expect(p, "model_name_or_path", "unsloth/Meta-Llama-3.1-8B-bnb-4bit", "train.py", "'unsloth/Meta",
	       "FastLanguageModel.from_pretrained(\"...\")");
	expect(p, "sweeplint_unsloth_load", "FastLanguageModel", "train.py", "FastLanguageModel.from_pretrained(",
	       "without load_in_4bit: its default");
	expect(p, "sweeplint_unsloth_peft", "FastLanguageModel", "train.py", "FastLanguageModel.get_peft_model(",
	       "get_peft_model() defaults");
	expect(p, "sweeplint_unsloth_gc", "FastLanguageModel.get_peft_model", "train.py",
	       "FastLanguageModel.get_peft_model(", "without use_gradient_checkpointing");
	expect(p, "peft_method", "lora", "train.py", "FastLanguageModel.get_peft_model(", NULL);
	expect(p, "sweeplint_padding", "longest", "train.py", "SFTTrainer(", "padding-free");
	assert_null(setting(p, "sweeplint_part", NULL));
	assert_null(setting(p, "load_in_4bit", NULL));
	assert_non_null(role_of(p, "seq", "max_seq_length"));
	assert_non_null(role_of(p, "rank", "lora.r"));
	assert_int_equal(p->trains, 1);

	/* stated keywords replace the defaults: a 16-bit load, checkpointing off, its own targets; packing
	 * fills the length (no bound) */
	write_file("train.py", "from unsloth import FastLanguageModel\n"
			       "from trl import SFTTrainer, SFTConfig\n"
			       "model, tok = FastLanguageModel.from_pretrained(model_name='unsloth/Qwen2.5-7B',\n"
			       "    max_seq_length=4096, load_in_4bit=False)\n"
			       "model = FastLanguageModel.get_peft_model(model, r=32, target_modules=['q_proj', 'v_proj'],\n"
			       "    lora_dropout=0.05, use_gradient_checkpointing=False)\n"
			       "t = SFTTrainer(model=model, args=SFTConfig(packing=True, output_dir='o'))\n"
			       "t.train()\n");
	p = follow("program: train.py\n");
	expect(p, "model_name_or_path", "unsloth/Qwen2.5-7B", "train.py", "'unsloth/Qwen", NULL);
	expect(p, "load_in_4bit", "False", "train.py", "False)\n", "from_pretrained(load_in_4bit=...)");
	expect(p, "max_seq_length", "4096", "train.py", "4096", NULL);
	expect(p, "lora.r", "32", "train.py", "32,", "get_peft_model(r=...)");
	assert_non_null(setting(p, "lora.lora_dropout", NULL));
	assert_true(strncmp(setting(p, "lora.lora_dropout", NULL)->node->text, "0.05", 4) == 0);
	expect(p, "use_gradient_checkpointing", "False", "train.py", "False)\nt", NULL);
	assert_non_null(setting(p, "lora.target_modules", NULL));
	assert_null(setting(p, "sweeplint_unsloth_load", NULL));
	assert_null(setting(p, "sweeplint_unsloth_peft", NULL));
	assert_null(setting(p, "sweeplint_unsloth_gc", NULL));
	assert_null(setting(p, "sweeplint_padding", NULL));

	/* FastModel: full_finetuning turns the 4-bit load off and get_peft_model into nothing; its
	 * from_pretrained applies checkpointing itself ("unsloth" unless told) */
	write_file("train.py", "from unsloth import FastModel\n"
			       "from transformers import Trainer, TrainingArguments\n"
			       "model, tok = FastModel.from_pretrained('unsloth/gemma-3-4b-it', full_finetuning=True)\n"
			       "model = FastModel.get_peft_model(model, r=8)\n"
			       "Trainer(model=model, args=TrainingArguments('o', per_device_train_batch_size=2)).train()\n");
	p = follow("program: train.py\n");
	expect(p, "load_in_4bit", "False", "train.py", "True)\n", "full_finetuning=True");
	expect(p, "sweeplint_unsloth_gc", "FastModel.from_pretrained", "train.py", "FastModel.from_pretrained(", NULL);
	assert_null(setting(p, "peft_method", NULL));
	assert_null(setting(p, "lora.r", NULL));
	assert_null(setting(p, "sweeplint_unsloth_load", NULL));
	assert_true(noted(p, "get_peft_model after from_pretrained(full_finetuning=True): no effect"));

	/* FastModel.get_peft_model without target_modules: every linear layer (its own framework key); a
	 * data_collator of the program's own decides the length: not read */
	write_file("train.py", "from unsloth import FastVisionModel\n"
			       "from trl import SFTTrainer, SFTConfig\n"
			       "model, tok = FastVisionModel.from_pretrained('unsloth/Qwen2.5-VL-7B-Instruct-bnb-4bit',\n"
			       "    use_gradient_checkpointing=True)\n"
			       "model = FastVisionModel.get_peft_model(model, use_gradient_checkpointing='unsloth')\n"
			       "t = SFTTrainer(model=model, data_collator=object(), args=SFTConfig(output_dir='o'))\n"
			       "t.train()\n");
	p = follow("program: train.py\n");
	expect(p, "sweeplint_unsloth_peft_all", "FastVisionModel", "train.py", "FastVisionModel.get_peft_model(", NULL);
	expect(p, "use_gradient_checkpointing", "unsloth", "train.py", "'unsloth')", NULL);
	assert_null(setting(p, "sweeplint_unsloth_gc", NULL));
	assert_null(setting(p, "sweeplint_padding", NULL));
	assert_true(noted(p, "SFTTrainer(data_collator=...): the step's length is the collator's"));

	/* TRL < 0.12's spelling, as Unsloth's notebooks long wrote it: SFTTrainer's own max_seq_length and
	 * packing=True (the length is filled: no bound); packing=False bounds it */
	write_file("train.py", "from unsloth import FastLanguageModel\n"
			       "from trl import SFTTrainer\n"
			       "from transformers import TrainingArguments\n"
			       "max_seq_length = 2048\n"
			       "model, tok = FastLanguageModel.from_pretrained('unsloth/mistral-7b-v0.3-bnb-4bit',\n"
			       "    max_seq_length=max_seq_length, load_in_4bit=True)\n"
			       "model = FastLanguageModel.get_peft_model(model, r=16, lora_alpha=16)\n"
			       "t = SFTTrainer(model=model, tokenizer=tok, max_seq_length=max_seq_length, packing=True,\n"
			       "    args=TrainingArguments(per_device_train_batch_size=2, output_dir='o'))\n"
			       "t.train()\n");
	p = follow("program: train.py\n");
	expect(p, "max_seq_length", "2048", "train.py", "2048", "SFTTrainer(max_seq_length=...)");
	expect(p, "load_in_4bit", "True", "train.py", "True)", NULL);
	assert_null(setting(p, "sweeplint_padding", NULL));
	write_file("train.py", "from unsloth import FastLanguageModel\n"
			       "from trl import SFTTrainer\n"
			       "from transformers import TrainingArguments\n"
			       "model, tok = FastLanguageModel.from_pretrained('unsloth/mistral-7b-v0.3-bnb-4bit')\n"
			       "model = FastLanguageModel.get_peft_model(model)\n"
			       "t = SFTTrainer(model=model, tokenizer=tok, max_seq_length=1024, packing=False,\n"
			       "    args=TrainingArguments(per_device_train_batch_size=2, output_dir='o'))\n"
			       "t.train()\n");
	p = follow("program: train.py\n");
	expect(p, "sweeplint_padding", "longest", "train.py", "SFTTrainer(", NULL);

	/* GRPO with fast_inference: vLLM in the process, not counted: a note says so */
	write_file("train.py", "from unsloth import FastLanguageModel\n"
			       "from trl import GRPOTrainer, GRPOConfig\n"
			       "model, tok = FastLanguageModel.from_pretrained('unsloth/Qwen2.5-3B-Instruct',\n"
			       "    fast_inference=True, gpu_memory_utilization=0.6)\n"
			       "GRPOTrainer(model=model, args=GRPOConfig(output_dir='o')).train()\n");
	p = follow("program: train.py\n");
	assert_true(noted(p, "from_pretrained(fast_inference=...): vLLM inside the training process"));

	/* for_inference then generate, nothing trains: an inference program */
	write_file("train.py", "from unsloth import FastLanguageModel\n"
			       "model, tok = FastLanguageModel.from_pretrained('unsloth/Llama-3.2-1B-Instruct')\n"
			       "FastLanguageModel.for_inference(model)\n"
			       "out = model.generate(**tok(['hi'], return_tensors='pt'), max_new_tokens=64)\n");
	p = follow("program: train.py\n");
	assert_int_equal(p->trains, 0);
	expect(p, "sweeplint_unsloth_load", "FastLanguageModel", "train.py", "FastLanguageModel.from_pretrained(", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_argparse_dest_through_a_variable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_module_constants_and_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_accessors_and_rebinding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_stays_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kwargs_and_hydra, setup, teardown),
		cmocka_unit_test_setup_teardown(test_roles_and_value_maps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_reach, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_programs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_entry_and_in_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_library_callbacks_and_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adapter_rank_declared_beside_a_guard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quant_table_picked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quant_table_undecided, setup, teardown),
		cmocka_unit_test_setup_teardown(test_package_without_init, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_optimizer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dargparse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sft_dynamic_padding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsloth_defaults, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
