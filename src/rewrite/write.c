/* write: temporary file + fsync + rename, the replaced file's mode kept, symbolic links refused. */
#include "sweeplint/write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
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

int sl_write_atomic(const char *path, const void *data, size_t len, bool must_exist, struct sl_write_error *err)
{
	return sl_write_atomic_if(path, data, len, must_exist, NULL, 0, err);
}

int sl_write_atomic_if(const char *path, const void *data, size_t len, bool must_exist, const void *expect,
		       size_t expect_len, struct sl_write_error *err)
{
	err->step = SL_WRITE_OK;
	err->errnum = 0;
	struct stat st;
	bool exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return fail(err, SL_WRITE_STAT, errno);
	if (!exists && must_exist)
		return fail(err, SL_WRITE_MISSING, ENOENT);
	if (exists && S_ISLNK(st.st_mode))
		return fail(err, SL_WRITE_TARGET, ELOOP);
	if (exists && S_ISDIR(st.st_mode))
		return fail(err, SL_WRITE_TARGET, EISDIR);
	if (exists && !S_ISREG(st.st_mode))
		return fail(err, SL_WRITE_TARGET, EINVAL);

	/* the temporary file goes in the target's folder, so that rename() is atomic */
	size_t plen = strlen(path);
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0; /* folder part, with its '/' */
	const char *base = path + dlen;
	char tmp[PATH_MAX];
	if (plen + 32 >= sizeof tmp || !*base)
		return fail(err, SL_WRITE_CREATE, *base ? ENAMETOOLONG : EISDIR);
	int fd = -1;
	for (int tries = 0; tries < TEMP_TRIES && fd < 0; tries++) {
		char suffix[13];
		random_suffix(suffix, sizeof suffix);
		/* ".NAME.XXXXXXXXXXXX.tmp", the name cut so that it stays under NAME_MAX */
		size_t blen = strlen(base);
		if (blen > NAME_MAX - 20)
			blen = NAME_MAX - 20;
		snprintf(tmp, sizeof tmp, "%.*s.%.*s.%s.tmp", (int)dlen, path, (int)blen, base, suffix);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			return fail(err, SL_WRITE_CREATE, errno);
	}
	if (fd < 0)
		return fail(err, SL_WRITE_CREATE, EEXIST);

	int e = 0;
	enum sl_write_step step = SL_WRITE_OK;
	if (!write_all(fd, data, len, &e))
		step = SL_WRITE_WRITE;
	else if (exists && fchmod(fd, st.st_mode & 07777) != 0)
		step = SL_WRITE_MODE, e = errno;
	else if (fsync(fd) != 0)
		step = SL_WRITE_SYNC, e = errno;
	if (exists && step == SL_WRITE_OK && fchown(fd, st.st_uid, st.st_gid) != 0) {
		/* not allowed to give the file away: it keeps this process's owner */
	}
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
	if (step != SL_WRITE_OK) {
		unlink(tmp);
		return fail(err, step, e);
	}
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
