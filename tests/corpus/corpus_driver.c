/*
 * corpus_driver: the library's verdict on sweep files, one JSON line each
 * ({"file", "syntax", "schema", "is_sweep"}), for run_corpus.py when the
 * CLI cannot answer. Exits 2 when a file cannot be read.
 */
#include <stdio.h>

#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/source.h"
#include "sweeplint/sweep.h"
#include "sweeplint/ydoc.h"

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct sl_arena *a = sl_arena_new();
		int err = 0;
		struct sl_source *src = sl_source_read(a, argv[i], 64u << 20, &err);
		if (!src) {
			fprintf(stderr, "corpus_driver: cannot read %s\n", argv[i]);
			rc = 2;
			sl_arena_free(a);
			continue;
		}
		struct sl_diags d;
		sl_diags_init(&d, a);
		struct sl_ydoc *doc = sl_ydoc_parse(a, src, NULL, &d);
		struct sl_sweep *s = sl_sweep_load(a, doc);
		printf("{\"file\": \"%s\", \"syntax\": %zu, \"schema\": %zu, \"is_sweep\": %s}\n", argv[i], d.n,
		       s->nproblems, s->is_sweep ? "true" : "false");
		sl_arena_free(a);
	}
	return rc;
}
