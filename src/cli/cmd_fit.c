/*
 * cmd_fit: `sweeplint fit [OPTIONS] model=M [ROLE=VALUE...]` — for the GPU,
 * the largest batch that fits at each sequence length (128, 256, … up to the
 * model's maximum, which is listed too), with and without gradient
 * checkpointing: a table, coloured as a heatmap on a terminal (--color,
 * NO_COLOR), or -f json. Memory is monotone in the batch, so each cell is a
 * binary search.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "estimate.h"
#include "opts.h"
#include "sweeplint/json_out.h"
#include "sweeplint/arena.h"
#include "sweeplint/roles.h"
#include "sweeplint/run.h"

#define MAX_BATCH (1u << 20)
#define MAX_COLS 24

static const struct sl_cmd_spec spec = {
	.name = "fit",
	.usage = "[OPTIONS] model=M [ROLE=VALUE...]",
	.summary = "Largest batch that fits per sequence length, with and without gradient checkpointing.",
	.common = SL_OPTS_OUTPUT | SL_OPTS_MODEL,
};

/* The longest sequence the model takes; rotary: max_position_embeddings; relative (T5): 1024. */
static uint64_t max_len(const struct sl_model *m)
{
	uint64_t n = sl_arch_max_seq_len(&m->arch);
	if (n == 0)
		n = m->arch.max_pos;
	if (n == 0)
		n = 1024;
	return n;
}

/*
 * The largest batch the trainer accepts that fits: a multiple of q (GRPO and RLOO batch completions
 * in whole groups of num_generations: sl_rl_shape's batch_quantum; 1 otherwise).
 */
static uint64_t largest_batch(const struct sl_mem_args *m, struct sl_settings s, uint64_t cap, uint64_t q)
{
	struct sl_breakdown b;
	uint64_t lo = 0, hi = MAX_BATCH / q;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;
		s.batch_size = mid * q;
		sl_estimate(&m->model->arch, &s, m->gpu, &m->cat->calib, &b);
		if (b.total <= cap)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo * q;
}

/* Heatmap colour of a cell: red (none fits) through yellow to green (>= 64). */
static const char *shade(uint64_t batch)
{
	if (batch == 0)
		return "\033[97;41m";
	if (batch < 4)
		return "\033[30;48;5;208m";
	if (batch < 16)
		return "\033[30;43m";
	if (batch < 64)
		return "\033[30;48;5;148m";
	return "\033[30;42m";
}

int cmd_fit(struct sl_cli *cli, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	int first = 0;
	int rc = sl_opts_parse(cli, &spec, run, argc, argv, &first);
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	struct sl_mem_args m;
	if (sl_mem_args_parse(cli, run, argc, argv, first, &m) != 0) {
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	/* a -c config's batch size, length and checkpointing are what fit searches: they stand aside */
	bool given[3] = {m.has[SL_ROLE_BATCH_SIZE] && !m.config_only[SL_ROLE_BATCH_SIZE],
			 m.has[SL_ROLE_SEQ_LEN] && !m.config_only[SL_ROLE_SEQ_LEN],
			 m.has[SL_ROLE_GRADIENT_CHECKPOINTING] && !m.config_only[SL_ROLE_GRADIENT_CHECKPOINTING]};
	if (given[0] || given[1] || given[2]) {
		sl_opts_error(cli, "fit searches batch_size, seq_len and gradient_checkpointing itself: drop them");
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}

	uint64_t lens[MAX_COLS], fit[2][MAX_COLS];
	size_t n = 0;
	uint64_t top = max_len(m.model);
	for (uint64_t l = 128; l < top && n < MAX_COLS - 1; l *= 2)
		lens[n++] = l;
	lens[n++] = top;
	uint64_t cap = m.gpu->bytes;
	struct sl_rl_shape sh;
	sl_rl_shape(&m.model->arch, &m.s, &sh);
	uint64_t quantum = sh.batch_quantum ? sh.batch_quantum : 1;
	for (size_t i = 0; i < n; i++)
		for (int gc = 0; gc < 2; gc++) {
			struct sl_settings s = m.s;
			s.seq_len = lens[i];
			s.gradient_checkpointing = gc;
			fit[gc][i] = largest_batch(&m, s, cap, quantum);
		}

	FILE *o = cli->out;
	if (run->opt.format == SL_FORMAT_JSON) {
		json_t *rows = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(rows, json_pack("{s:I,s:I,s:I}", "seq_len", (json_int_t)lens[i], "max_batch",
							      (json_int_t)fit[0][i], "max_batch_gc",
							      (json_int_t)fit[1][i]));
		json_t *root = json_pack("{s:s,s:s,s:{s:s,s:I,s:b},s:o}", "model", m.model->name, "task",
					 sl_task_name(m.s.task), "gpu", "name", m.gpu->name, "bytes",
					 (json_int_t)m.gpu->bytes, "assumed", m.gpu_assumed, "rows", rows);
		if (root && m.s.algorithm) {
			json_object_set_new(root, "algorithm", json_string(sl_algo_name(m.s.algorithm)));
			json_object_set_new(root, "batch_quantum", json_integer((json_int_t)quantum));
		}
		rc = root && sl_json_dumpf(root, o, JSON_INDENT(2)) == 0 ? 0 : -1;
		fputc('\n', o);
		json_decref(root);
	} else {
		const struct sl_settings *s = &m.s;
		fprintf(o, "largest batch per device that fits on %s%s (%s): %s, %s, %s%s%s, %s", m.gpu->name,
			m.gpu_assumed ? ", assumed" : "", sl_mem_size(run, cap), sl_term_safe(run->arena, m.model->name), sl_task_name(s->task),
			sl_dtype_name(s->dtype), s->amp ? " + amp " : "", s->amp ? sl_amp_name(s->amp) : "",
			sl_settings_optim_name(run->arena, s));
		if (s->lora_r)
			fprintf(o, ", lora r%u", s->lora_r);
		if (s->quant != SL_QUANT_NONE)
			fprintf(o, ", %s base", sl_quant_name(s->quant));
		if (s->fsdp != SL_FSDP_NONE)
			fprintf(o, ", fsdp %s × %u GPUs", sl_fsdp_name(s->fsdp), s->num_gpus);
		else if (s->zero_stage)
			fprintf(o, ", zero-%u × %u GPUs", s->zero_stage, s->num_gpus);
		if (s->algorithm) {
			struct sl_buf ab;
			sl_buf_init(&ab, run->arena);
			struct sl_settings searched = *s; /* the batch and the length are what fit searches */
			searched.batch_size = searched.seq_len = 0;
			sl_rl_describe(&ab, &searched);
			fputs(ab.buf, o);
		}
		fputc('\n', o);
		if (sh.completion)
			fprintf(o, "(seq_len is the prompt; the batch counts completions, in multiples of %llu: whole groups "
				   "of %u generations)\n",
				(unsigned long long)quantum, sh.generations);
		else if (sh.sequences > (m.s.batch_size ? m.s.batch_size : 1))
			fputs("(the batch counts pairs: each is a chosen and a rejected sequence)\n", o);
		fprintf(o, "%-12s", "seq_len");
		for (size_t i = 0; i < n; i++)
			fprintf(o, " %7llu", (unsigned long long)lens[i]);
		fputc('\n', o);
		static const char *const label[2] = {"no GC", "GC"};
		for (int gc = 0; gc < 2; gc++) {
			fprintf(o, "%-12s", label[gc]);
			for (size_t i = 0; i < n; i++) {
				char cell[32];
				if (fit[gc][i] == 0)
					snprintf(cell, sizeof cell, "OOM");
				else if (fit[gc][i] >= MAX_BATCH)
					snprintf(cell, sizeof cell, ">1M");
				else
					snprintf(cell, sizeof cell, "%llu", (unsigned long long)fit[gc][i]);
				if (run->opt.color)
					fprintf(o, " %s%7s\033[0m", shade(fit[gc][i]), cell);
				else
					fprintf(o, " %7s", cell);
			}
			fputc('\n', o);
		}
		/* the FSDP phases outside the step do not depend on the batch: when one does not fit, none does */
		struct sl_breakdown b;
		struct sl_settings s1 = m.s;
		s1.batch_size = 1;
		s1.seq_len = lens[0];
		sl_estimate(&m.model->arch, &s1, m.gpu, &m.cat->calib, &b);
		if (b.load_total > cap)
			fprintf(o, "model loading needs %s (the whole model on the GPU before FSDP wraps it): no batch fits\n",
				sl_mem_size(run, b.load_total));
		if (b.save_total > cap)
			fprintf(o, "checkpoint save needs %s (%s state dict): no batch fits\n", sl_mem_size(run, b.save_total),
				sl_fsdp_sd_name(s1.fsdp_state_dict));
		rc = 0;
	}
	if (fflush(o) != 0 || rc != 0) {
		fprintf(cli->err, "sweeplint: error: cannot write output: %s\n", strerror(errno));
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	sl_run_free(run);
	return SL_EXIT_OK;
}
