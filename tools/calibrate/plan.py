#!/usr/bin/env python3
"""The device plan: which cases a lent GPU runs first, and how long each is expected to take.

  plan.py [--cases SPEC] [--budget S] [--fixture FILE.tsv]          the plan as a table
  plan.py [--cases SPEC] [--budget S] --part N --ids                 the ids of part N, comma-separated

Cases are ordered by value (cases.py TIER_*: first what the estimate predicts that no row has
measured, then what needs a role main does not have, then what the estimate does not model) and,
within a tier, by their expected device time, cheapest first. The time of a case is estimated
from its size with a line fitted to the `wall_s` of a measured file (default
fixtures/calibration/h100-2026.tsv, an H100): wall = a + k x (6 x parameters x tokens per step x
steps, x 4/3 with gradient checkpointing), and for generation a cost per decoding step
(the median over the file's generation rows), plus PROCESS_OVERHEAD_S per case for what wall_s
does not hold (the interpreter's start, the parent). The parts are consecutive runs of the order
whose estimated times add up to at most --budget seconds each: one device call per part
(tools/calibrate/device_run.sh; docs/calibration.md "Issue 33").

Standard library only.
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases as cases_mod  # noqa: E402
import measured  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_FIXTURE = os.path.join(REPO, "fixtures", "calibration", "h100-2026.tsv")
# Seconds a case costs beyond its wall_s (the child's Python start and the parent's work): a
# planning margin, not a measurement (wall_s starts inside the child).
PROCESS_OVERHEAD_S = 3.0
# A part's default budget of estimated case time: two parts and a machine start fit the 15
# minutes of device time (start ~2 min + 2 x (330 s + the environment probe and margin)).
DEFAULT_BUDGET_S = 330.0
STEPS = 3


def train_work(case, steps=STEPS):
    """Training compute of a case in FLOP: 6 x parameters x tokens per step x steps (x 4/3 with
    checkpointing's recomputed forward); DPO adds the reference's forward, GRPO trains over
    prompt + completion."""
    s = case["settings"]
    P = cases_mod.ARCHS[case["arch"]]["official_params"]
    b = max(int(s["batch_size"]), 1)
    L = int(s["seq_len"])
    if s["task"] == "seq2seq":
        L += int(s["target_len"])
    tokens = b * L * max(int(s["texts_per_example"]), 1)
    factor = 6.0
    if s.get("algorithm") == "dpo":
        tokens *= 2
        factor += 0 if s.get("ref_model") == "precomputed" else 2.0
    if s.get("algorithm") == "grpo":
        tokens = b * (int(s.get("prompt_len") or L) + int(s["completion_len"]))
    if s["gradient_checkpointing"]:
        factor *= 4.0 / 3.0
    if s.get("mode") == "generate" or case.get("phase") == "load":
        return 0.0
    return factor * P * tokens * steps


def decode_steps(case, steps=STEPS):
    """Decoding steps a case runs: generation (two generate calls, as calibrate.py runs them) or
    GRPO's rollout per step."""
    s = case["settings"]
    if s.get("mode") == "generate":
        return 2 * int(s["max_new_tokens"])
    if s.get("algorithm") == "grpo":
        return steps * int(s["completion_len"])
    return 0


def fit(path=DEFAULT_FIXTURE):
    """(a, k, per_decode): the line through the measured cases' wall_s and their training work, and
    the median cost of one decoding step of the generation rows."""
    _, rows = measured.read(path)
    known = {c["id"]: c for c in cases_mod.all_cases()}
    train, gen = [], []
    for r in rows:
        if r["metric"] not in ("nvml_used", "oom") or r["id"] not in known:
            continue
        wall = measured.note_values(r["notes"]).get("wall_s")
        if wall is None:
            continue
        case = known[r["id"]]
        if case["capacity"]:
            continue
        if decode_steps(case):
            gen.append((case, float(wall)))
        else:
            train.append((train_work(case), float(wall)))
    if len(train) < 2:
        raise ValueError("%s: fewer than two training rows with wall_s" % path)
    xs, ys = [x for x, _ in train], [y for _, y in train]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    k = sum((x - mx) * (y - my) for x, y in train) / var if var > 0 else 0.0
    k = max(k, 0.0)
    a = my - k * mx
    per_decode = statistics.median([(w - a) / decode_steps(c) for c, w in gen]) if gen else 0.05
    return a, k, max(per_decode, 0.0)


def estimate_seconds(case, model):
    a, k, per_decode = model
    return PROCESS_OVERHEAD_S + a + k * train_work(case) + per_decode * decode_steps(case)


def order(selected, model):
    """(case, estimated seconds) by tier, then by estimated time."""
    timed = [(c, estimate_seconds(c, model)) for c in selected]
    return sorted(timed, key=lambda ct: (ct[0].get("value") or 99, ct[1], ct[0]["id"]))


def parts(timed, budget):
    """Consecutive parts of the order, each at most `budget` estimated seconds (a case longer than
    the budget is a part of its own)."""
    out, cur, used = [], [], 0.0
    for c, sec in timed:
        if cur and used + sec > budget:
            out.append(cur)
            cur, used = [], 0.0
        cur.append((c, sec))
        used += sec
    if cur:
        out.append(cur)
    return out


def main(argv=None, out=sys.stdout, err=sys.stderr):
    ap = argparse.ArgumentParser(prog="plan.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="issue33", help="calibrate.py --cases SPEC (default issue33)")
    ap.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, help="estimated seconds per part")
    ap.add_argument("--fixture", default=DEFAULT_FIXTURE, help="measured TSV whose wall_s the times are fitted to")
    ap.add_argument("--part", type=int, default=0, help="with --ids: the part (1, 2, ...)")
    ap.add_argument("--ids", action="store_true", help="print the ids of --part, comma-separated")
    args = ap.parse_args(argv)
    try:
        selected = cases_mod.select(args.cases)
        model = fit(args.fixture)
    except KeyError as e:
        err.write("plan.py: no case matches %s\n" % e)
        return 2
    except (OSError, ValueError, measured.TsvError) as e:
        err.write("plan.py: %s\n" % e)
        return 2
    split = parts(order(selected, model), args.budget)
    if args.ids:
        if not 1 <= args.part <= len(split):
            err.write("plan.py: part %d of %d\n" % (args.part, len(split)))
            return 2
        out.write(",".join(c["id"] for c, _ in split[args.part - 1]) + "\n")
        return 0
    a, k, per_decode = model
    out.write("fit to %s: wall = %.1f s + %.3g s/PFLOP x work; %.1f ms per decoding step; +%.0f s a case\n"
              % (os.path.relpath(args.fixture, REPO), a, k * 1e15, per_decode * 1000, PROCESS_OVERHEAD_S))
    w = max(len(c["id"]) for p in split for c, _ in p)
    for i, p in enumerate(split, 1):
        out.write("part %d: %d cases, %.0f s estimated\n" % (i, len(p), sum(sec for _, sec in p)))
        for c, sec in p:
            out.write("  %-*s  tier %d  %5.0f s\n" % (w, c["id"], c.get("value") or 0, sec))
    return 0


if __name__ == "__main__":
    sys.exit(main())
