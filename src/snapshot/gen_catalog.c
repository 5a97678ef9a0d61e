/*
 * gen_catalog: the build-time snapshot of the embedded catalogs, key map, key
 * vocabulary, workload patterns, framework recognisers and the YAML 1.1
 * resolver's compiled patterns (snapshot.h). It
 * loads rules/models.yaml, gpus.yaml, calibration.yaml, keys.yaml, words.yaml,
 * workload.yaml and frameworks.yaml with the loaders sweeplint itself uses
 * (sl_catalog_load_from, sl_calib_parse, sl_keymap_parse, sl_keywords_parse,
 * sl_workload_parse, sl_frameworks_parse), fails on any diagnostic (printed as
 * path:line:col, so a bad catalog fails the build), and writes what they
 * loaded as static const C initialisers, with the compiled alias and key
 * patterns serialised by pcre2_serialize_encode. A native program: it owns
 * its arena and prints only its diagnostics (stderr).
 *
 * usage: gen_catalog OUT.c MODELS.yaml GPUS.yaml CALIBRATION.yaml KEYS.yaml WORDS.yaml WORKLOAD.yaml FRAMEWORKS.yaml
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <inttypes.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/memory.h"
#include "sweeplint/roles.h"
#include "sweeplint/scalar.h"
#include "sweeplint/source.h"

#define MAX_BYTES (16u << 20)

static int print_diags(const struct sl_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct sl_diag *x = &d->v[i];
		fprintf(stderr, "%s:%" PRIu32 ":%" PRIu32 ": %s: %s [%s]\n", x->src ? x->src->display : "gen_catalog",
			x->span.line, x->span.col, sl_severity_name(x->severity), x->message, x->rule);
		if (x->hint)
			fprintf(stderr, "  hint: %s\n", x->hint);
	}
	return d->n ? 1 : 0;
}

static struct sl_source *read_file(struct sl_arena *a, const char *path)
{
	int err = 0;
	struct sl_source *s = sl_source_read(a, path, MAX_BYTES, &err);
	if (!s) {
		fprintf(stderr, "gen_catalog: cannot read '%s': %s\n", path, sl_source_strerror(err));
		exit(1);
	}
	return s;
}

/* A C string literal: printable ASCII as is, everything else as three-digit octal ('?' too: trigraphs). */
static void put_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("NULL", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p >= 0x20 && *p < 0x7F && *p != '?')
			fputc(*p, f);
		else
			fprintf(f, "\\%03o", *p);
	}
	fputc('"', f);
}

static void put_bool(FILE *f, const char *name, bool b)
{
	fprintf(f, " .%s = %s,", name, b ? "true" : "false");
}

static void put_u32(FILE *f, const char *name, uint32_t v)
{
	fprintf(f, " .%s = %" PRIu32 "u,", name, v);
}

static void put_u32s(FILE *f, const char *name, const uint32_t *v, size_t n)
{
	fprintf(f, " .%s = {", name);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu32 "u,", v[i]);
	fputs("},", f);
}

static void put_u64(FILE *f, const char *name, uint64_t v)
{
	fprintf(f, " .%s = UINT64_C(%" PRIu64 "),", name, v);
}

/* Exact: a hexadecimal floating constant. */
static void put_double(FILE *f, const char *name, double v)
{
	fprintf(f, " .%s = %a,", name, v);
}

static void put_aliases(FILE *f, const char *kind, size_t i, const char **aliases, size_t n)
{
	if (!n)
		return;
	fprintf(f, "static const char *const %s%zu_aliases[] = {", kind, i);
	for (size_t j = 0; j < n; j++) {
		fputs(j ? ", " : "", f);
		put_str(f, aliases[j]);
	}
	fputs("};\n", f);
}

static void put_alias_ref(FILE *f, const char *kind, size_t i, size_t n)
{
	if (n)
		fprintf(f, "\t\t.aliases = (const char **)%s%zu_aliases,\n\t\t.naliases = %zu,\n", kind, i, n);
	else
		fputs("\t\t.aliases = NULL,\n\t\t.naliases = 0,\n", f);
}

static void put_arch(FILE *f, const struct sl_arch *a)
{
	fprintf(f, "\t\t.arch = {.family = %d /* %s */, .kind = %d,", (int)a->family, sl_family_name(a->family),
		(int)a->kind);
	put_u32(f, "vocab", a->vocab);
	put_u32(f, "hidden", a->hidden);
	put_u32(f, "layers", a->layers);
	put_u32(f, "dec_layers", a->dec_layers);
	put_u32(f, "heads", a->heads);
	put_u32(f, "kv_heads", a->kv_heads);
	put_u32(f, "head_dim", a->head_dim);
	put_u32(f, "intermediate", a->intermediate);
	put_u32(f, "max_pos", a->max_pos);
	put_u32(f, "type_vocab", a->type_vocab);
	put_u32(f, "rel_buckets", a->rel_buckets);
	fputs("\n\t\t\t", f);
	put_bool(f, "gated_ffn", a->gated_ffn);
	put_bool(f, "tied", a->tied);
	put_bool(f, "pooler", a->pooler);
	put_bool(f, "bias", a->bias);
	put_bool(f, "rmsnorm", a->rmsnorm);
	put_bool(f, "final_norm", a->final_norm);
	put_bool(f, "emb_norm", a->emb_norm);
	put_bool(f, "qkv_bias_only", a->qkv_bias_only);
	put_bool(f, "scale_emb", a->scale_emb);
	put_u32(f, "emb_dim", a->emb_dim);
	fputs("\n\t\t\t", f);
	put_u32(f, "norms", a->norms);
	put_u32(f, "no_bias", a->no_bias);
	put_bool(f, "fused_qkv", a->fused_qkv);
	put_bool(f, "qk_norm", a->qk_norm);
	put_bool(f, "lm_head_bias", a->lm_head_bias);
	put_bool(f, "enc_only", a->enc_only);
	put_u32(f, "param_layers", a->param_layers);
	put_u32(f, "rel_emb", a->rel_emb);
	put_bool(f, "rel_norm", a->rel_norm);
	put_u32(f, "conv_kernel", a->conv_kernel);
	put_u32(f, "experts", a->experts);
	put_u32(f, "top_k", a->top_k);
	put_u32(f, "shared_ffn", a->shared_ffn);
	put_u32(f, "mel_bins", a->mel_bins);
	put_u32(f, "src_pos", a->src_pos);
	fputs("\n\t\t\t", f);
	put_bool(f, "qk_norm_full", a->qk_norm_full);
	put_u32(f, "act_params", a->act_params);
	put_bool(f, "shared_gate", a->shared_gate);
	put_bool(f, "router_bias", a->router_bias);
	put_bool(f, "sinks", a->sinks);
	put_u32(f, "dense_ffn", a->dense_ffn);
	put_u32(f, "moe_first", a->moe_first);
	put_u32(f, "moe_every", a->moe_every);
	put_u32(f, "moe_offset", a->moe_offset);
	put_u32(f, "moe_end", a->moe_end);
	put_bool(f, "moe_stats", a->moe_stats);
	put_u32(f, "q_lora", a->q_lora);
	put_u32(f, "kv_lora", a->kv_lora);
	put_u32(f, "rope_dim", a->rope_dim);
	put_u32(f, "v_head_dim", a->v_head_dim);
	put_u32(f, "window", a->window);
	put_u32(f, "window_layers", a->window_layers);
	fputs("\n\t\t\t", f);
	put_u32(f, "ssm_inner", a->ssm_inner);
	put_u32(f, "ssm_state", a->ssm_state);
	put_u32(f, "ssm_conv", a->ssm_conv);
	put_u32(f, "ssm_dt_rank", a->ssm_dt_rank);
	put_u32(f, "ssm_heads", a->ssm_heads);
	put_u32(f, "ssm_groups", a->ssm_groups);
	put_bool(f, "ssm_conv_bias", a->ssm_conv_bias);
	put_bool(f, "ssm_proj_bias", a->ssm_proj_bias);
	put_bool(f, "ssm_dt_norms", a->ssm_dt_norms);
	put_u32(f, "attn_every", a->attn_every);
	put_u32(f, "attn_offset", a->attn_offset);
	put_u32(f, "sconv_kernel", a->sconv_kernel);
	put_bool(f, "sconv_bias", a->sconv_bias);
	put_bool(f, "attn_listed", a->attn_listed);
	if (a->attn_listed)
		put_u32s(f, "attn_map", a->attn_map, sizeof a->attn_map / sizeof a->attn_map[0]);
	put_bool(f, "ssm_parallel", a->ssm_parallel);
	put_bool(f, "ssm_no_norm", a->ssm_no_norm);
	put_bool(f, "ssm_out_own", a->ssm_out_own);
	put_bool(f, "ssm_out_bias", a->ssm_out_bias);
	put_bool(f, "blocks", a->blocks);
	if (a->blocks)
		put_u32s(f, "mlp_map", a->mlp_map, sizeof a->mlp_map / sizeof a->mlp_map[0]);
	put_bool(f, "ssm_state_fp32", a->ssm_state_fp32);
	put_u32(f, "lora_tasks", a->lora_tasks);
	put_u32(f, "lora_rank", a->lora_rank);
	fputs("\n\t\t\t", f);
	put_u32(f, "vis_kind", a->vis_kind);
	put_u32(f, "vis_layers", a->vis_layers);
	put_u32(f, "vis_hidden", a->vis_hidden);
	put_u32(f, "vis_ffn", a->vis_ffn);
	put_u32(f, "vis_heads", a->vis_heads);
	put_u32(f, "vis_patch", a->vis_patch);
	put_u32(f, "vis_image", a->vis_image);
	put_u32(f, "vis_temporal", a->vis_temporal);
	put_u32(f, "vis_merge", a->vis_merge);
	put_u32(f, "vis_tokens", a->vis_tokens);
	put_u32(f, "vis_proj_in", a->vis_proj_in);
	put_u32(f, "vis_proj_out", a->vis_proj_out);
	put_bool(f, "vis_proj_bias", a->vis_proj_bias);
	put_u32(f, "vis_pos", a->vis_pos);
	put_u32(f, "vis_deepstack", a->vis_deepstack);
	put_u32(f, "vis_global", a->vis_global);
	put_u32(f, "vis_tiles", a->vis_tiles);
	put_u32(f, "vis_aspects", a->vis_aspects);
	put_u32(f, "xattn_layers", a->xattn_layers);
	put_u32(f, "extra_vocab", a->extra_vocab);
	put_u32(f, "vis_chans", a->vis_chans);
	put_u32(f, "classes", a->classes);
	fputs("},\n", f);
}

/* models[] (kind "model") or archs[] (kind "arch"): entries as loaded, aliases and names as string arrays */
static void put_models(FILE *f, const char *kind, const struct sl_model *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		put_aliases(f, kind, i, v[i].aliases, v[i].naliases);
		if (v[i].nnames) {
			fprintf(f, "static const char *const %s%zu_names[] = {", kind, i);
			for (size_t j = 0; j < v[i].nnames; j++) {
				fputs(j ? ", " : "", f);
				put_str(f, v[i].names[j]);
			}
			fputs("};\n", f);
		}
	}
	fprintf(f, "\nstatic const struct sl_model %ss[] = {\n", kind);
	for (size_t i = 0; i < n; i++) {
		const struct sl_model *m = &v[i];
		fputs("\t{\n\t\t.name = ", f);
		put_str(f, m->name);
		fputs(",\n\t\t.hf_id = ", f);
		put_str(f, m->hf_id);
		fputs(",\n", f);
		put_alias_ref(f, kind, i, m->naliases);
		if (m->nnames)
			fprintf(f, "\t\t.names = (const char **)%s%zu_names,\n\t\t.nnames = %zu,\n", kind, i, m->nnames);
		put_arch(f, &m->arch);
		fprintf(f, "\t\t.task = %d /* %s */,\n\t\t", (int)m->task, sl_task_name(m->task));
		put_u32(f, "st_max_seq_len", m->st_max_seq_len);
		put_u64(f, "official_params", m->official_params);
		put_double(f, "tolerance", m->tolerance);
		fputs("\n\t\t.source = ", f);
		put_str(f, m->source);
		if (m->series) {
			fputs(",\n\t\t.series = ", f);
			put_str(f, m->series);
		}
		fputs(",\n\t},\n", f);
	}
	fputs(n ? "};\n\n" : "\t{0},\n};\n\n", f);
}

static void put_gpus(FILE *f, const struct sl_catalog *c)
{
	for (size_t i = 0; i < c->ngpus; i++)
		put_aliases(f, "gpu", i, c->gpus[i].aliases, c->gpus[i].naliases);
	fputs("\nstatic const struct sl_gpu gpus[] = {\n", f);
	for (size_t i = 0; i < c->ngpus; i++) {
		const struct sl_gpu *g = &c->gpus[i];
		fputs("\t{\n\t\t.name = ", f);
		put_str(f, g->name);
		fputs(",\n\t\t.label = ", f);
		put_str(f, g->label);
		fputs(",\n\t\t", f);
		put_u64(f, "bytes", g->bytes);
		put_bool(f, "bf16", g->bf16);
		put_u32(f, "cc_major", g->cc_major);
		put_u32(f, "cc_minor", g->cc_minor);
		put_u32(f, "host_cores", g->host_cores);
		fputs("\n", f);
		put_alias_ref(f, "gpu", i, g->naliases);
		fputs("\t\t.source = ", f);
		put_str(f, g->source);
		fputs(",\n\t},\n", f);
	}
	fputs(c->ngpus ? "};\n\n" : "\t{0},\n};\n\n", f);
}

static void put_calib(FILE *f, const struct sl_calib *c)
{
	fputs("static const struct sl_calib calib = {\n\t", f);
	put_u64(f, "cuda_context", c->cuda_context);
	put_u64(f, "cuda_context_legacy", c->cuda_context_legacy);
	put_double(f, "slack_frac", c->slack_frac);
	fputs("\n\t", f);
	put_u64(f, "slack_min", c->slack_min);
	put_double(f, "eager_attn_copies", c->eager_attn_copies);
	put_double(f, "sdpa_attn_bytes", c->sdpa_attn_bytes);
	fputs("\n\t", f);
	put_double(f, "act_extra_frac", c->act_extra_frac);
	put_double(f, "zero_reuse_distance", c->zero_reuse_distance);
	put_double(f, "zero_sub_group", c->zero_sub_group);
	put_double(f, "zero_reduce_bucket", c->zero_reduce_bucket);
	put_double(f, "zero_prefetch_bucket", c->zero_prefetch_bucket);
	put_u64(f, "nccl_buffer", c->nccl_buffer);
	fputs("\n\t", f);
	put_u64(f, "host_base", c->host_base);
	put_u64(f, "host_per_worker", c->host_per_worker);
	put_double(f, "host_load_factor", c->host_load_factor);
	fputs("\n\t", f);
	put_double(f, "host_overhead_frac", c->host_overhead_frac);
	put_double(f, "flash_bwd_bytes", c->flash_bwd_bytes);
	put_double(f, "host_offload_factor", c->host_offload_factor);
	put_u64(f, "gen_max_length", c->gen_max_length);
	fputs("\n\t", f);
	put_u64(f, "bnb_min_8bit_size", c->bnb_min_8bit_size);
	put_u64(f, "bnb_block", c->bnb_block);
	put_u64(f, "bnb_paged_min", c->bnb_paged_min);
	fputs("\n\t", f);
	put_double(f, "vllm_utilization", c->vllm_utilization);
	put_u64(f, "vllm_batched_tokens", c->vllm_batched_tokens);
	put_u64(f, "vllm_batched_tokens_large", c->vllm_batched_tokens_large);
	fputs("\n\t", f);
	put_u64(f, "vllm_max_seqs", c->vllm_max_seqs);
	put_u64(f, "vllm_max_seqs_large", c->vllm_max_seqs_large);
	put_u64(f, "vllm_large_gpu", c->vllm_large_gpu);
	put_u64(f, "vllm_block_size", c->vllm_block_size);
	fputs("\n\t", f);
	put_u64(f, "vllm_non_torch", c->vllm_non_torch);
	put_double(f, "vllm_sampler_bytes", c->vllm_sampler_bytes);
	fputs("\n};\n\n", f);
}

static void put_rule(FILE *f, const struct sl_key_rule *r);

static void put_keys(FILE *f, const struct sl_keymap *km)
{
	fputs("static const struct sl_key_rule keys[] = {\n", f);
	for (size_t i = 0; i < km->n; i++) {
		fputs("\t", f);
		put_rule(f, &km->rules[i]);
		fputs(",\n", f);
	}
	fputs(km->n ? "};\n\n" : "\t{0},\n};\n\n", f);
}

/* A string array `name` (nothing when n is 0: the reference is NULL then). */
static void put_strs(FILE *f, const char *name, const char *const *v, size_t n)
{
	if (!n)
		return;
	fprintf(f, "static const char *const %s[] = {", name);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		put_str(f, v[i]);
	}
	fputs("};\n", f);
}

static void put_rule(FILE *f, const struct sl_key_rule *r)
{
	fputs("{.pattern = ", f);
	put_str(f, r->pattern);
	fprintf(f, ",\n\t .role = %d /* %s */, .if_true = ", (int)r->role, sl_role_name(r->role));
	put_str(f, r->if_true);
	fputs(", .if_false = ", f);
	put_str(f, r->if_false);
	fprintf(f, ", .add = %d, .origin = ", r->add);
	put_str(f, r->origin);
	fputs(", .code = NULL}", f);
}

/* rules/words.yaml as sl_keywords_parse read it: phrases, groups, entries, then the table */
static void put_words(FILE *f, const struct sl_keywords *kw)
{
	char name[64];
	for (size_t i = 0; i < kw->n; i++) {
		const struct sl_words_entry *e = &kw->e[i];
		for (size_t g = 0; g < e->nneed; g++) {
			fprintf(f, "static const struct sl_words_phrase words%zu_need%zu[] = {\n", i, g);
			for (size_t k = 0; k < e->need[g].n; k++) {
				const struct sl_words_phrase *p = &e->need[g].p[k];
				fputs("\t{{", f);
				for (size_t w = 0; w < p->n; w++) {
					fputs(w ? ", " : "", f);
					put_str(f, p->w[w]);
				}
				fprintf(f, "}, %zu},\n", p->n);
			}
			fputs("};\n", f);
		}
		fprintf(f, "static const struct sl_words_group words%zu_need[] = {", i);
		for (size_t g = 0; g < e->nneed; g++)
			fprintf(f, "%s{words%zu_need%zu, %zu}", g ? ", " : "", i, g, e->need[g].n);
		fputs("};\n", f);
		snprintf(name, sizeof name, "words%zu_may", i);
		put_strs(f, name, e->may, e->nmay);
	}
	fputs("static const struct sl_words_entry words_entries[] = {\n", f);
	for (size_t i = 0; i < kw->n; i++) {
		const struct sl_words_entry *e = &kw->e[i];
		fputs("\t{.rule = ", f);
		put_rule(f, &e->rule);
		fprintf(f, ",\n\t .need = words%zu_need, .nneed = %zu, ", i, e->nneed);
		if (e->nmay)
			fprintf(f, ".may = words%zu_may, .nmay = %zu},\n", i, e->nmay);
		else
			fputs(".may = NULL, .nmay = 0},\n", f);
	}
	fputs(kw->n ? "};\n" : "\t{0},\n};\n", f);
	put_strs(f, "words_ignore", kw->ignore, kw->nignore);
	put_strs(f, "words_known", kw->known, kw->nknown);
	fprintf(f, "static const struct sl_keywords words = {.e = words_entries, .n = %zu, .ignore = %s, .nignore = %zu,\n"
		   "\t.known = %s, .nknown = %zu};\n\n",
		kw->n, kw->nignore ? "words_ignore" : "NULL", kw->nignore, kw->nknown ? "words_known" : "NULL", kw->nknown);
}

/* What recognises each framework of rules/frameworks.yaml (its defaults stay in the YAML). */
static void put_frameworks(FILE *f, const struct sl_frameworks *fw)
{
	char name[64];
	size_t n = 0;
	const struct sl_framework_id *ids = sl_frameworks_ids(fw, &n);
	for (size_t i = 0; i < n; i++) {
		const struct sl_framework_id *id = &ids[i];
		snprintf(name, sizeof name, "framework%zu_keys", i);
		put_strs(f, name, id->keys, id->nkeys);
		snprintf(name, sizeof name, "framework%zu_commands", i);
		put_strs(f, name, id->commands, id->ncommands);
	}
	fputs("static const struct sl_framework_id frameworks[] = {\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct sl_framework_id *id = &ids[i];
		fputs("\t{.name = ", f);
		put_str(f, id->name);
		if (id->nkeys)
			fprintf(f, ", .keys = framework%zu_keys, .nkeys = %zu", i, id->nkeys);
		if (id->ncommands)
			fprintf(f, ", .commands = framework%zu_commands, .ncommands = %zu", i, id->ncommands);
		fputs("},\n", f);
	}
	fputs(n ? "};\n\n" : "\t{0},\n};\n\n", f);
}

/* pcre2_serialize_encode of codes[0..n) as an aligned byte array `name`; returns its length. */
static size_t put_codes(FILE *f, const char *name, const pcre2_code **codes, size_t n)
{
	uint8_t *bytes = NULL;
	PCRE2_SIZE len = 0;
	if (n) {
		int32_t rc = pcre2_serialize_encode(codes, (int32_t)n, &bytes, &len, NULL);
		if (rc != (int32_t)n) {
			PCRE2_UCHAR msg[256];
			pcre2_get_error_message(rc, msg, sizeof msg);
			fprintf(stderr, "gen_catalog: cannot serialise the %s: %s\n", name, (const char *)msg);
			exit(1);
		}
	}
	fprintf(f, "/* pcre2_serialize_encode of %zu patterns, PCRE2 %d.%d */\n", n, PCRE2_MAJOR, PCRE2_MINOR);
	fprintf(f, "static _Alignas(16) const unsigned char %s[%zu] = {", name, len ? (size_t)len : 1);
	for (PCRE2_SIZE i = 0; i < len; i++)
		fprintf(f, "%s%u,", i % 24 ? "" : "\n\t", bytes[i]);
	if (!len)
		fputs("0", f);
	fputs("\n};\n\n", f);
	if (bytes)
		pcre2_serialize_free(bytes);
	return (size_t)len;
}

int main(int argc, char **argv)
{
	if (argc != 9) {
		fputs("usage: gen_catalog OUT.c MODELS.yaml GPUS.yaml CALIBRATION.yaml KEYS.yaml WORDS.yaml WORKLOAD.yaml "
		      "FRAMEWORKS.yaml\n",
		      stderr);
		return 2;
	}
	struct sl_arena *a = sl_arena_new();
	struct sl_diags d;
	sl_diags_init(&d, a);

	struct sl_source *models = read_file(a, argv[2]);
	struct sl_source *gpus = read_file(a, argv[3]);
	struct sl_source *calsrc = read_file(a, argv[4]);
	struct sl_source *keysrc = read_file(a, argv[5]);
	struct sl_source *wordsrc = read_file(a, argv[6]);
	struct sl_source *worksrc = read_file(a, argv[7]);
	struct sl_source *fwsrc = read_file(a, argv[8]);

	struct sl_calib calib;
	sl_calib_parse(a, calsrc->display, calsrc->bytes, calsrc->len, &calib, &d);
	struct sl_catalog *cat = NULL;
	if (!d.n)
		sl_catalog_load_from(a, models, gpus, &cat, &d);
	struct sl_keymap *km = NULL;
	if (!d.n)
		km = sl_keymap_parse(a, keysrc->display, keysrc->bytes, keysrc->len, &d);
	const struct sl_keywords *kw = NULL;
	if (!d.n)
		kw = sl_keywords_parse(a, wordsrc->display, wordsrc->bytes, wordsrc->len, &d);
	const struct sl_workload *work = NULL;
	if (!d.n)
		work = sl_workload_parse(a, worksrc, &d);
	const struct sl_frameworks *fw = NULL;
	if (!d.n)
		fw = sl_frameworks_parse(a, fwsrc, &d);
	if (print_diags(&d) || !cat || !km || !kw || !work || !fw) {
		fprintf(stderr, "gen_catalog: the catalogs above do not load: fix them and rebuild\n");
		sl_arena_free(a);
		return 1;
	}

	size_t ncodes = 0;
	for (size_t i = 0; i < cat->nmodels; i++)
		ncodes += cat->models[i].naliases;
	for (size_t i = 0; i < cat->ngpus; i++)
		ncodes += cat->gpus[i].naliases;
	const pcre2_code **codes = sl_arena_array(a, ncodes + 1, sizeof *codes);
	size_t k = 0;
	for (int gpu = 0; gpu < 2; gpu++)
		for (size_t i = 0; i < (gpu ? cat->ngpus : cat->nmodels); i++)
			for (size_t j = 0; j < (gpu ? cat->gpus[i].naliases : cat->models[i].naliases); j++)
				if (!(codes[k++] = sl_catalog_alias_code(cat, gpu, i, j))) {
					fprintf(stderr, "gen_catalog: alias %zu of entry %zu has no compiled pattern\n", j, i);
					sl_arena_free(a);
					return 1;
				}
	const pcre2_code **kcodes = sl_arena_array(a, km->n + 1, sizeof *kcodes);
	for (size_t i = 0; i < km->n; i++)
		kcodes[i] = km->rules[i].code;
	size_t work_n[SL_WORKLOAD_LISTS], nwork = 0;
	for (int l = 0; l < SL_WORKLOAD_LISTS; l++) {
		void *const *c;
		work_n[l] = sl_workload_codes(work, l, &c);
		nwork += work_n[l];
	}
	const void *rcodes[SL_RESOLVER_PATTERNS];
	size_t nres = sl_scalar_resolver_codes(sl_scalar_resolver_new(a), rcodes);
	const pcre2_code **wcodes = sl_arena_array(a, nwork + 1, sizeof *wcodes);
	nwork = 0;
	for (int l = 0; l < SL_WORKLOAD_LISTS; l++) {
		void *const *c;
		for (size_t i = 0, n = sl_workload_codes(work, l, &c); i < n; i++)
			wcodes[nwork++] = c[i];
	}

	char *tmp = sl_arena_printf(a, "%s.tmp", argv[1]);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		sl_arena_free(a);
		return 1;
	}
	fprintf(f, "/* generated by src/snapshot/gen_catalog.c from %s, %s, %s, %s, %s, %s and %s — do not edit */\n",
		argv[2], argv[3], argv[4], argv[5], argv[6], argv[7], argv[8]);
	fputs("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n#include \"snapshot.h\"\n\n", f);
	put_models(f, "model", cat->models, cat->nmodels);
	put_models(f, "arch", cat->archs, cat->narchs);
	put_gpus(f, cat);
	put_calib(f, &calib);
	put_keys(f, km);
	put_words(f, kw);
	put_frameworks(f, fw);
	size_t alias_len = put_codes(f, "alias_codes", codes, ncodes);
	size_t key_len = put_codes(f, "key_codes", kcodes, km->n);
	size_t work_len = put_codes(f, "workload_codes", wcodes, nwork);
	size_t res_len = put_codes(f, "resolver_codes", (const pcre2_code **)rcodes, nres);
	size_t nfw = 0;
	sl_frameworks_ids(fw, &nfw);
	fprintf(f,
		"const struct sl_snapshot sl_snapshot = {\n"
		"\t.models = models,\n\t.nmodels = %zu,\n"
		"\t.archs = archs,\n\t.narchs = %zu,\n"
		"\t.gpus = gpus,\n\t.ngpus = %zu,\n"
		"\t.calib = &calib,\n"
		"\t.keys = keys,\n\t.nkeys = %zu,\n"
		"\t.alias_codes = alias_codes,\n\t.alias_codes_len = %zu,\n"
		"\t.key_codes = key_codes,\n\t.key_codes_len = %zu,\n"
		"\t.words = &words,\n"
		"\t.workload_codes = workload_codes,\n\t.workload_codes_len = %zu,\n"
		"\t.workload_n = {%zu, %zu, %zu},\n"
		"\t.frameworks = frameworks,\n\t.nframeworks = %zu,\n"
		"\t.resolver_codes = resolver_codes,\n\t.resolver_codes_len = %zu,\n"
		"};\n",
		cat->nmodels, cat->narchs, cat->ngpus, km->n, alias_len, key_len, work_len, work_n[0], work_n[1], work_n[2],
		nfw, res_len);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad || rename(tmp, argv[1]) != 0) {
		perror(argv[1]);
		remove(tmp);
		sl_arena_free(a);
		return 1;
	}
	sl_arena_free(a);
	return 0;
}
