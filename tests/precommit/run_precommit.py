#!/usr/bin/python3
"""run_precommit: the real `pre-commit` runs sweeplint's hook in a throwaway git repository, offline.

usage: run_precommit.py SWEEPLINT PROJECT_ROOT        (TAP output; exit 77 without pre-commit or git)

The built binary's folder goes first on PATH (the hook is `language: system`: pre-commit runs
whatever `sweeplint` PATH finds). Three ways in, each on a fresh repository with a
.sweeplint.yaml that sets the project's GPU (16GiB):
  local     `repo: local` with the hook copied from the project's .pre-commit-hooks.yaml,
            `pre-commit install`, then real `git commit`s;
  try-repo  `pre-commit try-repo PROJECT_ROOT sweeplint` on the staged files (the project
            itself as the hook repository, uncommitted tracked changes included);
  remote    `repo: PROJECT_ROOT` at `rev:` its HEAD, as a user's config names the hook
            repository, `pre-commit install`, then real `git commit`s.
  pip       `repo: PROJECT_ROOT` with the `language: python` hook, sweeplint-pip: pre-commit
            makes a virtualenv and pip builds sweeplint from the repository offline
            (VIRTUALENV_SYSTEM_SITE_PACKAGES=1 for Debian's meson-python, PIP_NO_BUILD_ISOLATION=0,
            PIP_NO_INDEX=1); the build tree is not on PATH. Skipped without meson-python.
In each, a commit adding a sweep that runs out of memory (bge-m3-ko, batch 512 × max_len 8192
on 16GiB) is refused with the finding shown, and a sweep that fits is committed. In `local`, the
same sweep written as a Python dict in train.py and in a notebook is refused too (the hook's
`types_or: [yaml, python, jupyter]`), and a script without a sweep is committed. Until the
`oom` rule exists (`sweeplint rules` does not list it) the refused sweep is one W&B rejects
(`schema`) instead, and the test says so in its output. Nothing touches the network:
PRE_COMMIT_HOME, HOME and the git config live in the temporary folder.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

OOM_SWEEP = """\
# bge-m3-ko at batch 512 × max_len 8192 cannot fit 16 GiB (batch, length and precision stated: an error)
program: train.py
method: grid
parameters:
  model_name:
    value: bge-m3-ko
  batch_size:
    values: [16, 512]
  max_len:
    values: [128, 8192]
  fp16:
    value: true
"""

SCHEMA_SWEEP = """\
# W&B rejects this sweep: 'gird' is no search method
program: train.py
method: gird
parameters:
  batch_size:
    values: [16, 32]
"""

FIT_SWEEP = """\
# a small encoder at small batches fits 16 GiB
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
# a script that defines its sweep: bge-m3-ko at batch 512 x max_len 8192 cannot fit 16 GiB
import wandb

sweep_config = {
    "method": "grid",
    "parameters": {
        "model_name": {"value": "bge-m3-ko"},
        "batch_size": {"values": [16, 512]},
        "max_len": {"values": [128, 8192]},
        "fp16": {"value": True},
    },
}
sweep_id = wandb.sweep(sweep_config, project="p")
"""

PLAIN_SCRIPT = """\
# a training script without a sweep: the hook says nothing about it
import wandb

wandb.init(project="p")
wandb.log({"loss": 0.5})
"""


def notebook(source):
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source.splitlines(keepends=True)}
    return json.dumps({"cells": [cell], "metadata": {"language_info": {"name": "python"}}, "nbformat": 4,
                       "nbformat_minor": 5}, indent=1) + "\n"


PROJECT_CONFIG = """\
# the project's GPU: every sweep in this repository is checked against it
gpu: 16GiB
"""

results = []


def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))
    return ok


class Repo:
    def __init__(self, tmp, name, env):
        self.path = os.path.join(tmp, name)
        self.env = env
        os.makedirs(self.path)
        self.git("init", "-q", "-b", "main")

    def run(self, *cmd):
        p = subprocess.run(list(cmd), cwd=self.path, env=self.env, capture_output=True, timeout=300)
        return p.returncode, p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")

    def git(self, *args):
        rc, out = self.run("git", *args)
        if rc != 0:
            raise RuntimeError(f"git {' '.join(args)} failed in {self.path}:\n{out}")
        return out

    def write(self, rel, text):
        full = os.path.join(self.path, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def head(self):
        rc, out = self.run("git", "rev-parse", "-q", "--verify", "HEAD")
        return out.strip() if rc == 0 else None


def hook_from_manifest(root):
    with open(os.path.join(root, ".pre-commit-hooks.yaml"), encoding="utf-8") as f:
        hooks = yaml.safe_load(f)
    for h in hooks:
        if h["id"] == "sweeplint":
            return h
    raise SystemExit(".pre-commit-hooks.yaml has no hook 'sweeplint'")


def missing_pip_build():
    """What the offline `pip install .` of the project needs from Debian."""
    missing = []
    for mod, pkg in (("mesonpy", "python3-mesonpy"), ("virtualenv", "python3-virtualenv")):
        if subprocess.run(["/usr/bin/python3", "-c", f"import {mod}"], capture_output=True).returncode != 0:
            missing.append(pkg)
    for exe, pkg in (("patchelf", "patchelf"), ("ninja", "ninja-build"), ("cc", "gcc")):
        if not shutil.which(exe):
            missing.append(pkg)
    return missing


def commit_cases(label, repo, bad, fit, expect):
    """A refused commit (the finding shown), then an accepted one."""
    before = repo.head()
    repo.write("sweeps/bad_sweep.yaml", bad)
    repo.git("add", "sweeps/bad_sweep.yaml")
    rc, out = repo.run("git", "commit", "-q", "-m", "add a sweep that does not fit")
    check(f"{label}: the commit adding {expect['what']} is refused", rc != 0 and repo.head() == before,
          f"exit {rc}\n{out}")
    check(f"{label}: the finding is shown", expect["line"] in out and "[" + expect["slug"] + "]" in out, out)
    repo.git("rm", "-q", "--cached", "sweeps/bad_sweep.yaml")
    os.remove(os.path.join(repo.path, "sweeps/bad_sweep.yaml"))

    repo.write("sweeps/fit_sweep.yaml", fit)
    repo.git("add", "sweeps/fit_sweep.yaml")
    rc, out = repo.run("git", "commit", "-q", "-m", "add a sweep that fits")
    check(f"{label}: the commit adding a sweep that fits passes", rc == 0 and repo.head() != before,
          f"exit {rc}\n{out}")
    check(f"{label}: the hook ran on it", "sweeplint" in out and "Passed" in out, out)


def code_cases(label, repo):
    """Python files and notebooks: one defining an OOM sweep is refused, one without a sweep passes."""
    for path, text in (("train.py", OOM_SCRIPT), ("tune.ipynb", notebook(OOM_SCRIPT))):
        before = repo.head()
        repo.write(path, text)
        repo.git("add", path)
        rc, out = repo.run("git", "commit", "-q", "-m", "add " + path)
        where = path + (":cell 1:" if path.endswith(".ipynb") else ":")
        check(f"{label}: the commit adding {path} (a sweep that does not fit) is refused, the finding at "
              f"its value", rc != 0 and repo.head() == before and where in out and "[oom]" in out, f"exit {rc}\n{out}")
        repo.git("rm", "-q", "--cached", path)
        os.remove(os.path.join(repo.path, path))
    before = repo.head()
    repo.write("utils/log.py", PLAIN_SCRIPT)
    repo.git("add", "utils/log.py")
    rc, out = repo.run("git", "commit", "-q", "-m", "a script without a sweep")
    check(f"{label}: the commit adding a script without a sweep passes", rc == 0 and repo.head() != before and
          "Passed" in out, f"exit {rc}\n{out}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    exe, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    pre_commit, git = shutil.which("pre-commit"), shutil.which("git")
    if not pre_commit or not git:
        print("1..0 # SKIP pre-commit or git is not installed (.ci/run installs them from Debian)")
        return 77

    with tempfile.TemporaryDirectory(prefix="sweeplint-precommit-") as tmp:
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        env = {
            "PATH": os.path.dirname(exe) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "PRE_COMMIT_HOME": os.path.join(tmp, "pre-commit-cache"),
            "LC_ALL": "C.UTF-8",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
        }
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                env[k] = os.environ[k]
        p = subprocess.run([exe, "rules"], capture_output=True, env=env)
        has_oom = p.returncode == 0 and any(line.split()[1:2] == ["oom"] for line in p.stdout.decode().splitlines())
        if has_oom:
            bad = OOM_SWEEP
            expect = {"what": "an OOM combination", "slug": "oom", "line": "sweeps/bad_sweep.yaml:"}
        else:
            print("# the oom rule is not registered yet: the refused commit is a schema error instead")
            bad = SCHEMA_SWEEP
            expect = {"what": "a sweep W&B rejects", "slug": "schema", "line": "sweeps/bad_sweep.yaml:3:9: error:"}
        version = subprocess.run([pre_commit, "--version"], capture_output=True, env=env).stdout.decode().strip()
        print(f"# {version}")

        hook = hook_from_manifest(root)

        # 1. repo: local
        repo = Repo(tmp, "local", env)
        repo.write(".pre-commit-config.yaml", yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]},
                                                             sort_keys=False))
        repo.write(".sweeplint.yaml", PROJECT_CONFIG)
        repo.git("add", ".pre-commit-config.yaml", ".sweeplint.yaml")
        rc, out = repo.run("pre-commit", "install")
        if check("local: pre-commit install", rc == 0, out):
            repo.git("commit", "-q", "-m", "config")
            commit_cases("local", repo, bad, FIT_SWEEP, expect)
            if has_oom:
                code_cases("local", repo)

        # 2. pre-commit try-repo on the project itself (staged files)
        repo = Repo(tmp, "try-repo", env)
        repo.write(".sweeplint.yaml", PROJECT_CONFIG)
        repo.write("sweeps/bad_sweep.yaml", bad)
        repo.git("add", ".sweeplint.yaml", "sweeps/bad_sweep.yaml")
        rc, out = repo.run("pre-commit", "try-repo", root, "sweeplint")
        check(f"try-repo: {expect['what']} fails the hook", rc == 1, f"exit {rc}\n{out}")
        check("try-repo: the finding is shown", expect["line"] in out and "[" + expect["slug"] + "]" in out, out)
        repo.git("rm", "-q", "--cached", "sweeps/bad_sweep.yaml")
        repo.write("sweeps/fit_sweep.yaml", FIT_SWEEP)
        repo.git("add", "sweeps/fit_sweep.yaml")
        rc, out = repo.run("pre-commit", "try-repo", root, "sweeplint")
        check("try-repo: a sweep that fits passes", rc == 0 and "Passed" in out, f"exit {rc}\n{out}")

        # 3. the remote-repository form, pinned to the project's HEAD
        p = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, env=env)
        sha = p.stdout.decode().strip()
        repo = Repo(tmp, "remote", env)
        repo.write(".pre-commit-config.yaml", yaml.safe_dump(
            {"repos": [{"repo": root, "rev": sha, "hooks": [{"id": "sweeplint"}]}]}, sort_keys=False))
        repo.write(".sweeplint.yaml", PROJECT_CONFIG)
        repo.git("add", ".pre-commit-config.yaml", ".sweeplint.yaml")
        rc, out = repo.run("pre-commit", "install", "--install-hooks")
        if check(f"remote: pre-commit install --install-hooks (rev {sha[:12]})", rc == 0, out):
            repo.git("commit", "-q", "-m", "config")
            commit_cases("remote", repo, bad, FIT_SWEEP, expect)

        # 4. the hook that installs itself (`language: python`): pre-commit makes a virtualenv and
        # pip builds sweeplint from the repository (pyproject.toml) with Debian's meson-python,
        # offline. The build tree is not on PATH here: only the hook's own environment has sweeplint.
        missing = missing_pip_build()
        if missing:
            print(f"# SKIP sweeplint-pip: missing {' '.join(missing)} (tools/dev.sh installs them)")
        else:
            pip_env = dict(env)
            pip_env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
            pip_env.update({"VIRTUALENV_SYSTEM_SITE_PACKAGES": "1",  # meson-python from Debian
                            "PIP_NO_BUILD_ISOLATION": "0",           # pip's spelling of --no-build-isolation
                            "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
            on_path = shutil.which("sweeplint", path=pip_env["PATH"])
            if on_path:  # another sweeplint would make the proof moot
                pip_env["PATH"] = os.pathsep.join(d for d in pip_env["PATH"].split(os.pathsep)
                                                  if not os.path.exists(os.path.join(d, "sweeplint")))
            repo = Repo(tmp, "pip", pip_env)
            repo.write(".pre-commit-config.yaml", yaml.safe_dump(
                {"repos": [{"repo": root, "rev": sha, "hooks": [{"id": "sweeplint-pip"}]}]}, sort_keys=False))
            repo.write(".sweeplint.yaml", PROJECT_CONFIG)
            repo.git("add", ".pre-commit-config.yaml", ".sweeplint.yaml")
            rc, out = repo.run("pre-commit", "install", "--install-hooks")
            installed = glob.glob(os.path.join(env["PRE_COMMIT_HOME"], "repo*", "py_env-*", "bin", "sweeplint"))
            check(f"pip: pre-commit install --install-hooks builds sweeplint-pip (rev {sha[:12]})",
                  rc == 0 and installed, f"exit {rc}\n{out}")
            check("pip: no sweeplint on PATH outside the hook's environment",
                  shutil.which("sweeplint", path=pip_env["PATH"]) is None, pip_env["PATH"])
            if rc == 0:
                repo.git("commit", "-q", "-m", "config")
                commit_cases("pip", repo, bad, FIT_SWEEP, expect)

        # a file the hook's pattern does not select is not checked
        repo = Repo(tmp, "pattern", env)
        repo.write(".pre-commit-config.yaml", yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]},
                                                             sort_keys=False))
        repo.write("config/model.yaml", bad)
        repo.git("add", ".pre-commit-config.yaml", "config/model.yaml")
        rc, out = repo.run("pre-commit", "run")
        check("files: pattern leaves config/model.yaml alone", rc == 0 and "no files to check" in out.lower(),
              f"exit {rc}\n{out}")

    print(f"1..{len(results)}")
    failed = 0
    for i, (name, ok, detail) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok:
            failed += 1
            for line in detail.splitlines()[-40:]:
                print(f"#   {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
