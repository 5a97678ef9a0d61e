#!/usr/bin/python3
"""twins: a sweep written in Python gives the findings of its YAML twin, at the right places (TAP).

usage: twins.py SWEEPLINT FIXTURES_DIR

Every fixtures/pysweep/NAME.py or NAME.ipynb with a NAME.yaml beside it is checked with
`sweeplint check -f json` under the same options (--gpu a100-80gb), and then:

  - the findings are the same: rule, severity, message, hint, code and what they assume, as
    multisets (the order of findings at one position may differ);
  - the combinations are the same (total, fit, oom, unknown, stated, assumed);
  - each finding points at the value it is about: the text at its position in the code (a notebook
    finding's cell and line read from the notebook's cells) equals the text at the YAML finding's
    position, quotes and Python/YAML spellings aside (True/true, 1e-5/1.0e-05). A value the code
    computes (a comprehension, np.linspace) is found at the computing expression: the YAML line
    says so with a comment `# CODE: EXPRESSION` naming the expression as written;
  - for a notebook, each SARIF result's region is the place in the .ipynb file where that value's
    text is written: the region's characters, read as the inside of a JSON string, are the code's.
"""
import json
import os
import re
import subprocess
import sys


def run(exe, path, fmt="json"):
    p = subprocess.run([exe, "check", "-f", fmt, "--gpu", "a100-80gb", path], capture_output=True, text=True,
                       env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"})
    if p.returncode not in (0, 1):
        raise AssertionError("%s: exit %d: %s" % (path, p.returncode, p.stderr))
    return json.loads(p.stdout)["files"] if fmt == "json" else json.loads(p.stdout)


def sarif_regions(exe, path, cd, cells):
    """Each SARIF result's region of the .ipynb text, read as JSON string content, against the code."""
    problems = []
    raw = open(path, encoding="utf-8").read().split("\n")
    results = run(exe, path, "sarif")["runs"][0]["results"]
    by = {(d["rule"], d["message"]): d for d in cd}
    if len(results) != len(cd):
        problems.append("%d SARIF results for %d findings" % (len(results), len(cd)))
    for r in results:
        reg = r["locations"][0]["physicalLocation"]["region"]
        msg = r["message"]["text"].split("\nhint: ")[0]
        d = by.get((r["ruleId"], msg))
        if d is None or reg["startLine"] != reg["endLine"]:
            problems.append("SARIF result %s: no finding or several lines" % r["ruleId"])
            continue
        text = json.loads('"%s"' % raw[reg["startLine"] - 1][reg["startColumn"] - 1:reg["endColumn"] - 1])
        code = token(cells[d["cell"]].split("\n"), d)
        if text != code or r.get("properties", {}).get("cell") != d["cell"]:
            problems.append("SARIF region of %s is %r, the code's %r" % (r["ruleId"], text, code))
    return problems


def key(d):
    return (d["rule"], d["severity"], d["message"], d.get("hint"), d["code"], tuple(d.get("assumed") or ()))


def cells_of(path):
    """A notebook's cells' texts by their number among all cells (1-based)."""
    nb = json.load(open(path, encoding="utf-8"))
    out = {}
    for i, c in enumerate(nb["cells"], 1):
        src = c.get("source", "")
        out[i] = "".join(src) if isinstance(src, list) else src
    return out


def token(lines, d):
    line = lines[d["line"] - 1]
    end = d["end_column"] - 1 if d["end_line"] == d["line"] else len(line)
    return line[d["column"] - 1:end]


def norm(t):
    t = t.strip().strip("\"'")
    low = t.lower()
    if low in ("true", "false", "none", "null"):
        return low.replace("none", "null")
    try:
        return repr(float(t))
    except ValueError:
        return t


def main():
    exe, folder = sys.argv[1], sys.argv[2]
    cases = []
    for name in sorted(os.listdir(folder)):
        stem, ext = os.path.splitext(name)
        if ext in (".py", ".ipynb") and os.path.exists(os.path.join(folder, stem + ".yaml")):
            cases.append((os.path.join(folder, name), os.path.join(folder, stem + ".yaml")))
    print("1..%d" % len(cases))
    failed = 0
    for n, (code, yaml) in enumerate(cases, 1):
        problems = []
        try:
            cf, yf = run(exe, code), run(exe, yaml)
            if len(cf) != 1 or len(yf) != 1:
                raise AssertionError("expected one sweep in each (got %d and %d)" % (len(cf), len(yf)))
            cf, yf = cf[0], yf[0]
            if cf["combinations"] != yf["combinations"]:
                problems.append("combinations differ: %s vs %s" % (cf["combinations"], yf["combinations"]))
            cd = sorted(cf["diagnostics"], key=key)
            yd = sorted(yf["diagnostics"], key=key)
            if [key(d) for d in cd] != [key(d) for d in yd]:
                problems.append("findings differ:\n  code: %s\n  yaml: %s" % ([key(d) for d in cd], [key(d) for d in yd]))
            if not cd:
                problems.append("the fixture has no finding to compare")
            ylines = open(yaml, encoding="utf-8").read().split("\n")
            if code.endswith(".ipynb"):
                cells = cells_of(code)
            else:
                clines = open(code, encoding="utf-8").read().split("\n")
            for c, y in zip(cd, yd):
                if code.endswith(".ipynb"):
                    if "cell" not in c:
                        problems.append("%s: no cell" % c["message"])
                        continue
                    clines = cells[c["cell"]].split("\n")
                ct, yt = token(clines, c), token(ylines, y)
                if norm(ct) == norm(yt):
                    continue
                m = re.search(r"#\s*%s:\s*(.*)$" % re.escape(os.path.basename(code)), ylines[y["line"] - 1])
                if m and m.group(1).strip() == ct.strip():
                    continue
                problems.append("%s [%s]: the code's finding is at %r (line %d col %d), the YAML's at %r"
                                % (c["message"][:60], c["rule"], ct, c["line"], c["column"], yt))
            if code.endswith(".ipynb"):
                problems += sarif_regions(exe, code, cd, cells)
        except (AssertionError, ValueError, OSError, KeyError) as e:
            problems.append(str(e))
        label = "%s = %s" % (os.path.basename(code), os.path.basename(yaml))
        if problems:
            failed += 1
            print("not ok %d - %s" % (n, label))
            for p in problems:
                for line in p.split("\n"):
                    print("# " + line)
        else:
            print("ok %d - %s (%d findings)" % (n, label, len(cd)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
