#!/usr/bin/python3
"""run_shared: every reproducer of ../shared/hostile (the November 2026 hostile pass), run as its README says (TAP).

usage: run_shared.py MEASURE SWEEPLINT SANITIZED

The folder is found beside the source tree (../shared/hostile, as CI checks it out), beside the main
checkout of a git worktree, or at $SWEEPLINT_HOSTILE_DIR; without it the test is skipped (exit 77).
It is copied to a temporary folder (split writes beside its input) and gen-big.sh is run in an empty
folder there. The commands are read from the README's table (each `sweeplint ...` span; a bare file
name after one runs with that command's options) and from gen-big.sh's commented commands, through a
shell whose `sweeplint` runs the binary under tests/hostile/measure.c. Every .yaml of the folder is
also checked plainly and, in a plain build, with -f json, -f sarif and fix. Each run must
  - exit 0, 1 or 2 (never a signal, 70 or a hang; killed at 5 s), with a positioned finding
    (`path:line:col: severity:` or a JSON/SARIF location) or, exit 2, a clear `error:` on stderr,
  - print no raw control character from its input (C0 but newline/tab, DEL, C1),
  - take < 2 s wall (the least of up to 3 runs: the machine is shared) and < 64 MB peak RSS, in a
    plain build; under ASan/UBSan (SANITIZED) the bounds are 20 s and 1 GiB, as in run_hostile.py,
    because shadow memory alone is ~50 MB (tools/dev.sh runs suite hostile in a plain build too).
Each .yaml must be refused with a [syntax] finding exactly when the system PyYAML's safe_load refuses
it (/usr/bin/python3; skipped without it). Some README items get their own check (2, 7, 12).
Items owned by work in progress are TODO (reported, not failing) with the owner named.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.getcwd()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

MEASURE, SWEEPLINT, SANITIZED, TIME_BOUND, RSS_BOUND = common.args()
KILL_AFTER = 2.5 * TIME_BOUND
# README items whose fix is in progress elsewhere: reported as TODO, with the owner
TODO = {}
# commands (a pattern) whose fix is in progress: TODO, with the owner
TODO_COMMANDS = [
]
results = []


def check(name, ok, why="", todo=None, skip=None):
    results.append((name, ok, why, todo, skip))


def readme_commands(text):
    """[(item, shell command)] from the README's table: each backticked span that runs sweeplint, and a bare
    file name after one (run with that command's options; plain `sweeplint FILE` after a `(cd ...)` one)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|[^|]*\|([^|]*)\|", line)
        if not m:
            continue
        item, last = m.group(1), None
        for span in re.findall(r"`([^`]+)`", m.group(2)):
            if "sweeplint" in span:
                out.append((item, span))
                last = None if span.startswith("(") else span.split()[:-1]
            elif re.fullmatch(r"[\w./-]+\.yaml", span):
                out.append((item, " ".join((last or ["sweeplint"]) + [span])))
    return out


def gen_commands(script):
    """[shell command] of gen-big.sh's commented commands (`#   /usr/bin/time ... sweeplint ...`)."""
    out = []
    for line in script.splitlines():
        m = re.match(r"#\s+(?:/usr/bin/time -f '[^']*' )?(sweeplint .*)$", line)
        if m:
            out.append(m.group(1))
    return out


def shell(command, cwd, bindir, reports):
    """Run command in bash with `sweeplint` measured; [(rc, wall, rss, cpu)] of its sweeplint runs, stdout, stderr."""
    for f in glob.glob(os.path.join(reports, "*")):
        os.unlink(f)
    env = {k: v for k, v in os.environ.items() if k.startswith(("ASAN_", "UBSAN_", "LSAN_"))}
    env.update(PATH=bindir + ":/usr/bin:/bin", LC_ALL="C", HOME=cwd, SL_REPORTS=reports)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        subprocess.run(["bash", "-c", command], stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd, env=env,
                       timeout=20 * KILL_AFTER)
        out.seek(0)
        err.seek(0)
        so, se = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    runs = []
    for f in sorted(glob.glob(os.path.join(reports, "*")), key=os.path.getmtime):
        rc, wall, rss, cpu = open(f).read().split()
        runs.append((int(rc), float(wall), int(rss) * 1024, float(cpu)))
    return runs, so, se


RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
FINDING = re.compile(r"^\S.*?:\d+:\d+: (error|warning|info): ", re.M)


def judge(name, command, cwd, bindir, reports, item=None):
    """Run command (up to 3 times while only the wall-time bound fails) and check it; returns its stdout."""
    for attempt in range(3):
        runs, out, err = shell(command, cwd, bindir, reports)
        problems = []
        if not runs:
            problems.append("sweeplint did not run")
        for rc, wall, rss, cpu in runs:
            if rc not in (0, 1, 2):
                problems.append(f"exit {rc}" + (" (killed: hang)" if rc == 137 else ""))
            if rss >= RSS_BOUND:
                problems.append(f"peak RSS {rss >> 20} MB (bound {RSS_BOUND >> 20} MB)")
        slow = [f"took {wall:.2f} s wall ({cpu:.2f} s CPU; bound {TIME_BOUND:g} s)"
                for rc, wall, rss, cpu in runs if wall >= TIME_BOUND]
        rcs = [r[0] for r in runs]
        structured = "-f json" in command or "-f sarif" in command
        rewrite = re.search(r"sweeplint (split|fix)\b", command)
        if 2 in rcs:
            if not re.search(r"(^|: )error: ", err, re.M):
                problems.append("exit 2 without an `error:` on stderr")
        elif runs and not rewrite and "-q" not in command.split():
            if structured:
                if not re.search(r'"(startLine|line)": \d+', out):
                    problems.append("no located finding in the JSON/SARIF output")
            elif not FINDING.search(out):
                problems.append("no positioned finding `path:line:col: severity:` on stdout")
        if not structured and RAW.search(out + err):
            problems.append(f"raw control characters {sorted(set(RAW.findall(out + err)))!r}")
        if "AddressSanitizer" in err or "runtime error:" in err or "internal error" in err:
            problems.append("sanitizer report or internal error")
        if problems or not slow:
            break
    problems += slow
    stats = ", ".join(f"exit {rc}, {wall:.2f} s, {rss >> 20} MB" for rc, wall, rss, cpu in runs)
    todo = TODO.get(item) if item else None
    todo = todo or next((why for pat, why in TODO_COMMANDS if re.search(pat, command)), None)
    todo = todo if problems else None  # a passing TODO is an unexpected pass: meson fails it
    check(f"{name}: {command} ({stats})", not problems,
          "; ".join(problems) + f"\n#   stdout: {out[-600:]!r}\n#   stderr: {err[-600:]!r}", todo=todo)
    return out, err, runs


def pyyaml_verdicts(paths):
    """{path: True if PyYAML's safe_load takes it} or None without the system PyYAML."""
    script = ("import json,sys,yaml\nout={}\nfor p in sys.argv[1:]:\n  try:\n    yaml.safe_load(open(p,'rb'))\n"
              "    out[p]=True\n  except yaml.YAMLError:\n    out[p]=False\nprint(json.dumps(out))\n")
    if not os.path.exists("/usr/bin/python3"):
        return None
    p = subprocess.run(["/usr/bin/python3", "-c", script] + paths, capture_output=True)
    return json.loads(p.stdout) if p.returncode == 0 else None


def main():
    src = common.hostile_dir()
    if not src:
        print("1..0 # SKIP no ../shared/hostile beside the source tree (CI checks it out there)")
        return 77
    with tempfile.TemporaryDirectory(prefix="sweeplint-hostile-") as tmp:
        work = os.path.join(tmp, "hostile")
        shutil.copytree(src, work, symlinks=True)
        bindir, reports = os.path.join(tmp, "bin"), os.path.join(tmp, "reports")
        os.makedirs(bindir)
        os.makedirs(reports)
        shim = os.path.join(bindir, "sweeplint")
        open(shim, "w").write(f'#!/bin/sh\nexec "{MEASURE}" "$SL_REPORTS/$$" {KILL_AFTER} -- "{SWEEPLINT}" "$@"\n')
        os.chmod(shim, 0o755)
        big = os.path.join(work, "big")
        os.makedirs(big)
        p = subprocess.run(["sh", os.path.join(work, "gen-big.sh")], cwd=big, capture_output=True, timeout=300)
        check("gen-big.sh writes its inputs", p.returncode == 0, p.stderr.decode()[-400:])

        readme = open(os.path.join(work, "README.md")).read()
        commands = readme_commands(readme)
        check(f"the README's table gives commands ({len(commands)})", len(commands) >= 17,
              f"only {len(commands)} parsed")
        for item, command in commands:
            cwd = work
            if item == "12":  # the defect overwrote the run's -c config: nothing of the folder may change
                d = os.path.join(work, "split-overwrites-config")
                before = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
            if item == "2":
                command = command.replace("sweeplint", "sweeplint -f json", 1) if "-f" not in command else command
            out, err, runs = judge(f"README item {item}", command, cwd, bindir, reports, item=item)
            if item == "12":
                after = {f: open(os.path.join(d, f), "rb").read() for f in os.listdir(d)}
                check("README item 12: split never writes over its own -c config (the folder is unchanged)",
                      after == before, f"{sorted(before)} -> {sorted(after)}")
            if item == "2":
                # W&B (PyYAML) runs the batch of the last `<<:`; that combination is out of memory
                data = pyyaml_verdicts([os.path.join(work, "merge-dup-hides-oom.yaml")])
                try:
                    oom = json.loads(out)["files"][0]["combinations"]["oom"]
                except (ValueError, KeyError, IndexError):
                    oom = None
                check("README item 2: two `<<:` merge keys read as PyYAML reads them (the OOM is reported)",
                      runs and runs[0][0] == 1 and oom, f"oom {oom}: {out[-400:]!r}", skip=None if data else
                      "no /usr/bin/python3 with yaml")
        # item 7: the summary counts the combinations a finding says are out of memory
        out, err, runs = judge("README item 7 (json)", "sweeplint -f json truncated-axis-counts.yaml", work, bindir,
                               reports, item="7")
        try:
            f = json.loads(out)["files"][0]
            said = [int(m.group(1)) for d in f["diagnostics"] if d["rule"] == "oom"
                    for m in [re.search(r"out of memory in (\d+) of", d["message"])] if m]
            # a finding counts every out-of-memory combination of its value, sure or at risk (issue #28)
            co = f["combinations"]
            ok, why = max(said, default=0) <= co["oom"] + co.get("at_risk", 0), f"findings say {said}, summary {co}"
        except (ValueError, KeyError, IndexError) as e:
            ok, why = False, f"no JSON: {e}"
        check("README item 7: no finding counts more out-of-memory combinations than the summary", ok, why,
              todo=TODO.get("7"))

        for command in gen_commands(open(os.path.join(work, "gen-big.sh")).read()):
            judge("gen-big.sh", command, big, bindir, reports)

        yamls = sorted(glob.glob(os.path.join(work, "**", "*.yaml"), recursive=True))
        for path in yamls:
            rel = os.path.relpath(path, work)
            d, f = os.path.split(path)
            # under the sanitizers (every landing runs them: 6 min for all four) the plain check only
            hows = ("-g 24GiB",) if SANITIZED else ("-g 24GiB", "-g 24GiB -f json", "-g 24GiB -f sarif", "fix -g 24GiB")
            for how in hows:
                judge(f"{rel}", f"sweeplint {how} {f}", d, bindir, reports)
        verdicts = pyyaml_verdicts(yamls)
        for path in yamls:
            rel = os.path.relpath(path, work)
            if verdicts is None:
                check(f"{rel}: accepted as PyYAML accepts it", True, skip="no /usr/bin/python3 with yaml")
                continue
            d, f = os.path.split(path)
            runs, out, err = shell(f"sweeplint -q -g 24GiB {f}", d, bindir, reports)
            refused = "[syntax]" in out
            check(f"{rel}: PyYAML {'accepts' if verdicts[path] else 'refuses'} it, so does sweeplint",
                  refused != verdicts[path], f"{out[-400:]!r}")

    print(f"1..{len(results)}")
    failed = 0
    for n, (name, ok, why, todo, skip) in enumerate(results, 1):
        if skip:
            print(f"ok {n} - {name} # SKIP {skip}")
            continue
        # TODO only while it fails: a passing TODO is an unexpected pass, which meson counts as a failure
        print(f"{'ok' if ok else 'not ok'} {n} - {name}" + (f" # TODO {todo}" if todo and not ok else ""))
        if not ok:
            failed += not todo
            print(f"#   {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
