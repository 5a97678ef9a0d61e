#!/usr/bin/python3
"""run_fresh: the defects of the second hostile pass over sweeplint (issue 15's "re-run its hostile pass
with inputs you have not seen"), each a regression case that fails on the code before its fix (TAP).

usage: run_fresh.py MEASURE SWEEPLINT SANITIZED

Inputs are generated here. Every run must end with exit 0/1/2 (never a signal or 70) within the cost bounds
(< 2 s wall and < 64 MB in a plain build; 20 s and 1 GiB under the sanitizers), and print no character a
terminal must not receive raw (common.RAW: C0 but newline and tab, DEL, C1, bidi controls, U+2028/U+2029,
invalid UTF-8) on stdout or stderr, except where stdout is the user's own file (fix's output, a diff's body).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

MEASURE, SWEEPLINT, SANITIZED, TIME_BOUND, RSS_BOUND = common.args()
GPU = ["-g", "24GiB"]
tap = common.Tap()

# what a hostile string holds: an OSC title, BEL, a screen clear, RLO, LRI, CSI as C1, a line separator
HOSTILE = "\x1b]0;pwn\x07\x1b[2J\u202e\u2066\u0085\u009b31m\u2028x"
BAD_UTF8 = b"\xff\xfe\xc3"  # bytes that are not UTF-8 (a file name, an argument)


def run(args, **kw):
    return common.run(MEASURE, SWEEPLINT, args, **kw)


def sane(r, name, rcs=(0, 1, 2), stdout_is_input=False):
    """Exit status in rcs, not a signal/70, within the bounds, nothing raw on stderr (and stdout)."""
    problems = []
    if r.rc not in rcs:
        problems.append(f"exit {r.rc}, want {rcs}")
    if r.rc == 2 and "error" not in r.err:
        problems.append("exit 2 without an error: line")
    if r.wall >= TIME_BOUND or r.rss >= RSS_BOUND:
        problems.append(f"{r.wall:.2f} s, {r.rss >> 20} MB")
    for stream, text in (("stderr", r.err), ("stdout", "" if stdout_is_input else r.out)):
        c = common.raw_char(text)
        if c:
            problems.append(f"raw {c} on {stream}")
    return tap.check(name, not problems, "; ".join(problems) + f"\nstdout {r.out[-600:]!r}\nstderr {r.err[-600:]!r}")


def write(path, text):
    with open(path, "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
    return path


def yaml_dq(s):
    """s as a YAML double-quoted scalar (every non-ASCII or control character escaped)."""
    return json.dumps(s, ensure_ascii=True)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        grid = open(os.path.join(common.ROOT, "fixtures/cli/fix/grid.yaml")).read()
        hostile_sweep = (grid.replace("name: roberta-grid", f"name: {yaml_dq('grid' + HOSTILE)}") +
                         f"  {yaml_dq('k' + HOSTILE)}:\n    values: [{yaml_dq(HOSTILE)}, 2]\n"
                         f"  notes: {{value: {yaml_dq('m' + HOSTILE)}}}\n")
        plain = write(os.path.join(tmp, "hostile.yaml"), hostile_sweep)
        named = write(os.path.join(tmp, "sweep" + HOSTILE + ".yaml"), hostile_sweep)
        badname = os.path.join(os.fsencode(tmp), b"bad" + BAD_UTF8 + b".yaml")
        with open(badname, "wb") as f:
            f.write(hostile_sweep.encode())
        badname = os.fsdecode(badname)

        # 1. every string from input escaped on every output: usage errors of every command and option
        H = HOSTILE
        Hb = H + os.fsdecode(BAD_UTF8)
        usage = [
            ["-g", Hb, plain], ["--gpus", H, plain], ["--headroom", H, plain], ["--host-memory", H, plain],
            ["--cores", H, plain], ["--set", Hb + "=1", plain], ["--set", "batch_size=" + Hb, plain],
            ["--set", Hb, plain], ["--set", "amp=" + H, plain], ["--rule", Hb + "=off", plain],
            ["--rule", "oom=" + H, plain], ["-f", Hb, plain], ["--color", H, plain], ["--" + Hb, plain],
            [Hb], ["-c", Hb, plain], ["--config-file", Hb, plain], ["models", Hb], ["models", "--search", Hb],
            ["gpus", Hb], ["rules", Hb], ["estimate", "model=" + Hb], ["estimate", Hb + "=1"], ["estimate", Hb],
            ["fit", "model=" + Hb], ["fix", "-o", os.path.join(tmp, "no-such-dir" + H, "x"), plain],
            ["split", "--by", Hb, "--dry-run"] + GPU + [plain],
            ["split", "--by", "model_name_or_path", "--only", Hb, "--dry-run"] + GPU + [plain],
            ["report", "-o", os.path.join(tmp, "no-such-dir" + H, "r.html"), plain],
        ]
        for args in usage:
            sane(run(args), "usage error, input escaped: sweeplint " + " ".join(args).replace(tmp, "TMP"), rcs=(2,))

        # 2. ... and findings, notes and summaries in every format, from a file named and filled with them
        for path, what in ((plain, "a sweep"), (named, "a sweep named"), (badname, "a sweep named with invalid UTF-8")):
            for fmt in ("text", "json", "sarif", "github", "html"):
                r = run(["-v", "-f", fmt] + GPU + [path])
                ok = sane(r, f"check -f {fmt} of {what} with hostile keys and values: nothing raw", rcs=(1,))
                if ok and fmt in ("json", "sarif"):
                    try:
                        json.loads(r.out)
                        tap.check(f"check -f {fmt} of {what}: still valid JSON", True)
                    except ValueError as e:
                        tap.check(f"check -f {fmt} of {what}: still valid JSON", False, str(e))
            sane(run(["report", "-o", "-"] + GPU + [path]), f"report of {what}: nothing raw in the HTML", rcs=(1,))
            sane(run(["fix", "-o", os.path.join(tmp, "fixed.yaml")] + GPU + [path]), f"fix of {what}: stderr escaped",
                 rcs=(1,))
            r = run(["fix", "--diff"] + GPU + [path])
            head = "\n".join(r.out.splitlines()[:2])
            sane(common.Result(r.rc, head, r.err, r.wall, r.rss, r.cpu), f"fix --diff of {what}: headers escaped",
                 rcs=(1,))
            for args in (["--by", "model_name_or_path"], ["--by", "k" + HOSTILE], ["--exact"]):
                sane(run(["split", "--dry-run"] + GPU + args + [path]),
                     f"split --dry-run {args[0]} of {what}: stderr escaped, not exit 70", rcs=(0, 1))
        for args in (["estimate", "model=" + tmp + "/m" + H], ["fit", "model=" + tmp + "/m" + H],
                     ["estimate", "-f", "json", "model=" + tmp + "/m" + H]):
            mdir = args[-1][len("model="):]
            os.makedirs(mdir, exist_ok=True)
            write(os.path.join(mdir, "config.json"), json.dumps(
                {"model_type": "bert", "_name_or_path": H, "hidden_size": 768, "num_hidden_layers": 12,
                 "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 30522}))
            sane(run(args + ["batch_size=8"]), f"{' '.join(args[:-1])} of a model folder named with controls: escaped")

        # 3. split of a sweep whose name holds characters YAML does not allow raw (C1, U+FEFF, U+FFFE) or
        # reads as a line break (NEL, U+2028): the part's name was spelled raw, did not parse, exit 70
        for ch, what in (("\u009b", "C1 CSI"), ("\u0085", "NEL"), ("\u2028", "U+2028"), ("\ufeff", "U+FEFF"),
                         ("\ufffe", "U+FFFE"), ("\x7f", "DEL")):
            d = os.path.join(tmp, "split-" + what.replace(" ", "-").replace("+", ""))
            os.makedirs(d)
            text = grid.replace("name: roberta-grid", f"name: {yaml_dq('grid' + ch + 'x')}")
            f = write(os.path.join(d, "sweep.yaml"), text)
            r = run(["split", "--by", "model_name_or_path", "-o", d] + GPU + [f])
            parts = sorted(x for x in os.listdir(d) if x != "sweep.yaml")
            names = []
            if r.rc in (0, 1) and parts and os.path.exists("/usr/bin/python3"):
                p = subprocess.run(["/usr/bin/python3", "-c", "import json,sys,yaml\nprint(json.dumps("
                                    "[yaml.safe_load(open(f))['name'] for f in sys.argv[1:]]))"] +
                                   [os.path.join(d, x) for x in parts], capture_output=True)
                names = json.loads(p.stdout) if p.returncode == 0 else ["PyYAML refused: " + p.stderr.decode()[-300:]]
            tap.check(f"split of a sweep named with {what}: parts written, each name as PyYAML reads it keeps it",
                      r.rc in (0, 1) and len(parts) == 2 and
                      all(isinstance(n, str) and n.startswith("grid" + ch + "x") for n in names),
                      f"rc {r.rc}: {r.err[-400:]!r}; parts {parts}; names {names!r}")

        # 4. fix --diff names the file as patch and git apply read it, whatever its name
        tool = shutil.which("patch")
        for name in ('q"uote.yaml', "back\\slash.yaml", "esc\x1b[2J.yaml", "rlo\u202e.yaml", "tab\tname.yaml"):
            d = os.path.join(tmp, "diff-" + str(abs(hash(name))))
            os.makedirs(d)
            f = write(os.path.join(d, name), grid)
            want = run(["fix", "-q"] + GPU + [name], cwd=d).out
            r = run(["fix", "-q", "--diff"] + GPU + [name], cwd=d)
            if not tool:
                tap.check(f"fix --diff of {name!r} applies", True, skip="no patch(1)")
                continue
            p = subprocess.run([tool, "-p1", "--batch", "--no-backup-if-mismatch"], input=r.out.encode(
                "utf-8", "surrogateescape"), cwd=d, capture_output=True)
            got = open(f).read()
            tap.check(f"fix --diff of a file named {name!r}: patch applies it to that file, giving fix's output; "
                      "headers escaped", p.returncode == 0 and got == want and got != grid and
                      not common.raw_char("\n".join(r.out.splitlines()[:2])),
                      f"patch {p.returncode} {p.stdout[-300:]!r} {p.stderr[-300:]!r}; headers "
                      f"{r.out.splitlines()[:2]!r}")
        # 5. split whose parts break a rule the project raised to error (single-value-list: each part of a
        # split by model has one model): exit 70 "internal error: the rewritten sweep has a new error"
        d = os.path.join(tmp, "every-rule-error")
        os.makedirs(os.path.join(d, ".git"))
        slugs = [r["slug"] for r in json.loads(run(["rules", "-f", "json"]).out)]
        write(os.path.join(d, ".sweeplint.yaml"), "rules:\n" + "".join(f"  {x}: error\n" for x in slugs if x != "syntax"))
        write(os.path.join(d, "sweep.yaml"), grid)
        for args in (["--by", "model_name_or_path", "--dry-run"], ["--exact", "--dry-run"],
                     ["--by", "model_name_or_path", "-o", "parts"]):
            r = run(["split"] + GPU + args + ["sweep.yaml"], cwd=d, home=d)
            sane(r, f"split {' '.join(args)} with every rule raised to error by .sweeplint.yaml: not exit 70",
                 rcs=(0, 1))
        tap.check("... and its parts are written", sorted(os.listdir(os.path.join(d, "parts"))) ==
                  ["sweep.roberta-base.yaml", "sweep.roberta-large.yaml"] if os.path.isdir(os.path.join(d, "parts"))
                  else False, str(os.listdir(d)))

        # 6. values: [] makes the grid empty: W&B refuses the sweep and runs nothing. check said
        # "1 combination: 1 fit" (the empty axis was left out of the product) and judged it
        text = ("method: grid\nparameters:\n  model_name_or_path: {values: [roberta-large, gpt2]}\n"
                "  per_device_train_batch_size: {values: [8, 4096]}\n  max_seq_length: {values: []}\n")
        f = write(os.path.join(tmp, "empty-axis.yaml"), text)
        r = run(GPU + [f])
        line, col = 5, text.splitlines()[4].index("[]") + 1
        tap.check("values: []: the schema error at the list, exit 1, summary '0 combinations: 0 fit, 0 oom, 0 unknown', "
                  "no memory verdict", r.rc == 1 and f"{f}:{line}:{col}: error: values of 'max_seq_length' must not be "
                  "empty" in r.out and "(0 combinations: 0 fit, 0 oom, 0 unknown)" in r.out and "[oom]" not in r.out
                  and "[grid-size]" not in r.out, f"rc {r.rc}: {r.out!r}")
        r = run(["-f", "json"] + GPU + [f])
        try:
            c = json.loads(r.out)["files"][0]["combinations"]
        except (ValueError, KeyError, IndexError):
            c = None
        tap.check("values: [] in -f json: combinations total 0, fit 0, oom 0, unknown 0",
                  c is not None and (c["total"], c["fit"], c["oom"], c["unknown"]) == (0, 0, 0, 0), f"{c}: {r.out[:300]!r}")

        # 7. nested parameters deeper than 64 levels were dropped silently, and a batch size of 4096 with
        # them: "1 fit" where W&B runs an out-of-memory batch (PyYAML and W&B read any depth)
        for depth in (65, 120, 250):
            text = "method: grid\nparameters:\n  model_name_or_path: {value: roberta-large}\n"
            ind = "  "
            for i in range(depth):
                text += ind + f"p{i}:\n" + ind + "  parameters:\n"
                ind += "    "
            text += ind + "per_device_train_batch_size: {values: [8, 4096]}\n"
            f = write(os.path.join(tmp, f"nested{depth}.yaml"), text)
            r = run(["-q"] + GPU + [f])
            line = text.count("\n")
            tap.check(f"a batch size nested {depth} parameters deep: its out-of-memory value found (line {line})",
                      r.rc == 1 and f"{f}:{line}:" in r.out and "4096 runs out of memory" in r.out,
                      f"rc {r.rc}: {r.out[-500:]!r}")

        # 8. the arena's one-off blocks were twice the current block's size and mostly unused: a 0.5 MB sweep
        # of 90,000 values reserved 505 MB of address space (exit 70 under ulimit -v 256 MB). Plain build
        # only: the sanitizers reserve terabytes of shadow address space
        f = write(os.path.join(tmp, "many-values.yaml"), "method: grid\nparameters:\n  model_name_or_path: "
                  "{value: gpt2}\n  per_device_train_batch_size: {values: [" +
                  ", ".join(str(i) for i in range(1, 90000)) + "]}\n")
        if SANITIZED:
            tap.check("90,000 values under a 256 MB address-space limit", True, skip="sanitizers reserve shadow memory")
        else:
            import resource

            def limit():
                resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))
            p = subprocess.run([SWEEPLINT, "-q"] + GPU + [f], capture_output=True, preexec_fn=limit,
                               env=common.env(), timeout=120)
            tap.check("90,000 values of one axis under a 256 MB address-space limit: checked (exit 1), not out of memory",
                      p.returncode == 1 and b"out of memory" not in p.stderr, f"rc {p.returncode}: {p.stderr[-300:]!r}")

        # 9. the language server's JSON messages carried a document's bidi and C1 characters raw
        def msg(o):
            b = json.dumps(o).encode()
            return b"Content-Length: %d\r\n\r\n" % len(b) + b
        doc = "method: grid\n" + yaml_dq("x" + HOSTILE) + ": 1\nparameters:\n  lr: {values: [1, 2]}\n"
        stream = (msg({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}) +
                  msg({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                      "uri": "file:///tmp/x%E2%80%AE.yaml", "languageId": "yaml", "version": 1, "text": doc}}}) +
                  msg({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) + msg({"jsonrpc": "2.0", "method": "exit"}))
        # the server lints when its input is idle: the exit comes after the diagnostics were published
        first, last = stream.split(msg({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        p = subprocess.Popen([SWEEPLINT, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=common.env())
        p.stdin.write(first)
        p.stdin.flush()
        out = b""
        import select
        import time
        end = time.time() + TIME_BOUND * 5
        while b"publishDiagnostics" not in out and time.time() < end:
            if select.select([p.stdout], [], [], 0.2)[0]:
                out += os.read(p.stdout.fileno(), 65536)
        rest, err = p.communicate(msg({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) + last, timeout=60)
        body = (out + rest).decode("utf-8", "surrogateescape").replace("\r\n", "\n")
        tap.check("lsp: a document's bidi and C1 characters escaped in its JSON messages (the diagnostics say the key)",
                  p.returncode == 0 and "unknown top-level key" in body and not common.raw_char(body),
                  f"rc {p.returncode}: raw {common.raw_char(body)}: {body[-600:]!r} {err[-300:]!r}")

        # 10. integer ranges on memory axes were each enumerated up to 4096 values with no bound on their sum:
        # 8,000 int_uniform lengths took 3.2 GB and 2.3 s of CPU before the axis bound said anything (41 MB after;
        # 16,600, just under the node bound, still take 89 MB: ~2 KB a memory axis, docs/reliability.md)
        n = 8000
        f = write(os.path.join(tmp, "many-ranges.yaml"), "method: random\nparameters:\n  model_name_or_path: "
                  "{value: gpt2}\n" + "".join(f"  a{i}.max_seq_length: {{min: 1, max: {i + 2}}}\n" for i in range(n)))
        r = run(["-q"] + GPU + [f])
        tap.check(f"{n} integer ranges of lengths: too-many-combinations, within {TIME_BOUND:g} s CPU and "
                  f"{RSS_BOUND >> 20} MB", r.rc == 0 and "[too-many-combinations]" in r.out and
                  r.cpu < TIME_BOUND and r.rss < RSS_BOUND, f"rc {r.rc}, {r.cpu:.2f} s, {r.rss >> 20} MB: {r.out[-300:]!r}")
        # ... while a few ranges are still evaluated value by value (the budget is 16,384 values)
        f = write(os.path.join(tmp, "few-ranges.yaml"), "method: random\nparameters:\n  model_name_or_path: "
                  "{value: roberta-large}\n  max_seq_length: {value: 512}\n  per_device_train_batch_size: "
                  "{min: 1, max: 4000}\n  gradient_accumulation_steps: {min: 1, max: 3}\n")
        r = run(["-q", "-f", "json"] + GPU + [f])
        try:
            c = json.loads(r.out)["files"][0]["combinations"]
        except (ValueError, KeyError, IndexError):
            c = None
        tap.check("an int_uniform batch of 4000 values is still evaluated value by value (every combination judged)",
                  c is not None and c["unknown"] == 0 and c["fit"] > 0 and c["oom"] > 0, f"{c}: {r.out[:300]!r}")

        # 11. a program beside the sweep is parsed by python3 only up to 256 KiB: a 1 MB program of 25,000
        # add_argument lines took python3 2.4 s of CPU and 180 MB (10 s wall under load: its time bound)
        d = os.path.join(tmp, "big-program")
        os.makedirs(d)
        line = "p.add_argument('--a{i}', default={i})\n"
        write(os.path.join(d, "sweep.yaml"), "method: grid\nprogram: train.py\nparameters:\n"
              "  model_name_or_path: {value: gpt2}\n  per_device_train_batch_size: {values: [8, 16]}\n")
        for size, refused in ((1 << 20, True), (200 << 10, False)):
            body, i = "import argparse\np = argparse.ArgumentParser()\n", 0
            while len(body) < size:
                body += line.format(i=i)
                i += 1
            write(os.path.join(d, "train.py"), body)
            r = run(["-v"] + GPU + ["sweep.yaml"], cwd=d)
            said = "larger than 256 KiB: not parsed" in r.out + r.err
            if not refused:
                said = "program not read" in r.out + r.err  # parsed: no note says it was not read
            tap.check(f"a {len(body) >> 10} KiB program of {i} add_argument lines: "
                      f"{'refused from its size' if refused else 'parsed'}, within {TIME_BOUND:g} s CPU and "
                      f"{RSS_BOUND >> 20} MB (python3 included)",
                      r.rc == 0 and said == refused and r.cpu < TIME_BOUND and r.rss < RSS_BOUND,
                      f"rc {r.rc}, {r.cpu:.2f} s, {r.rss >> 20} MB: {(r.out + r.err)[-600:]!r}")
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
