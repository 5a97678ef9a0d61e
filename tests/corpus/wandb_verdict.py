#!/usr/bin/python3
"""W&B's verdict on sweep files, computed the way W&B computes it.

    wandb_verdict.py SCHEMA FILE...    one JSON object per line:
                                       {"file", "verdict": "syntax"|"reject"|"ok"|"not-a-sweep", "reasons"}

yaml.safe_load (PyYAML, as the wandb CLI reads sweep files), then what
wandb/sweeps rejects (config/cfg.py schema_violations_from_proposed_config):
the JSON schema with its "float"/"integer" format checkers, `parameters`
required unless scheduler.search_space, metric/metrics and scheduler rules,
and schema.py's validate_min_max / validate_categorical_prob — applied here to
nested parameters too, since HyperParameterSet.from_config builds every leaf
with fill_parameter (which runs validate_min_max). Deprecated distributions
(log_uniform, ...) are reported by wandb as a validation message but still
sample; they are not counted as a rejection (see docs/sweep-model.md).

A W&B Launch sweep config (`wandb launch-sweep`: a top-level job, image_uri or
launch, or a scheduler without `engine` holding launch keys) goes through
launch_sweep() first (wandb/wandb@b6e29505 wandb/cli/cli.py): `launch` and
`scheduler` (with `settings`) are popped, the method comes from
scheduler.settings.method (or 'custom' for a scheduler job), and
construct_scheduler_args() wants exactly one of job / image_uri; the rest is
validated as a sweep.
"""
import json
import sys

try:
    import jsonschema
    import yaml
except ImportError:
    sys.exit(77)


def format_checker():
    fc = jsonschema.FormatChecker()
    fc.checks("float")(lambda v: isinstance(v, float))
    fc.checks("integer")(lambda v: isinstance(v, int))
    return fc


def param_leaves(params, prefix=""):
    """(name, config) of every non-dict parameter, nested ones included."""
    if not isinstance(params, dict):
        return
    for k, v in params.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and "parameters" in v and set(v) == {"parameters"}:
            yield from param_leaves(v["parameters"], name + ".")
        else:
            yield name, v


def accepted_violation(e, cfg):
    """A violation W&B only warns about: the server returns it with the created sweep ("Malformed sweep
    config detected!", wandb/sweeps#11): an unknown top-level key (never read), a metric goal or impute
    outside its enum (schema.py fill_validate_metric(s) drops it for the default). Not with a local
    controller: wandb_controller.py _validate() stops `wandb sweep` on any violation."""
    ctl = cfg.get("controller")
    if isinstance(ctl, dict) and ctl.get("type") == "local":
        return False
    path = list(e.absolute_path)
    if not path and e.validator == "additionalProperties":
        return True
    return (len(path) == 2 and path[0] == "metric" or len(path) == 3 and path[0] == "metrics") and \
        path[-1] in ("goal", "impute")


def client_refusals(cfg):
    """wandb/wandb@b6e29505 wandb/sdk/internal/internal_api.py _validate_config_and_fill_distribution(), run
    by upsert_sweep before the upload: a top-level parameter with min and max and no distribution must have
    two ints or two floats, else ValueError "Parameter ... is ambiguous"."""
    out = []
    params = cfg.get("parameters")
    if not isinstance(params, dict):
        return out
    for name, p in params.items():
        if isinstance(p, dict) and "min" in p and "max" in p and "distribution" not in p:
            lo, hi = p["min"], p["max"]
            if not (isinstance(lo, int) and isinstance(hi, int)) and not (isinstance(lo, float) and isinstance(hi, float)):
                out.append(f"Parameter {name} is ambiguous")
    return out


def violations(cfg, validator):
    out = [e.message for e in validator.iter_errors(cfg) if not accepted_violation(e, cfg)]
    out += client_refusals(cfg)
    method = cfg.get("method")
    sched = cfg.get("scheduler")
    has_space = isinstance(sched, dict) and bool(sched.get("search_space"))
    if "parameters" not in cfg and not has_space:
        out.append("`parameters` is required unless `scheduler.search_space` is set.")
    if "metric" in cfg and "metrics" in cfg:
        out.append("`metric` and `metrics` cannot both be set")
    elif "metrics" in cfg and method is not None and method != "custom":
        out.append("`metrics` requires `method: custom`")
    if sched is not None:
        ctl = cfg.get("controller")
        if isinstance(ctl, dict) and ctl.get("type") == "local":
            out.append("local controller with scheduler")
        if "early_terminate" in cfg:
            out.append("early_terminate with scheduler")
        if isinstance(sched, dict):
            engine = sched.get("engine")
            if engine != "wandb":
                out.append(f"scheduler.engine {engine!r} is not supported")
            elif method not in ("grid", "bayes", "random"):
                out.append(f"engine wandb does not support method {method!r}")
    if method == "bayes":  # bayes_search.py: what building the first run raises (the server's 400, wandb#8290)
        leaves = [p for _, p in param_leaves(cfg.get("parameters"))]
        if "metric" not in cfg:
            out.append('Bayesian search requires "metric" section')
        elif leaves and all(isinstance(p, dict) and "value" in p and p.get("distribution", "constant") == "constant"
                            for p in leaves):
            out.append("Need at least one searchable parameter for bayes search.")
    for name, p in param_leaves(cfg.get("parameters")):
        if not isinstance(p, dict):
            out.append(f"Invalid configuration for hyperparameter {name!r}")
            continue
        if "min" in p and "max" in p:
            try:
                if p["min"] >= p["max"]:
                    out.append(f"{name}: min {p['min']} is not less than max {p['max']}")
            except TypeError as e:  # uncaught in wandb: the validation itself fails
                out.append(f"{name}: {e}")
        if "values" in p and "probabilities" in p:
            try:
                if len(p["values"]) != len(p["probabilities"]):
                    out.append(f"{name}: values and probabilities are not the same length")
                elif abs(sum(p["probabilities"]) - 1.0) > 1e-8 + 1e-5:  # np.isclose
                    out.append(f"{name}: probabilities do not sum to 1")
            except TypeError as e:
                out.append(f"{name}: {e}")
    return out


LAUNCH_SCHEDULER_KEYS = {"job", "settings", "resource", "resource_args", "docker_image", "num_workers",
                         "template_variables"}


def is_launch(cfg):
    if {"job", "image_uri", "launch"} & set(cfg):
        return True
    sched = cfg.get("scheduler")
    return isinstance(sched, dict) and "engine" not in sched and bool(LAUNCH_SCHEDULER_KEYS & set(sched))


def launch_view(cfg):
    """(the config launch_sweep sends to W&B, what launch-sweep itself refuses), as cli.py launch_sweep does."""
    cfg = dict(cfg)
    out = []
    launch_args = cfg.pop("launch", {})
    sched = cfg.pop("scheduler", {})
    if not isinstance(launch_args, dict) or not isinstance(sched, dict):
        return cfg, ["launch/scheduler is not a mapping: launch_sweep fails"]
    sched = dict(sched)
    settings = sched.pop("settings", {})
    if not isinstance(settings, dict):
        return cfg, ["scheduler.settings is not a mapping: launch_sweep fails"]
    settings = dict(settings)
    job = sched.get("job")
    method = cfg.get("method")
    if job and not method:
        cfg["method"] = "custom"
    elif job and method != "custom":
        settings["method"] = method
    if settings.get("method"):
        cfg["method"] = settings["method"]
    if not cfg.get("job") and not cfg.get("image_uri"):
        out.append("No 'job' nor 'image_uri' top-level key found in sweep config")
    elif cfg.get("job") and cfg.get("image_uri"):
        out.append("Sweep config has both 'job' and 'image_uri'")
    if sched.get("resource") == "local-process":
        if job:
            out.append("Scheduler jobs cannot be run with the 'local-process' resource")
        elif sched.get("docker_image"):
            out.append("Scheduler jobs cannot be run with the 'local-process' resource and a docker image")
    return cfg, out


def verdict(path, validator):
    try:
        with open(path, "rb") as f:
            cfg = yaml.safe_load(f)
    except Exception as e:  # a YAML error or a constructor failure: the CLI cannot read it
        return "syntax", [str(e).splitlines()[0]]
    if not isinstance(cfg, dict) or not ({"method", "parameters", "program"} & set(cfg)):
        return "not-a-sweep", []
    pre = []
    if is_launch(cfg):
        cfg, pre = launch_view(cfg)
    v = pre + violations(cfg, validator)
    return ("reject" if v else "ok"), v


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    validator = jsonschema.Draft7Validator(schema, format_checker=format_checker())
    for path in sys.argv[2:]:
        v, reasons = verdict(path, validator)
        print(json.dumps({"file": path, "verdict": v, "reasons": reasons}))


if __name__ == "__main__":
    main()
