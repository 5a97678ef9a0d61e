#!/usr/bin/env python3
"""check_gen_algos: gen_algos.py builds the table from rules/algorithms.yaml and fails, naming the line, on a bad row.

  check_gen_algos.py GEN_ALGOS.py RULES_DIR      (TAP)
"""
import os
import subprocess
import sys
import tempfile

CASES = (
    # (replace, with, expected message)
    ("  - name: orpo\n    spellings: [ORPOTrainer]\n", "  - name: orpo\n    spellings: [ORPOTrainer]\n    colour: blue\n",
     "unknown field 'colour'"),
    ("  - name: orpo\n    spellings: [ORPOTrainer]\n", "  - name: orpo\n    spellings: [DPOTrainer]\n",
     "'DPOTrainer' is named twice"),
    ("    sequences: 2\n    reference: step\n", "    sequences: 3\n    reference: step\n", "sequences is 1 or 2"),
    ("    reference: rollout\n", "    reference: later\n", "reference 'later' is not one of"),
    ("    loss: nll\n", "    loss: mse\n", "loss 'mse' is not one of"),
    ("    generations: 8\n", "    generations: many\n", "generations is a whole number"),
    ("    beta: 0.05\n", "    beta: -1\n", "beta is a number >= 0"),
    ("  - name: sft\n", "  - name: sft0\n", "the first row is sft"),
)


def run(gen, path, out):
    return subprocess.run([sys.executable, gen, out, path], capture_output=True, text=True)


def main():
    gen, rules = sys.argv[1], sys.argv[2]
    src = os.path.join(rules, "algorithms.yaml")
    with open(src, encoding="utf-8") as f:
        text = f.read()
    n = 0
    print("1..%d" % (len(CASES) + 1))
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.c")
        p = run(gen, src, out)
        n += 1
        ok = p.returncode == 0 and "sl_algo_table[]" in open(out, encoding="utf-8").read()
        print("%s %d - rules/algorithms.yaml builds%s" % ("ok" if ok else "not ok", n, "" if ok else ": " + p.stderr))
        bad = 0 if ok else 1
        for old, new, msg in CASES:
            n += 1
            if old not in text:
                print("not ok %d - fixture text %r not in algorithms.yaml" % (n, old))
                bad += 1
                continue
            path = os.path.join(d, "algorithms.yaml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new, 1))
            p = run(gen, path, out)
            line = text[: text.index(old)].count("\n") + len(old.split("\n"))
            err = p.stderr.strip()
            good = p.returncode == 1 and msg in err and err.startswith(path + ":") and ": error: " in err
            # the row's line: the `- name:` line at or above the edit
            good = good and int(err[len(path) + 1:].split(":")[0]) <= line
            print("%s %d - %s%s" % ("ok" if good else "not ok", n, msg, "" if good else ": " + err))
            bad += 0 if good else 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
