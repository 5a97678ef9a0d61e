/*
 * write: temporary file + fsync + rename; the replaced file's mode, owner and
 * extended attributes kept; symbolic links, read-only and hard-linked
 * targets refused (unless forced); the temporary file removed by a signal
 * that ends the process while it exists.
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

/* The file at path holds exactly expect[0..n) (read through no link); false on any difference or error. */
static bool holds(const char *path, const void *expect, size_t n)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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
 * The temporary file a signal must remove. The only global state of this
 * module, and what a signal handler requires: the handler can reach nothing
 * else. Written only while the signals below are blocked.
 */
static char pending_tmp[PATH_MAX];
static volatile sig_atomic_t pending_set;
static const int cleanup_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
#define NSIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Async-signal-safe: unlink, sigaction and raise only. */
static void on_signal(int sig)
{
	if (pending_set)
		unlink(pending_tmp);
	pending_set = 0;
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig); /* delivered when the handler returns: the process ends as the signal says */
}

struct guard {
	sigset_t old_mask;
	struct sigaction old[NSIGNALS];
	bool installed[NSIGNALS];
};

static void block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* With the signals blocked: remember tmp and handle the signals the process does not ignore. */
static void guard_on(struct guard *g, const char *tmp)
{
	snprintf(pending_tmp, sizeof pending_tmp, "%s", tmp);
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
static void guard_off(struct guard *g)
{
	sigset_t during;
	block_signals(&during);
	pending_set = 0;
	for (size_t i = 0; i < NSIGNALS; i++)
		if (g->installed[i])
			sigaction(cleanup_signals[i], &g->old[i], NULL);
	sigprocmask(SIG_SETMASK, &g->old_mask, NULL); /* a signal that came meanwhile acts now, as before */
}

/* Copy every extended attribute of path (a regular file, not followed) to fd; false with *errnum on failure. */
static bool copy_xattrs(const char *path, int fd, int *errnum)
{
	char names[65536], value[65536], have[65536];
	ssize_t n = llistxattr(path, names, sizeof names);
	if (n < 0) {
		if (errno == ENOTSUP)
			return true; /* the file system has none */
		*errnum = errno;
		return false;
	}
	for (ssize_t at = 0; at < n; at += (ssize_t)strlen(names + at) + 1) {
		const char *name = names + at;
		ssize_t v = lgetxattr(path, name, value, sizeof value);
		if (v < 0) {
			*errnum = errno;
			return false;
		}
		if (fsetxattr(fd, name, value, (size_t)v, 0) == 0)
			continue;
		int e = errno;
		/* not allowed to set it (a security label), but the new file has it already: fine */
		ssize_t h = fgetxattr(fd, name, have, sizeof have);
		if (h == v && memcmp(have, value, (size_t)v) == 0)
			continue;
		*errnum = e;
		return false;
	}
	return true;
}

/* Write to a character device or FIFO given as the target: no temporary file, no rename. */
static int write_device(const char *path, const void *data, size_t len, struct sl_write_error *err)
{
	/* O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of blocking */
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return fail(err, SL_WRITE_OPEN, errno);
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	int e = 0;
	if (!write_all(fd, data, len, &e)) {
		close(fd);
		return fail(err, SL_WRITE_WRITE, e);
	}
	if (close(fd) != 0)
		return fail(err, SL_WRITE_SYNC, errno);
	return 0;
}

int sl_write_atomic(const char *path, const void *data, size_t len, unsigned flags, struct sl_write_error *err)
{
	return sl_write_atomic_if(path, data, len, flags, NULL, 0, err);
}

int sl_write_atomic_if(const char *path, const void *data, size_t len, unsigned flags, const void *expect,
		       size_t expect_len, struct sl_write_error *err)
{
	err->step = SL_WRITE_OK;
	err->errnum = 0;
	bool must_exist = flags & SL_WRITE_MUST_EXIST;
	struct stat st, followed;
	bool exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return fail(err, SL_WRITE_STAT, errno);
	if (!exists && must_exist)
		return fail(err, SL_WRITE_MISSING, ENOENT);
	/* -o /dev/null, -o /dev/stdout: a stream the user named, written as a stream */
	if (exists && (flags & SL_WRITE_DEVICE) && !must_exist && stat(path, &followed) == 0 &&
	    (S_ISCHR(followed.st_mode) || S_ISFIFO(followed.st_mode)))
		return write_device(path, data, len, err);
	if (exists && S_ISLNK(st.st_mode))
		return fail(err, SL_WRITE_TARGET, ELOOP);
	if (exists && S_ISDIR(st.st_mode))
		return fail(err, SL_WRITE_TARGET, EISDIR);
	if (exists && !S_ISREG(st.st_mode))
		return fail(err, SL_WRITE_TARGET, EINVAL);
	if (exists && !(flags & SL_WRITE_FORCE)) {
		/* as an editor would: no write bit at all (root too), or none for this user */
		if ((st.st_mode & 0222) == 0 || (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0 && errno == EACCES))
			return fail(err, SL_WRITE_READONLY, EACCES);
		/* rename() gives this name a new file: the other names would keep the old bytes */
		if (st.st_nlink > 1)
			return fail(err, SL_WRITE_LINKED, EMLINK);
	}

	/* the temporary file goes in the target's folder, so that rename() is atomic */
	size_t plen = strlen(path);
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0; /* folder part, with its '/' */
	const char *base = path + dlen;
	char tmp[PATH_MAX];
	if (plen + 32 >= sizeof tmp || !*base)
		return fail(err, SL_WRITE_CREATE, *base ? ENAMETOOLONG : EISDIR);
	int fd = -1;
	struct guard g;
	block_signals(&g.old_mask); /* no signal between creating the temporary file and remembering it */
	for (int tries = 0; tries < TEMP_TRIES && fd < 0; tries++) {
		char suffix[13];
		random_suffix(suffix, sizeof suffix);
		/* ".NAME.XXXXXXXXXXXX.tmp", the name cut so that it stays under NAME_MAX */
		size_t blen = strlen(base);
		if (blen > NAME_MAX - 20)
			blen = NAME_MAX - 20;
		snprintf(tmp, sizeof tmp, "%.*s.%.*s.%s.tmp", (int)dlen, path, (int)blen, base, suffix);
		/* created with the replaced file's permissions (less the umask) from the start: never readable
		 * by more users than the file it replaces, even before its mode is set */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, exists ? st.st_mode & 0777 : 0666);
		if (fd < 0 && errno != EEXIST) {
			int e = errno;
			sigprocmask(SIG_SETMASK, &g.old_mask, NULL);
			return fail(err, SL_WRITE_CREATE, e);
		}
	}
	if (fd < 0) {
		sigprocmask(SIG_SETMASK, &g.old_mask, NULL);
		return fail(err, SL_WRITE_CREATE, EEXIST);
	}
	guard_on(&g, tmp);

	int e = 0;
	enum sl_write_step step = SL_WRITE_OK;
	if (!write_all(fd, data, len, &e))
		step = SL_WRITE_WRITE;
	if (exists && step == SL_WRITE_OK) {
		/* owner first (chown clears setuid/setgid), then the mode; setuid/setgid only with the owner/group
		 * they were set for (not allowed to give the file away: it keeps this process's owner) */
		(void)fchown(fd, st.st_uid, st.st_gid);
		struct stat now;
		mode_t mode = st.st_mode & 07777;
		if (fstat(fd, &now) != 0)
			now = st;
		if (now.st_uid != st.st_uid)
			mode &= (mode_t)~S_ISUID;
		if (now.st_gid != st.st_gid)
			mode &= (mode_t)~S_ISGID;
		if (fchmod(fd, mode) != 0)
			step = SL_WRITE_MODE, e = errno;
		else if (!copy_xattrs(path, fd, &e))
			step = SL_WRITE_XATTR;
	}
	if (step == SL_WRITE_OK && fsync(fd) != 0)
		step = SL_WRITE_SYNC, e = errno;
	if (close(fd) != 0 && step == SL_WRITE_OK)
		step = SL_WRITE_SYNC, e = errno;
	if (step == SL_WRITE_OK) {
		/* the target may have changed into a link or folder since: check again right before */
		struct stat now;
		if (lstat(path, &now) == 0 && (S_ISLNK(now.st_mode) || S_ISDIR(now.st_mode)))
			step = SL_WRITE_TARGET, e = S_ISLNK(now.st_mode) ? ELOOP : EISDIR;
		else if (expect && !holds(path, expect, expect_len))
			step = SL_WRITE_CHANGED, e = 0;
		else if (rename(tmp, path) != 0)
			step = SL_WRITE_RENAME, e = errno;
	}
	if (step != SL_WRITE_OK)
		unlink(tmp);
	guard_off(&g);
	if (step != SL_WRITE_OK)
		return fail(err, step, e);
	/* make the rename itself durable: sync the folder (best effort) */
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%.*s", dlen ? (int)dlen : 1, dlen ? path : ".");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}
