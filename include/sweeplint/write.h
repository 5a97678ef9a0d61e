/*
 * write: writing a file so that a reader never sees half of it. The bytes go
 * to a new temporary file beside the target (created exclusively, never
 * through a symbolic link), are flushed to disk, get the mode (and, when
 * allowed, the owner) of the file they replace, and are renamed over it;
 * the target itself is never opened for writing, so on any failure it is
 * unchanged and the temporary file is removed. Nothing here allocates or
 * prints: the caller owns every buffer and words the message from the
 * failure record.
 */
#ifndef SWEEPLINT_WRITE_H
#define SWEEPLINT_WRITE_H

#include <stdbool.h>
#include <stddef.h>

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
	SL_WRITE__COUNT
};

/* Flags of sl_write_atomic (a bool true is SL_WRITE_MUST_EXIST). */
enum {
	SL_WRITE_MUST_EXIST = 1, /* refuse to create the target (--in-place) */
	SL_WRITE_FORCE = 2,      /* replace a read-only or hard-linked target (the other links keep the old bytes) */
	SL_WRITE_DEVICE = 4,     /* a character device or FIFO (also through a link: /dev/null, /dev/stdout) is
				    written directly, without a temporary file */
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

/* "creating a temporary file", "writing", ... (what the step was doing). */
const char *sl_write_step_name(enum sl_write_step s);

#endif
