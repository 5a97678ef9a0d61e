/*
 * accuracy: the memory estimator against published measurements
 * (../shared/calibration/measured.tsv, attention-only.tsv). Prints the
 * predicted-vs-measured tables and fails when the bar is missed:
 * median |error| <= 10% and every row <= 20% on measured.tsv; the attention
 * term within 15% of FlashAttention Table 21 for eager and flash.
 *
 * Each row is compared on what its metric means (calibration/README.md):
 *   nvml_used            the whole device: the estimate's total
 *   reserved_minus_init  max reserved minus reserved after loading: the
 *                        total less the CUDA context and the loaded weights
 *   torch_peak           a torch.cuda peak: the total less the CUDA context
 * The rows from the transformers docs were measured with PyTorch 1.x on CUDA
 * 11.2 (the docs say so); they run with settings.legacy_runtime.
 *
 * Usage: accuracy [CALIBRATION_DIR] (default ../shared/calibration); exits
 * 77 when the directory is absent.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"

#define MIB (1024.0 * 1024.0)
#define MAXCOL 32

static int split(char *line, char **col)
{
	int n = 0;
	line[strcspn(line, "\r\n")] = '\0';
	for (char *p = line; n < MAXCOL;) {
		col[n++] = p;
		char *tab = strchr(p, '\t');
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

static int find(char **head, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(head[i], name) == 0)
			return i;
	fprintf(stderr, "accuracy: column '%s' missing\n", name);
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int measured(const char *dir, const struct sl_catalog *cat, const struct sl_calib *calib,
		    struct sl_arena *arena)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/measured.tsv", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "accuracy: %s: %s\n", path, strerror(errno));
		return 1;
	}
	char hline[4096], line[4096];
	char *head[MAXCOL], *col[MAXCOL];
	if (!fgets(hline, sizeof hline, f)) {
		fclose(f);
		return 1;
	}
	int nh = split(hline, head);
	int c_id = find(head, nh, "id"), c_src = find(head, nh, "source"), c_model = find(head, nh, "model");
	int c_task = find(head, nh, "task"), c_b = find(head, nh, "batch"), c_ga = find(head, nh, "grad_accum");
	int c_s = find(head, nh, "seq_len"), c_t = find(head, nh, "target_len"), c_dt = find(head, nh, "dtype");
	int c_amp = find(head, nh, "amp"), c_gc = find(head, nh, "gc"), c_opt = find(head, nh, "optimizer");
	int c_method = find(head, nh, "method"), c_r = find(head, nh, "lora_r"), c_attn = find(head, nh, "attn");
	int c_gpu = find(head, nh, "gpu"), c_metric = find(head, nh, "metric"), c_val = find(head, nh, "value_mib");

	double errs[256];
	int n = 0, bad = 0;
	printf("%-22s %-26s %-20s %10s %10s %8s  %s\n", "id", "model", "metric", "measured", "predicted", "error",
	       "peak phase");
	while (fgets(line, sizeof line, f) && n < 256) {
		if (line[0] == '\n' || line[0] == '#')
			continue;
		int nc = split(line, col);
		if (nc < nh) {
			fprintf(stderr, "accuracy: short row '%s'\n", col[0]);
			bad++;
			continue;
		}
		const struct sl_model *m = sl_catalog_find_model(cat, col[c_model]);
		const struct sl_gpu *g = sl_catalog_find_gpu(arena, cat, col[c_gpu]);
		if (!m || !g) {
			fprintf(stderr, "accuracy: %s: unknown model '%s' or gpu '%s'\n", col[c_id], col[c_model],
				col[c_gpu]);
			bad++;
			continue;
		}
		struct sl_settings s;
		sl_settings_default(&s);
		int task = sl_task_parse(col[c_task]);
		int opt = sl_optim_parse(col[c_opt]);
		if (task < 0 || opt < 0) {
			fprintf(stderr, "accuracy: %s: bad task or optimizer\n", col[c_id]);
			bad++;
			continue;
		}
		s.task = (enum sl_task)task;
		s.optimizer = (enum sl_optim)opt;
		s.batch_size = strtoull(col[c_b], NULL, 10);
		s.grad_accum = strtoull(col[c_ga], NULL, 10);
		s.seq_len = strtoull(col[c_s], NULL, 10);
		s.target_len = strtoull(col[c_t], NULL, 10);
		s.dtype = strcmp(col[c_dt], "bf16") == 0 ? SL_DTYPE_BF16 : strcmp(col[c_dt], "fp16") == 0 ? SL_DTYPE_FP16
													       : SL_DTYPE_FP32;
		s.amp = strcmp(col[c_amp], "bf16") == 0 ? SL_AMP_BF16 : strcmp(col[c_amp], "fp16") == 0 ? SL_AMP_FP16
												      : SL_AMP_OFF;
		s.gradient_checkpointing = strcmp(col[c_gc], "true") == 0;
		s.lora_r = strcmp(col[c_method], "lora") == 0 ? (uint32_t)strtoul(col[c_r], NULL, 10) : 0;
		s.attn = strcmp(col[c_attn], "eager") == 0 ? SL_ATTN_EAGER
			 : strcmp(col[c_attn], "sdpa") == 0 ? SL_ATTN_SDPA
			 : strcmp(col[c_attn], "flash") == 0 ? SL_ATTN_FLASH
							     : SL_ATTN_DEFAULT;
		s.legacy_runtime = strncmp(col[c_src], "transformers docs", 17) == 0;

		struct sl_breakdown bd;
		sl_estimate(&m->arch, &s, g, calib, &bd);
		double pred;
		const char *metric = col[c_metric];
		if (strcmp(metric, "nvml_used") == 0) {
			pred = (double)bd.total;
		} else if (strcmp(metric, "reserved_minus_init") == 0) {
			struct sl_settings s0 = s;
			s0.amp = SL_AMP_OFF;
			struct sl_breakdown w;
			sl_estimate(&m->arch, &s0, g, calib, &w); /* the weights as loaded */
			pred = (double)(bd.total - bd.cuda_context) - (double)w.weights;
		} else if (strcmp(metric, "torch_peak") == 0) {
			pred = (double)(bd.total - bd.cuda_context);
		} else {
			fprintf(stderr, "accuracy: %s: unknown metric '%s'\n", col[c_id], metric);
			bad++;
			continue;
		}
		double meas = strtod(col[c_val], NULL);
		double err = (pred / MIB - meas) / meas;
		errs[n++] = fabs(err);
		bool fail = fabs(err) > 0.20;
		bad += fail;
		printf("%-22s %-26s %-20s %10.0f %10.0f %+7.1f%%  %s%s\n", col[c_id], m->name, metric, meas, pred / MIB,
		       100 * err, sl_phase_name((enum sl_phase)bd.phase), fail ? "  FAIL (> 20%)" : "");
	}
	fclose(f);
	if (n == 0)
		return 1;
	qsort(errs, (size_t)n, sizeof errs[0], cmp_double);
	double med = n % 2 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2;
	printf("rows %d, median |error| %.1f%% (bar 10%%), max |error| %.1f%% (bar 20%%)\n\n", n, 100 * med,
	       100 * errs[n - 1]);
	if (med > 0.10) {
		printf("FAIL: median |error| above 10%%\n");
		bad++;
	}
	return bad ? 1 : 0;
}

static int attention(const char *dir, const struct sl_calib *calib)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/attention-only.tsv", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "accuracy: %s: %s\n", path, strerror(errno));
		return 1;
	}
	char hline[4096], line[8192];
	char *head[MAXCOL], *col[MAXCOL];
	if (!fgets(hline, sizeof hline, f)) {
		fclose(f);
		return 1;
	}
	int nh = split(hline, head);
	int c_impl = find(head, nh, "impl"), c_heads = find(head, nh, "heads"), c_d = find(head, nh, "head_dim");
	int c_b = find(head, nh, "batch"), c_dt = find(head, nh, "dtype"), c_s = find(head, nh, "seq_len");
	int c_v = find(head, nh, "value_mb");
	int bad = 0, rows = 0;
	printf("%-14s %8s %10s %10s %8s\n", "attention", "seq_len", "measured", "predicted", "error");
	while (fgets(line, sizeof line, f)) {
		if (split(line, col) < nh)
			continue;
		enum sl_attn impl = strcmp(col[c_impl], "flash") == 0 ? SL_ATTN_FLASH : SL_ATTN_EAGER;
		unsigned e = strcmp(col[c_dt], "fp32") == 0 ? 4 : 2;
		char *sp = col[c_s], *vp = col[c_v];
		while (*sp && *vp) {
			uint64_t s = strtoull(sp, &sp, 10);
			double meas = strtod(vp, &vp);
			uint64_t pred = sl_attention_only_bytes(impl, strtoull(col[c_b], NULL, 10),
								(uint32_t)strtoul(col[c_heads], NULL, 10),
								(uint32_t)strtoul(col[c_d], NULL, 10), s, e, calib);
			/* the paper's MB: torch.cuda.max_memory_allocated() / 2**20 */
			double err = ((double)pred / MIB - meas) / meas;
			bool fail = fabs(err) > 0.15;
			bad += fail;
			rows++;
			printf("%-14s %8llu %10.0f %10.0f %+7.1f%%%s\n", col[c_impl], (unsigned long long)s, meas,
			       (double)pred / MIB, 100 * err, fail ? "  FAIL (> 15%)" : "");
			if (*sp == ',')
				sp++;
			if (*vp == ',')
				vp++;
		}
	}
	fclose(f);
	return bad || rows == 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "../shared/calibration";
	FILE *probe = NULL;
	char path[4096];
	snprintf(path, sizeof path, "%s/measured.tsv", dir);
	if (!(probe = fopen(path, "r"))) {
		printf("accuracy: %s absent, skipped\n", dir);
		return 77;
	}
	fclose(probe);

	struct sl_arena *arena = sl_arena_new();
	struct sl_diags diags;
	sl_diags_init(&diags, arena);
	struct sl_catalog *cat = NULL;
	struct sl_calib calib;
	if (sl_catalog_load(arena, &cat, &diags) != 0 || sl_calib_load(arena, &calib, &diags) != 0) {
		for (size_t i = 0; i < diags.n; i++)
			fprintf(stderr, "accuracy: %s\n", diags.v[i].message);
		sl_arena_free(arena);
		return 1;
	}
	cat->calib = calib;
	int rc = measured(dir, cat, &calib, arena);
	rc |= attention(dir, &calib);
	sl_arena_free(arena);
	return rc;
}
