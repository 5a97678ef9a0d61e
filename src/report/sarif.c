/*
 * sarif: a SARIF 2.1.0 log for GitHub code scanning (`upload-sarif`), built
 * with jansson and streamed as files arrive (open_log below). It carries what
 * GitHub's SARIF support marks required (research/ecosystem.md §3.1):
 *   - one run whose tool.driver names sweeplint with its version and lists
 *     every rule of rules/rules.yaml: id (the slug), name, shortDescription
 *     (the summary), fullDescription and help (the help paragraph, the
 *     description cut at GitHub's 1024 characters), defaultConfiguration.level
 *     and the stable code in properties;
 *   - one result per finding: ruleId, ruleIndex, level (error, warning,
 *     note), message.text (the message, then the hint on its own line), one
 *     location whose artifactLocation.uri is relative to the working
 *     directory (checks run from the repository root), a region with
 *     startLine, startColumn, endLine and endColumn (the column after the
 *     span), and partialFingerprints.primaryLocationLineHash;
 *   - columnKind unicodeCodePoints, since columns count characters.
 * The fingerprint is "<16 hex digits>:<n>": a 64-bit FNV-1a hash of the
 * rule and the finding's line with its blanks removed, and n counting the
 * findings with that hash in the same file. It does not move when lines
 * are added above the finding, which is what GitHub uses it for (matching
 * alerts across commits).
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "sweeplint/json_out.h"
#include "sweeplint/arena.h"
#include "sweeplint/pysweep.h"
#include "sweeplint/rules.h"
#include "sweeplint/source.h"

#ifndef SL_VERSION
#define SL_VERSION "unknown"
#endif

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define GITHUB_TEXT_MAX 1024 /* shortDescription / fullDescription */

static void set(json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) != 0)
		sl_oom();
}

static void push(json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v) != 0)
		sl_oom();
}

static json_t *obj(void)
{
	json_t *o = json_object();
	if (!o)
		sl_oom();
	return o;
}

static json_t *arr(void)
{
	json_t *a = json_array();
	if (!a)
		sl_oom();
	return a;
}

/* {"text": s} */
static json_t *text_obj(struct sl_arena *a, const char *s)
{
	json_t *o = obj();
	set(o, "text", sl_report_jstr(a, s));
	return o;
}

static const char *level_name(enum sl_severity s)
{
	switch (s) {
	case SL_SEV_ERROR:
		return "error";
	case SL_SEV_WARNING:
		return "warning";
	default:
		return "note";
	}
}

/* s without its trailing blanks and line breaks, cut to at most max bytes on a UTF-8 character boundary. */
static const char *clip(struct sl_arena *a, const char *s, size_t max)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
		n--;
	if (n > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return sl_arena_strndup(a, s, n);
}

/* The help paragraph as one line per paragraph (rules.yaml wraps it at 80 columns). */
static const char *unwrap(struct sl_arena *a, const char *s)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_adds(&b, "");
	for (const char *p = s; *p; p++) {
		if (*p != '\n') {
			sl_buf_addc(&b, *p);
			continue;
		}
		if (p[1] == '\n' || p[1] == '\0') {
			sl_buf_addc(&b, '\n'); /* a paragraph break stays */
			while (p[1] == '\n')
				sl_buf_addc(&b, *++p);
		} else {
			sl_buf_addc(&b, ' ');
		}
	}
	return clip(a, b.buf, SIZE_MAX);
}

static json_t *rule_json(struct sl_arena *a, const struct sl_rule_doc *d)
{
	json_t *r = obj();
	const char *help = unwrap(a, d->help ? d->help : d->summary);
	set(r, "id", json_string(d->slug));
	set(r, "name", json_string(d->slug));
	set(r, "shortDescription", text_obj(a, clip(a, d->summary, GITHUB_TEXT_MAX)));
	set(r, "fullDescription", text_obj(a, clip(a, help, GITHUB_TEXT_MAX)));
	json_t *h = text_obj(a, help);
	set(h, "markdown", sl_report_jstr(a, sl_arena_printf(a, "**%s** `%s`: %s\n\n%s", d->code, d->slug,
							      d->summary, help)));
	set(r, "help", h);
	json_t *dc = obj();
	set(dc, "level", json_string(level_name(d->severity)));
	set(r, "defaultConfiguration", dc);
	json_t *props = obj();
	set(props, "code", json_string(d->code));
	json_t *tags = arr();
	push(tags, json_string("sweeplint"));
	set(props, "tags", tags);
	set(r, "properties", props);
	return r;
}

/* RFC 3986: keep unreserved characters and '/', percent-encode every other byte. */
static void uri_encode(struct sl_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		    *p == '.' || *p == '_' || *p == '~' || *p == '/') {
			sl_buf_addc(b, (char)*p);
		} else {
			sl_buf_addc(b, '%');
			sl_buf_addc(b, hex[*p >> 4]);
			sl_buf_addc(b, hex[*p & 15]);
		}
	}
}

/*
 * The artifact URI of a shown path: relative paths as they are (without a
 * leading "./"); an absolute path under cwd relative to it; any other
 * absolute path as a file:// URI.
 */
static const char *artifact_uri(struct sl_arena *a, const char *path, const char *cwd)
{
	struct sl_buf b;
	sl_buf_init(&b, a);
	sl_buf_adds(&b, "");
	if (path[0] == '/') {
		size_t n = cwd ? strlen(cwd) : 0;
		if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/') {
			path += n + 1;
		} else {
			sl_buf_adds(&b, "file://");
			uri_encode(&b, path);
			return b.buf;
		}
	}
	while (path[0] == '.' && path[1] == '/') {
		path += 2;
		while (*path == '/')
			path++;
	}
	uri_encode(&b, path);
	return b.buf;
}

/* 64-bit FNV-1a, continued from h. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The rule and the finding's line without blanks. */
static uint64_t line_hash(const struct sl_diag *d, const struct sl_source *src)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ULL, d->rule, strlen(d->rule) + 1);
	size_t len = 0;
	const char *line = src && d->span.line ? sl_source_line(src, d->span.line, &len) : NULL;
	for (size_t i = 0; line && i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			h = fnv1a(h, line + i, 1);
	return h;
}

/*
 * Fingerprints seen so far in one file, with how often: an open-addressing
 * table that doubles (10,000 findings cost 10,000 lookups, not 10,000^2/2).
 */
struct seen {
	uint64_t *hash;
	uint32_t *count;             /* 0: empty slot */
	size_t n, cap;               /* cap: a power of two, kept above 2n */
};

static uint32_t *seen_slot(const struct seen *s, uint64_t h)
{
	size_t mask = s->cap - 1;
	for (size_t i = (size_t)(h ^ h >> 29) & mask;; i = (i + 1) & mask)
		if (!s->count[i] || s->hash[i] == h) {
			s->hash[i] = h;
			return &s->count[i];
		}
}

static uint32_t occurrence(struct sl_arena *a, struct seen *s, uint64_t h)
{
	if (2 * (s->n + 1) > s->cap) {
		struct seen old = *s;
		s->cap = old.cap ? 2 * old.cap : 64;
		s->hash = sl_arena_array(a, s->cap, sizeof *s->hash);
		s->count = sl_arena_array(a, s->cap, sizeof *s->count);
		for (size_t i = 0; i < old.cap; i++)
			if (old.count[i])
				*seen_slot(s, old.hash[i]) = old.count[i];
	}
	uint32_t *c = seen_slot(s, h);
	if (!*c)
		s->n++;
	return ++*c;
}

static json_t *result_json(struct sl_arena *a, const struct sl_file *f, const struct sl_diag *d, const char *cwd,
			   struct seen *seen)
{
	const struct sl_source *src = d->src ? d->src : f->src;
	const struct sl_rule *rule = sl_rule_find(d->rule);
	json_t *r = obj();
	set(r, "ruleId", sl_report_jstr(a, d->rule));
	if (rule)
		set(r, "ruleIndex", json_integer((json_int_t)(rule - sl_rules)));
	set(r, "level", json_string(level_name(d->severity)));
	set(r, "message", text_obj(a, d->hint ? sl_arena_printf(a, "%s\nhint: %s", d->message, d->hint) : d->message));

	json_t *al = obj();
	set(al, "uri", sl_report_jstr(a, artifact_uri(a, src->display, cwd)));
	json_t *region = obj();
	/* a region of the artifact's own text: in a notebook, where the JSON string holding the code is
	 * (the file as stored, the text code scanning shows); the cell and the line in it are properties */
	const struct sl_source *raw = src;
	struct sl_span sp = sl_code_raw_span(src, d->span, &raw);
	uint32_t line = sp.line ? sp.line : 1, col = sp.col ? sp.col : 1;
	uint32_t end_line = sp.end_line >= line ? sp.end_line : line;
	uint32_t end_col = sp.end_col ? sp.end_col : col;
	if (end_line == line && end_col < col)
		end_col = col;
	set(region, "startLine", json_integer(line));
	set(region, "startColumn", json_integer(col));
	set(region, "endLine", json_integer(end_line));
	set(region, "endColumn", json_integer(end_col));
	json_t *pl = obj();
	set(pl, "artifactLocation", al);
	set(pl, "region", region);
	json_t *loc = obj();
	set(loc, "physicalLocation", pl);
	json_t *locs = arr();
	push(locs, loc);
	set(r, "locations", locs);

	uint64_t h = line_hash(d, src);
	json_t *fp = obj();
	set(fp, "primaryLocationLineHash",
	    json_string(sl_arena_printf(a, "%016llx:%u", (unsigned long long)h, occurrence(a, seen, h))));
	set(r, "partialFingerprints", fp);
	unsigned cell = 0;
	struct sl_span cs = sl_source_cell_span(src, d->span, &cell);
	if (cell) {
		json_t *props = obj();
		set(props, "cell", json_integer(cell));
		set(props, "cellLine", json_integer(cs.line));
		set(props, "cellColumn", json_integer(cs.col));
		set(r, "properties", props);
	}
	return r;
}

#define RESULTS_MARK "@@sweeplint-results@@"

static void free_cwd(void *p)
{
	free(p);
}

/* The working directory, once per report (artifact URIs are relative to it). */
static const char *report_cwd(struct sl_report *r)
{
	char *cwd = getcwd(NULL, 0);
	if (cwd)
		sl_arena_defer(r->arena, free_cwd, cwd);
	return cwd;
}

/*
 * The log around its results: the whole document with a marker where the
 * results array goes, dumped once; the head is written now, the tail kept
 * for sarif_finish. Results are then written one by one as files arrive,
 * indented as jansson would (each result dumped alone and shifted to the
 * array's depth), so memory does not grow with the findings of earlier
 * files and the bytes are those of one json_dumpf of the whole log.
 */
static void open_log(struct sl_report *r)
{
	struct sl_arena *a = r->arena;
	r->sarif_open = true;
	r->sarif_cwd = report_cwd(r);
	json_t *rules = arr();
	struct sl_diags quiet;
	sl_diags_init(&quiet, a);
	const struct sl_rule_doc *docs = NULL;
	if (sl_rules_doc_load(a, &docs, &quiet) == 0) {
		for (size_t i = 0; i < sl_nrules; i++)
			push(rules, rule_json(a, &docs[i]));
	} else {
		/* the embedded rules.yaml disagrees with the table (a test catches this): ids and levels only */
		for (size_t i = 0; i < sl_nrules; i++) {
			struct sl_rule_doc d = {.rule = &sl_rules[i], .slug = sl_rules[i].slug, .code = sl_rules[i].code,
						.severity = sl_rules[i].severity, .summary = sl_rules[i].slug};
			push(rules, rule_json(a, &d));
		}
	}
	json_t *driver = obj();
	set(driver, "name", json_string("sweeplint"));
	set(driver, "version", json_string(SL_VERSION));
	set(driver, "semanticVersion", json_string(SL_VERSION));
	set(driver, "rules", rules);
	json_t *tool = obj();
	set(tool, "driver", driver);
	json_t *run = obj();
	set(run, "tool", tool);
	set(run, "results", json_string(RESULTS_MARK));
	set(run, "columnKind", json_string("unicodeCodePoints"));
	json_t *runs = arr();
	push(runs, run);
	json_t *root = obj();
	set(root, "$schema", json_string(SARIF_SCHEMA));
	set(root, "version", json_string("2.1.0"));
	set(root, "runs", runs);
	char *doc = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!doc)
		sl_oom();
	char *mark = strstr(doc, "\"" RESULTS_MARK "\"");
	if (!mark)
		sl_oom(); /* cannot happen: the marker is a plain ASCII string */
	const char *line = mark;
	while (line > doc && line[-1] != '\n')
		line--;
	r->sarif_indent = (size_t)(strspn(line, " "));
	r->sarif_tail = sl_arena_strdup(a, mark + strlen(RESULTS_MARK) + 2);
	sl_json_write(r->out, doc, (size_t)(mark - doc));
	free(doc);
}

static void put_result(struct sl_report *r, json_t *res)
{
	char *s = json_dumps(res, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(res);
	if (!s)
		sl_oom();
	size_t ind = r->sarif_indent + 2;
	fputs(r->sarif_results++ ? ",\n" : "[\n", r->out);
	fprintf(r->out, "%*s", (int)ind, "");
	for (const char *p = s; *p;) {
		size_t k = strcspn(p, "\n");
		sl_json_write(r->out, p, k);
		p += k;
		if (*p == '\n') {
			fprintf(r->out, "\n%*s", (int)ind, "");
			p++;
		}
	}
	free(s);
}

static void sarif_file(struct sl_report *r, const struct sl_file *f)
{
	if (!r->sarif_open)
		open_log(r);
	/* what one result needs (strings, the fingerprint counts) lives in the file's arena */
	struct seen seen = {0};
	for (size_t k = 0; k < f->diags.n; k++)
		put_result(r, result_json(sl_report_file_arena(r, f), f, &f->diags.v[k], r->sarif_cwd, &seen));
}

static void sarif_finish(struct sl_report *r)
{
	if (!r->sarif_open)
		open_log(r);
	if (r->sarif_results)
		fprintf(r->out, "\n%*s]", (int)r->sarif_indent, "");
	else
		fputs("[]", r->out);
	sl_json_write(r->out, r->sarif_tail, strlen(r->sarif_tail));
	fputc('\n', r->out);
}

const struct sl_formatter sl_formatter_sarif = {
	.file = sarif_file,
	.finish = sarif_finish,
};
