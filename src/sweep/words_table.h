/*
 * words_table (private to words.c and the build-time snapshot): rules/words.yaml
 * as sl_keywords_parse reads it. gen_catalog (src/snapshot) parses the embedded
 * file at build time and writes this table as static const data, so a run maps
 * keys by words without reading YAML (snapshot.h: sl_snapshot.words).
 */
#ifndef SWEEPLINT_SWEEP_WORDS_TABLE_H
#define SWEEPLINT_SWEEP_WORDS_TABLE_H

#include <stddef.h>

#include "sweeplint/roles.h"

#define SL_WORDS_MAX_PHRASE 6 /* words in one phrase */

/* A phrase: words that must all be among the key's (any order, each used once). */
struct sl_words_phrase {
	const char *w[SL_WORDS_MAX_PHRASE];
	size_t n;
};

/* A need group: one of its phrases must be there. */
struct sl_words_group {
	const struct sl_words_phrase *p;
	size_t n;
};

struct sl_words_entry {
	struct sl_key_rule rule; /* role, if_true, if_false, add; pattern names the entry */
	const struct sl_words_group *need;
	size_t nneed;
	const char *const *may;
	size_t nmay;
};

struct sl_keywords {
	const struct sl_words_entry *e;
	size_t n;
	const char *const *ignore;
	size_t nignore;
	const char *const *known; /* every word of a need phrase: a parent part's word counts only then */
	size_t nknown;
};

#endif
