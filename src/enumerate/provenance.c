/*
 * provenance: where each memory setting of a combination comes from — an
 * axis (sweep, command, -c config, .sweeplint.yaml, --set, the program), the
 * model's own maximum length, or the memory model's default — and which of
 * the settings an `oom` error rests on (batch size, length, precision) were
 * assumed. Also the weighted counts of combinations judged on stated
 * settings vs on assumptions.
 */
#include "sweeplint/eval.h"

#include <string.h>

#include "sweeplint/arena.h"
#include "enumerate_internal.h"

const char *sl_axis_origin_name(enum sl_axis_origin o)
{
	static const char *const axis[SL_AXIS__COUNT] = {
		[SL_AXIS_CONFIG] = "config",   [SL_AXIS_COMMAND] = "command",
		[SL_AXIS_SWEEP] = "sweep",     [SL_AXIS_SET] = "--set",
		[SL_AXIS_PROJECT] = ".sweeplint.yaml", [SL_AXIS_PROGRAM] = "program",
	};
	return (unsigned)o < SL_AXIS__COUNT ? axis[o] : "?";
}

const char *sl_setting_origin_name(const struct sl_setting_origin *o)
{
	switch (o->source) {
	case SL_SOURCE_AXIS:
		return sl_axis_origin_name(o->origin);
	case SL_SOURCE_MODEL:
		return "model";
	default:
		return "default";
	}
}

/* The value combination idx takes on axis i. */
static const struct sl_eval_value *value_at(const struct sl_eval_axis *ax, const uint32_t *idx, size_t i)
{
	return &ax->values[ax->n == 1 || !idx ? 0 : idx[i]];
}

static bool value_sets(const struct sl_eval_value *v, enum sl_role r)
{
	if (!v->ok)
		return false;
	for (size_t k = 0; k < v->nrv; k++)
		if (v->rv[k].role == r)
			return true;
	return false;
}

/* The default length the model bounds: its maximum when that is at most the default; else 0. */
uint32_t sl_eval_model_length(const struct sl_model *m)
{
	if (!m)
		return 0;
	if (m->arch.family == SL_FAMILY_VIT) /* its image's patches and the class token: the model states them */
		return sl_arch_vit_tokens(&m->arch);
	struct sl_settings d;
	sl_settings_default(&d);
	uint32_t mx = m->st_max_seq_len ? m->st_max_seq_len : sl_arch_max_seq_len(&m->arch);
	return mx && mx <= d.seq_len ? mx : 0;
}

void sl_eval_origin(const struct sl_eval *ev, const uint32_t *idx, enum sl_role r, struct sl_setting_origin *out)
{
	memset(out, 0, sizeof *out);
	out->source = SL_SOURCE_DEFAULT;
	const struct sl_model *model = NULL;
	size_t model_axis = SIZE_MAX;
	for (size_t i = ev->naxes; i-- > 0;) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		const struct sl_eval_value *v = value_at(ax, idx, i);
		if (!sl_eval_axis_applies(ev, i, idx))
			continue;
		if (ax->role == SL_ROLE_MODEL && model_axis == SIZE_MAX && v->ok) {
			model = v->model;
			model_axis = i;
		}
		if (!value_sets(v, r))
			continue;
		out->source = SL_SOURCE_AXIS;
		out->origin = ax->origin;
		out->key = ax->key;
		out->src = v->node ? ax->src : NULL;
		out->span = v->span;
		return;
	}
	if (r == SL_ROLE_SEQ_LEN && sl_eval_model_length(model)) {
		const struct sl_eval_axis *ax = &ev->axes[model_axis];
		const struct sl_eval_value *v = value_at(ax, idx, model_axis);
		out->source = SL_SOURCE_MODEL;
		out->origin = ax->origin;
		out->key = ax->key;
		out->src = v->node ? ax->src : NULL;
		out->span = v->span;
	}
}

/* The needs one axis value states (SL_NEED_* bits). */
static unsigned value_needs(const struct sl_eval_axis *ax, const struct sl_eval_value *v)
{
	if (!v->ok)
		return 0;
	if (ax->role == SL_ROLE_MODEL)
		return (sl_eval_model_length(v->model) ? SL_NEED_LENGTH : 0) |
		       (v->model && v->model->quant != SL_QUANT_NONE ? SL_NEED_PRECISION : 0); /* a -bnb-4bit id */
	unsigned m = 0;
	for (size_t k = 0; k < v->nrv; k++)
		switch (v->rv[k].role) {
		case SL_ROLE_BATCH_SIZE:
			m |= SL_NEED_BATCH;
			break;
		case SL_ROLE_SEQ_LEN:
		case SL_ROLE_PROMPT_LEN: /* a generating algorithm's sequence: the prompt + its completion */
			m |= SL_NEED_LENGTH;
			break;
		case SL_ROLE_DTYPE:
		case SL_ROLE_AMP:
		case SL_ROLE_QUANT:
			m |= SL_NEED_PRECISION;
			break;
		default:
			break;
		}
	return m;
}

/* Whether combination idx trains a quantized base through an adapter no setting states. */
static bool adapter_assumed(const struct sl_eval *ev, const uint32_t *idx)
{
	struct sl_settings s;
	const struct sl_model *m;
	bool assumed = false;
	sl_eval_settings_adapter(ev, idx, &s, &m, &assumed);
	return assumed;
}

/* settings_needs's mark of a vLLM run (outside SL_NEED__ALL) */
#define VLLM_NEEDLESS (1u << 16)

/* The needs combination idx takes from its settings themselves: the adapter, a bounded length, a bounded model. */
static unsigned settings_needs(const struct sl_eval *ev, const uint32_t *idx)
{
	struct sl_settings s;
	const struct sl_model *m = NULL;
	bool assumed = false;
	sl_eval_settings_adapter(ev, idx, &s, &m, &assumed);
	unsigned mask = assumed ? SL_NEED_ADAPTER : 0;
	if (sl_settings_vllm(&s))
		mask |= VLLM_NEEDLESS; /* marks: batch and length do not size a vLLM engine's start-up */
	/* dynamic padding: the length is the longest example of a batch, at most seq_len (packing fills it) */
	if (s.dynamic_padding && !s.packing && !sl_settings_vllm(&s))
		mask |= SL_NEED_PADDING;
	if (m && m->arch.modules)
		mask |= SL_NEED_BOUND;
	if (ev->quant_open && s.mode == SL_MODE_TRAIN && s.quant == SL_QUANT_NONE)
		mask |= SL_NEED_QUANT; /* it may load 4-bit: no oom is sure unless a 4-bit base runs out too */
	if (m && m->nsizes > 1)
		mask |= SL_NEED_SIZE;
	return mask;
}

unsigned sl_eval_assumed(const struct sl_eval *ev, const uint32_t *idx)
{
	unsigned stated = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		if (sl_eval_axis_applies(ev, i, idx))
			stated |= value_needs(&ev->axes[i], value_at(&ev->axes[i], idx, i));
	unsigned own = settings_needs(ev, idx);
	/* vLLM sizes its start-up with max_num_batched_tokens and max_model_len (vLLM's defaults, the
	 * model's context: what the engine provably takes), never the batch or the prompt's length */
	if (own & VLLM_NEEDLESS)
		stated |= SL_NEED_BATCH | SL_NEED_LENGTH;
	return ((SL_NEED__AXES & ~stated) | own) & SL_NEED__ALL;
}

unsigned sl_eval_oom_assumed(const struct sl_eval *ev, const uint32_t *idx, unsigned given, uint64_t limit,
			     uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s,
						 const struct sl_model *m))
{
	unsigned mask = sl_eval_assumed(ev, idx) & ~given;
	/* a family of sizes (resolved by name): out of memory at every size, and still a guess at which */
	unsigned size = mask & SL_NEED_SIZE;
	mask &= ~SL_NEED_SIZE;
	struct sl_settings s;
	const struct sl_model *m;
	if (!mask || !sl_eval_settings(ev, idx, &s, &m))
		return mask | size;
	if ((mask & SL_NEED_BOUND) && m->arch.modules->bound)
		return mask | size; /* its parameters are a bound too: nothing proves the run past limit */
	sl_need_favourable(&s, mask);
	/* past limit whatever the assumptions: the verdict does not rest on them */
	return (sl_eval_peak(ev, &s, m, measure) > limit ? 0 : mask) | size;
}

uint64_t sl_eval_peak(const struct sl_eval *ev, const struct sl_settings *s, const struct sl_model *m,
		      uint64_t (*measure)(const struct sl_eval *ev, const struct sl_settings *s,
					  const struct sl_model *m))
{
	if (measure)
		return measure(ev, s, m);
	struct sl_breakdown bd;
	sl_estimate(&m->arch, s, ev->gpu, &ev->cat->calib, &bd);
	return bd.total;
}

void sl_need_favourable(struct sl_settings *s, unsigned mask)
{
	if (mask & SL_NEED_BATCH)
		s->batch_size = 1;
	if (mask & SL_NEED_LENGTH) {
		s->seq_len = 1;
		if (s->target_len > 1)
			s->target_len = 1;
	}
	if (mask & SL_NEED_PRECISION) {
		s->dtype = SL_DTYPE_BF16;
		s->amp = SL_AMP_OFF;
	}
	if (mask & SL_NEED_ADAPTER) {
		s->lora_r = 1;
		s->lora_targets = SL_LORA_Q;
		s->lora_dropout_bp = 0;
		s->gradient_checkpointing = true;
	}
	if (mask & SL_NEED_PADDING) { /* a batch of one-token examples */
		s->seq_len = 1;
		if (s->target_len > 1)
			s->target_len = 1;
		if (s->query_len > 1)
			s->query_len = 1;
	}
	if (mask & SL_NEED_QUANT) { /* the program may pick a 4-bit base: trained through PEFT's least LoRA */
		s->quant = SL_QUANT_NF4;
		if (s->peft_method == SL_PEFT_NONE) {
			s->peft_method = SL_PEFT_LORA;
			s->lora_r = 1;
			s->lora_targets = SL_LORA_Q;
			s->gradient_checkpointing = true;
		}
	}
	if (mask & SL_NEED_BOUND) { /* a custom module's activations at their least: one position */
		s->batch_size = 1;
		s->seq_len = 1;
	}
}

const char *sl_need_role_name(unsigned bit)
{
	switch (bit) {
	case SL_NEED_BATCH:
		return "batch_size";
	case SL_NEED_LENGTH:
		return "seq_len";
	case SL_NEED_PRECISION:
		return "dtype";
	case SL_NEED_ADAPTER:
		return "peft_method";
	case SL_NEED_PADDING:
		return "padding";
	case SL_NEED_BOUND:
		return "modules";
	case SL_NEED_QUANT:
		return "quant";
	case SL_NEED_SIZE:
		return "model";
	default:
		return "?";
	}
}

const char *sl_need_describe(struct sl_arena *a, unsigned mask, enum sl_mode mode)
{
	bool gen = mode == SL_MODE_GENERATE;
	struct sl_settings d;
	sl_settings_default(&d);
	const char *part[8]; /* bound: the needs below, at most one part each */
	size_t n = 0;
	if (mask & SL_NEED_BATCH)
		part[n++] = sl_arena_printf(a, "batch_size %llu%s", (unsigned long long)d.batch_size,
					    gen ? "" : " (HF Trainer's default)");
	if (mask & SL_NEED_LENGTH)
		part[n++] = sl_arena_printf(a, "seq_len %llu", (unsigned long long)d.seq_len);
	if (mask & SL_NEED_PRECISION)
		part[n++] = gen ? "16-bit weights (the checkpoint's dtype, as transformers >= 5 loads it)"
				: sl_arena_printf(a, "dtype %s without mixed precision", sl_dtype_name(d.dtype));
	if (mask & SL_NEED_ADAPTER)
		part[n++] = "peft_method lora with PEFT's LoraConfig defaults (r 8 on the query and value projections) "
			    "over the quantized base, as transformers' Trainer fine-tunes a quantized model only "
			    "through adapters";
	if (mask & SL_NEED_PADDING)
		part[n++] = "the length at its bound: with dynamic padding (padding longest) each batch is only as long as "
			    "its longest example, at most that length";
	if (mask & SL_NEED_BOUND)
		part[n++] = "an upper bound of a custom module's activations (its layers are counted, its forward is not "
			    "read)";
	if (mask & SL_NEED_QUANT)
		part[n++] = "no quantization, where the program picks one at run time from a table of BitsAndBytesConfigs";
	if (mask & SL_NEED_SIZE)
		part[n++] = "the model's size: its id names a family and no size (judged at each size; a run out of "
			    "memory at the smallest too is only at risk)";
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < n; i++) {
		if (i)
			sl_buf_adds(&b, i + 1 == n ? " and " : ", ");
		sl_buf_adds(&b, part[i]);
	}
	return n ? b.buf : "";
}

/* Whether some combination may quantize its base: a value sets quant, or a model id names it. */
static bool may_assume_adapter(const struct sl_eval *ev)
{
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		for (size_t j = 0; j < ax->n; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			if (ax->role == SL_ROLE_MODEL && v->ok && v->model && v->model->quant != SL_QUANT_NONE)
				return true;
			if (value_sets(v, SL_ROLE_QUANT))
				return true;
		}
	}
	return false;
}

/* Whether some combination may rest on a bound: a value sets dynamic padding, or a model is a custom module or a
 * family of sizes resolved by name. */
static bool may_bound(const struct sl_eval *ev)
{
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		for (size_t j = 0; j < ax->n; j++) {
			const struct sl_eval_value *v = &ax->values[j];
			if (ax->role == SL_ROLE_MODEL && v->ok && v->model && (v->model->arch.modules || v->model->nsizes > 1))
				return true;
			for (size_t k = 0; v->ok && k < v->nrv; k++)
				if (v->rv[k].role == SL_ROLE_PADDING && v->rv[k].u == 1)
					return true;
		}
	}
	return false;
}

/*
 * Weighted counts of the known combinations judged on stated settings and on
 * assumptions. When every axis states the same needs in all its values, but
 * for needs another axis states in all of its own (the usual case), the
 * mask is one for the whole sweep; otherwise each combination
 * is looked at, weighting it as the counts do when no axis is cut to its
 * bounds, and counting all as assumed when one is (precision before recall).
 */
void sl_eval_count_assumed(struct sl_arena *a, struct sl_eval *ev)
{
	struct sl_count known = {0};
	for (int vd = 0; vd < SL_VERDICT_UNKNOWN; vd++)
		known = sl_count_add(known, ev->n[vd]);
	bool uniform = true, bounds = false;
	/*
	 * always: the needs some axis states in every value. A combination's
	 * needs are the union over its values; they are the same for all when
	 * each axis varies only in needs another axis always states (a model
	 * that bounds the length beside a swept length).
	 */
	unsigned always = 0, stated = 0;
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		unsigned all = SL_NEED__AXES;
		bool any = false;
		for (size_t j = 0; j < ax->n; j++)
			if (ax->values[j].ok) {
				all &= value_needs(ax, &ax->values[j]);
				any = true;
			}
		always |= any ? all : 0;
	}
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		bounds |= ax->bounds;
		unsigned first = 0;
		bool have = false;
		for (size_t j = 0; j < ax->n; j++) {
			if (!ax->values[j].ok)
				continue;
			unsigned m = value_needs(ax, &ax->values[j]) & ~always;
			if (!have)
				first = m, have = true;
			else if (m != first)
				uniform = false;
		}
		stated |= first;
	}
	stated |= always;
	ev->stated = ev->assumed = (struct sl_count){0};
	if (uniform && !(SL_NEED__AXES & ~stated) && (may_assume_adapter(ev) || may_bound(ev) || ev->quant_open))
		uniform = false; /* stated but for the settings' own needs some combinations may assume: look at each */
	if (uniform) {
		*((SL_NEED__AXES & ~stated) ? &ev->assumed : &ev->stated) = known;
		return;
	}
	if (bounds || !ev->cells) {
		ev->assumed = known;
		return;
	}
	/* the needs and the verdict read no axis the training step does not read (walk.c) */
	uint64_t nstated = 0;
	struct sl_eval_walk w;
	sl_eval_walk_init(a, ev, sl_eval_unread_roles(ev, SL_MEASURE_STEP), &w);
	do {
		enum sl_verdict vd = sl_eval_verdict(ev, w.idx);
		if (vd != SL_VERDICT_UNKNOWN && sl_eval_assumed(ev, w.idx) == 0)
			nstated += w.weight;
	} while (sl_eval_walk_next(&w));
	ev->stated = nstated ? sl_count_mul(ev->others, (struct sl_count){.value = nstated}) : (struct sl_count){0};
	/* the rest of the known ones */
	struct sl_count rest = known;
	if (!rest.infinite && !rest.saturated && !ev->stated.infinite && !ev->stated.saturated &&
	    rest.value >= ev->stated.value)
		rest.value -= ev->stated.value;
	ev->assumed = rest;
}

static void describe_one(struct sl_buf *b, struct sl_arena *a, const char *what, const struct sl_setting_origin *o,
			 const char *dflt)
{
	if (b->len)
		sl_buf_adds(b, "; ");
	if (o->source == SL_SOURCE_DEFAULT) {
		sl_buf_adds(b, sl_arena_printf(a, "%s assumed (%s)", what, dflt));
		return;
	}
	const char *at = o->src ? sl_arena_printf(a, ", %s", sl_source_where(a, o->src, o->span)) : "";
	sl_buf_adds(b, sl_arena_printf(a, "%s from the %s (%s%s)", what, sl_setting_origin_name(o),
				       o->key ? o->key : "", at));
}

const char *sl_eval_origins_describe(struct sl_arena *a, const struct sl_eval *ev, const uint32_t *idx)
{
	struct sl_settings d;
	sl_settings_default(&d);
	struct sl_buf b;
	sl_buf_init(&b, a);
	struct sl_setting_origin o;
	sl_eval_origin(ev, idx, SL_ROLE_BATCH_SIZE, &o);
	describe_one(&b, a, "batch_size", &o, sl_arena_printf(a, "%llu", (unsigned long long)d.batch_size));
	sl_eval_origin(ev, idx, SL_ROLE_SEQ_LEN, &o);
	struct sl_settings vs;
	const struct sl_model *vm = NULL;
	if (o.source == SL_SOURCE_DEFAULT && sl_eval_settings(ev, idx, &vs, &vm) && vm &&
	    vm->arch.family == SL_FAMILY_VIT) {
		/* a ViT's length is its image's patches and the class token, not an assumption */
		struct sl_arch t = vm->arch;
		if (vs.image_size && t.vis_patch && vs.image_size >= t.vis_patch)
			t.vis_image = vs.image_size - vs.image_size % t.vis_patch;
		sl_buf_adds(&b, sl_arena_printf(a, "; %u tokens per %ux%u image in patches of %u", sl_arch_vit_tokens(&t),
						t.vis_image, t.vis_image, t.vis_patch));
	} else if (o.source == SL_SOURCE_DEFAULT) {
		/* a generating algorithm's prompt length states its sequence (value_needs) */
		struct sl_setting_origin pl;
		sl_eval_origin(ev, idx, SL_ROLE_PROMPT_LEN, &pl);
		if (pl.source != SL_SOURCE_DEFAULT) {
			sl_eval_origin(ev, idx, SL_ROLE_PROMPT_LEN, &o);
			describe_one(&b, a, "prompt_len", &o, "");
		} else {
			describe_one(&b, a, "seq_len", &o, sl_arena_printf(a, "%llu", (unsigned long long)d.seq_len));
		}
	} else {
		describe_one(&b, a, "seq_len", &o, sl_arena_printf(a, "%llu", (unsigned long long)d.seq_len));
	}
	/* precision: the last of dtype, amp and quant that is stated */
	static const enum sl_role prec[] = {SL_ROLE_DTYPE, SL_ROLE_AMP, SL_ROLE_QUANT};
	struct sl_setting_origin p = {.source = SL_SOURCE_DEFAULT};
	for (size_t i = 0; i < sizeof prec / sizeof prec[0]; i++) {
		sl_eval_origin(ev, idx, prec[i], &o);
		if (o.source != SL_SOURCE_DEFAULT)
			p = o;
	}
	describe_one(&b, a, "precision", &p, ev->mode == SL_MODE_GENERATE ? "16-bit weights, the checkpoint's dtype" : sl_arena_printf(a, "%s weights, no mixed precision", sl_dtype_name(d.dtype)));
	if (adapter_assumed(ev, idx)) {
		struct sl_setting_origin none = {.source = SL_SOURCE_DEFAULT};
		describe_one(&b, a, "adapter", &none, "PEFT's default LoRA over the quantized base");
	}
	if (ev->quant_open)
		sl_buf_adds(&b, sl_arena_printf(a, "; quantization not decided (%s)", ev->quant_open));
	return b.buf;
}

/*
 * Split the oom combinations into those at risk (their verdict rests on an assumed setting or an upper
 * bound: sl_eval_oom_assumed) and those sure, weighting as sl_eval_count_assumed does. With no
 * combination judged on an assumption, none is at risk; with axes cut to their bounds (or no cells)
 * and some combination on an assumption, every oom one is counted at risk (precision before recall).
 */
void sl_eval_count_at_risk(struct sl_arena *a, struct sl_eval *ev)
{
	struct sl_count oom = ev->n[SL_VERDICT_OOM];
	ev->at_risk = (struct sl_count){0};
	ev->oom_sure = oom;
	bool none = !oom.infinite && !oom.saturated && oom.value == 0;
	bool stated = !ev->assumed.infinite && !ev->assumed.saturated && ev->assumed.value == 0;
	if (none || (stated && !ev->program_guess))
		return;
	bool bounds = false;
	for (size_t i = 0; i < ev->naxes; i++)
		bounds |= ev->axes[i].bounds;
	if (bounds || !ev->cells) {
		ev->at_risk = oom;
		ev->oom_sure = (struct sl_count){0};
		return;
	}
	uint64_t nrisk = 0, nsure = 0;
	struct sl_eval_walk w;
	sl_eval_walk_init(a, ev, sl_eval_unread_roles(ev, SL_MEASURE_STEP), &w);
	do {
		if (sl_eval_verdict(ev, w.idx) != SL_VERDICT_OOM)
			continue;
		if (sl_eval_oom_assumed(ev, w.idx, 0, ev->capacity, NULL) || sl_eval_rests_on_guess(ev, w.idx, ev->capacity, NULL))
			nrisk += w.weight;
		else
			nsure += w.weight;
	} while (sl_eval_walk_next(&w));
	ev->at_risk = nrisk ? sl_count_mul(ev->others, (struct sl_count){.value = nrisk}) : (struct sl_count){0};
	ev->oom_sure = nsure ? sl_count_mul(ev->others, (struct sl_count){.value = nsure}) : (struct sl_count){0};
}
