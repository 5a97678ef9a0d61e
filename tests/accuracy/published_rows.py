#!/usr/bin/python3
"""published_rows: ../shared/calibration/published.tsv against `sweeplint estimate` through
tools/calibrate/published.py with the bars given after the file. Exit 77 when the file is absent.

usage: published_rows.py SWEEPLINT PUBLISHED_TSV [published.py options]
"""
import os
import subprocess
import sys


def main():
    exe, tsv = sys.argv[1], sys.argv[2]
    if not os.path.isfile(tsv):
        print(f"skip: {tsv} absent")
        return 77
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tool = os.path.join(root, "tools", "calibrate", "published.py")
    return subprocess.call([sys.executable, tool, "--sweeplint", exe, tsv] + sys.argv[3:])


if __name__ == "__main__":
    sys.exit(main())
