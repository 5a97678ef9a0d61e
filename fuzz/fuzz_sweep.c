/*
 * fuzz_sweep: sweeps a byte-level fuzzer of one file seldom builds — many axes (up to 96: the axis
 * product past 2^64), merge keys (one, two in one mapping, a list; the same key in both merged maps),
 * anchors and aliases, distributions at their bounds — and a project config beside the sweep, then the
 * whole check pipeline and a report. The input is read as a program:
 *
 *   byte 0       axes (mod 97)
 *   byte 1       bits 0-1: merges (none, `<<: *m0`, `<<: *m0` + `<<: *m1`, `<<: [*m0, *m1]`);
 *                bit 2: a `.sweeplint.yaml` beside the sweep (the bytes after the 0x00 that ends the
 *                axes, or the whole tail); bits 3-4: report format; bit 5: verbose; bits 6-7: the GPU
 *   per axis     3 bytes: the key (memory-relevant role keys, model names, decoys), the form (values,
 *                value, int_uniform, q_log_uniform_values, a nested list), where (the parameters, merged
 *                map 0 or 1) and two values
 *
 * The config's bytes are written to an anonymous memory file and loaded through /proc/self/fd, as
 * fuzz_config reads a config.json. Ownership: one run (and its arena) per input, freed before returning.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/config.h"
#include "sweeplint/diag.h"
#include "sweeplint/report.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const keys[] = {
	"per_device_train_batch_size", "batch_size", "max_seq_length", "lora_r", "gradient_accumulation_steps",
	"gradient_checkpointing", "model_name_or_path", "learning_rate", "fp16", "bf16", "optim",
	"zero_stage", "max_length", "num_train_epochs", "seed", "train_batch_size", "block_size",
	"load_in_4bit", "per_device_eval_batch_size", "lora_alpha", "dropout", "micro_batch_size",
};
static const char *const values[] = {
	"1", "2", "8", "64", "4096", "0", "-1", "1e-5", "true", "false", "bert-base-uncased", "gpt2",
	"meta-llama/Llama-2-7b-hf", "t5-small", "adamw_torch", "\"8\"", "18446744073709551616", ".inf",
	"null", "~", "[1, 2]", "{a: 1}", "*m0", "'<<'", "=", "2.5", "0x10", "1_024", "yes", "\"\"",
	"9223372036854775807", "3",
};
static const char *const gpus[] = {NULL, "t4", "h100-80gb", "24GiB"};

struct reader {
	const uint8_t *p;
	size_t n, i;
};

static unsigned next(struct reader *r)
{
	return r->i < r->n ? r->p[r->i++] : 0;
}

static void add_axis(struct sl_buf *b, unsigned k, unsigned form, unsigned v1, unsigned v2, size_t i)
{
	const char *indent = "  ";
	const char *key = keys[k % (sizeof keys / sizeof *keys)];
	const char *a = values[v1 % (sizeof values / sizeof *values)];
	const char *c = values[v2 % (sizeof values / sizeof *values)];
	/* the same key again as often as the input asks; past the list, numbered twins of it */
	if (i >= sizeof keys / sizeof *keys && (k & 0x80))
		sl_buf_addf(b, "%s%s_%zu:", indent, key, i);
	else
		sl_buf_addf(b, "%s%s:", indent, key);
	switch (form % 6) {
	case 0:
		sl_buf_addf(b, " {values: [%s, %s]}\n", a, c);
		break;
	case 1:
		sl_buf_addf(b, " {value: %s}\n", a);
		break;
	case 2:
		sl_buf_addf(b, " {distribution: int_uniform, min: %u, max: %u}\n", v1 % 64, v2 * 16);
		break;
	case 3:
		sl_buf_addf(b, " {distribution: q_log_uniform_values, min: 1, max: %u, q: %u}\n", v2 * 64 + 1,
			    v1 % 9);
		break;
	case 4:
		sl_buf_addf(b, "\n%s  values:\n%s    - %s\n%s    - %s\n", indent, indent, a, indent, c);
		break;
	default:
		sl_buf_addf(b, " {values: [%s, %s, %u]}\n", a, c, v1 ^ v2);
		break;
	}
}

/* host_memory as a count of bytes with an optional GiB/MiB suffix (the CLI's reader is the CLI's). */
static int parse_size(const char *text, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(text, &end, 10);
	if (end == text)
		return -1;
	if (strcmp(end, "GiB") == 0 && v < (1ull << 34))
		v <<= 30;
	else if (strcmp(end, "MiB") == 0 && v < (1ull << 44))
		v <<= 20;
	else if (*end)
		return -1;
	*out = v;
	return 0;
}

/* The project config from the input's tail, loaded as the CLI loads one; NULL when none or unusable. */
static struct sl_config *config_from(struct sl_run *run, const uint8_t *p, size_t n, struct sl_diags *diags)
{
	int fd = memfd_create("sweeplint.yaml", 0);
	if (fd < 0)
		abort();
	if (n && write(fd, p, n) != (ssize_t)n)
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	struct sl_config *c = NULL;
	int errnum = 0;
	int rc = sl_config_load(run, path, parse_size, &c, diags, &errnum);
	close(fd);
	return rc == 0 ? c : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = {data, size, 0};
	unsigned naxes = next(&r) % 97, flags = next(&r);
	struct sl_run *run = sl_run_new();
	struct sl_arena *a = run->arena;
	run->opt.no_follow = true; /* no program is read (fuzz_check says why) */

	struct sl_buf m0, m1, params;
	sl_buf_init(&m0, a);
	sl_buf_init(&m1, a);
	sl_buf_init(&params, a);
	for (size_t i = 0; i < naxes; i++) {
		unsigned k = next(&r), form = next(&r), v = next(&r);
		/* where: the parameters, or a map merged into them (when there are merges) */
		unsigned where = (flags & 3) ? (form >> 3) % 3 : 0;
		add_axis(where == 1 ? &m0 : where == 2 ? &m1 : &params, k, form, v & 0x1F, v >> 3, i);
	}
	/* the config's bytes: after the 0x00 that ends the axes, else the rest */
	size_t cfg = r.i;
	const uint8_t *zero = r.i < size ? memchr(data + r.i, 0, size - r.i) : NULL;
	if (zero)
		cfg = (size_t)(zero - data) + 1;

	struct sl_buf s;
	sl_buf_init(&s, a);
	sl_buf_adds(&s, "program: train.py\nmethod: grid\n");
	if (flags & 3) {
		sl_buf_adds(&s, "m0: &m0\n  x: 1\n");
		sl_buf_add(&s, m0.buf, m0.len);
		sl_buf_adds(&s, "m1: &m1\n  y: 2\n");
		sl_buf_add(&s, m1.buf, m1.len);
	}
	sl_buf_adds(&s, "parameters:\n");
	switch (flags & 3) {
	case 1:
		sl_buf_adds(&s, "  <<: *m0\n");
		break;
	case 2: /* two merge keys in one mapping: PyYAML lets the last win */
		sl_buf_adds(&s, "  <<: *m0\n");
		sl_buf_add(&s, params.buf, params.len);
		sl_buf_adds(&s, "  <<: *m1\n");
		break;
	case 3:
		sl_buf_adds(&s, "  <<: [*m0, *m1]\n");
		break;
	default:
		break;
	}
	if ((flags & 3) != 2)
		sl_buf_add(&s, params.buf, params.len);

	struct sl_diags cdiags;
	sl_diags_init(&cdiags, a);
	struct sl_config_base base;
	sl_config_save_base(run, &base);
	struct sl_config *config = (flags & 4) ? config_from(run, data + cfg, size - cfg, &cdiags) : NULL;
	sl_config_apply(run, &base, config);
	/* after the config: the format, the GPU and the bound on evaluated combinations are the input's */
	run->opt.format = (enum sl_format)(((flags >> 3) & 3) % SL_FORMAT__COUNT);
	run->opt.verbose = (int)((flags >> 5) & 1);
	if (!run->opt.gpu)
		run->opt.gpu = gpus[flags >> 6];
	run->opt.max_combos = (uint64_t)1 << 14; /* as fuzz_check: the cost per combination is the same */

	if (getenv("FUZZ_SWEEP_PRINT")) /* what an input builds: FUZZ_SWEEP_PRINT=1 fuzz_sweep FILE */
		fprintf(stderr, "%s---\n", s.buf);
	FILE *out = fopen(getenv("FUZZ_SWEEP_PRINT") ? "/dev/stderr" : "/dev/null", "w");
	if (!out)
		abort();
	struct sl_source *src = sl_source_from_bytes(a, "fuzz.yaml", s.buf, s.len);
	struct sl_report *rep = sl_report_new(a, &run->opt, out);
	struct sl_file *f = sl_run_check_source(run, src);
	sl_report_file(rep, f);
	sl_report_finish(rep);
	fclose(out);
	sl_run_free(run);
	return 0;
}
