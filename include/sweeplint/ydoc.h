/*
 * ydoc: a YAML document as a node tree with spans, built from libyaml events.
 * Every node, string and array lives in the run arena. Aliases point at the
 * anchored node (shared, as PyYAML shares them); the loader counts what
 * aliases would expand to and refuses documents past SL_YDOC_MAX_EXPANSION.
 * Scalars are typed as PyYAML's SafeLoader types them (see scalar.h).
 */
#ifndef SWEEPLINT_YDOC_H
#define SWEEPLINT_YDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sweeplint/scalar.h"
#include "sweeplint/source.h"

struct sl_arena;
struct sl_diags;

enum sl_node_kind {
	SL_NODE_SCALAR,
	SL_NODE_SEQ,
	SL_NODE_MAP,
	SL_NODE__COUNT
};

enum sl_node_style {
	SL_STYLE_PLAIN,     /* scalars */
	SL_STYLE_SINGLE,
	SL_STYLE_DOUBLE,
	SL_STYLE_LITERAL,
	SL_STYLE_FOLDED,
	SL_STYLE_BLOCK,     /* collections */
	SL_STYLE_FLOW,
	SL_STYLE__COUNT
};

struct sl_node;

/* One key: value pair of a mapping, in document order (duplicates kept). */
struct sl_pair {
	struct sl_node *key;
	struct sl_node *value;
};

/*
 * A node. span covers the node's text: a scalar's characters (quotes
 * included), a flow collection's brackets, a block collection from its first
 * item to the end of its last. For a mapping value, the pair's key span is
 * on the key node.
 */
struct sl_node {
	enum sl_node_kind kind;
	enum sl_node_style style;
	struct sl_span span;
	const char *tag;      /* explicit tag, resolved ("tag:yaml.org,2002:float"), or NULL */
	const char *anchor;   /* anchor name or NULL */
	struct sl_node *parent; /* the first collection that held it, NULL for the root */

	/* scalars */
	const char *text;     /* the scalar's value after YAML unescaping, NUL-terminated */
	size_t text_len;      /* bytes in text (may hold NULs) */
	struct sl_value value; /* PyYAML's typing of the scalar */
	const char *cerr;     /* why PyYAML's constructor refuses the scalar where it builds it, or NULL */
	const struct sl_node *origin; /* a scalar standing for a scalar-tagged mapping's '=' value: the mapping */
	const char *computed; /* a sweep written in Python: the code that computes this value (np.linspace(...)),
			       * when span is that code and not the value's literal; no edit splices it (pysweep.h) */

	/* sequences: items[0..n); mappings: pairs[0..n) */
	struct sl_node **items;
	struct sl_pair *pairs;
	size_t n;

	uint64_t weight;      /* nodes this subtree expands to, aliases expanded (saturating) */
};

/* Where an alias stands in the text ("*name", start..end) and the anchored node it stands for. */
struct sl_alias {
	const struct sl_node *target;
	size_t start, end;
};

struct sl_ydoc {
	struct sl_source *src;
	struct sl_node *root;  /* NULL when the stream is empty or did not parse */
	struct sl_alias *aliases; /* every alias, in document order (rewrites inline removed anchors) */
	size_t naliases;
	size_t ndocs;          /* documents in the stream (only the first is used) */
	bool ok;               /* false when a syntax error was reported */
	bool constructed;      /* !ok: the text parsed, PyYAML's constructor refuses it (a tag, a key) */
};

/* Bounds the loader enforces (a finding, never a crash). */
#define SL_YDOC_MAX_DEPTH 512
#define SL_YDOC_MAX_EXPANSION 1000000
/*
 * Merge keys merging maps that merge maps ...: PyYAML's flatten_mapping recurses once per level and
 * ends in a RecursionError near 1,000 (a refusal); the loader refuses past this, and every walk of
 * the merged keys follows this many levels (it followed 32: a 33-deep chain read as "no value").
 */
#define SL_YDOC_MAX_MERGE_DEPTH 1000
/* Nodes in one document (aliases not counted): real sweeps and configs hold a few thousand. */
#define SL_YDOC_MAX_NODES 100000

/*
 * Parse src. YAML problems (syntax errors, alias bombs, nesting past the
 * bound, more than SL_YDOC_MAX_NODES nodes, several documents) become
 * diagnostics in diags with rule "syntax"; the returned document is never
 * NULL. Returns the document; doc->ok tells whether the tree may be used.
 * resolver may be NULL (one is made in a).
 */
struct sl_ydoc *sl_ydoc_parse(struct sl_arena *a, struct sl_source *src,
			     const struct sl_scalar_resolver *resolver, struct sl_diags *diags);

/*
 * The value of key in mapping map (the last one when a key repeats, as
 * PyYAML does; merge keys "<<" are honoured), or NULL. key is compared with
 * each key scalar's text.
 */
struct sl_node *sl_map_get(const struct sl_node *map, const char *key);

/* The pair whose value is key's value (for spans on the key), or NULL. */
const struct sl_pair *sl_map_pair(const struct sl_node *map, const char *key);

/* True when node is a scalar whose PyYAML type is t. */
bool sl_node_is(const struct sl_node *node, enum sl_vtype t);

/* A short description of a node's type for messages: "a string", "a list", ... */
const char *sl_node_describe(const struct sl_node *node);
/* Python truthiness of the value PyYAML builds from node (None, '', False, 0, 0.0, [] and {} are false); NULL is false. */
bool sl_node_truthy(const struct sl_node *node);

/*
 * A scalar whose text holds a NUL ("bert-base-uncased\0junk": PyYAML keeps it, text_len counts past
 * the C string's end). No run can use such a value: W&B cannot pass it as an argument (subprocess
 * refuses an embedded null byte) and from_pretrained refuses such an id.
 */
bool sl_node_has_nul(const struct sl_node *node);

/*
 * The byte offset of the first tab PyYAML's scanner refuses (outside quoted scalars, block scalar
 * text and comments), or of a '#' right after a block scalar's indicators ('|#': PyYAML wants a
 * space), or SIZE_MAX when there is none (src/yaml/tabs.c); *why (why may be NULL) says which. For
 * sweeps, which W&B reads with PyYAML; JSON files, where tabs are whitespace, are not asked.
 */
size_t sl_yaml_pyyaml_tab(struct sl_source *src, const char **why);

/*
 * A sweep's document as PyYAML reads it: when PyYAML stops at a tab (sl_yaml_pyyaml_tab) before
 * libyaml's own error, or where libyaml loaded the document, the syntax finding is at the tab and
 * the document is refused (doc->ok false, no root).
 */
void sl_ydoc_refuse_tabs(struct sl_ydoc *doc, struct sl_diags *diags);

#endif
