#!/usr/bin/python3
"""Property test of `sweeplint fix` (and `split --exact`) over the real sweep corpus.

Usage: fix_corpus.py SWEEPLINT CORPUS_DIR

Every sweep in CORPUS_DIR/sweeps is fixed under several settings that force
pruning (small GPUs, small models set with --set so that sweeps without a model
key are evaluated too). Each result is judged independently of the C code, with
PyYAML (what W&B loads sweeps with), the W&B JSON schema, difflib and patch(1):

  1. stdout parses, to the input's data minus exactly the removed values: only
     `values:` lists of parameters lose items (a subsequence remains, never
     empty), or a range's max goes down / min goes up within the old range;
     every such change is reported on stderr ("removed KEY VALUE", "lowered
     the max of KEY", ...) and every report matches a change;
  2. no line without a removed value changes: every line that differs is a
     removed item's line, a line of a flow list that lost an item, a moved
     bound, or a comment/blank line that belonged to a removed block item;
     nothing is inserted;
  3. fix is idempotent: fixing the output again gives it back byte for byte;
  4. the output passes W&B's schema whenever the input did;
  5. a sweep with nothing to prune comes back byte-identical;
  6. `fix --diff`, applied with patch(1) to the input, gives the output;
  7. the exit status says whether out-of-memory combinations remain;
  8. `split --exact` never fails internally (exit 70), and every file it
     writes parses and passes the schema whenever the input did.

Exit: 0 all good, 1 a failure, 77 (meson: skipped) when the corpus is absent.
"""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
    import jsonschema
except ImportError as e:  # pragma: no cover
    print(f"skip: {e}")
    sys.exit(77)

SETTINGS = [
    ["--gpu", "4GiB"],
    ["--gpu", "16GiB"],
    ["--gpu", "4GiB", "--set", "model=electra-small-discriminator"],
    ["--gpu", "2GiB", "--set", "model=electra-small-discriminator"],
    ["--gpu", "8GiB", "--set", "model=bert-base-uncased"],
    ["--gpu", "24GiB", "--set", "model=t5-base"],
]

REMOVED = re.compile(r"^.*?:\d+:\d+: removed (.+?) (.*?): out of memory in (?:all |the one combination )")
NARROWED = re.compile(r"^.*?:\d+:\d+: narrowed (.+?) to (.*?), written as `value: ")
LOWERED = re.compile(r"^.*?:\d+:\d+: lowered the max of (.+?) (?:to keep|from) ")
RAISED = re.compile(r"^.*?:\d+:\d+: raised the min of (.+?) to ")


def params(doc, prefix=""):
    """Flatten W&B parameters (nested `parameters:` too) into {dotted path: spec}."""
    out = {}
    ps = doc.get("parameters") if isinstance(doc, dict) else None
    if not isinstance(ps, dict):
        return out
    for k, v in ps.items():
        path = f"{prefix}{k}"
        out[path] = v
        if isinstance(v, dict) and isinstance(v.get("parameters"), dict):
            out.update(params(v, path + "."))
    return out


def strip_params(doc):
    """The document without the parameter specs' values/min/max (compared separately)."""
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("values", "min", "max", "value", "distribution", "q")}
        return node
    if not isinstance(doc, dict):
        return doc
    d = dict(doc)
    if isinstance(d.get("parameters"), dict):
        d["parameters"] = {k: strip(v) for k, v in d["parameters"].items()}
    return d


def is_subsequence(small, big):
    it = iter(big)
    return all(any(x == y and type(x) is type(y) for y in it) for x in small)


def judge(src_text, out_text, stderr, schema_ok_in, validator, fail):
    din = yaml.safe_load(src_text)
    try:
        dout = yaml.safe_load(out_text)
    except yaml.YAMLError as e:
        return fail(f"output does not parse: {e}")
    removed = [m.groups() for m in map(REMOVED.match, stderr.splitlines()) if m]
    lowered = {m.group(1) for m in map(LOWERED.match, stderr.splitlines()) if m}
    raised = {m.group(1) for m in map(RAISED.match, stderr.splitlines()) if m}
    narrowed = {m.group(1) for m in map(NARROWED.match, stderr.splitlines()) if m}
    if strip_params(din) != strip_params(dout):
        return fail("something besides values/min/max changed")
    pin, pout = params(din), params(dout)
    if pin.keys() != pout.keys():
        return fail("the parameters changed")
    removed_texts = []
    seen_removed = []
    for path, a in pin.items():
        b = pout[path]
        if a == b or not isinstance(a, dict):
            continue
        if "value" in b and "value" not in a:
            # a range down to one value, written as that constant
            v = b["value"]
            if path not in narrowed:
                return fail(f"{path}: became a constant without a report")
            if set(b) - {"value", "distribution"} != set(a) - {"min", "max", "q", "distribution"}:
                return fail(f"{path}: {a!r} -> {b!r} changed more than min/max/q/distribution")
            if b.get("distribution", "constant") != "constant" or not (a["min"] <= v <= a["max"]):
                return fail(f"{path}: {a!r} -> {b!r} is not a constant from the range")
            removed_texts += [str(a["min"]), str(a["max"]), "distribution", "q:"]
            continue
        if a.get("values") != b.get("values"):
            va, vb = a.get("values"), b.get("values")
            if not isinstance(va, list) or not isinstance(vb, list) or not vb:
                return fail(f"{path}: values not a shorter non-empty list")
            if len(vb) >= len(va) or not is_subsequence(vb, va):
                return fail(f"{path}: {vb!r} is not {va!r} minus some items")
            gone = list(va)
            for x in vb:
                gone.remove(x)
            reported = [v for k, v in removed if k == path]
            if len(reported) != len(gone):
                return fail(f"{path}: {len(gone)} items removed, {len(reported)} reported")
            for text in reported:
                if yaml.safe_load(text) not in gone:
                    return fail(f"{path}: reported {text!r} is not among the removed {gone!r}")
                removed_texts.append(text)
            seen_removed += [(path, t) for t in reported]
        for bound, cmp, reports in (("max", lambda new, old: new < old, lowered),
                                    ("min", lambda new, old: new > old, raised)):
            if a.get(bound) != b.get(bound):
                new, old = b.get(bound), a.get(bound)
                if not isinstance(new, (int, float)) or not cmp(new, old):
                    return fail(f"{path}: {bound} {old!r} -> {new!r} does not narrow the range")
                if not (a["min"] <= new <= a["max"]):
                    return fail(f"{path}: {bound} {new!r} outside [{a['min']}, {a['max']}]")
                if path not in reports:
                    return fail(f"{path}: {bound} changed without a report")
                removed_texts.append(str(old))
        for k in set(a) | set(b):
            if k not in ("values", "min", "max") and a.get(k) != b.get(k):
                return fail(f"{path}: {k} changed")
    if len(seen_removed) != len(removed):
        return fail(f"reported removals {removed!r} do not all match a change")
    for path in lowered | raised | narrowed:
        if path not in pin or pin[path] == pout[path]:
            return fail(f"{path}: a bound change was reported but nothing changed")
    # 2. lines
    old_lines = src_text.splitlines(keepends=True)
    new_lines = out_text.splitlines(keepends=True)
    sm = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            return fail(f"lines inserted at {i1 + 1}: {new_lines[j1:j2]!r}")
        block = old_lines[i1:i2]
        if not any(any(t in line for t in removed_texts) for line in block):
            return fail(f"lines {i1 + 1}-{i2} changed but hold no removed value: {block!r}")
        for line in block:
            s = line.strip()
            if s and not s.startswith("#") and not any(t in line for t in removed_texts):
                return fail(f"line {old_lines.index(line) + 1} changed but holds no removed value: {line!r}")
    # 4. schema
    if schema_ok_in and not validator.is_valid(dout):
        err = next(validator.iter_errors(dout))
        return fail(f"the output fails W&B's schema: {err.message}")
    return True


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    corpus = sys.argv[2]
    sweeps = os.path.join(corpus, "sweeps")
    if not os.path.isdir(sweeps):
        print(f"skip: no corpus at {sweeps}")
        return 77
    with open(os.path.join(corpus, "wandb-sweep-schema.json")) as f:
        schema = json.load(f)
    validator = jsonschema.validators.validator_for(schema)(schema)
    env = {k: v for k, v in os.environ.items() if k.startswith(("ASAN_", "UBSAN_", "LSAN_", "PATH"))}
    env["LC_ALL"] = "C"
    files = sorted(n for n in os.listdir(sweeps) if n.endswith((".yaml", ".yml")))
    failures = 0
    stats = {"runs": 0, "pruned": 0, "unchanged": 0, "remaining-oom": 0, "nothing-fits": 0, "splits": 0,
             "split-files": 0, "split-refused": 0}
    tmp = tempfile.mkdtemp(prefix="sweeplint-fix-corpus-")
    try:
        for name in files:
            path = os.path.join(sweeps, name)
            with open(path, "rb") as f:
                raw = f.read()
            try:
                din = yaml.safe_load(raw)
            except yaml.YAMLError:
                continue  # not YAML: fix refuses it (the corpus test covers the finding)
            if not isinstance(din, dict):
                continue
            schema_ok = validator.is_valid(din)
            for args in SETTINGS:
                label = f"{name} {' '.join(args)}"

                def fail(msg, label=label):
                    nonlocal failures
                    failures += 1
                    print(f"FAIL {label}: {msg}")
                    return False

                stats["runs"] += 1
                p = subprocess.run([binary, "fix", *args, path], capture_output=True, env=env, timeout=120)
                err = p.stderr.decode("utf-8", "replace")
                if p.returncode not in (0, 1):
                    if p.returncode == 2 and "not a W&B sweep" in err:
                        continue
                    fail(f"exit {p.returncode}: {err.strip()}")
                    continue
                if not p.stdout:
                    if p.returncode == 1 and "no combination fits" in err:
                        stats["nothing-fits"] += 1
                        continue
                    fail(f"no output (exit {p.returncode}): {err.strip()}")
                    continue
                out = p.stdout
                text_in, text_out = raw.decode("utf-8"), out.decode("utf-8")
                # 7. exit status
                remains = "still run out of memory" in err
                if (p.returncode == 1) != remains:
                    fail(f"exit {p.returncode} but stderr says {'some' if remains else 'no'} OOM remains")
                stats["remaining-oom"] += remains
                # 5. nothing to prune: byte-identical
                if not any(w in err for w in ("removed", "lowered the max", "raised the min", "narrowed")):
                    stats["unchanged"] += 1
                    if out != raw:
                        fail("nothing was reported removed, but the output differs from the input")
                    continue
                stats["pruned"] += 1
                if out == raw:
                    fail("values were reported removed, but the output is the input")
                    continue
                if not judge(text_in, text_out, err, schema_ok, validator, fail):
                    continue
                # 3. idempotent (the output lives in a folder of its own, under the same name)
                again = os.path.join(tmp, "again")
                os.makedirs(again, exist_ok=True)
                fixed = os.path.join(again, name)
                with open(fixed, "wb") as f:
                    f.write(out)
                q = subprocess.run([binary, "fix", *args, fixed], capture_output=True, env=env, timeout=120)
                if q.stdout != out:
                    fail(f"not idempotent: fixing the output changes it again ({q.stderr.decode().strip()})")
                # 6. --diff with patch(1)
                d = subprocess.run([binary, "fix", "--diff", *args, path], capture_output=True, env=env,
                                   timeout=120)
                patched = os.path.join(tmp, "patched.yaml")
                shutil.copyfile(path, patched)
                os.chmod(patched, 0o644)
                pp = subprocess.run(["patch", "--quiet", "--force", patched], input=d.stdout,
                                    capture_output=True, timeout=60)
                with open(patched, "rb") as f:
                    if pp.returncode != 0 or f.read() != out:
                        fail(f"--diff does not patch the input into the output: {pp.stdout.decode()}"
                             f"{pp.stderr.decode()}\n{d.stdout.decode()}")
            # 8. split --exact on the first settings that evaluate something
            for args in SETTINGS:
                outdir = os.path.join(tmp, "split")
                shutil.rmtree(outdir, ignore_errors=True)
                s = subprocess.run([binary, "split", "--exact", "-q", "-o", outdir, *args, path],
                                   capture_output=True, env=env, timeout=300)
                serr = s.stderr.decode("utf-8", "replace")
                stats["splits"] += 1
                if s.returncode == 70 or s.returncode not in (0, 1, 2):
                    failures += 1
                    print(f"FAIL {name} split --exact {' '.join(args)}: exit {s.returncode}: {serr.strip()}")
                    continue
                if s.returncode == 2:
                    if "cannot split exactly" in serr or "not a W&B sweep" in serr:
                        stats["split-refused"] += "cannot split exactly" in serr
                        continue
                    failures += 1
                    print(f"FAIL {name} split --exact {' '.join(args)}: exit 2: {serr.strip()}")
                    continue
                for fn in sorted(os.listdir(outdir)) if os.path.isdir(outdir) else []:
                    stats["split-files"] += 1
                    with open(os.path.join(outdir, fn), "rb") as f:
                        try:
                            d2 = yaml.safe_load(f.read())
                        except yaml.YAMLError as e:
                            failures += 1
                            print(f"FAIL {name} split --exact {' '.join(args)}: {fn} does not parse: {e}")
                            continue
                    if schema_ok and not validator.is_valid(d2):
                        failures += 1
                        print(f"FAIL {name} split --exact {' '.join(args)}: {fn} fails W&B's schema")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(" ".join(f"{k}={v}" for k, v in stats.items()))
    if stats["pruned"] == 0:
        print("FAIL: no sweep was pruned: the settings do not force pruning any more")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
