"""common: what the hostile runners share (tests/hostile/run_*.py).

- run(): one sweeplint process under tests/hostile/measure.c (fork, exec, wait4 rusage of that child alone,
  killed past its time limit), in a small clean environment; returns a Result.
- RAW / raw_char(): the characters a terminal must never receive raw from input (C0 but newline and tab,
  DEL, C1, bidi controls, U+2028/U+2029, bytes of invalid UTF-8): sweeplint's own rule (include/sweeplint/utf8.h).
- Tap: collects checks and prints them as TAP (an unexpected pass never prints 'ok ... # TODO').
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.getcwd()

Result = collections.namedtuple("Result", "rc out err wall rss cpu")


def sanitized(argv_value):
    return argv_value not in ("", "none", "false")


def env(home="/nonexistent", extra=None):
    """PATH, LC_ALL=C, HOME and the sanitizers' options: nothing else of the caller's environment."""
    e = {k: v for k, v in os.environ.items() if k.startswith(("ASAN_", "UBSAN_", "LSAN_"))}
    e.update(PATH=os.environ.get("PATH", "/usr/bin:/bin"), LC_ALL="C", HOME=home)
    if extra:
        e.update(extra)
    return e


def run(measure, binary, args, cwd=None, timeout=60, home="/nonexistent", stdin=None, close_stdin=False,
        stdout_path=None, extra_env=None):
    """Result(rc, out, err, wall, rss, cpu) of binary ARGS: rc 128+N for a signal N, out/err as bytes
    decoded with surrogateescape (a byte of invalid UTF-8 stays visible to raw_char), wall and cpu in
    seconds, rss in bytes. stdin: bytes to feed, or None for /dev/null."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as report, tempfile.TemporaryFile() as inp:
        if stdin is not None:
            inp.write(stdin)
            inp.seek(0)
        sout = open(stdout_path, "wb") if stdout_path else out
        pre = [measure, report.name, str(timeout)] + (["--close-stdin"] if close_stdin else []) + ["--"]
        p = subprocess.run(pre + [binary] + list(args), stdin=inp if stdin is not None else subprocess.DEVNULL,
                           stdout=sout, stderr=err, env=env(home, extra_env), cwd=cwd or ROOT)
        if stdout_path:
            sout.close()
        if p.returncode != 0:
            raise RuntimeError(f"measure failed ({p.returncode})")
        rc, wall, rss, cpu = report.read().split()[:4]
        out.seek(0)
        err.seek(0)
        return Result(int(rc), out.read().decode("utf-8", "surrogateescape"),
                      err.read().decode("utf-8", "surrogateescape"), float(wall), int(rss) * 1024, float(cpu))


RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\udc80-\udcff]")


def raw_char(text):
    """The first character of text a terminal must not receive raw (as an escape), or None."""
    m = RAW.search(text)
    return m.group().encode("unicode_escape", "backslashreplace").decode("ascii") if m else None


class Tap:
    def __init__(self):
        self.results = []

    def check(self, name, ok, why="", skip=None, todo=None):
        self.results.append((name, bool(ok), why, skip, todo))
        return ok

    def finish(self):
        """Print the plan and every result; the exit status (1 when a check without TODO failed)."""
        print(f"1..{len(self.results)}")
        failed = 0
        for n, (name, ok, why, skip, todo) in enumerate(self.results, 1):
            name = name.encode("unicode_escape").decode("ascii")  # a test name is one TAP line
            if skip:
                print(f"ok {n} - {name} # SKIP {skip}")
                continue
            if ok:
                print(f"ok {n} - {name}")  # never 'ok # TODO': meson counts an unexpected pass as a failure
                continue
            print(f"not ok {n} - {name}" + (f" # TODO {todo}" if todo else ""))
            failed += not todo
            for line in str(why).splitlines() or [""]:
                print("#   " + line.encode("unicode_escape").decode("ascii"))
        sys.stdout.flush()
        return 1 if failed else 0
