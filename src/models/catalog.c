/*
 * catalog: rules/models.yaml, rules/architectures.yaml and rules/gpus.yaml
 * (embedded, see data.h; rules/calibration.yaml is the estimator's: the
 * snapshot's copy travels in the catalog, memory/calib.c parses it)
 * loaded with libcyaml into the run arena, alias patterns compiled once with
 * PCRE2, and the lookups by name, HF id, path suffix, alias or raw size.
 * The embedded files are loaded this way at build time (src/snapshot/gen_catalog.c):
 * sl_catalog_load copies that snapshot into the arena and decodes its
 * serialised patterns; sl_catalog_load_from parses.
 *
 * libcyaml's data is kept (its strings become the catalog's) and freed by
 * the arena, as are the compiled patterns. Problems in the data are
 * diagnostics (rule "catalog") pointing into the YAML: libcyaml's own errors
 * at the line/column of its backtrace, semantic ones (unknown family, bad
 * pattern, bad size) at the node found with ydoc.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <ctype.h>
#include <cyaml/cyaml.h>
#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "snapshot.h"
#include "hfconfig.h"
#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/diag.h"
#include "sweeplint/models.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

#define RULE "catalog"

/* --- libcyaml schemas ------------------------------------------------------ */

struct y_model {
	char *name;
	char *hf_id;
	char **aliases;
	unsigned aliases_count;
	char *family;
	char *task;
	uint32_t st_max_seq_length;
	struct hf_config *config;
	uint64_t official_params;
	double tolerance;
	char **names;
	unsigned names_count;
	char *source;
	char *series;
};

struct y_models {
	struct y_model *models;
	unsigned models_count;
};

struct y_gpu {
	char *name;
	char *label;
	char **aliases;
	unsigned aliases_count;
	char *memory;
	bool bf16;
	char *cc;
	char *source;
};

struct y_gpus {
	struct y_gpu *gpus;
	unsigned gpus_count;
};

static const cyaml_schema_value_t string_schema = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, CYAML_UNLIMITED),
};

static const cyaml_schema_value_t uint_schema = {
	CYAML_VALUE_UINT(CYAML_FLAG_DEFAULT, uint32_t),
};

/* The config keys as libcyaml fields (hfconfig.h HF_CONFIG_KEYS; "auto" is config.json's alone) */
#define HF_CY_U(st, k) CYAML_FIELD_UINT_PTR(#k, CYAML_FLAG_OPTIONAL, struct st, k),
#define HF_CY_A(st, k) CYAML_FIELD_UINT_PTR(#k, CYAML_FLAG_OPTIONAL, struct st, k),
#define HF_CY_P(st, k) CYAML_FIELD_UINT_PTR(#k, CYAML_FLAG_OPTIONAL, struct st, k),
#define HF_CY_I(st, k) CYAML_FIELD_INT_PTR(#k, CYAML_FLAG_OPTIONAL, struct st, k),
#define HF_CY_B(st, k) CYAML_FIELD_BOOL_PTR(#k, CYAML_FLAG_OPTIONAL, struct st, k),
#define HF_CY_S(st, k) CYAML_FIELD_STRING_PTR(#k, CYAML_FLAG_OPTIONAL, struct st, k, 1, CYAML_UNLIMITED),
#define HF_CY_L(st, k) \
	CYAML_FIELD_SEQUENCE(#k, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct st, k, &string_schema, 0, CYAML_UNLIMITED),
#define HF_CY_F(st, k) CYAML_FIELD_FLOAT_PTR(#k, CYAML_FLAG_OPTIONAL, struct st, k),
#define HF_CY_N(st, k) \
	CYAML_FIELD_SEQUENCE(#k, CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct st, k, &uint_schema, 0, CYAML_UNLIMITED),
/* one integer or a list in config.json (longformer attention_window): the list here */
#define HF_CY_W(st, k) HF_CY_N(st, k)
/* a list config.json holds whose length alone counts (mllama supported_aspect_ratios): the length here */
#define HF_CY_Z(st, k) CYAML_FIELD_UINT_PTR(#k, CYAML_FLAG_OPTIONAL, struct st, k),
#define HF_CY_CONFIG(k, t) HF_CY_##t(hf_config, k)
#define HF_CY_VISION(k, t) HF_CY_##t(hf_vision, k)
static const cyaml_schema_field_t vision_fields[] = {
	HF_VISION_KEYS(HF_CY_VISION)
	CYAML_FIELD_END,
};
static const cyaml_schema_field_t hf_fields[] = {
	HF_CONFIG_KEYS(HF_CY_CONFIG)
	/* rules/ YAML names the class as one string (config.json: architectures[0]) */
	CYAML_FIELD_STRING_PTR("architecture", CYAML_FLAG_OPTIONAL, struct hf_config, architecture, 1,
			       CYAML_UNLIMITED),
	CYAML_FIELD_MAPPING_PTR("vision_config", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct hf_config,
				vision_config, vision_fields),
	CYAML_FIELD_END,
};

static const cyaml_schema_field_t model_fields[] = {
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct y_model, name, 1, CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("hf_id", CYAML_FLAG_POINTER, struct y_model, hf_id, 1, CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("aliases", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_model, aliases,
			     &string_schema, 0, CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("family", CYAML_FLAG_POINTER, struct y_model, family, 1, CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("task", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_model, task, 1,
			       CYAML_UNLIMITED),
	CYAML_FIELD_UINT("st_max_seq_length", CYAML_FLAG_OPTIONAL, struct y_model, st_max_seq_length),
	CYAML_FIELD_MAPPING_PTR("config", CYAML_FLAG_POINTER, struct y_model, config, hf_fields),
	CYAML_FIELD_UINT("official_params", CYAML_FLAG_OPTIONAL, struct y_model, official_params),
	CYAML_FIELD_FLOAT("tolerance", CYAML_FLAG_OPTIONAL, struct y_model, tolerance),
	CYAML_FIELD_SEQUENCE("names", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_model, names, &string_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("source", CYAML_FLAG_POINTER, struct y_model, source, 1, CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("series", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_model, series, 1,
			       CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t model_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_model, model_fields),
};

static const cyaml_schema_field_t models_fields[] = {
	CYAML_FIELD_SEQUENCE("models", CYAML_FLAG_POINTER, struct y_models, models, &model_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t models_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct y_models, models_fields),
};

/* rules/architectures.yaml: the same entries under "architectures" */
static const cyaml_schema_field_t archs_fields[] = {
	CYAML_FIELD_SEQUENCE("architectures", CYAML_FLAG_POINTER, struct y_models, models, &model_schema, 0,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t archs_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct y_models, archs_fields),
};

static const cyaml_schema_field_t gpu_fields[] = {
	CYAML_FIELD_STRING_PTR("name", CYAML_FLAG_POINTER, struct y_gpu, name, 1, CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("label", CYAML_FLAG_POINTER, struct y_gpu, label, 1, CYAML_UNLIMITED),
	CYAML_FIELD_SEQUENCE("aliases", CYAML_FLAG_POINTER | CYAML_FLAG_OPTIONAL, struct y_gpu, aliases,
			     &string_schema, 0, CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("memory", CYAML_FLAG_POINTER, struct y_gpu, memory, 1, CYAML_UNLIMITED),
	CYAML_FIELD_BOOL("bf16", CYAML_FLAG_DEFAULT, struct y_gpu, bf16),
	CYAML_FIELD_STRING_PTR("cc", CYAML_FLAG_POINTER, struct y_gpu, cc, 1, CYAML_UNLIMITED),
	CYAML_FIELD_STRING_PTR("source", CYAML_FLAG_POINTER, struct y_gpu, source, 1, CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t gpu_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct y_gpu, gpu_fields),
};

static const cyaml_schema_field_t gpus_fields[] = {
	CYAML_FIELD_SEQUENCE("gpus", CYAML_FLAG_POINTER, struct y_gpus, gpus, &gpu_schema, 0, CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t gpus_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct y_gpus, gpus_fields),
};

/* --- loading --------------------------------------------------------------- */

/* Compiled alias patterns, parallel to models[] and gpus[]. */
struct alias_set {
	pcre2_code **codes;
	size_t n;
};

struct priv {
	struct alias_set *model_aliases;
	struct alias_set *gpu_aliases;
};

/*
 * One YAML file being loaded: its bytes, diagnostics, and its source and
 * ydoc, made on the first problem (an embedded file's line table is not
 * worth building when nothing is reported in it).
 */
struct file {
	struct sl_arena *arena;
	const char *bytes;
	size_t len;
	const char *name;     /* embedded: its name under rules/ */
	struct sl_source *src_;
	struct sl_diags *diags;
	struct sl_ydoc *doc;
	const char *list_key; /* "models" / "gpus" */
	size_t errors;
};

static struct sl_source *src_of(struct file *f)
{
	if (!f->src_)
		f->src_ = sl_source_from_bytes(f->arena, sl_arena_printf(f->arena, "rules/%s", f->name), f->bytes, f->len);
	return f->src_;
}

/* libcyaml's log lines of one load, collected. */
struct cylog {
	struct sl_buf text;
};

static void cy_log(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
	struct cylog *log = ctx;
	if (level < CYAML_LOG_ERROR)
		return;
	sl_buf_vaddf(&log->text, fmt, args);
}

static void *cy_mem(void *ctx, void *ptr, size_t size)
{
	(void)ctx;
	if (size == 0) {
		free(ptr);
		return NULL;
	}
	void *p = realloc(ptr, size);
	if (!p)
		sl_oom();
	return p;
}

/* Byte offset of 1-based line, 1-based character column (clamped to the line). */
static size_t line_col_to_byte(const struct sl_source *s, size_t line, size_t col)
{
	if (line < 1 || line > s->nlines)
		return line < 1 ? 0 : s->len;
	size_t off = s->line_start[line - 1];
	for (size_t c = 1; c < col && off < s->len && s->bytes[off] != '\n'; c++) {
		off++;
		while (off < s->len && ((unsigned char)s->bytes[off] & 0xC0) == 0x80)
			off++;
	}
	return off;
}

static struct sl_diag *report(struct file *f, struct sl_span span, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static struct sl_diag *report(struct file *f, struct sl_span span, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct sl_diag *d = sl_diags_vadd(f->diags, RULE, SL_SEV_ERROR, src_of(f), span, fmt, ap);
	va_end(ap);
	f->errors++;
	return d;
}

/*
 * Turn libcyaml's log into one diagnostic: the first line that is not the
 * backtrace header is the message; the innermost "(line: L, column: C)" is
 * where (libcyaml prints 1-based lines and columns, at the event it was
 * reading: for an unexpected key that is the value before it).
 */
static void report_cyaml(struct file *f, const struct cylog *log, cyaml_err_t err)
{
	/* YAML syntax errors: ydoc knows where they are */
	struct sl_diags syn;
	sl_diags_init(&syn, f->arena);
	f->doc = sl_ydoc_parse(f->arena, src_of(f), NULL, &syn);
	if (syn.n) {
		for (size_t i = 0; i < syn.n; i++)
			report(f, syn.v[i].span, "invalid %s: %s", src_of(f)->display, syn.v[i].message);
		return;
	}

	const char *t = log->text.buf ? log->text.buf : "";
	const char *msg = NULL;
	size_t msglen = 0;
	for (const char *p = t; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (!msg && n && strncmp(p, "Load: Backtrace", 15) != 0 && p[0] != ' ') {
			msg = p;
			msglen = n;
		}
		p += n + (nl ? 1 : 0);
	}
	if (msg && strncmp(msg, "Load: ", 6) == 0)
		msg += 6, msglen -= 6;

	size_t line = 0, col = 0, off = 0, end = 0;
	const char *at = strstr(t, "(line: ");
	if (at && sscanf(at, "(line: %zu, column: %zu)", &line, &col) == 2)
		off = end = line_col_to_byte(src_of(f), line, col);
	/* an unexpected key is reported at the event before it: find the key itself */
	static const char unexpected[] = "Unexpected key: ";
	if (msg && msglen > sizeof unexpected - 1 && strncmp(msg, unexpected, sizeof unexpected - 1) == 0) {
		size_t klen = msglen - (sizeof unexpected - 1);
		const char *k = memmem(src_of(f)->bytes + off, src_of(f)->len - off, msg + sizeof unexpected - 1, klen);
		if (k) {
			off = (size_t)(k - src_of(f)->bytes);
			end = off + klen;
		}
	}
	struct sl_span span = sl_source_span(src_of(f), off, end);

	char *m = msg ? sl_arena_strndup(f->arena, msg, msglen) : sl_arena_strdup(f->arena, cyaml_strerror(err));
	/* git style: lower-case first letter */
	if (m[0])
		m[0] = (char)tolower((unsigned char)m[0]);
	report(f, span, "invalid %s: %s", src_of(f)->display, m);
}

/* The ydoc node of list_key[i].field (or the entry when field is NULL); NULL when absent. */
static const struct sl_node *node_of(struct file *f, size_t i, const char *field)
{
	if (!f->doc) {
		struct sl_diags scratch;
		sl_diags_init(&scratch, f->arena);
		f->doc = sl_ydoc_parse(f->arena, src_of(f), NULL, &scratch);
	}
	if (!f->doc->ok || !f->doc->root)
		return NULL;
	const struct sl_node *list = sl_map_get(f->doc->root, f->list_key);
	if (!list || list->kind != SL_NODE_SEQ || i >= list->n)
		return NULL;
	const struct sl_node *entry = list->items[i];
	if (!field)
		return entry;
	return entry->kind == SL_NODE_MAP ? sl_map_get(entry, field) : NULL;
}

static struct sl_span span_of(struct file *f, size_t i, const char *field)
{
	const struct sl_node *n = node_of(f, i, field);
	if (!n)
		n = node_of(f, i, NULL);
	return n ? n->span : sl_source_span(src_of(f), 0, 0);
}

static struct sl_span alias_span(struct file *f, size_t i, size_t j)
{
	const struct sl_node *n = node_of(f, i, "aliases");
	if (n && n->kind == SL_NODE_SEQ && j < n->n)
		return n->items[j]->span;
	return span_of(f, i, "aliases");
}

static void cy_free_models(void *p)
{
	static const cyaml_config_t cfg = {.mem_fn = cy_mem, .log_level = CYAML_LOG_ERROR};
	cyaml_free(&cfg, &models_schema, p, 0);
}

static void cy_free_archs(void *p)
{
	static const cyaml_config_t cfg = {.mem_fn = cy_mem, .log_level = CYAML_LOG_ERROR};
	cyaml_free(&cfg, &archs_schema, p, 0);
}

static void cy_free_gpus(void *p)
{
	static const cyaml_config_t cfg = {.mem_fn = cy_mem, .log_level = CYAML_LOG_ERROR};
	cyaml_free(&cfg, &gpus_schema, p, 0);
}

static void code_free(void *p)
{
	pcre2_code_free(p);
}

/*
 * Compile one alias (entry i, alias j): anchored at both ends, caseless,
 * UTF-8. NULL (and a diagnostic) when invalid. The span is looked up only
 * then: finding it parses the whole file with ydoc, which a valid catalog
 * never needs.
 */
static pcre2_code *alias_compile(const char *pattern, int *errcode, PCRE2_SIZE *erroff)
{
	return pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
			     PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_CASELESS | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
			     errcode, erroff, NULL);
}

static pcre2_code *compile_alias(struct file *f, const char *pattern, size_t i, size_t j)
{
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *code = alias_compile(pattern, &errcode, &erroff);
	if (!code) {
		PCRE2_UCHAR buf[256];
		pcre2_get_error_message(errcode, buf, sizeof buf);
		report(f, alias_span(f, i, j), "invalid alias pattern '%s': %s at offset %zu", pattern, (const char *)buf,
		       (size_t)erroff);
		return NULL;
	}
	sl_arena_defer(f->arena, code_free, code);
	return code;
}

static void compile_aliases(struct file *f, size_t i, char **aliases, unsigned n, struct alias_set *out)
{
	out->codes = sl_arena_array(f->arena, n, sizeof *out->codes);
	out->n = 0;
	for (unsigned j = 0; j < n; j++) {
		pcre2_code *code = compile_alias(f, aliases[j], i, j);
		if (code)
			out->codes[out->n++] = code;
	}
}

static const char *family_list(struct sl_arena *a)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (int i = 0; i < SL_FAMILY__COUNT; i++)
		if (i != SL_FAMILY_CUSTOM) /* built from a layer list, never named */
			sl_buf_addf(&b, "%s%s", i ? ", " : "", sl_family_name((enum sl_family)i));
	return b.buf;
}

/*
 * The entries of models.yaml (table false: into cat->models, aliases
 * compiled) or of architectures.yaml (table true: into cat->archs, matched
 * by their plain names only, so an alias there is an error).
 */
static void load_models(struct file *f, struct sl_catalog *cat, struct priv *pv, bool table)
{
	struct cylog log;
	sl_buf_init(&log.text, f->arena);
	cyaml_config_t cfg = {
		.log_fn = cy_log, .log_ctx = &log, .mem_fn = cy_mem, .log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_DEFAULT,
	};
	struct y_models *y = NULL;
	cyaml_err_t err = cyaml_load_data((const uint8_t *)f->bytes, f->len, &cfg, table ? &archs_schema : &models_schema,
					  (cyaml_data_t **)&y, NULL);
	if (err != CYAML_OK) {
		report_cyaml(f, &log, err);
		return;
	}
	sl_arena_defer(f->arena, table ? cy_free_archs : cy_free_models, y);

	struct sl_model *out = sl_arena_array(f->arena, y->models_count, sizeof *out);
	struct alias_set *sets = sl_arena_array(f->arena, y->models_count, sizeof *sets);
	size_t n = 0;
	for (size_t i = 0; i < y->models_count; i++) {
		const struct y_model *ym = &y->models[i];
		struct sl_model *m = &out[n];
		size_t before = f->errors;

		for (size_t k = 0; k < n; k++)
			if (strcasecmp(out[k].name, ym->name) == 0)
				report(f, span_of(f, i, "name"), "duplicate model name '%s'", ym->name);
		if (table && ym->aliases_count)
			report(f, span_of(f, i, "aliases"),
			       "architecture '%s' has aliases: the table is matched by plain 'names', not patterns",
			       ym->name);
		if (ym->tolerance < 0 || ym->tolerance > 0.02)
			report(f, span_of(f, i, "tolerance"), "tolerance of '%s' must be between 0 and 0.02", ym->name);
		for (unsigned k = 0; k < ym->names_count; k++)
			for (const char *p = ym->names[k]; *p; p++)
				if (*p >= 'A' && *p <= 'Z') {
					report(f, span_of(f, i, "names"), "name '%s' of '%s' must be lower case",
					       ym->names[k], ym->name);
					break;
				}
		for (const char *p = ym->series ? ym->series : ""; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.')) {
				report(f, span_of(f, i, "series"),
				       "series '%s' of '%s' must be a lower-case name (letters, digits, '-', '_', '.')", ym->series,
				       ym->name);
				break;
			}

		int fam = sl_family_parse(ym->family);
		if (fam < 0) {
			report(f, span_of(f, i, "family"), "unknown family '%s' for model '%s'", ym->family, ym->name)
				->hint = sl_arena_printf(f->arena, "known families: %s", family_list(f->arena));
			continue;
		}
		const char *missing = hf_config_to_arch((enum sl_family)fam, ym->config, &m->arch);
		if (missing) {
			report(f, span_of(f, i, "config"), "config of model '%s' has no '%s' (required for family '%s')",
			       ym->name, missing, ym->family);
			continue;
		}
		if (ym->task) {
			int t = sl_task_parse(ym->task);
			if (t < 0) {
				report(f, span_of(f, i, "task"), "unknown task '%s' for model '%s'", ym->task, ym->name);
				continue;
			}
			m->task = (enum sl_task)t;
		} else {
			m->task = m->arch.kind == SL_ARCH_ENCODER   ? SL_TASK_SEQ_CLS
				  : m->arch.kind == SL_ARCH_DECODER ? SL_TASK_CAUSAL_LM
								    : SL_TASK_SEQ2SEQ;
		}
		if (!table)
			compile_aliases(f, i, ym->aliases, ym->aliases_count, &sets[n]);
		if (f->errors != before)
			continue;

		m->name = ym->name;
		m->hf_id = ym->hf_id;
		m->aliases = table ? NULL : (const char **)ym->aliases;
		m->naliases = table ? 0 : ym->aliases_count;
		m->names = (const char **)ym->names;
		m->nnames = ym->names_count;
		m->st_max_seq_len = ym->st_max_seq_length;
		m->official_params = ym->official_params;
		m->tolerance = ym->tolerance;
		m->source = ym->source;
		m->series = ym->series;
		n++;
	}
	if (table) {
		cat->archs = out;
		cat->narchs = n;
	} else {
		cat->models = out;
		cat->nmodels = n;
		pv->model_aliases = sets;
	}
}

static bool parse_cc(const char *s, uint32_t *major, uint32_t *minor)
{
	unsigned a, b;
	int used = 0;
	if (sscanf(s, "%u.%u%n", &a, &b, &used) != 2 || s[used] != '\0')
		return false;
	*major = a;
	*minor = b;
	return true;
}

static void load_gpus(struct file *f, struct sl_catalog *cat, struct priv *pv)
{
	struct cylog log;
	sl_buf_init(&log.text, f->arena);
	cyaml_config_t cfg = {
		.log_fn = cy_log, .log_ctx = &log, .mem_fn = cy_mem, .log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_DEFAULT,
	};
	struct y_gpus *y = NULL;
	cyaml_err_t err = cyaml_load_data((const uint8_t *)f->bytes, f->len, &cfg, &gpus_schema,
					  (cyaml_data_t **)&y, NULL);
	if (err != CYAML_OK) {
		report_cyaml(f, &log, err);
		return;
	}
	sl_arena_defer(f->arena, cy_free_gpus, y);

	struct sl_gpu *gpus = sl_arena_array(f->arena, y->gpus_count, sizeof *gpus);
	cat->gpus = gpus;
	pv->gpu_aliases = sl_arena_array(f->arena, y->gpus_count, sizeof *pv->gpu_aliases);
	size_t n = 0;
	for (size_t i = 0; i < y->gpus_count; i++) {
		const struct y_gpu *yg = &y->gpus[i];
		struct sl_gpu *g = &gpus[n];
		size_t before = f->errors;

		for (size_t k = 0; k < n; k++)
			if (strcasecmp(cat->gpus[k].name, yg->name) == 0)
				report(f, span_of(f, i, "name"), "duplicate gpu name '%s'", yg->name);
		if (!sl_size_parse(yg->memory, &g->bytes))
			report(f, span_of(f, i, "memory"), "invalid memory size '%s' for gpu '%s'", yg->memory,
			       yg->name)
				->hint = "write a size such as '81082MiB' or '80GiB'";
		if (!parse_cc(yg->cc, &g->cc_major, &g->cc_minor))
			report(f, span_of(f, i, "cc"), "invalid compute capability '%s' for gpu '%s'", yg->cc,
			       yg->name)
				->hint = "write it as \"major.minor\", e.g. \"9.0\"";
		compile_aliases(f, i, yg->aliases, yg->aliases_count, &pv->gpu_aliases[n]);
		if (f->errors != before)
			continue;
		g->name = yg->name;
		g->label = yg->label;
		g->bf16 = yg->bf16;
		g->aliases = (const char **)yg->aliases;
		g->naliases = yg->aliases_count;
		g->source = yg->source;
		n++;
	}
	cat->ngpus = n;
}

/* A file from a given source, or the embedded one of that name. */
static struct file file_of(struct sl_arena *a, struct sl_source *src, const char *name, struct sl_diags *diags,
			   const char *list_key)
{
	struct file f = {.arena = a, .diags = diags, .list_key = list_key, .name = name, .src_ = src};
	if (src) {
		f.bytes = src->bytes;
		f.len = src->len;
	} else {
		const struct sl_blob *b = sl_data_get(name);
		f.bytes = b ? b->bytes : "";
		f.len = b ? b->len : 0;
	}
	return f;
}

int sl_catalog_load_from(struct sl_arena *a, struct sl_source *models, struct sl_source *gpus,
			 struct sl_catalog **out, struct sl_diags *diags)
{
	struct sl_catalog *cat = sl_arena_alloc(a, sizeof *cat);
	struct priv *pv = sl_arena_alloc(a, sizeof *pv);
	cat->priv = pv;

	struct file mf = file_of(a, models, "models.yaml", diags, "models");
	load_models(&mf, cat, pv, false);
	struct file af = file_of(a, NULL, "architectures.yaml", diags, "architectures");
	load_models(&af, cat, pv, true);
	struct file gf = file_of(a, gpus, "gpus.yaml", diags, "gpus");
	load_gpus(&gf, cat, pv);

	/* rules/calibration.yaml belongs to the estimator: memory/calib.c fills cat->calib (zero here) */
#ifndef SL_SNAPSHOT_GENERATOR
	cat->index_arena = a; /* the name index is made by the first match by name (most runs have none) */
#endif

	*out = cat;
	return mf.errors || af.errors || gf.errors ? -SL_ECONFIG : 0;
}

const void *sl_catalog_alias_code(const struct sl_catalog *c, bool gpu, size_t i, size_t j)
{
	const struct priv *pv = c ? c->priv : NULL;
	const struct alias_set *sets = pv ? (gpu ? pv->gpu_aliases : pv->model_aliases) : NULL;
	if (!sets || i >= (gpu ? c->ngpus : c->nmodels) || j >= sets[i].n)
		return NULL;
	return sets[i].codes[j];
}

/* The generator (src/snapshot/gen_catalog.c) links this file to parse; the snapshot is its output. */
#ifndef SL_SNAPSHOT_GENERATOR
/*
 * The snapshot's patterns compiled from their text, for a PCRE2 that cannot
 * decode them. False when one does not compile: the caller parses instead.
 */
static bool compile_snapshot_aliases(struct sl_arena *a, const struct sl_snapshot *s, pcre2_code **codes)
{
	size_t k = 0;
	for (int gpu = 0; gpu < 2; gpu++) {
		size_t n = gpu ? s->ngpus : s->nmodels;
		for (size_t i = 0; i < n; i++) {
			const char **aliases = gpu ? s->gpus[i].aliases : s->models[i].aliases;
			size_t na = gpu ? s->gpus[i].naliases : s->models[i].naliases;
			for (size_t j = 0; j < na; j++) {
				int errcode;
				PCRE2_SIZE erroff;
				pcre2_code *code = alias_compile(aliases[j], &errcode, &erroff);
				if (!code)
					return false;
				sl_arena_defer(a, code_free, code);
				codes[k++] = code;
			}
		}
	}
	return true;
}

int sl_catalog_from_snapshot(struct sl_arena *a, const struct sl_snapshot *s, struct sl_catalog **out,
			     struct sl_diags *diags)
{
	size_t ncodes = 0;
	for (size_t i = 0; i < s->nmodels; i++)
		ncodes += s->models[i].naliases;
	for (size_t i = 0; i < s->ngpus; i++)
		ncodes += s->gpus[i].naliases;
	pcre2_code **codes = sl_arena_array(a, ncodes ? ncodes : 1, sizeof *codes);
	if (!sl_snapshot_decode(a, s->alias_codes, s->alias_codes_len, ncodes, (void **)codes) &&
	    !compile_snapshot_aliases(a, s, codes)) {
		int rc = sl_catalog_load_from(a, NULL, NULL, out, diags);
		(*out)->calib = *s->calib; /* checked by the build like the rest of the snapshot */
		return rc;
	}

	struct sl_catalog *cat = sl_arena_alloc(a, sizeof *cat);
	struct priv *pv = sl_arena_alloc(a, sizeof *pv);
	cat->priv = pv;
	cat->nmodels = s->nmodels;
	/* the entries are read-only: the catalog is the snapshot's tables (copying them cost ~20 page faults a run) */
	cat->models = s->models;
	cat->narchs = s->narchs;
	cat->archs = s->archs;
	cat->ngpus = s->ngpus;
	cat->gpus = s->gpus;
	cat->calib = *s->calib;

	pv->model_aliases = sl_arena_array(a, s->nmodels ? s->nmodels : 1, sizeof *pv->model_aliases);
	pv->gpu_aliases = sl_arena_array(a, s->ngpus ? s->ngpus : 1, sizeof *pv->gpu_aliases);
	size_t k = 0;
	for (size_t i = 0; i < s->nmodels; i++) {
		pv->model_aliases[i] = (struct alias_set){.codes = codes + k, .n = s->models[i].naliases};
		k += s->models[i].naliases;
	}
	for (size_t i = 0; i < s->ngpus; i++) {
		pv->gpu_aliases[i] = (struct alias_set){.codes = codes + k, .n = s->gpus[i].naliases};
		k += s->gpus[i].naliases;
	}
	cat->index_arena = a; /* the name index is made by the first match by name (most runs have none) */
	*out = cat;
	return 0;
}

int sl_catalog_load(struct sl_arena *a, struct sl_catalog **out, struct sl_diags *diags)
{
	return sl_catalog_from_snapshot(a, &sl_snapshot, out, diags);
}
#endif

/* --- lookups --------------------------------------------------------------- */

static bool any_alias(const struct alias_set *set, const char *s)
{
	if (!set || !set->n)
		return false;
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	if (!md)
		sl_oom();
	bool hit = false;
	for (size_t j = 0; j < set->n && !hit; j++)
		hit = pcre2_match(set->codes[j], (PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0;
	pcre2_match_data_free(md);
	return hit;
}

static const struct sl_model *find_model_exact(const struct sl_catalog *c, const char *s)
{
	const struct priv *pv = c->priv;
	for (size_t i = 0; i < c->nmodels; i++)
		if (strcasecmp(c->models[i].name, s) == 0 || strcasecmp(c->models[i].hf_id, s) == 0)
			return &c->models[i];
	for (size_t i = 0; i < c->nmodels; i++)
		if (any_alias(&pv->model_aliases[i], s))
			return &c->models[i];
	return NULL;
}

const struct sl_model *sl_catalog_find_model(const struct sl_catalog *c, const char *name)
{
	if (!c || !name || !*name)
		return NULL;
	const struct sl_model *m = find_model_exact(c, name);
	if (m)
		return m;

	/* a path or URL: try its "org/name" suffix, then its last component */
	size_t n = strlen(name);
	while (n > 0 && name[n - 1] == '/')
		n--;
	size_t last = n;
	while (last > 0 && name[last - 1] != '/')
		last--;
	if (last == 0 || last == n)
		return NULL;
	size_t org = last - 1;
	while (org > 0 && name[org - 1] != '/')
		org--;

	char *buf = malloc(n + 1);
	if (!buf)
		sl_oom();
	memcpy(buf, name, n);
	buf[n] = '\0';
	if (org < last - 1)
		m = find_model_exact(c, buf + org);
	if (!m)
		m = find_model_exact(c, buf + last);
	free(buf);
	return m;
}

const struct sl_gpu *sl_catalog_find_gpu(struct sl_arena *a, const struct sl_catalog *c, const char *name)
{
	if (!c || !name || !*name)
		return NULL;
	const struct priv *pv = c->priv;
	for (size_t i = 0; i < c->ngpus; i++)
		if (strcasecmp(c->gpus[i].name, name) == 0 || strcasecmp(c->gpus[i].label, name) == 0)
			return &c->gpus[i];
	for (size_t i = 0; i < c->ngpus; i++)
		if (any_alias(&pv->gpu_aliases[i], name))
			return &c->gpus[i];

	uint64_t bytes;
	if (!sl_size_parse(name, &bytes))
		return NULL;
	struct sl_gpu *g = sl_arena_alloc(a, sizeof *g);
	g->name = sl_arena_strdup(a, name);
	g->label = sl_arena_printf(a, "a GPU with %.4g GiB", (double)bytes / (1024.0 * 1024 * 1024));
	g->bytes = bytes;
	g->bf16 = true; /* unknown hardware: do not flag bf16 */
	return g;
}

/* --- sizes ----------------------------------------------------------------- */

bool sl_size_parse(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *unit;
		unsigned shift;
	} units[] = {
		{"", 30},   {"k", 10},   {"kb", 10}, {"kib", 10}, {"m", 20},  {"mb", 20},  {"mib", 20},
		{"g", 30},  {"gb", 30},  {"gib", 30}, {"t", 40},  {"tb", 40}, {"tib", 40}, {"b", 0},
	};
	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return false;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return false;
	/* strtod takes hex and exponents; a size is digits with at most one dot */
	for (const char *p = s; p < end; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
	while (isspace((unsigned char)*end))
		end++;
	size_t ulen = strlen(end);
	while (ulen && isspace((unsigned char)end[ulen - 1]))
		ulen--;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strlen(units[i].unit) != ulen || strncasecmp(end, units[i].unit, ulen) != 0)
			continue;
		double b = ldexp(v, (int)units[i].shift);
		if (b < 1 || b > 0x1p60)
			return false;
		*bytes = (uint64_t)b;
		return true;
	}
	return false;
}
