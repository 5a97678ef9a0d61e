#!/usr/bin/python3
"""run_io: the I/O side of the third hostile pass (../shared/hostile/turn3, issue 34) — the reproducers
that a script or an editor runs (run.sh, run.py, lsp_big.py), each as its README says, with the check
its defect calls for (TAP).

usage: run_io.py SWEEPLINT [b_sanitize]

The .yaml reproducers of the folder are run_shared.py's; the classes behind these have their own tests
generated there (tests/hostile/run_writes.py for the writer, tests/hub/hostile_hub.py for the cache, the
token and the budget, tests/lsp/run_lsp.py for the language server). This runs the reproducers
themselves, in a copy of the folder: without it (no ../shared) the test is skipped. A reproducer that
needs what this machine lacks (--fetch, ssh-keygen, a free port) is skipped with the reason.
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def port_free(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def main():
    exe = os.path.abspath(sys.argv[1])
    sanitized = len(sys.argv) > 2 and common.sanitized(sys.argv[2])
    src = common.hostile_dir()
    if not src or not os.path.isdir(os.path.join(src, "turn3")):
        print("1..0 # SKIP no ../shared/hostile/turn3 beside the source tree")
        return 0
    tap = common.Tap()
    check = tap.check
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    can_fetch = "--fetch: available" in version

    with tempfile.TemporaryDirectory(prefix="sweeplint-io-") as tmp:
        work = os.path.join(tmp, "turn3")
        shutil.copytree(os.path.join(src, "turn3"), work, symlinks=True)
        for root, dirs, files in os.walk(work):  # the shared folder is read-only; the copy is ours
            os.chmod(root, 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)

        def sh(folder, script, timeout=300, env=None):
            start = time.monotonic()
            e = dict(os.environ, **(env or {}))
            try:
                p = subprocess.run(["sh", script, exe], cwd=os.path.join(work, folder), capture_output=True,
                                   text=True, timeout=timeout, env=e)
            except subprocess.TimeoutExpired as ex:
                return None, str(ex.stdout or ""), "TIMEOUT", time.monotonic() - start
            return p.returncode, p.stdout, p.stderr, time.monotonic() - start

        # report-writes-through-symlink: the committed link to authorized_keys is refused (set -e stops the
        # script at sweeplint's exit 2, so ssh-keygen never lists the attacker's key)
        if shutil.which("ssh-keygen"):
            rc, out, err, _ = sh("report-writes-through-symlink", "run.sh")
            check("turn3/report-writes-through-symlink: the report is refused, authorized_keys keeps no "
                  "attacker key", rc not in (0, None) and "attacker@evil" not in out and "symbolic link" in err,
                  f"exit {rc}\nstdout {out[-600:]}\nstderr {err[-600:]}")
        else:
            check("turn3/report-writes-through-symlink", True, skip="no ssh-keygen")

        # token-fifo-hang: no command opens the FIFO token file; refs/main as a FIFO does not block
        rc, out, err, el = sh("token-fifo-hang", "run.sh", timeout=120)
        text = out + err
        exits = dict(re.findall(r"^(rules|check|check with refs/main FIFO) exit (\d+)", text, re.M))
        check(f"turn3/token-fifo-hang: rules, check and check with a refs/main FIFO answer at once ({el:.1f} s)",
              exits == {"rules": "0", "check": "0", "check with refs/main FIFO": "0"} and el < 30,
              f"exits {exits}\n{text[-800:]}")
        check("turn3/token-fifo-hang: gpus opens no token file (strace)",
              not re.search(r"openat\(.*token", text), text[-600:],
              skip=None if shutil.which("strace") else "no strace")

        if not can_fetch:
            for name in ("fetch-tmp-symlink-clobber", "fetch-unbounded-requests"):
                check(f"turn3/{name}", True, skip="this sweeplint cannot fetch: " + version.splitlines()[-1])
        else:
            # fetch-tmp-symlink-clobber: links at every PID's old temporary name; the victims stay intact
            if port_free(18093):
                rc, out, err, el = sh("fetch-tmp-symlink-clobber", "run.sh")
                check(f"turn3/fetch-tmp-symlink-clobber: both victim files intact ({el:.1f} s)",
                      out.count("IMPORTANT VICTIM DATA") == 2 and "aaaa" not in out and "model_type" not in out,
                      f"exit {rc}\n{out[-600:]}\n{err[-400:]}")
            else:
                check("turn3/fetch-tmp-symlink-clobber", True, skip="port 18093 is taken")
            # fetch-unbounded-requests: 5 ids against an endpoint that answers after 60 s
            if port_free(18091):
                for timeout, bound in ((None, 12.0), ("1", 2.0)):
                    rc, out, err, el = sh("fetch-unbounded-requests", "run.sh",
                                          env={"HF_HUB_DOWNLOAD_TIMEOUT": timeout} if timeout else None)
                    m = re.search(r"^([\d.]+) s$", err, re.M)
                    took = float(m.group(1)) if m else None
                    check(f"turn3/fetch-unbounded-requests (HF_HUB_DOWNLOAD_TIMEOUT {timeout or 'default 10'}): "
                          f"one timeout for 5 ids, {took} s (bound {bound:g} s; was 50 s)",
                          took is not None and took < bound and out.count("[unknown-model]") == 5,
                          f"exit {rc}\n{out[-600:]}\n{err[-600:]}")
            else:
                check("turn3/fetch-unbounded-requests", True, skip="port 18091 is taken")

        # the language server's reproducers (python3 run.py SWEEPLINT), each read by what it prints
        def py(folder, script, timeout=300):
            start = time.monotonic()
            try:
                p = subprocess.run([sys.executable, script, exe], cwd=os.path.join(work, folder), capture_output=True,
                                   text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return None, "", "TIMEOUT", time.monotonic() - start
            return p.returncode, p.stdout, p.stderr, time.monotonic() - start

        rc, out, err, el = py("lsp-desync", "run.py")
        check("turn3/lsp-desync: after Content-Length: -5 and its body, all 20 requests answered",
              "answered 20 of 20" in out, out[-400:] + err[-400:])
        rc, out, err, el = py("lsp-didchange-wrap", "run.py")
        lines = re.findall(r"insert at line (\d+) -> duplicate-value reported at line \[(\d+)\]", out)
        check("turn3/lsp-didchange-wrap: inserts at lines 5, 2^32, 2^32+1, 2^33 all land at the end (the finding "
              "stays at line 3)", len(lines) == 4 and all(line == "3" for _, line in lines), out[-600:] + err[-400:])
        rc, out, err, el = py("lsp-stale-diagnostics", "run.py")
        m = re.search(r"publishDiagnostics seen \(version, codes\): (.*)", out)
        check("turn3/lsp-stale-diagnostics: the change a hover follows is published (version 2, its oom)",
              m and re.search(r"\(2, \[[^]]*'oom'", m.group(1)), out[-600:] + err[-400:])
        rc, out, err, el = py("lsp-json-memory", "run.py")
        rss = [int(x) for x in re.findall(r"VmRSS (\d+) KB", out)]
        bound = (1 << 20) if sanitized else (64 << 10)  # KB: the usual bounds, 1 GiB under the sanitizers' shadow
        check(f"turn3/lsp-json-memory: a 16 MiB message of empty objects and 320 MiB of inserts stay under "
              f"{bound >> 10} MB (VmRSS {rss} KB; was 1.29 GB and 364 MB)",
              len(rss) == 2 and max(rss) < bound, out[-600:] + err[-400:])
        # cosmetic-messages (1), (2): the words of two findings (item 4, config discovery, is run_shared's)
        cm = os.path.join(work, "cosmetic-messages")
        p = subprocess.run([exe, "check", "big_vocab.yaml"], cwd=cm, capture_output=True, text=True, timeout=60)
        check("turn3/cosmetic-messages (1): vocab_size 2^62 is too large, not 'must be a non-negative integer'",
              "'vocab_size' is 4611686018427387904, past the largest value" in p.stdout and
              "non-negative" not in p.stdout, p.stdout[-600:])
        p = subprocess.run([exe, "check", "gmu.yaml"], cwd=cm, capture_output=True, text=True, timeout=60)
        check("turn3/cosmetic-messages (2): gpu_memory_utilization 0 and 1.5 are not fractions in (0, 1], "
              "not 'not a boolean'", p.stdout.count("is not a fraction of the GPU's memory in (0, 1]") == 2 and
              "boolean" not in p.stdout, p.stdout[-600:])
        rc, out, err, el = py("cosmetic-messages", "lsp_big.py")
        check("turn3/cosmetic-messages (3): a 20 MiB message is dropped at the 16 MiB bound docs/lsp.md states",
              "past the 16 MiB bound: dropped" in out and
              "past 16 MiB" in open(os.path.join(common.ROOT, "docs", "lsp.md")).read(), out[-400:] + err[-400:])

    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
