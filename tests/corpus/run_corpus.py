#!/usr/bin/python3
"""Corpus verdict test: sweeplint reports a syntax or schema error exactly when W&B rejects a sweep.

    run_corpus.py SWEEPLINT DRIVER

For every file of ../shared/corpus/sweeps/ W&B's verdict comes from
wandb_verdict.py (PyYAML + the JSON schema + wandb/sweeps' extra checks).
`SWEEPLINT -f json FILE` must report an error-severity `syntax` or `schema`
finding exactly for the rejected ones; decoys (sweeps-decoys/) must get
`not-a-sweep` and no crash. When the CLI cannot lint yet, DRIVER (the
library, tests/corpus/corpus_driver.c) answers instead. Exit 77 without
../shared or PyYAML/jsonschema.
"""
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")


def cli_findings(sweeplint, path):
    """The (rule, severity) findings of sweeplint -f json, or None when the CLI cannot answer."""
    try:
        p = subprocess.run([sweeplint, "-f", "json", path], capture_output=True, timeout=60)
    except OSError:
        return None
    if p.returncode < 0:
        raise SystemExit(f"FAIL {path}: sweeplint killed by signal {-p.returncode}\n{p.stderr.decode()}")
    if p.returncode not in (0, 1):
        return None
    try:
        doc = json.loads(p.stdout)
        return [(d["rule"], d["severity"]) for f in doc["files"] for d in f["diagnostics"]]
    except (ValueError, KeyError, TypeError):
        return None


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    sweeplint, driver = sys.argv[1], sys.argv[2]
    schema = os.path.join(CORPUS, "wandb-sweep-schema.json")
    if not os.path.exists(schema):
        print("skip: ../shared/corpus is absent")
        return 77
    sweeps = sorted(glob.glob(os.path.join(CORPUS, "sweeps", "*.y*ml")))
    decoys = sorted(glob.glob(os.path.join(CORPUS, "sweeps-decoys", "*.y*ml")))
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run([sys.executable, os.path.join(here, "wandb_verdict.py"), schema] + sweeps + decoys,
                       capture_output=True, text=True)
    if p.returncode == 77:
        print("skip: PyYAML or jsonschema is not installed")
        return 77
    if p.returncode != 0:
        raise SystemExit(p.stderr)
    wandb = {d["file"]: d for d in map(json.loads, p.stdout.splitlines())}

    d = subprocess.run([driver] + sweeps + decoys, capture_output=True, text=True)
    if d.returncode != 0:
        raise SystemExit(f"FAIL corpus_driver exited {d.returncode}\n{d.stderr}")
    lib = {x["file"]: x for x in map(json.loads, d.stdout.splitlines())}

    failures = 0
    used_cli = 0
    for path in sweeps + decoys:
        w = wandb[path]
        found = cli_findings(sweeplint, path)
        if found is not None:
            used_cli += 1
            errors = [r for r, sev in found if sev == "error" and r in ("syntax", "schema")]
            not_a_sweep = any(r == "not-a-sweep" for r, _ in found)
        else:
            x = lib[path]
            errors = ["syntax"] * x["syntax"] + ["schema"] * x["schema"]
            not_a_sweep = not x["is_sweep"] and not x["syntax"]
        name = os.path.relpath(path, CORPUS)
        if path in decoys:
            if w["verdict"] == "not-a-sweep" and not not_a_sweep:
                print(f"FAIL {name}: W&B would not read it as a sweep, sweeplint did not say not-a-sweep")
                failures += 1
            continue
        rejected = w["verdict"] in ("reject", "syntax")
        if rejected != bool(errors):
            failures += 1
            print(f"FAIL {name}: W&B {w['verdict']} {w['reasons'][:3]}, sweeplint errors {errors}")
        if w["verdict"] == "syntax" and "syntax" not in errors:
            failures += 1
            print(f"FAIL {name}: PyYAML cannot load it, sweeplint reported no syntax finding")
    rejects = sum(1 for p_ in sweeps if wandb[p_]["verdict"] in ("reject", "syntax"))
    print(f"{len(sweeps)} sweeps ({rejects} rejected by W&B), {len(decoys)} decoys; "
          f"{used_cli} answered by the CLI, {len(sweeps) + len(decoys) - used_cli} by the library driver; "
          f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
