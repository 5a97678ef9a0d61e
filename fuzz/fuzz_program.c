/*
 * fuzz_program: the program follower over projects generated from the input (issue 34 part 8) — a
 * Python program and local modules (argparse defaults, TrainingArguments / LoraConfig / from_pretrained
 * literals, config loads, Hydra decorators, imports, odd literals: 1e999, big integers, NULs, lone
 * surrogates, deep nesting, raw bytes), YAML configs and a Hydra tree (defaults lists, groups,
 * interpolations, self-inclusion), the sweep (program:, a shell script, python -m, config values) and
 * a .sweeplint.yaml (program:, config_dir:, models:) — then the whole check pipeline and a report.
 *
 * The project is a repository (.git) in a scratch folder made once per process, beside a folder of
 * "secrets" that every path the generator writes tries to reach (`../secret/...`, an absolute path,
 * links out of the project). What must hold, beside no crash, leak or sanitizer report: no byte of a
 * secret (the marker ZZSECRETZZ, which the generator never writes itself) in any finding, note or
 * report: the containment rule (include/sweeplint/path.h). Parses share one cache across inputs (the
 * interpreter behind a pyenv shim is found once), each input a run of its own and its 1.5 s budget.
 *
 *   byte 0      flags: bits 0-1 how the sweep names the program (program:, a shell script, python -m,
 *               .sweeplint.yaml program:), bit 2 a .sweeplint.yaml (config_dir:, models:), bit 3 a
 *               Hydra tree, bits 4-5 the report format, bit 6 -v
 *   then        records of 3 bytes: the file (the program, module m0 or m1, config c0 or c1, Hydra
 *               main or a group option), a template, an operand; a record whose template is raw takes
 *               its operand as a length of input bytes for one line
 *
 * FUZZ_PROGRAM_PRINT=1 fuzz_program FILE prints the project an input builds.
 */
#include <ftw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/config.h"
#include "sweeplint/diag.h"
#include "sweeplint/program.h"
#include "sweeplint/report.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MARK "ZZSECRETZZ"

static char scratch[256];                   /* the scratch folder: secret/ and proj/ */
static struct sl_parse_cache *cache;        /* across inputs: the interpreter found once */

static const char *const lits[] = {
	"0", "1", "8", "-1", "4096", "1.5", "8.0", "1e999", "-1e999", "123456789012345678901234567890",
	"9223372036854775808", "None", "True", "False", "'bert-base-uncased'", "'gpt2'", "'a\\x00b'", "'\\ud800'",
	"'\\U0001F600'", "'bf16'", "[1, 2]", "['q_proj', 'v_proj']", "torch.bfloat16", "'auto'", "''",
	"'meta-llama/Llama-2-7b-hf'", "0x10", "1_024",
};
/* paths a program, a config or the sweep names: in the project, and out of it every way */
static const char *const paths[] = {
	"c0.yaml", "c1.json", "conf", "conf/main.yaml", "../secret/hosts.yml", "SECRET/hosts.yml", "link.yml",
	"linkdir/hosts.yml", "../secret/model", "../secret", "../..", "/", "missing.yaml", "linkdir",
	"m0.py", "./c0.yaml", "../secret/key.txt", "SECRET/model/config.json", "conf/../../secret/hosts.yml",
};
static const char *const kws[] = {
	"per_device_train_batch_size", "max_seq_length", "gradient_accumulation_steps", "bf16", "fp16",
	"gradient_checkpointing", "optim", "learning_rate", "model_name_or_path", "r", "lora_alpha",
	"deepspeed", "torch_dtype", "max_length",
};
static const char *const refs[] = {
	"cfg['github.com']['oauth_token']", "cfg.model.name", "cfg['auths']['ghcr.io']['auth']", "cfg.model",
	"args.model", "cfg['a']", "config.model.plm_name",
};
static const char *const yvals[] = {
	"8", "16.0", "bert-base-uncased", "${model.name}", "${nothere}", "'${a.b}'", "[1, 2]", "{x: 1}", "null",
	".inf", "\"a\\0b\"", "gpt2", "ZZ", "auto", "true", "../secret/hosts.yml", "1e999",
};

struct reader {
	const uint8_t *p;
	size_t n, i;
};

static unsigned next(struct reader *r)
{
	return r->i < r->n ? r->p[r->i++] : 0;
}

#define PICK(t, k) (t[(k) % (sizeof t / sizeof *t)])

/* A path of the table: "SECRET" is the secrets' folder as an absolute path. */
static const char *path_of(struct sl_arena *a, unsigned k)
{
	const char *p = PICK(paths, k);
	if (strncmp(p, "SECRET", 6) == 0)
		return sl_arena_printf(a, "%s/secret%s", scratch, p + 6);
	return p;
}

static void write_file(const char *rel, const char *text, size_t len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/proj/%s", scratch, rel);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (len && fwrite(text, 1, len, f) != len)
		abort();
	fclose(f);
}

static void mkdirs(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", scratch, rel);
	if (mkdir(path, 0755) != 0 && access(path, F_OK) != 0)
		abort();
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	sl_parse_cache_free(cache);
}

/* The scratch tree, once (removed at exit): secrets beside a repository, and links from it to them. */
static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(scratch, sizeof scratch, "%s/sweeplint-fuzz-program-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		abort();
	char *real = realpath(scratch, NULL);
	if (!real)
		abort();
	snprintf(scratch, sizeof scratch, "%s", real);
	free(real);
	mkdirs("secret");
	mkdirs("secret/model");
	mkdirs("proj");
	mkdirs("proj/.git");
	mkdirs("proj/conf");
	mkdirs("proj/conf/model");
	mkdirs("proj/pkg");
	static const struct {
		const char *rel, *text;
	} secrets[] = {
		{"secret/hosts.yml", "github.com:\n  oauth_token: " MARK "1\nmodel:\n  name: " MARK "2\n"},
		{"secret/key.txt", MARK "3 more\n"},
		{"secret/model/config.json", "{\"model_type\": \"" MARK "4\", \"hidden_size\": 8}\n"},
		{"secret/train.py", "from transformers import AutoModel\nAutoModel.from_pretrained('" MARK "5')\n"},
		{"secret/main.yaml", "model:\n  name: " MARK "6\n"},
	};
	for (size_t i = 0; i < sizeof secrets / sizeof *secrets; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", scratch, secrets[i].rel);
		FILE *f = fopen(path, "w");
		if (!f)
			abort();
		fputs(secrets[i].text, f);
		fclose(f);
	}
	char from[512];
	snprintf(from, sizeof from, "%s/proj/link.yml", scratch);
	if (symlink("../secret/hosts.yml", from) != 0)
		abort();
	snprintf(from, sizeof from, "%s/proj/linkdir", scratch);
	if (symlink("../secret", from) != 0)
		abort();
	snprintf(from, sizeof from, "%s/proj/conf/model/out.yaml", scratch);
	if (symlink("../../../secret/main.yaml", from) != 0)
		abort();
	cache = sl_parse_cache_new();
	atexit(cleanup);
}

/* One line of a Python file from a template. */
static void py_line(struct sl_arena *a, struct sl_buf *b, unsigned t, unsigned k, struct reader *r)
{
	switch (t % 12) {
	case 0:
		sl_buf_addf(b, "import m%u\n", k % 3);
		break;
	case 1:
		sl_buf_addf(b, "p.add_argument('--%s', default=%s)\n", PICK(kws, k), PICK(lits, k >> 3));
		break;
	case 2:
		sl_buf_addf(b, "TrainingArguments(%s=%s, %s=%s)\n", PICK(kws, k), PICK(lits, k >> 2), PICK(kws, k >> 4),
			    PICK(lits, k >> 5));
		break;
	case 3:
		sl_buf_addf(b, "AutoModel.from_pretrained(%s)\n", PICK(lits, k));
		break;
	case 4:
		sl_buf_addf(b, "cfg = yaml.safe_load(open('%s'))\n", path_of(a, k));
		break;
	case 5:
		sl_buf_addf(b, "@hydra.main(config_path='%s', config_name='%s')\ndef main(cfg):\n    pass\n",
			    path_of(a, k), k & 1 ? "main" : "../secret/main");
		break;
	case 6:
		sl_buf_addf(b, "LoraConfig(r=%s, target_modules=%s)\n", PICK(lits, k), PICK(lits, k >> 4));
		break;
	case 7: { /* raw input bytes as one line, without the secrets' marker letter */
		size_t n = k % 48;
		for (size_t i = 0; i < n; i++) {
			unsigned c = next(r);
			sl_buf_addc(b, c == 'Z' || c == '\n' ? 'z' : (char)c);
		}
		sl_buf_addc(b, '\n');
		break;
	}
	case 8:
		sl_buf_addf(b, "AutoModel.from_pretrained(%s)\n", PICK(refs, k));
		break;
	case 9:
		sl_buf_addf(b, "cfg = json.load(open('%s'))\n", path_of(a, k));
		break;
	case 10: { /* nesting */
		unsigned n = k * 3;
		sl_buf_adds(b, "x = ");
		for (unsigned i = 0; i < n; i++)
			sl_buf_addc(b, '(');
		sl_buf_addc(b, '1');
		for (unsigned i = 0; i < n; i++)
			sl_buf_addc(b, ')');
		sl_buf_addc(b, '\n');
		break;
	}
	default:
		sl_buf_addf(b, "@dataclass\nclass A%u:\n    %s: int = %s\n", k, PICK(kws, k), PICK(lits, k >> 2));
		break;
	}
}

/* One line of a YAML config (or a Hydra file) from a template. */
static void yaml_line(struct sl_arena *a, struct sl_buf *b, unsigned t, unsigned k)
{
	switch (t % 5) {
	case 0:
		sl_buf_addf(b, "%s: %s\n", PICK(kws, k), PICK(yvals, k >> 3));
		break;
	case 1:
		sl_buf_addf(b, "model:\n  name: %s\n", PICK(yvals, k));
		break;
	case 2:
		sl_buf_addf(b, "defaults:\n  - model: %s\n  - %s\n  - _self_\n", k & 1 ? "out" : "a",
			    k & 2 ? "/main" : "/../../secret/main");
		break;
	case 3:
		sl_buf_addf(b, "deepspeed: %s\n", path_of(a, k));
		break;
	default:
		sl_buf_addf(b, "%s: ${%s}\n", PICK(kws, k), PICK(kws, k >> 3));
		break;
	}
}

/* host_memory as a count of bytes (the CLI's reader is the CLI's); the generator writes none. */
static int parse_size(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(text, &end, 10);
	if (end == text || *end)
		return -1;
	*out = v;
	return 0;
}

/* Does text hold the secrets' marker? */
static void no_secret(const char *what, const char *text, size_t len)
{
	if (text && memmem(text, len, MARK, strlen(MARK))) {
		fprintf(stderr, "fuzz_program: a secret from outside the project in %s: %.*s\n", what, (int)len, text);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!cache)
		setup();
	struct reader r = {data, size, 0};
	unsigned flags = next(&r);
	struct sl_run *run = sl_run_new();
	struct sl_arena *a = run->arena;
	struct sl_buf files[7]; /* train.py m0.py m1.py c0.yaml c1.json conf/main.yaml conf/model/a.yaml */
	static const char *const names[7] = {"train.py", "m0.py", "m1.py", "c0.yaml", "c1.json", "conf/main.yaml",
					     "conf/model/a.yaml"};
	for (size_t i = 0; i < 7; i++)
		sl_buf_init(&files[i], a);
	sl_buf_adds(&files[0], "import argparse, yaml, json, hydra, torch\nfrom transformers import AutoModel, "
			       "TrainingArguments\np = argparse.ArgumentParser()\n");
	for (size_t rec = 0; rec < 64 && r.i < r.n; rec++) {
		unsigned which = next(&r) % 7, t = next(&r), k = next(&r);
		if (which < 3)
			py_line(a, &files[which], t, k, &r);
		else if (which == 4)
			sl_buf_addf(&files[4], "%s{\"%s\": %s}", files[4].len ? "" : "", PICK(kws, k),
				    k & 1 ? "\"../secret/hosts.yml\"" : "8");
		else
			yaml_line(a, &files[which], t, k);
	}
	for (size_t i = 0; i < 7; i++)
		write_file(names[i], files[i].buf ? files[i].buf : "", files[i].len);

	/* the sweep: how it names the program, a config value, the batch */
	struct sl_buf s;
	sl_buf_init(&s, a);
	switch (flags & 3) {
	case 0:
		sl_buf_adds(&s, "program: train.py\n");
		break;
	case 1:
		write_file("run.sh", "#!/bin/sh\npython ../secret/train.py \"$@\"\npython train.py --bf16 \"$@\"\n", 66);
		sl_buf_adds(&s, "program: run.sh\n");
		break;
	case 2:
		write_file("pkg/train.py", files[0].buf ? files[0].buf : "", files[0].len);
		sl_buf_adds(&s, "command: [python, -m, pkg.train, '${args}']\n");
		break;
	default:
		sl_buf_addf(&s, "program: %s\n", flags & 4 ? "train.py" : path_of(a, flags >> 2));
		break;
	}
	sl_buf_addf(&s, "method: grid\nparameters:\n  per_device_train_batch_size:\n    values: [%s, 8]\n"
			"  config_path:\n    value: %s\n  model_name_or_path:\n    value: %s\n",
		    PICK(yvals, flags >> 3), path_of(a, flags >> 2), (flags & 8) ? "mymodel" : path_of(a, flags >> 4));
	write_file("sweep.yaml", s.buf, s.len);
	struct sl_buf c;
	sl_buf_init(&c, a);
	if (flags & 4)
		sl_buf_addf(&c, "config_dir: %s\nmodels:\n  - name: mymodel\n    config: %s\n%s", path_of(a, flags >> 1),
			    path_of(a, flags >> 5), (flags & 3) == 3 ? "program: ../secret/train.py\n" : "");
	write_file(".sweeplint.yaml", c.buf ? c.buf : "", c.len);
	if (getenv("FUZZ_PROGRAM_PRINT"))
		for (size_t i = 0; i < 7; i++)
			fprintf(stderr, "--- %s\n%s", names[i], files[i].buf ? files[i].buf : "");

	/* the project's config, as the CLI finds and loads it */
	const char *sweep = sl_arena_printf(a, "%s/proj/sweep.yaml", scratch);
	struct sl_diags cdiags;
	sl_diags_init(&cdiags, a);
	struct sl_config_base base;
	sl_config_save_base(run, &base);
	struct sl_config *config = NULL;
	const char *cpath = sl_config_find(a, sweep, NULL);
	int errnum = 0;
	if (cpath && sl_config_load(run, cpath, parse_size, &config, &cdiags, &errnum) != 0)
		config = NULL;
	for (size_t i = 0; i < cdiags.n; i++)
		no_secret("a config finding", cdiags.v[i].message, strlen(cdiags.v[i].message));
	sl_config_apply(run, &base, config);
	run->parse_cache = cache;
	run->opt.format = (enum sl_format)(((flags >> 4) & 3) % SL_FORMAT__COUNT);
	run->opt.verbose = (int)((flags >> 6) & 1);
	run->opt.max_combos = (uint64_t)1 << 12;

	int err = 0;
	struct sl_source *src = sl_source_read(a, sweep, SL_MAX_INPUT_BYTES, &err);
	if (!src)
		abort();
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		abort();
	struct sl_report *rep = sl_report_new(a, &run->opt, out);
	struct sl_file *f = sl_run_check_source(run, src);
	sl_report_file(rep, f);
	sl_report_finish(rep);
	fclose(out);
	no_secret("the report", text, len);
	if (getenv("FUZZ_PROGRAM_PRINT")) {
		fprintf(stderr, "--- report\n%.*s", (int)len, text);
		for (size_t i = 0; i < f->nnotes; i++)
			fprintf(stderr, "note: %s\n", f->notes[i]);
	}
	free(text);
	for (size_t i = 0; i < f->diags.n; i++) {
		no_secret("a finding", f->diags.v[i].message, strlen(f->diags.v[i].message));
		if (f->diags.v[i].hint)
			no_secret("a hint", f->diags.v[i].hint, strlen(f->diags.v[i].hint));
	}
	for (size_t i = 0; i < f->nnotes; i++)
		no_secret("a note", f->notes[i], strlen(f->notes[i]));
	sl_run_free(run);
	return 0;
}
