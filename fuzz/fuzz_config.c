/*
 * fuzz_config: arbitrary bytes as the configs sweeplint reads besides the
 * sweep — an HF config.json (jansson, a model directory's file), and a
 * trainer config read both as YAML and as DeepSpeed JSON — and, when the
 * config.json gives a model, its parameter counts and memory estimates under
 * settings drawn from the input's hash. The config.json reader takes a path:
 * the bytes go to an anonymous memory file read through /proc/self/fd.
 * Ownership: one arena per input, freed before returning.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/scalar.h"
#include "sweeplint/trainer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

/* Settings from the bits of h, edge values included (0, 1, huge). */
static void settings_from(uint64_t h, struct sl_settings *s)
{
	static const uint64_t sizes[] = {0, 1, 7, 8, 512, 4096, 131072, UINT32_MAX, UINT64_MAX / 2, UINT64_MAX};
	sl_settings_default(s);
	s->task = (enum sl_task)(h % SL_TASK__COUNT), h /= SL_TASK__COUNT;
	s->batch_size = sizes[h % 10], h /= 10;
	s->seq_len = sizes[h % 10], h /= 10;
	s->target_len = sizes[h % 10], h /= 10;
	s->dtype = (enum sl_dtype)(h % SL_DTYPE__COUNT), h /= SL_DTYPE__COUNT;
	s->amp = (enum sl_amp)(h % SL_AMP__COUNT), h /= SL_AMP__COUNT;
	s->gradient_checkpointing = h & 1, h >>= 1;
	s->optimizer = (enum sl_optim)(h % SL_OPTIM__COUNT), h /= SL_OPTIM__COUNT;
	s->lora_r = (uint32_t)(h & 1 ? sizes[(h >> 1) % 8] : 0), h >>= 4;
	s->quant = (enum sl_quant)(h % SL_QUANT__COUNT), h /= SL_QUANT__COUNT;
	s->attn = (enum sl_attn)(h % SL_ATTN__COUNT), h /= SL_ATTN__COUNT;
	s->zero_stage = (uint32_t)(h % 4), h /= 4;
	s->offload = (enum sl_offload)(h % SL_OFFLOAD__COUNT), h /= SL_OFFLOAD__COUNT;
	s->num_gpus = (uint32_t)(h & 1 ? sizes[(h >> 1) % 8] : 1), h >>= 4;
	s->num_workers = (uint32_t)(h % 64), h /= 64;
	s->mini_batch_size = h & 1 ? sizes[(h >> 1) % 10] : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sl_arena *a = sl_arena_new();
	struct sl_diags diags;
	sl_diags_init(&diags, a);
	const struct sl_scalar_resolver *r = sl_scalar_resolver_new(a);

	struct sl_trainer *t = NULL;
	sl_trainer_load_bytes(a, "train.yaml", NULL, (const char *)data, size, r, &diags, &t);
	sl_trainer_load_bytes(a, "ds_config.json", NULL, (const char *)data, size, r, &diags, &t);
	sl_trainer_load_bytes(a, "train.yaml", "training", (const char *)data, size, r, &diags, &t);

	int fd = memfd_create("config.json", 0);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	const struct sl_model *m = sl_model_from_config(a, path, &diags);
	close(fd);

	if (m) {
		struct sl_calib calib;
		struct sl_gpu gpu = {.name = "fuzz", .bytes = 80ull << 30, .bf16 = true, .cc_major = 9};
		if (sl_calib_load(a, &calib, &diags) != 0)
			abort(); /* the embedded calibration is valid */
		uint64_t h = fnv(data, size);
		struct sl_settings s;
		settings_from(h, &s);
		struct sl_breakdown b, e;
		struct sl_host_breakdown host;
		(void)sl_arch_params(&m->arch);
		(void)sl_arch_largest_layer(&m->arch);
		(void)sl_arch_max_seq_len(&m->arch);
		(void)sl_arch_lora_params(&m->arch, s.lora_r, (uint32_t)h);
		sl_estimate(&m->arch, &s, &gpu, &calib, &b);
		sl_estimate_eval(&m->arch, &s, &gpu, &calib, &e);
		sl_estimate_host(&m->arch, &s, &calib, &host);
	}
	sl_arena_free(a);
	return 0;
}
