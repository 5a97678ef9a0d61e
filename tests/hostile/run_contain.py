#!/usr/bin/python3
"""run_contain: every reader of a file a project names stays inside the project root (TAP).

usage: run_contain.py SWEEPLINT

The containment rule (include/sweeplint/path.h, docs/reliability.md "Containment"): a file that a sweep,
its program, a config or .sweeplint.yaml names is read only when its realpath lies inside the project
root; otherwise a note names the path and nothing of the file is printed. This builds a repository
beside a "victim" folder whose files each hold a distinct secret, and walks every reader with `..`,
an absolute path and a link out: the program literal open(), an argparse default, a sweep value, a
command option and word, a Hydra config_path, group option, defaults entry and group file, the
.sweeplint.yaml program:, config_dir: and models:, a sweep model value (a folder, a non-JSON file, an
absolute path, a config.json link), a local module, the program itself (a link, an absolute path,
python -m through a linked package, a shell script), a deepspeed config. For each, in text (-v),
JSON, SARIF and GitHub output: no secret is printed, the run ends with exit 0, 1 or 2, and the -v
output or stderr says the path is outside the project. The inputs came from
../shared/hostile/turn3/read-outside-repo-leak (issue 34): before the rule every one printed its secret.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

GRID = "method: grid\nparameters:\n  per_device_train_batch_size:\n    values: [8, 16]\n"
READ_CFG = ("import yaml\nfrom transformers import AutoModel\n"
            "cfg = yaml.safe_load(open({path!r}))\n"
            "AutoModel.from_pretrained(cfg['github.com']['oauth_token'])\n")


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def link(path, target):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


def build(tmp):
    """The victim's files (each its own secret) and the cases: [(name, repo folder, sweep file)]."""
    v = os.path.join(tmp, "victim")
    write(f"{v}/hosts.yml", "github.com:\n    oauth_token: SECRET_hosts_yml\n    user: victim\n")
    write(f"{v}/docker.json", '{"auths": {"ghcr.io": {"auth": "SECRET_docker_json"}}}\n')
    write(f"{v}/key.txt", "SECRET_key_txt and more\n")
    write(f"{v}/model/config.json", '{"model_type": "SECRET_model_type", "hidden_size": 8}\n')
    write(f"{v}/train.py", "from transformers import AutoModel\nAutoModel.from_pretrained('SECRET_train_py')\n")
    write(f"{v}/helper.py", "from transformers import AutoModel\nAutoModel.from_pretrained('SECRET_helper_py')\n")
    write(f"{v}/pkg/__init__.py", "")
    write(f"{v}/pkg/train.py", "from transformers import AutoModel\nAutoModel.from_pretrained('SECRET_pkg_train')\n")
    write(f"{v}/conf/main.yaml", "model:\n  name: SECRET_hydra_main\n")
    write(f"{v}/hydra_opt.yaml", "name: SECRET_hydra_option\n")
    write(f"{v}/hydra_default.yaml", "model:\n  name: SECRET_hydra_default\n")
    write(f"{v}/gh/hosts.yaml", "github.com:\n    oauth_token: SECRET_group_option\n")
    write(f"{v}/sweep.yaml", "method: grid\nparameters:\n  model_name_or_path:\n    value: SECRET_sweep_yaml\n")

    r = os.path.join(tmp, "repo")
    os.makedirs(os.path.join(r, ".git"))
    cases = []

    def case(name, sweep, files=(), links=(), repo=r, checked=None):
        for p, text in files:
            write(os.path.join(repo, p), text)
        for p, target in links:
            link(os.path.join(repo, p), target)
        f = os.path.join(repo, checked or f"s_{name}.yaml")
        if not checked:
            write(f, sweep)
        cases.append((name, repo, f))

    def prog(name, text, sweep_extra="", **kw):
        case(name, f"program: p_{name}.py\n" + GRID + sweep_extra, files=[(f"p_{name}.py", text)] + list(kw.pop("files", [])),
             **kw)

    hydra_hosts = ("import hydra\nfrom transformers import AutoModel\n"
                   "@hydra.main(config_path={cp!r}, config_name={cn!r})\n"
                   "def main(cfg):\n    AutoModel.from_pretrained(cfg.model.name)\n")
    prog("literal-relative", READ_CFG.format(path="../victim/hosts.yml"))
    prog("literal-absolute", READ_CFG.format(path=f"{v}/hosts.yml"))
    prog("literal-link", READ_CFG.format(path="hosts_link.yml"), links=[("hosts_link.yml", "../victim/hosts.yml")])
    prog("literal-linked-folder", READ_CFG.format(path="cfgdir/hosts.yml"), links=[("cfgdir", "../victim")])
    prog("json-literal", "import json\nfrom transformers import AutoModel\ncfg = json.load(open('../victim/docker.json'))\n"
         "AutoModel.from_pretrained(cfg['auths']['ghcr.io']['auth'])\n")
    prog("argparse-default", "import argparse, yaml\nfrom transformers import AutoModel\np = argparse.ArgumentParser()\n"
         "p.add_argument('--config', default='../victim/hosts.yml')\nargs = p.parse_args()\n"
         "cfg = yaml.safe_load(open(args.config))\nAutoModel.from_pretrained(cfg['github.com']['oauth_token'])\n")
    prog("sweep-value-config", "import yaml, sys\nfrom transformers import AutoModel\ncfg = yaml.safe_load(open(sys.argv[1]))\n"
         "AutoModel.from_pretrained(cfg['github.com']['oauth_token'])\n",
         sweep_extra="  config_path:\n    value: ../victim/hosts.yml\n")
    case("command-option", "program: p_cmd.py\ncommand: [python, p_cmd.py, --config, %s/hosts.yml]\n" % v + GRID,
         files=[("p_cmd.py", "import sys, yaml\nfrom transformers import AutoModel\ncfg = yaml.safe_load(open(sys.argv[2]))\n"
                 "AutoModel.from_pretrained(cfg['github.com']['oauth_token'])\n")])
    case("command-word", "command: [llamafactory-cli, train, ../victim/hosts.yml]\n" + GRID)
    prog("hydra-config-path", hydra_hosts.format(cp="../victim/conf", cn="main"))
    prog("hydra-group-option", "import hydra\nfrom transformers import AutoModel\n"
         "@hydra.main(config_path='conf', config_name='main')\ndef main(cfg):\n"
         "    AutoModel.from_pretrained(cfg.model['github.com'].oauth_token)\n",
         sweep_extra="  model:\n    value: ../../../victim/gh/hosts\n",
         files=[("conf/main.yaml", "defaults:\n  - model: base\n  - _self_\n"), ("conf/model/base.yaml", "name: bert-base-uncased\n")])
    prog("hydra-defaults-entry", hydra_hosts.format(cp="hconf", cn="main"),
         files=[("hconf/main.yaml", "defaults:\n  - /../../victim/hydra_default\n  - _self_\n")])
    prog("hydra-group-link", hydra_hosts.format(cp="lconf", cn="main"),
         files=[("lconf/main.yaml", "defaults:\n  - model: evil\n  - _self_\n")],
         links=[("lconf/model/evil.yaml", "../../../victim/hydra_opt.yaml")])
    case("model-non-json", "method: grid\nparameters:\n  model_name_or_path:\n    value: ../victim/key.txt\n")
    case("model-folder", "method: grid\nparameters:\n  model_name_or_path:\n    value: ../victim/model\n")
    case("model-absolute", f"method: grid\nparameters:\n  model_name_or_path:\n    value: {v}/model/config.json\n")
    case("model-config-link", "method: grid\nparameters:\n  model_name_or_path:\n    value: ./mdl\n",
         links=[("mdl/config.json", "../../victim/model/config.json")])
    prog("module-link", "import helper_mod\n", links=[("helper_mod.py", "../victim/helper.py")])
    case("program-link", "program: train_link.py\n" + GRID, links=[("train_link.py", "../victim/train.py")])
    case("program-absolute", f"program: {v}/train.py\n" + GRID)
    case("program-module-link", "command: [python, -m, vpkg.train]\n" + GRID, links=[("vpkg", "../victim/pkg")])
    case("program-shell", "program: run.sh\n" + GRID, files=[("run.sh", "#!/bin/sh\npython ../victim/train.py \"$@\"\n")])
    case("deepspeed-value", "method: grid\nparameters:\n  model_name_or_path:\n    value: gpt2\n"
         "  deepspeed:\n    value: ../victim/key.txt\n")
    case("deepspeed-command", "program: t.py\ncommand: [python, t.py, --deepspeed, ../victim/key.txt, '${args}']\n"
         "method: grid\nparameters:\n  model_name_or_path:\n    value: gpt2\n", files=[("t.py", "")])

    # .sweeplint.yaml paths: a repository of their own (the config applies to every sweep under it)
    def configured(name, config, sweep, files=()):
        repo = os.path.join(tmp, f"repo-{name}")
        os.makedirs(os.path.join(repo, ".git"))
        write(os.path.join(repo, ".sweeplint.yaml"), config)
        case(name, sweep, files=files, repo=repo)

    # a sweep defined in Python (`sweeplint check code.py`) that loads its sweep from a file out of the project
    case("python-sweep-relative", None, checked="code_rel.py",
         files=[("code_rel.py", "import wandb, yaml\nwandb.sweep(yaml.safe_load(open('../victim/sweep.yaml')))\n")])
    case("python-sweep-absolute", None, checked="code_abs.py",
         files=[("code_abs.py", f"import wandb, yaml\nwandb.sweep(yaml.safe_load(open('{v}/sweep.yaml')))\n")])
    case("python-sweep-link", None, checked="code_link.py",
         files=[("code_link.py", "import wandb, yaml\nwandb.sweep(yaml.safe_load(open('sweep_link.yaml')))\n")],
         links=[("sweep_link.yaml", "../victim/sweep.yaml")])

    configured("config-program", "program: ../victim/train.py\n", "program: train.py\n" + GRID)
    configured("config-config-dir", "config_dir: ../victim/conf\n", "program: p.py\n" + GRID,
               files=[("p.py", "import hydra\nfrom transformers import AutoModel\n@hydra.main(config_name='main')\n"
                       "def main(cfg):\n    AutoModel.from_pretrained(cfg.model.name)\n")])
    configured("config-models", "models:\n  - name: mymodel\n    config: ../victim/model\n",
               "method: grid\nparameters:\n  model_name_or_path:\n    value: mymodel\n")
    return cases


def main():
    binary = os.path.abspath(sys.argv[1])
    tap = common.Tap()
    if not shutil.which("python3"):
        tap.check("python3 reads the programs", True, skip="no python3 on PATH")
        return tap.finish()
    with tempfile.TemporaryDirectory(prefix="sweeplint-contain-") as tmp:
        cases = build(tmp)
        for name, repo, sweep in cases:
            texts = []
            bad = []
            for fmt in ([], ["-f", "json"], ["-f", "sarif"], ["-f", "github"]):
                args = ["check", "-g", "24GiB"] + fmt + (["-v"] if not fmt else []) + [os.path.basename(sweep)]
                p = subprocess.run([binary] + args, capture_output=True, cwd=repo, timeout=60,
                                   env=common.env(os.path.join(tmp, "nohome")))
                out = p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")
                texts.append(out)
                if p.returncode not in (0, 1, 2):
                    bad.append(f"{' '.join(fmt) or 'text'}: exit {p.returncode}")
                if "SECRET" in out:
                    i = out.index("SECRET")
                    bad.append(f"{' '.join(fmt) or 'text'} prints a secret: ...{out[max(0, i - 160):i + 40]!r}")
            tap.check(f"{name}: nothing outside the project is printed", not bad, "\n".join(bad))
            tap.check(f"{name}: -v or stderr says the path is outside the project", "outside the project" in texts[0],
                      texts[0][-900:])
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
