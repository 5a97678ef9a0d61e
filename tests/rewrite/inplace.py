#!/usr/bin/python3
"""`sweeplint fix --in-place` (and -o) when writing fails: the original is intact and the error says why.

Usage: inplace.py SWEEPLINT   (run from the repository root)

The sweep is the seeds' bi-encoder example at 4GiB, which fix changes. Cases:
  ok         the file is replaced, its mode (0640) kept, no temporary file left;
  symlink    a symbolic link is refused (not followed, not replaced);
  fsize      RLIMIT_FSIZE below the output's size: EFBIG ("File too large");
  readonly   a read-only mount (tmpfs remounted ro): EROFS;
  nospace    a full tmpfs: ENOSPC;
  immutable  chattr +i on the file: the rename is refused (EPERM);
  folder     -o naming a folder;
  nofolder   -o into a folder that does not exist.
Tests run as root, which ignores permission bits, so read-only and no-space
use mounts; cases whose mechanism is unavailable (no mount, no chattr) are
skipped and said so. Exit 77 when every case was skipped.
"""
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile

SWEEP = os.path.abspath("examples/bi-encoder/sweep.yaml")
CONFIG = os.path.abspath("examples/bi-encoder/train.yaml")
ARGS = ["--gpu", "4GiB", "-c", CONFIG]

failures = 0
ran = 0


def fail(case, msg):
    global failures
    failures += 1
    print(f"FAIL {case}: {msg}")


def fix(binary, *args, preexec=None):
    return subprocess.run([binary, "fix", *ARGS, *args], capture_output=True, timeout=120, preexec_fn=preexec)


def leftovers(folder, keep):
    return sorted(n for n in os.listdir(folder) if n not in keep)


def expect_refusal(case, binary, target, args, want, folder, keep):
    """Run fix with args; it must exit 2 naming `want`, and leave target and folder as they were."""
    global ran
    ran += 1
    with open(target, "rb") as f:
        before = f.read()
    st = os.lstat(target)
    p = fix(binary, *args)
    err = p.stderr.decode()
    if p.returncode != 2:
        fail(case, f"exit {p.returncode}, expected 2: {err}")
    if want not in err:
        fail(case, f"the error does not say {want!r}: {err!r}")
    if "unchanged" not in err and "--in-place" in args:
        fail(case, f"the error does not say the file is unchanged: {err!r}")
    with open(target, "rb") as f:
        if f.read() != before:
            fail(case, "the original changed")
    st2 = os.lstat(target)
    if (st.st_ino, st.st_mode, st.st_mtime_ns) != (st2.st_ino, st2.st_mode, st2.st_mtime_ns):
        fail(case, "the original was replaced or touched")
    extra = leftovers(folder, keep)
    if extra:
        fail(case, f"files left behind: {extra}")
    print(f"ok {case}: {err.strip()}")


def mount_tmpfs(path, opts):
    return subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", path], capture_output=True).returncode == 0


def main():
    global ran
    binary = os.path.abspath(sys.argv[1])
    want = fix(binary, SWEEP)
    if want.returncode not in (0, 1) or not want.stdout:
        print(f"FAIL setup: fix exits {want.returncode}: {want.stderr.decode()}")
        return 1
    with open(SWEEP, "rb") as f:
        original = f.read()
    if want.stdout == original:
        print("FAIL setup: fix does not change the example at 4GiB any more; pick a smaller GPU")
        return 1
    tmp = tempfile.mkdtemp(prefix="sweeplint-inplace-")
    try:
        # ok: replaced, mode kept, nothing left behind
        d = os.path.join(tmp, "ok")
        os.mkdir(d)
        f = os.path.join(d, "sweep.yaml")
        shutil.copyfile(SWEEP, f)
        os.chmod(f, 0o640)
        p = fix(binary, "--in-place", f)
        ran += 1
        with open(f, "rb") as fh:
            got = fh.read()
        if p.returncode != want.returncode or got != want.stdout:
            fail("ok", f"exit {p.returncode}, content {'same as' if got == want.stdout else 'differs from'} stdout")
        if stat.S_IMODE(os.stat(f).st_mode) != 0o640:
            fail("ok", f"mode {oct(stat.S_IMODE(os.stat(f).st_mode))}, expected 0o640")
        if leftovers(d, {"sweep.yaml"}):
            fail("ok", f"files left behind: {leftovers(d, {'sweep.yaml'})}")
        print("ok ok: replaced, mode 0640 kept")

        # symlink: refused
        d = os.path.join(tmp, "symlink")
        os.mkdir(d)
        real = os.path.join(d, "real.yaml")
        link = os.path.join(d, "link.yaml")
        shutil.copyfile(SWEEP, real)
        os.symlink("real.yaml", link)
        expect_refusal("symlink", binary, real, ["--in-place", link], "symbolic link", d, {"real.yaml", "link.yaml"})
        if not os.path.islink(link):
            fail("symlink", "the link was replaced")

        # fsize: a file size limit below the output's size
        d = os.path.join(tmp, "fsize")
        os.mkdir(d)
        f = os.path.join(d, "sweep.yaml")
        shutil.copyfile(SWEEP, f)
        limit = len(want.stdout) // 2

        def small_files():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        global_fix = fix

        def limited(binary_, *args):
            return global_fix(binary_, *args, preexec=small_files)

        globals()["fix"] = limited
        try:
            expect_refusal("fsize", binary, f, ["--in-place", f], "File too large", d, {"sweep.yaml"})
        finally:
            globals()["fix"] = global_fix

        # readonly: a tmpfs remounted read-only
        d = os.path.join(tmp, "readonly")
        os.mkdir(d)
        if mount_tmpfs(d, "size=1m"):
            try:
                f = os.path.join(d, "sweep.yaml")
                shutil.copyfile(SWEEP, f)
                if subprocess.run(["mount", "-o", "remount,ro", d], capture_output=True).returncode == 0:
                    expect_refusal("readonly", binary, f, ["--in-place", f], "Read-only file system", d,
                                   {"sweep.yaml"})
                else:
                    print("skip readonly: cannot remount read-only")
            finally:
                subprocess.run(["umount", d], capture_output=True)
        else:
            print("skip readonly: cannot mount a tmpfs (not root?)")

        # nospace: a full tmpfs
        d = os.path.join(tmp, "nospace")
        os.mkdir(d)
        if mount_tmpfs(d, "size=64k"):
            try:
                f = os.path.join(d, "sweep.yaml")
                shutil.copyfile(SWEEP, f)
                fd = os.open(os.path.join(d, "filler"), os.O_WRONLY | os.O_CREAT, 0o644)
                try:
                    while os.write(fd, b"x" * 512) > 0:
                        pass
                except OSError:
                    pass
                os.close(fd)
                expect_refusal("nospace", binary, f, ["--in-place", f], "No space left on device", d,
                               {"sweep.yaml", "filler"})
            finally:
                subprocess.run(["umount", d], capture_output=True)
        else:
            print("skip nospace: cannot mount a tmpfs (not root?)")

        # immutable: chattr +i
        d = os.path.join(tmp, "immutable")
        os.mkdir(d)
        f = os.path.join(d, "sweep.yaml")
        shutil.copyfile(SWEEP, f)
        if subprocess.run(["chattr", "+i", f], capture_output=True).returncode == 0:
            try:
                expect_refusal("immutable", binary, f, ["--in-place", f], "Operation not permitted", d,
                               {"sweep.yaml"})
            finally:
                subprocess.run(["chattr", "-i", f], capture_output=True)
        else:
            print("skip immutable: chattr +i is not available here")

        # folder: -o names a folder
        d = os.path.join(tmp, "folder")
        os.makedirs(os.path.join(d, "out.yaml"))
        shutil.copyfile(SWEEP, os.path.join(d, "sweep.yaml"))
        expect_refusal("folder", binary, os.path.join(d, "sweep.yaml"),
                       ["-o", os.path.join(d, "out.yaml"), os.path.join(d, "sweep.yaml")], "is a folder", d,
                       {"sweep.yaml", "out.yaml"})

        # nofolder: -o into a folder that does not exist
        d = os.path.join(tmp, "nofolder")
        os.mkdir(d)
        shutil.copyfile(SWEEP, os.path.join(d, "sweep.yaml"))
        expect_refusal("nofolder", binary, os.path.join(d, "sweep.yaml"),
                       ["-o", os.path.join(d, "missing", "out.yaml"), os.path.join(d, "sweep.yaml")],
                       "No such file or directory", d, {"sweep.yaml"})
    finally:
        for sub in ("readonly", "nospace"):
            subprocess.run(["umount", os.path.join(tmp, sub)], capture_output=True)
        subprocess.run(["chattr", "-i", os.path.join(tmp, "immutable", "sweep.yaml")], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    if not ran:
        return 77
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
