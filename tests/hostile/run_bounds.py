#!/usr/bin/python3
"""run_bounds: no fixed-size array in src/ is written through a counter nothing bounds (TAP).

usage: run_bounds.py   (from the repository root)

tools/check_bounds.py over src/ must find no write through an incremented index into a fixed-size array
without a comparison of that counter with the array's size (or a `/* bound: ... */` saying why): the class
of issue 34's follow-seen-overflow. The checker itself is tested on fixtures/static/bounds/src: every line
marked BAD there is reported (the first is the overflow as follow.c had it), and nothing else.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

TOOL = os.path.join(common.ROOT, "tools", "check_bounds.py")
FIXTURE = os.path.join(common.ROOT, "fixtures", "static", "bounds", "src")


def run(path):
    p = subprocess.run([sys.executable, TOOL, path], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    tap = common.Tap()
    rc, out, err = run(os.path.join(common.ROOT, "src"))
    tap.check("src/: every write through an incremented index into a fixed-size array is bounded",
              rc == 0 and not out, out + err)
    rc, out, err = run(FIXTURE)
    want = set()
    for f in sorted(os.listdir(FIXTURE)):
        for no, line in enumerate(open(os.path.join(FIXTURE, f)), 1):
            if "/* BAD */" in line:
                want.add(f"{f}:{no}")
    got = {f"{os.path.basename(m.group(1))}:{m.group(2)}" for m in re.finditer(r"^(\S+?):(\d+): ", out, re.M)}
    tap.check(f"the checker reports the {len(want)} unbounded writes of fixtures/static/bounds (follow.c's "
              "overflow among them) and nothing else", rc == 1 and got == want and want,
              f"rc {rc}; missing {sorted(want - got)}, extra {sorted(got - want)}\n{out}")
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
