/*
 * write_cli: every file the CLI writes (fix, split, report) goes through the
 * one writer (include/sweeplint/write.h); this is where its failures are
 * worded, the same for each command.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "sweeplint/arena.h"
#include "sweeplint/diag.h"
#include "sweeplint/write.h"

/* Say why the write of path failed; SL_EXIT_USAGE. */
static int say(struct sl_cli *cli, struct sl_arena *a, const char *path, unsigned flags, struct sl_write_error we)
{
	FILE *err = cli->err;
	bool must_exist = flags & SL_WRITE_MUST_EXIST;
	const char *shown = sl_term_safe(a, path);
	const char *kept = must_exist ? sl_arena_printf(a, "; '%s' is unchanged", shown) : "";
	if (we.step == SL_WRITE_TARGET && we.errnum == ELOOP) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof target - 1);
		target[n > 0 ? n : 0] = '\0';
		/* the file being fixed may be a link the user made: its target is the file to name; an output's
		 * link may be anyone's (a repository can commit one): it is never written through */
		fprintf(err,
			"sweeplint: error: cannot write '%s': it is a symbolic link%s%s%s; sweeplint never writes "
			"through a link (not even with --force): %s%s\n",
			shown, n > 0 ? " to '" : "", n > 0 ? sl_term_safe(a, target) : "", n > 0 ? "'" : "",
			must_exist ? "give the target's path" : "remove the link or write elsewhere", kept);
	} else if (we.step == SL_WRITE_TARGET && we.errnum == EISDIR) {
		fprintf(err, "sweeplint: error: cannot write '%s': it is a folder\n", shown);
	} else if (we.step == SL_WRITE_TARGET) {
		fprintf(err, "sweeplint: error: cannot write '%s': it is not a regular file (a FIFO, socket or device "
			"is written only when named with -o)%s\n", shown, kept);
	} else if (we.step == SL_WRITE_CHANGED) {
		fprintf(err,
			"sweeplint: error: cannot write '%s': it changed on disk since sweeplint read it (another "
			"program wrote it); nothing was written: run sweeplint again on the new contents\n",
			shown);
	} else if (we.step == SL_WRITE_OPEN && we.errnum == ENXIO) {
		fprintf(err, "sweeplint: error: cannot write '%s': it is a FIFO that no program reads\n", shown);
	} else if (we.step == SL_WRITE_READONLY) {
		fprintf(err,
			"sweeplint: error: cannot write '%s': it is read-only (no write permission for you); --force "
			"replaces it anyway%s\n",
			shown, kept);
	} else if (we.step == SL_WRITE_LINKED) {
		fprintf(err,
			"sweeplint: error: cannot write '%s': it has other hard links, which would keep the old contents "
			"(sweeplint writes a new file and renames it over this name); --force replaces this name "
			"only%s\n",
			shown, kept);
	} else if (we.step == SL_WRITE_MISSING) {
		fprintf(err, "sweeplint: error: cannot write '%s': it does not exist\n", shown);
	} else {
		fprintf(err, "sweeplint: error: cannot write '%s': %s failed: %s%s\n", shown, sl_write_step_name(we.step),
			strerror(we.errnum), kept);
	}
	return SL_EXIT_USAGE;
}

int sl_cli_write(struct sl_cli *cli, struct sl_arena *a, const char *path, const void *data, size_t len,
		 unsigned flags, const void *expect, size_t expect_len)
{
	/* past a file size limit, write() must fail with EFBIG rather than the signal killing us half-way */
	signal(SIGXFSZ, SIG_IGN);
	struct sl_write_error we;
	if (sl_write_atomic_if(path, data, len, flags, expect, expect_len, &we) == 0)
		return 0;
	return say(cli, a, path, flags, we);
}

FILE *sl_cli_write_open(struct sl_cli *cli, struct sl_arena *a, const char *path, unsigned flags, struct sl_writer *w)
{
	signal(SIGXFSZ, SIG_IGN);
	struct sl_write_error we;
	if (sl_write_begin(w, path, flags, &we) != 0) {
		say(cli, a, path, flags, we);
		return NULL;
	}
	int fd = dup(w->fd);
	FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fp) {
		we = (struct sl_write_error){SL_WRITE_WRITE, errno};
		if (fd >= 0)
			close(fd);
		sl_write_abort(w);
		say(cli, a, path, flags, we);
	}
	return fp;
}

int sl_cli_write_close(struct sl_cli *cli, struct sl_arena *a, const char *path, unsigned flags, struct sl_writer *w,
		       FILE *fp, bool keep)
{
	bool failed = ferror(fp) != 0;
	errno = 0;
	int e = fclose(fp) != 0 || failed ? (errno ? errno : EIO) : 0;
	if (!keep || e) {
		sl_write_abort(w);
		if (!keep)
			return 0;
		return say(cli, a, path, flags, (struct sl_write_error){SL_WRITE_WRITE, e});
	}
	struct sl_write_error we;
	if (sl_write_commit(w, NULL, 0, &we) != 0)
		return say(cli, a, path, flags, we);
	return 0;
}
