/*
 * cmd_catalog: `sweeplint models [MODEL...]` and `sweeplint gpus [GPU...]`
 * — the embedded model and GPU catalogs as a table or `-f json` (DESIGN §3).
 * Operands show what a value resolves to: a catalog name, HF id, alias or
 * path for models (a local directory or config.json is read), a name,
 * alias or raw size ("24GiB") for GPUs; an unknown one is a usage error.
 */
#include <ctype.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "opts.h"
#include "sweeplint/json_out.h"
#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/hub.h"
#include "sweeplint/memory.h"
#include "sweeplint/run.h"

enum { OPT_SEARCH = 600, OPT_MODELS_FETCH };

static const struct sl_opt models_opts[] = {
	{"search", OPT_SEARCH, true, "TEXT",
	 "list the catalog and architecture-table entries whose name, HF id or names contain TEXT, and the one\n"
	 "                                TEXT resolves to by name"},
	{"fetch", OPT_MODELS_FETCH, false, NULL,
	 "download config.json of Hub ids nothing else resolves (HF_ENDPOINT, HF_TOKEN; off by default)"},
};

/* models' own options (ctx: struct models_ctx) */
struct models_ctx {
	const char *search;
	bool fetch;
};

static int models_opt(struct sl_cli *cli, void *vctx, int key, const char *arg)
{
	struct models_ctx *mc = vctx;
	if (key == OPT_MODELS_FETCH) {
		mc->fetch = true;
		return 0;
	}
	if (key != OPT_SEARCH)
		return sl_opts_error(cli, "internal error: option %d", key);
	if (!*arg)
		return sl_opts_error(cli, "invalid --search '': expected some text of a model name");
	mc->search = arg;
	return 0;
}

static const struct sl_cmd_spec models_spec = {
	.name = "models",
	.usage = "[OPTIONS] [MODEL...] | --search TEXT",
	.summary = "List the model catalog (name, family, parameters, default task, longest input, Hugging Face\n"
		   "id), or show what each MODEL resolves to (docs/models.md: a local directory / config.json,\n"
		   "the Hugging Face cache, a catalog name, HF id or alias, a fine-tune by the base it names),\n"
		   "or --search the catalog and the architecture table.",
	.common = SL_OPTS_OUTPUT,
	.opts = models_opts,
	.nopts = sizeof models_opts / sizeof models_opts[0],
	.on_opt = models_opt,
};

static const struct sl_cmd_spec gpus_spec = {
	.name = "gpus",
	.usage = "[OPTIONS] [GPU...]",
	.summary = "List the GPU catalog (name, usable memory as torch reports it, bf16, compute capability),\n"
		   "or show what each GPU resolves to: a catalog name, alias, or a size such as 24GiB.",
	.common = SL_OPTS_OUTPUT,
};

/* Parse options and load the catalogs; returns -1 after printing, or SL_OPTS_DONE / SL_OPTS_GO. */
static int start(struct sl_cli *cli, const struct sl_cmd_spec *spec, struct sl_run *run, int argc, char **argv,
		 int *first)
{
	int rc = sl_opts_parse(cli, spec, run, argc, argv, first);
	if (rc != SL_OPTS_GO)
		return rc == SL_OPTS_DONE ? SL_OPTS_DONE : -1;
	if (sl_catalog_load(run->arena, &run->catalog, &run->diags) != 0) {
		for (size_t i = 0; i < run->diags.n; i++) {
			const struct sl_diag *d = &run->diags.v[i];
			fprintf(cli->err, "sweeplint: error: %s:%u:%u: %s\n", d->src->display, d->span.line,
				d->span.col, d->message);
		}
		return -1;
	}
	return SL_OPTS_GO;
}

static void fmt_params(char *buf, size_t n, uint64_t p)
{
	if (p >= 1000000000ull)
		snprintf(buf, n, "%.2fB", (double)p / 1e9);
	else
		snprintf(buf, n, "%.1fM", (double)p / 1e6);
}

static json_t *checked(json_t *j)
{
	if (!j)
		sl_oom();
	return j;
}

static json_t *aliases_json(const char **aliases, size_t n)
{
	json_t *arr = checked(json_array());
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, checked(json_string(aliases[i])));
	return arr;
}

static void dump_json(FILE *out, json_t *arr)
{
	sl_json_dumpf(arr, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(arr);
}

/* --- models --------------------------------------------------------------- */

static json_t *model_json(const struct sl_model *m)
{
	const struct sl_arch *a = &m->arch;
	json_t *shape = checked(json_pack(
		"{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "vocab", (json_int_t)a->vocab, "hidden",
		(json_int_t)a->hidden, "layers", (json_int_t)a->layers, "decoder_layers", (json_int_t)a->dec_layers,
		"heads", (json_int_t)a->heads, "kv_heads", (json_int_t)a->kv_heads, "head_dim",
		(json_int_t)a->head_dim, "intermediate", (json_int_t)a->intermediate, "max_position_embeddings",
		(json_int_t)a->max_pos, "tied", a->tied));
	json_t *o = checked(json_pack("{s:s, s:s?, s:o, s:s, s:s, s:I, s:I, s:I}", "name", m->name, "hf_id",
				      m->hf_id, "aliases", aliases_json(m->aliases, m->naliases), "family",
				      sl_family_name(a->family), "task", sl_task_name(m->task), "params",
				      (json_int_t)sl_arch_params(a), "task_params",
				      (json_int_t)sl_arch_params_for_task(a, m->task), "max_seq_len",
				      (json_int_t)(m->st_max_seq_len ? m->st_max_seq_len : sl_arch_max_seq_len(a))));
	if (m->official_params)
		json_object_set_new(o, "official_params", checked(json_integer((json_int_t)m->official_params)));
	json_object_set_new(o, "arch", shape);
	if (m->source)
		json_object_set_new(o, "source", checked(json_string(m->source)));
	if (m->resolved_by) {
		json_t *r = checked(json_pack("{s:s, s:s?}", "by", m->resolved_by, "from", m->resolved_from));
		if (m->resolved_note)
			json_object_set_new(r, "note", checked(json_string(m->resolved_note)));
		if (m->quant != SL_QUANT_NONE)
			json_object_set_new(r, "quant", checked(json_string(sl_quant_name(m->quant))));
		json_object_set_new(o, "resolved", r);
	}
	return o;
}

static void models_table(FILE *out, const struct sl_model **v, size_t n)
{
	int wn = 4, wf = 6;
	for (size_t i = 0; i < n; i++) {
		if ((int)strlen(v[i]->name) > wn)
			wn = (int)strlen(v[i]->name);
		if ((int)strlen(sl_family_name(v[i]->arch.family)) > wf)
			wf = (int)strlen(sl_family_name(v[i]->arch.family));
	}
	fprintf(out, "%-*s  %-*s  %8s  %-10s  %7s  %s\n", wn, "NAME", wf, "FAMILY", "PARAMS", "TASK", "MAX LEN",
		"HF ID");
	for (size_t i = 0; i < n; i++) {
		const struct sl_model *m = v[i];
		char p[32], len[16];
		fmt_params(p, sizeof p, sl_arch_params(&m->arch));
		uint32_t max = m->st_max_seq_len ? m->st_max_seq_len : sl_arch_max_seq_len(&m->arch);
		if (max)
			snprintf(len, sizeof len, "%u", max);
		else
			snprintf(len, sizeof len, "-");
		fprintf(out, "%-*s  %-*s  %8s  %-10s  %7s  %s\n", wn, m->name, wf, sl_family_name(m->arch.family), p,
			sl_task_name(m->task), len, m->hf_id ? m->hf_id : "");
	}
}

/* Does s contain t, ignoring case and treating '-', '_', '.', ' ' alike? */
static bool contains_text(const char *s, const char *t)
{
	if (!s)
		return false;
	size_t ns = strlen(s), nt = strlen(t);
	for (size_t i = 0; i + nt <= ns; i++) {
		size_t j = 0;
		for (; j < nt; j++) {
			char a = (char)tolower((unsigned char)s[i + j]), b = (char)tolower((unsigned char)t[j]);
			if (a == '_' || a == ' ')
				a = '-';
			if (b == '_' || b == ' ')
				b = '-';
			if (a != b)
				break;
		}
		if (j == nt)
			return true;
	}
	return false;
}

static bool entry_matches(const struct sl_model *m, const char *t)
{
	if (contains_text(m->name, t) || contains_text(m->hf_id, t))
		return true;
	for (size_t i = 0; i < m->nnames; i++)
		if (contains_text(m->names[i], t))
			return true;
	return false;
}

/* --search: catalog and table entries containing the text, then what the text resolves to by name. */
static int models_search(struct sl_cli *cli, struct sl_run *run, const char *text)
{
	const struct sl_catalog *c = run->catalog;
	size_t cap = c->nmodels + c->narchs + 1, n = 0;
	const struct sl_model **v = sl_arena_array(run->arena, cap, sizeof *v);
	for (int table = 0; table < 2; table++) {
		const struct sl_model *list = table ? c->archs : c->models;
		size_t len = table ? c->narchs : c->nmodels;
		for (size_t i = 0; i < len; i++)
			if (entry_matches(&list[i], text))
				v[n++] = &list[i];
	}
	struct sl_name_match nm;
	sl_catalog_match_name(run->arena, c, text, &nm);
	bool listed = false;
	for (size_t i = 0; i < n && nm.model; i++)
		listed |= v[i] == nm.model;
	if (nm.model && !nm.other && !listed)
		v[n++] = nm.model;
	if (run->opt.format == SL_FORMAT_JSON) {
		json_t *arr = checked(json_array());
		for (size_t i = 0; i < n; i++) {
			json_t *o = model_json(v[i]);
			bool table = v[i] >= c->archs && v[i] < c->archs + c->narchs;
			json_object_set_new(o, "from", checked(json_string(table ? "rules/architectures.yaml" : "rules/models.yaml")));
			json_array_append_new(arr, o);
		}
		dump_json(cli->out, arr);
		return n ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	if (!n) {
		sl_opts_error(cli, "no catalog or architecture-table entry matches '%s'", text);
		return SL_EXIT_USAGE;
	}
	FILE *o = sl_cli_term_stream(cli->out);
	models_table(o, v, n);
	if (nm.model && !nm.other)
		fprintf(o, "'%s' resolves by name as %s\n", text, nm.model->name);
	else if (nm.model && nm.other)
		fprintf(o, "'%s' is ambiguous by name: %s or %s\n", text, nm.model->name, nm.other->name);
	sl_cli_term_close(o, cli->out); /* a write error: main's fflush(stdout) says it */
	return SL_EXIT_OK;
}

int cmd_models(struct sl_cli *cli, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	struct models_ctx mc = {0};
	struct sl_cmd_spec spec_here = models_spec;
	spec_here.ctx = &mc;
	int first = 0, rc = start(cli, &spec_here, run, argc, argv, &first);
	const char *search = mc.search;
	bool fetch = mc.fetch;
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	if (search) {
		if (first < argc) {
			sl_opts_error(cli, "--search takes no MODEL operands");
			sl_run_free(run);
			return SL_EXIT_USAGE;
		}
		rc = models_search(cli, run, search);
		sl_run_free(run);
		return rc;
	}
	run->opt.fetch = fetch;
	const struct sl_catalog *c = run->catalog;
	size_t n = first < argc ? (size_t)(argc - first) : c->nmodels;
	const struct sl_model **v = sl_arena_array(run->arena, n, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		if (first >= argc) {
			v[i] = &c->models[i];
			continue;
		}
		const char *arg = argv[first + (int)i];
		struct sl_diags d;
		sl_diags_init(&d, run->arena);
		struct sl_resolve_opts ro = {.hf_cache = run->opt.hf_cache, .hub = fetch ? run->opt.hub : NULL};
		v[i] = sl_model_resolve(run->arena, c, arg, &ro, &d);
		for (size_t k = 0; k < d.n; k++)
			fprintf(cli->err, "sweeplint: error: %s:%u:%u: %s%s%s\n", d.v[k].src->display, d.v[k].span.line,
				d.v[k].span.col, d.v[k].message, d.v[k].hint ? "; " : "", d.v[k].hint ? d.v[k].hint : "");
		const char *fetch_why = !v[i] && !d.n && fetch ? sl_hub_why(run->opt.hub, arg) : NULL;
		if (fetch_why)
			sl_opts_error(cli, "unknown model '%s': --fetch: %s", arg, fetch_why);
		else if (!v[i] && !d.n)
			sl_opts_error(cli, "unknown model '%s' (run 'sweeplint models' for the catalog)", arg);
		if (!v[i]) {
			sl_run_free(run);
			return SL_EXIT_USAGE;
		}
	}
	if (run->opt.format == SL_FORMAT_JSON) {
		json_t *arr = checked(json_array());
		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, model_json(v[i]));
		dump_json(cli->out, arr);
	} else {
		/* model paths and project model names are input: through the escaping stream */
		FILE *o = sl_cli_term_stream(cli->out);
		models_table(o, v, n);
		for (size_t i = 0; i < n && first < argc; i++) {
			const struct sl_model *m = v[i];
			if (m->resolved_note)
				fprintf(o, "%s: %s (%s)\n", argv[first + (int)i], m->resolved_note,
					m->resolved_from ? m->resolved_from : "");
			else
				fprintf(o, "%s: resolved by %s (%s)\n", argv[first + (int)i], m->resolved_by,
					m->resolved_from ? m->resolved_from : "");
		}
		sl_cli_term_close(o, cli->out);
	}
	sl_run_free(run);
	return SL_EXIT_OK;
}

/* --- gpus ----------------------------------------------------------------- */

static json_t *gpu_json(const struct sl_gpu *g)
{
	json_t *o = checked(json_pack("{s:s, s:s, s:o, s:I, s:b}", "name", g->name, "label", g->label, "aliases",
				      aliases_json(g->aliases, g->naliases), "bytes", (json_int_t)g->bytes, "bf16",
				      g->bf16));
	if (g->cc_major || g->cc_minor) {
		char cc[24];
		snprintf(cc, sizeof cc, "%u.%u", g->cc_major, g->cc_minor);
		json_object_set_new(o, "compute_capability", checked(json_string(cc)));
	}
	if (g->source)
		json_object_set_new(o, "source", checked(json_string(g->source)));
	return o;
}

static void gpus_table(FILE *out, const struct sl_gpu **v, size_t n)
{
	int wn = 4;
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(v[i]->name) > wn)
			wn = (int)strlen(v[i]->name);
	fprintf(out, "%-*s  %10s  %-4s  %-3s  %s\n", wn, "NAME", "MEMORY", "BF16", "CC", "LABEL");
	for (size_t i = 0; i < n; i++) {
		const struct sl_gpu *g = v[i];
		char cc[24] = "-";
		if (g->cc_major || g->cc_minor)
			snprintf(cc, sizeof cc, "%u.%u", g->cc_major, g->cc_minor);
		fprintf(out, "%-*s  %6.1f GiB  %-4s  %-3s  %s\n", wn, g->name, (double)g->bytes / (1u << 30),
			g->bf16 ? "yes" : "no", cc, g->label);
	}
}

int cmd_gpus(struct sl_cli *cli, int argc, char **argv)
{
	struct sl_run *run = sl_run_new();
	int first = 0, rc = start(cli, &gpus_spec, run, argc, argv, &first);
	if (rc != SL_OPTS_GO) {
		sl_run_free(run);
		return rc == SL_OPTS_DONE ? SL_EXIT_OK : SL_EXIT_USAGE;
	}
	const struct sl_catalog *c = run->catalog;
	size_t n = first < argc ? (size_t)(argc - first) : c->ngpus;
	const struct sl_gpu **v = sl_arena_array(run->arena, n, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		if (first >= argc) {
			v[i] = &c->gpus[i];
			continue;
		}
		const char *arg = argv[first + (int)i];
		v[i] = sl_catalog_find_gpu(run->arena, c, arg);
		if (!v[i]) {
			sl_opts_error(cli, "unknown GPU '%s' (run 'sweeplint gpus' for the catalog, or give a size "
					   "such as 24GiB)",
				      arg);
			sl_run_free(run);
			return SL_EXIT_USAGE;
		}
	}
	if (run->opt.format == SL_FORMAT_JSON) {
		json_t *arr = checked(json_array());
		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, gpu_json(v[i]));
		dump_json(cli->out, arr);
	} else {
		FILE *o = sl_cli_term_stream(cli->out);
		gpus_table(o, v, n);
		sl_cli_term_close(o, cli->out);
	}
	sl_run_free(run);
	return SL_EXIT_OK;
}
