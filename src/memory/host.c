/*
 * memory/host: host RAM of one node during training (seed 001: base
 * process, DataLoader workers, model loading × 1.2, overhead; seed 004:
 * without deepspeed.zero.Init every process loads the whole model on the
 * host), plus pinned batches and offloaded ZeRO states. Pure; allocates
 * nothing. Constants come from rules/calibration.yaml.
 */
#include <math.h>
#include <string.h>

#include "sweeplint/memory.h"

static uint64_t u64(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 1.8e19)
		return UINT64_MAX;
	/* from 2^63 llround's long long would overflow; doubles that large are integers */
	return v >= 9223372036854775808.0 ? (uint64_t)v : (uint64_t)llround(v);
}

/* The parameters that train: every one for a full fine-tune, else the PEFT method's (LoRA when only a
 * rank is given; a rank of 0 is the method's default: PEFT's 8, VeRA 256, a rules/peft.yaml row's own) */
static double trainable(const struct sl_arch *a, const struct sl_settings *s, double P)
{
	enum sl_peft m = s->peft_method != SL_PEFT_NONE ? s->peft_method : s->lora_r ? SL_PEFT_LORA : SL_PEFT_NONE;
	if (m == SL_PEFT_NONE)
		return P;
	uint32_t r = s->lora_r;
	if (!r && m < SL_PEFT__COUNT)
		r = m == SL_PEFT_VERA ? 256 : 8;
	return (double)sl_arch_peft_params(a, m, r, s->lora_targets, s->num_virtual_tokens);
}

uint32_t sl_procs_per_node(const struct sl_settings *s)
{
	uint32_t n = s->num_gpus ? s->num_gpus : 1;
	uint32_t per = s->gpus_per_node ? s->gpus_per_node : SL_GPUS_PER_NODE;
	return per < n ? per : n;
}

void sl_estimate_host(const struct sl_arch *a, const struct sl_settings *s, const struct sl_calib *c,
		      struct sl_host_breakdown *out)
{
	memset(out, 0, sizeof *out);
	double N = s->num_gpus ? s->num_gpus : 1;
	double procs = sl_procs_per_node(s); /* training processes on this node */
	double P = (double)sl_arch_params_for_task(a, s->task);
	double pb = s->dtype == SL_DTYPE_FP32 ? 4 : 2;

	double base = procs * (double)c->host_base;
	double workers = procs * s->num_workers * (double)c->host_per_worker;

	/* loading: every process materialises the model on the host (seed 004),
	 * unless ZeRO-3 builds it partitioned with deepspeed.zero.Init */
	double model = P * pb;
	double per_proc = (s->zero_stage >= 3 && s->zero3_init) ? model / N : model;
	double loading = procs * per_proc * c->host_load_factor;
	/* FSDP with the checkpoint read by local rank 0 only (accelerate fsdp_cpu_ram_efficient_loading:
	 * transformers loads on the CPU on rank 0 and on the meta device elsewhere, sync_module_states
	 * broadcasts each unit): the model once per node */
	if (s->fsdp != SL_FSDP_NONE && s->fsdp_init == SL_FSDP_INIT_RANK0)
		loading = per_proc * c->host_load_factor;

	/* pinned batches: prefetch_factor 2 per worker (or 1 batch without
	 * workers), input ids + attention mask + labels as int64 */
	double pinned = 0;
	if (s->pin_memory) {
		double b = s->batch_size ? s->batch_size : 1, n = s->seq_len ? s->seq_len : 1;
		double per_batch = b * n * 8 * 3 * (s->task == SL_TASK_BI_ENCODER ? sl_settings_texts(s) : 1);
		pinned = procs * (s->num_workers ? 2.0 * s->num_workers : 1.0) * per_batch;
	}

	/* offloaded ZeRO states: fp32 master + 2 Adam moments + fp32 gradients
	 * per parameter this node's processes own, times DeepSpeed's buffer factor */
	double offload = 0;
	if (s->zero_stage > 0 && s->offload != SL_OFFLOAD_NONE) {
		double T = trainable(a, s, P);
		double per = 16 * T + (s->offload == SL_OFFLOAD_ALL ? 2 * P : 0);
		offload = per * procs / N * c->host_offload_factor;
	}

	double sum = base + workers + loading + pinned + offload;
	out->base = u64(base);
	out->workers = u64(workers);
	out->loading = u64(loading + offload);
	out->pinned = u64(pinned);
	out->overhead = u64(sum * c->host_overhead_frac);
	/* saturating: the terms may already be UINT64_MAX */
	const uint64_t terms[] = {out->base, out->workers, out->loading, out->pinned, out->overhead};
	out->total = 0;
	for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
		out->total = terms[i] > UINT64_MAX - out->total ? UINT64_MAX : out->total + terms[i];
}

uint64_t sl_paged_spill(const struct sl_breakdown *b, uint64_t capacity)
{
	uint64_t room = capacity > b->total ? capacity - b->total : 0;
	return b->paged > room ? b->paged - room : 0;
}

void sl_host_add_paged(const struct sl_settings *s, const struct sl_breakdown *b, uint64_t capacity,
		       struct sl_host_breakdown *h)
{
	double spill = (double)sl_paged_spill(b, capacity) * sl_procs_per_node(s);
	h->paged = u64(spill);
	h->total = h->paged > UINT64_MAX - h->total ? UINT64_MAX : h->total + h->paged;
}
