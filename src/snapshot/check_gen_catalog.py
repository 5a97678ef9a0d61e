#!/usr/bin/python3
"""check_gen_catalog: a bad catalog fails the build with the diagnostic's path:line:col.

Runs gen_catalog (the build-time snapshot generator) on copies of rules/*.yaml with one defect
each and checks that it exits non-zero, names the file, line and column of the defect, and
writes no output; then on the real files, which must pass.

usage: check_gen_catalog.py GEN_CATALOG RULES_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

FILES = ["models.yaml", "gpus.yaml", "calibration.yaml", "keys.yaml", "words.yaml", "workload.yaml", "frameworks.yaml"]


def line_col(text, offset):
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def run(gen, d, out):
    return subprocess.run([gen, out] + [os.path.join(d, f) for f in FILES], capture_output=True, text=True)


def main():
    gen, rules = sys.argv[1], sys.argv[2]
    failures = 0
    # (file, text to replace, replacement, message expected, point at the replacement's first character)
    cases = [
        ("models.yaml", "family: xlm-roberta", "family: xlm-robertaa", "unknown family 'xlm-robertaa'", 8),
        ("gpus.yaml", "memory: 81082MiB", "memory: lots", "invalid memory size 'lots'", 8),
        ("models.yaml", "aliases: ['bge[-_]?m3'", "aliases: ['bge[-_?m3'", "invalid alias pattern 'bge[-_?m3'", 10),
        ("calibration.yaml", "unit: MiB", "unit: KiB", "has unit 'KiB', expected 'MiB'", None),
        ("keys.yaml", "role: eval_batch_size", "role: eval_batch", 'unknown role "eval_batch"', None),
        ("words.yaml", "role: eval_batch_size", "role: eval_batchsize", "an entry needs a known role", 6),
        ("words.yaml", "may: [per, device, gpu, micro, size]", "may: per", "may is a list of words", 5),
        ("workload.yaml", "'(^|[._-])(do_eval|", "'(^|[._-](do_eval|", "not a PCRE2 pattern", 0),
        ("frameworks.yaml", "keys: [sft_type]", "keys: sft_type", "keys and commands are lists of names", None),
    ]
    print("1..%d" % (len(cases) + 1))
    for n, (name, old, new, message, col_shift) in enumerate(cases, 1):
        with tempfile.TemporaryDirectory() as d:
            for f in FILES:
                shutil.copy(os.path.join(rules, f), d)
            path = os.path.join(d, name)
            text = open(path, encoding="utf-8").read()
            at = text.find(old)
            assert at >= 0, (name, old)
            text = text[:at] + new + text[at + len(old):]
            open(path, "w", encoding="utf-8").write(text)
            out = os.path.join(d, "out.c")
            p = run(gen, d, out)
            where = path + ":"
            if col_shift is not None:
                line, col = line_col(text, at + col_shift)
                where = "%s:%d:%d: error: " % (path, line, col)
            ok = p.returncode != 0 and where in p.stderr and message in p.stderr and not os.path.exists(out)
            print("%s %d - %s: %s" % ("ok" if ok else "not ok", n, name, message))
            if not ok:
                failures += 1
                print("# expected %r and %r, rc %d, stderr:\n# %s" % (where, message, p.returncode,
                                                                        p.stderr.replace("\n", "\n# ")))
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.c")
        p = run(gen, rules, out)
        ok = p.returncode == 0 and not p.stderr and os.path.getsize(out) > 0
        print("%s %d - the real catalogs load" % ("ok" if ok else "not ok", len(cases) + 1))
        if not ok:
            failures += 1
            print("# rc %d: %s" % (p.returncode, p.stderr))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
