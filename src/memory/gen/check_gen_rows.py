#!/usr/bin/env python3
"""check_gen_rows: the TAP check shared by the build-time table generators of rules/*.yaml (gen_peft.py,
gen_algos.py): the table builds from the rules file, and each edited copy of it fails the generator
with `PATH:LINE: error: MESSAGE`, LINE at or above the edit (the row's `- name:` line).
"""
import os
import subprocess
import sys
import tempfile


def _run(gen, path, out):
    return subprocess.run([sys.executable, gen, out, path], capture_output=True, text=True)


def check(gen, rules, name, symbol, cases, edit_line):
    """gen: the generator; name: the rules file (rules/NAME); symbol: the table it writes ("sl_peft_table[]");
    cases: (replace, with, expected message); edit_line(text, old): the last line the error may name."""
    src = os.path.join(rules, name)
    with open(src, encoding="utf-8") as f:
        text = f.read()
    n = 0
    print("1..%d" % (len(cases) + 1))
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.c")
        p = _run(gen, src, out)
        n += 1
        ok = p.returncode == 0 and symbol in open(out, encoding="utf-8").read()
        print("%s %d - rules/%s builds%s" % ("ok" if ok else "not ok", n, name, "" if ok else ": " + p.stderr))
        bad = 0 if ok else 1
        for old, new, msg in cases:
            n += 1
            if old not in text:
                print("not ok %d - fixture text %r not in %s" % (n, old, name))
                bad += 1
                continue
            path = os.path.join(d, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new, 1))
            p = _run(gen, path, out)
            err = p.stderr.strip()
            good = p.returncode == 1 and msg in err and err.startswith(path + ":") and ": error: " in err
            good = good and int(err[len(path) + 1:].split(":")[0]) <= edit_line(text, old)
            print("%s %d - %s%s" % ("ok" if good else "not ok", n, msg, "" if good else ": " + err))
            bad += 0 if good else 1
    return 1 if bad else 0
