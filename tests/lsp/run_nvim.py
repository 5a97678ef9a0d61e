#!/usr/bin/env python3
"""A real editor: Neovim headless, its built-in LSP client (tests/lsp/nvim_client.lua) attached to
`sweeplint lsp`, opens an OOM sweep and a sweep with Korean and astral text, and reads back the
diagnostics; they must be check's findings, at the byte columns Neovim converts the server's
UTF-16 positions to. TAP; skipped when nvim is not installed.

usage: run_nvim.py SWEEPLINT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_lsp import KOREAN, check_json, lsp_position  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
SEV = {"error": 1, "warning": 2, "info": 3}


def nvim_diagnostics(path, tmp):
    out = os.path.join(tmp, "diagnostics.json")
    env = dict(os.environ, SWEEPLINT=EXE, SWEEP=os.path.abspath(path), OUT=out, XDG_STATE_HOME=tmp,
               XDG_DATA_HOME=tmp, XDG_CACHE_HOME=tmp, XDG_CONFIG_HOME=tmp)
    r = subprocess.run(["nvim", "--headless", "--clean", "-u", "NONE", "-c",
                        "luafile " + os.path.join(HERE, "nvim_client.lua")],
                       env=env, capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0 and os.path.exists(out), (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    with open(out) as f:
        return json.load(f)


def want(path, text):
    rows = []
    for d in check_json(path):
        s = lsp_position(text, d["line"], d["column"], "utf-8")
        e = lsp_position(text, d["end_line"], d["end_column"], "utf-8")
        rows.append((d["rule"], SEV[d["severity"]], s["line"], s["character"], e["line"], e["character"]))
    return sorted(rows)


def main():
    if not shutil.which("nvim"):
        print("1..0 # SKIP nvim is not installed (Debian: apt-get install neovim)")
        return 0
    print("1..2")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        korean = os.path.join(tmp, "korean.yaml")
        with open(korean, "w", encoding="utf-8") as f:
            f.write(KOREAN)
        for i, (path, what) in enumerate((("fixtures/sweeps/bi-encoder.yaml", "an OOM sweep"),
                                          (korean, "Korean and astral text (byte columns)")), 1):
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                got = nvim_diagnostics(path, tmp)
                assert got["attached"] and got["waited"], got
                rows = sorted((d["code"], d["severity"], d["lnum"], d["col"], d["end_lnum"], d["end_col"])
                              for d in got["diagnostics"])
                assert rows == want(path, text), (rows, want(path, text))
                assert all(d["source"] == "sweeplint" for d in got["diagnostics"])
                if i == 1:
                    assert any(r[0] == "oom" and r[1] == 1 for r in rows), rows
                print("ok %d - neovim reads back the diagnostics of %s (%d)" % (i, what, len(rows)))
            except Exception as e:  # noqa: BLE001
                failed += 1
                print("not ok %d - neovim: %s" % (i, what))
                for line in repr(e)[:3000].splitlines():
                    print("# " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
