#!/usr/bin/python3
"""run_report: `sweeplint report` on the bundled example, rendered in headless Chromium.

usage: run_report.py SWEEPLINT PROJECT_ROOT OUTDIR      (TAP output)

OUTDIR keeps report.html and the screenshot report.png of the run. Checks:
  - the document is self-contained: no <script>, <link>, <iframe>, <object>, <embed>, <img>, no
    src=/href= to anything but a fragment, no url(...) or @import in the CSS;
  - Chromium (served over a local HTTP server that records every request) renders it with no
    console message and no request but the report itself (and the favicon Chromium asks for);
    a control page with a console.error and a missing image proves both detectors fire;
  - the rendered DOM (--dump-dom) holds the expected cells: one heatmap per model value of the
    sweep, its rows and columns the sweep's batch and length values, and each cell's verdict,
    out-of-memory share and worst peak equal to what `sweeplint -f json --set` says when those
    three keys are fixed (another path through the CLI); one breakdown bar per value of each
    swept axis whose terms add up to its peak; one findings row per finding of `-f json`;
  - text from the input is escaped: a sweep whose keys and values carry markup yields no
    script or img element, and its text shows as written;
  - a screenshot is taken (a PNG of the window's size);
  - an axis of 70 values draws no heatmap (more than 64 a side) and 64 bars, each with a note.
The Chromium checks skip (TAP # SKIP) when no chromium is installed (tools/dev.sh installs it).
"""
import html.parser
import http.server
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

import yaml

EXAMPLE = ["--gpu", "h100-80gb", "--config", "examples/bi-encoder/train.yaml", "examples/bi-encoder/sweep.yaml"]
WINDOW = (1200, 1500)

HOSTILE = """\
# markup in keys, values and the program: the report must show it as text
program: "</title><script>alert(1)</script>"
method: grid
parameters:
  model_name:
    values: ["<img src=x onerror=alert(2)>", bge-m3-ko]
  "<b>batch_size</b>":
    values: [8]
  batch_size:
    values: [16, "<script>alert(3)</script>"]
"""

results = []


def check(name, ok, detail=""):
    results.append((name, "ok" if ok else "fail", detail))
    return ok


def skip(name, why):
    results.append((name, "skip", why))


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, timeout=300, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


class Dom(html.parser.HTMLParser):
    """Elements with their attributes and the path of tags above them; text per element."""

    VOID = {"meta", "br", "img", "link", "input", "hr", "rect", "path", "line"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []     # (tag, attrs dict, ancestors list of (tag, attrs))
        self.stack = []
        self.text = []         # (text, ancestors)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a, list(self.stack)))
        if tag not in self.VOID:
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs), list(self.stack)))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        self.text.append((data, list(self.stack)))

    def find(self, tag, cls=None):
        return [(t, a, anc) for t, a, anc in self.elements
                if t == tag and (cls is None or cls in a.get("class", "").split())]


def parse(text):
    d = Dom()
    d.feed(text)
    d.close()
    return d


def self_contained(text):
    d = parse(text)
    bad = [t for t, _, _ in d.elements if t in ("script", "link", "iframe", "object", "embed", "img", "base")]
    for t, a, _ in d.elements:
        for k in ("src", "href", "srcset", "action", "data"):
            if k in a and not a[k].startswith("#"):
                bad.append(f"<{t} {k}={a[k]!r}>")
    style = "".join(x for x, anc in d.text if anc and anc[-1][0] == "style")
    if re.search(r"url\s*\(|@import", style):
        bad.append("url()/@import in the CSS")
    return bad


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Server:
    """A local HTTP server for one folder that records the paths requested."""

    def __init__(self, root):
        requests = self.requests = []

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **kw):
                super().__init__(*a, directory=root, **kw)

            def log_message(self, fmt, *args):
                requests.append(self.path)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/{name}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def chromium(exe, tmp, url, *extra):
    """Run headless Chromium on url; returns (rc, stdout, console lines)."""
    env = {"HOME": tmp, "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--user-data-dir=" + os.path.join(tmp, "profile"), "--enable-logging=stderr", "--v=0",
           "--hide-scrollbars", *extra, url]
    rc, out, err = run(cmd, env=env)
    console = [line for line in err.splitlines() if ":CONSOLE" in line]
    return rc, out, console


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def json_check(exe, root, sets):
    args = [exe, "-f", "json", "--color", "never", *EXAMPLE[:4]]
    for k, v in sets:
        args += ["--set", f"{k}={v}"]
    rc, out, err = run(args + [EXAMPLE[4]], cwd=root)
    return json.loads(out)["files"][0] if out.strip() else None


def needs_gib(diags):
    """The largest 'needs X GiB' of the oom findings."""
    peaks = [float(m) for d in diags if d["rule"] == "oom" for m in re.findall(r"needs ([0-9.]+) GiB", d["message"])]
    return max(peaks) if peaks else None


def check_cells(exe, root, dom, sweep):
    figures = dom.find("figure", "heatmap")
    params = sweep["parameters"]
    if not check("one heatmap per model value of the sweep", figures and
                 [a["data-model-value"] for _, a, _ in figures] == [str(v) for v in
                                                                      params[figures[0][1]["data-model-key"]]["values"]],
                 [a for _, a, _ in figures]):
        return
    cells = dom.find("g", "cell")
    mismatches, checked = [], 0
    for _, fa, _ in figures:
        mine = [a for t, a, anc in cells if any(x[0] == "figure" and x[1] is fa for x in anc)]
        bkey, lkey = fa["data-batch-key"], fa["data-len-key"]
        rows = sorted({int(a["data-batch"]) for a in mine})
        cols = sorted({int(a["data-len"]) for a in mine})
        if rows != sorted(params[bkey]["values"]) or cols != sorted(params[lkey]["values"]) \
                or len(mine) != len(rows) * len(cols):
            mismatches.append(f"{fa['data-model']}: rows {rows} cols {cols} ({len(mine)} cells)")
            continue
        for a in mine:
            f = json_check(exe, root, [(fa["data-model-key"], fa["data-model-value"]), (bkey, a["data-batch"]),
                                       (lkey, a["data-len"])])
            c = f["combinations"]
            want = "oom" if c["oom"] else "unknown" if c["unknown"] == c["total"] else ("fit", "near")
            got = a["data-verdict"]
            ok = got == want if isinstance(want, str) else got in want
            if got == "oom":
                # the share that runs out of memory, and the worst peak of the oom finding
                ok = ok and int(a["data-count"]) * c["total"] == c["oom"] * int(a["data-combinations"])
                peak = needs_gib(f["diagnostics"])
                ok = ok and peak is not None and abs(peak - float(a["data-peak-gib"])) < 0.051
            checked += 1
            if not ok:
                mismatches.append(f"{fa['data-model']} batch {a['data-batch']} len {a['data-len']}: cell {a}, "
                                  f"json {c}, oom peak {needs_gib(f['diagnostics'])}")
    print(f"# {checked} heatmap cells compared with sweeplint -f json --set")
    check("every cell's verdict, oom share and worst peak agree with -f json --set", checked and not mismatches,
          "\n".join(mismatches[:20]))


def check_bars(dom, sweep, axis_keys):
    bars = dom.find("tr", "bar")
    rects = dom.find("rect")
    bad = []
    for _, a, _ in bars:
        segs = [float(r["data-gib"]) for _, r, anc in rects if "data-term" in r and any(x[1] is a for x in anc)]
        if not segs or abs(sum(segs) - float(a["data-peak-gib"])) > 0.05 * len(segs) + 0.01:
            bad.append(f"{a['data-value']}: terms {segs} peak {a['data-peak-gib']}")
    want = sum(len(sweep["parameters"][k]["values"]) for k in axis_keys)
    check(f"one breakdown bar per value of the swept memory axes ({want})", len(bars) == want,
          f"{len(bars)} bars: {[a['data-value'] for _, a, _ in bars]}")
    check("each bar's terms add up to its peak", bars and not bad, "\n".join(bad))


def check_caps(exe):
    """An axis of 70 values: no heatmap (a note says why), 64 bars and a note for the other 6."""
    with tempfile.TemporaryDirectory(prefix="sweeplint-report-caps-") as tmp:
        sweep = os.path.join(tmp, "wide_sweep.yaml")
        with open(sweep, "w", encoding="utf-8") as f:
            f.write("program: train.py\nmethod: grid\nparameters:\n  model_name:\n    value: multilingual-minilm\n"
                    "  batch_size:\n    values: [" + ", ".join(str(i) for i in range(1, 71)) + "]\n")
        out = os.path.join(tmp, "wide.html")
        rc, _, err = run([exe, "report", "-o", out, "--gpu", "h100-80gb", sweep])
        text = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
        d = parse(text)
        check("a 70-value axis: no heatmap but a note, 64 bars and a note for 6 more",
              rc in (0, 1) and not d.find("figure", "heatmap") and "No heatmap: 70 batch values" in text
              and len(d.find("tr", "bar")) == 64 and "6 more values of batch_size are not drawn" in text,
              f"exit {rc} {err}; figures {len(d.find('figure', 'heatmap'))}, bars {len(d.find('tr', 'bar'))}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    exe, root, outdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    os.makedirs(outdir, exist_ok=True)
    report = os.path.join(outdir, "report.html")
    if os.path.exists(report):
        os.remove(report)
    rc, out, err = run([exe, "report", "-o", report, *EXAMPLE], cwd=root)
    check("sweeplint report writes the file and exits 1 (the example has OOM findings)",
          rc == 1 and os.path.exists(report) and f"wrote {report}" in err, f"exit {rc}\n{out}{err}")
    if not os.path.exists(report):
        return finish()
    with open(report, encoding="utf-8") as f:
        text = f.read()
    bad = self_contained(text)
    check("self-contained: no script, link, image or external reference", not bad, "\n".join(bad))
    with open(os.path.join(root, "examples/bi-encoder/sweep.yaml"), encoding="utf-8") as f:
        sweep = yaml.safe_load(f)
    expected = json_check(exe, root, [])
    check_caps(exe)

    exe_chromium = find_chromium()
    if not exe_chromium:
        for name in ("chromium: a control page's console error and missing image are caught",
                     "chromium renders the report with no console message and no other request",
                     "screenshot", "the DOM holds the expected cells", "hostile input is escaped"):
            skip(name, "chromium is not installed (tools/dev.sh test installs it)")
        return finish()

    with tempfile.TemporaryDirectory(prefix="sweeplint-report-") as tmp:
        site = os.path.join(tmp, "site")
        os.makedirs(site)
        shutil.copy(report, os.path.join(site, "report.html"))
        with open(os.path.join(site, "control.html"), "w", encoding="utf-8") as f:
            f.write('<!DOCTYPE html><html><body><img src="missing.png">'
                    '<script>console.error("control")</script></body></html>')
        server = Server(site)
        try:
            rc, dom_text, console = chromium(exe_chromium, tmp, server.url("control.html"), "--dump-dom")
            fetched = [p for p in server.requests if not p.startswith("/control.html")]
            check("chromium: a control page's console error and missing image are caught",
                  any('"control"' in line for line in console) and "/missing.png" in fetched,
                  f"console {console}; requests {server.requests}")

            server.requests.clear()
            rc, dom_text, console = chromium(exe_chromium, tmp, server.url("report.html"), "--dump-dom")
            other = [p for p in server.requests if p not in ("/report.html", "/favicon.ico")]
            check("chromium renders the report with no console message and no other request",
                  rc == 0 and "</html>" in dom_text and not console and not other,
                  f"exit {rc}; console {console}; requests {server.requests}")

            png = os.path.join(outdir, "report.png")
            if os.path.exists(png):
                os.remove(png)
            rc, _, console = chromium(exe_chromium, tmp, server.url("report.html"), "--screenshot=" + png,
                                      f"--window-size={WINDOW[0]},{WINDOW[1]}")
            check(f"screenshot {png}", rc == 0 and png_size(png) == WINDOW and not console,
                  f"exit {rc}, size {png_size(png) if os.path.exists(png) else None}, console {console}")

            dom = parse(dom_text)
            check_cells(exe, root, dom, sweep)
            fig = dom.find("figure", "heatmap")
            axis_keys = []
            if fig:
                axis_keys = [fig[0][1]["data-model-key"], fig[0][1]["data-batch-key"], fig[0][1]["data-len-key"]]
                axis_keys += [k for k in sweep["parameters"] if k not in axis_keys and "gradient_checkpointing" in k]
            check_bars(dom, sweep, axis_keys)
            rows = dom.find("tr", "finding")
            want = [(d["line"], d["column"], d["rule"]) for d in expected["diagnostics"]] if expected else None
            got = [(int(a["data-line"]), int(a["data-col"]), a["data-rule"]) for _, a, _ in rows]
            check("one findings row per finding of -f json, same positions and rules", want and got == want,
                  f"report {got}\njson {want}")

            hostile = os.path.join(tmp, "hostile_sweep.yaml")
            with open(hostile, "w", encoding="utf-8") as f:
                f.write(HOSTILE)
            hreport = os.path.join(site, "hostile.html")
            rc, out, err = run([exe, "report", "-o", hreport, "--gpu", "h100-80gb", hostile])
            server.requests.clear()
            rc2, hdom_text, console = chromium(exe_chromium, tmp, server.url("hostile.html"), "--dump-dom")
            hdom = parse(hdom_text)
            injected = [t for t, _, _ in hdom.elements if t in ("script", "img")]
            shown = "".join(x for x, _ in hdom.text)
            check("hostile input is escaped: no injected element, the text shown as written",
                  rc in (0, 1) and rc2 == 0 and not injected and "<img src=x onerror=alert(2)>" in shown
                  and "<b>batch_size</b>" in shown and not console
                  and all(p in ("/hostile.html", "/favicon.ico") for p in server.requests),
                  f"exit {rc}/{rc2}; injected {injected}; console {console}; requests {server.requests}\n{err}")
        finally:
            server.close()
    return finish()


def finish():
    print(f"1..{len(results)}")
    failed = 0
    for i, (name, state, detail) in enumerate(results, 1):
        if state == "skip":
            print(f"ok {i} - {name} # SKIP {detail}")
            continue
        print(f"{'ok' if state == 'ok' else 'not ok'} {i} - {name}")
        if state != "ok":
            failed += 1
            for line in str(detail).splitlines()[-40:]:
                print(f"#   {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
