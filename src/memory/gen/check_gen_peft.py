#!/usr/bin/env python3
"""check_gen_peft: gen_peft.py builds the table from rules/peft.yaml and fails, naming the line, on a bad row.

  check_gen_peft.py GEN_PEFT.py RULES_DIR      (TAP)
"""
import os
import subprocess
import sys
import tempfile

CASES = (
    # (replace, with, expected message, expected line or None)
    ("params: n_frequency\n", "params: n_frequency + bogus\n", "unknown variable bogus", None),
    ("params: in*out/block_size\n", "params: in*out/(block_size\n", "expected )", None),
    ("knobs: {block_size: 256}\n", "knobs: {block_size: lots}\n", "is not a number", None),
    ("    targets: [v_proj]\n", "    targets: [value]\n", "target 'value'", None),
    ("  - name: beft\n", "  - name: beft\n    colour: blue\n", "unknown field 'colour'", None),
    ("  - name: c3a\n", "  - name: beft\n", "'beft' is named twice", None),
    ("params: lokr(in, out, r, decompose_factor, decompose_both)\n", "params: lokr(in, out)\n",
     "lokr takes 5 arguments", None),
)


def run(gen, path, out):
    return subprocess.run([sys.executable, gen, out, path], capture_output=True, text=True)


def main():
    gen, rules = sys.argv[1], sys.argv[2]
    src = os.path.join(rules, "peft.yaml")
    with open(src, encoding="utf-8") as f:
        text = f.read()
    n = 0
    print("1..%d" % (len(CASES) + 1))
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.c")
        p = run(gen, src, out)
        n += 1
        ok = p.returncode == 0 and "sl_peft_table[]" in open(out, encoding="utf-8").read()
        print("%s %d - rules/peft.yaml builds%s" % ("ok" if ok else "not ok", n, "" if ok else ": " + p.stderr))
        bad = 0 if ok else 1
        for old, new, msg, _ in CASES:
            n += 1
            if old not in text:
                print("not ok %d - fixture text %r not in peft.yaml" % (n, old))
                bad += 1
                continue
            path = os.path.join(d, "peft.yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new, 1))
            p = run(gen, path, out)
            line = text[: text.index(old)].count("\n") + 1
            err = p.stderr.strip()
            good = p.returncode == 1 and msg in err and err.startswith(path + ":") and ": error: " in err
            # the row's line: the method's `- name:` line at or above the edit
            good = good and int(err[len(path) + 1:].split(":")[0]) <= line
            print("%s %d - %s%s" % ("ok" if good else "not ok", n, msg, "" if good else ": " + err))
            bad += 0 if good else 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
