/*
 * words: key -> role by the key's words, for keys no pattern of the key map
 * matches as written (rules/words.yaml; gen_catalog parses it with
 * sl_keywords_parse at build time into the snapshot's table, words_table.h).
 * Step 1 re-spells the key from its words (per-device-train-batch-size
 * -> per_device_train_batch_size, MODEL_NAME -> model_name) and tries the key
 * map's patterns again; step 2 matches the role vocabulary: every `need` group
 * met by one of its phrases, every other word allowed (`may`, `ignore`), and no
 * second entry of another reading matching too.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/roles.h"
#include "sweeplint/source.h"
#include "sweeplint/ydoc.h"
#include "words_table.h"
#ifndef SL_SNAPSHOT_GENERATOR
#include "../snapshot/snapshot.h"
#endif

#define MAX_WORDS 24     /* a key with more words is not matched by words */
#define MAX_PHRASE SL_WORDS_MAX_PHRASE

/* ---- splitting ------------------------------------------------------------------------- */

size_t sl_key_words(struct sl_arena *a, const char *key, size_t len, const char **words, unsigned *seg, size_t max)
{
	size_t i = 0, n = 0;
	unsigned s = 0;
	while (i < len && (key[i] == '^' || key[i] == '-' || key[i] == '+' || key[i] == '~'))
		i++;
	while (i < len) {
		char c = key[i];
		if (c == '.') {
			s++;
			i++;
			continue;
		}
		if (c == '_' || c == '-' || c == ' ' || c == '/') {
			i++;
			continue;
		}
		size_t start = i++;
		/* a word ends at a separator, at lower->Upper (trainBatch) and at Upper->Upper lower (HFModel) */
		while (i < len && key[i] != '.' && key[i] != '_' && key[i] != '-' && key[i] != ' ' && key[i] != '/') {
			unsigned char p = (unsigned char)key[i - 1], q = (unsigned char)key[i];
			if ((islower(p) || isdigit(p)) && isupper(q))
				break;
			if (isupper(p) && isupper(q) && i + 1 < len && islower((unsigned char)key[i + 1]))
				break;
			i++;
		}
		if (n < max) {
			char *w = sl_arena_strndup(a, key + start, i - start);
			for (char *q = w; *q; q++)
				*q = (char)tolower((unsigned char)*q);
			words[n] = w;
			seg[n] = s;
		}
		n++;
	}
	return n;
}

/* ---- rules/words.yaml ------------------------------------------------------------------ */

static bool has(const char *const *list, size_t n, const char *w)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], w) == 0)
			return true;
	return false;
}

/* The words of need phrases, gathered while parsing. */
struct known {
	const char **v;
	size_t n, cap;
};

static void know(struct sl_arena *a, struct known *k, const char *w)
{
	if (has(k->v, k->n, w))
		return;
	k->v = sl_arena_reserve(a, k->v, k->n, &k->cap, k->n + 1, sizeof *k->v);
	k->v[k->n++] = w;
}

static bool bad(struct sl_diags *diags, const struct sl_source *src, const struct sl_node *at, const char *what)
{
	sl_diags_add(diags, "internal", SL_SEV_ERROR, src, at ? at->span : sl_source_span(src, 0, 0),
		     "rules/words.yaml: %s", what);
	return false;
}

/* A list of words (a flow sequence of scalars); false on anything else. */
static bool word_list(struct sl_arena *a, const struct sl_node *seq, const char *const **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!seq)
		return true;
	if (seq->kind != SL_NODE_SEQ)
		return false;
	const char **v = sl_arena_array(a, seq->n ? seq->n : 1, sizeof *v);
	for (size_t i = 0; i < seq->n; i++) {
		if (seq->items[i]->kind != SL_NODE_SCALAR || !*seq->items[i]->text)
			return false;
		v[(*n)++] = seq->items[i]->text;
	}
	*out = v;
	return true;
}

static bool parse_entry(struct sl_arena *a, struct known *kn, const struct sl_source *src,
			const struct sl_node *m, struct sl_words_entry *e, struct sl_diags *diags)
{
	if (m->kind != SL_NODE_MAP)
		return bad(diags, src, m, "an entry is a mapping of role, need and may");
	const struct sl_node *role = sl_map_get(m, "role");
	int r = role && role->kind == SL_NODE_SCALAR ? sl_role_parse(role->text) : -1;
	if (r < 0)
		return bad(diags, src, role ? role : m, "an entry needs a known role");
	e->rule.role = (enum sl_role)r;
	const struct sl_node *t = sl_map_get(m, "if_true"), *f = sl_map_get(m, "if_false"), *add = sl_map_get(m, "add");
	e->rule.if_true = t && t->kind == SL_NODE_SCALAR ? t->text : NULL;
	e->rule.if_false = f && f->kind == SL_NODE_SCALAR ? f->text : NULL;
	if (add) {
		char *end = NULL;
		long v = add->kind == SL_NODE_SCALAR ? strtol(add->text, &end, 10) : -1;
		if (!end || end == add->text || *end || v < 0 || v > 16)
			return bad(diags, src, add, "add is a whole number from 0 to 16");
		e->rule.add = (int)v;
	}
	e->rule.origin = "rules/words.yaml";
	const struct sl_node *need = sl_map_get(m, "need");
	if (!need || need->kind != SL_NODE_SEQ || !need->n)
		return bad(diags, src, need ? need : m, "an entry needs a list of need groups");
	struct sl_words_group *groups = sl_arena_array(a, need->n, sizeof *groups);
	e->need = groups;
	struct sl_buf desc;
	sl_buf_init(&desc, a);
	for (size_t g = 0; g < need->n; g++) {
		const char *const *ph;
		size_t nph;
		if (!word_list(a, need->items[g], &ph, &nph) || !nph)
			return bad(diags, src, need->items[g], "a need group is a list of phrases");
		struct sl_words_group *gr = &groups[e->nneed++];
		struct sl_words_phrase *phrases = sl_arena_array(a, nph, sizeof *phrases);
		gr->p = phrases;
		sl_buf_adds(&desc, g ? " + " : "");
		for (size_t i = 0; i < nph; i++) {
			/* a phrase: words separated by spaces */
			struct sl_words_phrase *p = &phrases[gr->n++];
			const char *s = ph[i];
			while (*s) {
				while (*s == ' ')
					s++;
				size_t l = strcspn(s, " ");
				if (!l)
					break;
				if (p->n == MAX_PHRASE)
					return bad(diags, src, need->items[g]->items[i], "a phrase has at most 6 words");
				p->w[p->n++] = sl_arena_strndup(a, s, l);
				know(a, kn, p->w[p->n - 1]);
				s += l;
			}
			if (!p->n)
				return bad(diags, src, need->items[g]->items[i], "an empty phrase");
			sl_buf_addf(&desc, "%s%s", i ? "|" : "", ph[i]);
		}
	}
	if (!word_list(a, sl_map_get(m, "may"), &e->may, &e->nmay))
		return bad(diags, src, sl_map_get(m, "may"), "may is a list of words");
	e->rule.pattern = sl_arena_printf(a, "%s words %s", role->text, desc.buf);
	return true;
}

struct sl_keywords *sl_keywords_parse(struct sl_arena *a, const char *name, const char *bytes, size_t len,
				      struct sl_diags *diags)
{
	struct sl_source *src = sl_source_from_bytes(a, name, bytes, len);
	struct sl_ydoc *doc = sl_ydoc_parse(a, src, NULL, diags);
	if (!doc->ok || !doc->root || doc->root->kind != SL_NODE_MAP) {
		bad(diags, src, NULL, "not a mapping of ignore and roles");
		return NULL;
	}
	struct sl_keywords *kw = sl_arena_alloc(a, sizeof *kw);
	if (!word_list(a, sl_map_get(doc->root, "ignore"), &kw->ignore, &kw->nignore)) {
		bad(diags, src, sl_map_get(doc->root, "ignore"), "ignore is a list of words");
		return NULL;
	}
	const struct sl_node *roles = sl_map_get(doc->root, "roles");
	if (!roles || roles->kind != SL_NODE_SEQ) {
		bad(diags, src, roles, "no roles list");
		return NULL;
	}
	struct sl_words_entry *entries = sl_arena_array(a, roles->n ? roles->n : 1, sizeof *entries);
	struct known kn = {0};
	for (size_t i = 0; i < roles->n; i++) {
		if (!parse_entry(a, &kn, src, roles->items[i], &entries[kw->n], diags))
			return NULL;
		kw->n++;
	}
	kw->e = entries;
	kw->known = kn.v;
	kw->nknown = kn.n;
	return kw;
}

/* ---- matching -------------------------------------------------------------------------- */

/* Mark the words of phrase p among w[0..n) not yet used; false (nothing marked) when one is missing. */
static bool take(const struct sl_words_phrase *p, const char **w, size_t n, bool *used)
{
	size_t at[MAX_PHRASE];
	for (size_t k = 0; k < p->n && k < MAX_PHRASE; k++) {
		size_t i = 0;
		for (; i < n; i++) {
			if (used[i] || strcmp(w[i], p->w[k]) != 0)
				continue;
			bool again = false;
			for (size_t j = 0; j < k; j++)
				again |= at[j] == i;
			if (!again)
				break;
		}
		if (i == n)
			return false;
		at[k] = i;
	}
	for (size_t k = 0; k < p->n && k < MAX_PHRASE; k++)
		used[at[k]] = true;
	return true;
}

static bool entry_matches(const struct sl_keywords *kw, const struct sl_words_entry *e, const char **w, size_t n)
{
	bool used[MAX_WORDS] = {0};
	for (size_t g = 0; g < e->nneed; g++) {
		/* the group's phrase that uses the most words (seq len before len) */
		size_t best = SIZE_MAX, most = 0;
		for (size_t i = 0; i < e->need[g].n; i++) {
			bool trial[MAX_WORDS];
			memcpy(trial, used, sizeof trial);
			if (take(&e->need[g].p[i], w, n, trial) && e->need[g].p[i].n > most) {
				best = i;
				most = e->need[g].p[i].n;
			}
		}
		if (best == SIZE_MAX)
			return false;
		take(&e->need[g].p[best], w, n, used);
	}
	for (size_t i = 0; i < n; i++)
		if (!used[i] && !has(e->may, e->nmay, w[i]) && !has(kw->ignore, kw->nignore, w[i]))
			return false;
	return true;
}

static bool same_reading(const struct sl_key_rule *x, const struct sl_key_rule *y)
{
	return x->role == y->role && x->add == y->add && !!x->if_true == !!y->if_true &&
	       (!x->if_true || strcmp(x->if_true, y->if_true) == 0);
}

/* The vocabulary: the build-time table (the snapshot), unless a test gave the map its own. */
static const struct sl_keywords *keywords(const struct sl_keymap *km)
{
	struct sl_keymap *m = (struct sl_keymap *)km; /* the lazily filled cache of a shared map */
	if (!m->words_tried) {
		m->words_tried = true;
#ifndef SL_SNAPSHOT_GENERATOR
		m->words = sl_snapshot.words;
#endif
	}
	return m->words;
}

const struct sl_key_rule *sl_keywords_match(const struct sl_keymap *km, const char *key, size_t len,
					    const struct sl_key_rule **limited)
{
	*limited = NULL;
	struct sl_arena *a = km->arena;
	if (!a || len > 256)
		return NULL;
	const char *w[MAX_WORDS];
	unsigned seg[MAX_WORDS];
	size_t n = sl_key_words(a, key, len, w, seg, MAX_WORDS);
	if (!n || n > MAX_WORDS)
		return NULL;
	/* step 1: the key re-spelled from its words, against the patterns */
	struct sl_buf b;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < n; i++)
		sl_buf_addf(&b, "%s%s", i == 0 ? "" : seg[i] != seg[i - 1] ? "." : "_", w[i]);
	if (b.len != len || memcmp(b.buf, key, len) != 0) {
		const struct sl_key_rule *r = sl_keymap_match_patterns(km, b.buf, b.len, limited);
		if (r && r->role == SL_ROLE_NONE)
			return NULL; /* re-spelled, a key the map knows to have no role */
		if (r) {
			struct sl_key_rule *c = sl_arena_alloc(a, sizeof *c);
			*c = *r;
			c->by = sl_arena_printf(a, "read as %s", b.buf);
			return c;
		}
		if (*limited)
			return NULL;
	}
	/* step 2: the vocabulary; a parent part's word counts only when a need phrase names it */
	const struct sl_keywords *kw = keywords(km);
	if (!kw)
		return NULL;
	const char *use[MAX_WORDS];
	size_t nu = 0;
	for (size_t i = 0; i < n && nu < MAX_WORDS; i++)
		if (seg[i] == seg[n - 1] || has(kw->known, kw->nknown, w[i]))
			use[nu++] = w[i];
	const struct sl_words_entry *hit = NULL;
	for (size_t i = 0; i < kw->n; i++) {
		if (!entry_matches(kw, &kw->e[i], use, nu))
			continue;
		if (hit && !same_reading(&hit->rule, &kw->e[i].rule))
			return NULL; /* two readings: left unmapped */
		if (!hit)
			hit = &kw->e[i];
	}
	if (!hit)
		return NULL;
	struct sl_key_rule *c = sl_arena_alloc(a, sizeof *c);
	*c = hit->rule;
	sl_buf_init(&b, a);
	for (size_t i = 0; i < nu; i++)
		sl_buf_addf(&b, "%s%s", i ? "/" : "", use[i]);
	c->by = sl_arena_printf(a, "by words %s", b.buf);
	return c;
}
