#!/usr/bin/python3
"""run_action: the composite GitHub Action (action.yml) checked without GitHub, offline.

usage: run_action.py SWEEPLINT PROJECT_ROOT       (TAP output)

actionlint is not packaged for Debian 12, so the action is checked here:
  structure  action.yml has name, description, `runs.using: composite`, the inputs gpu, files
             and sarif with descriptions; every step runs bash (`shell: bash`) or uses a pinned
             action (@vN); every ${{ }} expression names a declared input, an earlier step's id
             and an output that step writes to $GITHUB_OUTPUT, or github.*; outputs name steps.
  scripts    every `run:` script passes `bash -n` and, when installed, shellcheck (expressions
             stand in as environment values, as the action passes them).
  example    examples/github-actions.yml uses the action with inputs it declares.
  behaviour  the action's steps run in order in a throwaway git repository standing in for a
             pull request (GITHUB_OUTPUT, GITHUB_PATH, RUNNER_TEMP, GITHUB_ACTIONS=true, `if:`
             conditions evaluated): the install step is left out (the built SWEEPLINT is on
             PATH; tests/package and tests/precommit prove the pip install) and so is the SARIF
             upload (GitHub's). A pull request adding an OOM sweep: one file selected (not the
             trainer config beside it), ::error annotations at its position, a SARIF file with
             the finding, the last step fails. One adding a script that defines an OOM sweep and
             one without a sweep: both selected, the first annotated at its value, the second silent. `files:` naming a sweep that fits: status 0, the
             fail step skipped.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

OOM_SWEEP = """\
program: train.py
method: grid
parameters:
  model_name:
    value: bge-m3-ko
  batch_size:
    values: [16, 512]
  max_len:
    values: [128, 8192]
"""

FIT_SWEEP = """\
program: train.py
method: grid
parameters:
  model_name:
    value: multilingual-minilm
  batch_size:
    values: [8, 16]
  max_len:
    values: [64, 128]
"""

OOM_SCRIPT = """\
import wandb

sweep_config = {"method": "grid", "parameters": {
    "model_name": {"value": "bge-m3-ko"},
    "batch_size": {"values": [16, 512]},
    "max_len": {"values": [128, 8192]}}}
wandb.sweep(sweep_config)
"""

results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))
    return ok


EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def refs(text):
    return EXPR.findall(text or "")


def outputs_written(script):
    return set(re.findall(r'echo "([A-Za-z_][A-Za-z0-9_-]*)=[^"]*" >> "\$GITHUB_OUTPUT"', script or ""))


def check_structure(action):
    problems = []
    for k in ("name", "description", "inputs", "runs"):
        if k not in action:
            problems.append(f"no {k}")
    runs = action.get("runs", {})
    if runs.get("using") != "composite":
        problems.append(f"runs.using is {runs.get('using')!r}, not composite")
    inputs = action.get("inputs", {})
    for name in ("gpu", "files", "sarif"):
        if name not in inputs or not inputs[name].get("description"):
            problems.append(f"input {name} missing or undescribed")
    seen = {}
    for i, step in enumerate(runs.get("steps", [])):
        label = step.get("id") or step.get("name") or f"step {i}"
        if "run" in step:
            if step.get("shell") != "bash":
                problems.append(f"{label}: run without shell: bash")
        elif "uses" in step:
            if not re.search(r"@(v\d+(\.\d+)*|[0-9a-f]{40})$", step["uses"]):
                problems.append(f"{label}: {step['uses']} is not pinned")
        else:
            problems.append(f"{label}: neither run nor uses")
        texts = [step.get("if", ""), step.get("run", "")] + [str(v) for v in (step.get("env") or {}).values()] + \
                [str(v) for v in (step.get("with") or {}).values()]
        exprs = [e for t in texts for e in refs(t)] + [step.get("if", "")]
        for e in exprs:
            for ctx, rest in re.findall(r"\b(inputs|steps|github|env|runner)\.([A-Za-z0-9_.-]+)", e):
                if ctx == "inputs" and rest not in inputs:
                    problems.append(f"{label}: unknown input {rest}")
                if ctx == "steps":
                    sid, _, out = rest.partition(".outputs.")
                    if sid not in seen:
                        problems.append(f"{label}: step {sid} is not an earlier step")
                    elif out not in seen[sid]:
                        problems.append(f"{label}: step {sid} writes no output {out}")
        if "run" in step and refs(step["run"]):
            problems.append(f"{label}: ${{{{ }}}} inside run: (pass it through env:)")
        if step.get("id"):
            seen[step["id"]] = outputs_written(step.get("run"))
    for name, out in (action.get("outputs") or {}).items():
        for e in refs(out.get("value", "")):
            m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", e)
            if not m or m.group(1) not in seen or m.group(2) not in seen[m.group(1)]:
                problems.append(f"output {name}: {e} names no step output")
    return problems


def check_scripts(action, tmp):
    problems = []
    shellcheck = shutil.which("shellcheck")
    for i, step in enumerate(action["runs"]["steps"]):
        if "run" not in step:
            continue
        path = os.path.join(tmp, f"step{i}.sh")
        env_names = " ".join(sorted((step.get("env") or {}).keys()))
        with open(path, "w", encoding="utf-8") as f:
            # the variables the runner and env: provide, declared for shellcheck
            f.write("#!/bin/bash\n# shellcheck disable=SC2034\n: \"${RUNNER_TEMP:?}\" \"${GITHUB_OUTPUT:?}\" "
                    "\"${GITHUB_PATH:?}\"\n")
            for n in env_names.split():
                f.write(f': "${{{n}?}}"\n')
            f.write(step["run"])
        p = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
        if p.returncode:
            problems.append(f"step {i}: bash -n: {p.stderr}")
        if shellcheck:
            p = subprocess.run([shellcheck, "-s", "bash", "-S", "warning", path], capture_output=True, text=True)
            if p.returncode:
                problems.append(f"step {i}: shellcheck:\n{p.stdout}")
    return problems, bool(shellcheck)


def evaluate(expr, ctx):
    """The `if:` expressions the action uses: ==, !=, &&, ||, !, strings, contexts."""
    def value(m):
        path = m.group(0).split(".")
        v = ctx
        for p in path:
            v = v.get(p, "") if isinstance(v, dict) else ""
        return repr("" if v is None else str(v))
    py = re.sub(r"\b(inputs|steps|github)(\.[A-Za-z0-9_-]+)+", value, expr)
    py = py.replace("&&", " and ").replace("||", " or ")
    py = re.sub(r"!(?!=)", " not ", py)
    return bool(eval(py, {"__builtins__": {}}, {}))  # noqa: S307 -- the action's own conditions


def substitute(text, ctx):
    def value(m):
        e = m.group(1)
        if re.fullmatch(r"[\w.-]+", e):
            v = ctx
            for p in e.split("."):
                v = v.get(p, "") if isinstance(v, dict) else ""
            return "" if v is None else str(v)
        return "true" if evaluate(e, ctx) else "false"
    return EXPR.sub(value, str(text))


def simulate(action, exe, repo, inputs, base_sha, tmp):
    """Run the action's bash steps (not install, not uses) as the runner would; returns a log."""
    runner_temp = tempfile.mkdtemp(dir=tmp, prefix="runner-")
    ctx = {"inputs": {k: v.get("default", "") for k, v in action["inputs"].items()}, "steps": {},
           "github": {"action_path": os.path.abspath(os.path.dirname(exe)),
                      "event": {"pull_request": {"base": {"sha": base_sha or ""}}}}}
    ctx["inputs"].update(inputs)
    log = {"ran": [], "skipped": [], "rc": {}, "stdout": {}}
    for step in action["runs"]["steps"]:
        sid = step.get("id") or step.get("name")
        cond = step.get("if")
        if cond and not evaluate(cond, ctx):
            log["skipped"].append(sid)
            continue
        if sid == "install" or "uses" in step:
            log["skipped"].append(sid)
            continue
        out_file = os.path.join(runner_temp, "output")
        open(out_file, "w").close()
        env = {"PATH": os.path.dirname(exe) + os.pathsep + "/usr/bin:/bin", "HOME": tmp, "LC_ALL": "C.UTF-8",
               "RUNNER_TEMP": runner_temp, "GITHUB_OUTPUT": out_file, "GITHUB_PATH": os.path.join(runner_temp, "path"),
               "GITHUB_ACTIONS": "true"}
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                env[k] = os.environ[k]
        for k, v in (step.get("env") or {}).items():
            env[k] = substitute(v, ctx)
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=repo,
                           env=env, capture_output=True, text=True, timeout=120)
        log["ran"].append(sid)
        log["rc"][sid] = p.returncode
        log["stdout"][sid] = p.stdout + p.stderr
        outs = {}
        with open(out_file, encoding="utf-8") as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                outs[k] = v
        if step.get("id"):
            ctx["steps"][step["id"]] = {"outputs": outs}
        if p.returncode != 0:
            break
    return log


def git(repo, *args):
    env = {"PATH": "/usr/bin:/bin", "HOME": repo, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout


def write(repo, rel, text):
    path = os.path.join(repo, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    exe, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(root, "action.yml"), encoding="utf-8") as f:
        action = yaml.safe_load(f)
    problems = check_structure(action)
    check("structure: composite, inputs gpu/files/sarif, steps, expressions and outputs", not problems,
          "\n".join(problems))

    with open(os.path.join(root, "examples/github-actions.yml"), encoding="utf-8") as f:
        example = yaml.safe_load(f)
    uses = [s for job in example["jobs"].values() for s in job["steps"]
            if re.fullmatch(r"[\w.-]+/sweeplint@v\d+|\./?", str(s.get("uses", "")))]
    check("examples/github-actions.yml uses the action with inputs it declares",
          len(uses) == 1 and set((uses[0].get("with") or {})) <= set(action["inputs"]),
          yaml.safe_dump(example["jobs"]))

    with tempfile.TemporaryDirectory(prefix="sweeplint-action-") as tmp:
        problems, had_shellcheck = check_scripts(action, tmp)
        check("every run: script passes bash -n" + (" and shellcheck" if had_shellcheck else
                                                    " (shellcheck not installed)"), not problems, "\n".join(problems))
        if not shutil.which("git"):
            print("# SKIP behaviour: git is not installed")
            return finish()

        # a pull request: the base has a sweep that fits, the head adds one that does not fit and
        # a trainer config (a YAML file the hook's pattern leaves alone)
        repo = os.path.join(tmp, "repo")
        os.makedirs(repo)
        git(repo, "init", "-q", "-b", "main")
        write(repo, ".sweeplint.yaml", "gpu: 16GiB\n")
        write(repo, "sweeps/fit_sweep.yaml", FIT_SWEEP)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        base = git(repo, "rev-parse", "HEAD").strip()
        write(repo, "sweeps/oom_sweep.yaml", OOM_SWEEP)
        write(repo, "configs/train.yaml", "batch_size: 8\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "head")

        log = simulate(action, exe, repo, {}, base, tmp)
        sel = log["stdout"].get("select", "")
        lint = log["stdout"].get("lint", "")
        check("pull request: one sweep selected (the added one, not the config)",
              "1 file(s) to lint" in sel, f"{log}")
        check("pull request: ::error annotation at the OOM value", re.search(
            r"^::error file=sweeps/oom_sweep\.yaml,line=\d+,.*\[oom\]|^::error file=sweeps/oom_sweep\.yaml,line=\d+.*oom",
            lint, re.M), lint)
        sarif_path = os.path.join(repo, "sweeplint.sarif")
        try:
            with open(sarif_path, encoding="utf-8") as f:
                sarif = json.load(f)
            rules = [r["ruleId"] for run in sarif["runs"] for r in run["results"]]
        except (OSError, ValueError, KeyError) as e:
            rules = [f"unreadable: {e}"]
        check("pull request: the SARIF file holds the oom finding", "oom" in rules, f"{rules}")
        check("pull request: the last step fails (exit 1), after the SARIF step",
              log["ran"][-1] == "Fail on error-level findings" and log["rc"][log["ran"][-1]] == 1
              and "sarif" in log["ran"], f"{log['ran']} {log['rc']}")

        # a pull request adding Python: a script defining a sweep that does not fit, and one without a
        # sweep; both selected (the hook's pattern), the first annotated, the second silent
        base = git(repo, "rev-parse", "HEAD").strip()
        write(repo, "train.py", OOM_SCRIPT)
        write(repo, "utils.py", "import os\nprint(os.getcwd())\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "python")
        log = simulate(action, exe, repo, {"sarif": ""}, base, tmp)
        lint = log["stdout"].get("lint", "")
        check("pull request with Python: both scripts selected, train.py annotated at its value, utils.py silent",
              "2 file(s) to lint" in log["stdout"].get("select", "") and
              re.search(r"^::error file=train\.py,line=5,.*oom", lint, re.M) and "utils.py" not in lint
              and log["rc"][log["ran"][-1]] == 1, f"{log}")

        log = simulate(action, exe, repo, {"files": "sweeps/**/fit_*.yaml", "sarif": ""}, "", tmp)
        check("files: a glob naming a sweep that fits: status 0, no SARIF step, no failure",
              "1 file(s) to lint" in log["stdout"].get("select", "") and log["rc"].get("lint") == 0
              and "sarif" not in log["ran"] and "Fail on error-level findings" in log["skipped"],
              f"{log}")
    return finish()


def finish():
    print(f"1..{len(results)}")
    failed = 0
    for i, (name, ok, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok:
            failed += 1
            for line in str(detail).splitlines()[-40:]:
                print(f"#   {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
