#!/usr/bin/python3
"""run_defects: regression tests for the defects of the November 2026 hostile pass (issue 15), TAP.

usage: run_defects.py MEASURE SWEEPLINT SANITIZED

Every input is generated here (none is copied from ../shared/hostile). Each case runs the real
binary and asserts its exit status, the finding or error it must give (positions computed from
the generated text), and, in a plain build, its cost (< 2 s, < 64 MB: wait4 rusage of the child).
Where W&B's reading matters (merge keys), the expected reading is PyYAML's own: the system
/usr/bin/python3 with yaml is asked, and the case is skipped when it is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

MEASURE, SWEEPLINT, SANITIZED, TIME_BOUND, RSS_BOUND = common.args()
GPU = ["-g", "24GiB"]
tap = common.Tap()
check = tap.check


def run(args, cwd=None, timeout=60):
    """(rc, stdout, stderr, seconds, max_rss_bytes, cpu_seconds) of one run, through tests/hostile/measure.c
    (common.run: forked from a small parent, so the peak RSS is the child's own, not a copy of this Python's)."""
    return common.run(MEASURE, SWEEPLINT, args, cwd=cwd, timeout=timeout, home=cwd or "/nonexistent")


def cheap(secs, rss):
    """secs: CPU time (user + system), steadier than wall time on a machine shared by many builds."""
    return secs < TIME_BOUND and rss < RSS_BOUND


def pyyaml(text):
    """PyYAML's safe_load of text as JSON-able data, or None when the system PyYAML is missing."""
    if not os.path.exists("/usr/bin/python3"):
        return None
    p = subprocess.run(["/usr/bin/python3", "-c", "import json,sys,yaml; print(json.dumps(yaml.safe_load(sys.stdin)))"],
                       input=text.encode(), capture_output=True)
    if p.returncode != 0:
        return None
    import json
    return json.loads(p.stdout)


def where(text, needle, nth=1):
    """1-based line and column of the nth occurrence of needle in text."""
    at = -1
    for _ in range(nth):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    return line, col


def cost(args, runs):
    """Least CPU time and median RSS of runs of one command (CPU time, not wall: the machine is shared)."""
    results = [run(args) for _ in range(runs)]
    return (min(r.cpu for r in results), sorted(r.rss for r in results)[runs // 2],
            {r.rc for r in results})


def growth(name, make, args_of, n, base_args):
    """CPU time and peak RSS of inputs of size 2n and 4n, less those of a trivial run: linear costs
    double, quadratic ones quadruple; the check asks for < 3x (common.doubling: best of 3 runs, and a
    ratio past 3 measured again at twice the sizes) and every run to exit 0 or 1 (a crash is not
    linear). Increments under 0.05 s (0.25 s under the sanitizers, as run_growth) or 2 MB count as that
    much. Under the sanitizers the inputs are a quarter of the size."""
    if SANITIZED:
        n = max(n // 4, 1)
    d = common.doubling(cost, lambda k: args_of(make(k)), n, base_args, floor_s=0.25 if SANITIZED else 0.05)
    check(f"{name}: doubling the input multiplies the time and memory by {d.rt:.1f} and {d.rm:.1f} (< 3: linear)",
          d.rt < 3 and d.rm < 3 and not d.rcs - {0, 1}, d.why)


def many_axes(n, key="a{i}.per_device_train_batch_size", model=True):
    lines = ["method: grid", "parameters:"]
    if model:
        lines.append("  model_name_or_path: {value: gpt2}")
    for i in range(n):
        lines.append("  " + key.format(i=i) + ": {values: [1, 2]}")
    return "\n".join(lines) + "\n"


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # 1. 64 two-valued memory parameters overflowed the axis product (SIGSEGV); 30 took 61 s, 2.1 GB
        for n in (22, 30, 64, 100):
            path = os.path.join(tmp, f"axes{n}.yaml")
            text = many_axes(n)
            open(path, "w").write(text)
            rc, out, err, _, rss, secs = run(GPU + [path])
            # the bound (include/sweeplint/eval.h): 75 M / axes combinations, within [2^20, 2^24];
            # the finding sits at the axis whose two values take the product past it
            bound = min(max(75000000 // n, 1 << 20), 1 << 24)
            first = next(i for i in range(n) if 2 ** (i + 1) > bound)
            line, col = where(text, f"a{first}.per_device_train_batch_size")
            want = f"{path}:{line}:{col}: warning: {n} memory-relevant parameters make "
            ok = rc == 0 and want in out and "[too-many-combinations]" in out and cheap(secs, rss)
            check(f"{n} two-valued batch parameters: too-many-combinations at axis {first + 1}, exit 0, cheap", ok,
                  f"rc {rc}, {secs:.2f} s, {rss >> 20} MB, want {want!r}; got {out[-600:]!r} {err[-300:]!r}")
        # the same through a project config whose key pattern gives every key a role
        d = os.path.join(tmp, "project")
        os.makedirs(os.path.join(d, ".git"))
        open(os.path.join(d, ".sweeplint.yaml"), "w").write("keys:\n  - {pattern: '.', role: batch_size}\n")
        text = many_axes(64, key="lr{i}", model=False)
        open(os.path.join(d, "sweep.yaml"), "w").write(text)
        rc, out, err, _, rss, secs = run(GPU + ["sweep.yaml"], cwd=d)
        check("64 keys given the batch role by a .sweeplint.yaml pattern: a finding, no crash",
              rc in (0, 1) and "[too-many-combinations]" in out and cheap(secs, rss),
              f"rc {rc}, {secs:.2f} s, {rss >> 20} MB: {out[-400:]!r} {err[-400:]!r}")

        # 2. merge keys: the effective mapping is PyYAML's (the last `<<` wins; in a list, the first)
        cases = {
            "two-merge-keys": ("  per_device_train_batch_size:\n    <<: *small\n    <<: *big\n", "4096"),
            "list-first-wins": ("  per_device_train_batch_size:\n    <<: [*big, *small]\n", "4096"),
            "list-first-wins-small": ("  per_device_train_batch_size:\n    <<: [*small, *big]\n", "4096"),
            "last-merge-small": ("  per_device_train_batch_size:\n    <<: *big\n    <<: *small\n", "4096"),
            "explicit-wins": ("  per_device_train_batch_size:\n    <<: *small\n    values: [8, 4096]\n    <<: *small\n",
                              "4096"),
        }
        for name, (body, big) in cases.items():
            text = ("method: grid\nparameters:\n  model_name_or_path: {values: [roberta-large]}\n"
                    "  learning_rate: &small {values: [8]}\n  max_steps: &big {values: [8, 4096]}\n" + body)
            data = pyyaml(text)
            if data is None:
                check(f"merge keys ({name}) as PyYAML reads them", True, skip="no /usr/bin/python3 with yaml")
                continue
            values = data["parameters"]["per_device_train_batch_size"]["values"]
            path = os.path.join(tmp, name + ".yaml")
            open(path, "w").write(text)
            rc, out, err, _, rss, secs = run(GPU + [path])
            oom = f"per_device_train_batch_size {big} runs out of memory" in out
            check(f"merge keys ({name}): PyYAML reads {values}, sweeplint agrees",
                  (rc == 1 and oom) == (int(big) in values) and cheap(secs, rss), f"rc {rc}: {out!r} {err!r}")

        # 12. split -c: never write over an input; existing files only with --force
        d = os.path.join(tmp, "split")
        os.makedirs(d)
        base = "model_name_or_path: base\nper_device_train_batch_size: 8\n"
        sweep = ("method: grid\nparameters:\n  model_name_or_path:\n    values: [base, roberta-base]\n"
                 "  per_device_train_batch_size: {values: [8, 16]}\n")
        open(os.path.join(d, "sweep.base.yaml"), "w").write(base)
        open(os.path.join(d, "sweep.yaml"), "w").write(sweep)
        args = GPU + ["--by", "model_name_or_path", "-c", "sweep.base.yaml", "sweep.yaml"]
        for force in ([], ["--force"]):
            rc, out, err, _, rss, secs = run(["split"] + force + args, cwd=d)
            check(f"split {' '.join(force)} whose output is its own -c config: exit 2, nothing written",
                  rc == 2 and "will not write 'sweep.base.yaml'" in err and
                  open(os.path.join(d, "sweep.base.yaml")).read() == base and
                  sorted(os.listdir(d)) == ["sweep.base.yaml", "sweep.yaml"], f"rc {rc}: {err!r} {os.listdir(d)}")
        out_dir = os.path.join(tmp, "split-out")
        os.makedirs(out_dir)
        other = os.path.join(out_dir, "sweep.roberta-base.yaml")
        open(other, "w").write("keep me\n")
        shutil.copy(os.path.join(d, "sweep.yaml"), os.path.join(tmp, "sweep.yaml"))
        args = GPU + ["--by", "model_name_or_path", "-o", out_dir, os.path.join(tmp, "sweep.yaml")]
        rc, out, err, _, rss, secs = run(["split"] + args)
        check("split onto an existing file without --force: exit 2, nothing written",
              rc == 2 and "already exists (--force replaces it)" in err and open(other).read() == "keep me\n" and
              os.listdir(out_dir) == ["sweep.roberta-base.yaml"], f"rc {rc}: {err!r} {os.listdir(out_dir)}")
        rc, out, err, _, rss, secs = run(["split", "--force"] + args)
        check("split --force replaces the existing file", rc == 0 and open(other).read() != "keep me\n" and
              len(os.listdir(out_dir)) == 2, f"rc {rc}: {err!r}")

        def write(name, text):
            path = os.path.join(tmp, name)
            open(path, "w").write(text)
            return path

        # 14. JSON configs bounded before jansson builds them (8.3 M values: 343 MB); FIFOs, devices and
        # directories given as sweeps or configs are refused at once (a FIFO without a writer blocked)
        sweep = write("json-sweep.yaml", "method: grid\nparameters:\n  model_name_or_path: {values: [roberta-base]}\n"
                      "  per_device_train_batch_size: {values: [8, 16]}\n")
        n = 150000 if not SANITIZED else 120000
        big = write("big.json", '{"x": [' + ",".join(["0"] * n) + "]}\n")
        # the count (1, then one per '{', ':', '[' and ','; sweeplint/json_bound.h) passes 100,000 at comma k
        k = 100000 + 1 - 4
        col = len('{"x": [') + 2 * k
        rc, out, err, _, rss, secs = run(["-q", "-c", big, sweep])
        want = f"{big}:1:{col}: error: invalid JSON: more than 100000 values in the document [config]"
        check("-c JSON config of 150,000 values: refused at the value past the bound, exit 2, cheap",
              rc == 2 and want in out and cheap(secs, rss), f"rc {rc}, {secs:.2f} s, {rss >> 20} MB, want {want!r}: "
              f"{out[:400]!r} {err[:300]!r}")
        mdir = os.path.join(tmp, "bigmodel")
        os.makedirs(mdir)
        open(os.path.join(mdir, "config.json"), "w").write('{"model_type": "bert", "x": [' + ",".join(["1"] * n) + "]}\n")
        msweep = write("bigmodel.yaml", f"method: grid\nparameters:\n  model_name_or_path: {{value: {mdir}}}\n"
                       "  per_device_train_batch_size: {values: [8, 16]}\n")
        rc, out, err, _, rss, secs = run(["-q", msweep])
        check("a model config.json of 150,000 values: its finding says the bound, cheap",
              "more than 100000 values" in out + err and cheap(secs, rss),
              f"rc {rc}, {secs:.2f} s, {rss >> 20} MB: {out[:400]!r} {err[:300]!r}")
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        fdir = os.path.join(tmp, "fifomodel")
        os.makedirs(fdir)
        os.mkfifo(os.path.join(fdir, "config.json"))
        fsweep = write("fifomodel.yaml", f"method: grid\nparameters:\n  model_name_or_path: {{value: {fdir}}}\n"
                       "  per_device_train_batch_size: {values: [8, 16]}\n")
        for what, args, rcs in (("the sweep", [fifo], (2,)), ("-c", ["-c", fifo, sweep], (2,)),
                                ("--config-file", ["--config-file", fifo, sweep], (2,)),
                                ("fix's sweep", ["fix", fifo], (2,)),
                                ("split -c", ["split", "--by", "model_name_or_path", "--dry-run", "-c", fifo, sweep], (2,)),
                                ("a model's config.json", [fsweep], (1,))):
            for name, path in (("a FIFO", fifo), ("/dev/zero", "/dev/zero"), ("a directory", tmp)):
                if what == "a model's config.json" and name != "a FIFO":
                    continue
                a = [path if x == fifo else x for x in args]
                a = a[:1] + GPU + a[1:] if a[0] in ("fix", "split") else GPU + a
                rc, out, err, wall, rss, secs = run(a, timeout=5)
                why = "not a regular file" if name != "a directory" else "s a directory"
                check(f"{name} as {what}: refused at once ('{why}'), exit {rcs}",
                      rc in rcs and why in out + err and wall < 4, f"rc {rc}, {wall:.2f} s: {out[:400]!r} {err[:300]!r}")

        # 10, 11: split on ranges evaluated at their bounds (the lowered bound's new combinations were
        # counted as lost ones: exit 70) and on anchored values an alias still uses (the alias was left
        # undefined: exit 70). Each written sweep must load in PyYAML with the aliased keys unchanged.
        head = "method: random\nparameters:\n"
        cases = {
            "bounds-exact": (head + "  model_name_or_path: {value: bert-base-uncased}\n"
                             "  per_device_train_batch_size: {distribution: int_uniform, min: 1, max: 100000}\n",
                             ["--exact"], []),
            "bounds-by": (head + "  model_name_or_path: {values: [roberta-large, roberta-base]}\n"
                          "  per_device_train_batch_size: {distribution: int_uniform, min: 1, max: 100000}\n"
                          "  max_seq_length: {values: [128, 512]}\n", ["--by", "model_name_or_path"], []),
            "bounds-by-exact": (head + "  model_name_or_path: {values: [roberta-large, roberta-base]}\n"
                                "  per_device_train_batch_size: {distribution: int_uniform, min: 1, max: 100000}\n"
                                "  max_seq_length: {values: [128, 512]}\n",
                                ["--exact", "--by", "model_name_or_path"], []),
            "anchor-by": ("method: grid\nparameters:\n  model_name_or_path: {values: [&m roberta-large, roberta-base]}\n"
                          "  tokenizer_name: {value: *m}\n  extra: [*m, x]\n"
                          "  per_device_train_batch_size: {values: [8, 64]}\n", ["--by", "model_name_or_path"],
                          ["tokenizer_name", "extra"]),
            "anchor-tagged-by": ("method: grid\nparameters:\n"
                                 "  model_name_or_path:\n    values:\n      - !!str &m roberta-large\n"
                                 "      - roberta-base\n  tokenizer_name: {value: *m}\n  other: {value: *m}\n"
                                 "  per_device_train_batch_size: {values: [8, 64]}\n", ["--by", "model_name_or_path"],
                                 ["tokenizer_name", "other"]),
            "anchor-exact": ("method: grid\nparameters:\n  model_name_or_path: {values: [roberta-large]}\n"
                             "  per_device_train_batch_size: {values: [8, &big 256]}\n"
                             "  per_device_eval_batch_size: {value: *big}\n", ["--exact"],
                             ["per_device_eval_batch_size"]),
        }
        for name, (text, how, aliased) in cases.items():
            d = os.path.join(tmp, "split-" + name)
            os.makedirs(d)
            path = os.path.join(d, "sweep.yaml")
            open(path, "w").write(text)
            out_dir = os.path.join(d, "out")
            rc, out, err, _, rss, secs = run(["split", *GPU, *how, "-o", out_dir, path])
            written = sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []
            ok = rc in (0, 1) and written and cheap(secs, rss)
            why = f"rc {rc}, {secs:.2f} s: {err[-500:]!r}"
            original = pyyaml(text)
            if ok and original is not None:
                for f in written:
                    part = pyyaml(open(os.path.join(out_dir, f)).read())
                    if part is None:
                        ok, why = False, f"{f} does not load in PyYAML"
                        break
                    for key in aliased:
                        if part["parameters"][key] != original["parameters"][key]:
                            ok, why = False, f"{f}: {key} reads {part['parameters'][key]!r}, was {original['parameters'][key]!r}"
            check(f"split {' '.join(how)} ({name}): works (exit 0/1, {len(written)} sweeps), each loads in PyYAML with "
                  "its aliases' values", ok, why)

        # 3-5, 17: the output formats and rewrites grow linearly with their input
        tiny = write("tiny.yaml", "method: grid\nparameters:\n  a: {values: [1, 2]}\n")
        growth("-f sarif over n unknown top-level keys (a schema finding each)",
               lambda n: write(f"sarif{n}.yaml", "method: grid\n" + "".join(f"k{i:06d}: 0\n" for i in range(n))),
               lambda p: ["-q", "-f", "sarif", p], 5000, ["-f", "sarif", tiny])
        # split --by over many model values: 2,000 took 565 MB before (a piece array grown one by one,
        # every walk allocating the whole axis); a part's cost no longer grows with the list (run_growth.py).
        # 1,000 values are past --max-files' default (256): allowed here
        path = write("split1000.yaml", "method: grid\nparameters:\n  model_name_or_path:\n    values: [" +
                     ", ".join(f"m{i}" for i in range(1000)) + "]\n  per_device_train_batch_size: {values: [8, 16]}\n")
        rc, out, err, _, rss, secs = run(["split", "-q", *GPU, "--max-files", "1000", "--by", "model_name_or_path",
                                          "--dry-run", path])
        check("split --by over 1,000 values: exit 0, < 2 s, < 64 MB", rc == 0 and cheap(secs, rss),
              f"rc {rc}, {secs:.2f} s, {rss >> 20} MB: {err[-300:]!r}")
        growth("duplicate-value over n one-item lists",
               lambda n: write(f"dup{n}.yaml", "method: grid\nparameters:\n  p:\n    values: [" +
                               ", ".join(f"[{i}]" for i in range(n)) + "]\n"),
               lambda p: ["-q", p], 20000, ["-q", tiny])
        sweep = write("set-sweep.yaml", "method: grid\nparameters:\n  model_name_or_path: {values: [roberta-base]}\n"
                      "  per_device_train_batch_size: {values: [8, 16]}\n")
        growth("n --set flags of one key",
               lambda n: [a for i in range(n) for a in ("--set", f"per_device_train_batch_size={i + 1}")],
               lambda flags: ["-q", *flags, sweep], 4000, ["-q", sweep])
        growth("n --set flags of distinct keys",
               lambda n: [a for i in range(n) for a in ("--set", f"a{i}.per_device_train_batch_size={i + 1}")],
               lambda flags: ["-q", *flags, sweep], 4000, ["-q", sweep])
        growth("n -c of one config",
               lambda n: [a for i in range(n) for a in ("-c", sweep)],
               lambda flags: ["-q", *flags, sweep], 4000, ["-q", sweep])

        # 6. a project key pattern that backtracks: a config error at the key, fast
        d = os.path.join(tmp, "regex")
        os.makedirs(os.path.join(d, ".git"))
        open(os.path.join(d, ".sweeplint.yaml"), "w").write("keys:\n  - {pattern: '(a|aa)+$', role: batch_size}\n")
        text = "method: grid\nparameters:\n" + "".join(f"  {'a' * 28}x{i}: {{values: [1, 2]}}\n" for i in range(64))
        open(os.path.join(d, "sweep.yaml"), "w").write(text)
        rc, out, err, _, rss, secs = run(GPU + ["sweep.yaml"], cwd=d)
        line, col = where(text, "a" * 28 + "x0")
        want = f"sweep.yaml:{line}:{col}: error: key pattern '(a|aa)+$' (.sweeplint.yaml) passes PCRE2's match limit"
        check("a backtracking project key pattern: a config error at the first key it gives up on, cheap",
              rc == 1 and want in out and cheap(secs, rss), f"rc {rc}, {secs:.2f} s: {out[:600]!r} {err[:300]!r}")

        # 15. integers past 2^63 compared exactly (Python's int == int and int == float), not as doubles
        vals = ["9223372036854775807", "9223372036854775808", "0x8000000000000000", "9223372036854775808.0",
                "9223372036854775809", "18446744073709551616", "18446744073709551617", "1.8446744073709552e+19",
                "-9223372036854775808", "-9223372036854775809", "170141183460469231731687303715884105727",
                "170141183460469231731687303715884105728"]
        text = "method: grid\nparameters:\n  seed:\n    values: [" + ", ".join(vals) + "]\n"
        data = pyyaml(text)
        if data is None:
            check("big integers as PyYAML compares them", True, skip="no /usr/bin/python3 with yaml")
        else:
            items = data["parameters"]["seed"]["values"]
            want = set()
            for i in range(len(items)):
                if any(items[j] == items[i] for j in range(i)):
                    want.add(where(text, vals[i])[1])
            path = write("bigint.yaml", text)
            rc, out, err, _, rss, secs = run([path])
            got = {int(l.split(":")[2]) for l in out.splitlines() if l.endswith("[duplicate-value]")}
            check("big integers: duplicate-value exactly where PyYAML's values are equal", got == want,
                  f"want columns {sorted(want)}, got {sorted(got)}: {out!r}")

        # 9, 16: tags on collections and collection keys, accepted iff PyYAML's safe_load accepts them
        bodies = ["!!seq {values: [8, 16]}", "!!map {values: [8, 16]}", "!mytag {values: [1, 2]}",
                  "! {values: [1, 2]}", "{values: !!seq [1, 2]}", "{values: !!map [1, 2]}",
                  "{values: !!set [1, 2]}", "{values: !!omap [1, 2]}", "{values: [1, 2], !!str x: 1}",
                  "{values: [1, 2], ? [a, b] : 1}", "{values: [1, 2], ? {a: 1} : 1}", "!!str {values: [1, 2]}"]
        for body in bodies:
            text = "method: grid\nparameters:\n  lr: " + body + "\n"
            p = subprocess.run(["/usr/bin/python3", "-c", "import sys,yaml; yaml.safe_load(sys.stdin)"],
                               input=text.encode(), capture_output=True)
            if p.returncode not in (0, 1) or b"No module named" in p.stderr:
                check(f"acceptance of {body!r} as PyYAML", True, skip="no /usr/bin/python3 with yaml")
                continue
            path = write("tag.yaml", text)
            rc, out, err, _, rss, secs = run([path])
            rejected = "[syntax]" in out
            check(f"acceptance of {body!r}: PyYAML {'rejects' if p.returncode else 'accepts'}, so does sweeplint",
                  rejected == (p.returncode != 0), f"rc {rc}: {out!r}")

        # 13. control characters from input never reach the terminal raw (ESC, BEL, C1, DEL), and a newline
        # in a value or key cannot start a line of its own in a message
        evil = "x\\e]0;PWNED\\a\\e[2J\\x9b31m\\x7f\\nFORGED: error"
        d = os.path.join(tmp, "escape")
        os.makedirs(d)
        texts = {
            "value": "method: grid\nparameters:\n  model_name_or_path: {values: [roberta-base, \"" + evil + "\"]}\n"
                     "  per_device_train_batch_size: {values: [8, 16]}\n",
            "key": "method: grid\nparameters:\n  model_name_or_path: {values: [roberta-large]}\n"
                   "  \"" + evil + ".per_device_train_batch_size\": {values: [8, 256]}\n",
            "by": "method: grid\nparameters:\n  model_name_or_path: {values: [roberta-large]}\n"
                  "  per_device_train_batch_size: {values: [8, 256]}\n  \"" + evil + "\": {values: [a, \"" + evil + "\"]}\n",
        }
        for name, text in texts.items():
            path = os.path.join(d, name + ".yaml")
            open(path, "w").write(text)
            key = "model_name_or_path" if name != "by" else evil.replace("\\e", "\x1b").replace("\\a", "\x07").replace(
                "\\x9b", "\x9b").replace("\\x7f", "\x7f").replace("\\n", "\n")
            for args in ([path], ["-v", path], ["fix", path], ["split", "--dry-run", "--by", key, path],
                         ["split", "--dry-run", "--exact", path], ["-f", "github", path]):
                a = args[:1] + GPU + args[1:] if args[0] in ("fix", "split") else GPU + args
                rc, out, err, _, rss, secs = run(a)
                both = out + err
                raw = [c for c in both if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]
                forged = [l for l in both.splitlines() if l.startswith("FORGED")]
                check(f"control characters in a {name} ({' '.join(args[:-1]) or 'check'}): none raw, no forged line, "
                      f"exit {rc}", not raw and not forged and rc in (0, 1, 2),
                      f"raw {sorted(set(raw))!r}, forged {forged[:2]!r}: {both[:600]!r}")

        # 13 (stdout): a model path or a project model's name reaches the text of estimate, fit and models
        mdir = os.path.join(d, "m" + "x\x1b]0;PWNED\x07\x1b[2J\xc2\x9b\x7fy")
        os.makedirs(mdir)
        open(os.path.join(mdir, "config.json"), "w").write(
            '{"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,'
            ' "intermediate_size": 3072, "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2}')
        for args in (["estimate", "model=" + mdir, "batch_size=8"], ["fit", "model=" + mdir], ["models", mdir]):
            rc, out, err, _, rss, secs = run(args)
            both = out + err
            raw = [c for c in both if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f]
            check(f"control characters in a model path ({args[0]}): none raw on stdout, the path escaped, exit 0",
                  rc == 0 and not raw and "\\x1b]0;PWNED" in out, f"rc {rc}, raw {sorted(set(raw))!r}: {both[:400]!r}")

        # values: [] — W&B refuses the sweep (minItems 1): fix and split refuse it, nothing written
        text = ("method: grid\nparameters:\n  model_name_or_path: {values: [roberta-base, roberta-large]}\n"
                "  per_device_train_batch_size: {values: []}\n")
        d = os.path.join(tmp, "empty-values")
        os.makedirs(d)
        path = os.path.join(d, "sweep.yaml")
        open(path, "w").write(text)
        line, col = where(text, "[]")
        for args in (["fix", "-i"], ["split", "--exact"], ["split", "--by", "model_name_or_path"]):
            rc, out, err, _, rss, secs = run([args[0], *GPU, *args[1:], path])
            want = f"{path}:{line}:{col}: error: values of 'per_device_train_batch_size' must not be empty"
            check(f"values: [] ({' '.join(args)}): exit 2 at the empty list, nothing written",
                  rc == 2 and want in err and os.listdir(d) == ["sweep.yaml"] and open(path).read() == text,
                  f"rc {rc}: {err[-400:]!r} {os.listdir(d)}")

        # --set over a sweep's list: the finding's worst combination names the value the run uses and where
        # it comes from, not the sweep's (it read "worst: per_device_train_batch_size 8" for a --set of 10000)
        path = write("set-blame.yaml", "method: grid\nparameters:\n  model_name_or_path: {values: [roberta-base, "
                     "roberta-large]}\n  per_device_train_batch_size: {values: [8, 16]}\n  max_seq_length: {values: [128, 256]}\n")
        rc, out, err, _, rss, secs = run([*GPU, "--set", "per_device_train_batch_size=10000", path])
        worst = [l.split("worst: ")[1].split(" needs")[0] for l in out.splitlines() if "worst: " in l]
        check("--set per_device_train_batch_size=10000 over the sweep's [8, 16]: the worst combination says 10000 (--set)",
              rc == 1 and worst and all("per_device_train_batch_size 10000 (--set)" in w for w in worst) and
              "per_device_train_batch_size 8 " not in out and "per_device_train_batch_size 16 " not in out.replace(
                  "per_device_train_batch_size 16 with", ""), f"rc {rc}: {out!r}")

        # --gpus 65536: host RAM is per node (nodes of at most 8 GPUs unless told), not one node of 65,536 GPUs
        import re as _re
        host = {}
        for n in ("8", "65536"):
            rc, out, err, _, rss, secs = run(["estimate", "model=bert-base-uncased", "batch_size=8", "--gpus", n])
            m = _re.search(r"^host RAM per node.*?: ([\d.]+) GiB", out, _re.M)
            host[n] = float(m.group(1)) if rc == 0 and m else None
        check("--gpus 65536: host RAM per node as for a node of 8 GPUs (was 4 million GiB), the node count said",
              host["8"] is not None and host["65536"] == host["8"] and "8192 nodes" in out, f"{host}: {out[-300:]!r}")
        # a saturated estimate (terms past 2^64 bytes are clamped): no shares, not two terms at 100 %
        rc, out, err, _, rss, secs = run(["estimate", "model=bert-base-uncased", "batch_size=4294967296",
                                          "seq_len=4294967296"])
        shares = [float(x) for x in _re.findall(r"([\d.]+)%$", out, _re.M)]
        check("a saturated estimate: no term's share printed as 100 % twice, the total said to be saturated",
              rc in (0, 1) and shares.count(100.0) < 2 and sum(shares) <= 100.5 and "saturated" in out,
              f"rc {rc}, shares {shares}: {out[:700]!r}")

        # 8. tabs: PyYAML's scanner takes only spaces between tokens (a tab outside quotes, block scalar
        # text and comments fails safe_load), libyaml takes tabs too. A tab inserted at, and put in place
        # of, every byte of a sweep: sweeplint's syntax verdict and position equal PyYAML's. One known
        # difference the other way: a tab in a block scalar's indentation, which PyYAML reads as text and
        # libyaml refuses (sweeplint is stricter there; docs/reliability.md)
        base = ("# a sweep\nmethod: grid   # comment\nname: 'it''s \"q\"'\nparameters:\n"
                "  model_name_or_path:\n    values: [roberta-base, \"x y\"]\n"
                "  lr: {min: 0.1, max: 0.2}\n  notes: |\n    a b\n      c\n  d:\n    - 1\n    - [2, 3]\n"
                "  e: plain words # c\n")
        texts, at = [], []
        for i in range(len(base) + 1):
            texts.append(base[:i] + "\t" + base[i:])
            at.append(i)
            if i < len(base) and base[i] != "\n":
                texts.append(base[:i] + "\t" + base[i + 1:])
                at.append(i)
        body = range(base.index("    a b"), base.index("  d:"))
        tabdir = os.path.join(tmp, "tabs")
        os.makedirs(tabdir)
        paths = []
        for n, t in enumerate(texts):
            paths.append(os.path.join(tabdir, f"t{n:04d}.yaml"))
            open(paths[-1], "w").write(t)
        script = ("import json,sys,yaml\nout=[]\nfor p in sys.argv[1:]:\n  try:\n    yaml.safe_load(open(p))\n"
                  "    out.append(None)\n  except yaml.MarkedYAMLError as e:\n"
                  "    m=e.problem_mark\n    out.append([m.line+1,m.column+1])\n  except yaml.YAMLError:\n"
                  "    out.append([0,0])\nprint(json.dumps(out))\n")
        p = subprocess.run(["/usr/bin/python3", "-c", script] + paths, capture_output=True)
        if p.returncode != 0:
            check("tabs as PyYAML reads them", True, skip="no /usr/bin/python3 with yaml")
        else:
            import json
            want = json.loads(p.stdout)
            rc, out, err, _, rss, secs = run(["-q"] + paths)
            got = {}
            for line in out.splitlines():
                if line.endswith("[syntax]"):
                    f, l, c = line.split(":")[:3]
                    got.setdefault(f, [int(l), int(c)])
            bad = [(os.path.basename(f), w, got.get(f)) for f, w, i in zip(paths, want, at)
                   if ((w is None) != (f not in got) or (w and w != [0, 0] and w != got.get(f))) and
                   not (w is None and i in body)]
            known = sum(w is None and f in got and i in body for f, w, i in zip(paths, want, at))
            rejected = sum(w is not None for w in want)
            check(f"tabs: {len(texts)} sweeps with a tab put at each byte: acceptance and position as PyYAML "
                  f"({rejected} rejected; {known} stricter in a block scalar's indentation)",
                  not bad and rejected > 0 and "AddressSanitizer" not in err,
                  f"{len(bad)} differ, first: {bad[:5]} {err[-300:]!r}")

    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
