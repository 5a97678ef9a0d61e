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
 *   HF_HUB_DOWNLOAD_TIMEOUT  seconds for the whole request (default 10)
 *
 * The cache folder is sl_hf_cache_dir()'s (memory.h). Each repository is
 * asked for at most once per hub (a run): a second ask returns the first
 * answer, so a sweep naming one id in many places makes one request and
 * reports one failure.
 */
#ifndef SWEEPLINT_HUB_H
#define SWEEPLINT_HUB_H

#include <stdbool.h>
#include <stddef.h>

struct sl_arena;

/* The largest config.json accepted (the largest published ones are under 100 KiB). */
#define SL_HUB_MAX_BYTES ((size_t)1 << 20)

struct sl_hub {
	struct sl_arena *arena;
	const char *endpoint;   /* no trailing slash */
	const char *token;      /* NULL: none */
	const char *cache;      /* the hub cache folder; NULL: none (nothing is fetched) */
	bool offline;
	long timeout_s;
	size_t max_bytes;
	struct sl_hub_answer *answers; /* the repositories asked for in this run */
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

/* A hub over cache (sl_hf_cache_dir) and e; its answers live in a. No request is made. */
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

/* Record that repo's fetched config.json could not be used, and why (sl_hub_why then says so). */
void sl_hub_fail(struct sl_hub *h, const char *repo, const char *why);

/* Why repo could not be fetched (or used) in this run, or NULL (not asked, or fetched and used). */
const char *sl_hub_why(const struct sl_hub *h, const char *repo);

#endif
