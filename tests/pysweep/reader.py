#!/usr/bin/python3
"""reader: the Python side of sweeps written in Python (src/pysweep/pysweep.py), case by case (TAP).

usage: reader.py PYSWEEP_PY

Each case is a small program of our own; the reader runs as sweeplint runs it (python3 -I -S -B, the
request on stdin) and its answer is checked: the tree W&B would receive (as Python values), why a
sweep is not read, the problems wandb.sweep would raise, the agent's function. Hostile programs
(recursion, deep nesting, huge ranges, self-reference, a budget run out) end within their bounds.
"""
import json
import subprocess
import sys
import time

PYSWEEP = sys.argv[1] if len(sys.argv) > 1 else "src/pysweep/pysweep.py"


def read(code, notebook=False, budget=400000, cells=None):
    req = {"cells": cells if cells is not None else [code], "notebook": notebook, "budget": budget}
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-I", "-S", "-B", PYSWEEP], input=json.dumps(req) + "\n",
                       capture_output=True, text=True, timeout=30)
    dt = time.monotonic() - t
    if p.returncode != 0:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr[-500:]))
    out = json.loads(p.stdout)
    out["seconds"] = dt
    return out


def value(node):
    """A tree as the Python value W&B receives."""
    k = node["k"]
    if k == "m":
        return {value(a): value(b) for a, b in node["p"]}
    if k == "s":
        return [value(i) for i in node["i"]]
    t, v = node["t"], node["v"]
    if t == "str":
        return v
    if t == "int":
        return int(v)
    if t == "float":
        return float(v.replace(".inf", "inf").replace(".nan", "nan"))
    if t == "bool":
        return v == "true"
    return None


def only(out):
    assert len(out["sweeps"]) == 1, out["sweeps"]
    return out["sweeps"][0]


CASES = []


def case(fn):
    CASES.append(fn)
    return fn


@case
def dict_literal():
    line = 'wandb.sweep({"method": "grid", "parameters": {"bs": {"values": [8, 16]}}})'
    s = only(read("import wandb\n" + line + "\n"))
    assert value(s["tree"]) == {"method": "grid", "parameters": {"bs": {"values": [8, 16]}}}
    # spans: the 16 literal, at line 2 (byte columns, as ast counts them)
    bs = s["tree"]["p"][1][1]["p"][0][1]["p"][0][1]["i"][1]
    col = line.index("16]")
    assert bs["at"] == [0, 2, col, 2, col + 2], bs["at"]


@case
def built_step_by_step():
    s = only(read("""import wandb
cfg = {"method": "random"}
cfg["metric"] = {"name": "loss", "goal": "minimize"}
params = {"lr": {"values": [0.1]}}
cfg["parameters"] = params
params.update({"bs": {"value": 4}})
params["drop"] = {"values": [0.1, 0.2]}
del params["lr"]
sid = wandb.sweep(cfg, project="p")
params["late"] = {"value": 1}
wandb.agent(sid, function=lambda: None)
"""))
    assert value(s["tree"]) == {"method": "random", "metric": {"name": "loss", "goal": "minimize"},
                                "parameters": {"bs": {"value": 4}, "drop": {"values": [0.1, 0.2]}}}, value(s["tree"])


@case
def floats_as_yaml_dumps_them():
    s = only(read('import wandb\nwandb.sweep({"parameters": {"lr": {"values": [1e-5, 3e-5, 0.1, 1e16]}}})\n'))
    texts = [i["v"] for i in s["tree"]["p"][0][1]["p"][0][1]["p"][0][1]["i"]]
    assert texts == ["1.0e-05", "3.0e-05", "0.1", "1.0e+16"], texts


@case
def names_comprehensions_numpy():
    s = only(read("""import numpy as np
import wandb
B = [2 ** i for i in range(2, 5)]
L = np.linspace(0, 1, 5).tolist()
G = np.logspace(-5, -3, 3).tolist()
A = np.arange(0.1, 0.4, 0.1).round(2).tolist()
ORG = "org"
wandb.sweep(dict(method="grid", parameters={"bs": {"values": B}, "x": {"values": L}, "g": {"values": G},
            "a": {"values": A}, "m": {"values": [f"{ORG}/m-{s}" for s in ("a", "b")]}}))
"""))
    p = value(s["tree"])["parameters"]
    assert p["bs"]["values"] == [4, 8, 16]
    assert p["x"]["values"] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert p["g"]["values"] == [10.0 ** -5, 10.0 ** -4, 10.0 ** -3], p["g"]
    # numpy's arange: ceil((0.4 - 0.1) / 0.1) = ceil(3.0000000000000004) = 4 values, 0.4 included
    assert p["a"]["values"] == [0.1, 0.2, 0.3, 0.4], p["a"]
    assert p["m"]["values"] == ["org/m-a", "org/m-b"]


@case
def not_json_serializable():
    for expr, typ in (("np.linspace(0, 1, 3)", "ndarray"), ("list(np.arange(1, 4))", "int64"),
                      ("range(3)", "range"), ("{1, 2}", "set")):
        s = only(read("import numpy as np\nimport wandb\nwandb.sweep({'parameters': {'x': {'values': %s}}})\n" % expr))
        assert s["tree"] is None and s["problems"], (expr, s)
        assert "Object of type %s is not JSON serializable" % typ in s["problems"][0]["message"], s["problems"]


@case
def tuples_are_lists():
    s = only(read("import wandb\nwandb.sweep({'parameters': {'x': {'values': (1, 2)}}})\n"))
    assert value(s["tree"]) == {"parameters": {"x": {"values": [1, 2]}}}


@case
def unknown_parts_are_said():
    s = only(read("import os, wandb\nwandb.sweep({'method': 'grid', 'parameters': {'x': {'value': os.environ['X']}}})\n"))
    assert s["tree"] is None and "parameters.x.value" in s["unknown"], s
    # a name the code computes but a key W&B ignores for memory: dropped, said
    s = only(read("import os, wandb\nwandb.sweep({'name': os.environ['N'], 'method': 'grid', 'parameters': {}})\n"))
    assert value(s["tree"]) == {"method": "grid", "parameters": {}} and s["dropped"][0][0] == "name", s


@case
def conditional_changes_are_not_guessed():
    s = only(read("""import sys, wandb
cfg = {"method": "grid", "parameters": {"bs": {"values": [8]}}}
if len(sys.argv) > 1:
    cfg["parameters"]["bs"] = {"values": [64]}
wandb.sweep(cfg)
"""))
    assert s["tree"] is None and "condition" in s["unknown"], s
    s = only(read("""import wandb
cfg = {"method": "grid", "parameters": {"bs": {"values": [8]}}}
if __name__ == "__main__":
    cfg["parameters"]["bs"] = {"values": [64]}
    wandb.sweep(cfg)
"""))
    assert value(s["tree"])["parameters"]["bs"]["values"] == [64], s


@case
def loop_over_known_list():
    s = only(read("""import wandb
params = {}
for name in ["a", "b"]:
    params[name] = {"values": [1, 2]}
wandb.sweep({"method": "grid", "parameters": params})
"""))
    assert value(s["tree"])["parameters"] == {"a": {"values": [1, 2]}, "b": {"values": [1, 2]}}, s


@case
def sweep_file_loaded():
    s = only(read("""import os, yaml, wandb
with open(os.path.join(os.path.dirname(__file__), "conf/sweep.yaml")) as f:
    cfg = yaml.safe_load(f)
wandb.sweep(cfg)
"""))
    assert s["file"]["path"] == "conf/sweep.yaml" and s["file"]["script_dir"] and not s["unknown"], s
    s = only(read('import yaml, wandb\ncfg = yaml.safe_load(open("s.yaml"))\ncfg["method"] = "grid"\nwandb.sweep(cfg)\n'))
    assert s["file"]["path"] == "s.yaml" and "changes" in s["unknown"], s


@case
def agent_function():
    s = only(read("""import wandb
def train():
    wandb.init()
sid = wandb.sweep({"method": "grid", "parameters": {}})
wandb.agent(sid, train, count=3)
"""))
    assert s["agent"]["function"] == "train" and s["agent"]["at"][1] == 2, s


@case
def agent_count_and_n_trials():
    # wandb.agent(..., count=N), positional too (sweep_id, function, entity, project, count); a module constant
    for call in ("wandb.agent(sid, train, count=3)", "wandb.agent(sid, train, None, None, 3)",
                 "N = 3\nwandb.agent(sweep_id=sid, function=train, count=N)"):
        s = only(read("import wandb\ndef train():\n    pass\nsid = wandb.sweep({'method': 'random', "
                      "'parameters': {}})\n" + call + "\n"))
        assert s["runs"]["count"] == 3 and s["runs"]["by"] == "wandb.agent(count=3)", (call, s)
    # no count, None, a count from the command line, a bool, 0: not known
    for call in ("wandb.agent(sid, train)", "wandb.agent(sid, train, count=None)",
                 "wandb.agent(sid, train, count=int(sys.argv[1]))", "wandb.agent(sid, train, count=True)",
                 "wandb.agent(sid, train, count=0)"):
        s = only(read("import sys, wandb\ndef train():\n    pass\nsid = wandb.sweep({'method': 'random', "
                      "'parameters': {}})\n" + call + "\n"))
        assert "runs" not in s, (call, s)
    # hyperparameter_search: n_trials, 20 when absent (transformers' default), not known when computed
    hp = ("from transformers import Trainer\nimport sys\ndef hp(trial):\n    return {'method': 'random', "
          "'metric': {'name': 'objective', 'goal': 'minimize'}, 'parameters': {}}\n")
    s = only(read(hp + "Trainer().hyperparameter_search(backend='wandb', hp_space=hp, n_trials=7)\n"))
    assert s["runs"]["count"] == 7 and s["runs"]["by"] == "hyperparameter_search(n_trials=7)", s
    s = only(read(hp + "Trainer().hyperparameter_search(backend='wandb', hp_space=hp)\n"))
    assert s["runs"]["count"] == 20 and "its default" in s["runs"]["by"], s
    s = only(read(hp + "Trainer().hyperparameter_search(backend='wandb', hp_space=hp, n_trials=int(sys.argv[1]))\n"))
    assert "runs" not in s, s


@case
def callable_and_function_argument():
    s = only(read("""import wandb
def make():
    return {"method": "bayes", "parameters": {"x": {"min": 0.0, "max": 1.0}}}
wandb.sweep(make)
"""))
    assert value(s["tree"])["method"] == "bayes", s
    # the argument of a function no call gives: the module's one sweep dict
    out = read("""import wandb
SWEEP = {"method": "grid", "parameters": {"x": {"value": 1}}}
def launch(cfg):
    return wandb.sweep(cfg)
""")
    s = only(out)
    assert value(s["tree"]) == {"method": "grid", "parameters": {"x": {"value": 1}}}, s
    assert any("SWEEP" in n[2] for n in out["notes"]), out["notes"]


@case
def hyperparameter_search():
    s = only(read("""from transformers import Trainer
def hp(trial):
    return {"method": "random", "metric": {"name": "objective", "goal": "minimize"},
            "parameters": {"learning_rate": {"values": [1e-5]}}}
t = Trainer()
t.hyperparameter_search(backend="wandb", hp_space=hp, direction="maximize", name="run-a")
"""))
    v = value(s["tree"])
    assert v["metric"] == {"name": "eval/loss", "goal": "maximize"} and v["name"] == "run-a", v
    # no metric: run_hp_search_wandb raises KeyError
    s = only(read("""from transformers import Trainer
Trainer().hyperparameter_search(backend="wandb", hp_space=lambda t: {"method": "grid", "parameters": {}})
"""))
    assert s["problems"] and "KeyError: 'metric'" in s["problems"][0]["message"], s
    # transformers' default space
    s = only(read("from transformers import Trainer\nTrainer().hyperparameter_search(backend='wandb')\n"))
    assert value(s["tree"])["parameters"]["per_device_train_batch_size"]["values"] == [4, 8, 16, 32, 64]
    # another backend, an existing sweep: no sweep here
    out = read("from transformers import Trainer\nt = Trainer()\nt.hyperparameter_search(hp_space=f)\n"
               "t.hyperparameter_search(backend='wandb', sweep_id='abc')\n")
    assert not out["sweeps"] and len(out["notes"]) == 2, out


@case
def notebook_magics_and_cells():
    cells = ["!pip install wandb\n%matplotlib inline\nimport wandb",
             "cfg = {'method': 'grid',\n       'parameters': {'bs': {'values': [1, 2]}}}",
             "%%bash\necho not python",
             "x = !ls\nlist_files?\n%%time is not a cell magic here",
             "%%time\nwandb.sweep(cfg)"]
    out = read(None, notebook=True, cells=cells)
    s = only(out)
    assert value(s["tree"])["parameters"]["bs"]["values"] == [1, 2], s
    assert s["at"][0] == 4 and s["at"][1] == 2, s["at"]
    col = cells[1].split("\n")[1].index("2]")
    assert s["tree"]["p"][1][1]["p"][0][1]["p"][0][1]["i"][1]["at"] == [1, 2, col, 2, col + 1]


@case
def syntax_error():
    out = read("import wandb\nwandb.sweep({'a': 1\n")
    assert out.get("error", "").startswith("syntax error"), out


@case
def hostile_recursion_and_nesting():
    out = read("""import wandb
def f(n):
    return f(n + 1)
def g():
    return g()
x = f(0)
y = g()
wandb.sweep({"method": "grid", "parameters": {"x": {"value": x}}})
""")
    s = only(out)
    assert s["tree"] is None and s["unknown"], s
    deep = "[" * 90 + "1" + "]" * 90
    out = read("import wandb\nwandb.sweep({'parameters': {'x': {'value': %s}}})\n" % deep)
    assert len(out["sweeps"]) == 1
    assert out["seconds"] < 10


@case
def hostile_sizes():
    out = read("import wandb\nwandb.sweep({'parameters': {'x': {'values': list(range(10 ** 9))}}})\n")
    assert only(out)["tree"] is None and out["seconds"] < 10, out
    out = read("import wandb\nx = [0] * 10 ** 8\nwandb.sweep({'parameters': {'x': {'values': x}}})\n")
    assert only(out)["tree"] is None and out["seconds"] < 10, out
    out = read("import wandb\nx = 'a' * 10 ** 9\nwandb.sweep({'parameters': {'x': {'value': x}}})\n")
    assert only(out)["tree"] is None and out["seconds"] < 10, out
    out = read("import wandb\nx = 10 ** 10 ** 8\nwandb.sweep({'parameters': {'x': {'value': x}}})\n")
    assert only(out)["tree"] is None and out["seconds"] < 10, out


@case
def hostile_self_reference_and_budget():
    s = only(read("import wandb\nd = {'method': 'grid'}\nd['parameters'] = d\nwandb.sweep(d)\n"))
    assert s["tree"] is None and "itself" in s["unknown"], s
    loop = "import wandb\nx = [%s]\nfor a in x:\n    for b in x:\n        for c in x:\n            y = a\n" \
           "wandb.sweep({'method': 'grid', 'parameters': {}})\n" % ", ".join(str(i) for i in range(64))
    out = read(loop, budget=20000)
    assert any("bound" in n[2] for n in out["notes"]) and out["seconds"] < 10, out


def main():
    print("1..%d" % len(CASES))
    bad = 0
    for n, fn in enumerate(CASES, 1):
        try:
            fn()
            print("ok %d - %s" % (n, fn.__name__))
        except Exception as e:  # an assertion or the reader's failure: the case's report
            bad += 1
            print("not ok %d - %s" % (n, fn.__name__))
            for line in ("%s: %s" % (type(e).__name__, e)).split("\n")[:20]:
                print("# " + line[:300])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
