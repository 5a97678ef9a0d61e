#!/usr/bin/env python3
"""Compare measured peak GPU memory with `sweeplint estimate`.

  compare.py [--sweeplint PATH] [--gpu NAME] [--metrics LIST] [-f text|json] FILE.tsv...

For each case (rows sharing an id) it runs `sweeplint estimate -g GPU -f json ROLE=VALUE...`
once and compares each metric row with the estimate term that means the same thing:

  nvml_used            total_bytes                          (whole device, incl. CUDA context)
  torch_reserved       total_bytes - cuda_context           (the caching allocator's peak)
  torch_peak           total_bytes - cuda_context           (an unnamed torch peak; published rows)
  torch_allocated      total_bytes - cuda_context - slack   (live tensors, no allocator slack)
  reserved_minus_init  total_bytes - cuda_context - the weights as first loaded
                       (breakdown.weights of the same run estimated with amp=off: no AMP
                       half copies, but quantized bases and adapters as loaded)

and prints predicted vs measured with |error| %, the median and the worst. The verdict check:
every case measured as OOM (metric `oom` = 1) must be predicted not to fit, and every case that
fitted with more than --margin (10%) of the GPU's memory to spare must be predicted to fit.
Exit status: 0 when median <= 10%, worst <= 20% and every verdict is right; 1 when a bar fails
or a row could not be estimated; 2 on usage or I/O problems.

Standard library only.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases as cases_mod  # noqa: E402
import measured  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SWEEPLINT = os.path.join("build", "src", "cli", "sweeplint")

# Which measured metric stands for a case's peak in the verdict check, best first.
PEAK_METRICS = ("nvml_used", "torch_reserved", "torch_peak", "torch_allocated", "reserved_minus_init")


class EstimateError(Exception):
    """sweeplint could not produce an estimate for a row."""


class UsageError(Exception):
    """Bad input or environment: exit 2."""


def find_sweeplint(path):
    """The sweeplint binary: path as given, else relative to the repository root."""
    if path is None:
        path = DEFAULT_SWEEPLINT
    candidates = [path]
    if not os.path.isabs(path):
        candidates.append(os.path.join(REPO, path))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise UsageError("sweeplint binary %r not found (build it, or pass --sweeplint PATH)" % path)


def run_estimate(sweeplint, roles, gpu=None, timeout=60):
    """`sweeplint estimate [-g GPU] -f json ROLE=VALUE...` parsed as a dict.

    Accepts exit status 0 or 1 (an estimate that does not fit may exit 1) as long as
    stdout is the estimate JSON; anything else raises EstimateError.
    """
    cmd = [sweeplint, "estimate"]
    if gpu:
        cmd += ["-g", gpu]
    cmd += ["-f", "json"] + list(roles)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except OSError as e:
        raise UsageError("cannot run %r: %s" % (sweeplint, e))
    except subprocess.TimeoutExpired:
        raise EstimateError("sweeplint estimate timed out after %ds" % timeout)
    data = None
    if p.returncode in (0, 1):
        try:
            data = json.loads(p.stdout)
        except ValueError:
            data = None
    if not isinstance(data, dict):
        err = (p.stderr.strip().splitlines() or ["no output"])[-1]
        raise EstimateError("sweeplint estimate exited %d: %s" % (p.returncode, err))
    problems = []
    if not isinstance(data.get("total_bytes"), int):
        problems.append("total_bytes")
    if not isinstance(data.get("breakdown"), dict):
        problems.append("breakdown")
    if not isinstance(data.get("fits"), bool):
        problems.append("fits")
    if problems:
        raise EstimateError("sweeplint estimate JSON lacks %s" % ", ".join(problems))
    return data


class Estimator:
    """Estimates for rows, cached by the row's settings; falls back to the architecture's
    config.json (from cases.py) when sweeplint's catalog does not know the model."""

    def __init__(self, sweeplint, gpu=None, runner=run_estimate, extra_roles=()):
        self.sweeplint = sweeplint
        self.gpu = gpu
        self.runner = runner
        self.extra_roles = list(extra_roles)
        self.cache = {}
        self.tmp = None
        self.used_config = set()

    def config_dir(self, model):
        arch = cases_mod.arch_for_model(model)
        if arch is None:
            return None
        if self.tmp is None:
            self.tmp = tempfile.TemporaryDirectory(prefix="sweeplint-calib-")
        path = os.path.join(self.tmp.name, arch)
        if not os.path.isdir(path):
            os.makedirs(path)
            with open(os.path.join(path, "config.json"), "w") as f:
                json.dump(cases_mod.hf_config(arch), f, indent=2)
        return path

    def roles(self, row, model=None, amp_off=False):
        roles = measured.row_roles(row, model=model)
        if amp_off:
            roles = [r if not r.startswith("amp=") else "amp=off" for r in roles]
        return roles + self.extra_roles

    def estimate(self, row, amp_off=False):
        """The estimate for a row (amp_off: the same run without AMP)."""
        gpu = self.gpu or row["gpu"] or None
        roles = self.roles(row, amp_off=amp_off)
        key = (tuple(roles), gpu)
        if key in self.cache:
            return self.cache[key]
        try:
            est = self.runner(self.sweeplint, roles, gpu)
        except EstimateError as first:
            path = self.config_dir(row["model"])
            if path is None:
                raise
            try:
                est = self.runner(self.sweeplint, self.roles(row, model=path, amp_off=amp_off), gpu)
            except EstimateError as second:
                raise EstimateError("%s (with config.json: %s)" % (first, second))
            self.used_config.add(row["model"])
        self.cache[key] = est
        return est

    def close(self):
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None


def slack_min_bytes(path=None):
    """The allocator's floor (rules/calibration.yaml slack_min, MiB) in bytes: what the estimate adds
    to a phase outside the step (FSDP's load and save) beside the CUDA context and the workspace."""
    path = path or os.path.join(REPO, "rules", "calibration.yaml")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"-\s*name:\s*slack_min\s*\n\s*value:\s*([0-9.]+)\s*\n\s*unit:\s*MiB", text)
    if not m:
        raise UsageError("%s: no slack_min in MiB" % path)
    return int(float(m.group(1)) * measured.MIB)


# A row's measured phase outside the step (FSDP) and the estimate's JSON field that sizes it.
PHASE_FIELDS = {"load": "load_bytes", "save": "save_bytes"}


def measured_phase(row):
    """The phase a row measured: 'eval', 'load', 'save' or None (the training step, or generation)."""
    notes = measured.note_values(row.get("notes", ""))
    if notes.get("mode") == "eval":
        return "eval"
    phase = notes.get("measured_phase")
    return phase if phase in PHASE_FIELDS else None


def phase_view(est, row):
    """The part of an estimate a row measured: the evaluation forward (the estimate's `eval`
    object) for rows with mode=eval in their notes, FSDP's model loading or checkpoint save
    (load_bytes, save_bytes) for rows whose notes say measured_phase=load|save, else the
    training step itself. A load or save phase the estimate does not report (0: below the step's
    peak, docs/memory-model.md "FSDP load and save peaks") is a view with 'bound_bytes': the
    measured phase must stay under the step's predicted peak."""
    phase = measured_phase(row)
    if phase in PHASE_FIELDS:
        field = PHASE_FIELDS[phase]
        size = est.get(field, 0)  # cmd_estimate.c writes the field only when the phase is sized
        if not isinstance(size, int):
            raise EstimateError("sweeplint estimate JSON's %s is not a number" % field)
        view = dict(est)
        view["peak_phase"] = phase
        view["phase_floor"] = True
        if size > 0:
            view["total_bytes"] = size
        else:
            view["bound_bytes"] = int(est["total_bytes"])
        return view
    if phase != "eval":
        return est
    ev = est.get("eval")
    if not (isinstance(ev, dict) and isinstance(ev.get("total_bytes"), int)
            and isinstance(ev.get("breakdown"), dict) and isinstance(ev.get("fits"), bool)):
        raise EstimateError("sweeplint estimate JSON lacks the eval peak")
    view = dict(est)
    view.update(total_bytes=ev["total_bytes"], breakdown=ev["breakdown"], fits=ev["fits"],
                peak_phase="evaluation forward")
    return view


def predicted_bytes(metric, est, row, loaded=None, pool=None):
    """The estimate's counterpart of a measured metric, or None when there is none.

    loaded: the estimate of the same run with amp=off, whose weights term is what the
    first load put on the device (reserved_minus_init excludes it).
    pool: for an evaluation row, the training step's estimate. Only max_memory_allocated
    (reset before the evaluation, restarting at what is live) is the evaluation's own peak.
    The reserved and device-used peaks also hold the training step's cached blocks, which an
    evaluation at a larger batch cannot reuse (its tensors are larger), so they grow to about
    the sum of both phases' pools; under memory pressure the caching allocator releases
    those cached blocks and retries (what the fit/OOM verdict counts: the larger phase), so
    the unconstrained reserved peak has no counterpart in the estimate.
    """
    if pool is not None and metric != "torch_allocated":
        return None
    if est.get("bound_bytes") is not None:
        return None
    total = int(est["total_bytes"])
    bd = est["breakdown"]
    ctx = int(bd.get("cuda_context", 0))
    if metric == "nvml_used":
        return total
    if metric in ("torch_reserved", "torch_peak"):
        return total - ctx
    if metric == "torch_allocated":
        if est.get("phase_floor"):
            # a load or save phase: the estimate adds the allocator's floor, not the step's slack
            return total - ctx - slack_min_bytes()
        return total - ctx - int(bd.get("slack", 0))
    if metric == "reserved_minus_init":
        if est.get("phase_floor"):
            return None  # a load phase starts before anything is loaded; a save's init is not its start
        return total - ctx - int((loaded or est)["breakdown"].get("weights", 0))
    return None


def _capacity_bytes(est, env):
    gpu = est.get("gpu") if isinstance(est.get("gpu"), dict) else {}
    if isinstance(gpu.get("bytes"), int) and gpu["bytes"] > 0:
        return gpu["bytes"]
    try:
        return int(float(env["gpu_total_mib"]) * measured.MIB)
    except (KeyError, ValueError):
        return None


def compare_rows(rows, env, estimator, metrics=None, margin=0.10):
    """The comparison of one file's rows: a dict with 'rows', 'verdicts', 'errors', 'warnings'."""
    result = {"rows": [], "verdicts": [], "bounds": [], "errors": [], "warnings": []}
    by_id = {}
    for row in rows:
        by_id.setdefault(row["id"], []).append(row)
    for case_id, group in by_id.items():
        keys = {measured.settings_key(r) for r in group}
        if len(keys) > 1:
            result["errors"].append("%s: rows with the same id have different settings" % case_id)
            continue
        try:
            train = estimator.estimate(group[0])
            est = phase_view(train, group[0])
        except EstimateError as e:
            result["errors"].append("%s: %s" % (case_id, e))
            continue
        note = measured.note_values(group[0].get("notes", ""))
        if group[0]["method"] == "full" and "params" in note and est.get("params"):
            built = int(note["params"])
            if abs(built - est["params"]) > 0.005 * built:
                result["warnings"].append("%s: the measured model had %d parameters, sweeplint counts %d"
                                          % (case_id, built, est["params"]))
        peak = None
        oom = None
        values = {}
        for row in group:
            metric = row["metric"]
            try:
                value = float(row["value_mib"])
            except ValueError:
                result["errors"].append("%s: %s value %r is not a number" % (case_id, metric, row["value_mib"]))
                continue
            values[metric] = value
            if metric == "oom":
                oom = value >= 1
                continue
            if metrics and metric not in metrics:
                continue
            if est.get("bound_bytes") is not None:
                # a phase the estimate puts below the step's peak: the measured phase must be below it
                if metric in ("nvml_used", "torch_reserved"):
                    bound = est["bound_bytes"] - (0 if metric == "nvml_used" else
                                                  int(est["breakdown"].get("cuda_context", 0)))
                    result["bounds"].append({"id": case_id, "metric": metric, "measured_mib": value,
                                             "bound_mib": bound / measured.MIB,
                                             "ok": value * measured.MIB <= bound})
                continue
            loaded = None
            if metric == "reserved_minus_init":
                try:
                    loaded = phase_view(estimator.estimate(row, amp_off=True), row)
                except EstimateError as e:
                    result["errors"].append("%s: %s" % (case_id, e))
                    continue
            pred = predicted_bytes(metric, est, row, loaded, pool=train if est is not train else None)
            if pred is None:
                result["warnings"].append("%s: metric %r has no counterpart in the estimate" % (case_id, metric))
                continue
            pred_mib = pred / measured.MIB
            err = abs(pred_mib - value) / value * 100.0 if value > 0 else float("inf")
            result["rows"].append({"id": case_id, "metric": metric, "measured_mib": value,
                                   "predicted_mib": pred_mib, "error_pct": err})
        for m in PEAK_METRICS:
            if m in values:
                peak = values[m] * measured.MIB
                break
        capacity = _capacity_bytes(est, env)
        expect = None
        if oom:
            expect = False
        elif peak is not None and capacity and peak <= (1.0 - margin) * capacity:
            expect = True
        if expect is not None:
            # an evaluation row's run holds both phases: it fits when both do
            fits = bool(est["fits"] and train["fits"])
            whole = max(int(est["total_bytes"]), int(train["total_bytes"]))
            result["verdicts"].append({"id": case_id, "measured": "oom" if oom else "fits",
                                       "predicted_fits": fits, "ok": fits == expect,
                                       "predicted_mib": whole / measured.MIB,
                                       "capacity_mib": capacity / measured.MIB if capacity else None})
    return result


def summarize(rows, verdicts, median_bar=10.0, worst_bar=20.0, bounds=()):
    errs = [r["error_pct"] for r in rows]
    summary = {"compared": len(errs), "median_pct": None, "worst_pct": None, "worst": None,
               "verdicts_checked": len(verdicts), "verdicts_wrong": [v["id"] for v in verdicts if not v["ok"]],
               "bounds_checked": len(bounds),
               "bounds_wrong": ["%s %s" % (b["id"], b["metric"]) for b in bounds if not b["ok"]]}
    if errs:
        summary["median_pct"] = statistics.median(errs)
        worst = max(rows, key=lambda r: r["error_pct"])
        summary["worst_pct"] = worst["error_pct"]
        summary["worst"] = "%s %s" % (worst["id"], worst["metric"])
    summary["pass"] = bool(errs) and summary["median_pct"] <= median_bar and \
        summary["worst_pct"] <= worst_bar and not summary["verdicts_wrong"] and not summary["bounds_wrong"]
    return summary


def format_text(path, result, summary, median_bar, worst_bar):
    lines = ["%s" % path]
    if result["rows"]:
        w = max(len(r["id"]) for r in result["rows"])
        lines.append("%-*s  %-19s %10s %10s %8s" % (w, "id", "metric", "measured", "predicted", "|error|"))
        for r in result["rows"]:
            lines.append("%-*s  %-19s %10.0f %10.0f %7.1f%%" % (w, r["id"], r["metric"], r["measured_mib"],
                                                               r["predicted_mib"], r["error_pct"]))
    for v in result["verdicts"]:
        if not v["ok"]:
            lines.append("verdict wrong: %s measured %s, predicted %s (%.0f MiB of %s MiB)" % (
                v["id"], v["measured"], "fits" if v["predicted_fits"] else "oom", v["predicted_mib"],
                "%.0f" % v["capacity_mib"] if v["capacity_mib"] else "?"))
    for b in result.get("bounds", []):
        lines.append("%s %s: %s phase %.0f MiB, predicted below the step's %.0f MiB%s" % (
            "bound" if b["ok"] else "bound wrong:", b["id"], b["metric"], b["measured_mib"], b["bound_mib"],
            "" if b["ok"] else " (it is not)"))
    for e in result["errors"]:
        lines.append("error: " + e)
    for w_ in result["warnings"]:
        lines.append("warning: " + w_)
    if summary["compared"]:
        lines.append("rows compared: %d; median |error| %.1f%% (bar %.0f%%); worst %.1f%% %s (bar %.0f%%)" % (
            summary["compared"], summary["median_pct"], median_bar, summary["worst_pct"], summary["worst"],
            worst_bar))
    else:
        lines.append("rows compared: 0")
    lines.append("verdicts: %d checked, %d wrong" % (summary["verdicts_checked"], len(summary["verdicts_wrong"])))
    if summary.get("bounds_checked"):
        lines.append("phase bounds: %d checked, %d wrong" % (summary["bounds_checked"], len(summary["bounds_wrong"])))
    lines.append("result: %s" % ("pass" if summary["pass"] and not result["errors"] else "FAIL"))
    return "\n".join(lines) + "\n"


PREDICT_METRICS = ("nvml_used", "torch_allocated", "torch_reserved", "reserved_minus_init")


def predict_case(case, estimator, gpu):
    """What sweeplint predicts for a case before it is measured: {id, metrics: {metric: MiB or None},
    peak_phase, fits, bound_mib (a phase predicted below the step), error}."""
    notes = "measured_phase=%s" % case["phase"] if case.get("phase") else ""
    out = {"id": case["id"], "metrics": {}, "peak_phase": None, "fits": None, "bound_mib": None,
           "error": None}
    row = cases_mod.tsv_row(case, gpu, "nvml_used", 0, notes)
    try:
        train = estimator.estimate(row)
        est = phase_view(train, row)
        for metric in PREDICT_METRICS:
            loaded = None
            if metric == "reserved_minus_init" and not est.get("phase_floor"):
                loaded = phase_view(estimator.estimate(row, amp_off=True), row)
            pred = predicted_bytes(metric, est, row, loaded, pool=train if est is not train and
                                   measured_phase(row) == "eval" else None)
            out["metrics"][metric] = None if pred is None else pred / measured.MIB
    except EstimateError as e:
        out["error"] = str(e)
        return out
    out["peak_phase"] = est.get("peak_phase")
    out["fits"] = bool(est["fits"])
    if est.get("bound_bytes") is not None:
        out["bound_mib"] = est["bound_bytes"] / measured.MIB
    return out


def predict_main(args, out, err, runner):
    """--predict: the estimate of each selected case, nothing measured (docs/calibration.md)."""
    try:
        selected = cases_mod.select(args.predict)
    except KeyError as e:
        err.write("compare.py: no case matches %s\n" % e)
        return 2
    try:
        sweeplint = find_sweeplint(args.sweeplint)
    except UsageError as e:
        err.write("compare.py: %s\n" % e)
        return 2
    gpu = args.gpu or "h100-80gb"
    estimator = Estimator(sweeplint, gpu, runner, args.role)
    try:
        preds = [predict_case(c, estimator, gpu) for c in selected]
    finally:
        estimator.close()
    if args.format == "json":
        json.dump({"gpu": gpu, "cases": preds}, out, indent=1)
        out.write("\n")
    else:
        w = max([len(p["id"]) for p in preds] + [2])
        out.write("%-*s  %9s %9s %9s %9s  %s\n" % (w, "id", "nvml", "allocated", "reserved", "res-init",
                                                 "peak phase / note"))
        for p in preds:
            if p["error"]:
                out.write("%-*s  %s\n" % (w, p["id"], "no estimate: " + p["error"].split(" (with config.json")[0]))
                continue
            cells = ["%9s" % ("-" if p["metrics"][m] is None else "%.0f" % p["metrics"][m])
                     for m in PREDICT_METRICS]
            note = p["peak_phase"] or ""
            if p["bound_mib"] is not None:
                note = "%s phase below the step's %.0f MiB" % (note, p["bound_mib"])
            out.write("%-*s  %s  %s%s\n" % (w, p["id"], " ".join(cells), note, "" if p["fits"] else ", oom"))
        out.write("%d cases on %s, %d without an estimate\n" % (len(preds), gpu,
                                                              sum(1 for p in preds if p["error"])))
    return 0


def main(argv=None, out=sys.stdout, err=sys.stderr, runner=run_estimate):
    ap = argparse.ArgumentParser(prog="compare.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("tsv", nargs="*", help="measured TSV files (calibration/measured.tsv layout)")
    ap.add_argument("--predict", metavar="SPEC", default=None,
                    help="print the estimate of the cases SPEC selects (calibrate.py --cases), nothing measured")
    ap.add_argument("--sweeplint", default=None, help="sweeplint binary (default %s)" % DEFAULT_SWEEPLINT)
    ap.add_argument("--gpu", default=None, help="GPU for every row (default: the row's gpu column)")
    ap.add_argument("--metrics", default=None, help="compare only these metrics (comma-separated)")
    ap.add_argument("--margin", type=float, default=0.10, help="verdict margin (default 0.10)")
    ap.add_argument("--median-bar", type=float, default=10.0)
    ap.add_argument("--worst-bar", type=float, default=20.0)
    ap.add_argument("--role", action="append", default=[], metavar="ROLE=VALUE",
                    help="add ROLE=VALUE to every estimate (repeatable)")
    ap.add_argument("-f", "--format", choices=("text", "json"), default="text")
    args = ap.parse_args(argv)
    if args.predict:
        return predict_main(args, out, err, runner)
    if not args.tsv:
        ap.error("a measured TSV file is required (or --predict SPEC)")
    metrics = set(args.metrics.split(",")) if args.metrics else None
    try:
        sweeplint = find_sweeplint(args.sweeplint)
        loaded = []
        for path in args.tsv:
            try:
                comments, rows = measured.read(path)
            except (OSError, measured.TsvError) as e:
                raise UsageError(str(e))
            loaded.append((path, comments, rows))
        estimator = Estimator(sweeplint, args.gpu, runner, args.role)
        all_rows, all_verdicts, all_bounds, reports, failed = [], [], [], [], False
        try:
            for path, comments, rows in loaded:
                res = compare_rows(rows, measured.comment_values(comments), estimator, metrics, args.margin)
                all_rows += res["rows"]
                all_verdicts += res["verdicts"]
                all_bounds += res["bounds"]
                failed = failed or bool(res["errors"])
                reports.append((path, res))
        finally:
            estimator.close()
    except UsageError as e:
        err.write("compare.py: %s\n" % e)
        return 2
    summary = summarize(all_rows, all_verdicts, args.median_bar, args.worst_bar, all_bounds)
    ok = summary["pass"] and not failed
    if args.format == "json":
        json.dump({"files": [{"path": p, **r} for p, r in reports], "summary": summary, "pass": ok},
                  out, indent=1)
        out.write("\n")
    else:
        for path, res in reports:
            out.write(format_text(path, res, summarize(res["rows"], res["verdicts"], args.median_bar,
                                                       args.worst_bar, res["bounds"]),
                                  args.median_bar, args.worst_bar))
        if len(reports) > 1:
            out.write("all files: median %s, worst %s, %d wrong verdicts: %s\n" % (
                "%.1f%%" % summary["median_pct"] if summary["compared"] else "-",
                "%.1f%%" % summary["worst_pct"] if summary["compared"] else "-",
                len(summary["verdicts_wrong"]), "pass" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
