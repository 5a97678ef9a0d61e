/*
 * fuzz_estimate: the memory model at the limits. The input's bytes fill an
 * architecture (every shape field a uint32, edge values included) and the
 * run settings (batch and lengths up to 2^64-1); parameter counts and the
 * estimators must not crash, and byte totals must saturate rather than wrap:
 * doubling the batch never lowers the training peak, and the peak is at
 * least the weights it holds. Ownership: one arena per input (the
 * calibration), freed before returning.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct reader {
	const uint8_t *p;
	size_t n;
};

static uint32_t u32(struct reader *r)
{
	static const uint32_t edge[] = {0, 1, 2, 3, 64, 4096, 65536, 1u << 24, UINT32_MAX - 1, UINT32_MAX};
	uint8_t sel = r->n ? (r->n--, *r->p++) : 0;
	if (sel < 160)
		return edge[sel % 10];
	uint32_t v = 0;
	for (int i = 0; i < 4 && r->n; i++, r->n--)
		v = v << 8 | *r->p++;
	return v;
}

static uint64_t u64v(struct reader *r)
{
	uint8_t sel = r->n ? (r->n--, *r->p++) : 0;
	if (sel < 128)
		return (uint64_t)u32(r);
	if (sel < 192)
		return UINT64_MAX - (sel & 3);
	uint64_t v = 0;
	for (int i = 0; i < 8 && r->n; i++, r->n--)
		v = v << 8 | *r->p++;
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader rd = {data, size};
	struct sl_arch arch;
	sl_arch_init(&arch, (enum sl_family)(u32(&rd) % SL_FAMILY__COUNT));
	arch.vocab = u32(&rd);
	arch.hidden = u32(&rd);
	arch.layers = u32(&rd);
	arch.dec_layers = arch.kind == SL_ARCH_ENCDEC ? u32(&rd) : 0;
	arch.heads = u32(&rd);
	arch.kv_heads = u32(&rd);
	arch.head_dim = u32(&rd);
	arch.intermediate = u32(&rd);
	arch.max_pos = u32(&rd);
	arch.type_vocab = u32(&rd) & 3;
	arch.emb_dim = arch.family == SL_FAMILY_ELECTRA ? u32(&rd) : 0;

	struct sl_settings s;
	sl_settings_default(&s);
	s.task = (enum sl_task)(u32(&rd) % SL_TASK__COUNT);
	s.batch_size = u64v(&rd);
	s.eval_batch_size = u64v(&rd);
	s.seq_len = u64v(&rd);
	s.target_len = u64v(&rd);
	s.dtype = (enum sl_dtype)(u32(&rd) % SL_DTYPE__COUNT);
	s.amp = (enum sl_amp)(u32(&rd) % SL_AMP__COUNT);
	s.gradient_checkpointing = u32(&rd) & 1;
	s.optimizer = (enum sl_optim)(u32(&rd) % SL_OPTIM__COUNT);
	s.lora_r = u32(&rd);
	s.lora_targets = u32(&rd);
	s.quant = (enum sl_quant)(u32(&rd) % SL_QUANT__COUNT);
	s.attn = (enum sl_attn)(u32(&rd) % SL_ATTN__COUNT);
	s.zero_stage = u32(&rd) % 4;
	s.offload = (enum sl_offload)(u32(&rd) % SL_OFFLOAD__COUNT);
	s.num_gpus = u32(&rd);
	if (!s.num_gpus)
		s.num_gpus = 1;
	s.num_workers = u32(&rd);
	s.texts_per_example = u32(&rd);
	s.mini_batch_size = u64v(&rd);

	struct sl_arena *a = sl_arena_new();
	struct sl_diags diags;
	sl_diags_init(&diags, a);
	struct sl_calib calib;
	if (sl_calib_load(a, &calib, &diags) != 0)
		abort();
	struct sl_gpu gpu = {.name = "fuzz", .bytes = 80ull << 30, .bf16 = true, .cc_major = 9};

	(void)sl_arch_params(&arch);
	(void)sl_arch_params_for_task(&arch, s.task);
	(void)sl_arch_largest_layer(&arch);
	(void)sl_arch_max_seq_len(&arch);
	(void)sl_arch_lora_params(&arch, s.lora_r, s.lora_targets);

	struct sl_breakdown b1, b2, ev;
	struct sl_host_breakdown host;
	sl_estimate(&arch, &s, &gpu, &calib, &b1);
	sl_estimate_eval(&arch, &s, &gpu, &calib, &ev);
	sl_estimate_host(&arch, &s, &calib, &host);
	if (host.total < host.base || host.total < host.loading || ev.total < ev.weights)
		abort(); /* a wrapped sum */
	if (b1.total < b1.weights) {
		fprintf(stderr, "total %" PRIu64 " < weights %" PRIu64 " (params %" PRIu64 ", gradients %" PRIu64
			", optimizer %" PRIu64 ", activations %" PRIu64 ")\n",
			b1.total, b1.weights, b1.params, b1.gradients, b1.optimizer, b1.activations);
		abort(); /* a wrapped sum */
	}
	if (s.batch_size && s.batch_size <= UINT64_MAX / 2 && !s.mini_batch_size) {
		struct sl_settings s2 = s;
		s2.batch_size *= 2;
		sl_estimate(&arch, &s2, &gpu, &calib, &b2);
		if (b2.total < b1.total)
			abort(); /* a bigger batch never needs less memory */
	}
	sl_arena_free(a);
	return 0;
}
