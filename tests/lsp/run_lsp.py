#!/usr/bin/env python3
"""The language server end to end (docs/lsp.md), as TAP: a scripted client drives `sweeplint lsp`
over its pipes — the lifecycle and its ordering, diagnostics equal to `sweeplint check -f json` on
the same files (positions converted here, independently, to UTF-16 or UTF-8), project config
discovery from the document's path, Korean and astral text, coalesced change bursts.
Under a sanitized build any ASan/UBSan/LSan report fails the case that ran it.

usage: run_lsp.py SWEEPLINT"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Client, file_uri, lsp_position  # noqa: E402

EXE = os.path.abspath(sys.argv[1])
results = []


def case(name):
    def wrap(fn):
        results.append((name, fn))
        return fn
    return wrap


def sanitizer_clean(c):
    assert "Sanitizer" not in c.stderr and "runtime error" not in c.stderr, c.stderr[-3000:]


def check_json(path, cwd=None, args=()):
    r = subprocess.run([EXE, "check", "-f", "json", *args, path], capture_output=True, cwd=cwd)
    assert r.returncode in (0, 1), (path, r.returncode, r.stderr)
    return json.loads(r.stdout)["files"][0]["diagnostics"]


def expected(path, text, encoding, cwd=None, args=()):
    """What the server should publish for path: check's findings, positions converted here."""
    out = []
    for d in check_json(path, cwd, args):
        if "path" in d:      # about another file: shown at the document's start
            rng = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
        else:
            rng = {"start": lsp_position(text, d["line"], d["column"], encoding),
                   "end": lsp_position(text, d["end_line"], d["end_column"], encoding)}
        out.append((d["rule"], json.dumps(rng, sort_keys=True), d["message"]))
    return sorted(out)


def got(diags):
    return sorted((d["code"], json.dumps(d["range"], sort_keys=True), d["message"].split("\nhint: ")[0])
                  for d in diags)


def open_doc(c, path, text=None, version=1, uri=None):
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    uri = uri or file_uri(path)
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": version,
                                                       "text": text}})
    return uri, text


@case("lifecycle: not initialized, initialize once, shutdown, then only exit (status 0)")
def _():
    c = Client(EXE)
    r = c.request("textDocument/hover", {"textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0}})
    assert r["error"]["code"] == -32002, r
    r = c.initialize()
    caps = r["result"]["capabilities"]
    assert caps["positionEncoding"] == "utf-16", caps
    assert caps["textDocumentSync"]["change"] == 1 and caps["textDocumentSync"]["openClose"], caps
    assert r["result"]["serverInfo"]["name"] == "sweeplint", r
    r = c.request("initialize", {"capabilities": {}})
    assert r["error"]["code"] == -32600, r
    r = c.request("shutdown")
    assert r["result"] is None and "error" not in r, r
    r = c.request("textDocument/hover", {})
    assert r["error"]["code"] == -32600, r
    c.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///x.yaml", "languageId": "yaml",
                                                       "version": 1, "text": "a: 1\n"}})
    c.notify("exit")
    rc = c.finish()
    assert rc == 0, (rc, c.stderr)
    assert not any(m["method"] == "textDocument/publishDiagnostics" for m in c.notes), c.notes
    sanitizer_clean(c)


@case("lifecycle: exit without shutdown is status 1, and so is the input ending")
def _():
    c = Client(EXE)
    c.initialize()
    c.notify("exit")
    rc = c.finish()
    assert rc == 1, (rc, c.stderr)
    sanitizer_clean(c)
    c = Client(EXE)
    c.initialize()
    rc = c.finish()
    assert rc == 1, (rc, c.stderr)
    sanitizer_clean(c)


FIXTURES = sorted(glob.glob("fixtures/sweeps/*.yaml") + glob.glob("examples/*/sweep.yaml") +
                  [p for p in glob.glob("fixtures/rules/*/*.yaml") if "# args:" not in open(p, errors="replace").read()])


@case("diagnostics: the same findings as `sweeplint check` on %d fixture files (UTF-16)" % len(FIXTURES))
def _():
    c = Client(EXE)
    c.initialize()
    nonempty = 0
    for path in FIXTURES:
        uri, text = open_doc(c, path)
        diags = c.diagnostics(uri)
        want = expected(path, text, "utf-16")
        assert got(diags) == want, (path, got(diags), want)
        nonempty += bool(want)
        for d in diags:
            assert d["source"] == "sweeplint" and d["severity"] in (1, 2, 3), d
    assert nonempty >= len(FIXTURES) // 2, nonempty
    r, rc = c.close()
    assert rc == 0, c.stderr
    sanitizer_clean(c)


KOREAN = """\
# 한국어 주석 🎉: 배치 크기 실험
program: train.py
method: grid
parameters:
  설명: {values: ["학습률🎉𝄞", "학습률🎉𝄞"]}
  model: {value: bert-base-uncased}
  per_device_train_batch_size: {values: [8, 4096]}
  note: {values: ["😀😀", "😀😀"]}
"""


@case("positions: Korean and astral characters, in UTF-16 (default) and UTF-8 (when offered)")
def _():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sweep.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(KOREAN)
        for offered, enc in ((None, "utf-16"), (["utf-8", "utf-16"], "utf-8"), (["utf-16"], "utf-16"),
                             (["utf-32", "utf-8"], "utf-8")):
            c = Client(EXE)
            r = c.initialize(encodings=offered)
            assert r["result"]["capabilities"]["positionEncoding"] == enc, (offered, r)
            uri, text = open_doc(c, path)
            diags = c.diagnostics(uri)
            want = expected(path, text, enc)
            dup = [w for w in want if w[0] == "duplicate-value"]
            assert len(dup) == 2, want   # the findings the test is about, after non-ASCII text on their line
            assert got(diags) == want, (enc, got(diags), want)
            c.close()
            sanitizer_clean(c)


@case("project config: the nearest .sweeplint.yaml above the document's path applies (as for check)")
def _():
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, ".git"))
        os.makedirs(os.path.join(d, "sweeps", "deep"))
        with open(os.path.join(d, ".sweeplint.yaml"), "w") as f:
            f.write("gpu: rtx-4090\nrules:\n  grid-size: off\n")
        src = "fixtures/sweeps/bi-encoder.yaml"
        path = os.path.join(d, "sweeps", "deep", "sweep.yaml")
        with open(src) as f, open(path, "w") as g:
            text = f.read()
            g.write(text)
        c = Client(EXE, cwd=d)
        c.initialize()
        uri, text = open_doc(c, path)
        diags = c.diagnostics(uri)
        want = expected(path, text, "utf-16", cwd=d)
        assert got(diags) == want, (got(diags), want)
        assert not any(w[0] == "grid-size" for w in want), want
        assert want != expected(src, text, "utf-16"), "the config changed nothing: the test shows nothing"
        # a config that cannot be used: the document says so at its start, and names the config's problem
        with open(os.path.join(d, ".sweeplint.yaml"), "w") as f:
            f.write("gpu: no-such-gpu\nrules: {nonsense-rule: error}\n")
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        diags = c.diagnostics(uri)
        assert diags and diags[0]["range"]["start"] == {"line": 0, "character": 0}, diags
        assert any("cannot be used" in x["message"] for x in diags), diags
        assert any(".sweeplint.yaml:" in x["message"] and x.get("relatedInformation") for x in diags), diags
        c.close()
        sanitizer_clean(c)


@case("coalescing: a burst of 300 changes written at once is linted at its latest version, not 300 times")
def _():
    c = Client(EXE)
    c.initialize()
    path = "fixtures/sweeps/bi-encoder.yaml"
    with open(path) as f:
        text = f.read()
    uri = file_uri(path)
    burst = [c.frame(c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml",
                                                                        "version": 0, "text": text}}, send=False))]
    for v in range(1, 301):
        t = text if v == 300 else text.replace("lr:", "lr%d:" % v)
        burst.append(c.frame(c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                                "contentChanges": [{"text": t}]}, send=False)))
    c.raw(b"".join(burst))
    diags = c.diagnostics(uri, version=300)
    published = [m for m in c.notes if m["method"] == "textDocument/publishDiagnostics"]
    assert len(published) < 30, len(published)
    assert got(diags) == expected(path, text, "utf-16")
    r = c.request("shutdown")
    c.notify("exit")
    assert c.finish() == 0
    sanitizer_clean(c)


@case("didClose clears the document's diagnostics; didChange of an unopened document is ignored")
def _():
    c = Client(EXE)
    c.initialize()
    uri, _ = open_doc(c, "fixtures/sweeps/bi-encoder.yaml")
    assert c.diagnostics(uri)
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert c.diagnostics(uri) == []
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "x"}]})
    log = c.wait_note("window/logMessage")
    assert "didChange" in log["params"]["message"], log
    c.close()
    sanitizer_clean(c)


def main():
    print("1..%d" % len(results))
    failed = 0
    for i, (name, fn) in enumerate(results, 1):
        try:
            fn()
            print("ok %d - %s" % (i, name))
        except Exception as e:  # noqa: BLE001 - every failure is reported, the run goes on
            failed += 1
            print("not ok %d - %s" % (i, name))
            for line in repr(e)[:4000].splitlines():
                print("# " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
