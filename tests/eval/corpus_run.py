#!/usr/bin/python3
"""corpus_run: `sweeplint check -v` over every sweep of ../shared/corpus/sweeps.

Each sweep is checked on its own and, where ../shared/corpus/trainer/MANIFEST.tsv
holds a trainer config from the same repository, with `-c CONFIG` too. Every run
must end with exit 0 or 1 (2 only when the config is one the manifest marks
MALFORMED, and then stderr must say so) and no sanitizer report; the
memory-relevant keys -v reports are printed for each sweep. Skipped (a TAP
1..0 plan) without ../shared.

usage: corpus_run.py SWEEPLINT   (run from the repository root)
"""
import csv
import os
import re
import subprocess
import sys

CORPUS = os.path.join("..", "shared", "corpus")


def manifest(path):
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def main():
    exe = sys.argv[1]
    if not os.path.isdir(CORPUS):
        print("1..0 # SKIP ../shared/corpus is absent")  # TAP's skip; meson reads exit 77 here as an error
        return 0
    sweeps = manifest(os.path.join(CORPUS, "sweeps", "MANIFEST.tsv"))
    trainers = manifest(os.path.join(CORPUS, "trainer", "MANIFEST.tsv"))
    runs = []
    for s in sweeps:
        path = os.path.join(CORPUS, "sweeps", s["file"])
        runs.append((path, None, False))
        for t in trainers:
            if t["repo"] == s["repo"]:
                runs.append((path, os.path.join(CORPUS, "trainer", t["file"]), "MALFORMED" in t["notes"]))
    print("1..%d" % len(runs))
    failures = 0
    role_line = re.compile(r": note: (.*?) \((.*?)\) -> ([a-z_]+): ")
    for n, (path, config, malformed) in enumerate(runs, 1):
        cmd = [exe, "check", "-v", "-f", "text", "--color", "never", path]
        if config:
            cmd[2:2] = ["-c", config]
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=60)
        sanitizer = "Sanitizer" in p.stderr or "runtime error" in p.stderr
        ok = not sanitizer and (p.returncode in (0, 1) or
                                (p.returncode == 2 and malformed and "could not be used" in p.stderr))
        keys = sorted({"%s->%s" % (m.group(1), m.group(3)) for m in role_line.finditer(p.stdout)})
        name = os.path.basename(path) + (" -c " + os.path.basename(config) if config else "")
        print("%s %d - %s: exit %d; memory keys: %s" % ("ok" if ok else "not ok", n, name, p.returncode,
                                                         ", ".join(keys) if keys else "none"))
        if not ok:
            failures += 1
            for line in p.stderr.splitlines()[:20]:
                print("  # " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
