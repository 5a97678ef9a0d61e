#!/usr/bin/python3
"""run_defects: regression tests for the defects of the November 2026 hostile pass (issue 15), TAP.

usage: run_defects.py SWEEPLINT SANITIZED

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

SWEEPLINT = os.path.abspath(sys.argv[1])
SANITIZED = len(sys.argv) > 2 and sys.argv[2] not in ("", "none", "false")
TIME_BOUND, RSS_BOUND = (20.0, 1 << 30) if SANITIZED else (2.0, 64 << 20)
GPU = ["-g", "24GiB"]
results = []


def check(name, ok, why="", skip=None):
    results.append((name, ok, why, skip))


def run(args, cwd=None, timeout=60):
    """(rc, stdout, stderr, seconds, max_rss_bytes) of one run, measured by wait4."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("ASAN_", "UBSAN_", "LSAN_"))}
    env.update(PATH=os.environ.get("PATH", "/usr/bin:/bin"), LC_ALL="C", HOME=cwd or "/nonexistent")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen([SWEEPLINT] + args, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd,
                             env=env)
        deadline = t0 + timeout
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.005)
        secs = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (p.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                secs, ru.ru_maxrss * 1024)


def cheap(secs, rss):
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
            rc, out, err, secs, rss = run(GPU + [path])
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
        rc, out, err, secs, rss = run(GPU + ["sweep.yaml"], cwd=d)
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
            rc, out, err, secs, rss = run(GPU + [path])
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
            rc, out, err, secs, rss = run(["split"] + force + args, cwd=d)
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
        rc, out, err, secs, rss = run(["split"] + args)
        check("split onto an existing file without --force: exit 2, nothing written",
              rc == 2 and "already exists (--force replaces it)" in err and open(other).read() == "keep me\n" and
              os.listdir(out_dir) == ["sweep.roberta-base.yaml"], f"rc {rc}: {err!r} {os.listdir(out_dir)}")
        rc, out, err, secs, rss = run(["split", "--force"] + args)
        check("split --force replaces the existing file", rc == 0 and open(other).read() != "keep me\n" and
              len(os.listdir(out_dir)) == 2, f"rc {rc}: {err!r}")

    print(f"1..{len(results)}")
    failed = 0
    for n, (name, ok, why, skip) in enumerate(results, 1):
        if skip:
            print(f"ok {n} - {name} # SKIP {skip}")
            continue
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
        if not ok:
            failed += 1
            print(f"#   {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
