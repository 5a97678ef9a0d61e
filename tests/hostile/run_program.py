#!/usr/bin/python3
"""run_program: the program follower's reproducers of ../shared/hostile/turn3 (issue 34), as their READMEs say (TAP).

usage: run_program.py MEASURE SWEEPLINT [b_sanitize]

run_shared.py checks every .yaml of ../shared/hostile plainly (a positioned finding, no raw control
character, the cost bounds). This runs what it does not: the gen.sh inputs and the answers asked for.
  - follow-seen-overflow: 12 local modules python3 cannot parse: check and `sweeplint lsp` survive;
  - program-parse-time: a program and 8 modules that python3 parses in seconds each (gen.sh): one check,
    four sweeps naming that program in one run, and the language server's first hover and the hover
    after a keystroke all end within the bounds; a codeAction on a sweep whose program is slow, and a
    didSave with 200 open sweeps, too;
  - hydra-interp-quadratic (gen.sh 30000 63: a 0.56 MB config listed 63 times) and a variant of 63
    distinct configs; hydra-defaults-memory (a 1.1 MB config listing itself and 95,000 missing options):
    within the bounds, at most 33 Hydra notes;
  - program-inf-literal: every program with 1e999, 10^23, a NUL or a lone surrogate in one literal is
    still read: its other settings (per_device_train_batch_size 512) are read, as the program without
    it (the programs read no command line and no wandb.config, so the sweep's model never reaches them:
    sweep-unread, issue 27, and the runs are judged with the program's own settings);
  - float-batch-fits and nul-truncated-model: invalid-value errors, exit 1, nothing judged fit;
  - read-outside-repo-leak: none of the victim's secrets in text (-v), JSON, SARIF or GitHub output.
The bounds are common.args' (2 s and 64 MB a run in a plain build; 20 s and 1 GiB under the
sanitizers). Skipped (77) without ../shared/hostile/turn3 or python3.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lsp"))
import common  # noqa: E402
from lspclient import Client, file_uri  # noqa: E402

MEASURE, SWEEPLINT, SANITIZED, TIME_BOUND, RSS_BOUND = common.args()
SECRETS = ("gho_SECRETTOKEN", "AKIAIOSFODNN", "dXNlcjpnaHBfU0VDUkVUVE9LRU4xMjM", "SECRETTOKEN1234")


def turn3():
    cands = [os.environ.get("SWEEPLINT_HOSTILE_DIR", ""), os.path.join(common.ROOT, "..", "shared", "hostile")]
    p = subprocess.run(["git", "-C", common.ROOT, "rev-parse", "--path-format=absolute", "--git-common-dir"],
                       capture_output=True, text=True)
    if p.returncode == 0:
        cands.append(os.path.join(os.path.dirname(os.path.dirname(p.stdout.strip())), "shared", "hostile"))
    for c in cands:
        t = os.path.join(c, "turn3") if c else ""
        if c and os.path.isfile(os.path.join(t, "README.md")):
            return os.path.abspath(t)
    return None


def main():
    tap = common.Tap()
    check = tap.check
    src = turn3()
    if not src or not shutil.which("python3"):
        print("1..0 # SKIP no ../shared/hostile/turn3 beside the source tree, or no python3")
        return 0
    with tempfile.TemporaryDirectory(prefix="sweeplint-turn3-") as tmp:
        work = os.path.join(tmp, "turn3")
        shutil.copytree(src, work, symlinks=True)
        for dirpath, dirs, files in os.walk(work):
            os.chmod(dirpath, 0o755)
            for f in files:
                if not os.path.islink(os.path.join(dirpath, f)):
                    os.chmod(os.path.join(dirpath, f), 0o644)

        def run(args, cwd, home=None, timeout=None):
            return common.run(MEASURE, SWEEPLINT, args, cwd=cwd, timeout=timeout or 5 * TIME_BOUND,
                              home=home or os.path.join(tmp, "nohome"))

        def bounded(name, r, want_rc=(0, 1)):
            problems = []
            if r.rc not in want_rc:
                problems.append(f"exit {r.rc}")
            if r.wall >= TIME_BOUND:
                problems.append(f"{r.wall:.2f} s wall (bound {TIME_BOUND:g} s)")
            if r.rss >= RSS_BOUND:
                problems.append(f"{r.rss >> 20} MB (bound {RSS_BOUND >> 20} MB)")
            if "AddressSanitizer" in r.err or "runtime error:" in r.err:
                problems.append("sanitizer report")
            check(f"{name} (exit {r.rc}, {r.wall:.2f} s, {r.rss >> 20} MB)", not problems,
                  "; ".join(problems) + f"\nstdout: {r.out[-500:]!r}\nstderr: {r.err[-500:]!r}")
            return r

        def gen(folder, *args):
            d = os.path.join(work, folder)
            p = subprocess.run(["sh", "gen.sh", *args], cwd=d, capture_output=True, timeout=600)
            check(f"{folder}: gen.sh {' '.join(args)}", p.returncode == 0, p.stderr.decode()[-300:])
            return d

        # follow-seen-overflow: modules python3 cannot parse
        d = gen("follow-seen-overflow")
        bounded("follow-seen-overflow: check", run(["check", "-v", "sweep.yaml"], d))
        c = Client(SWEEPLINT, cwd=d, env=common.env(os.path.join(tmp, "nohome")))
        c.initialize()
        path = os.path.join(d, "sweep.yaml")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": file_uri(path), "languageId": "yaml", "version": 1,
                                                           "text": open(path).read()}})
        try:
            c.diagnostics(file_uri(path), timeout=30)
            shut, rc = c.close()
            ok, why = rc == 0, f"exit {rc}: {c.stderr[-300:]}"
        except (EOFError, TimeoutError) as e:
            ok, why = False, f"{e}: exit {c.p.wait(10)}"
        check("follow-seen-overflow: the language server publishes the sweep's diagnostics and shuts down", ok, why)

        # program-parse-time: seconds of python3 per file
        d = gen("program-parse-time")
        r = bounded("program-parse-time: check -q sweep.yaml (a program and 8 modules of slow f-strings)",
                    run(["check", "-v", "sweep.yaml"], d))
        check("program-parse-time: -v says the program was not parsed within the run's time or memory for it",
              "program not read" in r.err + r.out and ("this run gives to reading programs" in r.err + r.out or
                                                       "ran out of memory" in r.err + r.out),
              (r.err + r.out)[-600:])
        for i in range(4):
            open(os.path.join(d, f"s{i}.yaml"), "w").write(open(os.path.join(d, "sweep.yaml")).read())
        bounded("program-parse-time: four sweeps naming the same program, one run",
                run(["check", "-q", "s0.yaml", "s1.yaml", "s2.yaml", "s3.yaml"], d))
        c = Client(SWEEPLINT, cwd=d, env=common.env(os.path.join(tmp, "nohome")))
        c.initialize()
        path = os.path.join(d, "sweep.yaml")
        uri, text = file_uri(path), open(path).read()
        t0 = time.monotonic()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                           "text": text}})
        c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 4, "character": 14}},
                  timeout=60)
        first = time.monotonic() - t0
        t0 = time.monotonic()
        # the edit names a model and a batch no GPU holds: the codeAction below has fixes to verify
        oom = text + "  model_name_or_path:\n    value: gpt2\n  per_device_eval_batch_size:\n    values: [8, 65536]\n"
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": oom}]})
        c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 4, "character": 14}},
                  timeout=60)
        second = time.monotonic() - t0
        t0 = time.monotonic()
        acts = c.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                     "range": {"start": {"line": 0, "character": 0},
                                                               "end": {"line": 12, "character": 0}},
                                                     "context": {"diagnostics": []}}, timeout=60)
        action = time.monotonic() - t0
        nact = len(acts.get("result") or [])
        check(f"program-parse-time: lsp first hover {first:.2f} s, after a keystroke {second:.2f} s, a codeAction "
              f"verifying its {nact} fixes {action:.2f} s (bound {TIME_BOUND:g} s; the program is parsed once)",
              first < TIME_BOUND and second < TIME_BOUND / 2 and action < TIME_BOUND / 2 and nact > 0, repr(acts)[:400])
        # 200 open sweeps naming a trivial program: a didSave re-lints them all, no program parsed again
        open(os.path.join(d, "tiny.py"), "w").write("from transformers import TrainingArguments\n"
                                                   "TrainingArguments(per_device_train_batch_size=8)\n")
        many = []
        for i in range(200):
            p = os.path.join(d, f"open{i}.yaml")
            open(p, "w").write(f"program: tiny.py\nmethod: grid\nparameters:\n  model_name_or_path:\n"
                               f"    value: gpt2\n  learning_rate:\n    values: [0.{i + 1}, 0.5]\n")
            many.append(p)
            c.notify("textDocument/didOpen", {"textDocument": {"uri": file_uri(p), "languageId": "yaml",
                                                               "version": 1, "text": open(p).read()}})
        uris = {file_uri(p) for p in many}
        for u in uris:  # every open sweep published once
            c.diagnostics(u, timeout=120)
        t0 = time.monotonic()
        c.notify("textDocument/didSave", {"textDocument": {"uri": file_uri(many[0])}})
        for u in uris:  # a save re-lints every open document: each published again
            c.diagnostics(u, timeout=120)
        save = time.monotonic() - t0
        check(f"program-parse-time: a didSave with 200 open sweeps (one program) re-publishes them all in "
              f"{save:.2f} s (bound {TIME_BOUND:g} s: the program is not parsed 200 times)", save < TIME_BOUND, "")
        shut, rc = c.close(60)
        check("program-parse-time: the language server shuts down cleanly", rc == 0, c.stderr[-300:])

        # Hydra composition
        d = gen("hydra-interp-quadratic", "30000", "63")
        bounded("hydra-interp-quadratic: gen.sh 30000 63", run(["check", "-q", "sweep.yaml"], d))
        v = os.path.join(work, "hydra-distinct")
        os.makedirs(os.path.join(v, "conf"))
        shutil.copy(os.path.join(d, "train.py"), v)
        shutil.copy(os.path.join(d, "sweep.yaml"), v)
        open(os.path.join(v, ".sweeplint.yaml"), "w").close()
        open(os.path.join(v, "conf", "main.yaml"), "w").write(
            "defaults:\n" + "".join(f"  - /b{i}\n" for i in range(63)) + "  - _self_\nx: 1\n")
        for j in range(63):
            open(os.path.join(v, "conf", f"b{j}.yaml"), "w").write(
                "".join(f"k{j}_{i}: ${{k{(j + 1) % 63}_{i}}}\n" for i in range(1500)))
        bounded("hydra-interp-quadratic variant: 63 distinct configs of 1500 interpolations",
                run(["check", "-q", "sweep.yaml"], v))
        d = gen("hydra-defaults-memory")
        r = bounded("hydra-defaults-memory: a 1.1 MB config listing itself and 95,000 missing options",
                    run(["check", "-v", "sweep.yaml"], d))
        nhydra = sum(1 for line in (r.out + r.err).splitlines() if ": note: hydra:" in line)
        check(f"hydra-defaults-memory: {nhydra} Hydra notes (at most 33: 32 and a count)", 0 < nhydra <= 33,
              (r.out + r.err)[-800:])

        # program-inf-literal: the program is read whatever one literal holds
        d = os.path.join(work, "program-inf-literal")
        for s in ("s_train_ok.py.yaml", "s_train.py.yaml", "s_bigint.yaml", "s_nul.yaml", "s_surrogate.yaml"):
            r = run(["check", "-v", "-g", "h100-80gb", s], d)
            check(f"program-inf-literal: {s} reads the program's other settings (exit {r.rc})",
                  r.rc in (0, 1) and "batch_size: 512 from train" in r.out and "[sweep-unread]" in r.out and
                  "printed no settings" not in r.err + r.out, r.out[-400:])

        # values W&B passes but programs refuse
        d = os.path.join(work, "float-batch-fits")
        r = run(["check", "-g", "h100-80gb", "sweep.yaml"], d)
        check("float-batch-fits: 8.0, 16.0 and 128.0 are invalid-value errors, nothing fits",
              r.rc == 1 and r.out.count("[invalid-value]") == 3 and " 0 fit" in r.out, r.out[-600:])
        d = os.path.join(work, "nul-truncated-model")
        r = run(["check", "-v", "sweep.yaml"], d)
        check("nul-truncated-model: the model with a NUL is an invalid-value error, never resolved",
              r.rc == 1 and "[invalid-value]" in r.out and "holds a NUL" in r.out and
              "resolved" not in r.err and " 0 fit" in r.out, r.out[-600:] + r.err[-400:])

        # read-outside-repo-leak: the secrets stay unread
        d = os.path.join(work, "read-outside-repo-leak", "repo")
        for s in sorted(f for f in os.listdir(d) if f.endswith(".yaml") and not f.startswith(".")):
            leaks = []
            for fmt in ([], ["-f", "json"], ["-f", "sarif"], ["-f", "github"]):
                r = run(["check", "-g", "24GiB"] + (fmt or ["-v"]) + [s], d, home=d)
                text = r.out + r.err
                leaks += [f"{' '.join(fmt) or 'text'}: {x}" for x in SECRETS if x in text]
                if r.rc not in (0, 1, 2):
                    leaks.append(f"exit {r.rc}")
            check(f"read-outside-repo-leak: {s} prints nothing of the files outside the repository", not leaks,
                  "; ".join(leaks))
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
