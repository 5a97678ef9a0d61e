#!/usr/bin/env python3
"""check_gen_peft: gen_peft.py builds the table from rules/peft.yaml and fails, naming the line, on a bad row.

  check_gen_peft.py GEN_PEFT.py RULES_DIR      (TAP)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_gen_rows import check  # noqa: E402

CASES = (
    # (replace, with, expected message)
    ("params: n_frequency\n", "params: n_frequency + bogus\n", "unknown variable bogus"),
    ("params: in*out/block_size\n", "params: in*out/(block_size\n", "expected )"),
    ("knobs: {block_size: 256}\n", "knobs: {block_size: lots}\n", "is not a number"),
    ("    targets: [v_proj]\n", "    targets: [value]\n", "target 'value'"),
    ("  - name: beft\n", "  - name: beft\n    colour: blue\n", "unknown field 'colour'"),
    ("  - name: c3a\n", "  - name: beft\n", "'beft' is named twice"),
    ("params: lokr(in, out, r, decompose_factor, decompose_both)\n", "params: lokr(in, out)\n",
     "lokr takes 5 arguments"),
)


def main():
    return check(sys.argv[1], sys.argv[2], "peft.yaml", "sl_peft_table[]", CASES,
                 lambda text, old: text[: text.index(old)].count("\n") + 1)


if __name__ == "__main__":
    sys.exit(main())
