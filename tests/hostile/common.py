"""common: what the hostile runners share (tests/hostile/run_*.py).

- run(): one sweeplint process under tests/hostile/measure.c (fork, exec, wait4 rusage of that child alone,
  killed past its time limit), in a small clean environment; returns a Result.
- RAW / raw_char(): the characters a terminal must never receive raw from input (C0 but newline and tab,
  DEL, C1, bidi controls, U+2028/U+2029, bytes of invalid UTF-8): sweeplint's own rule (include/sweeplint/utf8.h).
- Tap: collects checks and prints them as TAP (an unexpected pass never prints 'ok ... # TODO').
- doubling(): does a cost double or quadruple when its input doubles (the growth checks of run_defects and
  run_growth), robust to a loaded machine.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.getcwd()

Result = collections.namedtuple("Result", "rc out err wall rss cpu")


def hostile_dir():
    """../shared/hostile (the reproducers of the hostile passes): beside the source tree (as CI checks it
    out), beside the main checkout of a git worktree, or $SWEEPLINT_HOSTILE_DIR; None without it."""
    cands = [os.environ.get("SWEEPLINT_HOSTILE_DIR", ""), os.path.join(ROOT, "..", "shared", "hostile")]
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "--path-format=absolute", "--git-common-dir"],
                       capture_output=True, text=True)
    if p.returncode == 0:  # a worktree: beside the main checkout
        cands.append(os.path.join(os.path.dirname(os.path.dirname(p.stdout.strip())), "shared", "hostile"))
    return next((os.path.abspath(c) for c in cands if c and os.path.isfile(os.path.join(c, "README.md"))), None)


def sanitized(argv_value):
    return argv_value not in ("", "none", "false")


def args(argv=None):
    """(MEASURE, SWEEPLINT, SANITIZED, TIME_BOUND, RSS_BOUND) of a runner's command line, `MEASURE
    SWEEPLINT [b_sanitize]`: paths made absolute; the cost bounds of one run are 2 s and 64 MB in a plain
    build, 20 s and 1 GiB under the sanitizers (their shadow memory and checks)."""
    argv = sys.argv if argv is None else argv
    san = len(argv) > 3 and sanitized(argv[3])
    return (os.path.abspath(argv[1]), os.path.abspath(argv[2]), san) + ((20.0, 1 << 30) if san else (2.0, 64 << 20))


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


Doubling = collections.namedtuple("Doubling", "rt rm t0 m0 t2 m2 t4 m4 rcs n why")


def doubling(cost, size_args, n, base_args, floor_s=0.05, floor_b=2 << 20, limit=3.0):
    """How a cost grows from an input of size 2n to one of 4n, less a trivial run's (the floor): a linear
    cost doubles, a quadratic one quadruples; a check asks for under `limit` (3x, halfway).

    cost(args, runs) -> (cpu seconds, rss bytes, set of exit codes): CPU time is the least of the runs (a
    busy machine only adds to it: cache, frequency and scheduler noise), memory the median. Increments under
    floor_s or floor_b count as that much. Times of a tenth of a second on a loaded 2-core machine read
    3.1-3.4x now and then (CI, November 2026, with valgrind running beside them) where an idle one reads
    1.9-2.2x: a ratio at or past the limit is measured again at twice the sizes, best of 5, and that second
    measure is the verdict (a quadratic cost quadruples again; the first figures stay in `why`). The exit codes
    returned (rcs) are the sized runs', not the trivial one's: a check may expect the trivial run to pass
    and the large ones to be refused."""
    def measure(n, runs):
        t0, m0, r0 = cost(base_args, runs)
        t2, m2, r2 = cost(size_args(2 * n), runs)
        t4, m4, r4 = cost(size_args(4 * n), runs)
        rt = (t4 - t0) / max(t2 - t0, floor_s)
        rm = (m4 - m0) / max(m2 - m0, floor_b)
        why = (f"floor {t0:.2f} s {m0 >> 20} MB; {2 * n}: {t2:.2f} s {m2 >> 20} MB exit {sorted(r2)}; "
               f"{4 * n}: {t4:.2f} s {m4 >> 20} MB exit {sorted(r4)}")
        return Doubling(rt, rm, t0, m0, t2, m2, t4, m4, r2 | r4, n, why)
    first = measure(n, 3)
    if first.rt < limit and first.rm < limit:
        return first
    second = measure(2 * n, 5)
    return second._replace(why=f"{second.why}\n(first at {2 * n}/{4 * n}, best of 3: time {first.rt:.1f}x, "
                                f"memory {first.rm:.1f}x; {first.why})")


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
