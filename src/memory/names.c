/*
 * memory/names: names of the run-setting enums (for messages, JSON and
 * parsing) and the default settings. Family and task names live in arch.c.
 * Static tables only; nothing allocates.
 */
#include <string.h>
#include <strings.h>

#include "sweeplint/arena.h"
#include "peft_table.h"
#include "sweeplint/memory.h"

static const char *const dtype_names[SL_DTYPE__COUNT] = {
	[SL_DTYPE_FP32] = "fp32",
	[SL_DTYPE_BF16] = "bf16",
	[SL_DTYPE_FP16] = "fp16",
};

static const char *const amp_names[SL_AMP__COUNT] = {
	[SL_AMP_OFF] = "off",
	[SL_AMP_FP16] = "fp16",
	[SL_AMP_BF16] = "bf16",
};

static const char *const quant_names[SL_QUANT__COUNT] = {
	[SL_QUANT_NONE] = "none",
	[SL_QUANT_INT8] = "int8",
	[SL_QUANT_NF4] = "nf4",
	[SL_QUANT_GPTQ] = "gptq",
	[SL_QUANT_AWQ] = "awq",
};

static const char *const attn_names[SL_ATTN__COUNT] = {
	[SL_ATTN_DEFAULT] = "default",
	[SL_ATTN_EAGER] = "eager",
	[SL_ATTN_SDPA] = "sdpa",
	[SL_ATTN_FLASH] = "flash",
};

static const char *const offload_names[SL_OFFLOAD__COUNT] = {
	[SL_OFFLOAD_NONE] = "none",
	[SL_OFFLOAD_OPTIMIZER] = "optimizer",
	[SL_OFFLOAD_ALL] = "all",
};

static const char *const optim_names[SL_OPTIM__COUNT] = {
	[SL_OPTIM_ADAMW] = "adamw_torch",
	[SL_OPTIM_ADAMW_8BIT] = "adamw_bnb_8bit",
	[SL_OPTIM_ADAFACTOR] = "adafactor",
	[SL_OPTIM_SGD] = "sgd",
	[SL_OPTIM_SGD_MOMENTUM] = "sgd_momentum",
	[SL_OPTIM_LION] = "lion",
	[SL_OPTIM_LION_8BIT] = "lion_8bit",
	[SL_OPTIM_ADEMAMIX] = "ademamix",
	[SL_OPTIM_ADEMAMIX_8BIT] = "ademamix_8bit",
};

/*
 * HF TrainingArguments.optim values (OptimizerNames) and common spellings. paged: bitsandbytes' paged
 * optimizers (is_paged=True: transformers trainer.py passes is_paged when "paged" is in the name;
 * torchtune names the classes, bitsandbytes.optim.PagedAdamW8bit).
 */
static const struct {
	const char *name;
	enum sl_optim optim;
	bool paged;
} optim_aliases[] = {
	{"adamw_torch", SL_OPTIM_ADAMW, false},
	{"adamw_torch_fused", SL_OPTIM_ADAMW, false},
	{"adamw_torch_xla", SL_OPTIM_ADAMW, false},
	{"adamw_torch_npu_fused", SL_OPTIM_ADAMW, false},
	{"adamw_apex_fused", SL_OPTIM_ADAMW, false},
	{"fusedadam", SL_OPTIM_ADAMW, false},
	{"adamw_hf", SL_OPTIM_ADAMW, false},
	{"adamw", SL_OPTIM_ADAMW, false},
	{"adam", SL_OPTIM_ADAMW, false},
	{"adamw_anyprecision", SL_OPTIM_ADAMW, false},
	{"adamw_torch_4bit", SL_OPTIM_ADAMW_8BIT, false},
	{"adamw_torch_8bit", SL_OPTIM_ADAMW_8BIT, false},
	{"adamw_bnb_8bit", SL_OPTIM_ADAMW_8BIT, false},
	{"adamw_8bit", SL_OPTIM_ADAMW_8BIT, false},
	{"adam8bit", SL_OPTIM_ADAMW_8BIT, false},
	{"adamw8bit", SL_OPTIM_ADAMW_8BIT, false},
	{"paged_adamw_8bit", SL_OPTIM_ADAMW_8BIT, true},
	{"paged_adam_8bit", SL_OPTIM_ADAMW_8BIT, true},
	{"pagedadamw8bit", SL_OPTIM_ADAMW_8BIT, true},
	{"pagedadam8bit", SL_OPTIM_ADAMW_8BIT, true},
	{"ademamix_8bit", SL_OPTIM_ADEMAMIX_8BIT, false},
	{"paged_ademamix_8bit", SL_OPTIM_ADEMAMIX_8BIT, true},
	{"paged_adamw_32bit", SL_OPTIM_ADAMW, true},
	{"paged_adamw", SL_OPTIM_ADAMW, true},
	{"pagedadamw", SL_OPTIM_ADAMW, true},
	{"pagedadamw32bit", SL_OPTIM_ADAMW, true},
	{"paged_ademamix_32bit", SL_OPTIM_ADEMAMIX, true},
	{"ademamix", SL_OPTIM_ADEMAMIX, false},
	{"ademamix_32bit", SL_OPTIM_ADEMAMIX, false},
	{"adafactor", SL_OPTIM_ADAFACTOR, false},
	{"sgd", SL_OPTIM_SGD, false},
	{"sgd_momentum", SL_OPTIM_SGD_MOMENTUM, false},
	{"lion", SL_OPTIM_LION, false},
	{"lion_32bit", SL_OPTIM_LION, false},
	{"paged_lion_32bit", SL_OPTIM_LION, true},
	{"pagedlion", SL_OPTIM_LION, true},
	{"pagedlion32bit", SL_OPTIM_LION, true},
	{"lion_8bit", SL_OPTIM_LION_8BIT, false},
	{"paged_lion_8bit", SL_OPTIM_LION_8BIT, true},
	{"pagedlion8bit", SL_OPTIM_LION_8BIT, true},
	{"adagrad", SL_OPTIM_SGD_MOMENTUM, false},
	{"rmsprop", SL_OPTIM_SGD_MOMENTUM, false},
};

/*
 * The names that say how the step runs (else foreach): torch.optim.AdamW(fused=True) (transformers
 * OptimizerNames.ADAMW_TORCH_FUSED), the NPU one, apex FusedAdam, DeepSpeed's FusedAdam (deepspeed.ops.adam)
 * update in place; transformers' own AdamW (transformers.optimization.AdamW, "adamw_hf") loops over the
 * parameters.
 */
static const struct {
	const char *name;
	enum sl_optim_impl impl;
} optim_impl_of[] = {
	{"adamw_torch_fused", SL_OPTIM_IMPL_FUSED},
	{"adamw_torch_npu_fused", SL_OPTIM_IMPL_FUSED},
	{"adamw_apex_fused", SL_OPTIM_IMPL_FUSED},
	{"fusedadam", SL_OPTIM_IMPL_FUSED},
	{"adamw_hf", SL_OPTIM_IMPL_LOOP},
};

const char *sl_dtype_name(enum sl_dtype d)
{
	return (unsigned)d < SL_DTYPE__COUNT ? dtype_names[d] : "?";
}

const char *sl_amp_name(enum sl_amp a)
{
	return (unsigned)a < SL_AMP__COUNT ? amp_names[a] : "?";
}

const char *sl_optim_name(enum sl_optim o)
{
	return (unsigned)o < SL_OPTIM__COUNT ? optim_names[o] : "?";
}

const char *sl_settings_optim_name(struct sl_arena *a, const struct sl_settings *s)
{
	const char *n = sl_optim_name(s->optimizer);
	if (s->optimizer_impl == SL_OPTIM_IMPL_FUSED && s->optimizer == SL_OPTIM_ADAMW)
		n = "adamw_torch_fused";
	else if (s->optimizer_impl == SL_OPTIM_IMPL_FUSED || s->optimizer_impl == SL_OPTIM_IMPL_LOOP)
		n = sl_arena_printf(a, "%s (%s)", n, sl_optim_impl_name((enum sl_optim_impl)s->optimizer_impl));
	return s->optimizer_paged ? sl_arena_printf(a, "paged %s", n) : n;
}

const char *sl_attn_name(enum sl_attn a)
{
	return (unsigned)a < SL_ATTN__COUNT ? attn_names[a] : "?";
}

const char *sl_quant_name(enum sl_quant q)
{
	return (unsigned)q < SL_QUANT__COUNT ? quant_names[q] : "?";
}

const char *sl_offload_name(enum sl_offload o)
{
	return (unsigned)o < SL_OFFLOAD__COUNT ? offload_names[o] : "?";
}

const char *sl_fsdp_name(enum sl_fsdp f)
{
	static const char *const names[SL_FSDP__COUNT] = {
		[SL_FSDP_NONE] = "none",
		[SL_FSDP_FULL_SHARD] = "full_shard",
		[SL_FSDP_SHARD_GRAD_OP] = "shard_grad_op",
		[SL_FSDP_HYBRID_SHARD] = "hybrid_shard",
		[SL_FSDP_HYBRID_SHARD_ZERO2] = "hybrid_shard_zero2",
		[SL_FSDP_NO_SHARD] = "no_shard",
	};
	return (unsigned)f < SL_FSDP__COUNT ? names[f] : "?";
}

const char *sl_fsdp_init_name(enum sl_fsdp_init i)
{
	static const char *const names[SL_FSDP_INIT__COUNT] = {
		[SL_FSDP_INIT_PER_UNIT] = "per_unit",
		[SL_FSDP_INIT_DEVICE] = "device",
		[SL_FSDP_INIT_RANK0] = "rank0",
	};
	return (unsigned)i < SL_FSDP_INIT__COUNT ? names[i] : "?";
}

const char *sl_fsdp_sd_name(enum sl_fsdp_sd d)
{
	static const char *const names[SL_FSDP_SD__COUNT] = {
		[SL_FSDP_SD_NONE] = "none",
		[SL_FSDP_SD_FULL] = "full",
		[SL_FSDP_SD_SHARDED] = "sharded",
		[SL_FSDP_SD_LOCAL] = "local",
		[SL_FSDP_SD_FULL_DEVICE] = "full_device",
	};
	return (unsigned)d < SL_FSDP_SD__COUNT ? names[d] : "?";
}

static const char *const peft_names[SL_PEFT__COUNT] = {
	[SL_PEFT_NONE] = "none", [SL_PEFT_LORA] = "lora", [SL_PEFT_DORA] = "dora", [SL_PEFT_LOHA] = "loha",
	[SL_PEFT_VERA] = "vera", [SL_PEFT_IA3] = "ia3", [SL_PEFT_OFT] = "oft", [SL_PEFT_BOFT] = "boft",
	[SL_PEFT_PROMPT_TUNING] = "prompt_tuning", [SL_PEFT_P_TUNING] = "p_tuning",
	[SL_PEFT_PREFIX_TUNING] = "prefix_tuning", [SL_PEFT_ADAPTION_PROMPT] = "adaption_prompt",
	[SL_PEFT_LN_TUNING] = "ln_tuning", [SL_PEFT_TRAINABLE_TOKENS] = "trainable_tokens",
};

const char *sl_peft_name(enum sl_peft m)
{
	const struct sl_peft_def *d = sl_peft_def_of(m);
	if (d)
		return d->name;
	return (unsigned)m < SL_PEFT__COUNT ? peft_names[m] : "?";
}

int sl_peft_parse(const char *s)
{
	for (int i = 0; i < SL_PEFT__COUNT; i++)
		if (strcasecmp(s, peft_names[i]) == 0)
			return i;
	/* the methods of rules/peft.yaml, by name or another spelling */
	for (unsigned i = 0; i < sl_peft_table_n; i++) {
		const struct sl_peft_def *d = &sl_peft_table[i];
		bool hit = strcasecmp(s, d->name) == 0;
		for (const char *const *sp = d->spellings; !hit && sp && *sp; sp++)
			hit = strcasecmp(s, *sp) == 0;
		if (hit)
			return SL_PEFT_TABLE + (int)i;
	}
	/* PEFT's spellings that differ: PROMPT_TUNING etc. match above; qlora is LoRA on a k-bit base */
	if (strcasecmp(s, "qlora") == 0)
		return SL_PEFT_LORA;
	/* LLaMA-Factory finetuning_type / ms-swift sft_type "full": every weight trains, no adapter */
	if (strcasecmp(s, "full") == 0)
		return SL_PEFT_NONE;
	if (strcasecmp(s, "lora-dora") == 0 || strcasecmp(s, "lora_dora") == 0)
		return SL_PEFT_DORA;
	if (strcasecmp(s, "ptuning") == 0 || strcasecmp(s, "p-tuning") == 0)
		return SL_PEFT_P_TUNING;
	if (strcasecmp(s, "prefixtuning") == 0 || strcasecmp(s, "prefix-tuning") == 0)
		return SL_PEFT_PREFIX_TUNING;
	if (strcasecmp(s, "prompt-tuning") == 0 || strcasecmp(s, "prompttuning") == 0)
		return SL_PEFT_PROMPT_TUNING;
	if (strcasecmp(s, "adaptionprompt") == 0 || strcasecmp(s, "llama-adapter") == 0)
		return SL_PEFT_ADAPTION_PROMPT;
	return -1;
}

const char *sl_mode_name(enum sl_mode m)
{
	static const char *const names[SL_MODE__COUNT] = {"train", "eval", "generate"};
	return (unsigned)m < SL_MODE__COUNT ? names[m] : "?";
}

int sl_mode_parse(const char *s)
{
	static const struct {
		const char *name;
		enum sl_mode mode;
	} aliases[] = {
		{"train", SL_MODE_TRAIN},       {"training", SL_MODE_TRAIN},       {"finetune", SL_MODE_TRAIN},
		{"fine-tune", SL_MODE_TRAIN},   {"sft", SL_MODE_TRAIN},            {"pretrain", SL_MODE_TRAIN},
		{"eval", SL_MODE_EVAL},         {"evaluate", SL_MODE_EVAL},        {"evaluation", SL_MODE_EVAL},
		{"predict", SL_MODE_EVAL},      {"test", SL_MODE_EVAL},            {"generate", SL_MODE_GENERATE},
		{"generation", SL_MODE_GENERATE}, {"decode", SL_MODE_GENERATE},    {"decoding", SL_MODE_GENERATE},
		{"inference", SL_MODE_GENERATE}, {"sample", SL_MODE_GENERATE},     {"sampling", SL_MODE_GENERATE},
	};
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcasecmp(s, aliases[i].name) == 0)
			return (int)aliases[i].mode;
	return -1;
}

int sl_optim_parse(const char *s)
{
	/* a class path names the class (torchtune's and hydra's _component_ / _target_):
	 * bitsandbytes.optim.PagedAdamW8bit, torch.optim.AdamW, deepspeed.ops.adam.FusedAdam;
	 * transformers.AdamW (transformers.optimization.AdamW) is its own per-parameter loop */
	static const char *const torch_classes[] = {"AdamW", "Adam", "SGD", "Adagrad", "RMSprop", NULL};
	static const char *const fused_adam[] = {"FusedAdam", NULL};
	static const struct {
		const char *module;
		const char *const *classes; /* the classes of it read (NULL: any name of the table) */
	} modules[] = {
		{"bitsandbytes.", NULL},
		{"bnb.", NULL},
		{"torch.optim.", torch_classes},
		{"deepspeed.ops.", fused_adam},
		{"apex.optimizers.", fused_adam},
	};
	const char *dot = strrchr(s, '.');
	if (dot && dot[1] && (strcasecmp(s, "transformers.AdamW") == 0 ||
			      strcasecmp(s, "transformers.optimization.AdamW") == 0))
		s = "adamw_hf";
	for (size_t i = 0; dot && dot[1] && i < sizeof modules / sizeof modules[0]; i++) {
		if (strncasecmp(s, modules[i].module, strlen(modules[i].module)) != 0)
			continue;
		const char *const *c = modules[i].classes;
		while (c && *c && strcasecmp(*c, dot + 1) != 0)
			c++;
		if (c && !*c)
			return -1; /* another class of that module (torch.optim.Adamax): not one sweeplint sizes */
		s = dot + 1;
		break;
	}
	int impl = 0;
	for (size_t i = 0; i < sizeof optim_impl_of / sizeof optim_impl_of[0]; i++)
		if (strcasecmp(s, optim_impl_of[i].name) == 0)
			impl = optim_impl_of[i].impl == SL_OPTIM_IMPL_FUSED ? SL_OPTIM_FUSED : SL_OPTIM_LOOP;
	for (size_t i = 0; i < sizeof optim_aliases / sizeof optim_aliases[0]; i++)
		if (strcasecmp(s, optim_aliases[i].name) == 0)
			return (int)optim_aliases[i].optim | (optim_aliases[i].paged ? SL_OPTIM_PAGED : 0) | impl;
	return -1;
}

static const char *const optim_impl_names[SL_OPTIM_IMPL__COUNT] = {
	[SL_OPTIM_IMPL_FOREACH] = "foreach",
	[SL_OPTIM_IMPL_FUSED] = "fused",
	[SL_OPTIM_IMPL_LOOP] = "for_loop",
};

const char *sl_optim_impl_name(enum sl_optim_impl i)
{
	return (unsigned)i < SL_OPTIM_IMPL__COUNT ? optim_impl_names[i] : "?";
}

int sl_optim_impl_parse(const char *s)
{
	for (int i = 0; i < SL_OPTIM_IMPL__COUNT; i++)
		if (strcasecmp(s, optim_impl_names[i]) == 0)
			return i;
	/* torch's words for the loop: _single_tensor_adamw, "for-loop" in its docs */
	if (strcasecmp(s, "single_tensor") == 0 || strcasecmp(s, "for-loop") == 0 || strcasecmp(s, "loop") == 0)
		return SL_OPTIM_IMPL_LOOP;
	return -1;
}

void sl_settings_default(struct sl_settings *s)
{
	memset(s, 0, sizeof *s);
	s->task = SL_TASK_SEQ_CLS;
	s->batch_size = 8;
	s->grad_accum = 1;
	s->seq_len = 512;
	s->dtype = SL_DTYPE_FP32;
	s->amp = SL_AMP_OFF;
	s->optimizer = SL_OPTIM_ADAMW;
	s->quant = SL_QUANT_NONE;
	s->attn = SL_ATTN_DEFAULT;
	s->offload = SL_OFFLOAD_NONE;
	s->num_gpus = 1;
}

uint32_t sl_settings_texts(const struct sl_settings *s)
{
	if (s->texts_per_example)
		return s->texts_per_example;
	return s->loss == SL_LOSS_TRIPLET ? 3 : 2;
}

void sl_settings_workload_dtype(struct sl_settings *s, bool prec_stated, bool gpu_bf16)
{
	/* transformers >= 5 from_pretrained loads dtype="auto" (the checkpoint's dtype; decoder checkpoints
	 * are 16-bit), and vLLM's dtype "auto" runs fp32 checkpoints in fp16, bf16 ones in bf16 */
	if (s->mode == SL_MODE_GENERATE && !prec_stated)
		s->dtype = gpu_bf16 ? SL_DTYPE_BF16 : SL_DTYPE_FP16;
}

bool sl_settings_vllm(const struct sl_settings *s)
{
	return s->mode == SL_MODE_GENERATE && (s->engine == SL_ENGINE_VLLM || s->gpu_mem_util_bp > 0);
}

const char *sl_part_name(enum sl_part p)
{
	static const char *const names[SL_PART__COUNT] = {"full", "base", "encoder"};
	return (unsigned)p < SL_PART__COUNT ? names[p] : "?";
}

int sl_part_parse(const char *s)
{
	static const struct {
		const char *name;
		enum sl_part part;
	} names[] = {
		{"full", SL_PART_FULL},       {"task", SL_PART_FULL},       {"base", SL_PART_BASE},
		{"automodel", SL_PART_BASE},  {"base_model", SL_PART_BASE}, {"backbone", SL_PART_BASE},
		{"encoder", SL_PART_ENCODER}, {"encoder_only", SL_PART_ENCODER},
		{"t5encodermodel", SL_PART_ENCODER}, {"umt5encodermodel", SL_PART_ENCODER},
		{"mt5encodermodel", SL_PART_ENCODER}, {"get_encoder", SL_PART_ENCODER},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(s, names[i].name) == 0)
			return (int)names[i].part;
	return -1;
}

const char *sl_loss_name(enum sl_loss l)
{
	static const char *const names[SL_LOSS__COUNT] = {"none", "in-batch", "cached in-batch", "pair", "triplet"};
	return (unsigned)l < SL_LOSS__COUNT ? names[l] : "?";
}

int sl_loss_parse(const char *s)
{
	/* sentence-transformers loss classes (sentence_transformers/losses/), with or without "losses." */
	const char *dot = strrchr(s, '.');
	if (dot && dot[1])
		s = dot + 1;
	static const struct {
		const char *name;
		enum sl_loss loss;
	} names[] = {
		{"none", SL_LOSS_NONE},
		{"in-batch", SL_LOSS_IN_BATCH},
		{"MultipleNegativesRankingLoss", SL_LOSS_IN_BATCH},
		{"MultipleNegativesSymmetricRankingLoss", SL_LOSS_IN_BATCH},
		{"GISTEmbedLoss", SL_LOSS_IN_BATCH},
		{"MegaBatchMarginLoss", SL_LOSS_IN_BATCH},
		{"cached in-batch", SL_LOSS_CACHED},
		{"cached", SL_LOSS_CACHED},
		{"CachedMultipleNegativesRankingLoss", SL_LOSS_CACHED},
		{"CachedMultipleNegativesSymmetricRankingLoss", SL_LOSS_CACHED},
		{"CachedGISTEmbedLoss", SL_LOSS_CACHED},
		{"pair", SL_LOSS_PAIR},
		{"CosineSimilarityLoss", SL_LOSS_PAIR},
		{"ContrastiveLoss", SL_LOSS_PAIR},
		{"OnlineContrastiveLoss", SL_LOSS_PAIR},
		{"CoSENTLoss", SL_LOSS_PAIR},
		{"AnglELoss", SL_LOSS_PAIR},
		{"SoftmaxLoss", SL_LOSS_PAIR},
		{"triplet", SL_LOSS_TRIPLET},
		{"TripletLoss", SL_LOSS_TRIPLET},
		{"MarginMSELoss", SL_LOSS_TRIPLET},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(s, names[i].name) == 0)
			return (int)names[i].loss;
	return -1;
}

const char *sl_engine_name(enum sl_engine e)
{
	static const char *const names[SL_ENGINE__COUNT] = {"hf", "vllm"};
	return (unsigned)e < SL_ENGINE__COUNT ? names[e] : "?";
}

int sl_engine_parse(const char *s)
{
	if (strcasecmp(s, "hf") == 0 || strcasecmp(s, "transformers") == 0 || strcasecmp(s, "huggingface") == 0 ||
	    strcasecmp(s, "generate") == 0)
		return SL_ENGINE_HF;
	if (strcasecmp(s, "vllm") == 0 || strcasecmp(s, "LLM") == 0)
		return SL_ENGINE_VLLM;
	return -1;
}

bool sl_settings_assume_adapter(struct sl_settings *s, bool peft_stated, bool gc_stated)
{
	if (peft_stated || s->mode != SL_MODE_TRAIN || s->quant == SL_QUANT_NONE || s->peft_method != SL_PEFT_NONE ||
	    s->lora_r)
		return false;
	s->peft_method = SL_PEFT_LORA; /* the rank 0 stands for PEFT's default */
	if (!gc_stated)
		s->gradient_checkpointing = true; /* prepare_model_for_kbit_training's default */
	return true;
}

void sl_settings_describe(struct sl_buf *b, const struct sl_settings *s)
{
	sl_buf_addf(b, ", batch %llu × %llu", (unsigned long long)s->batch_size, (unsigned long long)s->seq_len);
	if (s->target_len)
		sl_buf_addf(b, "→%llu", (unsigned long long)s->target_len);
	sl_buf_addf(b, ", %s", sl_dtype_name(s->dtype));
	if (s->upcast_trainable && s->dtype != SL_DTYPE_FP32 && s->mode == SL_MODE_TRAIN)
		sl_buf_adds(b, " (trainable fp32)");
	if (s->amp != SL_AMP_OFF)
		sl_buf_addf(b, " + amp %s", sl_amp_name(s->amp));
	if (s->gradient_checkpointing)
		sl_buf_adds(b, ", gradient checkpointing");
	if (s->mode == SL_MODE_TRAIN) /* an inference workload has no optimizer */
		sl_buf_addf(b, ", %s", sl_settings_optim_name(b->arena, s));
	if (s->peft_method > SL_PEFT_LORA)
		sl_buf_addf(b, ", %s", sl_peft_name(s->peft_method));
	if (s->lora_r && s->peft_method <= SL_PEFT_DORA)
		sl_buf_addf(b, ", lora r%u", s->lora_r);
	else if (s->lora_r && s->peft_method <= SL_PEFT_BOFT && s->peft_method != SL_PEFT_IA3)
		sl_buf_addf(b, " r%u", s->lora_r);
	else if (s->lora_r && sl_peft_def_of(s->peft_method) && sl_peft_def_of(s->peft_method)->rank_key)
		sl_buf_addf(b, " %s %u", sl_peft_def_of(s->peft_method)->rank_key, s->lora_r);
	if (s->lora_dropout_bp && s->peft_method <= SL_PEFT_DORA && (s->lora_r || s->peft_method != SL_PEFT_NONE))
		sl_buf_addf(b, ", lora dropout %g", s->lora_dropout_bp / 10000.0);
	if (s->num_virtual_tokens && s->peft_method >= SL_PEFT_PROMPT_TUNING && s->peft_method != SL_PEFT_LN_TUNING &&
	    s->peft_method < SL_PEFT__COUNT)
		sl_buf_addf(b, " (%u tokens)", s->num_virtual_tokens);
	if (s->quant != SL_QUANT_NONE)
		sl_buf_addf(b, ", %s base%s", sl_quant_name(s->quant),
			    s->kbit_prepare_off && s->quant != SL_QUANT_GPTQ ? " (not kbit-prepared)" : "");
	if (s->attn != SL_ATTN_DEFAULT)
		sl_buf_addf(b, ", attn %s", sl_attn_name(s->attn));
	if (s->fsdp != SL_FSDP_NONE) {
		sl_buf_addf(b, ", fsdp %s%s%s", sl_fsdp_name(s->fsdp), s->fsdp_offload ? " + offload" : "",
			    s->fsdp_no_wrap ? " (unwrapped)" : "");
		if (s->fsdp_orig_params)
			sl_buf_adds(b, " use_orig_params");
		if (s->fsdp_init == SL_FSDP_INIT_DEVICE)
			sl_buf_adds(b, ", loaded on the GPU");
		if (s->fsdp_state_dict != SL_FSDP_SD_NONE)
			sl_buf_addf(b, ", %s state dict", sl_fsdp_sd_name(s->fsdp_state_dict));
	} else if (s->zero_stage)
		sl_buf_addf(b, ", zero-%u", s->zero_stage);
	if (s->offload != SL_OFFLOAD_NONE)
		sl_buf_addf(b, ", offload %s", sl_offload_name(s->offload));
	if (s->torch_compile)
		sl_buf_adds(b, ", torch.compile");
	if (s->liger)
		sl_buf_adds(b, ", liger");
	if (s->chunked_ce)
		sl_buf_adds(b, ", chunked CE");
	if (s->optimizer_in_backward)
		sl_buf_adds(b, ", optimizer in backward");
	if (s->activation_offload)
		sl_buf_adds(b, ", activation offload");
	if (s->num_gpus > 1)
		sl_buf_addf(b, ", %u GPUs", s->num_gpus);
	if (s->mode != SL_MODE_TRAIN)
		sl_buf_addf(b, ", mode %s", sl_mode_name(s->mode));
	if (s->mode == SL_MODE_GENERATE && !sl_settings_vllm(s)) {
		sl_buf_addf(b, ", %u beam%s, ", s->num_beams ? s->num_beams : 1, s->num_beams > 1 ? "s" : "");
		if (s->max_new_tokens)
			sl_buf_addf(b, "%llu new tokens", (unsigned long long)s->max_new_tokens);
		else
			sl_buf_adds(b, "new tokens up to GenerationConfig's max_length");
	}
	if (s->gpu_mem_util_bp)
		sl_buf_addf(b, ", gpu_memory_utilization %.2f", s->gpu_mem_util_bp / 10000.0);
	if (sl_settings_vllm(s)) {
		sl_buf_adds(b, ", vLLM");
		if (s->max_model_len)
			sl_buf_addf(b, " max_model_len %llu", (unsigned long long)s->max_model_len);
		if (s->tensor_parallel > 1)
			sl_buf_addf(b, " tensor_parallel_size %u", s->tensor_parallel);
	}
	if (s->part != SL_PART_FULL)
		sl_buf_addf(b, ", part %s", sl_part_name(s->part));
	if (s->frozen_layers == SL_FROZEN_BACKBONE)
		sl_buf_adds(b, ", backbone frozen");
	else if (s->frozen_layers)
		sl_buf_addf(b, ", %u layer%s frozen", s->frozen_layers, s->frozen_layers == 1 ? "" : "s");
	else if (s->frozen_embeddings)
		sl_buf_adds(b, ", embeddings frozen");
	if (s->freeze_tuning && s->mode == SL_MODE_TRAIN) {
		/* ", freeze: the last 2 layers train", "... (mlp, attention) + lm_head" */
		int64_t k = s->trainable_layers ? s->trainable_layers : SL_FREEZE_DEFAULT_LAYERS;
		long long n = (long long)(k > 0 ? k : -k);
		sl_buf_addf(b, ", freeze: the %s %lld layer%s", k > 0 ? "last" : "first", n, n == 1 ? " trains" : "s train");
		static const char *const mods[] = {"attention", "mlp", "norms", "other modules"};
		static const char *const extra[] = {"embeddings", "lm_head", "norm"};
		const char *sep = " (";
		for (unsigned i = 0; i < 4; i++)
			if (s->trainable_modules & (1u << i)) {
				sl_buf_addf(b, "%s%s", sep, mods[i]);
				sep = ", ";
			}
		if (s->trainable_modules)
			sl_buf_adds(b, ")");
		for (unsigned i = 0; i < 3; i++)
			if (s->freeze_extra & (1u << i))
				sl_buf_addf(b, " + %s", extra[i]);
	}
	if (s->head_params)
		sl_buf_addf(b, ", head %llu params", (unsigned long long)s->head_params);
	if (s->task == SL_TASK_BI_ENCODER) {
		sl_buf_addf(b, ", %u texts per example", sl_settings_texts(s));
		if (s->query_len)
			sl_buf_addf(b, " (query %llu)", (unsigned long long)s->query_len);
		if (s->chunks_per_text > 1)
			sl_buf_addf(b, ", %u chunks per passage", s->chunks_per_text);
		if (s->separate_encoders)
			sl_buf_adds(b, ", separate encoders");
		if (s->loss != SL_LOSS_NONE)
			sl_buf_addf(b, ", %s loss", sl_loss_name(s->loss));
	}
	if (s->dynamic_padding && !s->packing)
		sl_buf_adds(b, ", dynamic padding (length a bound)");
	sl_rl_describe(b, s);
}
