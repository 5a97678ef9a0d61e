/*
 * write: the one writer (write.h). Temporary file (O_EXCL | O_NOFOLLOW, a
 * random name, in the target's folder, reached through one descriptor of
 * that folder) + fsync + renameat; the replaced file's mode, owner and
 * extended attributes kept; symbolic links and non-regular targets refused,
 * read-only and hard-linked targets refused unless forced; the temporary
 * file removed by a signal that ends the process while it exists.
 */
#include "sweeplint/write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "sweeplint/diag.h"

#define TEMP_TRIES 64

const char *sl_write_step_name(enum sl_write_step s)
{
	static const char *const names[SL_WRITE__COUNT] = {
		[SL_WRITE_OK] = "done",
		[SL_WRITE_TARGET] = "checking the target",
		[SL_WRITE_MISSING] = "finding the target",
		[SL_WRITE_STAT] = "examining the target",
		[SL_WRITE_CREATE] = "creating a temporary file beside it",
		[SL_WRITE_WRITE] = "writing the temporary file",
		[SL_WRITE_SYNC] = "flushing the temporary file to disk",
		[SL_WRITE_MODE] = "giving the new file the old one's mode",
		[SL_WRITE_RENAME] = "renaming the temporary file over it",
		[SL_WRITE_CHANGED] = "checking that it still holds what was read",
		[SL_WRITE_READONLY] = "checking that it is writable",
		[SL_WRITE_LINKED] = "checking its hard links",
		[SL_WRITE_XATTR] = "giving the new file the old one's extended attributes",
		[SL_WRITE_OPEN] = "opening it for writing",
		[SL_WRITE_FOLDER] = "opening its folder",
	};
	return (unsigned)s < SL_WRITE__COUNT ? names[s] : "writing";
}

static int fail(struct sl_write_error *err, enum sl_write_step step, int errnum)
{
	err->step = step;
	err->errnum = errnum;
	return -SL_EIO;
}

/* A name no other writer picks: 12 random letters (getrandom, else time and pid). */
static void random_suffix(char *out, size_t n)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[12];
	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)out;
		for (size_t i = 0; i < sizeof r; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			r[i] = (unsigned char)x;
		}
	}
	size_t k = n - 1 < sizeof r ? n - 1 : sizeof r;
	for (size_t i = 0; i < k; i++)
		out[i] = alphabet[r[i] % (sizeof alphabet - 1)];
	out[k] = '\0';
}

static bool write_all(int fd, const char *p, size_t len, int *errnum)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			*errnum = errno;
			return false;
		}
		if (w == 0) {
			*errnum = ENOSPC;
			return false;
		}
		p += w;
		len -= (size_t)w;
	}
	return true;
}

/* The entry name of dirfd holds exactly expect[0..n) (read through no link); false on any difference or error. */
static bool holds(int dirfd, const char *name, const void *expect, size_t n)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	const unsigned char *want = expect;
	unsigned char buf[65536];
	size_t at = 0;
	bool same = true;
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			same = false;
			break;
		}
		if (r == 0)
			break;
		if ((size_t)r > n - at || memcmp(buf, want + at, (size_t)r) != 0) {
			same = false;
			break;
		}
		at += (size_t)r;
	}
	close(fd);
	return same && at == n;
}

/*
 * The temporary file a signal must remove: its folder and name. The only
 * global state of this module, and what a signal handler requires: the
 * handler can reach nothing else. Written only while the signals below are
 * blocked.
 */
static char pending_tmp[NAME_MAX + 1];
static volatile sig_atomic_t pending_dirfd = -1;
static volatile sig_atomic_t pending_set;
static const int cleanup_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
#define NSIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Async-signal-safe: unlinkat, sigaction and raise only. */
static void on_signal(int sig)
{
	if (pending_set)
		unlinkat(pending_dirfd, pending_tmp, 0);
	pending_set = 0;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig); /* delivered when the handler returns: the process ends as the signal says */
}

_Static_assert(NSIGNALS == SL_WRITE_NSIGNALS, "struct sl_write_guard has room for every cleanup signal");

static void block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* With the signals blocked: remember dirfd/tmp and handle the signals the process does not ignore. */
static void guard_on(struct sl_write_guard *g, int dirfd, const char *tmp)
{
	snprintf(pending_tmp, sizeof pending_tmp, "%s", tmp);
	pending_dirfd = dirfd;
	pending_set = 1;
	for (size_t i = 0; i < NSIGNALS; i++) {
		struct sigaction sa = {.sa_handler = on_signal};
		sigemptyset(&sa.sa_mask);
		g->installed[i] = false;
		if (sigaction(cleanup_signals[i], NULL, &g->old[i]) == 0 && g->old[i].sa_handler != SIG_IGN)
			g->installed[i] = sigaction(cleanup_signals[i], &sa, NULL) == 0;
	}
	sigprocmask(SIG_SETMASK, &g->old_mask, NULL);
}

/* The temporary file is renamed or removed: forget it, put the old handlers back. */
static void guard_off(struct sl_write_guard *g)
{
	sigset_t during;
	block_signals(&during);
	pending_set = 0;
	for (size_t i = 0; i < NSIGNALS; i++)
		if (g->installed[i])
			sigaction(cleanup_signals[i], &g->old[i], NULL);
	sigprocmask(SIG_SETMASK, &g->old_mask, NULL); /* a signal that came meanwhile acts now, as before */
}

/*
 * Copy every extended attribute of the entry name of dirfd (the regular file st describes, not followed) to
 * fd; false with *errnum on failure. The attributes are read through a descriptor of the file itself
 * (checked to be st's), or, when it cannot be opened for reading, through /proc/self/fd/DIRFD/NAME.
 */
static bool copy_xattrs(int dirfd, const char *name, const struct stat *st, int fd, int *errnum)
{
	char names[65536], value[65536], have[65536];
	int src = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	char via[64 + NAME_MAX];
	struct stat now;
	if (src >= 0 && (fstat(src, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)) {
		close(src);
		*errnum = ESTALE; /* replaced meanwhile */
		return false;
	}
	snprintf(via, sizeof via, "/proc/self/fd/%d/%s", dirfd, name);
	ssize_t n = src >= 0 ? flistxattr(src, names, sizeof names) : llistxattr(via, names, sizeof names);
	bool ok = true;
	if (n < 0) {
		ok = errno == ENOTSUP; /* the file system has none */
		*errnum = errno;
		n = 0;
	}
	for (ssize_t at = 0; ok && at < n; at += (ssize_t)strlen(names + at) + 1) {
		const char *key = names + at;
		ssize_t v = src >= 0 ? fgetxattr(src, key, value, sizeof value) : lgetxattr(via, key, value, sizeof value);
		if (v < 0) {
			*errnum = errno;
			ok = false;
			break;
		}
		if (fsetxattr(fd, key, value, (size_t)v, 0) == 0)
			continue;
		int e = errno;
		/* not allowed to set it (a security label), but the new file has it already: fine */
		ssize_t h = fgetxattr(fd, key, have, sizeof have);
		if (h == v && memcmp(have, value, (size_t)v) == 0)
			continue;
		*errnum = e;
		ok = false;
	}
	if (src >= 0)
		close(src);
	return ok;
}

/* A name the system gives a stream (/dev/stdout, /dev/fd/1, /proc/self/fd/1): a link there is the system's. */
static bool system_stream_name(const char *path)
{
	return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/self/fd/", 14) == 0;
}

/* The target base of dirfd as it is (*st, *exists): 0 when it may be replaced (or created), else -SL_EIO. */
static int check_at(int dirfd, const char *base, unsigned flags, struct stat *st, bool *exists,
		    struct sl_write_error *err)
{
	*exists = fstatat(dirfd, base, st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!*exists && errno != ENOENT)
		return fail(err, SL_WRITE_STAT, errno);
	if (!*exists && (flags & SL_WRITE_MUST_EXIST))
		return fail(err, SL_WRITE_MISSING, ENOENT);
	if (!*exists)
		return 0;
	if (S_ISLNK(st->st_mode))
		return fail(err, SL_WRITE_TARGET, ELOOP);
	if (S_ISDIR(st->st_mode))
		return fail(err, SL_WRITE_TARGET, EISDIR);
	if (!S_ISREG(st->st_mode))
		return fail(err, SL_WRITE_TARGET, EINVAL);
	if (!(flags & SL_WRITE_FORCE)) {
		/* as an editor would: no write bit at all (root too), or none for this user */
		if ((st->st_mode & 0222) == 0 ||
		    (faccessat(dirfd, base, W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) != 0 && errno == EACCES))
			return fail(err, SL_WRITE_READONLY, EACCES);
		/* rename() gives this name a new file: the other names would keep the old bytes */
		if (st->st_nlink > 1)
			return fail(err, SL_WRITE_LINKED, EMLINK);
	}
	return 0;
}

/*
 * The folder of path opened (*dirfd) and its last component (*base); 1 when path names a stream the
 * caller takes as one (SL_WRITE_DEVICE), 0, or -SL_EIO.
 */
static int open_target(const char *path, unsigned flags, int *dirfd, const char **base, struct sl_write_error *err)
{
	err->step = SL_WRITE_OK;
	err->errnum = 0;
	*dirfd = -1;
	bool must_exist = flags & SL_WRITE_MUST_EXIST;
	struct stat st, followed;
	bool exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return fail(err, SL_WRITE_STAT, errno);
	/* -o /dev/null, -o /dev/stdout, -o a FIFO: a stream the user named, written as a stream; a link is
	 * followed to one only where the system keeps its stream names, never a link in a working tree */
	if (exists && (flags & SL_WRITE_DEVICE) && !must_exist && (!S_ISLNK(st.st_mode) || system_stream_name(path)) &&
	    stat(path, &followed) == 0 && (S_ISCHR(followed.st_mode) || S_ISFIFO(followed.st_mode)))
		return 1;

	/* the temporary file goes in the target's folder, so that rename() is atomic */
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0; /* folder part, with its '/' */
	*base = path + dlen;
	if (!**base)
		return fail(err, SL_WRITE_TARGET, EISDIR);
	if (dlen >= PATH_MAX || strlen(*base) > NAME_MAX)
		return fail(err, SL_WRITE_CREATE, ENAMETOOLONG);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%.*s", dlen ? (int)dlen : 1, dlen ? path : ".");
	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0)
		return must_exist && !exists ? fail(err, SL_WRITE_MISSING, ENOENT) : fail(err, SL_WRITE_FOLDER, errno);
	return 0;
}

/* The temporary file of w created beside its target (checked first); the signal guard on. */
static int begin_at(struct sl_writer *w, struct sl_write_error *err)
{
	if (check_at(w->dirfd, w->base, w->flags, &w->st, &w->exists, err) != 0)
		return -SL_EIO;
	block_signals(&w->guard.old_mask); /* no signal between creating the temporary file and remembering it */
	if (pending_set) {
		sigprocmask(SIG_SETMASK, &w->guard.old_mask, NULL);
		return fail(err, SL_WRITE_CREATE, EBUSY); /* one writer at a time: the handler knows one file */
	}
	for (int tries = 0; tries < TEMP_TRIES && w->fd < 0; tries++) {
		char suffix[13];
		random_suffix(suffix, sizeof suffix);
		/* ".NAME.XXXXXXXXXXXX.tmp", the name cut so that it stays under NAME_MAX */
		size_t blen = strlen(w->base);
		if (blen > NAME_MAX - 20)
			blen = NAME_MAX - 20;
		snprintf(w->tmp, sizeof w->tmp, ".%.*s.%s.tmp", (int)blen, w->base, suffix);
		/* created with the replaced file's permissions (less the umask) from the start: never readable
		 * by more users than the file it replaces, even before its mode is set */
		w->fd = openat(w->dirfd, w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
			       w->exists ? w->st.st_mode & 0777 : 0666);
		if (w->fd < 0 && errno != EEXIST) {
			int e = errno;
			sigprocmask(SIG_SETMASK, &w->guard.old_mask, NULL);
			return fail(err, SL_WRITE_CREATE, e);
		}
	}
	if (w->fd < 0) {
		sigprocmask(SIG_SETMASK, &w->guard.old_mask, NULL);
		return fail(err, SL_WRITE_CREATE, EEXIST);
	}
	guard_on(&w->guard, w->dirfd, w->tmp);
	return 0;
}

static void writer_init(struct sl_writer *w, unsigned flags)
{
	memset(w, 0, sizeof *w);
	w->fd = -1;
	w->dirfd = -1;
	w->flags = flags;
}

int sl_write_begin(struct sl_writer *w, const char *path, unsigned flags, struct sl_write_error *err)
{
	writer_init(w, flags);
	const char *base = NULL;
	int rc = open_target(path, flags, &w->dirfd, &base, err);
	if (rc > 0) {
		/* a character device or FIFO given as the target: no temporary file, no rename; O_NONBLOCK: a
		 * FIFO with no reader fails (ENXIO) instead of blocking */
		w->device = true;
		w->fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (w->fd < 0)
			return fail(err, SL_WRITE_OPEN, errno);
		int fl = fcntl(w->fd, F_GETFL);
		if (fl >= 0)
			(void)fcntl(w->fd, F_SETFL, fl & ~O_NONBLOCK);
		return 0;
	}
	if (rc < 0)
		return rc;
	snprintf(w->base, sizeof w->base, "%s", base);
	w->own_dirfd = true;
	rc = begin_at(w, err);
	if (rc != 0) {
		close(w->dirfd);
		w->dirfd = -1;
	}
	return rc;
}

int sl_write_begin_at(struct sl_writer *w, int dirfd, const char *name, unsigned flags, struct sl_write_error *err)
{
	writer_init(w, flags & ~(unsigned)SL_WRITE_DEVICE);
	err->step = SL_WRITE_OK;
	err->errnum = 0;
	if (!*name || strchr(name, '/') || strlen(name) > NAME_MAX)
		return fail(err, SL_WRITE_CREATE, *name && !strchr(name, '/') ? ENAMETOOLONG : EINVAL);
	w->dirfd = dirfd;
	snprintf(w->base, sizeof w->base, "%s", name);
	return begin_at(w, err);
}

static void writer_end(struct sl_writer *w)
{
	if (!w->device)
		guard_off(&w->guard);
	if (w->own_dirfd && w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = -1;
	w->fd = -1;
}

void sl_write_abort(struct sl_writer *w)
{
	if (w->fd < 0 && w->dirfd < 0)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (!w->device)
		unlinkat(w->dirfd, w->tmp, 0);
	writer_end(w);
}

int sl_write_commit(struct sl_writer *w, const void *expect, size_t expect_len, struct sl_write_error *err)
{
	err->step = SL_WRITE_OK;
	err->errnum = 0;
	if (w->device) {
		int rc = close(w->fd) == 0 ? 0 : fail(err, SL_WRITE_SYNC, errno);
		writer_end(w);
		return rc;
	}
	int e = 0;
	enum sl_write_step step = SL_WRITE_OK;
	if (w->exists) {
		/* owner first (chown clears setuid/setgid), then the mode; setuid/setgid only with the owner/group
		 * they were set for (not allowed to give the file away: it keeps this process's owner) */
		(void)fchown(w->fd, w->st.st_uid, w->st.st_gid);
		struct stat now;
		mode_t mode = w->st.st_mode & 07777;
		if (fstat(w->fd, &now) != 0)
			now = w->st;
		if (now.st_uid != w->st.st_uid)
			mode &= (mode_t)~S_ISUID;
		if (now.st_gid != w->st.st_gid)
			mode &= (mode_t)~S_ISGID;
		if (fchmod(w->fd, mode) != 0)
			step = SL_WRITE_MODE, e = errno;
		else if (!copy_xattrs(w->dirfd, w->base, &w->st, w->fd, &e))
			step = SL_WRITE_XATTR;
	}
	if (step == SL_WRITE_OK && fsync(w->fd) != 0)
		step = SL_WRITE_SYNC, e = errno;
	if (close(w->fd) != 0 && step == SL_WRITE_OK)
		step = SL_WRITE_SYNC, e = errno;
	w->fd = -1;
	if (step == SL_WRITE_OK) {
		/* the target may have changed into a link, a folder or another non-regular file since: check
		 * again right before (a name that appeared meanwhile is examined too) */
		struct stat now;
		if (fstatat(w->dirfd, w->base, &now, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(now.st_mode))
			step = SL_WRITE_TARGET, e = S_ISLNK(now.st_mode) ? ELOOP : S_ISDIR(now.st_mode) ? EISDIR : EINVAL;
		else if (expect && !holds(w->dirfd, w->base, expect, expect_len))
			step = SL_WRITE_CHANGED, e = 0;
		else if (renameat(w->dirfd, w->tmp, w->dirfd, w->base) != 0)
			step = SL_WRITE_RENAME, e = errno;
	}
	if (step != SL_WRITE_OK)
		unlinkat(w->dirfd, w->tmp, 0);
	else
		(void)fsync(w->dirfd); /* make the rename itself durable (best effort) */
	writer_end(w);
	return step == SL_WRITE_OK ? 0 : fail(err, step, e);
}

/* Write data to a begun writer and commit it (or abort on a failed write). */
static int write_whole(struct sl_writer *w, const void *data, size_t len, const void *expect, size_t expect_len,
		       struct sl_write_error *err)
{
	int e = 0;
	if (!write_all(w->fd, data, len, &e)) {
		sl_write_abort(w);
		return fail(err, SL_WRITE_WRITE, e);
	}
	return sl_write_commit(w, expect, expect_len, err);
}

int sl_write_atomic(const char *path, const void *data, size_t len, unsigned flags, struct sl_write_error *err)
{
	return sl_write_atomic_if(path, data, len, flags, NULL, 0, err);
}

int sl_write_atomic_if(const char *path, const void *data, size_t len, unsigned flags, const void *expect,
		       size_t expect_len, struct sl_write_error *err)
{
	struct sl_writer w;
	if (sl_write_begin(&w, path, flags, err) != 0)
		return -SL_EIO;
	return write_whole(&w, data, len, expect, expect_len, err);
}

int sl_write_atomic_at(int dirfd, const char *name, const void *data, size_t len, unsigned flags,
		       struct sl_write_error *err)
{
	struct sl_writer w;
	if (sl_write_begin_at(&w, dirfd, name, flags, err) != 0)
		return -SL_EIO;
	return write_whole(&w, data, len, NULL, 0, err);
}
