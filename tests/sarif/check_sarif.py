#!/usr/bin/python3
"""check_sarif: `sweeplint -f sarif` against the SARIF 2.1.0 schema and GitHub's requirements.

usage: check_sarif.py SWEEPLINT SCHEMA      (run from the repository root; TAP output)

For a sweep with findings (fixtures/sarif/findings.yaml), a clean one (fixtures/sarif/clean
sweep.yaml: a space in the name) and real corpus sweeps, the log must validate against the
OASIS schema (../shared/corpus/sarif-schema-2.1.0.json, with python3-jsonschema), carry every
property GitHub code scanning marks required (research/ecosystem.md §3.1), and say the same
as `-f json` for the same files: rule, level, message, start and end positions. Artifact URIs
are checked against urllib's percent-encoding of the path, fingerprints for their form and
for staying put when lines are added above a finding. Exit 77 (skip) without ../shared or
jsonschema.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

try:
    import jsonschema
except ImportError:
    print("1..0 # SKIP python3-jsonschema is not installed")
    sys.exit(77)

LEVEL = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT = re.compile(r"^[0-9a-f]{16}:[1-9][0-9]*$")

results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))


def run(exe, *args, env_extra=None):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    env.update(env_extra or {})
    p = subprocess.run([exe, *args], capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def github_required(log, rules_json):
    """The properties GitHub marks required, non-empty; rules as `sweeplint rules -f json` lists them."""
    problems = []
    if log.get("$schema") != "https://json.schemastore.org/sarif-2.1.0.json":
        problems.append("$schema")
    if log.get("version") != "2.1.0":
        problems.append("version")
    if len(log.get("runs", [])) != 1:
        problems.append("exactly one run")
        return problems
    run_ = log["runs"][0]
    driver = run_["tool"]["driver"]
    if driver.get("name") != "sweeplint" or not driver.get("semanticVersion"):
        problems.append("driver name/semanticVersion")
    rules = driver.get("rules", [])
    if [r.get("id") for r in rules] != [r["slug"] for r in rules_json]:
        problems.append("rule ids differ from `sweeplint rules`")
    for r, want in zip(rules, rules_json):
        for key in ("shortDescription", "fullDescription", "help"):
            text = r.get(key, {}).get("text", "")
            if not text or len(text) > 1024 and key != "help":
                problems.append(f"rule {r.get('id')}: {key}.text empty or past 1024")
        if r.get("shortDescription", {}).get("text") != want["summary"]:
            problems.append(f"rule {r.get('id')}: shortDescription is not the summary")
        if r.get("defaultConfiguration", {}).get("level") != LEVEL[want["severity"]]:
            problems.append(f"rule {r.get('id')}: default level")
        if r.get("properties", {}).get("code") != want["code"]:
            problems.append(f"rule {r.get('id')}: code")
    if "results" not in run_:
        problems.append("results")
    for res in run_.get("results", []):
        where = f"result {res.get('ruleId')}"
        if not res.get("message", {}).get("text"):
            problems.append(f"{where}: message.text")
        if res.get("level") not in ("error", "warning", "note"):
            problems.append(f"{where}: level")
        idx = res.get("ruleIndex")
        if idx is None or rules[idx]["id"] != res.get("ruleId"):
            problems.append(f"{where}: ruleIndex")
        locs = res.get("locations", [])
        if not 1 <= len(locs) <= 10:
            problems.append(f"{where}: locations")
            continue
        pl = locs[0]["physicalLocation"]
        uri = pl["artifactLocation"].get("uri", "")
        if not uri or uri.startswith("/") or "://" in uri:
            problems.append(f"{where}: uri {uri!r} is not relative")
        region = pl.get("region", {})
        for key in ("startLine", "startColumn", "endLine", "endColumn"):
            if not isinstance(region.get(key), int) or region[key] < 1:
                problems.append(f"{where}: region.{key}")
        fp = res.get("partialFingerprints", {}).get("primaryLocationLineHash", "")
        if not FINGERPRINT.match(fp):
            problems.append(f"{where}: fingerprint {fp!r}")
    return problems


def same_as_json(log, doc):
    """Each SARIF result says what the JSON diagnostic at the same index says."""
    problems = []
    diags = [(f["path"], d) for f in doc["files"] for d in f["diagnostics"]]
    res = log["runs"][0]["results"]
    if len(res) != len(diags):
        return [f"{len(res)} results for {len(diags)} diagnostics"]
    for r, (path, d) in zip(res, diags):
        region = r["locations"][0]["physicalLocation"]["region"]
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        want_uri = urllib.parse.quote(os.path.normpath(d.get("path", path)), safe="/~")
        message = d["message"] + ("\nhint: " + d["hint"] if d.get("hint") else "")
        got = (r["ruleId"], r["level"], r["message"]["text"], uri, region["startLine"], region["startColumn"],
               region["endLine"], region["endColumn"])
        want = (d["rule"], LEVEL[d["severity"]], message, want_uri, d["line"], d["column"], d["end_line"],
                d["end_column"])
        if got != want:
            problems.append(f"got {got}, want {want}")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    exe, schema_path = os.path.abspath(sys.argv[1]), sys.argv[2]
    if not os.path.exists(schema_path):
        print(f"1..0 # SKIP {schema_path} is absent (../shared)")
        return 77
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    validator_cls = jsonschema.validators.validator_for(schema)
    validator_cls.check_schema(schema)
    validator = validator_cls(schema)
    rc, out, err = run(exe, "rules", "-f", "json")
    rules_json = json.loads(out)

    corpus = sorted(glob.glob("../shared/corpus/sweeps/**/*.yaml", recursive=True) +
                    glob.glob("../shared/corpus/sweeps/**/*.yml", recursive=True))
    cases = [
        ("findings", ["fixtures/sarif/findings.yaml"], 1),
        ("clean", ["fixtures/sarif/clean sweep.yaml"], 0),
        ("corpus", corpus, None),
    ]
    for name, files, want_rc in cases:
        rc, out, err = run(exe, "-f", "sarif", *files)
        if want_rc is not None:
            check(f"{name}: exit {want_rc}", rc == want_rc, f"exit {rc}, stderr {err!r}")
        try:
            log = json.loads(out)
        except ValueError as e:
            check(f"{name}: output is JSON", False, str(e))
            continue
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
        check(f"{name}: validates against the SARIF 2.1.0 schema", not errors,
              "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10]))
        probs = github_required(log, rules_json)
        check(f"{name}: GitHub's required properties", not probs, "\n".join(probs[:20]))
        rc2, out2, _ = run(exe, "-f", "json", *files)
        probs = same_as_json(log, json.loads(out2))
        check(f"{name}: results agree with -f json", not probs, "\n".join(probs[:10]))
        if name == "findings":
            levels = {r["level"] for r in log["runs"][0]["results"]}
            check("findings: error, warning and note results", levels == {"error", "warning", "note"}, str(levels))
        if name == "clean":
            check("clean: no results", log["runs"][0]["results"] == [], out[:200])

    # fingerprints stay put when lines are added above (and only the line moves)
    with tempfile.TemporaryDirectory() as tmp:
        src = "fixtures/sarif/findings.yaml"
        a = os.path.join(tmp, "a.yaml")
        b = os.path.join(tmp, "b.yaml")
        shutil.copy(src, a)
        with open(src, encoding="utf-8") as f, open(b, "w", encoding="utf-8") as g:
            g.write("# one\n# two\n\n" + f.read())
        fps = []
        lines = []
        for path in (a, b):
            _, out, _ = run(exe, "-f", "sarif", path)
            res = json.loads(out)["runs"][0]["results"]
            fps.append([r["partialFingerprints"]["primaryLocationLineHash"] for r in res])
            lines.append([r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in res])
            uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in res}
            check(f"absolute path outside the working directory is a file URI ({os.path.basename(path)})",
                  uris == {"file://" + urllib.parse.quote(path, safe="/~")}, str(uris))
        check("fingerprints do not move with the lines", fps[0] == fps[1] and len(set(fps[0])) == len(fps[0]),
              f"{fps}")
        check("start lines move by 3", [n + 3 for n in lines[0]] == lines[1], f"{lines}")

    print(f"1..{len(results)}")
    failed = 0
    for i, (name, ok, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok:
            failed += 1
            for line in detail.splitlines():
                print(f"#   {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
