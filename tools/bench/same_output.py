#!/usr/bin/python3
"""same_output: two sweeplint builds give byte-identical output over the fixtures and the corpus.

For a change that must not change behaviour (a faster enumeration, a file moved to another folder):
every sweep under fixtures/ and ../shared/corpus/sweeps is checked by both executables with several
option sets (text, -v, JSON, SARIF; a GPU, host memory, cores and GPU count so that the host-RAM,
workers and ZeRO rules run); a fixture's own `# args:` line is added. stdout, stderr and the exit
status must agree. Not a test of the project (it needs two builds): run it by hand.

usage: same_output.py OLD_SWEEPLINT NEW_SWEEPLINT [DIR ...]
"""
import os
import subprocess
import sys

OPTION_SETS = [
    ["check"],
    ["check", "-v", "-g", "h100-80gb"],
    ["check", "-f", "json", "-g", "a100-40gb", "--host-memory", "64GiB", "--cores", "8", "-n", "2"],
    ["check", "-f", "sarif", "-g", "rtx-4090"],
]


def sweeps(dirs):
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith((".yaml", ".yml")):
                    yield os.path.join(root, f)


def fixture_args(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            first = fh.readline()
    except OSError:
        return []
    return first[len("# args:"):].split() if first.startswith("# args:") else []


def run(exe, args):
    p = subprocess.run([exe, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    old, new = sys.argv[1], sys.argv[2]
    dirs = sys.argv[3:] or ["fixtures", "../shared/corpus/sweeps"]
    runs = diffs = 0
    for path in sweeps(dirs):
        for opts in OPTION_SETS:
            args = [*opts, *fixture_args(path), path]
            a, b = run(old, args), run(new, args)
            runs += 1
            if a != b:
                diffs += 1
                print("DIFFERS: sweeplint %s (rc %d vs %d)" % (" ".join(args), a[0], b[0]))
    print("%d runs, %d differ" % (runs, diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
