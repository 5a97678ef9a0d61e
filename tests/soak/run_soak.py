#!/usr/bin/python3
"""run_soak: every real file and every CLI case under valgrind (or the build's own sanitizers) (TAP).

usage: run_soak.py corpus|cli SWEEPLINT SANITIZED

corpus  every file of ../shared/corpus/{sweeps,sweeps-decoys,trainer} and the two JSON schemas, checked
        as a sweep (exit 0 or 1: a file that is not YAML is a syntax finding, never a crash); each trainer
        config is also given as --config to a small sweep (exit 0, 1, or 2 with its finding).
        Skips (77) without ../shared.
cli     the Args and Stdin of every fixtures/cli/*/*.test case (expected output is tests/cli's business;
        here only memory errors count).
Each run is wrapped in `valgrind --error-exitcode=99 --leak-check=full` in a plain build; in a build with
ASan/UBSan (SANITIZED=true; valgrind cannot run those) the sanitizers report instead (exit 99 on a report,
ASAN_OPTIONS from the environment kept). Skips (77) when the build is plain and valgrind is missing.
A report fails the case and prints valgrind's or the sanitizer's words.
"""
import concurrent.futures
import glob
import os
import shlex
import shutil
import subprocess
import sys

ROOT = os.getcwd()
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
SWEEP = "fixtures/hostile/min-greater-than-max.yaml"


def corpus_runs():
    runs = []
    files = sorted(glob.glob(os.path.join(CORPUS, "sweeps*", "*")) + glob.glob(os.path.join(CORPUS, "trainer", "*")) +
                   glob.glob(os.path.join(CORPUS, "*.json")))
    for f in files:
        if f.endswith((".tsv", ".md")):
            continue
        rel = os.path.relpath(f, ROOT)
        runs.append((f"check {rel}", ["check", rel], b"", (0, 1)))
        if "/trainer/" in f:
            runs.append((f"check --config {rel}", ["check", "--config", rel, SWEEP], b"", (0, 1, 2)))
    return runs


def cli_runs():
    runs = []
    for case in sorted(glob.glob(os.path.join(ROOT, "fixtures", "cli", "*", "*.test"))):
        args, stdin, block = None, b"", None
        for line in open(case, encoding="utf-8").read().split("\n"):
            if line.startswith("Args:"):
                args = shlex.split(line[5:])
            if line.startswith(">") and block == "Stdin":
                stdin += (line[2:] if line.startswith("> ") else line[1:]).encode() + b"\n"
                continue
            if not line.startswith(">"):
                block = line.split(":", 1)[0] if ":" in line else None
        if args is not None:
            runs.append((os.path.relpath(case, ROOT), args, stdin, None))
    return runs


def main():
    what, binary, sanitized = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3] not in ("", "none", "false")
    if what == "corpus" and not os.path.isdir(CORPUS):
        print("1..0 # SKIP ../shared/corpus is not here")
        return 77
    if sanitized:
        wrap = []
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        env["ASAN_OPTIONS"] += ":exitcode=99"
        env["UBSAN_OPTIONS"] = env.get("UBSAN_OPTIONS", "print_stacktrace=1") + ":halt_on_error=1:exitcode=99"
        env["LSAN_OPTIONS"] = env.get("LSAN_OPTIONS", "") + ":exitcode=99"
    else:
        vg = shutil.which("valgrind")
        if not vg:
            print("1..0 # SKIP valgrind is not installed")
            return 77
        wrap = [vg, "-q", "--error-exitcode=99", "--leak-check=full", "--show-leak-kinds=definite,indirect",
                "--errors-for-leak-kinds=definite,indirect", "--track-fds=no"]
        env = dict(os.environ)
    env["LC_ALL"] = "C"
    env["NO_COLOR"] = "1"
    runs = corpus_runs() if what == "corpus" else cli_runs()

    def one(run):
        name, args, stdin, want = run
        p = subprocess.run(wrap + [binary] + args, input=stdin, capture_output=True, env=env, cwd=ROOT, timeout=300)
        return name, p.returncode, want, p.stderr.decode("utf-8", "replace")

    print(f"1..{len(runs)}")
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for n, (name, rc, want, err) in enumerate(pool.map(one, runs), 1):
            problems = []
            if rc == 99 or rc < 0:
                problems.append(f"memory error or sanitizer report (exit {rc})")
            elif want is not None and rc not in want:
                problems.append(f"exit {rc}, want {' or '.join(map(str, want))}")
            print(f"{'not ok' if problems else 'ok'} {n} - {name} (exit {rc})")
            if problems:
                failed += 1
                for p in problems:
                    print(f"#   {p}")
                print("#   " + "\n#   ".join(err[-4000:].splitlines()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
