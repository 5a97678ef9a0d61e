/*
 * byname: the architecture table by name (docs/models.md "Resolving by
 * name"). A model value such as "utahnlp/squad_t5-11b_seed-1" or
 * "unsloth/llama-3-8b-bnb-4bit" names no catalog entry and no config.json,
 * but it names the base it was fine-tuned from. The value and every entry's
 * names (its name, its hf_id with the org, its `names`; catalog entries
 * and the architecture table alike) are split into tokens — lower case, cut
 * at '-', '_', '/', ' ' and at a letter followed by a digit ("llama3" is
 * "llama 3", "t5" is "t 5", "qwen2.5" is "qwen 2.5") — and an entry matches
 * when the value holds one of its names as consecutive tokens ending in the
 * value's last path part. The longest name wins; names that tie between
 * entries whose counts differ by more than 2% make the value ambiguous, and
 * it is not guessed. Tokens after "finetuned" are the fine-tune's data, not
 * its base, and are not read. A value that names an architecture none of
 * these families builds (bigbird, longformer, t5-efficient, switch, a vision
 * or speech model other than whisper...) is not resolved by name. The quantisation the id names
 * (-bnb-4bit, -4bit, -AWQ, -GPTQ, -8bit) is returned for the estimate.
 */
#include <ctype.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/models.h"

#define MAX_TOKENS 48

struct tokens {
	const char *t[MAX_TOKENS];
	size_t n;
	size_t last_part; /* index of the first token of the value's last path part */
};

/* Words that name a different architecture around a familiar one ("bigbird-roberta-base"). */
static const char *const foreign[] = {
	"bigbird", "longformer", "led", "funnel", "convbert", "mobilebert", "squeezebert", "rembert", "ernie",
	"layoutlm", "layoutlmv", "luke", "canine", "megatron", "xmod", "data2vec", "efficient", "switch", "long",
	"longt", "vision", "vl", "vit", "clip", "siglip", "llava", "blip", "wav2vec", "hubert",
	"vila", "flamingo", "idefics", "mamba", "rwkv", "retnet", "jamba", "medusa", "eagle", "reward", "rm", "prm",
	"nemotron", "minitron", "sparse", "pruned", "sheared", "depth", "upscaled", "frankenmerge", "multimodal",
	"omni", "audio", "flash",
	/* a distillation into another base ("DeepSeek-R1-Distill-Qwen-3B" is no DeepSeek-R1): only names that hold it */
	"distill",
	/* Korean checkpoints of their own vocabulary around a familiar name: pko-t5 (50358 BBPE tokens, T5 v1.1
	 * layout) is not t5-large, ke-t5 not t5-base, klue_nli_roberta_base not roberta-base (klue/roberta-base is) */
	"pko", "ke", "klue",
};

/*
 * Checkpoints of another architecture whose ids hold a table entry's name: the Alibaba gte v1.5 and
 * multilingual encoders (model_type "new": rotary, GLU; 137M and 434M, not BERT's 109M and 335M).
 * A value holding one of these as consecutive tokens is not resolved by name.
 */
static const char *const distinct[] = {
	"gte-base-en-v1.5", "gte-large-en-v1.5", "gte-multilingual-base", "gte-multilingual-reranker-base",
	/* Snowflake's arctic-embed-m-v2.0 is gte-multilingual-base (model_type new, 305M), not the BERT -m */
	"snowflake-arctic-embed-m-v2.0",
	/* xlm-roberta-longformer-base-4096: xlm-roberta-base's 250,002-token vocabulary in Longformer's layers, not
	 * longformer-base-4096's 50,265 */
	"xlm-roberta-longformer",
};

static bool is_alpha(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Split s (already lower case, in the arena) into tokens appended to *t. */
static void split(struct sl_arena *a, const char *s, struct tokens *t)
{
	size_t n = strlen(s);
	size_t i = 0;
	while (i < n && t->n < MAX_TOKENS) {
		while (i < n && !is_alpha(s[i]) && !is_digit(s[i]))
			i++;
		size_t start = i;
		while (i < n && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '.')) {
			/* a letter followed by a digit ends a token: llama|3, t|5, qwen|2.5 */
			if (i > start && is_alpha(s[i - 1]) && is_digit(s[i]))
				break;
			i++;
		}
		size_t end = i;
		while (end > start && s[end - 1] == '.')
			end--;
		if (end > start)
			t->t[t->n++] = sl_arena_strndup(a, s + start, end - start);
		else if (i == start)
			i++;
	}
}

static void tokenize(struct sl_arena *a, const char *value, struct tokens *t, bool is_value)
{
	t->n = 0;
	t->last_part = 0;
	char *s = sl_arena_strdup(a, value);
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == '/')
		s[--n] = '\0';
	char *last = strrchr(s, '/');
	char *org = NULL;
	if (last && is_value) {
		*last = '\0';
		char *before = strrchr(s, '/');
		org = before ? before + 1 : s;
		split(a, org, t);
		t->last_part = t->n;
		split(a, last + 1, t);
	} else {
		split(a, last ? last + 1 : s, t);
	}
	if (!is_value)
		return;
	/* "-finetuned-X": X is the data, not the base */
	for (size_t i = t->last_part + 1; i < t->n; i++)
		if (strcmp(t->t[i], "finetuned") == 0 || strcmp(t->t[i], "finetune") == 0 ||
		    (strcmp(t->t[i], "fine") == 0 && i + 1 < t->n && strcmp(t->t[i + 1], "tuned") == 0)) {
			t->n = i;
			break;
		}
}

/* Does the value hold key as consecutive tokens ending in its last part? */
static bool holds(const struct tokens *v, const char *const *kt, size_t kn)
{
	if (!kn || kn > v->n)
		return false;
	if (kn == 1 && strlen(kt[0]) < 5)
		return false; /* one short token ("gpt", "t") names nothing */
	for (size_t s = 0; s + kn <= v->n; s++) {
		if (s + kn <= v->last_part)
			continue;
		size_t j = 0;
		while (j < kn && strcmp(v->t[s + j], kt[j]) == 0)
			j++;
		if (j == kn)
			return true;
	}
	return false;
}

static bool contains(const struct tokens *t, const char *word)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->t[i], word) == 0)
			return true;
	return false;
}

/* One name of an entry as tokens. */
struct name_key {
	const char **t;
	size_t n;
};

struct entry_keys {
	struct name_key *k;
	size_t n;
};

/* A size series (the entries sharing a `series`): its name as tokens and its sizes, smallest first. */
struct series {
	const char *name;
	struct name_key key;
	const struct sl_model **sizes;
	size_t nsizes;
};

/* Every entry's names, tokenized once per catalog (sl_catalog_name_index), and the size series. */
struct sl_name_index {
	struct entry_keys *table[2]; /* models, archs */
	struct series *series;
	size_t nseries;
};

/* The static foreign word equal to word, or NULL. */
static const char *is_foreign(const char *word)
{
	for (size_t f = 0; f < sizeof foreign / sizeof foreign[0]; f++)
		if (strcmp(word, foreign[f]) == 0)
			return foreign[f];
	return NULL;
}

static void index_entry(struct sl_arena *a, const struct sl_model *m, struct entry_keys *out)
{
	out->k = sl_arena_array(a, m->nnames + 2, sizeof *out->k);
	out->n = 0;
	struct tokens k;
	for (size_t i = 0; i < m->nnames + 2; i++) {
		/* the whole hf_id, org included: "klue/bert-base" is not "bert-base" */
		const char *name = i == 0 ? m->name : i == 1 ? m->hf_id : m->names[i - 2];
		if (!name)
			continue;
		tokenize(a, name, &k, i == 1);
		if (!k.n)
			continue;
		struct name_key *nk = &out->k[out->n++];
		nk->t = sl_arena_array(a, k.n, sizeof *nk->t);
		memcpy(nk->t, k.t, k.n * sizeof *nk->t);
		nk->n = k.n;
	}
}

/* Add entry m to its series in ix (made on its first entry; room for every entry of the catalog). */
static void index_series(struct sl_arena *a, struct sl_name_index *ix, const struct sl_model *m, size_t room)
{
	struct series *sr = NULL;
	for (size_t i = 0; i < ix->nseries && !sr; i++)
		if (strcmp(ix->series[i].name, m->series) == 0)
			sr = &ix->series[i];
	if (!sr) {
		sr = &ix->series[ix->nseries++];
		sr->name = m->series;
		struct tokens k;
		tokenize(a, m->series, &k, false);
		sr->key.t = sl_arena_array(a, k.n ? k.n : 1, sizeof *sr->key.t);
		memcpy(sr->key.t, k.t, k.n * sizeof *sr->key.t);
		sr->key.n = k.n;
		sr->sizes = sl_arena_array(a, room, sizeof *sr->sizes);
	}
	/* smallest first: insertion by the computed count */
	uint64_t p = sl_arch_params(&m->arch);
	size_t at = sr->nsizes;
	while (at > 0 && sl_arch_params(&sr->sizes[at - 1]->arch) > p) {
		sr->sizes[at] = sr->sizes[at - 1];
		at--;
	}
	sr->sizes[at] = m;
	sr->nsizes++;
}

const struct sl_name_index *sl_catalog_name_index(struct sl_arena *a, const struct sl_catalog *c)
{
	struct sl_name_index *ix = sl_arena_alloc(a, sizeof *ix);
	size_t room = c->nmodels + c->narchs;
	ix->series = sl_arena_array(a, room ? room : 1, sizeof *ix->series);
	for (int table = 0; table < 2; table++) {
		const struct sl_model *list = table ? c->archs : c->models;
		size_t n = table ? c->narchs : c->nmodels;
		ix->table[table] = sl_arena_array(a, n ? n : 1, sizeof *ix->table[table]);
		for (size_t i = 0; i < n; i++) {
			index_entry(a, &list[i], &ix->table[table][i]);
			if (list[i].series)
				index_series(a, ix, &list[i], room ? room : 1);
		}
	}
	return ix;
}

/* Does the name end in a size or a number ("instruct-0905", "8b")? Then it holds its own version. */
static bool ends_in_digit(const struct name_key *k)
{
	for (const char *p = k && k->n ? k->t[k->n - 1] : ""; *p; p++)
		if (*p >= '0' && *p <= '9')
			return true;
	return false;
}

/* The longest of an entry's names the value holds (in tokens), 0 when none; *key is that name. Of two
 * names as long, the one ending in a number: "moonshotai/Kimi-K2-Instruct-0905" holds both the hf_id
 * "moonshotai/Kimi-K2-Instruct" and the name "kimi-k2-instruct-0905", and only the hf_id would read the
 * date that follows it as a later version. */
static size_t score(const struct entry_keys *e, const struct tokens *v, const struct name_key **key)
{
	size_t best = 0;
	for (size_t i = 0; i < e->n; i++)
		if ((e->k[i].n > best || (e->k[i].n == best && ends_in_digit(&e->k[i]) && !ends_in_digit(*key))) &&
		    holds(v, e->k[i].t, e->k[i].n)) {
			best = e->k[i].n;
			*key = &e->k[i];
		}
	return best;
}

static bool key_has(const struct name_key *k, const char *word)
{
	for (size_t i = 0; k && i < k->n; i++)
		if (strcmp(k->t[i], word) == 0)
			return true;
	return false;
}

/* Does the value hold word then digits as consecutive tokens? The split cuts "int8" into "int" "8". */
static bool contains_pair(const struct tokens *t, const char *word, const char *digits)
{
	for (size_t i = 0; i + 1 < t->n; i++)
		if (strcmp(t->t[i], word) == 0 && strcmp(t->t[i + 1], digits) == 0)
			return true;
	return false;
}

/* Does the value hold key as consecutive tokens (ending in its last part) only where a bare version
 * number follows ("starcoder" in "starcoder2-15b": "starcoder" "2" "15b")? Then it names a later series. */
static bool later_version(const struct tokens *v, const struct name_key *key)
{
	if (!key || !key->n)
		return false;
	for (const char *p = key->t[key->n - 1]; *p; p++)
		if (is_digit(*p))
			return false; /* a name ending in a size or a number: its own version */
	bool found = false;
	for (size_t s = 0; s + key->n <= v->n; s++) {
		if (s + key->n <= v->last_part)
			continue;
		size_t j = 0;
		while (j < key->n && strcmp(v->t[s + j], key->t[j]) == 0)
			j++;
		if (j < key->n)
			continue;
		found = true;
		const char *next = s + key->n < v->n ? v->t[s + key->n] : NULL;
		bool version = next && is_digit(next[0]);
		for (const char *p = next; version && *p; p++)
			version = is_digit(*p) || *p == '.';
		if (!version)
			return false;
	}
	return found;
}

static enum sl_quant quant_of(const struct tokens *v)
{
	/* an 8-bit word wins over the 4-bit default of AWQ/GPTQ ("gptq-8bit", "GPTQ-Int8") */
	if (contains(v, "8bit") || contains_pair(v, "int", "8"))
		return SL_QUANT_INT8;
	if (contains(v, "4bit") || contains_pair(v, "int", "4") || contains_pair(v, "nf", "4") || contains(v, "awq") ||
	    contains(v, "gptq") || contains(v, "bnb"))
		return SL_QUANT_NF4;
	return SL_QUANT_NONE;
}

/*
 * A word that gives a size: a series' size names ("base", "large", "xl") or a count ("7b", "350m",
 * "8x7b"). A value naming a series with one of these names a size no entry matched: not the series.
 */
static bool size_word(const char *w)
{
	static const char *const words[] = {"tiny", "mini", "small", "xsmall", "base", "medium", "large", "xlarge",
					    "xxlarge", "xl", "xxl", "xxxl", "huge", "giant", "big"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(w, words[i]) == 0)
			return true;
	const char *p = w;
	while (is_digit(*p) || *p == '.' || *p == 'x')
		p++;
	return p > w && is_digit(w[0]) && (strcmp(p, "b") == 0 || strcmp(p, "m") == 0 || strcmp(p, "k") == 0);
}

/* Where the value holds key as consecutive tokens in its last part (any length), or SIZE_MAX. */
static size_t held_at(const struct tokens *v, const struct name_key *key)
{
	for (size_t s = v->last_part; key->n && s + key->n <= v->n; s++) {
		size_t j = 0;
		while (j < key->n && strcmp(v->t[s + j], key->t[j]) == 0)
			j++;
		if (j == key->n)
			return s;
	}
	return SIZE_MAX;
}

/*
 * No entry's name matched: does the value name a size series with no size ("gayanin/bart-finetuned-pubmed",
 * "org/roberta-imdb")? The longest series name the value holds wins; two as long are ambiguous. The
 * rules of a sized match hold: a foreign word or a distinct checkpoint around it, a bare version number
 * after it, or a size word in the value's last part (a size no entry matched) make it no series.
 */
static void match_series(struct sl_arena *a, const struct sl_name_index *ix, const struct tokens *v,
			 struct sl_name_match *out)
{
	const struct series *best = NULL;
	bool tie = false;
	for (size_t i = 0; i < ix->nseries; i++) {
		const struct series *sr = &ix->series[i];
		if (sr->nsizes < 2 || held_at(v, &sr->key) == SIZE_MAX)
			continue;
		if (!best || sr->key.n > best->key.n) {
			best = sr;
			tie = false;
		} else if (sr->key.n == best->key.n) {
			tie = true;
		}
	}
	if (!best || tie)
		return;
	for (size_t i = v->last_part; i < v->n; i++) {
		if (size_word(v->t[i]))
			return;
		if (is_foreign(v->t[i]) && !key_has(&best->key, v->t[i])) {
			out->foreign = is_foreign(v->t[i]);
			return;
		}
	}
	if (later_version(v, &best->key)) {
		out->foreign = "a later version";
		return;
	}
	out->series = sl_arena_strdup(a, best->name);
	out->nsizes = best->nsizes;
	out->sizes = sl_arena_array(a, best->nsizes, sizeof *out->sizes);
	memcpy(out->sizes, best->sizes, best->nsizes * sizeof *out->sizes);
}

static double rel_diff(uint64_t x, uint64_t y)
{
	double a = (double)x, b = (double)y;
	return (a > b ? a - b : b - a) / (a > b ? a : b);
}

static void match_name(struct sl_arena *a, struct sl_arena *keep, const struct sl_catalog *c, const char *value,
		       struct sl_name_match *out)
{
	memset(out, 0, sizeof *out);
	if (!c || !value || !*value)
		return;
	struct tokens v;
	tokenize(a, value, &v, true);
	out->quant = quant_of(&v);
	out->gguf = contains(&v, "gguf");

	if (!c->name_index && c->index_arena) /* the catalog's lazily filled cache: made once, kept for the run */
		((struct sl_catalog *)c)->name_index = sl_catalog_name_index(c->index_arena, c);
	const struct sl_name_index *ix = c->name_index ? c->name_index : sl_catalog_name_index(a, c);
	size_t best = 0;
	const struct name_key *best_key = NULL;
	for (int table = 0; table < 2; table++) {
		const struct sl_model *list = table ? c->archs : c->models;
		size_t n = table ? c->narchs : c->nmodels;
		for (size_t i = 0; i < n; i++) {
			const struct name_key *key = NULL;
			size_t s = score(&ix->table[table][i], &v, &key);
			if (!s || s < best)
				continue;
			if (s > best) {
				best = s;
				best_key = key;
				out->model = &list[i];
				out->other = NULL;
			} else if (!out->other &&
				   rel_diff(sl_arch_params(&list[i].arch), sl_arch_params(&out->model->arch)) > 0.02) {
				out->other = &list[i]; /* same length, a different size: ambiguous */
			}
		}
	}
	/* a checkpoint of another architecture named like an entry */
	for (size_t i = 0; i < sizeof distinct / sizeof distinct[0]; i++) {
		struct tokens d;
		tokenize(a, distinct[i], &d, false);
		struct name_key dk = {d.t, d.n};
		if (holds(&v, dk.t, dk.n)) {
			out->foreign = distinct[i];
			out->model = out->other = NULL;
			return;
		}
	}
	if (!out->model) {
		match_series(keep, ix, &v, out); /* no size named: a series of sizes */
		return;
	}
	if (later_version(&v, best_key)) {
		out->foreign = "a later version";
		out->model = out->other = NULL;
		return;
	}
	/* a word for another architecture that the matched name does not contain */
	for (size_t i = 0; i < v.n; i++)
		if (is_foreign(v.t[i]) && !key_has(best_key, v.t[i])) {
			out->foreign = is_foreign(v.t[i]);
			out->model = out->other = NULL;
			return;
		}
}

/*
 * The tokens of the value live in a scratch arena released here: out points
 * only into the catalog, static strings and a (a series' name and sizes). The catalog's names are tokenized
 * once, at the first match by name (c->name_index, in c->index_arena; a catalog
 * made by hand without either gets a scratch index per call): tokenizing them per
 * value cost 0.6 ms, 3.2 s for a sweep of 5,000 unknown model names, and at every
 * load 0.8 M instructions, most of a small check, that most runs never use.
 */
void sl_catalog_match_name(struct sl_arena *a, const struct sl_catalog *c, const char *value,
			   struct sl_name_match *out)
{
	struct sl_arena *scratch = sl_arena_new();
	match_name(scratch, a, c, value, out);
	sl_arena_free(scratch);
}
