#!/usr/bin/python3
"""Property: no `oom` (or `eval-oom`) error rests on an assumed setting.

    assumed_property.py SWEEPLINT

Over every real sweep of ../shared/corpus/sweeps/ (on the default GPU and on
a 16 GiB one, where more of them run out) and every rule fixture of
fixtures/rules/ (with its `# args:` line), `sweeplint -f json` must give
each memory verdict (oom, near-capacity, eval-oom) an `assumed` list, and
every one at error severity an empty list: an error is a promise that the run
fails, so it may rest only on a stated batch size, length and precision. At
least one finding must be an error and one a warning with assumptions, or the
property says nothing. Exit 77 when ../shared/corpus is absent.
"""
import glob
import json
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
VERDICTS = {"oom", "near-capacity", "eval-oom"}
ERRORS = {"oom", "eval-oom"}


def fixture_args(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        first = f.readline()
    return shlex.split(first.split("args:", 1)[1]) if first.startswith("# args:") else []


def run(sweeplint, path, args, cwd):
    p = subprocess.run([sweeplint, "-f", "json", *args, path], capture_output=True, timeout=60, cwd=cwd)
    if p.returncode not in (0, 1, 2):
        raise SystemExit(f"FAIL {path}: exit {p.returncode}\n{p.stderr.decode()}")
    if p.returncode == 2:
        return []
    doc = json.loads(p.stdout)
    return [d for f in doc["files"] for d in f["diagnostics"]]


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    sweeplint = os.path.abspath(sys.argv[1])
    if not os.path.isdir(os.path.join(CORPUS, "sweeps")):
        print("skip: ../shared/corpus is absent")
        return 77
    cases = [(f, [], None) for f in sorted(glob.glob(os.path.join(CORPUS, "sweeps", "*.y*ml")))]
    cases += [(f, ["-g", "16GiB"], None) for f, _, _ in list(cases)]
    cases += [(os.path.relpath(f, ROOT), fixture_args(f), ROOT)
              for f in sorted(glob.glob(os.path.join(ROOT, "fixtures", "rules", "*", "*.yaml")))]
    bad, errors, warned = [], 0, 0
    for path, args, cwd in cases:
        for d in run(sweeplint, path, args, cwd):
            if d["rule"] not in VERDICTS:
                continue
            where = f"{path}:{d['line']}:{d['column']} {' '.join(args)}"
            if "assumed" not in d:
                bad.append(f"{where}: {d['rule']} has no 'assumed' list")
                continue
            if d["rule"] in ERRORS and d["severity"] == "error":
                errors += 1
                if d["assumed"]:
                    bad.append(f"{where}: {d['rule']} error rests on assumed {d['assumed']}")
            elif d["assumed"]:
                warned += 1
                if not all(r in d["message"] for r in d["assumed"]):
                    bad.append(f"{where}: the message does not name every assumption {d['assumed']}")
    print(f"# {len(cases)} checks: {errors} memory errors on stated settings, {warned} findings on assumptions")
    for b in bad:
        print("FAIL", b)
    if not errors or not warned:
        print("FAIL the property was not exercised (no error, or no finding on assumptions)")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
