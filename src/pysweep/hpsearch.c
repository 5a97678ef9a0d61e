/*
 * hpsearch: which sweep parameters Trainer.hyperparameter_search(backend="wandb") applies. transformers'
 * Trainer._hp_search_setup sets each key of the W&B run's config that is an attribute of trainer.args and
 * drops the others with a warning ("Trying to set {key} in the hyperparameter search but there is no
 * corresponding field in `TrainingArguments`"; huggingface/transformers src/transformers/trainer.py,
 * `_hp_search_setup`, the WANDB branch); model_init(trial) may read the rest from the trial itself.
 *
 * The fields below are those of TrainingArguments a memory role reads (rules/keys.yaml) — the batch
 * sizes, accumulation, precision, checkpointing, optimizer, compilation, sharding and data loading
 * fields of src/transformers/training_args.py (transformers@23b23540) — and Seq2SeqTrainingArguments'
 * generation fields (training_args_seq2seq.py). A parameter with a memory role whose name is not among
 * them is dropped by transformers: sweeplint drops it too. Another arguments class (TRL's SFTConfig,
 * a subclass of the project's) has fields sweeplint does not know: nothing is dropped then.
 */
#include "sweeplint/pysweep.h"

#include <string.h>

static const char *const TRAINING_ARGUMENTS[] = {
	"per_device_train_batch_size", "per_device_eval_batch_size", "per_gpu_train_batch_size",
	"per_gpu_eval_batch_size", "gradient_accumulation_steps", "eval_accumulation_steps", "auto_find_batch_size",
	"fp16", "bf16", "fp16_full_eval", "bf16_full_eval", "tf32", "half_precision_backend", "fp16_opt_level",
	"gradient_checkpointing", "gradient_checkpointing_kwargs", "optim", "optim_args", "optim_target_modules",
	"adafactor", "deepspeed", "fsdp", "fsdp_config", "fsdp_min_num_params", "fsdp_transformer_layer_cls_to_wrap",
	"torch_compile", "torch_compile_backend", "torch_compile_mode", "use_liger_kernel", "liger_kernel_config",
	"dataloader_num_workers", "dataloader_pin_memory", "dataloader_prefetch_factor", "dataloader_persistent_workers",
	"group_by_length", "use_cpu", "no_cuda", "n_gpu", "local_rank", "ddp_find_unused_parameters",
	"learning_rate", "weight_decay", "adam_beta1", "adam_beta2", "adam_epsilon", "max_grad_norm",
	"num_train_epochs", "max_steps", "lr_scheduler_type", "warmup_ratio", "warmup_steps", "seed", "data_seed",
	"label_smoothing_factor", "eval_steps", "save_steps", "logging_steps", "eval_strategy", "save_strategy",
};

static const char *const SEQ2SEQ[] = {
	"sortish_sampler", "predict_with_generate", "generation_max_length", "generation_num_beams",
	"generation_config",
};

static bool in(const char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return true;
	return false;
}

int sl_hp_search_field(const char *args_class, const char *name)
{
	if (!args_class)
		return -1;
	bool seq2seq = strcmp(args_class, "Seq2SeqTrainingArguments") == 0;
	if (!seq2seq && strcmp(args_class, "TrainingArguments") != 0)
		return -1;
	if (in(TRAINING_ARGUMENTS, sizeof TRAINING_ARGUMENTS / sizeof TRAINING_ARGUMENTS[0], name))
		return 1;
	return seq2seq && in(SEQ2SEQ, sizeof SEQ2SEQ / sizeof SEQ2SEQ[0], name);
}
