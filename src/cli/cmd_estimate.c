/*
 * cmd_estimate: `sweeplint estimate [OPTIONS] ROLE=VALUE...` — the memory
 * breakdown of one run: a table of terms (bytes and share), the verdict
 * against the GPU, the evaluation peak and host RAM; or -f json
 * (DESIGN §3). Unknown roles and bad values are usage errors (exit 2).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "estimate.h"
#include "opts.h"
#include "sweeplint/json_out.h"
#include "sweeplint/arena.h"
#include "sweeplint/eval.h"
#include "sweeplint/hub.h"
#include "sweeplint/roles.h"
#include "sweeplint/run.h"
#include "sweeplint/scalar.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

static const struct sl_cmd_spec spec = {
	.name = "estimate",
	.usage = "[OPTIONS] ROLE=VALUE...",
	.summary = "Memory breakdown of one training run (roles: model=, batch_size=, seq_len=, amp=, ...).",
	.common = SL_OPTS_OUTPUT | SL_OPTS_MODEL,
};

const char *sl_mem_size(struct sl_run *run, uint64_t b)
{
	if (b == UINT64_MAX)
		return ">= 16 EiB"; /* saturated: the estimate clamps what passes 2^64 bytes */
	double gib = (double)b / (1024.0 * 1024.0 * 1024.0);
	if (gib >= 1)
		return sl_arena_printf(run->arena, "%.1f GiB", gib);
	return sl_arena_printf(run->arena, "%.0f MiB", (double)b / (1024.0 * 1024.0));
}

static int set_role(struct sl_cli *cli, struct sl_run *run, struct sl_mem_args *m, const char *key,
		    const char *val, struct sl_role_value *vals, size_t *nvals)
{
	int role = sl_role_parse(key);
	if (role < 0)
		return sl_opts_error(cli, "unknown role '%s' (roles: model, task, batch_size, seq_len, amp, "
					  "gradient_checkpointing, optimizer, lora_r, quant, attn, zero_stage, ...)",
				     key);
	if (role == SL_ROLE_DEEPSPEED)
		return sl_opts_error(cli, "role 'deepspeed' is not read by estimate: give zero_stage= and offload=");
	m->has[role] = true;
	m->config_only[role] = false;
	if (role == SL_ROLE_MODULES) {
		/* a custom nn.Module's layer list is the model */
		struct sl_modules mods;
		const char *why = NULL;
		if (sl_modules_parse(run->arena, val, &mods, &why) != 0)
			return sl_opts_error(cli, "modules: not a layer list sweeplint can count (%s)", why ? why : "?");
		m->model = sl_model_from_modules(run->arena, &mods);
		m->has[SL_ROLE_MODEL] = true;
		return 0;
	}
	if (role == SL_ROLE_MODEL) {
		struct sl_diags d;
		sl_diags_init(&d, run->arena);
		struct sl_resolve_opts ro = {.hf_cache = run->opt.hf_cache, .hub = run->opt.fetch ? run->opt.hub : NULL};
		const struct sl_model *md = sl_model_resolve(run->arena, m->cat, val, &ro, &d);
		const char *fetch_why = !md && run->opt.fetch ? sl_hub_why(run->opt.hub, val) : NULL;
		if (fetch_why)
			return sl_opts_error(cli, "unknown model '%s': --fetch: %s", val, fetch_why);
		if (!md)
			return sl_opts_error(cli, "unknown model '%s' (see 'sweeplint models', or give a config.json)",
					     val);
		m->model = md;
		return 0;
	}
	const char *why = NULL;
	if (sl_role_value_from_text(run->arena, (enum sl_role)role, NULL, val, NULL, &vals[*nvals], &why) != 0)
		return sl_opts_error(cli, "%s", why ? why : "bad value");
	(*nvals)++;
	return 0;
}

/*
 * The -c trainer configs, read as `check` reads them beside a sweep: each
 * key the key map knows becomes its role values (a `deepspeed:` path the
 * values of that file, a from-scratch shape a model), in config order, so
 * that the command's ROLE=VALUE operands and --set given after them win.
 * A value that cannot be used is a warning (its default stays); a config
 * that cannot be read, or a model it names that does not resolve, is an
 * error (exit 2).
 */
static int apply_configs(struct sl_cli *cli, struct sl_run *run, struct sl_mem_args *m, struct sl_role_value **vals,
			 size_t *nvals, size_t *cap, const char **unresolved, enum sl_mode *mode)
{
	struct sl_arena *a = run->arena;
	if (!run->resolver)
		run->resolver = sl_scalar_resolver_new(a);
	struct sl_diags d;
	sl_diags_init(&d, a);
	struct sl_trainer **cfgs = sl_arena_array(a, run->opt.nconfigs, sizeof *cfgs);
	size_t n = 0;
	bool bad = false;
	for (size_t i = 0; i < run->opt.nconfigs; i++)
		if (sl_trainer_load(a, run->opt.configs[i], NULL, run->resolver, &d, &cfgs[n]) == 0)
			n++;
		else
			bad = true;
	struct sl_keymap *keys = bad ? NULL : sl_keymap_new(a, &d);
	bad |= !keys;
	/* no sweep: an empty document stands for it, so that only the configs make axes */
	struct sl_source *none = sl_source_from_bytes(a, "-", "{}\n", 3);
	struct sl_eval *ev = NULL;
	const char *why = NULL;
	if (!bad) {
		struct sl_eval_opts o = {
			.cat = m->cat,
			.keys = keys,
			.configs = (const struct sl_trainer *const *)cfgs,
			.nconfigs = n,
			.hf_cache = run->opt.hf_cache,
			.hub = run->opt.fetch ? run->opt.hub : NULL,
			.resolver = run->resolver,
		};
		/* no GPU in the options: the axes are built, nothing is estimated */
		bad = sl_eval_run(a, sl_sweep_load(a, sl_ydoc_parse(a, none, run->resolver, &d)), &o, &d, &ev, &why) != 0;
	}
	for (size_t i = 0; i < d.n; i++) {
		const struct sl_diag *g = &d.v[i];
		if (g->src && g->src != none)
			fprintf(cli->err, "sweeplint: %s: %s:%u:%u: %s\n", g->severity == SL_SEV_ERROR ? "error" : "warning",
				g->src->display, g->span.line, g->span.col, g->message);
		else
			fprintf(cli->err, "sweeplint: error: %s\n", g->message);
		bad |= g->severity == SL_SEV_ERROR;
	}
	if (bad) {
		if (why)
			fprintf(cli->err, "sweeplint: error: %s\n", why);
		return -SL_ECONFIG;
	}
	for (size_t i = 0; i < ev->nnotes; i++) {
		const struct sl_eval_note *nt = &ev->notes[i];
		if (nt->rejected && nt->src)
			fprintf(cli->err, "sweeplint: warning: %s:%u:%u: %s: %s (not used)\n", nt->src->display,
				nt->span.line, nt->span.col, nt->key, nt->detail ? nt->detail : "cannot be read");
	}
	*mode = ev->mode; /* what the configs' keys say the program runs (train, eval, generate) */
	for (size_t i = 0; i < ev->naxes; i++) {
		const struct sl_eval_axis *ax = &ev->axes[i];
		if (ax->n != 1 || !ax->values[0].ok || sl_role_is_shape(ax->role))
			continue;
		const struct sl_eval_value *v = &ax->values[0];
		if (ax->role == SL_ROLE_MODEL) {
			m->model = v->model;
			m->has[SL_ROLE_MODEL] = m->config_only[SL_ROLE_MODEL] = true;
			*unresolved = v->model ? NULL : sl_arena_printf(a, "%s:%u:%u: %s: unknown model '%s'",
									ax->src ? ax->src->display : "config",
									v->span.line, v->span.col, ax->key, v->text);
			continue;
		}
		*vals = sl_arena_reserve(a, *vals, *nvals, cap, *nvals + v->nrv, sizeof **vals);
		for (size_t k = 0; k < v->nrv; k++) {
			m->has[v->rv[k].role] = m->config_only[v->rv[k].role] = true;
			(*vals)[(*nvals)++] = v->rv[k];
		}
	}
	return 0;
}

int sl_mem_args_parse(struct sl_cli *cli, struct sl_run *run, int argc, char **argv, int first,
		      struct sl_mem_args *m)
{
	memset(m, 0, sizeof *m);
	struct sl_catalog *cat = NULL;
	if (sl_catalog_load(run->arena, &cat, &run->diags) != 0) { /* models, GPUs, calibration.yaml */
		for (size_t i = 0; i < run->diags.n; i++)
			fprintf(cli->err, "sweeplint: error: %s\n", run->diags.v[i].message);
		return -SL_ECONFIG;
	}
	m->cat = cat;
	const char *gname = run->opt.gpu ? run->opt.gpu : SL_DEFAULT_GPU;
	m->gpu_assumed = run->opt.gpu == NULL;
	m->gpu = sl_catalog_find_gpu(run->arena, cat, gname);
	if (!m->gpu)
		return sl_opts_error(cli, "unknown GPU '%s' (see 'sweeplint gpus', or give a size such as 24GiB)",
				     gname);

	size_t cap = (size_t)(argc - first) + run->opt.nsets + 1, nvals = 0;
	struct sl_role_value *vals = sl_arena_array(run->arena, cap, sizeof *vals);
	const char *unresolved = NULL;
	enum sl_mode mode = SL_MODE_TRAIN;
	if (run->opt.nconfigs) {
		int rc = apply_configs(cli, run, m, &vals, &nvals, &cap, &unresolved, &mode);
		if (rc != 0)
			return rc;
		vals = sl_arena_reserve(run->arena, vals, nvals, &cap, nvals + (size_t)(argc - first) + run->opt.nsets + 1,
					sizeof *vals);
	}
	for (size_t i = 0; i < run->opt.nsets; i++)
		if (set_role(cli, run, m, run->opt.sets[i].key, run->opt.sets[i].value, vals, &nvals) != 0)
			return -SL_EUSAGE;
	for (int i = first; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		if (!eq || eq == argv[i])
			return sl_opts_error(cli, "expected ROLE=VALUE, not '%s'", argv[i]);
		char *key = sl_arena_strndup(run->arena, argv[i], (size_t)(eq - argv[i]));
		if (set_role(cli, run, m, key, eq + 1, vals, &nvals) != 0)
			return -SL_EUSAGE;
	}
	if (!m->model && m->has[SL_ROLE_LAYERS] && m->has[SL_ROLE_HIDDEN_SIZE] && m->has[SL_ROLE_HEADS]) {
		/* a from-scratch shape: layers=, hidden_size=, heads= (+ ffn_size=, vocab_size=, head_dim=) */
		struct sl_hparams hp = {.keys = "command: layers, hidden_size, heads"};
		for (size_t i = 0; i < nvals; i++) {
			uint32_t u = (uint32_t)vals[i].u;
			switch (vals[i].role) {
			case SL_ROLE_LAYERS: hp.layers = u; break;
			case SL_ROLE_HIDDEN_SIZE: hp.hidden = u; break;
			case SL_ROLE_HEADS: hp.heads = u; break;
			case SL_ROLE_FFN_SIZE: hp.ffn = u; break;
			case SL_ROLE_VOCAB_SIZE: hp.vocab = u; break;
			case SL_ROLE_HEAD_DIM: hp.head_dim = u; break;
			case SL_ROLE_SEQ_LEN: hp.context = u > hp.context ? u : hp.context; break;
			default: break;
			}
		}
		m->model = sl_model_from_hparams(run->arena, &hp);
		if (!m->model)
			return sl_opts_error(cli, "hidden_size %u does not split into %u heads (give head_dim=)", hp.hidden,
					     hp.heads);
	}
	if (!m->model && unresolved)
		return sl_opts_error(cli, "%s (see 'sweeplint models', or give model=)", unresolved);
	if (!m->model)
		return sl_opts_error(cli, "no model given (model=NAME, see 'sweeplint models', or layers=, hidden_size=, "
					  "heads= for a model trained from scratch)");

	sl_settings_default(&m->s);
	if (run->opt.nconfigs)
		m->s.mode = mode;
	m->s.task = m->model->task;
	if (!m->has[SL_ROLE_QUANT])
		m->s.quant = m->model->quant; /* the id names it (-bnb-4bit) unless quant= is given */
	for (size_t i = 0; i < nvals; i++)
		sl_settings_apply(&m->s, &vals[i], m->gpu->bf16);
	if (run->opt.num_gpus && !m->has[SL_ROLE_NUM_GPUS])
		m->s.num_gpus = run->opt.num_gpus;
	/* generation loads the checkpoint's 16-bit dtype unless a precision is given, as check assumes */
	sl_settings_workload_dtype(&m->s, m->has[SL_ROLE_DTYPE] || m->has[SL_ROLE_AMP] || m->has[SL_ROLE_QUANT],
				   m->gpu->bf16);
	m->adapter_assumed = sl_settings_assume_adapter(&m->s, m->has[SL_ROLE_PEFT_METHOD] || m->has[SL_ROLE_LORA_R],
						       m->has[SL_ROLE_GRADIENT_CHECKPOINTING]);
	return 0;
}

static const char *describe(struct sl_run *run, const struct sl_mem_args *m)
{
	struct sl_buf b;
	sl_buf_init(&b, run->arena);
	sl_buf_addf(&b, "%s, %s", m->model->name, sl_task_name(m->s.task));
	struct sl_settings s = m->s;
	if (m->model->arch.family == SL_FAMILY_VIT) {
		/* a ViT's length is its image's patches and the class token, not a setting */
		struct sl_arch t = m->model->arch;
		if (s.image_size && t.vis_patch && s.image_size >= t.vis_patch)
			t.vis_image = s.image_size - s.image_size % t.vis_patch;
		s.seq_len = sl_arch_vit_tokens(&t);
	}
	sl_settings_describe(&b, &s);
	if (m->adapter_assumed)
		sl_buf_adds(&b, ", LoRA r8 on q and v assumed (PEFT's defaults: a quantized base trains only through adapters)");
	return b.buf;
}

static json_t *terms_base_json(const struct sl_breakdown *b);

static json_t *terms_json(const struct sl_breakdown *b)
{
	json_t *o = terms_base_json(b);
	if (o && (b->frozen_models || b->engine || b->value_model)) {
		json_object_set_new(o, "frozen_models", json_integer((json_int_t)b->frozen_models));
		json_object_set_new(o, "vllm_engine", json_integer((json_int_t)b->engine));
		json_object_set_new(o, "value_model", json_integer((json_int_t)b->value_model));
	}
	return o;
}

static json_t *terms_base_json(const struct sl_breakdown *b)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "paged_optimizer",
			 (json_int_t)b->paged, "kv_cache", (json_int_t)b->kv_cache, "preallocated",
			 (json_int_t)b->preallocated, "outside_share", (json_int_t)b->outside_share, "frozen_forward",
			 (json_int_t)b->frozen_ws, "cuda_context", (json_int_t)b->cuda_context,
			 "workspace", (json_int_t)b->workspace, "weights", (json_int_t)b->weights, "gradients",
			 (json_int_t)b->gradients, "optimizer", (json_int_t)b->optimizer, "activations",
			 (json_int_t)b->activations, "logits", (json_int_t)b->logits, "zero_gather",
			 (json_int_t)b->zero_gather, "slack", (json_int_t)b->slack);
}

static int print_json(struct sl_cli *cli, const struct sl_mem_args *m, const struct sl_breakdown *b,
		      const struct sl_breakdown *ev, const struct sl_host_breakdown *h)
{
	json_t *root = json_pack(
		"{s:I,s:I,s:I,s:b,s:{s:s,s:I,s:b},s:o,s:I,s:s,s:{s:I,s:I,s:b,s:o},s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I}}",
		"params", (json_int_t)b->params, "trainable_params", (json_int_t)b->trainable, "total_bytes",
		(json_int_t)b->total, "fits", b->total <= m->gpu->bytes, "gpu", "name", m->gpu->name, "bytes",
		(json_int_t)m->gpu->bytes, "assumed", m->gpu_assumed, "breakdown", terms_json(b), "attention_bytes",
		(json_int_t)b->attention, "peak_phase", sl_phase_name((enum sl_phase)b->phase), "eval", "batch_size",
		(json_int_t)(m->s.eval_batch_size ? m->s.eval_batch_size : m->s.batch_size), "total_bytes",
		(json_int_t)ev->total, "fits", ev->total <= m->gpu->bytes, "breakdown", terms_json(ev), "host",
		"total_bytes", (json_int_t)h->total, "base", (json_int_t)h->base, "workers", (json_int_t)h->workers,
		"loading", (json_int_t)h->loading, "pinned", (json_int_t)h->pinned, "overhead",
		(json_int_t)h->overhead, "paged_optimizer", (json_int_t)h->paged);
	if (!root)
		return -SL_EINTERNAL;
	/* the FSDP phases outside the training step, when these settings model them */
	if (b->load_total)
		json_object_set_new(root, "load_bytes", json_integer((json_int_t)b->load_total));
	if (b->save_total)
		json_object_set_new(root, "save_bytes", json_integer((json_int_t)b->save_total));
	json_object_set_new(root, "model", json_string(m->model->name));
	json_object_set_new(root, "task", json_string(sl_task_name(m->s.task)));
	json_object_set_new(root, "mode", json_string(sl_mode_name(m->s.mode)));
	/* a custom module's activations are an upper bound: its verdict is sure only when it fits */
	json_object_set_new(root, "bound", json_boolean(b->bound));
	/* generation has no optimizer and no evaluation step of a training run: its peak is the run's own */
	if (m->s.mode == SL_MODE_GENERATE)
		json_object_set_new(root, "eval", json_null());
	if (m->s.algorithm) {
		json_object_set_new(root, "algorithm", json_string(sl_algo_name(m->s.algorithm)));
		json_object_set_new(root, "phases", json_pack("{s:I,s:I}", "generation", (json_int_t)b->phase_generation,
							     "step", (json_int_t)b->phase_step));
	}
	int rc = sl_json_dumpf(root, cli->out, JSON_INDENT(2)) == 0 ? 0 : -SL_EIO;
	fputc('\n', cli->out);
	json_decref(root);
	return rc;
}

/* A term and its share; a saturated total (2^64 - 1 bytes: terms past it are clamped) has no shares. */
static void row(FILE *o, struct sl_run *run, const char *name, uint64_t v, uint64_t total)
{
	if (v == 0)
		return;
	if (total == UINT64_MAX)
		fprintf(o, "  %-22s %10s %7s\n", name, sl_mem_size(run, v), "-");
	else
		fprintf(o, "  %-22s %10s %6.1f%%\n", name, sl_mem_size(run, v), total ? 100.0 * v / total : 0);
}

/* o: an escaping stream (sl_cli_term_stream): the model's name or path is input */
static void print_text(FILE *o, struct sl_run *run, const struct sl_mem_args *m,
		       const struct sl_breakdown *b, const struct sl_breakdown *ev, const struct sl_host_breakdown *h)
{
	fprintf(o, "%s\n", describe(run, m));
	fprintf(o, "params %llu, trainable %llu; peak at the %s\n\n", (unsigned long long)b->params,
		(unsigned long long)b->trainable, sl_phase_name((enum sl_phase)b->phase));
	fprintf(o, "  %-22s %10s %7s\n", "term", "memory", "share");
	row(o, run, "cuda context", b->cuda_context, b->total);
	row(o, run, b->phase == SL_PHASE_VLLM ? "outside torch (vLLM)" : "cublas workspace", b->workspace, b->total);
	row(o, run, "weights", b->weights, b->total);
	row(o, run, "gradients", b->gradients, b->total);
	row(o, run, "optimizer states", b->optimizer, b->total);
	row(o, run, "activations", b->activations, b->total);
	if (b->attention)
		fprintf(o, "  %-22s %10s\n", "  of which attention", sl_mem_size(run, b->attention));
	if (b->frozen_ws)
		fprintf(o, "  %-22s %10s\n", "  of which frozen fwd", sl_mem_size(run, b->frozen_ws));
	row(o, run, "kv cache", b->kv_cache, b->total);
	row(o, run, "logits and loss", b->logits, b->total);
	row(o, run, "zero / comm buffers", b->zero_gather, b->total);
	row(o, run, "outside vLLM's share", b->outside_share, b->total);
	row(o, run, sl_rl_frozen_label(&m->s), b->frozen_models, b->total);
	row(o, run, "vLLM engine (colocated)", b->engine, b->total);
	row(o, run, "allocator slack", b->slack, b->total);
	if (b->total == UINT64_MAX)
		fprintf(o, "  %-22s %10s (saturated: the terms add up past 2^64 bytes; no shares)\n\n", "total",
			">= 16 EiB");
	else
		fprintf(o, "  %-22s %10s\n\n", "total", sl_mem_size(run, b->total));
	if (b->preallocated)
		fprintf(o, "pre-allocated by vLLM: %s more KV cache blocks, the rest of its gpu_memory_utilization share (not in "
			   "the total: the engine takes it whatever the run needs)\n\n",
			sl_mem_size(run, b->preallocated));
	if (b->value_model)
		fprintf(o, "of which the value model (weights, gradients, optimizer states, activations): %s\n\n",
			sl_mem_size(run, b->value_model));
	if (b->phase_generation)
		fprintf(o, "phases: generation %s, training step %s; the peak is the larger\n\n",
			sl_mem_size(run, b->phase_generation), sl_mem_size(run, b->phase_step));
	if (b->paged)
		fprintf(o, "paged optimizer states: %s in CUDA managed memory, not in the total (outside torch's "
			   "allocator; the driver evicts them to host RAM when the device needs the room)\n\n",
			sl_mem_size(run, b->paged));

	const char *gpu = sl_arena_printf(run->arena, "%s%s (%s)", m->gpu->name, m->gpu_assumed ? ", assumed" : "",
					  sl_mem_size(run, m->gpu->bytes));
	double use = (double)b->total / (double)m->gpu->bytes;
	if (b->bound)
		fprintf(o, "the activations are an upper bound (a custom module's forward is counted layer by layer, not "
			   "read): a fit is sure, an out-of-memory verdict is at risk, not certain\n");
	if (b->phase == SL_PHASE_VLLM && b->outside_share)
		fprintf(o, "verdict: vLLM does not start on %s: weights, its profile run and the KV cache of one "
			   "max_model_len sequence need %s, past its gpu_memory_utilization share of %s\n",
			gpu, sl_mem_size(run, b->total - b->outside_share - b->cuda_context),
			sl_mem_size(run, m->gpu->bytes - b->outside_share - b->cuda_context));
	else if (b->phase == SL_PHASE_VLLM)
		fprintf(o, "verdict: vLLM starts on %s: its share of %s holds the weights, the profile run and a KV "
			   "cache pool of %s\n",
			gpu, sl_mem_size(run, b->total - b->cuda_context + b->preallocated),
			sl_mem_size(run, b->kv_cache + b->preallocated));
	else if (b->total > m->gpu->bytes)
		fprintf(o, "verdict: out of memory on %s: needs %s, %.0f%% of capacity\n", gpu,
			sl_mem_size(run, b->total), 100 * use);
	else if (use > run->opt.headroom)
		fprintf(o, "verdict: fits on %s but near capacity: %.0f%% (headroom %.0f%%)\n", gpu, 100 * use,
			100 * run->opt.headroom);
	else
		fprintf(o, "verdict: fits on %s: %.0f%% of capacity\n", gpu, 100 * use);
	if (b->load_total)
		fprintf(o, "model loading (the whole model on the GPU before FSDP wraps it): %s%s\n",
			sl_mem_size(run, b->load_total), b->load_total > m->gpu->bytes ? " — out of memory" : "");
	if (b->save_total)
		fprintf(o, "checkpoint save (%s state dict): %s%s\n", sl_fsdp_sd_name(m->s.fsdp_state_dict),
			sl_mem_size(run, b->save_total), b->save_total > m->gpu->bytes ? " — out of memory" : "");
	/* a training run's evaluation keeps its optimizer states; an inference run has none, and its peak
	 * above is its own workload */
	if (m->s.mode == SL_MODE_TRAIN)
		fprintf(o, "eval peak (batch %llu): %s%s\n",
			(unsigned long long)(m->s.eval_batch_size ? m->s.eval_batch_size : m->s.batch_size),
			sl_mem_size(run, ev->total), ev->total > m->gpu->bytes ? " — out of memory" : "");
	uint32_t n = m->s.num_gpus ? m->s.num_gpus : 1, per = sl_procs_per_node(&m->s);
	if (per < n)
		fprintf(o, "host RAM per node (%u GPUs a node, %u nodes: the largest common node assumed): ", per,
			(n + per - 1) / per);
	else
		fputs("host RAM per node: ", o);
	fprintf(o, "%s (base %s, %u workers %s, model loading %s", sl_mem_size(run, h->total),
		sl_mem_size(run, h->base), m->s.num_workers, sl_mem_size(run, h->workers),
		sl_mem_size(run, h->loading));
	if (h->paged)
		fprintf(o, ", paged optimizer states evicted %s", sl_mem_size(run, h->paged));
	fputs(")\n", o);
	if (b->paged && h->paged)
		fprintf(o, "paging: %s of the %s of paged optimizer states do not fit next to the peak on %s: "
			   "the run pages them between host and device every step (slower, no OOM)\n",
			sl_mem_size(run, sl_paged_spill(b, m->gpu->bytes)), sl_mem_size(run, b->paged), m->gpu->name);
}

int cmd_estimate(struct sl_cli *cli, int argc, char **argv)
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
	struct sl_breakdown b, ev;
	struct sl_host_breakdown h;
	sl_estimate(&m.model->arch, &m.s, m.gpu, &m.cat->calib, &b);
	sl_estimate_eval(&m.model->arch, &m.s, m.gpu, &m.cat->calib, &ev);
	sl_estimate_host(&m.model->arch, &m.s, &m.cat->calib, &h);
	sl_host_add_paged(&m.s, &b, m.gpu->bytes, &h);
	rc = 0;
	if (run->opt.format == SL_FORMAT_JSON) {
		rc = print_json(cli, &m, &b, &ev, &h);
	} else {
		FILE *o = sl_cli_term_stream(cli->out);
		print_text(o, run, &m, &b, &ev, &h);
		rc = sl_cli_term_close(o, cli->out);
	}
	if (fflush(cli->out) != 0 || rc != 0) {
		fprintf(cli->err, "sweeplint: error: cannot write output: %s\n", strerror(errno));
		sl_run_free(run);
		return SL_EXIT_USAGE;
	}
	sl_run_free(run);
	return SL_EXIT_OK;
}
