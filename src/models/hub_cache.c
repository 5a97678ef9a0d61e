/*
 * hub_cache: a downloaded config.json into the Hugging Face cache (hub.h,
 * sl_hf_cache_store). The cache may be shared (HF_HOME on a group-writable
 * disk), so anyone who can write into it can plant names there: every
 * folder below the cache root is opened with O_NOFOLLOW, one after the
 * other, and each file is written by the one writer (src/base/write.c)
 * through the descriptor of its folder. Nothing is written through a
 * symbolic link, and no name is predictable.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweeplint/arena.h"
#include "sweeplint/hub.h"
#include "sweeplint/write.h"

/* mkdir -p of the cache root (the folder the user configured: links on its way are theirs); 0 or an errno. */
static int make_root(struct sl_arena *a, const char *path)
{
	char *p = sl_arena_strdup(a, path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			return errno;
		*s = '/';
	}
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		return errno;
	return 0;
}

/* The folder name of parent, made when missing, opened without following a link: its descriptor, or -1 and *why. */
static int enter(struct sl_arena *a, int parent, const char *shown, const char *name, const char **why)
{
	if (mkdirat(parent, name, 0755) != 0 && errno != EEXIST) {
		*why = sl_arena_printf(a, "cannot make the folder '%s/%s': %s", shown, name, strerror(errno));
		return -1;
	}
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	int e = errno;
	struct stat st;
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		*why = sl_arena_printf(a, "'%s/%s' is a symbolic link: sweeplint never writes through one (another "
				       "user of a shared cache may have planted it); remove it",
				       shown, name);
	else if (e == ENOTDIR)
		*why = sl_arena_printf(a, "'%s/%s' is not a folder", shown, name);
	else
		*why = sl_arena_printf(a, "cannot open the folder '%s/%s': %s", shown, name, strerror(e));
	return -1;
}

/* Write a file of the folder dirfd with the one writer; NULL, or why not. */
static const char *store(struct sl_arena *a, int dirfd, const char *shown, const char *name, const void *data,
			 size_t len)
{
	struct sl_write_error we;
	if (sl_write_atomic_at(dirfd, name, data, len, 0, &we) == 0)
		return NULL;
	if (we.step == SL_WRITE_TARGET && we.errnum == ELOOP)
		return sl_arena_printf(a, "'%s/%s' is a symbolic link: sweeplint never writes through one (another user "
					  "of a shared cache may have planted it); remove it",
				       shown, name);
	if (we.step == SL_WRITE_TARGET)
		return sl_arena_printf(a, "'%s/%s' is not a regular file", shown, name);
	return sl_arena_printf(a, "cannot write '%s/%s': %s failed: %s", shown, name, sl_write_step_name(we.step),
			       strerror(we.errnum));
}

static bool is_commit(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return n == 40;
}

const char *sl_hf_cache_store(struct sl_arena *a, const char *cache, const char *repo, const char *commit,
			      const void *body, size_t len, const char **why)
{
	*why = NULL;
	if (!sl_hub_is_repo_id(repo) || !is_commit(commit)) {
		*why = "not a Hub model id and commit";
		return NULL;
	}
	int e = make_root(a, cache);
	int root = e ? -1 : open(cache, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		*why = sl_arena_printf(a, "cannot open the cache folder '%s': %s", cache, strerror(e ? e : errno));
		return NULL;
	}
	/* models--ORG--NAME ('/' becomes "--", huggingface_hub's repo_folder_name) */
	char *folder = sl_arena_printf(a, "models--%s", repo);
	char *slash = strchr(folder, '/');
	if (slash)
		folder = sl_arena_printf(a, "%.*s--%s", (int)(slash - folder), folder, slash + 1);
	const char *shown = sl_arena_printf(a, "%s/%s", cache, folder);
	const char *snaps = sl_arena_printf(a, "%s/snapshots", shown);
	const char *at = sl_arena_printf(a, "%s/%s", snaps, commit);
	int repo_fd = enter(a, root, cache, folder, why);
	int snaps_fd = repo_fd >= 0 ? enter(a, repo_fd, shown, "snapshots", why) : -1;
	int commit_fd = snaps_fd >= 0 ? enter(a, snaps_fd, snaps, commit, why) : -1;
	int refs_fd = commit_fd >= 0 ? enter(a, repo_fd, shown, "refs", why) : -1;
	const char *path = NULL;
	if (refs_fd >= 0) {
		/* a snapshot that has its config.json already (huggingface_hub's: a link into blobs/) keeps it:
		 * the same commit has the same file; anything else at that name is the writer's to refuse */
		struct stat st;
		if (!(fstatat(commit_fd, "config.json", &st, 0) == 0 && S_ISREG(st.st_mode)))
			*why = store(a, commit_fd, at, "config.json", body, len);
		/* refs/main last: a reader that finds it finds its snapshot whole */
		if (!*why)
			*why = store(a, refs_fd, sl_arena_printf(a, "%s/refs", shown), "main", commit, strlen(commit));
		if (!*why)
			path = sl_arena_printf(a, "%s/config.json", at);
	}
	int fds[] = {refs_fd, commit_fd, snaps_fd, repo_fd, root};
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return path;
}
