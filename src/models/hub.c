/*
 * hub: config.json from the Hugging Face Hub into the standard cache
 * (include/sweeplint/hub.h). libcurl is dlopen()ed when the first download
 * is asked for; its header gives the types and option numbers only. The
 * token file is read at the first request (never when nothing is fetched),
 * each run's requests are bounded in count and time, and a failure is
 * remembered (hub.h); the cache is written by hub_cache.c.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/hub.h"
#include "sweeplint/json_bound.h"
#include "sweeplint/models.h"
#include "sweeplint/source.h"

#ifdef SL_HAVE_CURL_H
/* CURLOPT_PROTOCOLS (a bit mask) works in every libcurl the dlopen may find; its _STR successor only from 7.85 */
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>
#endif

#define DEFAULT_ENDPOINT "https://huggingface.co"
#define DEFAULT_TIMEOUT_S 10.0
#define MAX_REDIRS 5L

struct sl_hub_answer {
	const char *repo;
	const char *path; /* NULL: failed */
	const char *why;
	double retry_at;  /* a failure after a request: asked again from this time on (CLOCK_MONOTONIC s) */
	unsigned run;     /* retry_at 0: a failure that made no request, asked again in a later run */
};

/* Whose failure a request's is: this id's, the endpoint's (every id would fail), the run's budget's. */
enum fail_kind { FAIL_ID, FAIL_ENDPOINT, FAIL_BUDGET };

/* Seconds on the monotonic clock. */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --- environment ---------------------------------------------------------- */

static bool set(const char *v)
{
	return v && *v;
}

static bool truthy(const char *v)
{
	return set(v) && (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 ||
			  strcasecmp(v, "on") == 0);
}

/* A token goes into a header: printable, no spaces or line breaks. */
static bool header_safe(const char *s)
{
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return false;
	return true;
}

#ifdef SL_HAVE_CURL_H /* only a request reads it: a build without libcurl sends none */
/*
 * The token a request sends: HF_TOKEN, else the first line of the token file, read here, at the first
 * request that sends it (never at start-up), once per hub, from a regular file of at most
 * SL_HUB_MAX_TOKEN_BYTES only (a FIFO a secret manager mounts there is never opened, let alone drained;
 * sl_source_read opens O_NONBLOCK and checks with fstat what it opened). NULL when none; h->token_note
 * says why a file that is there was not used.
 */
static const char *hub_token(struct sl_hub *h)
{
	if (h->token || h->token_read || !h->token_path)
		return h->token;
	h->token_read = true;
	int err = 0;
	struct stat st;
	/* a FIFO or device is not even opened (a one-shot secret pipe stays the secret manager's); a file
	 * swapped in after this look is refused by sl_source_read's own fstat */
	if (stat(h->token_path, &st) == 0 && !S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? EISDIR : SL_SOURCE_ENOTREG;
	struct sl_source *src = err ? NULL : sl_source_read(h->arena, h->token_path, SL_HUB_MAX_TOKEN_BYTES, &err);
	if (!src) {
		if (err != ENOENT)
			h->token_note = sl_arena_printf(h->arena, "the token file %s was not read: %s", h->token_path,
							err == EFBIG ? "larger than a token file is"
								     : sl_source_strerror(err));
		return NULL;
	}
	size_t n = strcspn(src->bytes, "\r\n");
	while (n > 0 && isspace((unsigned char)src->bytes[n - 1]))
		n--;
	const char *tok = n ? sl_arena_strndup(h->arena, src->bytes, n) : NULL;
	if (tok && !header_safe(tok)) {
		h->token_note = sl_arena_printf(h->arena, "the token in %s was not used: it holds characters a header "
						"cannot carry", h->token_path);
		tok = NULL;
	}
	h->token = tok;
	return tok;
}
#endif

struct sl_hub *sl_hub_new(struct sl_arena *a, const char *cache, const struct sl_hub_env *e)
{
	static const struct sl_hub_env none = {0};
	if (!e)
		e = &none;
	struct sl_hub *h = sl_arena_alloc(a, sizeof *h);
	h->arena = a;
	const char *ep = set(e->endpoint) ? e->endpoint : DEFAULT_ENDPOINT;
	size_t n = strlen(ep);
	while (n > 0 && ep[n - 1] == '/')
		n--;
	h->endpoint = sl_arena_strndup(a, ep, n);
	/* HF_TOKEN as given; the token file only named here: read by the first request (hub_token) */
	h->token = set(e->token) && header_safe(e->token) ? sl_arena_strdup(a, e->token) : NULL;
	h->token_path = set(e->token_path) ? sl_arena_strdup(a, e->token_path)
			: set(e->hf_home)  ? sl_arena_printf(a, "%s/token", e->hf_home)
			: set(e->home)     ? sl_arena_printf(a, "%s/.cache/huggingface/token", e->home)
					   : NULL;
	h->cache = set(cache) ? sl_arena_strdup(a, cache) : NULL;
	h->offline = truthy(e->offline);
	char *end = NULL;
	double secs = set(e->timeout) ? strtod(e->timeout, &end) : 0;
	bool given = set(e->timeout) && end && *end == '\0' && secs > 0 && secs < 3600;
	h->timeout_s = given ? (long)(secs + 0.999) : (long)DEFAULT_TIMEOUT_S;
	h->max_bytes = SL_HUB_MAX_BYTES;
	return h;
}

bool sl_hub_is_repo_id(const char *s)
{
	const char *slash = strchr(s, '/');
	if (slash && strchr(slash + 1, '/'))
		return false;
	const char *parts[2] = {s, slash ? slash + 1 : NULL};
	size_t lens[2] = {slash ? (size_t)(slash - s) : strlen(s), slash ? strlen(slash + 1) : 0};
	for (int i = 0; i < 2 && parts[i]; i++) {
		const char *p = parts[i];
		size_t n = lens[i];
		if (n == 0 || n > 96 || p[0] == '.' || p[0] == '-' || p[n - 1] == '.' || p[n - 1] == '-')
			return false;
		for (size_t k = 0; k < n; k++) {
			unsigned char c = (unsigned char)p[k];
			if (!(isalnum(c) || c == '.' || c == '_' || c == '-'))
				return false;
			if (k + 1 < n && (c == '.' || c == '-') && p[k + 1] == c)
				return false; /* ".." and "--" are not allowed in Hub names */
		}
	}
	return true;
}

/* --- the download ------------------------------------------------------------ */

/* Without libcurl's header (meson -Dfetch=disabled, or not installed) nothing below but the refusal is built. */
#ifdef SL_HAVE_CURL_H

static bool is_commit(const char *s, size_t n)
{
	if (n != 40)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

struct curl_api {
	void *lib;
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
};

/* dlsym into a function pointer (POSIX guarantees the conversion; memcpy keeps -Wpedantic quiet). */
static bool sym(void *lib, const char *name, void *fnptr, size_t size)
{
	void *p = dlsym(lib, name);
	if (!p)
		return false;
	memcpy(fnptr, &p, size);
	return true;
}

static void curl_unload(void *p)
{
	struct curl_api *c = p;
	c->global_cleanup();
	dlclose(c->lib);
}

/* libcurl, loaded once per hub; NULL (and *why) when the library is not there. */
static struct curl_api *curl_load(struct sl_hub *h, const char **why)
{
	static const char *const names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so", "libcurl.4.dylib",
					    "libcurl.dylib"};
	void *lib = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		*why = "--fetch needs libcurl (libcurl.so.4), which is not installed on this machine";
		return NULL;
	}
	struct curl_api *c = sl_arena_alloc(h->arena, sizeof *c);
	c->lib = lib;
#define SYM(field, name) sym(lib, name, &c->field, sizeof c->field)
	bool ok = SYM(global_init, "curl_global_init") && SYM(global_cleanup, "curl_global_cleanup") &&
		  SYM(easy_init, "curl_easy_init") && SYM(easy_setopt, "curl_easy_setopt") &&
		  SYM(easy_perform, "curl_easy_perform") && SYM(easy_getinfo, "curl_easy_getinfo") &&
		  SYM(easy_cleanup, "curl_easy_cleanup") && SYM(easy_strerror, "curl_easy_strerror") &&
		  SYM(slist_append, "curl_slist_append") && SYM(slist_free_all, "curl_slist_free_all");
#undef SYM
	if (!ok || c->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		dlclose(lib);
		*why = "the libcurl on this machine is unusable (missing symbols or failed to start)";
		return NULL;
	}
	sl_arena_defer(h->arena, curl_unload, c);
	return c;
}

struct response {
	char *body;
	size_t len, cap, max;
	bool too_big;
	char commit[41];
	char error_code[48];  /* X-Error-Code: GatedRepo, RepoNotFound, EntryNotFound, ... */
};

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	struct response *r = ud;
	size_t k = size * n;
	if (k > r->max - r->len) {
		r->too_big = true;
		return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
	}
	if (r->len + k > r->cap) {
		size_t cap = r->cap ? r->cap : 16384;
		while (cap < r->len + k)
			cap *= 2;
		char *b = realloc(r->body, cap);
		if (!b)
			return 0;
		r->body = b;
		r->cap = cap;
	}
	memcpy(r->body + r->len, p, k);
	r->len += k;
	return k;
}

/* "Name: value" of one header line into out when the name matches; trimmed. */
static void header_value(const char *line, size_t n, const char *name, char *out, size_t outsz)
{
	size_t nl = strlen(name);
	if (n <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return;
	const char *v = line + nl + 1;
	const char *end = line + n;
	while (v < end && isspace((unsigned char)*v))
		v++;
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	size_t len = (size_t)(end - v);
	if (len >= outsz)
		len = outsz - 1;
	memcpy(out, v, len);
	out[len] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct response *r = ud;
	size_t k = size * n;
	if (!r->commit[0])
		header_value(p, k, "X-Repo-Commit", r->commit, sizeof r->commit);
	header_value(p, k, "X-Error-Code", r->error_code, sizeof r->error_code);
	return k;
}

/* The sentence for a finished request that did not give a config. */
static const char *status_why(struct sl_hub *h, const char *repo, long code, const struct response *r)
{
	struct sl_arena *a = h->arena;
	if (strcmp(r->error_code, "RepoNotFound") == 0 || (code == 404 && !r->error_code[0]))
		return sl_arena_printf(a, "no model '%s' on %s (HTTP %ld)%s", repo, h->endpoint, code,
				       h->token ? "" : "; a private one needs HF_TOKEN");
	if (strcmp(r->error_code, "EntryNotFound") == 0)
		return sl_arena_printf(a, "'%s' has no config.json on %s (HTTP %ld)", repo, h->endpoint, code);
	if (code == 401 || code == 403 || strcmp(r->error_code, "GatedRepo") == 0)
		return h->token ? sl_arena_printf(a,
						  "'%s' is gated or private and the token (HF_TOKEN) has no access to it "
						  "(HTTP %ld): accept its terms on the Hub or use another token",
						  repo, code)
				: sl_arena_printf(a,
						  "'%s' is gated or private (HTTP %ld): set HF_TOKEN to a token with "
						  "access to it%s%s",
						  repo, code, h->token_note ? "; " : "", h->token_note ? h->token_note : "");
	if (code == 429)
		return sl_arena_printf(a, "%s is rate-limiting requests (HTTP 429): try again later", h->endpoint);
	return sl_arena_printf(a, "%s answered HTTP %ld for '%s'", h->endpoint, code, repo);
}

/*
 * GET config.json within timeout_ms; the body (malloc'd, in r) on 200. NULL on success, else the sentence,
 * with *kind saying whose failure it is: the endpoint's (no connection, no answer within the whole
 * HF_HUB_DOWNLOAD_TIMEOUT, a broken transfer, HTTP 5xx or 429: the other ids would fail the same way),
 * the run's budget's (no answer within what was left of it), or this id's.
 */
static const char *download(struct sl_hub *h, struct curl_api *c, const char *repo, long timeout_ms,
			    struct response *r, enum fail_kind *kind)
{
	struct sl_arena *a = h->arena;
	*kind = FAIL_ID;
	const char *url = sl_arena_printf(a, "%s/%s/resolve/main/config.json", h->endpoint, repo);
	CURL *e = c->easy_init();
	if (!e)
		return "libcurl could not start a request";
	char err[CURL_ERROR_SIZE] = {0};
	struct curl_slist *hdrs = NULL;
	const char *token = hub_token(h); /* read now: this request sends it */
	if (token)
		hdrs = c->slist_append(hdrs, sl_arena_printf(a, "Authorization: Bearer %s", token));
	long protos = CURLPROTO_HTTP | CURLPROTO_HTTPS;
	c->easy_setopt(e, CURLOPT_URL, url);
	c->easy_setopt(e, CURLOPT_ERRORBUFFER, err);
	c->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	c->easy_setopt(e, CURLOPT_PROTOCOLS, protos);
	c->easy_setopt(e, CURLOPT_REDIR_PROTOCOLS, protos);
	c->easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
	c->easy_setopt(e, CURLOPT_MAXREDIRS, MAX_REDIRS);
	c->easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	c->easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	c->easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)h->max_bytes);
	c->easy_setopt(e, CURLOPT_USERAGENT, "sweeplint (config.json only; --fetch)");
	c->easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
	c->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	c->easy_setopt(e, CURLOPT_WRITEDATA, r);
	c->easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	c->easy_setopt(e, CURLOPT_HEADERDATA, r);
	CURLcode rc = c->easy_perform(e);
	long code = 0;
	c->easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
	c->easy_cleanup(e);
	c->slist_free_all(hdrs);

	if (r->too_big || rc == CURLE_FILESIZE_EXCEEDED)
		return sl_arena_printf(a, "the config.json %s sent for '%s' is larger than %zu bytes: refused",
				       h->endpoint, repo, h->max_bytes);
	if (rc == CURLE_TOO_MANY_REDIRECTS)
		return sl_arena_printf(a, "%s redirected more than %ld times for '%s'", h->endpoint, MAX_REDIRS, repo);
	bool cut = rc == CURLE_OPERATION_TIMEDOUT && timeout_ms < h->timeout_s * 1000;
	*kind = cut ? FAIL_BUDGET : rc != CURLE_OK || code >= 500 || code == 429 ? FAIL_ENDPOINT : FAIL_ID;
	if (cut)
		return sl_arena_printf(a, "no complete answer from %s within the %.1f s left of this run's %ld s of "
				       "fetching (HF_HUB_DOWNLOAD_TIMEOUT; a later run fetches it)",
				       h->endpoint, (double)timeout_ms / 1000, h->timeout_s);
	if (rc == CURLE_OPERATION_TIMEDOUT)
		return sl_arena_printf(a, "no complete answer from %s within %ld s (HF_HUB_DOWNLOAD_TIMEOUT)",
				       h->endpoint, h->timeout_s);
	if (rc != CURLE_OK)
		return sl_arena_printf(a, "cannot get '%s' from %s: %s", repo, h->endpoint,
				       err[0] ? err : c->easy_strerror(rc));
	if (code != 200)
		return status_why(h, repo, code, r);
	return NULL;
}

/* Download repo's config.json into the cache (sl_hf_cache_store); its path, or NULL with *why (*kind as download's). */
static const char *fetch(struct sl_hub *h, const char *repo, long timeout_ms, const char **why, enum fail_kind *kind)
{
	struct sl_arena *a = h->arena;
	*kind = FAIL_ID;
	struct curl_api *c = curl_load(h, why);
	if (!c)
		return NULL;
	struct response r = {.max = h->max_bytes};
	const char *path = NULL;
	*why = download(h, c, repo, timeout_ms, &r, kind);
	if (!*why) {
		json_error_t jerr;
		json_t *root = sl_json_loadb_bounded(r.body ? r.body : "", r.len, 0, SL_JSON_MAX_VALUES, &jerr);
		if (!root)
			*why = sl_arena_printf(a, "the config.json %s sent for '%s' is not JSON: %s (line %d)", h->endpoint,
					       repo, jerr.text, jerr.line);
		else if (!json_is_object(root))
			*why = sl_arena_printf(a, "the config.json %s sent for '%s' is not a JSON object", h->endpoint,
					       repo);
		json_decref(root);
	}
	if (!*why && !is_commit(r.commit, strlen(r.commit)))
		*why = sl_arena_printf(a, "%s did not say which commit it sent for '%s' (no X-Repo-Commit header)",
				       h->endpoint, repo);
	if (!*why) {
		const char *store_why = NULL;
		path = sl_hf_cache_store(a, h->cache, repo, r.commit, r.body ? r.body : "", r.len, &store_why);
		if (!path)
			*why = sl_arena_printf(a, "cannot write the Hugging Face cache: %s", store_why);
	}
	free(r.body);
	return path;
}

const char *sl_hub_unavailable(struct sl_arena *a)
{
	struct sl_hub probe = {.arena = a};
	const char *why = NULL;
	return curl_load(&probe, &why) ? NULL : why;
}

#else /* !SL_HAVE_CURL_H */

#define BUILT_WITHOUT "this sweeplint was built without --fetch (meson -Dfetch=disabled, or no libcurl header)"

static const char *fetch(struct sl_hub *h, const char *repo, long timeout_ms, const char **why, enum fail_kind *kind)
{
	(void)h, (void)repo, (void)timeout_ms;
	*kind = FAIL_BUDGET; /* nothing to remember: asked again (and refused again) in a later run */
	*why = BUILT_WITHOUT;
	return NULL;
}

const char *sl_hub_unavailable(struct sl_arena *a)
{
	(void)a;
	return BUILT_WITHOUT;
}

#endif

void sl_hub_new_run(struct sl_hub *h)
{
	h->run++;
	h->run_started = 0;
	h->run_fetches = 0;
}

static struct sl_hub_answer *answer_of(const struct sl_hub *h, const char *repo)
{
	for (size_t i = 0; h && i < h->nanswers; i++)
		if (strcmp(h->answers[i].repo, repo) == 0)
			return &h->answers[i];
	return NULL;
}

/*
 * Within this run's budget, a request for repo (*retry_at set for a failure that made one); else why
 * not. The budget: SL_HUB_MAX_FETCHES requests and HF_HUB_DOWNLOAD_TIMEOUT seconds in all, counted
 * from the run's first request; an endpoint that failed as a whole is not asked for SL_HUB_RETRY_S.
 */
static const char *fetch_budgeted(struct sl_hub *h, const char *repo, const char **why, double *retry_at)
{
	struct sl_arena *a = h->arena;
	double now = now_s();
	*retry_at = 0;
	if (h->down_why && now < h->down_until) {
		*why = sl_arena_printf(a, "not fetched: the request for '%s' failed first (%s); %s is not asked again "
				       "for %d s",
				       h->down_repo, h->down_why, h->endpoint, SL_HUB_RETRY_S);
		return NULL;
	}
	if (h->run_fetches >= SL_HUB_MAX_FETCHES) {
		*why = sl_arena_printf(a, "not fetched: this run made %d requests already, the most one run makes "
				       "(downloads are cached: a later run fetches it)",
				       SL_HUB_MAX_FETCHES);
		return NULL;
	}
	double spent = h->run_started > 0 ? now - h->run_started : 0;
	long left_ms = (long)((double)h->timeout_s * 1000 - spent * 1000);
	if (left_ms < 100) {
		*why = sl_arena_printf(a, "not fetched: this run spent its %ld s of fetching (HF_HUB_DOWNLOAD_TIMEOUT) "
				       "(downloads are cached: a later run fetches it)",
				       h->timeout_s);
		return NULL;
	}
	if (h->run_started <= 0)
		h->run_started = now;
	h->run_fetches++;
	enum fail_kind kind = FAIL_ID;
	const char *path = fetch(h, repo, left_ms, why, &kind);
	if (!path && kind != FAIL_BUDGET) {
		*retry_at = now_s() + SL_HUB_RETRY_S;
		if (kind == FAIL_ENDPOINT) {
			h->down_until = *retry_at;
			h->down_why = *why;
			h->down_repo = sl_arena_strdup(a, repo);
		}
	}
	return path;
}

const char *sl_hub_config(struct sl_hub *h, const char *repo, const char **why)
{
	struct sl_hub_answer *prev = answer_of(h, repo);
	/* a success stands; a failure until its retry time (one that made no request: for this run) */
	if (prev && (prev->path || (prev->retry_at > 0 ? now_s() < prev->retry_at : prev->run == h->run))) {
		*why = prev->why;
		return prev->path;
	}
	const char *path = NULL;
	double retry_at = 0;
	*why = NULL;
	if (!sl_hub_is_repo_id(repo)) {
		*why = sl_arena_printf(h->arena, "'%s' is not a Hugging Face model id", repo);
	} else {
		path = h->cache ? sl_hf_cache_config(h->arena, h->cache, repo) : NULL;
		if (!h->cache)
			*why = "no Hugging Face cache folder (set HF_HOME or HF_HUB_CACHE) to download into";
		else if (!path && h->offline)
			*why = sl_arena_printf(h->arena, "HF_HUB_OFFLINE is set and '%s' is not in the cache %s", repo,
					       h->cache);
		else if (!path)
			path = fetch_budgeted(h, repo, why, &retry_at);
	}
	struct sl_hub_answer now = {prev ? prev->repo : sl_arena_strdup(h->arena, repo), path, *why, retry_at, h->run};
	if (prev) {
		*prev = now;
		return path;
	}
	if (h->nanswers == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 8;
		h->answers = sl_arena_grow(h->arena, h->answers, h->nanswers, cap, sizeof *h->answers);
		h->cap = cap;
	}
	h->answers[h->nanswers++] = now;
	return path;
}

const char *sl_hub_why(const struct sl_hub *h, const char *repo)
{
	for (size_t i = 0; h && i < h->nanswers; i++)
		if (strcmp(h->answers[i].repo, repo) == 0)
			return h->answers[i].path ? NULL : h->answers[i].why;
	return NULL;
}

void sl_hub_fail(struct sl_hub *h, const char *repo, const char *why)
{
	struct sl_hub_answer *ans = answer_of(h, repo);
	if (!ans)
		return;
	ans->path = NULL;
	ans->why = sl_arena_strdup(h->arena, why);
	ans->retry_at = now_s() + SL_HUB_RETRY_S; /* the cached file is what it is: not read again meanwhile */
}
