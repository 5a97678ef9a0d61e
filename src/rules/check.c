/*
 * check: the driver. It turns a source into a checked file: parse (a syntax
 * finding stops there), the W&B view, every enabled rule at its effective
 * severity, inline suppressions (contract §3), and a sorted result.
 *
 * Suppressions are comments, which libyaml does not report: the driver
 * finds them with PCRE2 as a '#' at the start of a line or after a blank,
 * and keeps only those outside every scalar of the parsed tree (so a '#'
 * inside quotes or a block scalar is text, not a comment).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sweeplint/arena.h"
#include "sweeplint/eval.h"
#include "sweeplint/memory.h"
#include "sweeplint/path.h"
#include "sweeplint/program.h"
#include "sweeplint/pysweep.h"
#include "sweeplint/roles.h"
#include "sweeplint/rules.h"
#include "sweeplint/run.h"
#include "sweeplint/scalar.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/trainer.h"
#include "sweeplint/ydoc.h"

/* disable-file counts only in the first lines of a file (contract §3). */
#define DISABLE_FILE_LINES 10

struct sl_suppress {
	pcre2_code *directive;  /* a comment that talks to sweeplint */
	pcre2_code *nocolon;    /* "# sweeplint disable=...": a directive without its ':' */
	pcre2_code *body;       /* what a directive may say */
	pcre2_code *name;       /* one rule name in a disable= list */
	pcre2_match_data *md;
};

/* ---- the run ---- */

static void free_code(void *p)
{
	pcre2_code_free(p);
}

static void free_match_data(void *p)
{
	pcre2_match_data_free(p);
}

static pcre2_code *compile(struct sl_arena *a, const char *pattern, uint32_t flags)
{
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	if (!cc)
		sl_oom();
	pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF);
	/*
	 * Byte mode, not PCRE2_UTF: the patterns are ASCII (UTF-8 never hides an
	 * ASCII byte inside a character), a file that is not UTF-8 still has its
	 * comments read, and nothing re-validates the whole file on each match.
	 */
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE | flags, &errcode, &erroff,
				       cc);
	pcre2_compile_context_free(cc);
	if (!re)
		abort(); /* the patterns are constants of this file: a failure is a bug */
	sl_arena_defer(a, free_code, re);
	return re;
}

struct sl_run *sl_run_new(void)
{
	struct sl_arena *a = sl_arena_new();
	struct sl_run *run = sl_arena_alloc(a, sizeof *run);
	run->arena = a;
	run->opt.headroom = SL_DEFAULT_HEADROOM;
	run->opt.format = SL_FORMAT_TEXT;
	run->severity = sl_arena_array(a, sl_nrules, sizeof *run->severity);
	run->severity_set = sl_arena_array(a, sl_nrules, sizeof *run->severity_set);
	for (size_t i = 0; i < sl_nrules; i++)
		run->severity[i] = sl_rules[i].severity;
	run->resolver = sl_scalar_resolver_new(a);
	sl_diags_init(&run->diags, a);
	run->program_budget_ms = SL_PROGRAM_BUDGET_MS;

	run->suppress = sl_arena_alloc(a, sizeof *run->suppress); /* compiled at the first directive (suppress()) */
	return run;
}

/* The directive patterns, compiled when a comment first names sweeplint (most files have none). */
static const struct sl_suppress *suppress(struct sl_run *run)
{
	struct sl_suppress *s = run->suppress;
	if (s->directive)
		return s;
	struct sl_arena *a = run->arena;
	/*
	 * The marker, the keywords and the rule names are read without regard to
	 * case (`# SWEEPLINT: DISABLE=OOM` is `# sweeplint: disable=oom`, as flake8
	 * reads `# NOQA`), and the blanks around ':' and '=' are optional.
	 */
	s->directive = compile(a, "\\A#[ \\t]*sweeplint[ \\t]*:[ \\t]*([^\\r\\n]*?)[ \\t]*$", PCRE2_CASELESS);
	s->nocolon = compile(a, "\\A#[ \\t]*sweeplint[ \\t-]*disable", PCRE2_CASELESS);
	/* disable-file | disable=a,b — optionally followed by a reason: " -- why" or " # why" */
	s->body = compile(a, "\\A(?:(disable-file)|disable[ \\t]*=[ \\t]*([^ \\t,#]+(?:[ \\t]*,[ \\t]*[^ \\t,#]+)*))"
			     "(?:[ \\t]+(?:--|#)[^\\r\\n]*)?\\z",
			 PCRE2_CASELESS);
	s->name = compile(a, "[^ \\t,#]+", 0);
	s->md = pcre2_match_data_create(8, NULL);
	if (!s->md)
		sl_oom();
	sl_arena_defer(a, free_match_data, s->md);
	return s;
}

/* Whether [p, p + n) names sweeplint in any case: every directive, and every near miss, does. */
static bool names_sweeplint(const char *p, size_t n)
{
	for (size_t i = 0; i + 9 <= n; i++)
		if (strncasecmp(p + i, "sweeplint", 9) == 0)
			return true;
	return false;
}

void sl_run_free(struct sl_run *run)
{
	if (run)
		sl_arena_free(run->arena);
}

int sl_run_set_severity(struct sl_run *run, const char *slug_or_code, enum sl_severity sev)
{
	const struct sl_rule *r = sl_rule_find(slug_or_code);
	if (!r)
		return -SL_ENOENT;
	if (strcmp(r->slug, "syntax") == 0)
		return -SL_EUSAGE;
	size_t i = (size_t)(r - sl_rules);
	run->severity[i] = sev;
	run->severity_set[i] = true;
	return 0;
}

enum sl_severity sl_run_severity(const struct sl_run *run, const struct sl_rule *r)
{
	return run->severity[r - sl_rules];
}

/* ---- what checks call ---- */

struct sl_diag *sl_check_emit_span(struct sl_check *cx, struct sl_span span, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct sl_diag *d = sl_diags_vadd(cx->diags, cx->rule->slug, cx->severity, cx->src, span, fmt, ap);
	va_end(ap);
	return d;
}

struct sl_diag *sl_check_emit(struct sl_check *cx, const struct sl_node *at, const char *fmt, ...)
{
	struct sl_span span;
	if (at)
		span = at->span;
	else if (cx->doc && cx->doc->root)
		span = cx->doc->root->span;
	else
		span = sl_source_span(cx->src, 0, 0);
	va_list ap;
	va_start(ap, fmt);
	struct sl_diag *d = sl_diags_vadd(cx->diags, cx->rule->slug, cx->severity, cx->src, span, fmt, ap);
	va_end(ap);
	return d;
}

/* ---- the memory model: one evaluation per file, shared by the 2xx rules ---- */

static bool memory_rules_on(const struct sl_run *run)
{
	for (size_t i = 0; i < sl_nrules; i++)
		if (strncmp(sl_rules[i].code, "SL2", 3) == 0 && sl_rules[i].check && run->severity[i] != SL_SEV_OFF)
			return true;
	return false;
}

/* The key map in effect: the project's (.sweeplint.yaml) or the built-in one. */
static const struct sl_keymap *keymap(const struct sl_run *run)
{
	return run->opt.keys ? run->opt.keys : run->keys;
}

int sl_run_prepare(struct sl_run *run, const char **why)
{
	static const char *const none = NULL;
	if (!why)
		why = (const char **)&none;
	if (!memory_rules_on(run))
		return 0; /* nothing needs the catalogs */
	if (run->prepared) {
		*why = "the GPU or a --set cannot be used";
		return run->gpu ? 0 : -SL_EUSAGE;
	}
	/* once per project config: config.c clears prepared when it applies another */
	run->prepared = true;
	run->gpu = NULL;
	struct sl_arena *a = run->arena;
	if (!run->catalog && sl_catalog_load(a, &run->catalog, &run->diags) != 0) {
		run->catalog = NULL;
		*why = "the embedded catalogs do not load";
		return -SL_ECONFIG;
	}
	if (!run->workload)
		run->workload = sl_workload_new(a, &run->diags); /* NULL: each evaluation tries and reports */
	if (!run->frameworks)
		run->frameworks = sl_frameworks_new(a, &run->diags);
	if (!run->keys && !(run->keys = sl_keymap_new(a, &run->diags))) {
		*why = "the embedded key map does not load";
		return -SL_ECONFIG;
	}
	const char *name = run->opt.gpu ? run->opt.gpu : SL_DEFAULT_GPU;
	const struct sl_gpu *gpu = sl_catalog_find_gpu(a, run->catalog, name);
	if (!gpu) {
		*why = sl_arena_printf(a, "unknown GPU '%s' (see 'sweeplint gpus', or give a size such as 24GiB)", name);
		return -SL_EUSAGE;
	}
	run->sets = sl_arena_array(a, run->opt.nsets ? run->opt.nsets : 1, sizeof *run->sets);
	for (size_t i = 0; i < run->opt.nsets; i++) {
		const struct sl_set *st = &run->opt.sets[i];
		run->sets[i] = sl_arena_printf(a, "%s=%s", st->key, st->value);
		int role = sl_role_parse(st->key);
		const struct sl_key_rule *rule = NULL;
		if (role < 0) {
			const struct sl_key_rule *limited;
			rule = sl_keymap_match_limited(keymap(run), st->key, strlen(st->key), &limited);
			if (limited) {
				*why = sl_arena_printf(a, "--set %s: key pattern '%s' (%s) passes PCRE2's match limit on "
							  "'%s': which role it has cannot be told",
						       sl_term_safe(a, run->sets[i]), sl_term_safe(a, limited->pattern),
						       sl_term_safe(a, limited->origin), sl_term_safe(a, st->key));
				return -SL_EUSAGE;
			}
			if (!rule) {
				*why = sl_arena_printf(a, "--set %s: '%s' is neither a role nor a key sweeplint maps to one",
						       run->sets[i], st->key);
				return -SL_EUSAGE;
			}
			role = (int)rule->role;
		}
		struct sl_role_value rv;
		const char *bad = NULL;
		struct sl_value typed = sl_scalar_resolve(run->resolver, st->value, strlen(st->value), true, NULL, NULL);
		if (sl_role_value_from_text(a, (enum sl_role)role, rule, st->value, &typed, &rv, &bad) < 0) {
			*why = sl_arena_printf(a, "--set %s: %s", run->sets[i], bad);
			return -SL_EUSAGE;
		}
	}
	run->gpu = gpu;
	return 0;
}

/*
 * notes[0..n) without repeats, in their order (the same model resolved for each of the axes that name it, a
 * program's setting read by the same sinks from several calls): the count kept. Hashed: a model axis may
 * hold thousands of values.
 */
static size_t unique_notes(struct sl_arena *a, const char **notes, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	const char **seen = sl_arena_array(a, cap, sizeof *seen);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = notes[i];
		size_t h = 5381;
		for (const char *c = s; *c; c++)
			h = h * 33 + (unsigned char)*c;
		size_t at = h & (cap - 1);
		bool dup = false;
		while (seen[at] && !(dup = strcmp(seen[at], s) == 0))
			at = (at + 1) & (cap - 1);
		if (dup)
			continue;
		seen[at] = s;
		notes[k++] = s;
	}
	return k;
}

static const char *note_line(struct sl_arena *a, const struct sl_eval_note *n)
{
	/* a program's literal: "model: klue/roberta-large from train.py:41 (argparse default of --model_name)" */
	if (n->how && n->role >= 0)
		return sl_arena_printf(a, "%s: %s from %s (%s%s%s)%s%s", sl_role_name((enum sl_role)n->role), n->detail,
				       n->where, n->how, n->chain ? "; via " : "", n->chain ? n->chain : "",
				       n->overridden_by ? "; overridden by " : "", n->overridden_by ? n->overridden_by : "");
	if (n->how)
		return sl_arena_printf(a, "%s from %s (%s): %s", n->key, n->where, n->how, n->detail);
	if (n->role < 0)
		return sl_arena_printf(a, "%s (%s): %s", n->key, n->where, n->detail);
	if (n->rule)
		return sl_arena_printf(a, "%s (%s) -> %s: %s [%s]", n->key, n->where, sl_role_name((enum sl_role)n->role),
				       n->detail, sl_key_rule_describe(a, n->rule));
	return sl_arena_printf(a, "%s (%s) -> %s: %s", n->key, n->where, sl_role_name((enum sl_role)n->role),
			       n->detail);
}

/* -v: how a model value resolved (docs/models.md "Resolving a model value"). */
static const char *model_note(struct sl_arena *a, const char *value, const struct sl_model *m, const char *why)
{
	if (!m && why)
		return sl_arena_printf(a, "model \"%s\": unknown (%s)", value, why);
	if (!m)
		return sl_arena_printf(a, "model \"%s\": unknown (not a local config, not in the Hugging Face cache, the "
					  "catalog or the architecture table)",
				       value);
	if (m->resolved_note)
		return sl_arena_printf(a, "model \"%s\": %s (%s)", value, m->resolved_note,
				       m->resolved_from ? m->resolved_from : "?");
	return sl_arena_printf(a, "model \"%s\": resolved by %s as %s (%s)", value, m->resolved_by ? m->resolved_by : "?",
			       m->name, m->resolved_from ? m->resolved_from : "?");
}

static struct sl_count count_sum(struct sl_count x, struct sl_count y)
{
	struct sl_count r = {.infinite = x.infinite || y.infinite, .saturated = x.saturated || y.saturated};
	r.value = x.value > UINT64_MAX - y.value ? UINT64_MAX : x.value + y.value;
	r.saturated |= x.value > UINT64_MAX - y.value;
	return r;
}

/*
 * The sweep parameters that are not memory values: those the program reads as a Hydra group choice, and
 * those Trainer.hyperparameter_search drops (transformers sets only the trainer's TrainingArguments
 * fields: src/pysweep/hpsearch.c), each with why.
 */
static void ignored_params(struct sl_run *run, struct sl_file *f)
{
	struct sl_arena *a = f->arena;
	size_t nprog = f->program ? f->program->nignore_params : 0;
	const struct sl_pysweep *ps = f->pysweep;
	size_t cap = nprog + (ps && ps->hp_space ? f->sweep->nparams : 0);
	if (!cap)
		return;
	f->ignore = sl_arena_array(a, cap, sizeof *f->ignore);
	f->ignore_why = sl_arena_array(a, cap, sizeof *f->ignore_why);
	for (size_t i = 0; i < nprog; i++)
		f->ignore[f->nignore++] = f->program->ignore_params[i];
	if (!ps || !ps->hp_space)
		return;
	for (size_t i = 0; i < f->sweep->nparams; i++) {
		const struct sl_param *p = &f->sweep->params[i];
		if (p->is_dict || !sl_keymap_match(keymap(run), p->path, strlen(p->path)))
			continue; /* not memory-relevant: what transformers does with it changes no verdict */
		if (sl_hp_search_field(ps->args_class, p->path) != 0)
			continue;
		f->ignore_why[f->nignore] = sl_arena_printf(
			a, "not a field of %s: hyperparameter_search drops it (transformers' _hp_search_setup sets only "
			   "the trainer's arguments) unless model_init reads it from the trial",
			ps->args_class);
		f->ignore[f->nignore++] = p->path;
	}
}

/* Evaluate every combination of f once for the memory rules; fill f->combos from it. */
static void evaluate(struct sl_run *run, struct sl_file *f)
{
	struct sl_arena *a = f->arena;
	const char *why = NULL;
	int rc = sl_run_prepare(run, &why);
	if (rc < 0) {
		if (!f->err) {
			f->err = rc;
			f->err_rule = "oom";
		}
		return;
	}
	f->gpu_name = run->gpu->name;
	f->gpu_bytes = run->gpu->bytes;
	/* the files of a program found by its name only: the axes they set rest on that guess */
	const struct sl_source **guess_srcs = NULL;
	size_t nguess = 0;
	if (f->program && f->program->settings_guessed) {
		guess_srcs = sl_arena_array(a, f->program->nsettings ? f->program->nsettings : 1, sizeof *guess_srcs);
		for (size_t i = 0; i < f->program->nsettings; i++)
			if (f->program->settings_guessed[i] && f->program->settings[i]->src)
				guess_srcs[nguess++] = f->program->settings[i]->src;
	}
	struct sl_eval_opts o = {
		.cat = run->catalog,
		.gpu = run->gpu,
		.keys = keymap(run),
		.configs = (const struct sl_trainer *const *)f->configs,
		.nconfigs = f->nconfigs,
		.sets = run->sets,
		.nsets = run->opt.nsets,
		.base_dir = strcmp(f->src->path, "-") == 0 ? NULL : sl_path_dir(a, f->src->path),
		.root = f->root,
		.headroom = run->opt.headroom > 0 ? run->opt.headroom : SL_DEFAULT_HEADROOM,
		.num_gpus = run->opt.num_gpus,
		.resolver = run->resolver,
		.workload = run->workload,
		.frameworks = run->frameworks,
		.model_aliases = run->opt.model_aliases,
		.hf_cache = run->opt.hf_cache,
		.hub = run->opt.fetch ? run->opt.hub : NULL,
		.nmodel_aliases = run->opt.nmodel_aliases,
		.ignore_params = f->ignore,
		.nignore_params = f->nignore,
		.ignore_why = f->ignore_why,
		.param_roles = f->program ? f->program->roles : NULL,
		.nparam_roles = f->program ? f->program->nroles : 0,
		.sweep_unread = f->program && f->program->reaches == 0 ? f->program->reach_why : NULL,
		.unread_params = f->program ? (const char *const *)f->program->unread_params : NULL,
		.nunread_params = f->program ? f->program->nunread_params : 0,
		.args_why = f->program ? f->program->args_why : NULL,
		.quant_open = f->program ? f->program->quant_open : NULL,
		.program_guess = f->program && f->program->nsettings ? f->program->ref.guessed : NULL,
		.guess_srcs = guess_srcs,
		.nguess_srcs = nguess,
		.max_combos = run->opt.max_combos,
	};
	struct sl_eval *ev = NULL;
	rc = sl_eval_run(a, f->sweep, &o, &f->diags, &ev, &why);
	if (rc < 0) {
		if (!f->err) {
			f->err = rc;
			f->err_rule = "oom";
		}
		return;
	}
	f->eval = ev;
	size_t nmodel_values = 0;
	for (size_t i = 0; i < ev->naxes; i++)
		if (ev->axes[i].role == SL_ROLE_MODEL)
			nmodel_values += ev->axes[i].n;
	struct sl_program *prog = f->program;
	size_t nprog = prog ? prog->nnotes : 0;
	f->notes = sl_arena_array(a, ev->nnotes + nmodel_values + nprog + 3, sizeof *f->notes);
	for (size_t i = 0; i < nprog; i++)
		f->notes[f->nnotes++] = prog->notes[i];
	for (size_t i = 0; i < ev->nnotes; i++)
		f->notes[f->nnotes++] = note_line(a, &ev->notes[i]);
	f->models = sl_arena_array(a, nmodel_values ? nmodel_values : 1, sizeof *f->models);
	for (size_t i = 0; i < ev->naxes; i++) {
		if (ev->axes[i].role != SL_ROLE_MODEL)
			continue;
		for (size_t j = 0; j < ev->axes[i].n; j++) {
			const struct sl_eval_value *v = &ev->axes[i].values[j];
			f->models[f->nmodels++] = (struct sl_model_use){.value = v->text, .model = v->model};
			f->notes[f->nnotes++] = model_note(a, v->text, v->model, v->ok ? v->why : NULL);
		}
	}
	f->nnotes = unique_notes(a, f->notes, f->nnotes); /* the same model noted once, not once per axis */
	if (!ev->has_model) {
		f->notes[f->nnotes++] = "no key sets the model: every combination is unknown";
		return;
	}
	if (ev->too_many) {
		f->notes[f->nnotes++] = "too many memory-relevant combinations: nothing estimated, every combination unknown";
		return;
	}
	f->notes[f->nnotes++] = sl_arena_printf(a, "%llu memory-relevant combination%s, %llu estimate%s (%llu memoised)",
						(unsigned long long)ev->ncombos, ev->ncombos == 1 ? "" : "s",
						(unsigned long long)ev->evaluated, ev->evaluated == 1 ? "" : "s",
						(unsigned long long)ev->memo_hits);
	if (ev->evaluated)
		f->notes[f->nnotes++] = sl_arena_printf(a, "the settings an oom error needs (worst combination): %s",
							sl_eval_origins_describe(a, ev, ev->worst_combo));
	f->evaluated = true;
	f->combos.fit = count_sum(ev->n[SL_VERDICT_FIT], ev->n[SL_VERDICT_NEAR]);
	f->combos.oom = ev->oom_sure;
	f->combos.at_risk = ev->at_risk;
	f->combos.unknown = ev->n[SL_VERDICT_UNKNOWN];
	f->combos.stated = ev->stated;
	f->combos.assumed = ev->assumed;
}

/* ---- suppressions ---- */

/* Byte ranges of scalars: a '#' inside one is text. */
struct ranges {
	size_t (*v)[2];
	size_t n, cap;
};

static void collect_scalars(struct sl_arena *a, struct ranges *r, const struct sl_node *n)
{
	if (n->kind == SL_NODE_SCALAR) {
		if (n->span.end <= n->span.start)
			return;
		if (r->n == r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 64;
			r->v = sl_arena_grow(a, r->v, r->n, cap, sizeof *r->v);
			r->cap = cap;
		}
		r->v[r->n][0] = n->span.start;
		r->v[r->n][1] = n->span.end;
		r->n++;
		return;
	}
	for (size_t i = 0; i < n->n; i++) {
		/* aliases share nodes: descend only where a node was first attached */
		const struct sl_node *k = n->kind == SL_NODE_MAP ? n->pairs[i].key : NULL;
		const struct sl_node *v = n->kind == SL_NODE_MAP ? n->pairs[i].value : n->items[i];
		if (k && k->parent == n)
			collect_scalars(a, r, k);
		if (v && v->parent == n)
			collect_scalars(a, r, v);
	}
}

static int cmp_range(const void *pa, const void *pb)
{
	const size_t *a = pa, *b = pb;
	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Is byte off inside one of the (sorted, non-nested) scalar ranges? */
static bool in_scalar(const struct ranges *r, size_t off)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->v[mid][0] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && off < r->v[lo - 1][1];
}

struct directive {
	uint32_t line;
	bool alone;                    /* nothing but blanks before the comment: covers the next line too */
	const struct sl_rule **rules;
	size_t n;
};

struct directives {
	struct directive *v;
	size_t n, cap;
	bool disable_file;
};

static void bad(struct sl_file *f, size_t lo, size_t hi, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Report a directive that does nothing (rule bad-suppression, unless it is off). */
static void bad(struct sl_file *f, size_t lo, size_t hi, const char *fmt, ...)
{
	const struct sl_rule *rule = sl_rule_find("bad-suppression");
	enum sl_severity sev = sl_run_severity(f->run, rule);
	if (sev == SL_SEV_OFF)
		return;
	va_list ap;
	va_start(ap, fmt);
	sl_diags_vadd(&f->diags, rule->slug, sev, f->src, sl_source_span(f->src, lo, hi), fmt, ap);
	va_end(ap);
}

/* A rule by slug or code, without regard to case ("OOM", "sl901"). */
static const struct sl_rule *rule_caseless(const char *name)
{
	for (size_t i = 0; i < sl_nrules; i++)
		if (strcasecmp(sl_rules[i].slug, name) == 0 || strcasecmp(sl_rules[i].code, name) == 0)
			return &sl_rules[i];
	return NULL;
}

/* Read one directive comment [c, eol): record what it disables, report what it cannot. */
static void read_directive(struct sl_file *f, struct directives *ds, size_t c, size_t eol, bool alone)
{
	struct sl_arena *a = f->arena;
	const char *bytes = f->src->bytes;
	if (!names_sweeplint(bytes + c, eol - c))
		return; /* an ordinary comment */
	const struct sl_suppress *s = suppress(f->run);
	int rc = pcre2_match(s->directive, (PCRE2_SPTR)bytes + c, eol - c, 0, 0, s->md, NULL);
	if (rc < 0) {
		if (pcre2_match(s->nocolon, (PCRE2_SPTR)bytes + c, eol - c, 0, 0, s->md, NULL) >= 0)
			bad(f, c, eol, "sweeplint directive without ':' (write '# sweeplint: disable=<rule>')");
		return; /* an ordinary comment */
	}
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
	size_t blo = c + ov[2], bhi = c + ov[3];
	uint32_t line, col;
	sl_source_linecol(f->src, c, &line, &col);
	const char *text = sl_arena_strndup(a, bytes + blo, bhi - blo);
	rc = pcre2_match(s->body, (PCRE2_SPTR)bytes + blo, bhi - blo, 0, 0, s->md, NULL);
	if (rc < 0) {
		bad(f, c, eol, "cannot read sweeplint directive '%s' (expected 'disable=<rule>[,<rule>]' or 'disable-file')",
		    text);
		return;
	}
	ov = pcre2_get_ovector_pointer(s->md);
	if (ov[2] != PCRE2_UNSET) {
		if (line > DISABLE_FILE_LINES) {
			bad(f, c, eol, "'disable-file' on line %u has no effect after line %d", line, DISABLE_FILE_LINES);
			return;
		}
		ds->disable_file = true;
		return;
	}
	size_t llo = blo + ov[4], lhi = blo + ov[5];
	struct directive d = {.line = line, .alone = alone};
	size_t cap = 0;
	for (size_t at = llo; at < lhi;) {
		rc = pcre2_match(s->name, (PCRE2_SPTR)bytes, lhi, at, 0, s->md, NULL);
		if (rc < 0)
			break;
		ov = pcre2_get_ovector_pointer(s->md);
		size_t nlo = ov[0], nhi = ov[1];
		at = nhi;
		const char *name = sl_arena_strndup(a, bytes + nlo, nhi - nlo);
		const struct sl_rule *r = rule_caseless(name);
		if (!r) {
			bad(f, nlo, nhi, "unknown rule '%s' in a suppression (see 'sweeplint rules')", name);
			continue;
		}
		if (strcmp(r->slug, "syntax") == 0) {
			bad(f, nlo, nhi, "rule '%s' cannot be suppressed", name);
			continue;
		}
		if (d.n == cap) {
			cap = cap ? cap * 2 : 4;
			d.rules = sl_arena_grow(a, d.rules, d.n, cap, sizeof *d.rules);
		}
		d.rules[d.n++] = r;
	}
	if (!d.n)
		return;
	if (ds->n == ds->cap) {
		ds->cap = ds->cap ? ds->cap * 2 : 8;
		ds->v = sl_arena_grow(a, ds->v, ds->n, ds->cap, sizeof *ds->v);
	}
	ds->v[ds->n++] = d;
}

static void find_directives(struct sl_file *f, struct directives *ds)
{
	struct sl_arena *a = f->arena;
	const struct sl_source *src = f->src;
	struct ranges r = {0};
	if (f->doc->root)
		collect_scalars(a, &r, f->doc->root);
	if (r.n > 1)
		qsort(r.v, r.n, sizeof *r.v, cmp_range);

	uint32_t done_line = 0; /* the line whose comment was already read */
	/* from past a BOM, so that a comment may open the first line */
	size_t at = src->bom;
	while (at < src->len) {
		/* a '#' at a line start or after a blank (memchr: linear, where a pattern tried at every
		 * position of a 16 MiB scalar took 6.5 s) */
		const char *h = memchr(src->bytes + at, '#', src->len - at);
		if (!h)
			break;
		size_t c = (size_t)(h - src->bytes);
		char before = c > src->bom ? src->bytes[c - 1] : '\n';
		if (before != '\n' && before != '\r' && before != ' ' && before != '\t') {
			at = c + 1;
			continue;
		}
		at = c + 1;
		if (in_scalar(&r, c))
			continue;
		uint32_t line, col;
		sl_source_linecol(src, c, &line, &col);
		if (line == done_line)
			continue; /* a '#' inside a comment */
		done_line = line;
		size_t len;
		const char *lp = sl_source_line(src, line, &len);
		size_t lstart = (size_t)(lp - src->bytes), eol = lstart + len;
		bool alone = true;
		for (size_t i = lstart < src->bom ? src->bom : lstart; i < c; i++)
			if (src->bytes[i] != ' ' && src->bytes[i] != '\t')
				alone = false;
		read_directive(f, ds, c, eol, alone);
		at = eol;
	}
}

static bool suppressed(const struct directives *ds, const struct sl_source *src, const struct sl_diag *d)
{
	if (strcmp(d->rule, "syntax") == 0)
		return false;
	if (d->src != src)
		return false; /* about a config file: its own comments would have to say so */
	if (ds->disable_file)
		return true;
	for (size_t i = 0; i < ds->n; i++) {
		const struct directive *x = &ds->v[i];
		if (!(x->line == d->span.line || (x->alone && x->line + 1 == d->span.line)))
			continue;
		for (size_t k = 0; k < x->n; k++)
			if (strcmp(x->rules[k]->slug, d->rule) == 0)
				return true;
	}
	return false;
}

static void apply_suppressions(struct sl_file *f)
{
	struct directives ds = {0};
	find_directives(f, &ds);
	size_t w = 0;
	for (size_t i = 0; i < f->diags.n; i++)
		if (!suppressed(&ds, f->src, &f->diags.v[i]))
			f->diags.v[w++] = f->diags.v[i];
	f->diags.n = w;
}

/* ---- the driver ---- */

static void free_cache(void *c)
{
	sl_parse_cache_free(c);
}

/* The program the sweep runs: its literal settings go below every config and sweep value. */
static void follow_program(struct sl_run *run, struct sl_file *f)
{
	struct sl_arena *a = f->arena;
	if (!run->parse_cache) {
		run->parse_cache = sl_parse_cache_new();
		sl_arena_defer(run->arena, free_cache, run->parse_cache);
	}
	if (!run->config_memo)
		run->config_memo = sl_config_memo_new(run->arena);
	struct sl_program_opts po = {
		.python = run->opt.python,
		.program = run->opt.program,
		.config_dir = run->opt.config_dir,
		.sweep_dir = sl_path_dir(a, f->src->path),
		.root = f->root,
		.res = run->resolver,
		.cache = run->parse_cache,
		.configs = run->config_memo,
		.budget_ms = &run->program_budget_ms,
	};
	/*
	 * A sweep defined in Python whose runs the same code executes (wandb.agent(sweep_id, function=train),
	 * Trainer.hyperparameter_search): that code is the program, in this process, from those entry points.
	 * A sweep the code only creates (the runs are `wandb agent ID` elsewhere) runs its program: or command:.
	 */
	const struct sl_pysweep *ps = f->pysweep;
	if (ps && (ps->function || ps->hp_space) && f->code_program) {
		const char **entry = sl_arena_array(a, 2, sizeof *entry);
		entry[0] = ps->function_local ? ps->function : ps->hp_space ? ps->model_init : NULL;
		po.program = NULL;
		po.code = f->code_program;
		po.code_src = f->code->notebook ? f->code : NULL;
		po.code_root = sl_path_dir(a, f->code->path);
		po.code_how = ps->hp_space ? sl_arena_printf(a, "%s runs the trainer at %s", ps->how,
							     sl_source_where(a, f->code, ps->at))
					   : sl_arena_printf(a, "wandb.agent runs %s() at %s", ps->function,
							     sl_source_where(a, f->code, ps->function_at));
		po.entry = entry;
		po.in_process = true;
		po.hp_search = ps->hp_space;
	}
	if (!run->program_memo)
		run->program_memo = sl_program_memo_new(run->arena);
	po.memo = run->program_memo;
	f->program = sl_program_follow(a, f->sweep, &po);
	if (!f->program || !f->program->nsettings)
		return;
	size_t n = f->program->nsettings + f->nconfigs;
	struct sl_trainer **all = sl_arena_array(a, n, sizeof *all);
	memcpy(all, f->program->settings, f->program->nsettings * sizeof *all);
	if (f->nconfigs)
		memcpy(all + f->program->nsettings, f->configs, f->nconfigs * sizeof *all);
	f->configs = all;
	f->nconfigs = n;
}

struct spec_ref {
	const char *s;
	size_t i;
};

static int by_spec_then_index(const void *p, const void *q)
{
	const struct spec_ref *a = p, *b = q;
	int c = strcmp(a->s, b->s);
	return c ? c : (a->i < b->i ? -1 : a->i > b->i);
}

/*
 * Which -c specs a later identical one repeats: applying [A, B, A] is
 * applying [B, A] (the last A sets all that the first did), so each spec is
 * loaded once, at its last place: 10,000 `-c A` cost one load, not 10,000.
 */
static bool *repeated_specs(struct sl_arena *a, const char *const *specs, size_t n)
{
	bool *rep = sl_arena_array(a, n ? n : 1, sizeof *rep);
	struct spec_ref *refs = sl_arena_array(a, n ? n : 1, sizeof *refs);
	for (size_t i = 0; i < n; i++)
		refs[i] = (struct spec_ref){specs[i], i};
	qsort(refs, n, sizeof *refs, by_spec_then_index);
	for (size_t i = 0; i + 1 < n; i++)
		rep[refs[i].i] = strcmp(refs[i].s, refs[i + 1].s) == 0;
	return rep;
}

struct sl_file *sl_run_check_source(struct sl_run *run, struct sl_source *src)
{
	return sl_run_check_source_in(run, run->arena, src);
}

/* A new file of the run in arena a, before its tree. */
static struct sl_file *new_file(struct sl_run *run, struct sl_arena *a, struct sl_source *src)
{
	struct sl_file *f = sl_arena_alloc(a, sizeof *f);
	f->run = run;
	f->arena = a;
	f->src = src;
	sl_diags_init(&f->diags, a);
	f->gpu_assumed = run->opt.gpu == NULL;
	f->gpu_name = f->gpu_assumed ? SL_DEFAULT_GPU : run->opt.gpu;
	return f;
}

/* Everything after the tree: the W&B view, the -c configs, the program, the evaluation, the rules. */
static void check_doc(struct sl_run *run, struct sl_file *f)
{
	struct sl_arena *a = f->arena;
	struct sl_source *src = f->src;
	f->sweep = sl_sweep_load(a, f->doc);
	f->root = sl_project_root(a, strcmp(src->path, "-") == 0 ? "." : sl_path_dir(a, src->path));
	if (!f->root)
		f->root = ""; /* its folder cannot be resolved: nothing is read on its behalf */
	if (run->opt.nconfigs) {
		const char *dir = strcmp(src->path, "-") == 0 ? NULL : sl_path_dir(a, src->path);
		f->configs = sl_arena_array(a, run->opt.nconfigs, sizeof *f->configs);
		bool *repeated = repeated_specs(a, run->opt.configs, run->opt.nconfigs);
		for (size_t i = 0; i < run->opt.nconfigs; i++) {
			if (repeated[i])
				continue;
			int rc = sl_trainer_load(a, run->opt.configs[i], dir, run->resolver, &f->diags,
						 &f->configs[f->nconfigs]);
			if (rc < 0) {
				if (!f->err) {
					f->err = rc;
					f->err_rule = "config";
				}
				continue;
			}
			f->nconfigs++;
		}
	}
	if (f->sweep->is_sweep && memory_rules_on(run) && !run->opt.no_follow && strcmp(src->path, "-") != 0)
		follow_program(run, f);
	if (f->sweep->is_sweep && memory_rules_on(run))
		ignored_params(run, f);
	if (f->sweep->is_sweep)
		f->combos.total = sl_sweep_grid_size(f->sweep);
	/* nothing is evaluated yet: every combination is unknown, none is called fit */
	f->combos.unknown = f->combos.total;
	/* an empty grid (`values: []`) has no combination to judge: no verdict, no memory finding */
	bool empty = !f->combos.total.infinite && !f->combos.total.saturated && f->combos.total.value == 0;
	if (f->sweep->is_sweep && memory_rules_on(run) && !empty)
		evaluate(run, f);

	for (size_t i = 0; i < sl_nrules; i++) {
		const struct sl_rule *r = &sl_rules[i];
		if (!r->check || run->severity[i] == SL_SEV_OFF)
			continue;
		struct sl_check cx = {
			.arena = a,
			.run = run,
			.file = f,
			.src = src,
			.doc = f->doc,
			.sweep = f->sweep,
			.rule = r,
			.severity = run->severity[i],
			.diags = &f->diags,
		};
		int rc = r->check(&cx);
		if (rc < 0 && !f->err) {
			f->err = rc;
			f->err_rule = r->slug;
		}
	}
	apply_suppressions(f);
	sl_diags_sort(&f->diags);
}

/* A YAML or JSON sweep file: parsed, then checked unless it does not parse. */
static void check_yaml(struct sl_run *run, struct sl_file *f)
{
	f->doc = sl_ydoc_parse(f->arena, f->src, run->resolver, &f->diags);
	/* W&B's PyYAML refuses a tab libyaml takes as a space, or stops at one before libyaml's own error */
	sl_ydoc_refuse_tabs(f->doc, &f->diags);
	if (!f->doc->ok) {
		/* the tree cannot be trusted: report where parsing stopped and nothing else */
		sl_diags_sort(&f->diags);
		return;
	}
	check_doc(run, f);
}

/* A document with no tree (code that defines no sweep sweeplint reads): nothing is checked. */
static struct sl_ydoc *no_tree(struct sl_arena *a, struct sl_source *src)
{
	struct sl_ydoc *doc = sl_arena_alloc(a, sizeof *doc);
	doc->src = src;
	doc->ok = true;
	return doc;
}

/* Notes said before the evaluation's own (how the sweep was found in the code). */
static void prepend_notes(struct sl_file *f, const char *const *notes, size_t n)
{
	if (!n)
		return;
	const char **v = sl_arena_array(f->arena, f->nnotes + n, sizeof *v);
	memcpy(v, notes, n * sizeof *v);
	if (f->nnotes)
		memcpy(v + n, f->notes, f->nnotes * sizeof *v);
	f->notes = v;
	f->nnotes += n;
}

/*
 * The file a sweep's code loads (yaml.safe_load(open("sweep.yaml"))): beside the code, else as written;
 * read only inside the code's project root (path.h: a file the code names is read on the project's
 * behalf), else refused with *why naming it.
 */
static struct sl_source *sweep_file(struct sl_arena *a, const struct sl_source *code, const struct sl_pysweep *s,
				    const char **why)
{
	const char *dir = sl_path_dir(a, code->path);
	const char *beside = s->file[0] == '/' ? s->file : sl_arena_printf(a, "%s/%s", dir, s->file);
	if (strcmp(dir, ".") == 0 && s->file[0] != '/')
		beside = s->file;
	const char *root = sl_project_root(a, dir);
	if (!root)
		root = "";
	const char *cands[2] = {beside, !s->file_script_dir && s->file[0] != '/' && strcmp(beside, s->file) != 0
						? s->file
						: NULL};
	int err = ENOENT;
	const char *refused = NULL;
	for (size_t i = 0; i < 2 && cands[i]; i++) {
		enum sl_contain in = sl_path_contain(a, root, cands[i], NULL);
		if (in == SL_CONTAIN_OUTSIDE) {
			if (!refused)
				refused = cands[i];
			continue;
		}
		if (in != SL_CONTAIN_INSIDE)
			continue;
		struct sl_source *src = sl_source_read(a, cands[i], SL_MAX_INPUT_BYTES, &err);
		if (src)
			return src;
	}
	*why = refused ? sl_arena_printf(a, "%s, outside the project (%s)", refused, root)
		       : sl_arena_printf(a, "%s: %s", beside, err == ENOENT ? "not found" : sl_source_strerror(err));
	return NULL;
}

/* What the code says of the sweep f is (set before its check: the program follower reads it). */
static void code_of(struct sl_arena *a, struct sl_file *f, struct sl_pysweeps *ps, const struct sl_pysweep *s,
		    bool program)
{
	f->code = ps->code;
	f->defined_by = s->how;
	f->defined_at = s->at;
	f->pysweep = s;
	if (program && (s->function || s->hp_space) && !f->code_program)
		f->code_program = sl_pysweep_program(a, ps);
}

/* One sweep the code defines, checked as a file of its own. */
static struct sl_file *check_pysweep(struct sl_run *run, struct sl_arena *a, struct sl_pysweeps *ps,
				     const struct sl_pysweep *s)
{
	struct sl_source *code = ps->code;
	/* "12:5" in a script, "cell 3:2:5" in a notebook */
	const char *where = sl_source_where(a, code, s->at) + strlen(code->display) + 1;
	const char *notes[8]; /* bound: one note, six dropped at most (nn < 7), one more */
	size_t nn = 0;
	struct sl_file *f;
	if (s->file && !s->unknown) {
		const char *why = NULL;
		struct sl_source *ysrc = sweep_file(a, code, s, &why);
		if (ysrc) {
			f = new_file(run, a, ysrc);
			notes[nn++] = sl_arena_printf(a, "the sweep %s makes at %s:%s: this file, as the code loads it",
						      s->how, code->display, where);
			code_of(a, f, ps, s, true);
			check_yaml(run, f);
		} else {
			f = new_file(run, a, code);
			f->doc = no_tree(a, code);
			notes[nn++] = sl_arena_printf(a, "%s: %s loads its sweep from %s: not read", where, s->how, why);
		}
	} else {
		f = new_file(run, a, code);
		notes[nn++] = sl_arena_printf(a, "%s: the sweep %s makes", where, s->how);
		for (size_t i = 0; i < s->ndropped && nn < 7; i++)
			notes[nn++] = sl_arena_printf(a, "%s: left out of the sweep: %s", where, s->dropped[i]);
		if (s->nproblems) {
			f->doc = no_tree(a, code);
			for (size_t i = 0; i < s->nproblems; i++) {
				const struct sl_rule *r = sl_rule_find(s->problems[i].rule);
				enum sl_severity sev = r ? sl_run_severity(run, r) : SL_SEV_ERROR;
				if (sev == SL_SEV_OFF)
					continue;
				struct sl_diag *d = sl_diags_add(&f->diags, r ? r->slug : "schema", sev, code,
								 s->problems[i].at, "%s", s->problems[i].message);
				d->hint = s->problems[i].hint;
			}
			apply_suppressions(f);
			sl_diags_sort(&f->diags);
		} else if (s->unknown || !s->doc) {
			f->doc = no_tree(a, code);
			notes[nn++] = sl_arena_printf(a, "%s: not read: %s", where, s->unknown ? s->unknown : "no tree");
		} else {
			f->doc = s->doc;
			code_of(a, f, ps, s, true);
			check_doc(run, f);
		}
	}
	if (s->runs > 0 && nn < 8)
		notes[nn++] = sl_arena_printf(a, "%s: the code's agent stops after %lld runs: %s at %s", where,
					      (long long)s->runs, s->runs_by,
					      sl_source_where(a, code, s->runs_at) + strlen(code->display) + 1);
	code_of(a, f, ps, s, false);
	prepend_notes(f, notes, nn);
	return f;
}

/* A Python file or notebook: each sweep it defines, chained; one file without findings when none. */
static struct sl_file *check_code(struct sl_run *run, struct sl_arena *a, struct sl_source *src)
{
	struct sl_pysweeps ps;
	const char *why = NULL;
	size_t bad = 0;
	struct sl_pysweep_opts po = {.python = run->opt.python, .res = run->resolver};
	if (sl_pysweep_read(a, src, &po, &ps, &why, &bad) < 0) {
		/* not a notebook sweeplint can read: as a YAML file that does not parse */
		struct sl_file *f = new_file(run, a, src);
		f->doc = no_tree(a, src);
		f->doc->ok = false;
		sl_diags_add(&f->diags, "syntax", SL_SEV_ERROR, src, sl_source_span(src, bad, bad), "%s", why);
		return f;
	}
	struct sl_file *first = NULL, **link = &first;
	for (size_t i = 0; i < ps.n; i++) {
		struct sl_file *f = check_pysweep(run, a, &ps, &ps.v[i]);
		f->more = i > 0;
		*link = f;
		link = &f->next;
	}
	if (!first) {
		first = new_file(run, a, ps.code);
		first->doc = no_tree(a, ps.code);
		first->code = ps.code;
		const char *n0 = ps.error ? sl_arena_printf(a, "not read: %s", ps.error)
					  : ps.scanned ? "no W&B sweep: the code names no wandb sweep or hyperparameter_search"
						       : "no W&B sweep defined here (wandb.sweep, hyperparameter_search(backend=\"wandb\"))";
		prepend_notes(first, &n0, 1);
	}
	if (ps.nnotes) {
		/* what the reader left unread, once, after the first sweep's notes */
		const char **v = sl_arena_array(a, first->nnotes + ps.nnotes, sizeof *v);
		if (first->nnotes)
			memcpy(v, first->notes, first->nnotes * sizeof *v);
		memcpy(v + first->nnotes, ps.notes, ps.nnotes * sizeof *v);
		first->notes = v;
		first->nnotes += ps.nnotes;
	}
	if (ps.error && ps.n)
		prepend_notes(first, (const char *const[]){sl_arena_printf(a, "not read: %s", ps.error)}, 1);
	sl_pysweep_done(&ps); /* a notebook's copy for the program follower, once every sweep is checked */
	return first;
}

struct sl_file *sl_run_check_source_in(struct sl_run *run, struct sl_arena *a, struct sl_source *src)
{
	/* what the run shares (catalogs, key map, GPU) is made in the run's arena before the file's own */
	const char *why = NULL;
	if (memory_rules_on(run))
		(void)sl_run_prepare(run, &why); /* a failure is the file's: evaluate() reports it */
	if (sl_code_kind(src->path) != SL_CODE_NONE)
		return check_code(run, a, src);
	struct sl_file *f = new_file(run, a, src);
	check_yaml(run, f);
	return f;
}
