/*
 * hub: the opt-in download of a model's config.json from the Hugging Face
 * Hub (--fetch, `fetch: true` in .sweeplint.yaml; docs/models.md), into the
 * standard cache layout that transformers and huggingface_hub read:
 *
 *   <cache>/models--ORG--NAME/refs/main                      the commit
 *   <cache>/models--ORG--NAME/snapshots/<commit>/config.json
 *
 * libcurl is loaded at run time (dlopen "libcurl.so.4"): the binary does
 * not link it, and a machine without it gets a message, not a failure to
 * start. Nothing here runs unless a caller asks for a download, and nothing
 * reads the environment: the CLI passes the variables' values (struct
 * sl_hub_env), with huggingface_hub's meanings:
 *
 *   HF_ENDPOINT              the Hub (default https://huggingface.co)
 *   HF_TOKEN                 bearer token for gated and private models (else
 *                            the token file: HF_TOKEN_PATH, $HF_HOME/token,
 *                            ~/.cache/huggingface/token)
 *   HF_HUB_OFFLINE           1/true/yes/on: never download
 *   HF_HUB_DOWNLOAD_TIMEOUT  seconds for one request, and for all the requests
 *                            of one run together (default 10)
 *
 * Credentials: the token file is read only by the first request that sends
 * the token (never when the hub is made, never without a request), once,
 * and only from a regular file of at most SL_HUB_MAX_TOKEN_BYTES (opened
 * O_NONBLOCK and fstat()ed: a FIFO is never read).
 *
 * Budget: one run (a command; one lint of the language server, which calls
 * sl_hub_new_run) makes at most SL_HUB_MAX_FETCHES requests, and all of them
 * together take at most HF_HUB_DOWNLOAD_TIMEOUT seconds (each request gets
 * what is left); an id past either is "not fetched" with the reason, and a
 * later run fetches it (downloads are cached). A request that fails for the
 * endpoint as a whole (no connection, no answer in time, HTTP 5xx or 429)
 * stops every request to it for SL_HUB_RETRY_S seconds.
 *
 * Answers: each repository is asked for at most once: a success stands for
 * the hub's life, a failed request is remembered for SL_HUB_RETRY_S seconds
 * (the language server does not ask again on every change), and a failure
 * that made no request (offline, over the budget) for the run. So a sweep
 * naming one id in many places makes one request and reports one failure.
 *
 * The cache folder is sl_hf_cache_dir()'s (models.h); downloads go into it
 * by sl_hf_cache_store (the one writer, no link followed below the root).
 */
#ifndef SWEEPLINT_HUB_H
#define SWEEPLINT_HUB_H

#include <stdbool.h>
#include <stddef.h>

struct sl_arena;

/* The largest config.json accepted (the largest published ones are under 100 KiB). */
#define SL_HUB_MAX_BYTES ((size_t)1 << 20)
/* The largest token file read (a Hub token is 37 characters; the file holds one line). */
#define SL_HUB_MAX_TOKEN_BYTES 4096
/* The most requests one run makes. */
#define SL_HUB_MAX_FETCHES 32
/* How long a failed request (an id's, or the endpoint's) is remembered, in seconds. */
#define SL_HUB_RETRY_S 300

struct sl_hub {
	struct sl_arena *arena;
	const char *endpoint;   /* no trailing slash */
	const char *token;      /* HF_TOKEN, or the token file's once read; NULL: none (yet) */
	const char *token_path; /* the token file to read at the first request, or NULL */
	bool token_read;        /* the token file was looked at */
	const char *token_note; /* why a token file that is there was not used, or NULL */
	const char *cache;      /* the hub cache folder; NULL: none (nothing is fetched) */
	bool offline;
	long timeout_s;
	size_t max_bytes;
	unsigned run;           /* the run's number (sl_hub_new_run) */
	double run_started;     /* when the run's first request started (CLOCK_MONOTONIC s), 0: none yet */
	unsigned run_fetches;   /* requests made in this run */
	double down_until;      /* the endpoint failed: no request before this time */
	const char *down_why;   /* how it failed, or NULL */
	const char *down_repo;  /* the id whose request failed so */
	struct sl_hub_answer *answers; /* the repositories asked for */
	size_t nanswers, cap;
};

/* The environment a hub reads, as given (NULL or empty: unset). */
struct sl_hub_env {
	const char *endpoint;     /* HF_ENDPOINT */
	const char *token;        /* HF_TOKEN (or the legacy HUGGING_FACE_HUB_TOKEN) */
	const char *token_path;   /* HF_TOKEN_PATH */
	const char *hf_home;      /* HF_HOME */
	const char *home;         /* HOME */
	const char *offline;      /* HF_HUB_OFFLINE */
	const char *timeout;      /* HF_HUB_DOWNLOAD_TIMEOUT */
};

/* A hub over cache (sl_hf_cache_dir) and e; its answers live in a. No request is made, no file is read. */
struct sl_hub *sl_hub_new(struct sl_arena *a, const char *cache, const struct sl_hub_env *e);

/* Whether s can be a Hub model id: NAME or ORG/NAME of [A-Za-z0-9._-], no ".." or "--", at most 96 characters each. */
bool sl_hub_is_repo_id(const char *s);

/*
 * The path of repo's config.json at main: the cached one when refs/main
 * names a snapshot that has it (no request), else downloaded into the
 * cache. NULL with *why a sentence (offline, gated, not found, timed out,
 * too large, not JSON, no libcurl, ...) when neither.
 */
const char *sl_hub_config(struct sl_hub *h, const char *repo, const char **why);

/*
 * Whether this build on this machine can download (--version says it): NULL
 * when it can, else why not (built without --fetch: meson -Dfetch=disabled or
 * no libcurl header; or no usable libcurl). Loads libcurl to find out; it is
 * unloaded when a is freed.
 */
const char *sl_hub_unavailable(struct sl_arena *a);

/* Start a new run's budget (the language server, before each lint); answers are kept as above. */
void sl_hub_new_run(struct sl_hub *h);

/*
 * Store body, repo's config.json at commit (40 hex digits), in the cache folder as huggingface_hub lays
 * it out: models--ORG--NAME/snapshots/<commit>/config.json, then models--ORG--NAME/refs/main. Each
 * folder below the cache is made when missing and opened with O_NOFOLLOW (one that is a symbolic link or
 * no folder is refused: nothing is written through it), each file written by the one writer through its
 * folder's descriptor (write.h: a new file with an unpredictable name renamed over the old; a link or
 * non-regular file at config.json or refs/main is refused). A snapshot that has its config.json already
 * (huggingface_hub's: a link into blobs/) keeps it. The config.json's path, or NULL with *why.
 */
const char *sl_hf_cache_store(struct sl_arena *a, const char *cache, const char *repo, const char *commit,
			      const void *body, size_t len, const char **why);

/* Record that repo's fetched config.json could not be used, and why (sl_hub_why then says so). */
void sl_hub_fail(struct sl_hub *h, const char *repo, const char *why);

/* Why repo could not be fetched (or used) in this run, or NULL (not asked, or fetched and used). */
const char *sl_hub_why(const struct sl_hub *h, const char *repo);

#endif
