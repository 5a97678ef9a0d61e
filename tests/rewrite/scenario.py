#!/usr/bin/python3
"""The seeds' bi-encoder scenario (seed 002, examples/bi-encoder): split and fix, judged by `check`.

Usage: scenario.py SWEEPLINT   (run from the repository root)

For each GPU in GPUS:
  1. `split --by model` writes one file per value of model.bi_model that
     fits somewhere (as `check` sees a one-model sweep made here), named
     sweep.VALUE.yaml, each holding only that model and all of that model's
     fitting combinations, every other list a subset of the original's;
     together they hold exactly the original's fitting combinations;
  2. `split --by model --exact` writes files in which `check` finds 0
     out-of-memory combinations and whose fitting counts add up to the
     original's; their grids (as PyYAML reads them) are pairwise disjoint and
     lie inside the original grid;
  3. `split --by model --only bge-m3-ko -o -` prints the one sweep for that
     model, the same bytes the folder run wrote for it;
  4. `fix` keeps every fitting combination (check's fit count is unchanged),
     and leaves no value that fits in no combination.
The expected counts all come from `sweeplint check -f json` on the original
file, never from split's or fix's own reports.
"""
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

SWEEP = "examples/bi-encoder/sweep.yaml"
CONFIG = os.path.abspath("examples/bi-encoder/train.yaml")
GPUS = ["h100-80gb", "24GiB", "8GiB"]
MEMORY_KEYS = ["model.bi_model", "data.batches.bi", "model.max_len", "trainer.gradient_checkpointing"]

failures = 0


def fail(msg):
    global failures
    failures += 1
    print(f"FAIL {msg}")


def run(binary, *args, check=None):
    p = subprocess.run([binary, *args], capture_output=True, timeout=300)
    if check is not None and p.returncode not in check:
        fail(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.decode()}")
    return p


def counts(binary, gpu, path):
    p = run(binary, "check", "-f", "json", "--gpu", gpu, "-c", CONFIG, path, check=(0, 1))
    return json.loads(p.stdout)["files"][0]["combinations"]


def grid(doc):
    """The memory combinations of a sweep as PyYAML reads it (values lists only)."""
    lists = [doc["parameters"][k]["values"] for k in MEMORY_KEYS]
    return set(itertools.product(*[[json.dumps(v) for v in vs] for vs in lists]))


def load(path):
    with open(path, "rb") as f:
        return yaml.safe_load(f)


def main():
    binary = os.path.abspath(sys.argv[1])
    orig = load(SWEEP)
    models = orig["parameters"]["model.bi_model"]["values"]
    n_other = len(orig["parameters"]["trainer.lr"]["values"])
    tmp = tempfile.mkdtemp(prefix="sweeplint-scenario-")
    try:
        for gpu in GPUS:
            os.makedirs(os.path.join(tmp, gpu))
            base = counts(binary, gpu, SWEEP)
            # 1. split --by model
            out = os.path.join(tmp, gpu, "by")
            p = run(binary, "split", "--by", "model", "--gpu", gpu, "-c", CONFIG, "-o", out, SWEEP, check=(0, 1))
            names = sorted(os.listdir(out))
            # what fits per model, as check sees a hand-made one-model sweep
            per_model = {}
            for m in models:
                d = json.loads(json.dumps(orig))
                d["parameters"]["model.bi_model"]["values"] = [m]
                probe = os.path.join(tmp, gpu, "one-model.yaml")
                with open(probe, "w") as fh:
                    yaml.safe_dump(d, fh, allow_unicode=True)
                per_model[m] = counts(binary, gpu, probe)["fit"]
            want = sorted(f"sweep.{m}.yaml" for m in models if per_model[m])
            if names != want:
                fail(f"{gpu}: split --by model wrote {names}, expected one file per model that fits {want}")
            for m in models:
                if not per_model[m] and f"model.bi_model {m}: no combination fits" not in p.stderr.decode():
                    fail(f"{gpu}: split --by model does not say that nothing fits for {m}")
            fit = 0
            for m in models:
                path = os.path.join(out, f"sweep.{m}.yaml")
                if not os.path.exists(path):
                    continue
                doc = load(path)
                if doc["parameters"]["model.bi_model"]["values"] != [m]:
                    fail(f"{gpu}: {path} holds models {doc['parameters']['model.bi_model']['values']}")
                for k in MEMORY_KEYS[1:]:
                    if not set(map(json.dumps, doc["parameters"][k]["values"])) <= set(
                            map(json.dumps, orig["parameters"][k]["values"])):
                        fail(f"{gpu}: {path}: {k} is not a subset of the original's")
                got = counts(binary, gpu, path)["fit"]
                if got != per_model[m]:
                    fail(f"{gpu}: {path} keeps {got} fitting combinations, the model has {per_model[m]}")
                fit += got
            if fit != base["fit"]:
                fail(f"{gpu}: split --by model keeps {fit} fitting combinations, check finds {base['fit']}")
            if (p.returncode == 1) != (base["oom"] > 0 and any(
                    counts(binary, gpu, os.path.join(out, n))["oom"] for n in names)):
                fail(f"{gpu}: split --by exit {p.returncode} does not match the OOM left in its files")
            # 3. --only, printed
            q = run(binary, "split", "--by", "model", "--only", "bge-m3-ko", "-o", "-", "--gpu", gpu, "-c", CONFIG,
                    SWEEP, check=(0, 1))
            only = os.path.join(out, "sweep.bge-m3-ko.yaml")
            if os.path.exists(only):
                with open(only, "rb") as f:
                    if q.stdout != f.read():
                        fail(f"{gpu}: --only bge-m3-ko -o - differs from the file the folder run wrote")
            # 2. split --by model --exact
            out = os.path.join(tmp, gpu, "exact")
            run(binary, "split", "--by", "model", "--exact", "--gpu", gpu, "-c", CONFIG, "-o", out, SWEEP, check=(0,))
            fit, grids = 0, []
            for n in sorted(os.listdir(out)):
                path = os.path.join(out, n)
                c = counts(binary, gpu, path)
                if c["oom"] != 0:
                    fail(f"{gpu}: --exact wrote {n} with {c['oom']} out-of-memory combinations")
                fit += c["fit"]
                grids.append((n, grid(load(path))))
            if fit != base["fit"]:
                fail(f"{gpu}: --exact files hold {fit} fitting combinations, the sweep {base['fit']}")
            whole = grid(orig)
            union = set()
            for n, g in grids:
                if not g <= whole:
                    fail(f"{gpu}: {n} holds combinations outside the original grid")
                if union & g:
                    fail(f"{gpu}: {n} overlaps another --exact file")
                union |= g
            if len(union) * n_other != base["fit"]:
                fail(f"{gpu}: the --exact files cover {len(union) * n_other} runs, check finds {base['fit']} fit")
            print(f"{gpu}: check: {base['fit']} fit, {base['oom']} oom of {base['total']}; "
                  f"--by: {len(names)} files; --exact: {len(grids)} files, {fit} fit")
            # 4. fix
            f = run(binary, "fix", "--gpu", gpu, "-c", CONFIG, SWEEP, check=(0, 1))
            fixed = os.path.join(tmp, gpu, "sweep.yaml")
            with open(fixed, "wb") as fh:
                fh.write(f.stdout)
            c = counts(binary, gpu, fixed)
            if c["fit"] != base["fit"]:
                fail(f"{gpu}: fix keeps {c['fit']} fitting combinations, check finds {base['fit']}")
            # no value left that fits in no combination: removing any one more loses a fitting combination
            doc = load(fixed)
            for k in MEMORY_KEYS:
                vals = doc["parameters"][k]["values"]
                for i in range(len(vals)) if len(vals) > 1 else []:
                    d2 = json.loads(json.dumps(doc))
                    del d2["parameters"][k]["values"][i]
                    probe = os.path.join(tmp, gpu, "probe.yaml")
                    with open(probe, "w") as fh:
                        yaml.safe_dump(d2, fh, allow_unicode=True)
                    if counts(binary, gpu, probe)["fit"] == c["fit"]:
                        fail(f"{gpu}: fix kept {k} {vals[i]!r}, which fits in no combination")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
