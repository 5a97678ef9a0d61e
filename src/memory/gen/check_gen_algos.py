#!/usr/bin/env python3
"""check_gen_algos: gen_algos.py builds the table from rules/algorithms.yaml and fails, naming the line, on a bad row.

  check_gen_algos.py GEN_ALGOS.py RULES_DIR      (TAP)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_gen_rows import check  # noqa: E402

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


def main():
    return check(sys.argv[1], sys.argv[2], "algorithms.yaml", "sl_algo_table[]", CASES,
                 lambda text, old: text[: text.index(old)].count("\n") + len(old.split("\n")))


if __name__ == "__main__":
    sys.exit(main())
