#!/usr/bin/python3
"""run_writes: fault injection for the commands that write files (TAP).

usage: run_writes.py SWEEPLINT

`fix --in-place`, `split -o DIR` and `report` write through a temporary file and a rename (src/base/write.c,
the one writer).
Whatever goes wrong, the original must survive byte for byte and no temporary file may be left behind
after a reported failure. Faults: a write limit (RLIMIT_FSIZE: a full disk, with SIGXFSZ ignored so the
write fails with EFBIG), the same limit with SIGXFSZ's default action (the process is killed in the middle
of writing, before its rename), a symbolic link as the target, a read-only folder (skipped as root, whom
permissions do not stop), an output folder that is a file. Copies of fixtures/cli/fix/grid.yaml are used.
"""
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

ROOT = common.ROOT
SRC = os.path.join(ROOT, "fixtures/cli/fix/grid.yaml")
GPU = ["--gpu", "16GiB"]


def limit_fsize(ignore):
    def pre():
        resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN if ignore else signal.SIG_DFL)
    return pre


def main():
    binary = os.path.abspath(sys.argv[1])
    original = open(SRC, "rb").read()
    tap = common.Tap()

    def run(args, pre=None):
        return subprocess.run([binary] + args, capture_output=True, preexec_fn=pre, cwd=ROOT, timeout=60)

    check = tap.check

    with tempfile.TemporaryDirectory() as tmp:
        def fresh(sub):
            d = os.path.join(tmp, sub)
            os.makedirs(d)
            f = os.path.join(d, "grid.yaml")
            shutil.copyfile(SRC, f)
            return d, f

        d, f = fresh("plain")
        p = run(["fix", *GPU, "--in-place", f])
        new = open(f, "rb").read()
        check("fix --in-place writes a changed, loadable sweep", p.returncode in (0, 1) and new != original and
              isinstance(yaml.safe_load(new), dict) and os.listdir(d) == ["grid.yaml"],
              f"exit {p.returncode}, files {os.listdir(d)}")

        d, f = fresh("full")
        p = run(["fix", *GPU, "--in-place", f], limit_fsize(True))
        check("fix --in-place on a full disk (EFBIG): exit 2, original intact, no temporary left",
              p.returncode == 2 and open(f, "rb").read() == original and os.listdir(d) == ["grid.yaml"] and
              b"error" in p.stderr, f"exit {p.returncode}, files {os.listdir(d)}, stderr {p.stderr[-300:]!r}")

        d, f = fresh("killed")
        p = run(["fix", *GPU, "--in-place", f], limit_fsize(False))
        check("fix --in-place with SIGXFSZ's default action (killed, or the signal handled: exit 2): original intact",
              p.returncode in (-signal.SIGXFSZ, 2) and open(f, "rb").read() == original,
              f"exit {p.returncode}, files {os.listdir(d)}")

        d, f = fresh("link")
        link = os.path.join(d, "link.yaml")
        os.symlink("grid.yaml", link)
        p = run(["fix", *GPU, "--in-place", link])
        check("fix --in-place on a symbolic link: refused (exit 2), link and target intact",
              p.returncode == 2 and os.path.islink(link) and open(f, "rb").read() == original,
              f"exit {p.returncode}, stderr {p.stderr[-300:]!r}")

        d, f = fresh("readonly")
        if os.geteuid() == 0:
            check("fix --in-place in a read-only folder", True, skip="root ignores folder permissions")
            check("split -o into a read-only folder", True, skip="root ignores folder permissions")
        else:
            os.chmod(d, 0o555)
            p = run(["fix", *GPU, "--in-place", f])
            check("fix --in-place in a read-only folder: exit 2, original intact",
                  p.returncode == 2 and open(f, "rb").read() == original, f"exit {p.returncode}")
            out = os.path.join(tmp, "ro-out")
            os.makedirs(out)
            os.chmod(out, 0o555)
            p = run(["split", "--by", "model", *GPU, "-o", out, f])
            check("split -o into a read-only folder: exit 2, nothing written",
                  p.returncode == 2 and os.listdir(out) == [], f"exit {p.returncode}")
            os.chmod(d, 0o755)

        d, f = fresh("split-full")
        out = os.path.join(d, "out")
        os.makedirs(out)
        p = run(["split", "--by", "model", *GPU, "-o", out, f], limit_fsize(True))
        stray = [n for n in os.listdir(out) if not n.endswith(".yaml")]
        check("split -o on a full disk: exit 2, no temporary left, input intact",
              p.returncode == 2 and not stray and open(f, "rb").read() == original,
              f"exit {p.returncode}, files {os.listdir(out)}")

        d, f = fresh("split-notdir")
        notdir = os.path.join(d, "file")
        open(notdir, "w").close()
        p = run(["split", "--by", "model", *GPU, "-o", notdir, f])
        check("split -o onto a file that is not a folder: exit 2", p.returncode == 2 and
              os.path.getsize(notdir) == 0, f"exit {p.returncode}")

        # issue 15, surprising behaviours: what --in-place keeps, what it refuses, what a signal leaves
        d, f = fresh("readonly-file")
        os.chmod(f, 0o444)
        p = run(["fix", *GPU, "--in-place", f])
        check("fix --in-place on a read-only (0444) file: refused (exit 2), file intact, like an editor",
              p.returncode == 2 and b"read-only" in p.stderr and b"--force" in p.stderr and
              open(f, "rb").read() == original and os.listdir(d) == ["grid.yaml"], f"exit {p.returncode} {p.stderr!r}")
        p = run(["fix", *GPU, "--in-place", "--force", f])
        check("fix --in-place --force on a read-only file: replaced, still 0444",
              p.returncode in (0, 1) and open(f, "rb").read() != original and
              os.stat(f).st_mode & 0o7777 == 0o444, f"exit {p.returncode} {p.stderr!r}")

        d, f = fresh("hardlink")
        other = os.path.join(d, "other.yaml")
        os.link(f, other)
        p = run(["fix", *GPU, "--in-place", f])
        check("fix --in-place on a file with another hard link: refused (exit 2), both names intact",
              p.returncode == 2 and b"hard link" in p.stderr and open(f, "rb").read() == original and
              os.stat(f).st_ino == os.stat(other).st_ino, f"exit {p.returncode} {p.stderr!r}")
        p = run(["fix", *GPU, "--in-place", "--force", f])
        check("fix --in-place --force on a hard-linked file: this name replaced, the other keeps the old bytes",
              p.returncode in (0, 1) and open(f, "rb").read() != original and open(other, "rb").read() == original,
              f"exit {p.returncode} {p.stderr!r}")

        d, f = fresh("modes")
        os.chmod(f, 0o6750)
        xattr = True
        try:
            os.setxattr(f, "user.sweeplint-test", b"kept")
        except OSError:
            xattr = False
        p = run(["fix", *GPU, "--in-place", f])
        st = os.stat(f)
        check("fix --in-place keeps setuid/setgid (owner kept: chown before chmod) and the mode",
              p.returncode in (0, 1) and open(f, "rb").read() != original and st.st_mode & 0o7777 == 0o6750,
              f"exit {p.returncode}, mode {oct(st.st_mode)}")
        if xattr:
            check("fix --in-place keeps extended attributes (user.*)",
                  "user.sweeplint-test" in os.listxattr(f) and os.getxattr(f, "user.sweeplint-test") == b"kept",
                  f"{os.listxattr(f)}")
        else:
            check("fix --in-place keeps extended attributes", True, skip="no user xattrs on this file system")

        d, f = fresh("devnull")
        p = run(["fix", *GPU, "-o", "/dev/null", f])
        check("fix -o /dev/null writes to the device (like other tools), input intact",
              p.returncode in (0, 1) and open(f, "rb").read() == original and os.path.exists("/dev/null") and
              not os.path.isfile("/dev/null"), f"exit {p.returncode} {p.stderr!r}")
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        p = run(["fix", *GPU, "-o", fifo, f])
        check("fix -o FIFO with no reader: exit 2 at once (never blocks), FIFO left",
              p.returncode == 2 and b"error" in p.stderr and os.path.exists(fifo), f"exit {p.returncode} {p.stderr!r}")

        # a process stopped inside the write (strace delays one system call), then signalled or inspected
        strace = shutil.which("strace")

        def stalled(args, syscall, cwd, act):
            """Run sweeplint under strace with syscall delayed 3 s; act(pid, tmpname) while it waits."""
            # LeakSanitizer cannot run under ptrace (it aborts): leaks are checked by the other cases
            env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
            sp = subprocess.Popen(["strace", "-f", "-o", "/dev/null", "-e", f"inject={syscall}:delay_enter=3000000",
                                   binary] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd,
                                  env=env)
            tmpname = None
            for _ in range(200):
                time.sleep(0.05)
                names = [n for n in os.listdir(cwd) if n.endswith(".tmp")]
                if names:
                    tmpname = names[0]
                    break
            kids = subprocess.run(["pgrep", "-P", str(sp.pid)], capture_output=True, text=True).stdout.split()
            seen = act(int(kids[0]), tmpname) if kids and tmpname else None
            sp.communicate(timeout=60)
            return sp.returncode, tmpname, seen

        ptrace_ok = strace and subprocess.run(["strace", "-o", "/dev/null", "true"], capture_output=True).returncode == 0
        if not ptrace_ok:
            check("SIGTERM while fix --in-place writes", True, skip="strace missing or ptrace not allowed")
            check("the temporary file has the final mode from the start", True, skip="strace missing or not allowed")
        else:
            d, f = fresh("sigterm")
            rc, tmpname, _ = stalled(["fix", "-q", *GPU, "--in-place", "grid.yaml"], "fsync", d,
                                     lambda pid, t: os.kill(pid, signal.SIGTERM))
            check("SIGTERM while fix --in-place writes: the process dies, no .NAME.XXXX.tmp left, original intact",
                  tmpname is not None and rc == -signal.SIGTERM and os.listdir(d) == ["grid.yaml"] and
                  open(f, "rb").read() == original, f"tmp {tmpname}, exit {rc}, files {os.listdir(d)}")
            d, f = fresh("tmpmode")
            os.chmod(f, 0o600)
            rc, tmpname, mode = stalled(["fix", "-q", *GPU, "--in-place", "grid.yaml"], "write", d,
                                        lambda pid, t: os.stat(os.path.join(d, t)).st_mode & 0o7777)
            check("the temporary file is created with the final mode (0600), not 0666 less the umask",
                  tmpname is not None and mode == 0o600 and rc in (0, 1) and os.stat(f).st_mode & 0o7777 == 0o600,
                  f"tmp {tmpname}, mode {oct(mode) if mode is not None else None}, exit {rc}")

        # the report and every output: the one writer (src/base/write.c), never through a link
        # (shared/hostile/turn3/report-writes-through-symlink: a checkout commits
        # sweeplint-report.html -> ../../.ssh/authorized_keys)
        def victim_repo(sub):
            home = os.path.join(tmp, sub)
            os.makedirs(os.path.join(home, ".ssh"))
            repo = os.path.join(home, "src", "evilrepo")
            os.makedirs(repo)
            keys = os.path.join(home, ".ssh", "authorized_keys")
            open(keys, "w").write("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIVICTIM victim@host\n")
            open(os.path.join(repo, "sweep.yaml"), "w").write(
                'method: grid\nparameters:\n  model_name_or_path:\n    values: ["x\\nssh-ed25519 AAAAATTACKER '
                'attacker@evil\\n"]\n  per_device_train_batch_size:\n    values: [8, 16]\n')
            return repo, keys

        for how, extra in (("default name", []), ("-o", ["-o", "sweeplint-report.html"]),
                           ("-o --force", ["-o", "sweeplint-report.html", "--force"])):
            repo, keys = victim_repo("report-link-" + how.replace(" ", "").replace("-", ""))
            os.symlink("../../.ssh/authorized_keys", os.path.join(repo, "sweeplint-report.html"))
            before = open(keys, "rb").read()
            p = subprocess.run([binary, "report", *extra, "sweep.yaml"], capture_output=True, cwd=repo, timeout=60)
            check(f"report ({how}) onto a committed link to ~/.ssh/authorized_keys: refused (exit 2), the "
                  "target byte for byte intact, the link still a link, no temporary left",
                  p.returncode == 2 and b"symbolic link" in p.stderr and open(keys, "rb").read() == before and
                  os.path.islink(os.path.join(repo, "sweeplint-report.html")) and
                  sorted(os.listdir(repo)) == ["sweep.yaml", "sweeplint-report.html"] and
                  os.listdir(os.path.dirname(keys)) == ["authorized_keys"],
                  f"exit {p.returncode} {p.stderr[-300:]!r} files {sorted(os.listdir(repo))}")

        d, f = fresh("report-variants")
        rep = os.path.join(d, "sweeplint-report.html")

        def report(*extra):
            try:  # a FIFO opened for writing blocked the old report forever
                return subprocess.run([binary, "report", *GPU, *extra, "grid.yaml"], capture_output=True, cwd=d,
                                      timeout=20)
            except subprocess.TimeoutExpired:
                return subprocess.CompletedProcess([], "hang (killed after 20 s)", b"", b"")

        p = report()
        check("report writes sweeplint-report.html (a regular file, 0666 less the umask), nothing else",
              p.returncode in (0, 1) and os.path.isfile(rep) and not os.path.islink(rep) and
              sorted(os.listdir(d)) == ["grid.yaml", "sweeplint-report.html"] and
              open(rep, "rb").read().startswith(b"<!DOCTYPE html>"), f"exit {p.returncode} {os.listdir(d)}")
        def clear(path):
            if os.path.isdir(path) and not os.path.islink(path):
                os.rmdir(path)
            elif os.path.lexists(path):
                os.unlink(path)

        victim = os.path.join(tmp, "report-victim")
        open(victim, "w").write("precious\n")
        for kind, make in (("a dangling link", lambda: os.symlink(os.path.join(tmp, "report-new"), rep)),
                           ("a link to a folder", lambda: os.symlink(tmp, rep)),
                           ("a link to /dev/null", lambda: os.symlink("/dev/null", rep)),
                           ("a FIFO", lambda: os.mkfifo(rep)),
                           ("a folder", lambda: os.mkdir(rep))):
            clear(rep)
            make()
            p = report()
            check(f"report onto {kind} (the default name): refused (exit 2) at once, nothing followed or created",
                  p.returncode == 2 and not os.path.exists(os.path.join(tmp, "report-new")) and
                  sorted(os.listdir(d)) == ["grid.yaml", "sweeplint-report.html"] and
                  open(victim, "rb").read() == b"precious\n", f"exit {p.returncode} {p.stderr[-300:]!r}")
        clear(rep)
        os.link(victim, rep)
        p = report()
        check("report onto a hard link of another file: refused (exit 2), the other file intact",
              p.returncode == 2 and b"hard link" in p.stderr and open(victim, "rb").read() == b"precious\n",
              f"exit {p.returncode} {p.stderr[-300:]!r}")
        p = report("--force")
        check("report --force onto a hard link: this name replaced, the other file keeps its bytes",
              p.returncode in (0, 1) and open(victim, "rb").read() == b"precious\n" and
              open(rep, "rb").read().startswith(b"<!DOCTYPE html>"), f"exit {p.returncode} {p.stderr[-300:]!r}")
        p = run(["report", *GPU, "-o", f, f])
        check("report -o onto its own input: refused (exit 2), the sweep intact",
              p.returncode == 2 and open(f, "rb").read() == original, f"exit {p.returncode} {p.stderr[-300:]!r}")
        p = run(["report", *GPU, "-o", "/dev/null", f])
        check("report -o /dev/null writes to the device (a stream the user named)",
              p.returncode in (0, 1) and not os.path.isfile("/dev/null"), f"exit {p.returncode} {p.stderr!r}")
        nl = os.path.join(d, "null-link")
        os.symlink("/dev/null", nl)
        p = run(["fix", *GPU, "-o", nl, f])
        check("fix -o onto a link (in a working tree) to /dev/null: refused, the link never followed",
              p.returncode == 2 and os.path.islink(nl) and b"symbolic link" in p.stderr,
              f"exit {p.returncode} {p.stderr!r}")

    check("fix --in-place when the file changed on disk since it was read", True,
          skip="needs a hook between read and rename in src/base/write.c (none yet)")

    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
