/*
 * run_rules: the rules tier (contract §2). For every fixture
 * fixtures/rules/<dir>/NAME.yaml it runs the check pipeline in-process with the
 * options of the fixture's first-line `# args:` comment and compares the
 * exact set of (line, column, slug) findings with the annotations:
 *   `# expect: <slug>@<col>[, <slug>@<col>...]`  findings on this line
 *   `# expect-at <line>:<col> <slug>`            a finding anywhere
 *   `# expect-at <file>:<line>:<col> <slug>`     a finding in another file (a -c trainer
 *                                                config), file as the finding shows it
 * Nothing missing, nothing extra. A fixture with no annotation is negative.
 * It also fails when a rule with a check function lacks a fixture directory
 * with a positive and a negative fixture, or when a directory (other than
 * those starting with '_') names no rule. Output is TAP.
 *
 * usage: run_rules FIXTURES_DIR [FIXTURE...]   (FIXTURE: check only these files)
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <dirent.h>
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "sweeplint/arena.h"
#include "sweeplint/rules.h"
#include "sweeplint/run.h"
#include "sweeplint/source.h"

struct finding {
	const char *file;     /* NULL: the fixture itself; else the other file's display path */
	uint32_t line, col;
	const char *slug;
	const char *message; /* actual findings only */
};

struct list {
	struct finding *v;
	size_t n, cap;
};

struct ctx {
	struct sl_arena *a;   /* the runner's own arena (patterns, lists) */
	pcre2_code *expect, *item, *expect_at, *args;
	pcre2_match_data *md;
	int tests, failures;
};

static void push(struct sl_arena *a, struct list *l, const char *file, uint32_t line, uint32_t col, const char *slug,
		 const char *msg)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		l->v = sl_arena_grow(a, l->v, l->n, cap, sizeof *l->v);
		l->cap = cap;
	}
	l->v[l->n++] = (struct finding){file, line, col, slug, msg};
}

static int cmp_finding(const void *pa, const void *pb)
{
	const struct finding *a = pa, *b = pb;
	if (!a->file != !b->file)
		return a->file ? 1 : -1;
	if (a->file && strcmp(a->file, b->file) != 0)
		return strcmp(a->file, b->file);
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return strcmp(a->slug, b->slug);
}

static void free_code(void *p)
{
	pcre2_code_free(p);
}

static void free_md(void *p)
{
	pcre2_match_data_free(p);
}

static pcre2_code *compile(struct sl_arena *a, const char *pat)
{
	int err;
	PCRE2_SIZE off;
	pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
	pcre2_set_newline(cc, PCRE2_NEWLINE_ANYCRLF); /* fixtures may use CRLF */
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE, &err, &off, cc);
	pcre2_compile_context_free(cc);
	if (!re) {
		fprintf(stderr, "run_rules: bad pattern %s\n", pat);
		exit(99);
	}
	sl_arena_defer(a, free_code, re);
	return re;
}

static char *group(struct sl_arena *a, const char *subj, PCRE2_SIZE *ov, int g)
{
	return sl_arena_strndup(a, subj + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

/* Split the `# args:` text into words (blanks separate; '...' and "..." quote). */
static int split_args(struct sl_arena *a, const char *s, char ***argv_out)
{
	char **argv = sl_arena_array(a, strlen(s) + 2, sizeof *argv);
	int argc = 0;
	argv[argc++] = "check";
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		struct sl_buf w;
		sl_buf_init(&w, a);
		while (*s && *s != ' ' && *s != '\t') {
			if (*s == '\'' || *s == '"') {
				char q = *s++;
				while (*s && *s != q)
					sl_buf_addc(&w, *s++);
				if (*s)
					s++;
			} else {
				sl_buf_addc(&w, *s++);
			}
		}
		argv[argc++] = w.buf;
	}
	argv[argc] = NULL;
	*argv_out = argv;
	return argc;
}

/* Read the annotations of a fixture. Returns false (with a message) on a malformed one. */
static bool annotations(struct ctx *c, const struct sl_source *src, struct list *want, const char **why)
{
	const char *s = src->bytes;
	size_t at = 0;
	/* # expect: a@3, b@10 */
	while (at < src->len && pcre2_match(c->expect, (PCRE2_SPTR)s, src->len, at, 0, c->md, NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
		at = ov[1] > at ? ov[1] : at + 1;
		uint32_t line, col;
		sl_source_linecol(src, ov[0], &line, &col);
		char *items = group(c->a, s, ov, 1);
		for (char *tok = strtok(items, ","); tok; tok = strtok(NULL, ",")) {
			pcre2_match_data *md = pcre2_match_data_create(4, NULL);
			int rc = pcre2_match(c->item, (PCRE2_SPTR)tok, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL);
			if (rc < 0) {
				*why = sl_arena_printf(c->a, "line %u: cannot read annotation item '%s' (want slug@col)",
						       line, tok);
				pcre2_match_data_free(md);
				return false;
			}
			PCRE2_SIZE *iv = pcre2_get_ovector_pointer(md);
			const char *slug = group(c->a, tok, iv, 1);
			uint32_t ecol = (uint32_t)strtoul(tok + iv[4], NULL, 10);
			pcre2_match_data_free(md);
			if (!sl_rule_find(slug) || strcmp(sl_rule_find(slug)->slug, slug) != 0) {
				*why = sl_arena_printf(c->a, "line %u: annotation names unknown rule '%s'", line, slug);
				return false;
			}
			push(c->a, want, NULL, line, ecol, slug, NULL);
		}
	}
	/* # expect-at 3:9 syntax */
	at = 0;
	while (at < src->len && pcre2_match(c->expect_at, (PCRE2_SPTR)s, src->len, at, 0, c->md, NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
		at = ov[1] > at ? ov[1] : at + 1;
		const char *file = ov[2] != PCRE2_UNSET && ov[3] > ov[2] ? group(c->a, s, ov, 1) : NULL;
		uint32_t line = (uint32_t)strtoul(s + ov[4], NULL, 10);
		uint32_t col = (uint32_t)strtoul(s + ov[6], NULL, 10);
		const char *slug = group(c->a, s, ov, 4);
		if (!sl_rule_find(slug) || strcmp(sl_rule_find(slug)->slug, slug) != 0) {
			*why = sl_arena_printf(c->a, "annotation names unknown rule '%s'", slug);
			return false;
		}
		push(c->a, want, file, line, col, slug, NULL);
	}
	return true;
}

/*
 * Check one fixture; returns true when it passes. *positive tells whether it
 * expects a finding of rule (any finding when rule is NULL).
 */
static bool run_fixture(struct ctx *c, const char *path, const struct sl_rule *rule, bool *positive)
{
	bool ok = true;
	struct sl_run *run = sl_run_new();
	int err = 0;
	struct sl_source *src = sl_source_read(run->arena, path, SL_MAX_INPUT_BYTES, &err);
	if (!src) {
		printf("not ok %d - %s\n  # cannot read: %s\n", ++c->tests, path, strerror(err));
		sl_run_free(run);
		return false;
	}
	struct list want = {0}, got = {0};
	const char *why = NULL;
	if (!annotations(c, src, &want, &why)) {
		printf("not ok %d - %s\n  # %s\n", ++c->tests, path, why);
		sl_run_free(run);
		return false;
	}
	*positive = false;
	for (size_t i = 0; i < want.n; i++)
		if (!rule || strcmp(want.v[i].slug, rule->slug) == 0)
			*positive = true;

	/* options from the first line */
	size_t l1len;
	const char *l1 = sl_source_line(src, 1, &l1len);
	char *line1 = sl_arena_strndup(c->a, l1, l1len);
	if (pcre2_match(c->args, (PCRE2_SPTR)line1, l1len, 0, 0, c->md, NULL) >= 0) {
		char **argv;
		int argc = split_args(c->a, group(c->a, line1, pcre2_get_ovector_pointer(c->md), 1), &argv);
		char *errbuf = NULL;
		size_t errlen = 0;
		FILE *errf = open_memstream(&errbuf, &errlen);
		struct sl_cli cli = {.out = errf, .err = errf, .argv0 = "sweeplint"};
		int first = 0;
		int rc = sl_opts_parse(&cli, &(struct sl_cmd_spec){.name = "check", .usage = "", .summary = "",
							   .common = SL_OPTS_ALL},
				       run, argc, argv, &first);
		fclose(errf);
		if (rc != SL_OPTS_GO || first < argc) {
			printf("not ok %d - %s\n  # bad '# args:' line: %s\n", ++c->tests, path,
			       rc != SL_OPTS_GO ? errbuf : "operands are not allowed");
			free(errbuf);
			sl_run_free(run);
			return false;
		}
		free(errbuf);
	}

	struct sl_file *f = sl_run_check_source(run, src);
	for (size_t i = 0; i < f->diags.n; i++) {
		const struct sl_diag *d = &f->diags.v[i];
		const char *p = d->src && d->src != src ? d->src->display : NULL;
		push(c->a, &got, p, d->span.line, d->span.col, sl_arena_strdup(c->a, d->rule), d->message);
	}
	if (want.n > 1)
		qsort(want.v, want.n, sizeof *want.v, cmp_finding);
	if (got.n > 1)
		qsort(got.v, got.n, sizeof *got.v, cmp_finding);

	struct sl_buf report;
	sl_buf_init(&report, c->a);
	if (f->err)
		sl_buf_addf(&report, "  # operational failure in '%s': %s\n", f->err_rule, sl_strerror(f->err));
	size_t i = 0, j = 0;
	while (i < want.n || j < got.n) {
		int k = i == want.n ? 1 : j == got.n ? -1 : cmp_finding(&want.v[i], &got.v[j]);
		if (k == 0) {
			i++, j++;
		} else if (k < 0) {
			sl_buf_addf(&report, "  # missing: %s%s%u:%u %s\n", want.v[i].file ? want.v[i].file : "",
				    want.v[i].file ? ":" : "", want.v[i].line, want.v[i].col, want.v[i].slug);
			i++;
		} else {
			sl_buf_addf(&report, "  # extra:   %s%s%u:%u %s (%s)\n", got.v[j].file ? got.v[j].file : "",
				    got.v[j].file ? ":" : "", got.v[j].line, got.v[j].col, got.v[j].slug, got.v[j].message);
			j++;
		}
	}
	ok = report.len == 0;
	printf("%s %d - %s\n%s", ok ? "ok" : "not ok", ++c->tests, path, report.buf);
	sl_run_free(run);
	return ok;
}

static int yaml_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".yaml") == 0;
}

static int dir_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: run_rules FIXTURES_DIR [FIXTURE...]\n");
		return 2;
	}
	struct ctx c = {.a = sl_arena_new()};
	c.expect = compile(c.a, "#[ \\t]*expect:[ \\t]*([^\\r\\n#]*?)[ \\t]*$");
	c.item = compile(c.a, "^[ \\t]*([a-z0-9-]+)@([0-9]+)[ \\t]*$");
	c.expect_at = compile(c.a, "#[ \\t]*expect-at[ \\t]+(?:([^\\s:]+):)?([0-9]+):([0-9]+)[ \\t]+([a-z0-9-]+)");
	c.args = compile(c.a, "^#[ \\t]*args:[ \\t]*([^\\r\\n]*?)[ \\t]*$");
	c.md = pcre2_match_data_create(8, NULL);
	sl_arena_defer(c.a, free_md, c.md);

	if (argc > 2) {
		for (int i = 2; i < argc; i++) {
			bool pos;
			if (!run_fixture(&c, argv[i], NULL, &pos))
				c.failures++;
		}
		printf("1..%d\n", c.tests);
		sl_arena_free(c.a);
		return c.failures ? 1 : 0;
	}

	const char *root = argv[1];
	struct dirent **dirs;
	int nd = scandir(root, &dirs, dir_filter, alphasort);
	if (nd < 0) {
		fprintf(stderr, "run_rules: cannot read %s: %s\n", root, strerror(errno));
		return 2;
	}
	bool *has_pos = sl_arena_array(c.a, sl_nrules, sizeof *has_pos);
	bool *has_neg = sl_arena_array(c.a, sl_nrules, sizeof *has_neg);
	for (int d = 0; d < nd; d++) {
		const char *name = dirs[d]->d_name;
		const struct sl_rule *rule = sl_rule_find(name);
		if (rule && strcmp(rule->slug, name) != 0)
			rule = NULL; /* a directory is named by slug, not code */
		if (!rule && name[0] != '_') {
			printf("not ok %d - %s/%s\n  # a fixture directory that names no rule\n", ++c.tests, root, name);
			c.failures++;
		}
		char *dir = sl_arena_printf(c.a, "%s/%s", root, name);
		struct dirent **files;
		int nf = scandir(dir, &files, yaml_filter, alphasort);
		if (nf < 0)
			nf = 0;
		for (int k = 0; k < nf; k++) {
			char *path = sl_arena_printf(c.a, "%s/%s", dir, files[k]->d_name);
			bool pos = false;
			if (!run_fixture(&c, path, rule, &pos))
				c.failures++;
			else if (rule)
				(pos ? has_pos : has_neg)[rule - sl_rules] = true;
			free(files[k]);
		}
		free(files);
		free(dirs[d]);
	}
	free(dirs);
	for (size_t i = 0; i < sl_nrules; i++) {
		if (!sl_rules[i].check && !has_pos[i] && !has_neg[i])
			continue; /* a pseudo-rule without fixtures */
		if (!has_pos[i] || !has_neg[i]) {
			printf("not ok %d - rule %s\n  # needs a passing positive and negative fixture in %s/%s/ "
			       "(positive: %s, negative: %s)\n",
			       ++c.tests, sl_rules[i].slug, root, sl_rules[i].slug, has_pos[i] ? "yes" : "no",
			       has_neg[i] ? "yes" : "no");
			c.failures++;
		}
	}
	printf("1..%d\n", c.tests);
	sl_arena_free(c.a);
	return c.failures ? 1 : 0;
}
