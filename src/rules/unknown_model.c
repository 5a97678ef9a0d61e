/*
 * unknown-model: a model value that no step of the resolution order resolves
 * (a local config, the Hugging Face cache, the catalog, the architecture
 * table by name: docs/models.md). Its combinations are counted as unknown,
 * never as fitting. A value that looks like a transformer — a Hub id or path
 * (it has a '/'), or a name with a family word in it (bert, t5, llama...) —
 * is a warning at the value, with what its name fits when that is
 * ambiguous. Values that name no transformer at all (GRU, resnet18,
 * LogisticRegression, cycle_gan, mlp: sweeps over other kinds of models) get
 * one info per file saying memory was not checked for them: the linter cannot
 * help there, and one line per value would be noise.
 */
#include <ctype.h>
#include <string.h>

#include "checks.h"
#include "memory_rules.h"
#include "sweeplint/ydoc.h"
#include "sweeplint/arena.h"
#include "sweeplint/hub.h"

/* Words of the transformer families (lower case, matched as substrings). */
static const char *const family_words[] = {
	"bert", "roberta", "electra", "minilm", "mpnet", "t5", "bart", "pegasus", "gpt", "llama", "mistral",
	"mixtral", "qwen", "gemma", "phi-", "phi3", "falcon", "bloom", "opt-", "pythia", "neox", "whisper", "xlm",
	"e5-", "bge", "gte-", "smollm", "deepseek", "granite", "starcoder", "vicuna", "zephyr", "sentence-",
	"transformer", "encoder", "decoder", "lm-", "-lm", "llm", "mt0", "ul2", "labse", "simcse",
};

static bool looks_like_transformer(const char *value)
{
	if (strchr(value, '/'))
		return true;
	char buf[128];
	size_t n = 0;
	for (const char *p = value; *p && n + 1 < sizeof buf; p++)
		buf[n++] = (char)tolower((unsigned char)*p);
	buf[n] = '\0';
	for (size_t i = 0; i < sizeof family_words / sizeof family_words[0]; i++)
		if (strstr(buf, family_words[i]))
			return true;
	return false;
}

int sl_check_unknown_model(struct sl_check *cx)
{
	const struct sl_eval *ev = sl_memrule_eval(cx);
	if (!ev)
		return 0;
	/* the last model axis is the one a run gets */
	const struct sl_eval_axis *ax = sl_memrule_axis(ev, SL_ROLE_MODEL, NULL);
	if (!ax)
		return 0;
	const struct sl_eval_value *first_quiet = NULL;
	struct sl_buf quiet;
	sl_buf_init(&quiet, cx->arena);
	uint64_t quiet_unknown = 0;
	size_t nquiet = 0;
	for (size_t j = 0; j < ax->n; j++) {
		const struct sl_eval_value *v = &ax->values[j];
		if (v->model || ax->modules)
			continue; /* a custom module's combination it cannot count: a note says why (axes.c) */
		if (sl_node_has_nul(v->node))
			continue; /* a NUL in the id: invalid-value's error */
		if (v->ok && !looks_like_transformer(v->text)) {
			if (!first_quiet)
				first_quiet = v;
			sl_buf_addf(&quiet, "%s\"%s\"", nquiet++ ? ", " : "", v->text);
			quiet_unknown += v->u[SL_VERDICT_UNKNOWN];
			continue;
		}
		struct sl_diag *d = sl_memrule_emit(
			cx, ax, v,
			"model \"%s\" is not a local config, in the Hugging Face cache, the catalog or the architecture "
			"table: %s %s unknown",
			v->text, sl_memrule_counts(cx->arena, ev, v, 1u << SL_VERDICT_UNKNOWN),
			v->ok ? "are" : "cannot be estimated and are");
		struct sl_name_match nm;
		sl_catalog_match_name(cx->arena, ev->cat, v->text, &nm);
		if (nm.model && nm.other)
			d->hint = sl_arena_printf(cx->arena,
						  "its name fits both %s and %s, which differ in size: give the model's "
						  "folder or config.json",
						  nm.model->name, nm.other->name);
		else if (sl_hub_is_repo_id(v->text) && !ev->hub)
			/* a Hub id whose name gives no size sweeplint can read (a fine-tune's own name, a later
			 * series, another architecture named like one): its config.json says what it is */
			d->hint = sl_arena_printf(cx->arena,
						  "%s%s: put its config.json in the Hugging Face cache "
						  "('huggingface-cli download %s config.json'), give the file, or run with --fetch",
						  nm.foreign ? "its name names " : "its name names no architecture sweeplint knows",
						  nm.foreign ? nm.foreign : "", v->text);
		else
			d->hint = "give the model's folder or config.json, or see 'sweeplint models --search WORD' for "
				  "the names sweeplint knows";
		if (v->ok && v->why) /* a local path outside the project: not read */
			d->hint = v->why;
		const char *fetch_why = ev->hub ? sl_hub_why(ev->hub, v->text) : NULL;
		if (fetch_why) /* --fetch was asked for and could not help: say why */
			d->hint = sl_arena_printf(cx->arena, "--fetch: %s", fetch_why);
	}
	if (first_quiet) {
		struct sl_diag *d = sl_memrule_emit(
			cx, ax, first_quiet,
			"memory was not checked for %s: %s no transformer sweeplint can estimate (%llu memory "
			"combination%s unknown)",
			quiet.buf, nquiet == 1 ? "it names" : "they name", (unsigned long long)quiet_unknown,
			quiet_unknown == 1 ? "" : "s");
		d->severity = SL_SEV_INFO;
		d->hint = "if one of them is a Hugging Face model, give its folder or config.json";
	}
	return 0;
}
