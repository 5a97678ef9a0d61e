#!/usr/bin/python3
"""recount: `sweeplint check -f json` must count total/fit/oom/unknown exactly.

For each case the sweep's grid is enumerated here, independently of the C
code: every combination of every parameter (W&B's grid: the product of the
`values` lists and constants), its memory settings taken through the
case's own key -> role table, and each distinct setting estimated by
`sweeplint estimate -f json ROLE=VALUE...` (a combination fits when
total_bytes <= gpu.bytes; a model estimate refuses is unknown). The counts
must equal what `check` reports for the file.

usage: recount.py SWEEPLINT   (run from the repository root)
"""
import itertools
import json
import subprocess
import sys

import yaml

# (fixture, gpu, {sweep key: role}); keys not listed are not memory-relevant
CASES = [
    ("fixtures/sweeps/bi-encoder.yaml", "h100-80gb",
     {"model.bi_model": "model", "data.batches.bi": "batch_size", "model.max_len": "seq_len",
      "trainer.gradient_checkpointing": "gradient_checkpointing", "trainer.use_amp": "amp"}),
    ("fixtures/sweeps/bi-encoder.yaml", "a100-40gb",
     {"model.bi_model": "model", "data.batches.bi": "batch_size", "model.max_len": "seq_len",
      "trainer.gradient_checkpointing": "gradient_checkpointing", "trainer.use_amp": "amp"}),
    ("fixtures/sweeps/mixed-models.yaml", "rtx4090",
     {"model": "model", "batch_size": "batch_size", "max_seq_length": "seq_len",
      "gradient_checkpointing": "gradient_checkpointing", "fp16": "amp:fp16"}),
]


def values(param):
    if "values" in param:
        return param["values"]
    if "value" in param:
        return [param["value"]]
    raise SystemExit("recount: only values/value parameters are enumerated here: %r" % param)


def role_arg(role, v):
    if role.startswith("amp:"):  # a boolean key standing for a precision (fp16: true -> amp=fp16)
        return "amp=%s" % (role[4:] if v else "off")
    if isinstance(v, bool):
        v = "true" if v else "false"
    return "%s=%s" % (role, v)


def estimate(exe, gpu, args, memo):
    key = tuple(sorted(args))
    if key not in memo:
        p = subprocess.run([exe, "estimate", "-g", gpu, "-f", "json", *key], capture_output=True, text=True)
        if p.returncode == 0:
            d = json.loads(p.stdout)
            memo[key] = d["total_bytes"] <= d["gpu"]["bytes"]
        elif "unknown model" in p.stderr:
            memo[key] = None
        else:
            raise SystemExit("recount: estimate %s failed: %s" % (" ".join(key), p.stderr.strip()))
    return memo[key]


def main():
    exe = sys.argv[1]
    failures = 0
    print("1..%d" % len(CASES))
    for n, (path, gpu, roles) in enumerate(CASES, 1):
        with open(path, encoding="utf-8") as f:
            sweep = yaml.safe_load(f)
        params = sweep["parameters"]
        keys = list(params)
        counts = {"total": 0, "fit": 0, "oom": 0, "unknown": 0}
        memo = {}
        for combo in itertools.product(*(values(params[k]) for k in keys)):
            args = [role_arg(roles[k], v) for k, v in zip(keys, combo) if k in roles]
            verdict = estimate(exe, gpu, args, memo)
            counts["total"] += 1
            counts["unknown" if verdict is None else "fit" if verdict else "oom"] += 1
        p = subprocess.run([exe, "check", "-f", "json", "-g", gpu, path], capture_output=True, text=True)
        got = json.loads(p.stdout)["files"][0]["combinations"]
        got = {k: got[k] for k in counts}
        want_rc = 1 if counts["oom"] or any(d["severity"] == "error"
                                            for d in json.loads(p.stdout)["files"][0]["diagnostics"]) else 0
        ok = got == counts and p.returncode == want_rc and (counts["oom"] == 0 or p.returncode == 1)
        failures += not ok
        print("%s %d - %s on %s: %s (%d estimates)" % ("ok" if ok else "not ok", n, path, gpu, counts, len(memo)))
        if not ok:
            print("  # check said %s, exit %d" % (got, p.returncode))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
