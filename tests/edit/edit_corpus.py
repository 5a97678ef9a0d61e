#!/usr/bin/python3
"""Property test of sweeplint's byte-minimal YAML edits over the real sweep corpus.

Usage: edit_corpus.py [--all] EDIT_DRIVER CORPUS_DIR

edit_driver (C, links src/yaml + src/base) makes the edits: for every sweep that
parses and every sequence of >= 2 items under a `values:` key, it removes each
item in turn ("drop") and keeps each item alone ("keep", what `split` does), and
checks that an empty edit set gives the input back byte for byte. This script
judges every result independently of the C code, with PyYAML (what W&B uses) and
the W&B JSON schema:

  1. the output parses, to exactly the input's data minus that item (or with
     only that item left); aliases of an anchored list see the change too, as
     PyYAML shares the list object;
  2. every line outside the edited lines is byte-identical (line breaks, CRLF,
     comments included): for "drop", outside the removed item's lines (plus
     the comment-only lines right below a block item that are indented deeper
     than its dash, which belong to it); for "keep", outside the sequence's
     lines (plus the same belonging comments); the missing-final-newline
     state is preserved;
  3. the output validates against the W&B sweep schema whenever the input did.

With --all, every YAML file of the corpus (sweeps, trainer configs, decoys) is
used, every sequence of >= 2 items (not only `values:`), and every pair of every
mapping of >= 2 pairs is removed too ("pair"); layouts the editor refuses
(-SL_ELIMIT) are counted and listed, not failed.

Exit: 0 all good, 1 a failure, 77 (meson: skipped) when the corpus is absent.
"""
import copy
import difflib
import json
import os
import subprocess
import sys
import tempfile

try:
    import yaml
    import jsonschema
except ImportError as e:  # pragma: no cover
    print(f"skip: {e}")
    sys.exit(77)


def lookup(node, seg):
    if isinstance(seg, int):
        return node[seg]
    if seg in node:
        return node[seg]
    # a key PyYAML typed (1, true): find it the way PyYAML reads the key text
    key = yaml.safe_load(seg)
    return node[key]


def same(a, b):
    return a == b or repr(a) == repr(b)


def indent_of(line):
    return len(line) - len(line.lstrip(" \t"))


def belonging_comments(lines, after, base_indent):
    """How many comment-only lines right after index `after` are indented deeper than base_indent."""
    k = 0
    while after + k < len(lines):
        text = lines[after + k].rstrip("\r\n")
        stripped = text.lstrip(" \t")
        if stripped.startswith("#") and indent_of(text) > base_indent:
            k += 1
        else:
            break
    return k


def check_lines(inp, out, first, last, extra_ok, edited_max):
    """inp/out: lists of lines with their breaks. Lines first..last (1-based) may
    change or go; up to extra_ok lines right after them may go. True when the rest
    is byte-identical."""
    prefix = inp[: first - 1]
    for m in range(extra_ok + 1):
        suffix = inp[last + m:]
        # at the end of a file without a final newline, the lines before the
        # removed last line lose their line breaks (blank lines go with them)
        if not suffix and "".join(out) == "".join(prefix).rstrip("\r\n"):
            return True
        middle = len(out) - len(prefix) - len(suffix)
        if middle < 0 or middle > edited_max:
            continue
        if suffix and out[len(out) - len(suffix):] != suffix:
            continue
        head = out[: len(prefix)]
        if head == prefix:
            return True
    return False


def main():
    args = sys.argv[1:]
    all_mode = bool(args) and args[0] == "--all"
    if all_mode:
        args = args[1:]
    if len(args) != 2:
        print(__doc__)
        return 2
    driver, corpus = args
    sweeps = os.path.join(corpus, "sweeps")
    schema_path = os.path.join(corpus, "wandb-sweep-schema.json")
    if not os.path.isdir(sweeps) or not os.path.isfile(schema_path):
        print(f"skip: no corpus at {corpus}")
        return 77
    with open(schema_path, encoding="utf-8") as f:
        validator = jsonschema.Draft7Validator(json.load(f))
    dirs = [sweeps] + ([os.path.join(corpus, d) for d in ("trainer", "sweeps-decoys")] if all_mode else [])
    files = sorted(os.path.join(d, n) for d in dirs if os.path.isdir(d)
                   for n in os.listdir(d) if n.endswith((".yaml", ".yml")))
    refused = []

    failures = []
    counts = {"files": 0, "cases": 0, "drop": 0, "keep": 0, "pair": 0, "schema-checked": 0}
    positions = {"first": 0, "middle": 0, "last": 0}
    styles = {"flow": 0, "block": 0}
    with tempfile.TemporaryDirectory(prefix="sl-edit-") as tmp:
        proc = subprocess.run([driver, "all" if all_mode else "cases", tmp] + files,
                              capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            print(proc.stderr)
            print(f"FAIL: edit_driver exited {proc.returncode}")
            return 1
        if proc.stderr:
            failures.append(proc.stderr.strip())
        inputs = {}
        for raw in proc.stdout.splitlines():
            case = json.loads(raw)
            counts["cases"] += 1
            counts[case["op"]] += 1
            path, fname = case["path"], case["file"]
            where = f"{os.path.basename(fname)} {case['op']} {path}[{case['index']}]"
            if case["op"] == "pair":
                where = f"{os.path.basename(fname)} pair {path}[{case['key']!r}]"
            if case["rc"] != 0:
                if all_mode:
                    refused.append(f"{where}: rc {case['rc']}")
                else:
                    failures.append(f"{where}: edit refused with rc {case['rc']}")
                continue
            if fname not in inputs:
                with open(fname, "rb") as f:
                    data = f.read()
                text = data.decode("utf-8-sig")
                loaded = yaml.safe_load(text)
                valid = validator.is_valid(loaded)
                inputs[fname] = (data, loaded, valid)
                counts["files"] += 1
            data, loaded, valid = inputs[fname]
            with open(case["out"], "rb") as f:
                outb = f.read()
            try:
                got = yaml.safe_load(outb.decode("utf-8-sig"))
            except yaml.YAMLError as e:
                failures.append(f"{where}: output does not parse: {e}")
                continue

            # 1. data: the input's minus exactly that item
            want = copy.deepcopy(loaded)
            seq = want
            for seg in path:
                seq = lookup(seq, seg)
            i, n = case["index"], case["n"]
            if case["op"] == "pair":
                key = case["key"] if case["key"] in seq else yaml.safe_load(case["key"])
                del seq[key]
            elif len(seq) != n:
                failures.append(f"{where}: PyYAML sees {len(seq)} items, the driver {n}")
                continue
            elif case["op"] == "drop":
                del seq[i]
            else:
                seq[:] = [seq[i]]
            if not same(got, want):
                failures.append(f"{where}: data differs from the expected result")
                continue
            positions["first" if i == 0 else "last" if i == n - 1 else "middle"] += 1
            styles[case["style"]] += 1

            # 2. bytes: lines outside the edited ones are identical
            inl = data.decode("utf-8").splitlines(keepends=True)
            outl = outb.decode("utf-8").splitlines(keepends=True)
            if case["op"] in ("drop", "pair"):
                first, last = case["item_line"], case["item_end_line"]
                if case["style"] == "block" and case["item_end_line"] > case["item_line"] and \
                        inl[last - 1].strip() == "":
                    last -= 1  # a block scalar's span ends at the start of the next line
            else:
                first, last = case["seq_line"], case["seq_end_line"]
            if case["style"] == "block" and case["op"] in ("drop", "pair") and \
                    inl[first - 1][: case["item_col"] - 1].strip(" \t") not in \
                    (("",) if case["op"] == "pair" else ("", "-")):
                # a compact first entry ("- a: 1"): the next entry's line moves up into it
                last += 1
            extra = 0
            if case["style"] == "block":
                extra = belonging_comments(inl, last, indent_of(inl[first - 1]))
            if not check_lines(inl, outl, first, last, extra, last - first + 1):
                failures.append(f"{where}: lines outside {first}..{last} changed")
                if os.environ.get("SL_EDIT_VERBOSE"):
                    failures.append("".join(difflib.unified_diff(inl, outl, "in", "out")))
                continue
            if data.endswith(b"\n") != outb.endswith(b"\n"):
                failures.append(f"{where}: the final newline changed")
                continue

            # 3. the W&B schema still accepts it (removing a pair may remove a required key)
            if valid and case["op"] != "pair":
                counts["schema-checked"] += 1
                errs = list(validator.iter_errors(got))
                if errs:
                    failures.append(f"{where}: output fails the W&B schema: {errs[0].message}")

    print(f"edit-corpus{' --all' if all_mode else ''}: {counts['files']} files, {counts['cases']} cases "
          f"({counts['drop']} drop, {counts['keep']} keep, {counts['pair']} pair; positions {positions}; "
          f"styles {styles}; {counts['schema-checked']} schema-checked; {len(refused)} refused)")
    for r in refused:
        print("refused:", r)
    for f in failures[:400]:
        print("FAIL:", f)
    if len(failures) > 40:
        print(f"... and {len(failures) - 40} more")
    if counts["cases"] == 0:
        print("FAIL: no case was generated")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
