#!/usr/bin/python3
"""own_rows: the project's own measured rows (fixtures/calibration/*.tsv, written by
tools/calibrate/calibrate.py on a GPU) against `sweeplint estimate`, with the bars of the
published ones (median |error| <= 10 %, every row <= 20 %, verdicts right for every case
measured as OOM or fitting with > 10 % margin). tools/calibrate/compare.py does the
comparison; this only finds the files. Exit 77 while no file is committed.

usage: own_rows.py SWEEPLINT FIXTURES_DIR [compare.py options, e.g. --worst-bar 32]
"""
import glob
import os
import subprocess
import sys


def main():
    exe, folder = sys.argv[1], sys.argv[2]
    tsvs = sorted(glob.glob(os.path.join(folder, "*.tsv")))
    if not tsvs:
        print(f"skip: no measured rows committed under {folder} (docs/calibration.md says how to make them)")
        return 77
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    compare = os.path.join(root, "tools", "calibrate", "compare.py")
    return subprocess.call([sys.executable, compare, "--sweeplint", exe] + sys.argv[3:] + tsvs)


if __name__ == "__main__":
    sys.exit(main())
