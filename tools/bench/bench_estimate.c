/*
 * bench_estimate: estimates per second of sl_estimate on one core, over a
 * grid of models × batch × length × settings (what a sweep enumerates).
 * Usage: bench_estimate [SECONDS] (default 2). Prints one line:
 *   estimates/s N (M estimates in T s, checksum C)
 * and exits 1 when below 1,000,000/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	struct sl_arena *arena = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, arena);
	struct sl_catalog *cat;
	if (sl_catalog_load(arena, &cat, &d) != 0 || sl_calib_load(arena, &cat->calib, &d) != 0) {
		fprintf(stderr, "bench_estimate: catalog does not load\n");
		return 2;
	}
	const struct sl_gpu *gpu = sl_catalog_find_gpu(arena, cat, "h100-80gb");
	enum { NS = 256 };
	struct sl_settings *grid = malloc(NS * sizeof *grid);
	const struct sl_arch **archs = malloc(NS * sizeof *archs);
	if (!grid || !archs)
		return 2;
	for (int i = 0; i < NS; i++) {
		const struct sl_model *m = &cat->models[(size_t)i % cat->nmodels];
		sl_settings_default(&grid[i]);
		grid[i].task = m->task;
		grid[i].batch_size = 1u << (i % 9);
		grid[i].seq_len = 64u << (i % 6);
		grid[i].amp = i % 3 ? SL_AMP_BF16 : SL_AMP_OFF;
		grid[i].gradient_checkpointing = i % 2;
		grid[i].lora_r = i % 5 == 0 ? 16 : 0;
		grid[i].attn = (enum sl_attn)(i % SL_ATTN__COUNT);
		archs[i] = &m->arch;
	}
	uint64_t sum = 0, n = 0;
	struct sl_breakdown b;
	double t0 = now(), t = t0;
	while (t - t0 < seconds) {
		for (int k = 0; k < 64; k++)
			for (int i = 0; i < NS; i++) {
				sl_estimate(archs[i], &grid[i], gpu, &cat->calib, &b);
				sum += b.total;
			}
		n += 64 * NS;
		t = now();
	}
	double rate = (double)n / (t - t0);
	printf("estimates/s %.0f (%llu estimates in %.2f s, checksum %llu)\n", rate, (unsigned long long)n, t - t0,
	       (unsigned long long)(sum & 0xffff));
	free(grid);
	free(archs);
	sl_arena_free(arena);
	return rate >= 1e6 ? 0 : 1;
}
