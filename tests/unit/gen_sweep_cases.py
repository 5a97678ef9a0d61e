#!/usr/bin/python3
"""Generate tests/unit/sweep_cases.h: how W&B resolves and counts each parameter.

    gen_sweep_cases.py                write tests/unit/sweep_cases.h
    gen_sweep_cases.py --check FILE   regenerate and compare (exit 1 when stale; 77 without
                                      PyYAML, jsonschema or ../shared/corpus/wandb-sweep-schema.json)

For each parameter (YAML text), the oracle is W&B's own procedure run here:
yaml.safe_load, then the first `parameter.anyOf` form of the real schema that
jsonschema (Draft 7, W&B's float/integer format checkers) validates — what
wandb/sweeps' fill_parameter does — and tests/corpus/wandb_verdict.py's
verdict on a one-parameter sweep. Grid counts follow grid_search.py with
Python arithmetic: len(range(min, max + 1)), and numpy.arange's length
ceil((max - min) / q) (numpy's _calc_length), with the values
start + i * ((start + q) - start).
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA = os.path.join(ROOT, "..", "shared", "corpus", "wandb-sweep-schema.json")

try:
    import jsonschema
    import yaml
except ImportError:
    if "--check" in sys.argv:
        sys.exit(77)
    raise
if not os.path.exists(SCHEMA):
    if "--check" in sys.argv:
        sys.exit(77)
    raise SystemExit("no " + SCHEMA)

sys.path.insert(0, os.path.join(ROOT, "tests", "corpus"))
import wandb_verdict  # noqa: E402

PARAMS = [
    "{value: 3}", "{values: [1, 2]}", "{values: []}", "{values: [a], probabilities: [1.0]}",
    "{values: [a, b], probabilities: [0.5, 0.6]}", "{values: [a, b], probabilities: [0.5]}",
    "{min: 1, max: 10}", "{min: 1.0, max: 10}", "{min: 1, max: 10.0}", "{min: 0.1, max: 1.0}",
    "{min: 1e-5, max: 0.1}", "{min: 1.0e-5, max: 0.1}", "{min: 10, max: 1}", "{min: 5, max: 5}",
    "{min: 1, max: 10, distribution: uniform}", "{min: 1, max: 10, distribution: int_uniform}",
    "{min: 1.5, max: 10, distribution: int_uniform}", "{min: 0, max: 10, distribution: q_uniform, q: 2}",
    "{min: 0, max: 1, distribution: q_uniform}", "{min: 0.0, max: 1.0, distribution: q_uniform, q: 0.1}",
    "{min: 0, max: 1, distribution: q_uniform, q: 0}", "{distribution: normal}",
    "{distribution: normal, mu: 1, sigma: -1}", "{distribution: log_normal, sigma: 2}",
    "{distribution: q_log_normal}", "{distribution: q_normal, q: 5}", "{distribution: beta}",
    "{distribution: q_beta, a: 2, b: 3, q: 0.1}", "{distribution: beta, a: -1}",
    "{distribution: log_uniform, min: -10, max: -1}", "{distribution: log_uniform_values, min: 0.0001, max: 0.1}",
    "{distribution: log_uniform_values, min: 0, max: 0.1}", "{distribution: inv_log_uniform, min: 1, max: 2}",
    "{distribution: inv_log_uniform_values, min: 0.1, max: 1}", "{distribution: q_log_uniform, min: 0, max: 5}",
    "{distribution: q_log_uniform_values, min: 16, max: 256, q: 8}", "{distribution: categorical, values: [1]}",
    "{distribution: constant, value: 1}",
    "{distribution: categorical_w_probabilities, values: [1, 2], probabilities: [0.5, 0.5]}",
    "{distribution: uniform, values: [1]}", "{distribution: unknown, min: 0, max: 1}",
    "{value: 1, values: [1, 2]}", "{values: [1, 2], min: 1}", "{min: 1, max: 10, q: 2}", "{min: true, max: 10}",
    "{value: null}", "{}", "3", "[1, 2]", "{parameters: {a: {value: 1}}}", "{parameters: {}}",
    "{parameters: {a: {min: 1e-5, max: 1.0}}}", "{parameters: {a: {value: 1}}, value: 2}",
    "{parameters: {a: {min: 2, max: 1}}}", "{min: .inf, max: 1.0}", "{min: .nan, max: 1.0}",
    "{min: 0x10, max: 0x20}", "{min: 1_000, max: 2_000}", "{min: 1:00, max: 2:00}",
    "{values: [1, 2], distribution: categorical, probabilities: [0.5, 0.5]}",
    "{distribution: q_uniform, min: 0.1, max: 1.0, q: 0.3}", "{distribution: q_uniform, min: 1, max: 2, q: 0.1}",
    "{distribution: q_uniform, min: 0, max: 1000000000000, q: 1}", "{min: -9223372036854775808, max: 9223372036854775807}",
    "{distribution: q_uniform, min: -1, max: 1, q: 0.25}", "{distribution: q_uniform, min: 0.0, max: 0.3, q: 0.1}",
    "{values: [1, 2], probabilities: ['0.5', 0.5]}", "{value: 1, extra: 2}", "{distribution: normal, mu: 1e-3}",
    "{<<: {min: 1, max: 3}}", "{min: 2, max: 9, distribution: q_uniform, q: 3}",
]

FORM_DIST = {
    "param_single_value": "constant", "param_categorical": "categorical",
    "param_categorical_w_probabilities": "categorical_w_probabilities", "param_int_uniform": "int_uniform",
    "param_uniform": "uniform", "param_quniform": "q_uniform", "param_loguniform": "log_uniform",
    "param_loguniform_v2": "log_uniform_values", "param_inv_loguniform": "inv_log_uniform",
    "param_inv_loguniform_v2": "inv_log_uniform_values", "param_qloguniform": "q_log_uniform",
    "param_qloguniform_v2": "q_log_uniform_values", "param_normal": "normal", "param_qnormal": "q_normal",
    "param_lognormal": "log_normal", "param_qlognormal": "q_log_normal", "param_beta": "beta",
    "param_qbeta": "q_beta", "param_dict": "none",
}
CONTINUOUS = {"uniform", "log_uniform", "log_uniform_values", "inv_log_uniform", "inv_log_uniform_values",
              "q_log_uniform", "q_log_uniform_values", "normal", "q_normal", "log_normal", "q_log_normal", "beta",
              "q_beta"}


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_double(x):
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return float(x).hex()


def resolve(schema, cfg):
    """fill_parameter: the first anyOf form that validates."""
    fc = wandb_verdict.format_checker()
    for ref in schema["definitions"]["parameter"]["anyOf"]:
        name = ref["$ref"].split("/")[-1]
        sub = {"$ref": ref["$ref"], "definitions": schema["definitions"]}
        if jsonschema.Draft7Validator(sub, format_checker=fc).is_valid(cfg):
            return name
    return None


def grid(dist, cfg):
    """(count, first values, last value) of grid_search.py's expansion, or count "inf"/0."""
    if dist == "constant":
        return 1, [], None
    if dist in ("categorical", "categorical_w_probabilities"):
        return len(cfg["values"]), [], None
    if dist == "int_uniform":
        return max(0, cfg["max"] + 1 - cfg["min"]), [], None  # len(range(min, max + 1))
    if dist == "q_uniform":
        lo, hi, q = cfg["min"], cfg["max"], cfg.get("q", 1.0)
        n = max(0, math.ceil((hi - lo) / q))  # numpy's _calc_length
        delta = (lo + q) - lo
        vals = [lo + i * delta if i >= 2 else (lo if i == 0 else lo + q) for i in range(min(n, 3))]
        last = lo + (n - 1) * delta if n > 2 else (vals[-1] if vals else None)
        return n, vals, last
    if dist in CONTINUOUS:
        return "inf", [], None
    return 0, [], None


def case(schema, validator, text):
    cfg = yaml.safe_load("p: " + text)["p"]
    form = resolve(schema, cfg)
    dist = FORM_DIST.get(form, "none") if form else "none"
    reject = bool(wandb_verdict.violations({"method": "random", "parameters": {"p": cfg}}, validator))
    f = {"yaml": c_string(text), "dist": c_string(dist), "is_dict": "true" if form == "param_dict" else "false",
         "reject": "true" if reject else "false"}
    count, vals, last = grid(dist, cfg) if form else (0, [], None)
    if count == "inf":
        f["infinite"] = "true"
    elif count > 2**64 - 1:
        f["saturated"] = "true"
    else:
        f["count"] = "UINT64_C(%d)" % count
    if vals:
        f["nvals"] = str(len(vals))
        f["vals"] = "{" + ", ".join(c_double(v) for v in vals) + "}"
        f["last"] = c_double(last)
    return "\t{" + ", ".join(".%s = %s" % kv for kv in f.items()) + "},"


def generate():
    import json

    with open(SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    validator = jsonschema.Draft7Validator(schema, format_checker=wandb_verdict.format_checker())
    lines = ["/* Generated by tests/unit/gen_sweep_cases.py (PyYAML + jsonschema on W&B's schema). Do not edit. */",
             "static const struct sweep_case sweep_cases[] = {"]
    lines += [case(schema, validator, t) for t in PARAMS]
    lines.append("};")
    return "\n".join(lines) + "\n"


def main():
    out = generate()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        with open(sys.argv[2], encoding="utf-8") as fh:
            have = fh.read()
        if have != out:
            import difflib

            sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), out.splitlines(True), sys.argv[2],
                                                       "regenerated"))
            return 1
        return 0
    with open(os.path.join(HERE, "sweep_cases.h"), "w", encoding="utf-8") as fh:
        fh.write(out)
    print("wrote %d cases" % len(PARAMS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
