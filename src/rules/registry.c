/*
 * registry: the one table of rules, and its agreement with rules/rules.yaml.
 *
 * The table holds what the compiler must know (slug, code, default severity,
 * check function) in code order; rules/rules.yaml holds what people read
 * (summary, help). They are joined by slug, and sl_rules_doc_load() refuses
 * a rules.yaml that disagrees with the table (tests/unit/test_registry.c).
 */
#include <cyaml/cyaml.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "sweeplint/arena.h"
#include "sweeplint/data.h"
#include "sweeplint/rules.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"

/* In code order. Pseudo-rules (check == NULL) are reported by the loader or the driver. */
const struct sl_rule sl_rules[] = {
	{"syntax", "SL100", SL_SEV_ERROR, NULL},
	{"schema", "SL101", SL_SEV_ERROR, sl_check_schema},
	{"yaml11-string", "SL102", SL_SEV_WARNING, sl_check_yaml11_string},
	{"oom", "SL201", SL_SEV_ERROR, sl_check_oom},
	{"near-capacity", "SL202", SL_SEV_WARNING, sl_check_near_capacity},
	{"underused", "SL203", SL_SEV_INFO, sl_check_underused},
	{"unknown-model", "SL204", SL_SEV_WARNING, sl_check_unknown_model},
	{"seq-len-exceeds-model", "SL205", SL_SEV_ERROR, sl_check_seq_len_exceeds_model},
	{"bf16-unsupported", "SL206", SL_SEV_ERROR, sl_check_bf16_unsupported},
	{"prefer-bf16", "SL207", SL_SEV_INFO, sl_check_prefer_bf16},
	{"eval-oom", "SL208", SL_SEV_ERROR, sl_check_eval_oom},
	{"eval-batch-ratio", "SL209", SL_SEV_INFO, sl_check_eval_batch_ratio},
	{"host-oom", "SL210", SL_SEV_ERROR, sl_check_host_oom},
	{"workers-over-cores", "SL211", SL_SEV_WARNING, sl_check_workers_over_cores},
	{"zero3-init-peak", "SL212", SL_SEV_WARNING, sl_check_zero3_init_peak},
	{"gc-off-large-model", "SL213", SL_SEV_WARNING, sl_check_gc_off_large_model},
	{"invalid-value", "SL214", SL_SEV_ERROR, sl_check_invalid_value},
	{"unknown-value", "SL215", SL_SEV_WARNING, sl_check_unknown_value},
	{"paged-optimizer-spill", "SL216", SL_SEV_WARNING, sl_check_paged_optimizer_spill},
	{"grid-distribution", "SL401", SL_SEV_ERROR, sl_check_grid_distribution},
	{"deprecated-distribution", "SL402", SL_SEV_WARNING, sl_check_deprecated_distribution},
	{"duplicate-value", "SL403", SL_SEV_WARNING, sl_check_duplicate_value},
	{"single-value-list", "SL404", SL_SEV_INFO, sl_check_single_value_list},
	{"value-is-list", "SL405", SL_SEV_WARNING, sl_check_value_is_list},
	{"grid-size", "SL406", SL_SEV_INFO, sl_check_grid_size},
	{"missing-run-cap", "SL407", SL_SEV_INFO, sl_check_missing_run_cap},
	{"not-a-sweep", "SL408", SL_SEV_WARNING, sl_check_not_a_sweep},
	{"sweep-unread", "SL409", SL_SEV_WARNING, sl_check_sweep_unread},
	{"config", "SL900", SL_SEV_ERROR, NULL},
	{"bad-suppression", "SL901", SL_SEV_WARNING, NULL},
	{"too-many-combinations", "SL902", SL_SEV_WARNING, sl_check_too_many_combinations},
};
const size_t sl_nrules = sizeof sl_rules / sizeof sl_rules[0];

const struct sl_rule *sl_rule_find(const char *slug_or_code)
{
	for (size_t i = 0; i < sl_nrules; i++)
		if (strcmp(sl_rules[i].slug, slug_or_code) == 0 || strcmp(sl_rules[i].code, slug_or_code) == 0)
			return &sl_rules[i];
	return NULL;
}

/* ---- rules.yaml through libcyaml ---- */

struct yrule {
	char *slug;
	char *code;
	enum sl_severity severity;
	char *summary;
	char *help;
};

struct yrules {
	struct yrule *rules;
	unsigned rules_count;
};

static const cyaml_strval_t sev_strings[] = {
	{"info", SL_SEV_INFO},
	{"warning", SL_SEV_WARNING},
	{"error", SL_SEV_ERROR},
};

static const cyaml_schema_field_t yrule_fields[] = {
	CYAML_FIELD_STRING_PTR("slug", CYAML_FLAG_POINTER, struct yrule, slug, 1, 64),
	CYAML_FIELD_STRING_PTR("code", CYAML_FLAG_POINTER, struct yrule, code, 5, 5),
	CYAML_FIELD_ENUM("severity", CYAML_FLAG_DEFAULT, struct yrule, severity, sev_strings,
			 CYAML_ARRAY_LEN(sev_strings)),
	CYAML_FIELD_STRING_PTR("summary", CYAML_FLAG_POINTER, struct yrule, summary, 1, 200),
	CYAML_FIELD_STRING_PTR("help", CYAML_FLAG_POINTER, struct yrule, help, 1, CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t yrule_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct yrule, yrule_fields),
};

static const cyaml_schema_field_t yrules_fields[] = {
	CYAML_FIELD_SEQUENCE("rules", CYAML_FLAG_POINTER, struct yrules, rules, &yrule_schema, 1,
			     CYAML_UNLIMITED),
	CYAML_FIELD_END,
};

static const cyaml_schema_value_t yrules_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct yrules, yrules_fields),
};

/* libcyaml reports problems only as text: keep the error-level lines. */
static void cyaml_log_to_buf(cyaml_log_t level, void *ctx, const char *fmt, va_list args)
{
	struct sl_buf *b = ctx;
	if (level < CYAML_LOG_ERROR)
		return;
	sl_buf_vaddf(b, fmt, args);
}

/*
 * The file being read: its source, line table and a second reading with
 * spans (ydoc) are made on the first problem only (a good rules.yaml needs
 * none of them, and the ydoc reading cost twice the libcyaml one).
 */
struct file {
	struct sl_arena *arena;
	const char *name, *bytes;
	size_t len;
	struct sl_source *src;
	struct sl_ydoc *doc;
	struct sl_diags syntax; /* what the ydoc reading found */
};

static struct sl_source *src_of(struct file *f)
{
	if (!f->src)
		f->src = sl_source_from_bytes(f->arena, f->name, f->bytes, f->len);
	return f->src;
}

static const struct sl_ydoc *doc_of(struct file *f)
{
	if (!f->doc) {
		sl_diags_init(&f->syntax, f->arena);
		f->doc = sl_ydoc_parse(f->arena, src_of(f), NULL, &f->syntax);
	}
	return f->doc;
}

/* The position of entry i of the rules sequence (its slug when present), else the file start. */
static struct sl_span entry_span(struct file *f, size_t i)
{
	const struct sl_ydoc *doc = doc_of(f);
	const struct sl_node *seq = doc->root ? sl_map_get(doc->root, "rules") : NULL;
	if (seq && seq->kind == SL_NODE_SEQ && i < seq->n) {
		const struct sl_node *slug = sl_map_get(seq->items[i], "slug");
		return slug ? slug->span : seq->items[i]->span;
	}
	if (seq)
		return seq->span;
	return sl_source_span(doc->src, 0, 0);
}

static bool valid_code(const char *c)
{
	return strlen(c) == 5 && c[0] == 'S' && c[1] == 'L' && c[2] >= '1' && c[2] <= '9' && c[3] >= '0' &&
	       c[3] <= '9' && c[4] >= '0' && c[4] <= '9';
}

/* Trim the line break a YAML literal block leaves at the end. */
static const char *trimmed(struct sl_arena *a, const char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	return sl_arena_strndup(a, s, n);
}

int sl_rules_doc_parse(struct sl_arena *a, const char *name, const char *bytes, size_t len,
		       const struct sl_rule_doc **out, struct sl_diags *diags)
{
	struct sl_buf log;
	sl_buf_init(&log, a);
	const cyaml_config_t config = {
		.log_fn = cyaml_log_to_buf,
		.log_ctx = &log,
		.mem_fn = cyaml_mem,
		.log_level = CYAML_LOG_ERROR,
		.flags = CYAML_CFG_DEFAULT,
	};
	struct yrules *y = NULL;
	int rc = 0;
	struct file f = {.arena = a, .name = name, .bytes = bytes, .len = len};
	*out = NULL;

	cyaml_err_t err = cyaml_load_data((const uint8_t *)bytes, len, &config, &yrules_schema, (cyaml_data_t **)&y,
					  NULL);
	if (err != CYAML_OK) {
		/* the ydoc reading locates syntax errors; libcyaml's text explains schema errors */
		doc_of(&f);
		struct sl_span at = f.syntax.n ? f.syntax.v[0].span : sl_source_span(src_of(&f), 0, 0);
		while (log.len && (log.buf[log.len - 1] == '\n' || log.buf[log.len - 1] == ' '))
			log.buf[--log.len] = '\0';
		for (char *p = log.buf; *p; p++)
			if (*p == '\n')
				*p = ' ';
		sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), at, "cannot load rule metadata: %s (%s)",
			     cyaml_strerror(err), log.len ? log.buf : "no detail");
		return -SL_ECONFIG;
	}

	struct sl_rule_doc *docs = sl_arena_array(a, sl_nrules, sizeof *docs);
	for (size_t i = 0; i < y->rules_count; i++) {
		const struct yrule *r = &y->rules[i];
		if (!valid_code(r->code)) {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), entry_span(&f, i),
				     "rule '%s' has code '%s', expected 'SL' and three digits", r->slug, r->code);
			rc = -SL_ECONFIG;
		}
		if (strchr(r->summary, '\n') || r->summary[strlen(r->summary) - 1] == '.') {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), entry_span(&f, i),
				     "rule '%s' has a summary that is not one line without a final period", r->slug);
			rc = -SL_ECONFIG;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(y->rules[j].slug, r->slug) == 0) {
				sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), entry_span(&f, i),
					     "rule '%s' is listed twice", r->slug);
				rc = -SL_ECONFIG;
			} else if (strcmp(y->rules[j].code, r->code) == 0) {
				sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), entry_span(&f, i),
					     "rules '%s' and '%s' share code '%s'", y->rules[j].slug, r->slug, r->code);
				rc = -SL_ECONFIG;
			}
		}
		size_t k = 0;
		while (k < sl_nrules && strcmp(sl_rules[k].slug, r->slug) != 0)
			k++;
		if (k == sl_nrules) {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), entry_span(&f, i),
				     "rule '%s' is in %s but not in the table of src/rules/registry.c", r->slug, name);
			rc = -SL_ECONFIG;
			continue;
		}
		const struct sl_rule *t = &sl_rules[k];
		if (strcmp(t->code, r->code) != 0) {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), entry_span(&f, i),
				     "rule '%s' has code '%s' here but '%s' in the table", r->slug, r->code, t->code);
			rc = -SL_ECONFIG;
		}
		if (t->severity != r->severity) {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), entry_span(&f, i),
				     "rule '%s' has severity '%s' here but '%s' in the table", r->slug,
				     sl_severity_name(r->severity), sl_severity_name(t->severity));
			rc = -SL_ECONFIG;
		}
		struct sl_rule_doc *d = &docs[k];
		if (d->rule)
			continue; /* listed twice: reported above */
		d->rule = t;
		d->slug = t->slug;
		d->code = t->code;
		d->severity = t->severity;
		d->summary = sl_arena_strdup(a, r->summary);
		d->help = trimmed(a, r->help);
	}
	for (size_t k = 0; k < sl_nrules; k++) {
		if (!docs[k].rule) {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), entry_span(&f, y->rules_count),
				     "rule '%s' (%s) is in the table of src/rules/registry.c but not in %s",
				     sl_rules[k].slug, sl_rules[k].code, name);
			rc = -SL_ECONFIG;
		}
		if (k && strcmp(sl_rules[k - 1].code, sl_rules[k].code) >= 0) {
			sl_diags_add(diags, "config", SL_SEV_ERROR, src_of(&f), sl_source_span(src_of(&f), 0, 0),
				     "the table of src/rules/registry.c is not in code order at '%s' (%s)",
				     sl_rules[k].slug, sl_rules[k].code);
			rc = -SL_ECONFIG;
		}
	}
	cyaml_free(&config, &yrules_schema, y, 0);
	if (rc == 0)
		*out = docs;
	return rc;
}

int sl_rules_doc_load(struct sl_arena *a, const struct sl_rule_doc **out, struct sl_diags *diags)
{
	const struct sl_blob *b = sl_data_get("rules.yaml");
	if (!b) {
		*out = NULL;
		return -SL_EINTERNAL;
	}
	return sl_rules_doc_parse(a, "rules/rules.yaml", b->bytes, b->len, out, diags);
}
