/* memory_rules: helpers the 2xx rules share (the evaluation, placement, counts, fixes in words). */
#include "memory_rules.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/run.h"
#include "sweeplint/ydoc.h"

const struct sl_eval *sl_memrule_eval(const struct sl_check *cx)
{
	const struct sl_eval *ev = cx->file ? cx->file->eval : NULL;
	if (!ev || !ev->cells || !ev->has_model)
		return NULL;
	return ev;
}

struct sl_diag *sl_memrule_emit(struct sl_check *cx, const struct sl_eval_axis *ax, const struct sl_eval_value *v,
				const char *fmt, ...)
{
	const struct sl_source *src = cx->src;
	struct sl_span span;
	if (v->node && ax->src) {
		src = ax->src;
		span = v->span;
	} else if (cx->sweep && cx->sweep->parameters) {
		span = cx->sweep->parameters->span;
	} else if (cx->doc && cx->doc->root) {
		span = cx->doc->root->span;
	} else {
		span = sl_source_span(cx->src, 0, 0);
	}
	va_list ap;
	va_start(ap, fmt);
	struct sl_diag *d = sl_diags_vadd(cx->diags, cx->rule->slug, cx->severity, src, span, fmt, ap);
	va_end(ap);
	return d;
}

/*
 * What was evaluated, when axes are evaluated at their bounds: the counts are
 * of the whole grid, and a combination between the bounds is known only where
 * the bounds agree (src/enumerate/tally.c tally_block; the summary counts the same way).
 */
static const char *bounds_said(struct sl_arena *a, const struct sl_eval *ev)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	size_t n = 0;
	for (size_t i = 0; i < ev->naxes; i++) {
		if (!ev->axes[i].bounds || ev->axes[i].n != 2)
			continue;
		sl_buf_adds(&b, n++ ? ", " : " (");
		sl_buf_adds(&b, ev->axes[i].key);
	}
	if (!n)
		return "";
	sl_buf_adds(&b, n == 1 ? " evaluated at its bounds only; the values between are counted only where both bounds agree, else unknown)"
			       : " evaluated at their bounds only; the values between are counted only where all the bounds agree, else unknown)");
	return b.buf;
}

const char *sl_memrule_counts(struct sl_arena *a, const struct sl_eval *ev, const struct sl_eval_value *v,
			      unsigned mask)
{
	if (ev->others.infinite || ev->others.saturated) {
		/* counted with the other parameters the numbers say nothing: count memory settings */
		uint64_t k = 0, all = 0;
		for (int i = 0; i < SL_VERDICT__COUNT; i++) {
			all += v->u[i];
			if (mask & 1u << i)
				k += v->u[i];
		}
		return sl_arena_printf(a, "in %llu of %llu memory settings (each with %s combinations of the other parameters)",
				       (unsigned long long)k, (unsigned long long)all, sl_count_str(a, ev->others));
	}
	struct sl_count k = {0}, all = {0};
	for (int i = 0; i < SL_VERDICT__COUNT; i++) {
		all = sl_count_add(all, v->n[i]);
		if (mask & 1u << i)
			k = sl_count_add(k, v->n[i]);
	}
	const char *bounds = bounds_said(a, ev);
	if (!k.infinite && !k.saturated && k.value == all.value)
		return sl_arena_printf(a, "in all %s combination%s%s", sl_count_str(a, all),
				       !all.infinite && all.value == 1 ? "" : "s", bounds);
	return sl_arena_printf(a, "in %s of %s combinations%s", sl_count_str(a, k), sl_count_str(a, all), bounds);
}

const struct sl_eval_axis *sl_memrule_axis(const struct sl_eval *ev, enum sl_role r, size_t *index)
{
	for (size_t i = ev->naxes; i-- > 0;)
		if (ev->axes[i].role == r) {
			if (index)
				*index = i;
			return &ev->axes[i];
		}
	return NULL;
}

uint64_t sl_memrule_peak(const struct sl_eval *ev, const uint32_t *idx)
{
	struct sl_breakdown bd;
	return sl_eval_estimate(ev, idx, &bd) ? bd.total : 0;
}

size_t *sl_memrule_node_counts(struct sl_arena *a, const struct sl_eval_axis *ax)
{
	/* open addressing over node pointers: one pass, not a scan of the axis per value */
	size_t nslot = 16;
	while (nslot < 2 * ax->n)
		nslot *= 2;
	const struct sl_node **key = sl_arena_array(a, nslot, sizeof *key);
	size_t *cnt = sl_arena_array(a, nslot, sizeof *cnt);
	size_t *slot_of = sl_arena_array(a, ax->n ? ax->n : 1, sizeof *slot_of);
	for (size_t j = 0; j < ax->n; j++) {
		const struct sl_node *n = ax->values[j].node;
		size_t h = (size_t)(((uintptr_t)n >> 4) * 0x9E3779B97F4A7C15u) & (nslot - 1);
		while (key[h] && key[h] != n)
			h = (h + 1) & (nslot - 1);
		key[h] = n;
		cnt[h]++;
		slot_of[j] = h;
	}
	size_t *same = sl_arena_array(a, ax->n ? ax->n : 1, sizeof *same);
	for (size_t j = 0; j < ax->n; j++)
		same[j] = ax->values[j].node ? cnt[slot_of[j]] : 1;
	return same;
}

const char *sl_memrule_params(struct sl_arena *a, uint64_t p)
{
	if (p >= 1000000000ull)
		return sl_arena_printf(a, "%.1fB", (double)p / 1e9);
	return sl_arena_printf(a, "%.0fM", (double)p / 1e6);
}

/* The longest value of a length axis below the combination's own that fits under limit. */
static const char *shorter_that_fits(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx, size_t axis,
				     uint64_t limit)
{
	const struct sl_eval_axis *ax = &ev->axes[axis];
	uint32_t *c = sl_arena_array(a, ev->naxes, sizeof *c);
	memcpy(c, idx, ev->naxes * sizeof *c);
	const struct sl_eval_value *best = NULL;
	for (uint32_t j = 0; j < ax->n; j++) {
		const struct sl_eval_value *v = &ax->values[j];
		if (!v->ok || j == idx[axis] || v->rv->u >= ax->values[idx[axis]].rv->u)
			continue;
		c[axis] = j;
		uint64_t peak = sl_memrule_peak(ev, c);
		if (peak && peak <= limit && (!best || v->rv->u > best->rv->u))
			best = v;
	}
	return best ? sl_arena_printf(a, "%s %s fits", ax->key, best->text) : NULL;
}

/* A vLLM engine that does not start: the longest max_model_len that fits, else a tensor parallelism that does. */
static const char *vllm_fix(struct sl_arena *a, const struct sl_eval *ev, const struct sl_settings *s,
			    const struct sl_model *m, uint64_t limit)
{
	struct sl_settings t = *s;
	struct sl_breakdown bd;
	uint64_t len = s->max_model_len ? s->max_model_len : m->arch.max_pos;
	uint64_t lo = 0, hi = len;
	while (lo < hi) { /* the largest max_model_len in [1, len) whose start-up fits */
		uint64_t mid = lo + (hi - lo + 1) / 2;
		t.max_model_len = mid;
		sl_estimate(&m->arch, &t, ev->gpu, &ev->cat->calib, &bd);
		if (bd.total <= limit && mid < len)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (lo >= 1)
		return sl_arena_printf(a, "max_model_len %llu fits (vLLM needs the KV cache of one sequence that long)",
				       (unsigned long long)lo);
	t = *s;
	for (uint32_t tp = 2; tp <= 8; tp *= 2) {
		t.tensor_parallel = tp;
		sl_estimate(&m->arch, &t, ev->gpu, &ev->cat->calib, &bd);
		if (bd.total <= limit)
			return sl_arena_printf(a, "tensor_parallel_size %u fits", tp);
	}
	return "neither a shorter max_model_len nor tensor parallelism up to 8 GPUs fits";
}

const char *sl_memrule_fix(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx, size_t axis,
			   uint64_t limit)
{
	struct sl_settings vs;
	const struct sl_model *vm;
	if (sl_eval_settings(ev, idx, &vs, &vm) && sl_settings_vllm(&vs) && vm->arch.kind == SL_ARCH_DECODER)
		return vllm_fix(a, ev, &vs, vm, limit);
	struct sl_eval_fix fx;
	if (!sl_eval_fix(ev, idx, limit, &fx))
		return NULL;
	enum sl_role role = axis < ev->naxes ? ev->axes[axis].role : SL_ROLE__COUNT;
	const struct sl_eval_axis *bax = sl_memrule_axis(ev, SL_ROLE_BATCH_SIZE, NULL);
	const struct sl_eval_axis *gax = sl_memrule_axis(ev, SL_ROLE_GRAD_ACCUM, NULL);
	const char *bkey = bax ? bax->key : "batch_size";
	const char *gkey = gax ? gax->key : "gradient_accumulation_steps";

	const char *batch = NULL, *length = NULL, *gc = NULL, *zero = NULL;
	struct sl_settings s;
	const struct sl_model *m;
	bool train = sl_eval_settings(ev, idx, &s, &m) && s.mode == SL_MODE_TRAIN;
	if (!train) {
		/* nothing trains: no accumulation, checkpointing or ZeRO to offer */
		fx.new_batch = 0;
		fx.gc_fits = false;
		fx.zero_gpus = 0;
	}
	if (fx.new_batch && fx.new_batch == fx.batch_fit)
		batch = sl_arena_printf(a, "%s %llu with %s %llu keeps the effective batch %llu (the largest batch that fits)",
					bkey, (unsigned long long)fx.new_batch, gkey, (unsigned long long)fx.new_accum,
					(unsigned long long)(fx.batch * fx.accum));
	else if (fx.new_batch)
		batch = sl_arena_printf(a, "the largest batch that fits is %llu; %s %llu with %s %llu keeps the effective batch %llu",
					(unsigned long long)fx.batch_fit, bkey, (unsigned long long)fx.new_batch, gkey,
					(unsigned long long)fx.new_accum, (unsigned long long)(fx.batch * fx.accum));
	else if (fx.batch_fit)
		batch = sl_arena_printf(a, "the largest batch that fits is %llu", (unsigned long long)fx.batch_fit);
	if (role == SL_ROLE_SEQ_LEN || role == SL_ROLE_TARGET_LEN)
		length = shorter_that_fits(a, ev, idx, axis, limit);
	if (fx.gc_fits)
		gc = "fits with gradient checkpointing";
	if (fx.zero_gpus)
		zero = sl_arena_printf(a, "fits on %u GPUs with ZeRO-%u", fx.zero_gpus, fx.zero_stage);

	const char *order[5]; /* bound: each case below writes at most four */
	size_t n = 0;
	switch (role) {
	case SL_ROLE_SEQ_LEN:
	case SL_ROLE_TARGET_LEN:
		order[n++] = length, order[n++] = gc, order[n++] = batch, order[n++] = zero;
		break;
	case SL_ROLE_GRADIENT_CHECKPOINTING:
		order[n++] = gc, order[n++] = batch, order[n++] = zero;
		break;
	case SL_ROLE_MODEL:
		order[n++] = zero, order[n++] = gc, order[n++] = batch;
		break;
	default:
		order[n++] = batch, order[n++] = gc, order[n++] = zero;
		break;
	}
	struct sl_buf b;
	sl_buf_init(&b, a);
	int shown = 0;
	for (size_t i = 0; i < n && shown < 2; i++) {
		if (!order[i])
			continue;
		sl_buf_adds(&b, shown++ ? "; or " : "");
		sl_buf_adds(&b, order[i]);
	}
	if (!shown)
		return train ? "nothing sweeplint tries fits (a smaller batch, gradient checkpointing, ZeRO-2/3 on up to 8 GPUs)"
			     : "no smaller batch fits";
	return b.buf;
}

/*
 * The cheapest known combination of value j of axis i (a bounded scan), or
 * NULL. For a value that fails everywhere, the fix worth giving is the one
 * for its smallest setting, not for its worst.
 */
static const uint32_t *cheapest_combo(struct sl_arena *a, const struct sl_eval *ev, size_t i, uint32_t j,
				      uint64_t *peak_out)
{
	enum { BUDGET = 4096 };
	uint32_t *idx = sl_eval_combo(a, ev, i, j);
	uint32_t *best = NULL;
	uint64_t best_peak = UINT64_MAX;
	for (uint64_t tried = 0; tried < BUDGET; tried++) {
		uint64_t peak = sl_memrule_peak(ev, idx);
		if (peak && peak < best_peak) {
			best_peak = peak;
			if (!best)
				best = sl_arena_array(a, ev->naxes, sizeof *best);
			memcpy(best, idx, ev->naxes * sizeof *best);
		}
		/* the odometer over the other axes: axis i stays at j */
		size_t k = ev->naxes;
		while (k-- > 0) {
			if (k == i)
				continue;
			if (++idx[k] < ev->axes[k].n)
				break;
			idx[k] = 0;
		}
		if (k == SIZE_MAX)
			break;
	}
	*peak_out = best_peak;
	return best;
}

/* Some value of the axis has a combination better than verdict vd (computed once per axis). */
static bool axis_does_better(const struct sl_eval_axis *ax, enum sl_verdict vd)
{
	for (size_t j = 0; j < ax->n; j++)
		for (int i = 0; i < (int)vd; i++)
			if (ax->values[j].u[i])
				return true;
	return false;
}

/* Every known combination of v is at vd or worse, and (better) some value of its axis does better. */
static bool all_bad(const struct sl_eval_axis *ax, const struct sl_eval_value *v, enum sl_verdict vd, bool better)
{
	uint64_t bad = 0, good = 0;
	for (int i = 0; i < SL_VERDICT_UNKNOWN; i++)
		(i >= (int)vd ? &bad : &good)[0] += v->u[i];
	return bad && !good && ax->n >= 2 && better;
}

/*
 * Per axis, at most this many values get a finding of their own; the rest are
 * summed up in one (a sweep listing 50,000 batch sizes gets 100 lines, not 50,000).
 */
#define MAX_LISTED_PER_AXIS 100

void sl_memrule_report(struct sl_check *cx, const struct sl_eval *ev, enum sl_verdict vd)
{
	struct sl_arena *a = cx->arena;
	uint64_t limit = vd == SL_VERDICT_OOM ? ev->capacity : ev->plan;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		const struct sl_node *done = NULL; /* computed range values share a node: one finding there */
		bool better = axis_does_better(ax, vd);
		bool better_oom = vd == SL_VERDICT_NEAR && axis_does_better(ax, SL_VERDICT_OOM);
		size_t *same_of = NULL;
		size_t listed = 0, unlisted = 0;
		const struct sl_eval_value *first_unlisted = NULL;
		for (size_t j = 0; j < ax->n; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			bool blamed = v->blamed[vd] > 0;
			if (!blamed && !all_bad(ax, v, vd, better))
				continue;
			/* an OOM value is not also near capacity */
			if (vd == SL_VERDICT_NEAR &&
			    (v->blamed[SL_VERDICT_OOM] || all_bad(ax, v, SL_VERDICT_OOM, better_oom)))
				continue;
			if (!same_of)
				same_of = sl_memrule_node_counts(a, ax);
			/* a custom module's combinations share their parameters' nodes: each is a finding of its own */
			size_t same = ax->modules ? 1 : same_of[j];
			if (!ax->modules && v->node && v->node == done)
				continue;
			done = v->node;
			const uint32_t *idx = blamed ? v->blame_combo[vd] : v->worst_combo;
			if (!idx)
				continue;
			if (listed == MAX_LISTED_PER_AXIS) {
				if (!unlisted++)
					first_unlisted = v;
				continue;
			}
			listed++;
			uint64_t peak = sl_memrule_peak(ev, idx);
			const char *desc = sl_eval_describe(a, ev, idx, i);
			const char *name = sl_eval_value_name(a, ax, v);
			const char *counts = sl_memrule_counts(a, ev, v, vd == SL_VERDICT_OOM ? 1u << SL_VERDICT_OOM
											 : 1u << SL_VERDICT_NEAR);
			const char *fix = sl_memrule_fix(a, ev, idx, i, limit);
			/* failing everywhere: the fix is for its cheapest combination, and the message says so */
			uint64_t cheap_peak = 0;
			const uint32_t *cheap = NULL;
			if (v->u[SL_VERDICT_FIT] == 0 && (vd == SL_VERDICT_NEAR || v->u[SL_VERDICT_NEAR] == 0))
				cheap = cheapest_combo(a, ev, i, (uint32_t)j, &cheap_peak);
			if (cheap && cheap_peak < peak && cheap_peak > limit) {
				const char *cdesc = sl_eval_describe(a, ev, cheap, i);
				const char *cfix = sl_memrule_fix(a, ev, cheap, i, limit);
				fix = sl_arena_printf(a, "even its smallest combination%s%s needs %s; %s", cdesc ? " " : "",
						      cdesc ? cdesc : "", sl_bytes_str(a, cheap_peak), cfix ? cfix : "none known");
			}
			const char *more = same > 1 ? sl_arena_printf(a, " (one of %zu values of this range)", same) : "";
			const char *worst = desc ? sl_arena_printf(a, "; worst: %s needs", desc) : ": it needs";
			struct sl_diag *d;
			if (vd == SL_VERDICT_OOM)
				d = sl_memrule_emit(cx, ax, v, "%s%s runs out of memory %s%s %s on %s (usable %s); fix: %s", name,
						more, counts, worst, sl_bytes_str(a, peak), ev->gpu->name,
						sl_bytes_str(a, ev->capacity), fix ? fix : "none known");
			else
				d = sl_memrule_emit(cx, ax, v,
						"%s%s is above the %.0f%% planning headroom %s%s %s of %s on %s (%.0f%%); fix: %s",
						name, more, 100.0 * (double)ev->plan / (double)ev->capacity, counts, worst,
						sl_bytes_str(a, peak), sl_bytes_str(a, ev->capacity), ev->gpu->name,
						100.0 * (double)peak / (double)ev->capacity, fix ? fix : "none known");
			sl_memrule_assumed(cx, d, ev, idx, 0, limit, NULL);
		}
		if (unlisted)
			sl_memrule_emit(cx, ax, first_unlisted,
					"%s and %zu more value%s of %s %s too (not listed one by one after the first %d)",
					sl_eval_value_name(a, ax, first_unlisted), unlisted - 1, unlisted == 2 ? "" : "s",
					ax->key,
					vd == SL_VERDICT_OOM ? "run out of memory" : "pass the planning headroom",
					MAX_LISTED_PER_AXIS);
	}
}

/*
 * What a value of a non-count role must be, for "KEY "VALUE" is not ..." messages. Every role is listed
 * (no default: -Wswitch names a new role that lacks its words); a role's words say what it takes, so a
 * fraction is not called a boolean (gpu_memory_utilization 1.5 was "not a boolean sweeplint knows").
 */
static const char *role_label(enum sl_role r)
{
	switch (r) {
	case SL_ROLE_OPTIMIZER:
		return "an optimizer sweeplint knows (an HF optim name)";
	case SL_ROLE_OPTIMIZER_IMPL:
		return "an optimizer implementation sweeplint knows (foreach, fused, for_loop)";
	case SL_ROLE_ATTN:
		return "an attention implementation sweeplint knows";
	case SL_ROLE_AMP:
		return "a mixed-precision setting sweeplint knows";
	case SL_ROLE_DTYPE:
		return "a weight dtype sweeplint knows";
	case SL_ROLE_QUANT:
		return "a quantization sweeplint knows";
	case SL_ROLE_OFFLOAD:
		return "an offload setting sweeplint knows";
	case SL_ROLE_TASK:
		return "a task sweeplint knows";
	case SL_ROLE_LORA_TARGETS:
		return "a list of LoRA target modules sweeplint knows";
	case SL_ROLE_PEFT_METHOD:
		return "a PEFT method sweeplint knows";
	case SL_ROLE_FSDP:
		return "an FSDP sharding strategy sweeplint knows";
	case SL_ROLE_MODULES_TO_SAVE:
		return "a list of modules to save sweeplint knows";
	case SL_ROLE_MODE:
		return "a mode sweeplint knows (train, eval, generate)";
	case SL_ROLE_LORA_DROPOUT:
		return "a dropout probability in [0, 1]";
	case SL_ROLE_GPU_MEMORY_UTILIZATION:
		return "a fraction of the GPU's memory in (0, 1]";
	case SL_ROLE_FSDP_INIT:
		return "an FSDP initialisation sweeplint knows (device, per_unit, cpu, meta, rank0 or a boolean)";
	case SL_ROLE_FSDP_STATE_DICT:
		return "an FSDP state dict type sweeplint knows (full, sharded, local, full_device)";
	case SL_ROLE_FSDP_AUTO_WRAP:
		return "a boolean or an FSDP auto-wrap policy sweeplint knows";
	case SL_ROLE_FROZEN:
		return "a frozen part sweeplint knows (none, embeddings, backbone or a number of layers)";
	case SL_ROLE_HEAD_PARAMS:
	case SL_ROLE_MODULES:
		return "a parameter count or a layer list sweeplint can count";
	case SL_ROLE_PART:
		return "a model part sweeplint knows (full, base, encoder)";
	case SL_ROLE_TRAINABLE_LAYERS:
		return "a nonzero number of layers (negative: the first ones)";
	case SL_ROLE_TRAINABLE_MODULES:
		return "a list of layer modules (all, self_attn, mlp, ...)";
	case SL_ROLE_FREEZE_EXTRA:
		return "a list of modules beside the layers sweeplint can size (embed_tokens, lm_head, norm)";
	case SL_ROLE_ENGINE:
		return "a generation engine sweeplint knows (hf, vllm)";
	case SL_ROLE_LOSS:
		return "a sentence-transformers loss sweeplint knows";
	case SL_ROLE_PADDING:
		return "a padding sweeplint knows (max_length, longest)";
	case SL_ROLE_DEEPSPEED:
		return "a DeepSpeed config sweeplint can read";
	case SL_ROLE_ALGORITHM:
		return "a training algorithm sweeplint knows (sft, dpo, orpo, simpo, kto, grpo, rloo, ppo, reward)";
	case SL_ROLE_BETA:
		return "a non-negative number";
	case SL_ROLE_VLLM_MODE:
		return "a vLLM mode sweeplint knows (colocate, server)";
	case SL_ROLE_VLLM_GPU_MEMORY_UTILIZATION:
		return "a fraction of the GPU's memory in (0, 1]";
	case SL_ROLE_REF_MODEL:
		return "a reference model setting sweeplint knows (a model, null, precomputed, or a loss without one)";
	case SL_ROLE_REWARD_MODEL:
		return "a reward model setting sweeplint knows (null, lora, full, api)";
	case SL_ROLE_MODEL:
		return "a model sweeplint knows";
	case SL_ROLE_GRADIENT_CHECKPOINTING:
	case SL_ROLE_ZERO3_INIT:
	case SL_ROLE_PIN_MEMORY:
	case SL_ROLE_FSDP_OFFLOAD:
	case SL_ROLE_TORCH_COMPILE:
	case SL_ROLE_LIGER:
	case SL_ROLE_CHUNKED_CE:
	case SL_ROLE_PACKING:
	case SL_ROLE_OPTIMIZER_IN_BACKWARD:
	case SL_ROLE_ACTIVATION_OFFLOAD:
	case SL_ROLE_FSDP_USE_ORIG_PARAMS:
	case SL_ROLE_KBIT_PREPARE:
	case SL_ROLE_FSDP_EMBEDDING_UNITS:
	case SL_ROLE_BNB_LEGACY:
	case SL_ROLE_UPCAST_TRAINABLE:
	case SL_ROLE_FREEZE_VISION:
	case SL_ROLE_FREEZE_PROJECTOR:
	case SL_ROLE_SEPARATE_ENCODERS:
	case SL_ROLE_VLLM_SLEEP:
		return "a boolean sweeplint knows";
	/* counts and shapes: their words are sl_role_count()'s (what they get here is never used) */
	case SL_ROLE_BATCH_SIZE:
	case SL_ROLE_EVAL_BATCH_SIZE:
	case SL_ROLE_GRAD_ACCUM:
	case SL_ROLE_SEQ_LEN:
	case SL_ROLE_TARGET_LEN:
	case SL_ROLE_LORA_R:
	case SL_ROLE_ZERO_STAGE:
	case SL_ROLE_NUM_GPUS:
	case SL_ROLE_NUM_WORKERS:
	case SL_ROLE_TEXTS_PER_EXAMPLE:
	case SL_ROLE_MINI_BATCH_SIZE:
	case SL_ROLE_LAYERS:
	case SL_ROLE_HIDDEN_SIZE:
	case SL_ROLE_HEADS:
	case SL_ROLE_FFN_SIZE:
	case SL_ROLE_VOCAB_SIZE:
	case SL_ROLE_HEAD_DIM:
	case SL_ROLE_NUM_BEAMS:
	case SL_ROLE_MAX_NEW_TOKENS:
	case SL_ROLE_NUM_VIRTUAL_TOKENS:
	case SL_ROLE_QUERY_LEN:
	case SL_ROLE_CHUNKS_PER_TEXT:
	case SL_ROLE_IMAGE_SIZE:
	case SL_ROLE_NUM_CLASSES:
	case SL_ROLE_IN_CHANS:
	case SL_ROLE_MAX_MODEL_LEN:
	case SL_ROLE_TENSOR_PARALLEL:
	case SL_ROLE_MAX_NUM_BATCHED_TOKENS:
	case SL_ROLE_MAX_NUM_SEQS:
	case SL_ROLE_NUM_GENERATIONS:
	case SL_ROLE_PROMPT_LEN:
	case SL_ROLE_COMPLETION_LEN:
	case SL_ROLE_GENERATION_BATCH_SIZE:
	case SL_ROLE_STEPS_PER_GENERATION:
	case SL_ROLE__COUNT:
		break;
	}
	return sl_role_count(r) ? sl_role_count(r)->what : "a value sweeplint knows";
}

/* The value part of a rejected node: a command item "--key=value" shows as "value". */
static const char *value_text(const struct sl_node *n)
{
	if (!n || n->kind != SL_NODE_SCALAR)
		return NULL;
	const char *eq = n->text[0] == '-' || strchr(n->text, '=') ? strchr(n->text, '=') : NULL;
	return eq ? eq + 1 : n->text;
}

/*
 * The severity an unusable count gets: the rule's where the frameworks refuse
 * the value, at most a warning where its meaning may be the script's own.
 */
static enum sl_severity refused(const struct sl_check *cx, enum sl_role r, const struct sl_node *node,
				const char *text)
{
	enum sl_severity s = sl_role_count_refusal(r, text, node && node->kind == SL_NODE_SCALAR ? &node->value : NULL);
	return s < cx->severity ? s : cx->severity;
}

/* A scalar's text with each NUL written \0 (the C string stops at the first). */
static const char *nul_shown(struct sl_arena *a, const struct sl_node *n)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < n->text_len; i++) {
		if (n->text[i])
			sl_buf_addc(&b, n->text[i]);
		else
			sl_buf_adds(&b, "\\0");
	}
	sl_buf_addc(&b, '\0');
	return b.buf;
}

/* Why an integral float is no count: "" for any other value. */
static const char *float_why(struct sl_arena *a, const char *key, const struct sl_node *n, bool sweep)
{
	if (!n || n->kind != SL_NODE_SCALAR || n->value.type != SL_V_FLOAT || !isfinite(n->value.f) ||
	    floor(n->value.f) != n->value.f)
		return "";
	return sweep ? sl_arena_printf(a, " (a float: W&B passes --%s=%s, which argparse type=int and HfArgumentParser "
				       "refuse, and torch refuses a float batch or size)", key, n->text)
		     : " (a float: int arguments refuse it, and torch refuses a float batch or size)";
}

#define NUL_WHY "holds a NUL byte: no run can use it (W&B cannot pass it as an argument, and a program that reads " \
		"it cuts or refuses it)"

int sl_memrule_report_unreadable(struct sl_check *cx, bool counts)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	struct sl_arena *a = cx->arena;
	/* sweep (and --set) values: their combinations are unknown */
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		/* a NUL in any value, a model's too: "bert-base-uncased\0junk" is no model id */
		for (size_t j = 0; counts && j < ax->n; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			if (!v->ok && sl_node_has_nul(v->node))
				sl_memrule_emit(cx, ax, v, "%s \"%s\" " NUL_WHY " (counted unknown %s)", ax->key,
						nul_shown(a, v->node), sl_memrule_counts(a, ev, v, 1u << SL_VERDICT_UNKNOWN));
		}
		if (ax->role == SL_ROLE_MODEL || ax->role == SL_ROLE_DEEPSPEED || sl_role_is_shape(ax->role))
			continue; /* a shape the model cannot use is left alone (add_shape_model) */
		const char *want = sl_role_count(ax->role) ? sl_role_count(ax->role)->what : NULL;
		if ((want != NULL) != counts)
			continue;
		for (size_t j = 0; j < ax->n; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			if (v->ok || sl_node_has_nul(v->node))
				continue;
			const char *cnt = sl_memrule_counts(a, ev, v, 1u << SL_VERDICT_UNKNOWN);
			if (counts && refused(cx, ax->role, v->node, v->text) == SL_SEV_ERROR)
				sl_memrule_emit(cx, ax, v,
						"%s \"%s\" is not %s%s: no run can use it (counted unknown %s)", ax->key,
						v->text, want, float_why(a, ax->key, v->node, ax->origin == SL_AXIS_SWEEP), cnt);
			else if (counts)
				sl_memrule_emit(cx, ax, v,
						"%s \"%s\" is not %s: its meaning is the script's own (such as \"auto\" or "
						"\"all\"), so it is counted unknown %s",
						ax->key, v->text, want, cnt)
					->severity = refused(cx, ax->role, v->node, v->text);
			else
				sl_memrule_emit(cx, ax, v, "%s \"%s\" is not %s (counted unknown %s)", ax->key, v->text,
						role_label(ax->role), cnt);
		}
	}
	/* config and command values that were rejected: the memory model keeps its default */
	for (size_t k = 0; k < ev->nnotes; k++) {
		const struct sl_eval_note *n = &ev->notes[k];
		if (counts && n->src && n->role >= 0 && sl_node_has_nul(n->rejected)) {
			struct sl_diag *d = sl_check_emit_span(cx, n->span, "%s \"%s\" " NUL_WHY " (%s); the memory model "
							       "ignores it", n->key, nul_shown(a, n->rejected), n->where);
			d->src = n->src;
			continue;
		}
		if (!n->src || n->role < 0 || n->role == SL_ROLE_MODEL || sl_role_is_shape((enum sl_role)n->role))
			continue;
		const char *want = sl_role_count((enum sl_role)n->role) ? sl_role_count((enum sl_role)n->role)->what : NULL;
		if ((want != NULL) != counts)
			continue;
		const char *text = value_text(n->rejected);
		struct sl_diag *d;
		enum sl_severity sev = counts ? refused(cx, (enum sl_role)n->role, n->rejected, text) : cx->severity;
		if (counts && sev == SL_SEV_ERROR)
			d = sl_check_emit_span(cx, n->span, "%s%s%s%s is not %s%s (%s): no run can use it; the memory model "
					       "ignores it", n->key, text ? " \"" : "", text ? text : "", text ? "\"" : "",
					       want, float_why(a, n->key, n->rejected, false), n->where);
		else if (counts)
			d = sl_check_emit_span(cx, n->span, "%s%s%s%s is not %s (%s): its meaning is the script's own "
					       "(such as \"auto\" or \"all\"); the memory model ignores it",
					       n->key, text ? " \"" : "", text ? text : "", text ? "\"" : "", want, n->where);
		else
			d = sl_check_emit_span(cx, n->span, "%s%s%s%s is not %s (%s): the memory model "
					       "keeps its default for %s", n->key, text ? " \"" : "", text ? text : "",
					       text ? "\"" : "", role_label((enum sl_role)n->role), n->where,
					       sl_role_name((enum sl_role)n->role));
		d->src = n->src;
		d->severity = sev;
	}
	return 0;
}

void sl_memrule_tally(struct sl_arena *a, const struct sl_eval *ev, size_t at, uint64_t limit, enum sl_measure what,
		      uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m),
		      struct sl_memrule_tally *t)
{
	size_t n = ev->axes[at].n;
	t->nbad = sl_arena_array(a, n, sizeof *t->nbad);
	t->nall = sl_arena_array(a, n, sizeof *t->nall);
	t->worst = sl_arena_array(a, n, sizeof *t->worst);
	t->worst_combo = sl_arena_array(a, n, sizeof *t->worst_combo);
	/* the combinations the measure tells apart, each standing for w.weight (walk.c) */
	struct sl_eval_walk w;
	sl_eval_walk_init(a, ev, sl_eval_unread_roles(ev, what), &w);
	sl_eval_walk_keep(&w, at);
	const uint32_t *idx = w.idx;
	do {
		struct sl_settings s;
		const struct sl_model *m;
		if (!sl_eval_settings(ev, idx, &s, &m))
			continue;
		uint64_t bytes = measure(ev, &s, m);
		uint32_t j = idx[at];
		t->nall[j] += w.weight;
		if (bytes <= limit)
			continue;
		t->nbad[j] += w.weight;
		if (bytes > t->worst[j]) {
			t->worst[j] = bytes;
			if (!t->worst_combo[j])
				t->worst_combo[j] = sl_arena_array(a, ev->naxes, sizeof *idx);
			memcpy(t->worst_combo[j], idx, ev->naxes * sizeof *idx);
		}
	} while (sl_eval_walk_next(&w));
}

void sl_memrule_assumed(struct sl_check *cx, struct sl_diag *d, const struct sl_eval *ev, const uint32_t *idx,
			unsigned given, uint64_t limit,
			uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m))
{
	/* what the verdict rests on of the assumed settings (0: it does not fit whatever they are) */
	unsigned mask = sl_eval_oom_assumed(ev, idx, given, limit, measure);
	d->assumed = sl_arena_array(cx->arena, 8, sizeof *d->assumed);
	d->nassumed = 0;
	for (unsigned bit = 1; bit & SL_NEED__ALL; bit <<= 1)
		if (mask & bit)
			d->assumed[d->nassumed++] = sl_need_role_name(bit);
	if (sl_eval_rests_on_guess(ev, idx, limit, measure)) {
		/* the program's settings come from a file found by its name elsewhere in the project */
		d->message = sl_arena_printf(cx->arena, "%s; judged on a program found by its name only (%s)", d->message,
					     ev->program_guess);
		if (d->severity == SL_SEV_ERROR)
			d->severity = SL_SEV_WARNING;
	}
	if (!mask)
		return;
	d->message = sl_arena_printf(cx->arena, "%s; judged on assumed settings: %s (state them in the sweep, its "
				     "command, a -c config or with --set)", d->message, sl_need_describe(cx->arena, mask, ev->mode));
	if (d->severity == SL_SEV_ERROR)
		d->severity = SL_SEV_WARNING;
}
