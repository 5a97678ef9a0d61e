/*
 * test_write: the one writer (src/base/write.c) — new and replaced files,
 * the compare-before-rename of --in-place, and every target it must refuse
 * rather than follow: symbolic links (to a file, to a folder, to a device),
 * folders, FIFOs, hard links, read-only files; the folder-descriptor form
 * the Hugging Face cache uses. Each expectation is written out by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweeplint/diag.h"
#include "sweeplint/write.h"

static char dir[] = "/tmp/sweeplint-test-write-XXXXXX";

static char *at(const char *name)
{
	static char bufs[4][600];
	static int k;
	char *b = bufs[k++ % 4];
	snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
	return b;
}

static void contents_are(const char *path, const char *want)
{
	char buf[256] = {0};
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	assert_int_equal(n, strlen(want));
	assert_string_equal(buf, want);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Nothing but the names given is in the folder (no temporary file left). */
static void folder_holds(int n)
{
	char cmd[700];
	snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq %d", dir, n);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_new_and_replaced(void **state)
{
	(void)state;
	const char *path = at("f.yaml");
	struct sl_write_error we;
	/* must_exist on a missing file */
	assert_int_equal(sl_write_atomic(path, "x", 1, SL_WRITE_MUST_EXIST, &we), -SL_EIO);
	assert_int_equal(we.step, SL_WRITE_MISSING);
	/* new, then replaced with its mode kept */
	assert_int_equal(sl_write_atomic(path, "one\n", 4, 0, &we), 0);
	assert_int_equal(chmod(path, 0604), 0);
	assert_int_equal(sl_write_atomic(path, "two\n", 4, SL_WRITE_MUST_EXIST, &we), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0604);
	contents_are(path, "two\n");
	/* --in-place: replaced only while the file still holds the bytes it was read with */
	assert_int_equal(sl_write_atomic_if(path, "four\n", 5, SL_WRITE_MUST_EXIST, "two\n", 4, &we), 0);
	assert_int_equal(sl_write_atomic_if(path, "five\n", 5, SL_WRITE_MUST_EXIST, "two\n", 4, &we), -SL_EIO);
	assert_int_equal(we.step, SL_WRITE_CHANGED);
	assert_int_equal(sl_write_atomic_if(path, "five\n", 5, SL_WRITE_MUST_EXIST, "four\n\n", 6, &we), -SL_EIO);
	assert_int_equal(we.step, SL_WRITE_CHANGED);
	contents_are(path, "four\n");
	folder_holds(1);
	unlink(path);
}

static void test_links_refused(void **state)
{
	(void)state;
	struct sl_write_error we;
	struct stat st;
	put(at("victim"), "precious\n");
	/* a link to a file: refused, the link stays a link, the file it names is untouched */
	assert_int_equal(symlink("victim", at("l.yaml")), 0);
	for (unsigned flags = 0; flags < 8; flags++) { /* --force and -o (device) change nothing */
		assert_int_equal(sl_write_atomic(at("l.yaml"), "three\n", 6, flags, &we), -SL_EIO);
		assert_int_equal(we.step, SL_WRITE_TARGET);
		assert_int_equal(we.errnum, ELOOP);
	}
	assert_int_equal(lstat(at("l.yaml"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* in steps: refused at the start, before any work */
	struct sl_writer w;
	assert_int_equal(sl_write_begin(&w, at("l.yaml"), SL_WRITE_FORCE, &we), -SL_EIO);
	assert_int_equal(we.errnum, ELOOP);
	assert_int_equal(sl_write_begin(&w, at("no-such-folder/new.html"), 0, &we), -SL_EIO);
	assert_int_equal(we.step, SL_WRITE_FOLDER);
	assert_int_equal(we.errnum, ENOENT);
	contents_are(at("victim"), "precious\n");
	/* a dangling link (a file the write would create): refused too */
	assert_int_equal(symlink("nowhere", at("dangling")), 0);
	assert_int_equal(sl_write_atomic(at("dangling"), "x", 1, SL_WRITE_FORCE, &we), -SL_EIO);
	assert_int_equal(we.errnum, ELOOP);
	assert_int_equal(access(at("nowhere"), F_OK), -1);
	/* a link in a working tree to a device is no stream the user named: refused even with -o */
	assert_int_equal(symlink("/dev/null", at("null-link")), 0);
	assert_int_equal(sl_write_atomic(at("null-link"), "x", 1, SL_WRITE_DEVICE, &we), -SL_EIO);
	assert_int_equal(we.errnum, ELOOP);
	/* the system's own stream names are streams */
	assert_int_equal(sl_write_atomic("/dev/null", "x", 1, SL_WRITE_DEVICE, &we), 0);
	/* ... but only when the caller takes devices (the report's default name, the cache) */
	assert_int_equal(sl_write_atomic("/dev/null", "x", 1, 0, &we), -SL_EIO);
	assert_int_equal(we.step, SL_WRITE_TARGET);
	/* a folder, a FIFO: refused */
	assert_int_equal(mkdir(at("sub"), 0755), 0);
	assert_int_equal(sl_write_atomic(at("sub"), "x", 1, 0, &we), -SL_EIO);
	assert_int_equal(we.errnum, EISDIR);
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	assert_int_equal(sl_write_atomic(at("fifo"), "x", 1, SL_WRITE_FORCE, &we), -SL_EIO);
	assert_int_equal(we.step, SL_WRITE_TARGET);
	assert_int_equal(we.errnum, EINVAL);
	/* a FIFO named directly with -o is written as a stream: none reads it, so it fails at once */
	assert_int_equal(sl_write_atomic(at("fifo"), "x", 1, SL_WRITE_DEVICE, &we), -SL_EIO);
	assert_int_equal(we.step, SL_WRITE_OPEN);
	assert_int_equal(we.errnum, ENXIO);
	/* a hard link: refused; --force replaces this name only */
	assert_int_equal(link(at("victim"), at("hard")), 0);
	assert_int_equal(sl_write_atomic(at("hard"), "x\n", 2, 0, &we), -SL_EIO);
	assert_int_equal(we.step, SL_WRITE_LINKED);
	assert_int_equal(sl_write_atomic(at("hard"), "x\n", 2, SL_WRITE_FORCE, &we), 0);
	contents_are(at("victim"), "precious\n");
	contents_are(at("hard"), "x\n");
	folder_holds(7);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s/* %s/.[!.]*", dir, dir);
	assert_int_equal(system(cmd), 0);
}

static void test_in_steps(void **state)
{
	(void)state;
	struct sl_write_error we;
	struct sl_writer w, w2;
	put(at("r.html"), "old\n");
	assert_int_equal(sl_write_begin(&w, at("r.html"), 0, &we), 0);
	/* one writer at a time: the signal handler knows one temporary file */
	assert_int_equal(sl_write_begin(&w2, at("other.html"), 0, &we), -SL_EIO);
	assert_int_equal(we.errnum, EBUSY);
	assert_int_equal(write(w.fd, "new", 3), 3);
	assert_int_equal(write(w.fd, "er\n", 3), 3);
	contents_are(at("r.html"), "old\n"); /* nothing renamed yet */
	folder_holds(2);                      /* the target and its temporary file */
	assert_int_equal(sl_write_commit(&w, NULL, 0, &we), 0);
	contents_are(at("r.html"), "newer\n");
	folder_holds(1);
	/* abandoned: the target keeps its bytes, the temporary file goes */
	assert_int_equal(sl_write_begin(&w, at("r.html"), 0, &we), 0);
	assert_int_equal(write(w.fd, "half", 4), 4);
	sl_write_abort(&w);
	contents_are(at("r.html"), "newer\n");
	folder_holds(1);
	unlink(at("r.html"));
}

static void test_at_folder(void **state)
{
	(void)state;
	struct sl_write_error we;
	assert_int_equal(mkdir(at("cache"), 0755), 0);
	int dfd = open(at("cache"), O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(sl_write_atomic_at(dfd, "main", "abc\n", 4, 0, &we), 0);
	contents_are(at("cache/main"), "abc\n");
	assert_int_equal(sl_write_atomic_at(dfd, "main", "def\n", 4, 0, &we), 0);
	contents_are(at("cache/main"), "def\n");
	/* a name with a folder in it is not an entry of the folder */
	assert_int_equal(sl_write_atomic_at(dfd, "../escape", "x", 1, 0, &we), -SL_EIO);
	assert_int_equal(we.errnum, EINVAL);
	assert_int_equal(access(at("escape"), F_OK), -1);
	/* a link planted at the name: refused, its target untouched */
	put(at("victim"), "precious\n");
	assert_int_equal(symlink("../victim", at("cache/config.json")), 0);
	assert_int_equal(sl_write_atomic_at(dfd, "config.json", "{}", 2, SL_WRITE_FORCE, &we), -SL_EIO);
	assert_int_equal(we.errnum, ELOOP);
	contents_are(at("victim"), "precious\n");
	close(dfd);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "test $(ls -A %s/cache | wc -l) -eq 2", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_replaced),
		cmocka_unit_test(test_links_refused),
		cmocka_unit_test(test_in_steps),
		cmocka_unit_test(test_at_folder),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
