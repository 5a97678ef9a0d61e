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
import re
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


@case("diagnostics: sweeps written in Python and notebooks, at the code's places (a notebook's in its JSON text)")
def _():
    c = Client(EXE)
    c.initialize()
    paths = sorted(glob.glob("fixtures/pysweep/*.py") + glob.glob("fixtures/pysweep/*.ipynb"))
    assert paths
    for path in paths:
        uri, text = open_doc(c, path)
        diags = c.diagnostics(uri)
        if path.endswith(".ipynb"):
            # the editor holds the .ipynb's JSON text: the range is where SARIF's region is
            r = subprocess.run([EXE, "check", "-f", "sarif", path], capture_output=True)
            want = []
            for res in json.loads(r.stdout)["runs"][0]["results"]:
                reg = res["locations"][0]["physicalLocation"]["region"]
                rng = {"start": lsp_position(text, reg["startLine"], reg["startColumn"]),
                       "end": lsp_position(text, reg["endLine"], reg["endColumn"])}
                want.append((res["ruleId"], json.dumps(rng, sort_keys=True), res["message"]["text"].split("\nhint: ")[0]))
            want.sort()
        else:
            want = expected(path, text, "utf-16")
        assert want and got(diags) == want, (path, got(diags), want)
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


def apply_edits(text, edits, encoding="utf-16"):
    """Apply LSP TextEdits (positions in `encoding`) to text, as a client does."""
    lines = text.splitlines(keepends=True) or [""]
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def index(pos):
        if pos["line"] >= len(lines):
            return len(text)
        s = lines[pos["line"]].rstrip("\r\n")
        n, i = 0, 0
        while i < len(s) and n < pos["character"]:
            ch = s[i]
            n += len(ch.encode()) if encoding == "utf-8" else (2 if ord(ch) > 0xFFFF else 1)
            i += 1
        return starts[pos["line"]] + i
    spans = sorted(((index(e["range"]["start"]), index(e["range"]["end"]), e["newText"]) for e in edits), reverse=True)
    for a, b, t in spans:
        text = text[:a] + t + text[b:]
    return text


def doc_edits(action, uri):
    ch = action["edit"]["documentChanges"]
    assert len(ch) == 1 and ch[0]["textDocument"]["uri"] == uri, action
    return ch[0]["edits"]


def peak_of(message):
    m = re.search(r"needs ([0-9.]+ [KMGT]iB)", message)
    return m.group(1) if m else None


@case("hover on a value: its worst combination, the peak against usable memory, the breakdown, assumptions")
def _():
    path = "fixtures/sweeps/bi-encoder.yaml"
    c = Client(EXE)
    c.initialize()
    uri, text = open_doc(c, path)
    c.diagnostics(uri)
    ooms = [d for d in check_json(path) if d["rule"] == "oom"]
    assert ooms
    for d in ooms:
        pos = lsp_position(text, d["line"], d["column"])
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": pos})["result"]
        md = r["contents"]["value"]
        assert r["contents"]["kind"] == "markdown"
        assert r["range"]["start"] == pos, (r["range"], pos)
        worst = re.search(r"worst: (.*?) needs", d["message"]).group(1)
        assert "Worst combination: " + worst in md or all(p in md for p in worst.split(" × ")), (worst, md)
        assert "Peak **%s**" % peak_of(d["message"]) in md, (d["message"], md)
        assert "out of memory" in md and "usable on a100-80gb, assumed" in md, md
        rows = re.findall(r"^\| ([a-zA-Z /]+) \| ([0-9.]+) ([KMG])iB \| ([0-9.]+)% \|$", md, re.M)
        assert len(rows) >= 4, md
        total = float(re.search(r"\| \*\*total\*\* \| \*\*([0-9.]+) GiB", md).group(1))
        unit = {"K": 2 ** -20, "M": 2 ** -10, "G": 1}
        s = sum(float(v) * unit[u] for _, v, u, _ in rows)
        assert abs(s - total) < 0.05 * len(rows) + 0.1, (s, total, md)
        assert "Assumed (stated nowhere" in md and "optimizer" in md, md
    # a position on no value and no key: null
    r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}})
    assert r["result"] is None, r
    c.close()
    sanitizer_clean(c)


@case("hover on a key: the memory role it maps to and the pattern that says so (as check -v reports)")
def _():
    path = "fixtures/sweeps/bi-encoder.yaml"
    v = subprocess.run([EXE, "check", "-v", path], capture_output=True, text=True).stdout
    notes = re.findall(r"note: (\S+) \(sweep\) (?:-> (\w+): .*?\[(.*) from (\S+)\]|(: not memory-relevant))", v)
    assert len(notes) >= 5, v
    c = Client(EXE)
    c.initialize()
    uri, text = open_doc(c, path)
    lines = text.splitlines()
    for key, role, pattern, origin, notmem in notes:
        ln = next(i for i, s in enumerate(lines) if s.strip().startswith(key + ":"))
        ch = len(lines[ln][:lines[ln].index(key)].encode("utf-16-le")) // 2 + 1
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": ln, "character": ch}})
        md = r["result"]["contents"]["value"]
        if notmem:
            assert "Not memory-relevant" in md, (key, md)
        else:
            assert "Memory role **%s**" % role in md and pattern in md and origin in md, (key, role, md)
    c.close()
    sanitizer_clean(c)


@case("inlay hints: one after each memory-relevant value, 'OOM <peak>' exactly where check reports oom")
def _():
    path = "fixtures/sweeps/bi-encoder.yaml"
    c = Client(EXE)
    c.initialize()
    uri, text = open_doc(c, path)
    r = c.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {
        "start": {"line": 0, "character": 0}, "end": {"line": len(text.splitlines()) + 1, "character": 0}}})
    hints = r["result"]
    ooms = {(d["end_line"] - 1, d["end_column"] - 1): peak_of(d["message"]) for d in check_json(path) if d["rule"] == "oom"}
    got_oom = {(h["position"]["line"], h["position"]["character"]): h["label"] for h in hints if h["label"].startswith("OOM")}
    want_oom = {(ln, lsp_position(text, ln + 1, col + 1)["character"]): "OOM " + p for (ln, col), p in ooms.items()}
    for k, label in want_oom.items():
        assert got_oom.get(k) == label, (k, label, got_oom)
    # each hint is the peak its value's hover shows
    for h in hints:
        pos = dict(h["position"])
        pos["character"] -= 1
        md = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": pos})["result"]["contents"]["value"]
        size = re.sub(r"^(OOM|near) ", "", h["label"])
        assert "Peak **%s**" % size in md, (h, md)
    # every value of the memory axes written here has one: 4 models + 4 batches + 3 lengths + 2 GC + 1 amp
    v = subprocess.run([EXE, "check", "-v", path], capture_output=True, text=True).stdout
    nvals = sum(int(n) for n in re.findall(r"\(sweep\) -> \w+: (\d+) values?", v))
    assert len(hints) == nvals, (len(hints), nvals, hints)
    for h in hints:
        assert re.fullmatch(r"(OOM |near )?[0-9.]+ [KMGT]iB", h["label"]), h
        assert h["paddingLeft"] is True and "worst combination" in h["tooltip"], h
    # a range covering one line gets that line's hints only
    ln = text.splitlines().index("    values: [32, 64, 128, 256]")
    r = c.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {
        "start": {"line": ln, "character": 0}, "end": {"line": ln, "character": 99}}})
    assert len(r["result"]) == 4 and all(h["position"]["line"] == ln for h in r["result"]), r
    c.close()
    sanitizer_clean(c)


ACTIONS = """\
# 배치 실험 🎉
program: train.py
method: grid
parameters:
  model_name_or_path: {value: bert-base-uncased}  # 모델 🎉
  max_seq_length: {value: 512}
  per_device_train_batch_size:
    value: 512  # 배치 🎉 크기
command:
  - ${env}
  - ${interpreter}
  - ${program}
  - ${args}
"""

REMOVE = """\
program: train.py
method: grid
parameters:
  model_name_or_path: {value: bert-base-uncased}
  max_seq_length: {values: [128, 512]}
  per_device_train_batch_size: {values: [8, 16, 100000]}  # 한국어 🎉
command:
  - ${env}
  - ${interpreter}
  - ${program}
  - ${args}
"""


def actions_at(c, uri, text, path, rule="oom", encoding="utf-16"):
    out = []
    for d in check_json(path):
        if d["rule"] != rule:
            continue
        rng = {"start": lsp_position(text, d["line"], d["column"], encoding),
               "end": lsp_position(text, d["end_line"], d["end_column"], encoding)}
        r = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng,
                                                  "context": {"diagnostics": []}})
        out += r["result"]
    return out


@case("code actions: batch -> the largest that fits with the accumulation keeping the effective batch; "
      "disable comment; applied by the client, check agrees")
def _():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sweep.yaml")
        with open(path, "w") as f:
            f.write(ACTIONS)
        assert any(x["rule"] == "oom" for x in check_json(path)), check_json(path)
        for enc in (None, ["utf-8"]):
            c = Client(EXE)
            r = c.initialize(encodings=enc)
            e = r["result"]["capabilities"]["positionEncoding"]
            uri, text = open_doc(c, path)
            acts = actions_at(c, uri, text, path, encoding=e)
            batch = [a for a in acts if a["title"].startswith("Use per_device_train_batch_size")]
            assert len(batch) == 1, [a["title"] for a in acts]
            new = apply_edits(text, doc_edits(batch[0], uri), e)
            m = re.search(r"Use per_device_train_batch_size (\d+) with gradient_accumulation_steps (\d+)", batch[0]["title"])
            b, g = int(m.group(1)), int(m.group(2))
            assert b * g == 512 and b < 512, batch[0]["title"]
            assert "value: %d  # 배치 🎉 크기" % b in new and "gradient_accumulation_steps: {value: %d}" % g in new, new
            with open(os.path.join(d, "fixed.yaml"), "w") as f:
                f.write(new)
            after = check_json(os.path.join(d, "fixed.yaml"))
            assert not any(x["rule"] == "oom" for x in after), after
            dis = [a for a in acts if a["title"].startswith("Disable oom")]
            assert len(dis) == 1, [a["title"] for a in acts]
            new = apply_edits(text, doc_edits(dis[0], uri), e)
            # the finding's line has a comment: the directive goes on its own line above it
            assert "\n  # sweeplint: disable=oom\n  model_name_or_path: {value: bert-base-uncased}  # 모델 🎉\n" in new, new
            with open(os.path.join(d, "disabled.yaml"), "w") as f:
                f.write(new)
            assert not any(x["rule"] == "oom" for x in check_json(os.path.join(d, "disabled.yaml")))
            c.close()
            sanitizer_clean(c)


@case("code actions: remove a value that fits in no combination (edits on the original bytes)")
def _():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sweep.yaml")
        with open(path, "w") as f:
            f.write(REMOVE)
        c = Client(EXE)
        c.initialize()
        uri, text = open_doc(c, path)
        acts = actions_at(c, uri, text, path)
        rm = [a for a in acts if a["title"].startswith("Remove per_device_train_batch_size 100000")]
        assert len(rm) == 1, [a["title"] for a in acts]
        assert rm[0].get("isPreferred") and rm[0]["diagnostics"][0]["code"] == "oom", rm
        new = apply_edits(text, doc_edits(rm[0], uri))
        assert new == REMOVE.replace("[8, 16, 100000]", "[8, 16]"), new
        assert not any(a["title"].startswith("Use ") for a in acts)  # three batch values: no accumulation pairing
        c.close()
        sanitizer_clean(c)


@case("every fixture: hover, inlay hints and code actions answer at every finding; each action, applied, does what it says")
def _():
    c = Client(EXE)
    c.initialize()
    nact = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in FIXTURES:
            uri, text = open_doc(c, path)
            c.diagnostics(uri)
            end = {"line": len(text.splitlines()) + 1, "character": 0}
            hints = c.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {
                "start": {"line": 0, "character": 0}, "end": end}})["result"]
            assert isinstance(hints, list), hints
            before = check_json(path)
            for d in before:
                if "path" in d:
                    continue
                rng = {"start": lsp_position(text, d["line"], d["column"]),
                       "end": lsp_position(text, d["end_line"], d["end_column"])}
                h = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": rng["start"]})
                assert "result" in h, h
                acts = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng,
                                                             "context": {"diagnostics": []}})["result"]
                for a in acts:
                    nact += 1
                    new = apply_edits(text, doc_edits(a, uri))
                    # beside the original: the same folder, so the same configs and project config
                    out = os.path.join(os.path.dirname(path), ".lsp-action-%d.yaml" % os.getpid())
                    try:
                        with open(out, "w") as f:
                            f.write(new)
                        after = check_json(out)
                    finally:
                        os.unlink(out)
                    for rule in ("syntax", "schema"):
                        assert sum(x["rule"] == rule for x in after) <= sum(x["rule"] == rule for x in before), \
                            (path, a["title"], rule, after)
                    if a["title"].startswith("Disable "):
                        g = a["diagnostics"][0]     # the finding the action is about (the range may hold several)
                        line, msg = g["range"]["start"]["line"] + 1, g["message"].split("\nhint: ")[0]
                        assert not any(x["rule"] == g["code"] and x["line"] in (line, line + 1) and x["message"] == msg
                                       for x in after), (path, a["title"], g, after)
                    else:
                        n = lambda fs: sum(x["rule"] == "oom" for x in fs)  # noqa: E731
                        assert n(after) < n(before), (path, a["title"], after)
    assert nact >= 20, nact
    c.close()
    sanitizer_clean(c)


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def next_response(c):
    while True:
        m = c.read()
        if "method" not in m:
            return m
        c.notes.append(m)


@case("malformed JSON-RPC: bad headers, bad JSON, wrong types, unknown methods — answered per the protocol")
def _():
    c = Client(EXE)
    c.initialize()
    c.raw(b"Content-Length: abc\r\n\r\n")                      # a bad header: logged, skipped
    c.raw(b"X-Nothing: 1\r\n\r\n")                             # no Content-Length: logged, skipped
    c.raw(b"Content-Length: 9\r\n\r\n{not json")               # ParseError, id null
    r = next_response(c)
    assert r["error"]["code"] == -32700 and r["id"] is None, r
    for body, code, rid in ((b"[1, 2]", -32600, None), (b'{"jsonrpc": "2.0", "id": 7, "method": 5}', -32600, 7),
                            (b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "shutdown"}', -32600, None),
                            (b'{"jsonrpc": "1.0", "id": 8, "method": "shutdown"}', -32600, 8),
                            (b'{"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover", "params": [1]}', -32602, 9),
                            (b'{"jsonrpc": "2.0", "id": 10, "method": "textDocument/hover", "params": '
                             b'{"textDocument": {"uri": "file:///x"}, "position": {"line": "a", "character": 0}}}',
                             -32602, 10),
                            (b'{"jsonrpc": "2.0", "id": "s", "method": "workspace/frobnicate", "params": {}}', -32601, "s"),
                            (b'{"jsonrpc": "2.0", "id": 11, "method": "$/unknownRequest"}', -32601, 11)):
        c.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        r = c.wait_response(rid) if rid is not None else next_response(c)
        assert r.get("error", {}).get("code") == code and r["id"] == rid, (body, r)
    # unknown notifications and $/ notifications get no answer: the next answer is the next request's
    c.notify("workspace/frobnicated", {"x": 1})
    c.notify("$/cancelRequest", {"id": 1})
    c.notify("$/setTrace", {"value": "off"})
    r = c.request("textDocument/hover", {"textDocument": {"uri": "file:///not/open.yaml"},
                                         "position": {"line": 0, "character": 0}})
    assert r["result"] is None, r
    logs = [m for m in c.notes if m["method"] == "window/logMessage"]
    assert any("Content-Length" in m["params"]["message"] for m in logs), logs
    r, rc = c.close()
    assert rc == 0, c.stderr
    sanitizer_clean(c)


@case("a document past 4 MiB (the input bound): one clear diagnostic, not a lint; the server goes on serving")
def _():
    c = Client(EXE)
    c.initialize()
    big = "# " + "x" * ((4 << 20) - 1) + "\n"
    uri = "file:///tmp/sweeplint-lsp-big.yaml"
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": big}})
    diags = c.diagnostics(uri, timeout=120)
    assert len(diags) == 1 and "past the 4 MiB limit" in diags[0]["message"] and diags[0]["severity"] == 1, diags
    del big
    path = "fixtures/sweeps/bi-encoder.yaml"
    uri2, text = open_doc(c, path)
    assert got(c.diagnostics(uri2)) == expected(path, text, "utf-16")
    c.close()
    sanitizer_clean(c)


@case("a change storm: 3,000 changes with hovers in between, every request answered, the last version published")
def _():
    c = Client(EXE)
    c.initialize()
    path = "fixtures/sweeps/bi-encoder.yaml"
    uri, text = open_doc(c, path)
    out = []
    hover_ids = []
    for v in range(2, 3002):
        t = text.replace("[32, 64, 128, 256]", "[32, 64, 128, %d]" % (256 + v % 7))
        out.append(c.frame(c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                                               "contentChanges": [{"text": t}]}, send=False)))
        if v % 100 == 0:
            hover_ids.append(c.next_id)
            out.append(c.frame({"jsonrpc": "2.0", "id": c.next_id, "method": "textDocument/hover",
                                "params": {"textDocument": {"uri": uri}, "position": {"line": 10, "character": 18}}}))
            c.next_id += 1
    out.append(c.frame(c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3002},
                                                           "contentChanges": [{"text": text}]}, send=False)))
    c.raw(b"".join(out))
    for rid in hover_ids:
        r = c.wait_response(rid, timeout=120)
        assert "Peak" in r["result"]["contents"]["value"], r
    diags = c.diagnostics(uri, version=3002, timeout=120)
    assert got(diags) == expected(path, text, "utf-16")
    c.close()
    sanitizer_clean(c)


@case("memory does not grow across 10,000 edits, each linted (one arena per lint, freed)")
def _():
    env = dict(os.environ)
    # ASan keeps freed memory in quarantine: without it, RSS shows what the server holds
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0").lstrip(":")
    c = Client(EXE, env=env)
    c.initialize()
    # a small sweep (6 memory combinations, an OOM value) keeps 10,000 lints quick under ASan
    uri, text = open_doc(c, "memory.yaml", text=REMOVE, uri="untitled:memory.yaml")
    c.diagnostics(uri, version=1)
    samples = {}
    for v in range(2, 10002):
        t = text.replace("100000]", "%d]" % (100000 + v % 97))
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": t}]})
        diags = c.diagnostics(uri, version=v)   # each edit linted before the next is sent
        assert any(d.get("code") == "oom" for d in diags), diags
        c.notes.clear()
        if v in (1001, 10001):
            samples[v] = rss_kib(c.p.pid)
    growth = samples[10001] - samples[1001]
    print("# RSS after 1,000 edits %d KiB, after 10,000 edits %d KiB (growth %d KiB)" % (samples[1001], samples[10001], growth))
    assert growth < 4096, samples
    c.close()
    sanitizer_clean(c)


@case("a .sweeplint.yaml document: its own problems (not sweep rules), and saving it lints the open sweeps again")
def _():
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, ".git"))
        cfg = os.path.join(d, ".sweeplint.yaml")
        good = "gpu: rtx-4090\nrules:\n  grid-size: off\n"
        with open(cfg, "w") as f:
            f.write(good)
        sweep = os.path.join(d, "sweep.yaml")
        with open("fixtures/sweeps/bi-encoder.yaml") as f, open(sweep, "w") as g:
            g.write(f.read())
        c = Client(EXE, cwd=d)
        c.initialize()
        suri, stext = open_doc(c, sweep)
        assert got(c.diagnostics(suri)) == expected(sweep, stext, "utf-16", cwd=d)
        curi, _ = open_doc(c, cfg)
        assert c.diagnostics(curi) == []          # a valid config: no finding, no not-a-sweep noise
        bad = "gpu: rtx-4090\nrules:\n  no-such-rule: error\n"
        c.notify("textDocument/didChange", {"textDocument": {"uri": curi, "version": 2},
                                            "contentChanges": [{"text": bad}]})
        assert c.diagnostics(curi, version=2) == []   # edited, not saved: nothing yet
        with open(cfg, "w") as f:
            f.write(bad)
        c.notify("textDocument/didSave", {"textDocument": {"uri": curi}, "text": bad})
        cd = c.diagnostics(curi, version=2)
        r = subprocess.run([EXE, "check", sweep], capture_output=True, text=True, cwd=d)
        m = re.search(r"\.sweeplint\.yaml:(\d+):(\d+): error: (.*) \[config\]", r.stderr)
        assert m and len(cd) >= 1, (r.stderr, cd)
        assert cd[0]["range"]["start"] == lsp_position(bad, int(m.group(1)), int(m.group(2))), (cd, m.groups())
        assert cd[0]["message"].split("\nhint: ")[0] == m.group(3), (cd, m.group(3))
        # the sweep was linted again without being touched: its config cannot be used now
        sd = c.diagnostics(suri)
        assert any("cannot be used" in x["message"] for x in sd), sd
        # context.only without quickfix: no actions
        r = c.request("textDocument/codeAction", {"textDocument": {"uri": suri}, "range": {
            "start": {"line": 0, "character": 0}, "end": {"line": 40, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.organizeImports"]}})
        assert r["result"] == [], r
        c.close()
        sanitizer_clean(c)


# --- the third hostile pass (shared/hostile/turn3, issue 34): each case fails on the code before ---

STALE_V1 = ("method: grid\nparameters:\n  model_name_or_path:\n    value: bert-base-uncased\n"
            "  per_device_train_batch_size:\n    values: [8, 16]\n")


@case("a change and, right behind it, a hover, inlay-hint or code-action request: the change's diagnostics are "
      "published (the request's lint is not swallowed)")
def _():
    c = Client(EXE)
    c.initialize()
    uri = "untitled:stale.yaml"
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                       "text": STALE_V1}})
    assert not any(d["code"] == "oom" for d in c.diagnostics(uri, version=1))
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 6, "character": 0}}
    requests = (("textDocument/hover", {"position": {"line": 5, "character": 17}}),
                ("textDocument/inlayHint", {"range": whole}),
                ("textDocument/codeAction", {"range": whole, "context": {"diagnostics": []}}))
    version = 1
    for method, extra in requests:
        for batch in ("4096", "16"):     # into OOM, and back out of it
            version += 1
            text = STALE_V1.replace("16]", batch + "]")
            change = c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                         "contentChanges": [{"text": text}]}, send=False)
            rid = c.next_id
            c.next_id += 1
            req = {"jsonrpc": "2.0", "id": rid, "method": method,
                   "params": dict({"textDocument": {"uri": uri}}, **extra)}
            c.raw(c.frame(change) + c.frame(req))     # one write: the request waits behind the change
            c.wait_response(rid)
            diags = c.diagnostics(uri, version=version, timeout=30)
            assert any(d["code"] == "oom" for d in diags) == (batch == "4096"), (method, batch, diags)
    c.close()
    sanitizer_clean(c)


@case("a header block with a wrong Content-Length and its body (negative, hex, too small, not a number, a "
      "body with line breaks): the server resynchronises on the next message's header")
def _():
    c = Client(EXE)
    c.initialize()
    bad = (b"Content-Length: -5\r\n\r\n{}", b"Content-Length: 0x10\r\n\r\n{\"a\": 1234567890}",
           b"Content-Length: 2\r\n\r\n{\"jsonrpc\": \"2.0\", \"method\": \"$/x\"}",
           b"Content-Length: many\r\n\r\n{\"x\": \"y\"}", b"Content-Length: -1\r\n\r\n{\n\n\"a\": 1\n}",
           b"Content-Length: 1\r\n\r\n{\"content-length: 3\": 1}")
    for block in bad:
        rids = []
        out = [block]
        for _ in range(5):
            rids.append(c.next_id)
            out.append(c.frame({"jsonrpc": "2.0", "id": c.next_id, "method": "textDocument/hover",
                                "params": {"textDocument": {"uri": "untitled:x"},
                                           "position": {"line": 0, "character": 0}}}))
            c.next_id += 1
        c.raw(b"".join(out))
        answered = {}
        while len(answered) < len(rids):
            r = next_response(c)   # a body cut short is answered ParseError with id null: allowed
            if r.get("id") is not None:
                answered[r["id"]] = r
            else:
                assert r["error"]["code"] in (-32700, -32600), (block, r)
        assert sorted(answered) == rids and all(r.get("result", "missing") is None for r in answered.values()), \
            (block, answered)
        c.notes.clear()
    r, rc = c.close()
    assert rc == 0, c.stderr
    sanitizer_clean(c)


@case("didChange and request positions past 2^32 are clamped to the end of the text, never wrapped")
def _():
    doc = "method: grid\nparameters:\n  x:\n    values: [1, 1]\n"
    for line, ch in ((2 ** 32, 0), (2 ** 32 + 1, 0), (2 ** 33, 5), (4, 2 ** 32), (2 ** 63 - 1, 2 ** 63 - 1)):
        c = Client(EXE)
        c.initialize()
        uri = "untitled:w.yaml"
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                           "text": doc}})
        c.diagnostics(uri, version=1)
        at = {"line": line, "character": ch}
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": at, "end": at}, "text": "\n\n\n"}]})
        diags = c.diagnostics(uri, version=2)
        lines = [d["range"]["start"]["line"] for d in diags if d["code"] == "duplicate-value"]
        assert lines == [3], (line, ch, lines)   # appended at the end: the finding stays at line 3
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
        assert "error" not in r, r               # clamped like the change, not refused
        c.close()
        sanitizer_clean(c)


@case("JSON and documents are bounded: a message past 100,000 JSON values is dropped before it is built; a "
      "document past 4 MiB is not kept (growing by edits or not) and comes back with a full text")
def _():
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0").lstrip(":")
    c = Client(EXE, env=env)
    c.initialize()
    base = rss_kib(c.p.pid)
    for unit in (b"{},", b"[],", b"0,"):
        k = ((16 << 20) - 300) // len(unit)
        body = b'{"jsonrpc":"2.0","id":77,"method":"textDocument/hover","params":{"a":[' + unit * k + b'0]}}'
        c.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        r = next_response(c)
        assert r["error"]["code"] == -32600 and "JSON values" in r["error"]["message"], r
    peak = rss_kib(c.p.pid)
    # under the bound: an array of 90,000 values is read as usual (an unknown notification: no answer)
    c.notify("$/manyValues", {"a": list(range(90000))})
    r = c.request("textDocument/hover", {"textDocument": {"uri": "untitled:none"},
                                         "position": {"line": 0, "character": 0}})
    assert r["result"] is None, r
    uri = "untitled:grow.yaml"
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                       "text": "method: grid\n"}})
    c.diagnostics(uri, version=1)
    chunk = "#" + "x" * (8 << 20) + "\n"
    end = {"line": 10 ** 6, "character": 0}
    for v in range(2, 12):
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                            "contentChanges": [{"range": {"start": end, "end": end}, "text": chunk}]})
    diags = c.diagnostics(uri, version=11, timeout=60)
    assert len(diags) == 1 and "keeps no text past it" in diags[0]["message"], diags
    held = rss_kib(c.p.pid)
    small = "method: grid\nparameters:\n  x:\n    values: [1, 1]\n"
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 12},
                                        "contentChanges": [{"text": small}]})
    assert [d["code"] for d in c.diagnostics(uri, version=12)].count("duplicate-value") == 1
    print("# VmRSS: start %d KiB, after three 16 MiB messages of values %d KiB, after 80 MiB of inserts %d KiB"
          % (base, peak, held))
    # the sanitizers' shadow and allocator caches aside, nothing of 48 MiB of values or 80 MiB of text is held
    assert held - base < 64 * 1024, (base, peak, held)
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
