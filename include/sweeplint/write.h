/*
 * write: the one writer of every file sweeplint writes — fix and split
 * outputs, the HTML report, the Hugging Face cache that --fetch fills
 * (docs/reliability.md "The writer"). The bytes go to a new temporary file
 * beside the target, created with O_CREAT | O_EXCL | O_NOFOLLOW under an
 * unpredictable name (12 random letters), are flushed to disk, get the mode
 * (and, when allowed, the owner) of the file they replace, and are renamed
 * over it; the target itself is never opened for writing, so on any failure
 * it is unchanged and the temporary file is removed. A target that is a
 * symbolic link, a folder or any other non-regular file is refused, never
 * followed (SL_WRITE_FORCE does not change that). Nothing here allocates or
 * prints: the caller owns every buffer and words the message from the
 * failure record.
 */
#ifndef SWEEPLINT_WRITE_H
#define SWEEPLINT_WRITE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Which step failed (for messages). */
enum sl_write_step {
	SL_WRITE_OK,
	SL_WRITE_TARGET,      /* the target is a symbolic link, a folder, or not a regular file */
	SL_WRITE_MISSING,     /* must_exist and the target does not exist */
	SL_WRITE_STAT,        /* the target could not be examined */
	SL_WRITE_CREATE,      /* no temporary file could be created in the target's folder */
	SL_WRITE_WRITE,       /* writing the temporary file failed (no space, a file size limit, ...) */
	SL_WRITE_SYNC,        /* fsync or close failed */
	SL_WRITE_MODE,        /* the replaced file's mode could not be given to the new one */
	SL_WRITE_RENAME,      /* the rename over the target failed */
	SL_WRITE_CHANGED,     /* the target no longer holds the bytes it was read with */
	SL_WRITE_READONLY,    /* the target has no write permission for this user (SL_WRITE_FORCE replaces it) */
	SL_WRITE_LINKED,      /* the target has other hard links (SL_WRITE_FORCE breaks them) */
	SL_WRITE_XATTR,       /* an extended attribute of the target could not be given to the new file */
	SL_WRITE_OPEN,        /* a device or FIFO target could not be opened (ENXIO: a FIFO with no reader) */
	SL_WRITE_FOLDER,      /* the target's folder could not be opened (it does not exist, is no folder, ...) */
	SL_WRITE__COUNT
};

/* Flags of sl_write_atomic (a bool true is SL_WRITE_MUST_EXIST). */
enum {
	SL_WRITE_MUST_EXIST = 1, /* refuse to create the target (--in-place) */
	SL_WRITE_FORCE = 2,      /* replace a read-only or hard-linked target (the other links keep the old bytes) */
	SL_WRITE_DEVICE = 4,     /* a character device or FIFO the user named (-o /dev/null, -o a FIFO) is written
				    directly, without a temporary file; through a symbolic link only for the
				    system's stream names (/dev/..., /proc/self/fd/...: /dev/stdout), never a
				    link in a working tree */
};

struct sl_write_error {
	enum sl_write_step step;
	int errnum;           /* errno of the failing call (ELOOP for a symbolic link, EISDIR, ...) */
};

/*
 * Replace (or create) path with data[0..len), atomically. An existing
 * target must be a regular file (a symbolic link is refused, not followed:
 * the link would be replaced by a file), writable by this user and with no
 * other hard link (both unless SL_WRITE_FORCE). The new file keeps its
 * permission bits (the temporary file is created with them, never wider),
 * its owner and group when allowed (setuid/setgid only when both are kept:
 * chown first, then chmod) and its extended attributes (ACLs, SELinux
 * labels, user.*): one that cannot be copied fails the write. A new file
 * gets 0666 less the umask. While the temporary file exists, SIGTERM,
 * SIGINT, SIGHUP and SIGQUIT remove it before the process dies (the one
 * piece of global state: what the handler needs). Returns 0, or -SL_EIO
 * with *err filled in; the target is untouched then.
 */
int sl_write_atomic(const char *path, const void *data, size_t len, unsigned flags, struct sl_write_error *err);

/*
 * The same, when the target must still hold expect[0..expect_len) — the
 * bytes it was read with — right before the rename: a file another program
 * changed since (an editor, a second sweeplint) is not overwritten; the step
 * is SL_WRITE_CHANGED then. expect NULL skips the comparison.
 */
int sl_write_atomic_if(const char *path, const void *data, size_t len, unsigned flags, const void *expect,
		       size_t expect_len, struct sl_write_error *err);

/*
 * The same for the entry name of the folder open at dirfd: the folder is
 * the one opened (a caller that opened each folder of a path with
 * O_NOFOLLOW knows no link was followed on the way), name a single entry
 * (no '/'). SL_WRITE_DEVICE is not taken here. dirfd stays open.
 */
int sl_write_atomic_at(int dirfd, const char *name, const void *data, size_t len, unsigned flags,
		       struct sl_write_error *err);

/*
 * A write in steps, for an output produced piece by piece (the HTML report): sl_write_begin checks the
 * target and creates the temporary file (or opens the stream the user named); the caller writes the
 * contents to w->fd (only there: never closes it); sl_write_commit gives the new file the old one's
 * mode, owner and attributes, syncs it and renames it over the target (expect as sl_write_atomic_if's),
 * or sl_write_abort removes it. One writer at a time per process (the signal handler that removes the
 * temporary file knows one; a second begin fails with EBUSY). The fields are the writer's own but fd.
 */
#define SL_WRITE_NSIGNALS 4
struct sl_write_guard {
	sigset_t old_mask;
	struct sigaction old[SL_WRITE_NSIGNALS];
	bool installed[SL_WRITE_NSIGNALS];
};
struct sl_writer {
	int fd;                       /* write the contents here */
	int dirfd;
	bool own_dirfd, device, exists;
	unsigned flags;
	struct stat st;               /* the target replaced (exists) */
	char base[NAME_MAX + 1], tmp[NAME_MAX + 1];
	struct sl_write_guard guard;
};
int sl_write_begin(struct sl_writer *w, const char *path, unsigned flags, struct sl_write_error *err);
/* The same for the entry name of the folder open at dirfd (as sl_write_atomic_at; dirfd stays open). */
int sl_write_begin_at(struct sl_writer *w, int dirfd, const char *name, unsigned flags, struct sl_write_error *err);
int sl_write_commit(struct sl_writer *w, const void *expect, size_t expect_len, struct sl_write_error *err);
void sl_write_abort(struct sl_writer *w);

/* "creating a temporary file", "writing", ... (what the step was doing). */
const char *sl_write_step_name(enum sl_write_step s);

#endif
