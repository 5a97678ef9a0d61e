#!/usr/bin/env python3
"""GPU calibration harness: measure peak training memory of real training steps.

  calibrate.py --list [--cases SPEC]
  calibrate.py [--cases SPEC] [--out FILE.tsv] [--steps N] [--gpu-name NAME] [--resume]

SPEC is 'default' (the default set, under 10 minutes on an H100), 'all', 'encoders'
(encoders, bi-encoders, seq2seq, evaluation peaks), 'decoders' (decoder LLMs: full, LoRA,
QLoRA, FSDP, torch.compile, Liger, generation), or comma-separated case ids and globs
('bgem3-*,llama1b-*-lora*'). A set longer than one command's time: --time-budget stops
starting cases and --resume continues the same file.

Every case runs in a fresh Python subprocess (no CUDA context or allocator state leaks
from one case to the next): the model is built once from its HF config dict with random
weights (nothing is downloaded), the data are random token ids of exactly the requested
lengths, and N training steps run (forward, backward, optimizer step; torch.autocast and
GradScaler for AMP; model.gradient_checkpointing_enable(); LoRA/QLoRA through peft and
bitsandbytes; the requested attention implementation). Measured: the NVML device memory
in use at the peak (pynvml when installed, else torch.cuda.mem_get_info), the torch
allocator's max_memory_allocated / max_memory_reserved, the memory reserved right after
the model was loaded, and whether torch.cuda.OutOfMemoryError was raised.

The rows follow calibration/measured.tsv: one row per metric (nvml_used, torch_allocated,
torch_reserved, reserved_minus_init, oom), the environment in '#' lines above the header.
See docs/calibration.md.

torch, transformers, peft and bitsandbytes are imported only inside the case subprocess:
--list and the planning code run with the standard library alone.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases as cases_mod  # noqa: E402
import measured  # noqa: E402

SOURCE = "sweeplint tools/calibrate"
MIB = measured.MIB

# GPU catalog names (rules/gpus.yaml, DESIGN §3) from the device name torch reports.
_GPU_NAMES = (
    (r"\bh200\b", lambda gib: "h200"),
    (r"\bh100\b", lambda gib: "h100-80gb"),
    (r"\ba100\b", lambda gib: "a100-80gb" if gib > 48 else "a100-40gb"),
    (r"\bv100\b", lambda gib: "v100-32gb" if gib > 20 else "v100-16gb"),
    (r"\bl40s\b", lambda gib: "l40s"),
    (r"\ba10g\b", lambda gib: "a10g"),
    (r"\bl4\b", lambda gib: "l4"),
    (r"\bt4\b", lambda gib: "t4"),
    (r"\brtx 4090\b", lambda gib: "rtx4090"),
    (r"\brtx 3090\b", lambda gib: "rtx3090"),
)


def gpu_slug(device_name, total_bytes):
    """The catalog name for a device ('NVIDIA H100 80GB HBM3' -> 'h100-80gb'), else a slug."""
    low = device_name.lower()
    gib = total_bytes / float(1 << 30)
    for pattern, name in _GPU_NAMES:
        if re.search(pattern, low):
            return name(gib)
    slug = re.sub(r"[^a-z0-9]+", "-", low.replace("nvidia", "")).strip("-")
    return slug or "gpu"


# ---------------------------------------------------------------------------
# Listing (standard library only)

LIST_COLUMNS = ("id", "model", "task", "batch", "seq", "tgt", "dtype", "amp", "gc", "optimizer",
                "method", "r", "attn", "texts", "more", "default")


def more_settings(case):
    """The settings beyond the table's columns, as role=value words ('-' when none)."""
    s = case["settings"]
    words = []
    if s.get("mode", "train") != "train":
        words.append("mode=" + s["mode"])
    for role in ("eval_batch_size", "mini_batch_size", "num_beams", "max_new_tokens"):
        if s.get(role):
            words.append("%s=%d" % (role, s[role]))
    for role in ("modules_to_save", "fsdp"):
        if s.get(role):
            words.append("%s=%s" % (role, s[role]))
    for role in ("torch_compile", "liger"):
        if s.get(role):
            words.append(role)
    if s["quant"] != "none" and not case.get("kbit_prepare", True):
        words.append("no-kbit-prepare")
    for role, default in cases_mod.EXTRA_ROLES.items():
        v = s.get(role, default)
        if v != default:
            words.append(role if v is True else "%s=%s" % (role, v))
    for key in ("phase", "alloc_conf", "sdpa_backend"):
        if case.get(key):
            words.append("%s=%s" % (key, case[key]))
    return ",".join(words) or "-"


def list_rows(selected):
    rows = []
    for c in selected:
        s = c["settings"]
        batch = s["batch_size"] if not c["capacity"] else "%.0f%%cap" % (c["capacity"]["frac"] * 100)
        rows.append((c["id"], s["model"], s["task"], str(batch), str(s["seq_len"]),
                     str(s["target_len"] or "-"), s["dtype"], s["amp"],
                     "on" if s["gradient_checkpointing"] else "off", s["optimizer"], c["method"],
                     str(s["lora_r"] or "-"), s["attn"], str(s["texts_per_example"] or "-"),
                     more_settings(c), "yes" if c["default"] else "no"))
    return rows


def print_list(selected, out):
    rows = [LIST_COLUMNS] + list_rows(selected)
    widths = [max(len(r[i]) for r in rows) for i in range(len(LIST_COLUMNS))]
    for r in rows:
        out.write("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() + "\n")
    out.write("%d cases\n" % len(selected))


# ---------------------------------------------------------------------------
# Capacity cases: choose the batch so that the run needs frac × the GPU's memory.

def solve_batch(total_for_batch, target_bytes, above, bmax=4096):
    """The batch whose estimate brackets target_bytes.

    below (above=False): the largest batch whose total <= target (None if even 1 exceeds it);
    above (above=True): the smallest batch whose total >= target (None if bmax stays below).
    total_for_batch must be non-decreasing in the batch.
    """
    def ok(b):
        t = total_for_batch(b)
        return t >= target_bytes if above else t <= target_bytes

    if above:
        lo, hi = 0, 1
        while not ok(hi):
            lo = hi
            hi *= 2
            if hi > bmax:
                return None
        while hi - lo > 1:  # ok(hi), not ok(lo) (lo 0: nothing)
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid
        return hi
    if not ok(1):
        return None
    lo, hi = 1, 2
    while ok(hi):
        lo = hi
        hi *= 2
        if hi > bmax:
            return bmax
    while hi - lo > 1:  # ok(lo), not ok(hi)
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def linear_batch(b1, m1, b2, m2, target_bytes, above):
    """The batch at which a line through two probe measurements reaches target_bytes."""
    if b2 == b1 or m2 <= m1:
        return None
    slope = (m2 - m1) / float(b2 - b1)
    exact = b1 + (target_bytes - m1) / slope
    b = int(exact) + (1 if above and exact != int(exact) else 0)
    return b if b >= 1 else None


def with_batch(case, batch, case_id=None):
    c = json.loads(json.dumps(case))
    c["settings"]["batch_size"] = int(batch)
    if case_id:
        c["id"] = case_id
        c["capacity"] = None
    return c


# ---------------------------------------------------------------------------
# The parent: probe the environment, run each case in its own subprocess, write rows.

def _child_env(extra=None):
    env = dict(os.environ)
    env.update(extra or {})
    env.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")  # CUDA device 0 == NVML's index of it
    env.setdefault("HF_HUB_OFFLINE", "1")              # nothing is downloaded
    env.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("PYTHONWARNINGS", "ignore")
    return env


def run_child(args, timeout, python=None, env=None):
    """Run this file with child arguments (env: variables set for the child only); (result dict or
    None, message)."""
    fd, result_path = tempfile.mkstemp(prefix="sl-calib-", suffix=".json")
    os.close(fd)
    cmd = [python or sys.executable, os.path.abspath(__file__)] + args + ["--result", result_path]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_child_env(env))
        try:
            with open(result_path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = None
        tail = (p.stderr.strip().splitlines() or [""])[-1]
        if data is None:
            return None, "exited %d without a result: %s" % (p.returncode, tail)
        return data, tail
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds" % timeout
    finally:
        try:
            os.unlink(result_path)
        except OSError:
            pass


def env_comments(env, gpu, steps):
    def tok(v):
        return re.sub(r"\s+", "_", str(v)) if v not in (None, "") else "none"
    lines = [
        "sweeplint calibration: tools/calibrate/calibrate.py (docs/calibration.md); one row per metric",
        "gpu=%s gpu_name=%s gpu_total_mib=%d cc=%s driver=%s cuda=%s cudnn=%s" % (
            gpu, tok(env["gpu_name"]), env["total_bytes"] // MIB, tok(env.get("cc")), tok(env.get("driver")),
            tok(env.get("cuda")), tok(env.get("cudnn"))),
        "torch=%s transformers=%s peft=%s bitsandbytes=%s sentence_transformers=%s pynvml=%s python=%s" % (
            tok(env.get("torch")), tok(env.get("transformers")), tok(env.get("peft")),
            tok(env.get("bitsandbytes")), tok(env.get("sentence_transformers")), tok(env.get("pynvml")),
            tok(env.get("python"))),
        "flash_attn=%s liger_kernel=%s trl=%s accelerate=%s" % (
            tok(env.get("flash_attn")), tok(env.get("liger_kernel")), tok(env.get("trl")), tok(env.get("accelerate"))),
        "date=%s steps=%d PYTORCH_CUDA_ALLOC_CONF=%s CUDA_MODULE_LOADING=%s" % (
            datetime.date.today().isoformat(), steps, tok(os.environ.get("PYTORCH_CUDA_ALLOC_CONF")),
            tok(os.environ.get("CUDA_MODULE_LOADING"))),
    ]
    return lines


def result_rows(case, gpu, res):
    """measured.tsv rows for a child result."""
    info = ["%s=%s" % (k, res[k]) for k in ("params", "trainable", "held_params") if res.get(k) is not None]
    for key, name in (("context_bytes", "ctx_mib"), ("init_reserved", "init_reserved_mib"),
                      ("init_allocated", "init_allocated_mib")):
        if res.get(key) is not None:
            info.append("%s=%d" % (name, measured.to_mib(res[key])))
    if res.get("attn_impl"):
        info.append("attn_impl=%s" % res["attn_impl"])
    if res.get("phase"):
        info.append("measured_phase=%s" % res["phase"])
    if res.get("new_tokens") is not None:
        info.append("generated_tokens=%d" % res["new_tokens"])
    for key, name in (("step_lengths", "step_lengths"), ("sdpa_kernel", "sdpa_kernel"),
                      ("alloc_conf", "alloc_conf_seen")):
        if res.get(key):
            info.append("%s=%s" % (name, res[key]))
    for key in ("train_peak_allocated", "train_peak_reserved", "generation_peak_allocated"):
        if res.get(key) is not None:
            info.append("%s_mib=%d" % (key, measured.to_mib(res[key])))
    if res.get("nvml_source"):
        info.append("nvml=%s" % res["nvml_source"])
    info += ["steps=%s" % res.get("steps_done", 0), "wall_s=%.1f" % res.get("wall_s", 0.0)]
    if res.get("optimizer_state") is False:
        info.append("optimizer_state=empty")
    if case.get("capacity"):
        info.append("capacity_frac=%.2f batch_from=%s" % (case["capacity"]["frac"],
                                                          case["capacity"].get("resolved_by", "?")))
    if res["status"] == "oom":
        partial = ["at_oom_%s=%d" % (k, measured.to_mib(res[k]))
                   for k in ("peak_allocated", "peak_reserved") if res.get(k) is not None]
        notes = " ".join(info + partial + ["error=" + re.sub(r"\s+", "_", res.get("error", ""))[:120]])
        return [cases_mod.tsv_row(case, gpu, "oom", 1, notes, SOURCE)]
    notes = " ".join(info)
    used = res["nvml_peak_used"] - (res.get("nvml_baseline") or 0)
    rows = [
        ("nvml_used", measured.to_mib(used)),
        ("torch_allocated", measured.to_mib(res["peak_allocated"])),
        ("torch_reserved", measured.to_mib(res["peak_reserved"])),
        ("reserved_minus_init", measured.to_mib(res["peak_reserved"] - res["init_reserved"])),
        ("oom", 0),
    ]
    return [cases_mod.tsv_row(case, gpu, m, v, notes, SOURCE) for m, v in rows]


class Runner:
    def __init__(self, args, env, gpu, out_file, log):
        self.args, self.env, self.gpu, self.out, self.log = args, env, gpu, out_file, log
        self.probes = {}     # capacity group -> {batch: nvml bytes or None}
        self.done = set()
        self.times = []

    def comment(self, text):
        self.out.write("# " + measured.clean_field(text) + "\n")
        self.out.flush()

    def measure(self, case):
        """Run one case in a subprocess and write its rows; the child result (or None)."""
        t0 = time.time()
        fd, case_path = tempfile.mkstemp(prefix="sl-case-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(case, f)
        try:
            # the allocator's configuration is read when CUDA starts: the case process gets its own
            env = {"PYTORCH_CUDA_ALLOC_CONF": case["alloc_conf"]} if case.get("alloc_conf") else None
            res, msg = run_child(["--child-run", case_path, "--steps", str(self.args.steps)],
                                 self.args.case_timeout, self.args.python, env)
        finally:
            os.unlink(case_path)
        self.times.append(time.time() - t0)
        if res is None or res.get("status") not in ("ok", "oom"):
            why = (res or {}).get("error") or msg
            self.log.write("calibrate: %s: failed: %s\n" % (case["id"], why))
            self.comment("failed %s: %s" % (case["id"], why))
            return None
        for row in result_rows(case, self.gpu, res):
            self.out.write(measured.format_row(row))
        self.out.flush()
        self.done.add(case["id"])
        if res["status"] == "oom":
            self.log.write("calibrate: %s: out of memory (%.1fs)\n" % (case["id"], time.time() - t0))
        else:
            self.log.write("calibrate: %s: %d MiB (nvml), %d MiB reserved (%.1fs)\n" % (
                case["id"], measured.to_mib(res["nvml_peak_used"] - (res.get("nvml_baseline") or 0)),
                measured.to_mib(res["peak_reserved"]), time.time() - t0))
        self.log.flush()
        return res

    def resolve_capacity(self, case):
        """The case with its batch chosen, or None (with a comment saying why)."""
        cap = case["capacity"]
        total = self.env["total_bytes"]
        target = cap["frac"] * total
        above = cap["frac"] > 1.0
        if self.args.sweeplint_path:
            import compare
            estimator = compare.Estimator(self.args.sweeplint_path, self.gpu)

            def total_for(b):
                row = cases_mod.tsv_row(with_batch(case, b), self.gpu, "nvml_used", 0)
                return estimator.estimate(row)["total_bytes"]
            try:
                batch = solve_batch(total_for, target, above)
                if batch is not None:
                    c = with_batch(case, batch)
                    c["capacity"]["resolved_by"] = "sweeplint"
                    return c
            except (compare.EstimateError, compare.UsageError) as e:
                self.log.write("calibrate: %s: sweeplint estimate unusable (%s); probing\n" % (case["id"], e))
            finally:
                estimator.close()
        group = cap["group"]
        if group not in self.probes:
            self.probes[group] = {}
            for b in cap["probe_batches"]:
                probe = with_batch(case, b, "%s-probe-b%d" % (group, b))
                res = self.measure(probe)
                ok = res is not None and res["status"] == "ok"
                self.probes[group][b] = (res["nvml_peak_used"] - (res.get("nvml_baseline") or 0)) if ok else None
        pts = sorted((b, m) for b, m in self.probes[group].items() if m is not None)
        if len(pts) < 2:
            self.comment("skipped %s: the probe runs did not both complete" % case["id"])
            return None
        (b1, m1), (b2, m2) = pts[0], pts[-1]
        batch = linear_batch(b1, m1, b2, m2, target, above)
        if batch is None:
            self.comment("skipped %s: no batch reaches %.0f%% of %d MiB" % (case["id"], cap["frac"] * 100,
                                                                          total // MIB))
            return None
        c = with_batch(case, batch)
        c["capacity"]["resolved_by"] = "probes"
        return c

    def run(self, selected):
        start = time.time()
        budget = self.args.time_budget
        for i, case in enumerate(selected):
            if case["id"] in self.done:
                continue
            missing = [r for r in case["requires"] if not self.env.get(r)]
            if missing:
                self.comment("skipped %s: needs %s" % (case["id"], ", ".join(missing)))
                self.log.write("calibrate: %s: skipped (needs %s)\n" % (case["id"], ", ".join(missing)))
                continue
            if budget > 0 and self.times:
                mean = sum(self.times) / len(self.times)
                if time.time() - start + mean > budget:
                    rest = [c["id"] for c in selected[i:] if c["id"] not in self.done]
                    self.comment("not run (time budget %ds): %s" % (budget, ",".join(rest)))
                    self.log.write("calibrate: time budget reached; %d cases not run; continue with "
                                   "--resume\n" % len(rest))
                    return len(rest)
            if case["capacity"]:
                case = self.resolve_capacity(case)
                if case is None:
                    continue
            self.measure(case)
        return 0


def probe_environment(args):
    res, msg = run_child(["--child-env"], 120, args.python)
    if res is None or res.get("status") != "ok":
        raise RuntimeError((res or {}).get("error") or msg)
    return res


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="calibrate.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print the cases and exit (needs no GPU or torch)")
    ap.add_argument("--cases", default="default", help="'default', 'all', or ids/globs, comma-separated")
    ap.add_argument("--out", default=None, help="output TSV (default calibration-<gpu>-<date>.tsv)")
    ap.add_argument("--steps", type=int, default=3, help="training steps per case (default 3)")
    ap.add_argument("--gpu-name", default=None, help="GPU name for the gpu column (default: from the device)")
    ap.add_argument("--sweeplint", default=None,
                    help="sweeplint binary for the capacity cases (default build/src/cli/sweeplint if "
                         "present; without it the batch comes from two probe runs)")
    ap.add_argument("--resume", action="store_true", help="append to --out, skipping cases it already has")
    ap.add_argument("--force", action="store_true", help="overwrite an existing --out")
    ap.add_argument("--time-budget", type=float, default=570.0,
                    help="start no case after this many seconds (0: no limit; default 570)")
    ap.add_argument("--case-timeout", type=int, default=300, help="seconds per case subprocess (default 300)")
    ap.add_argument("--python", default=None, help="interpreter for the case subprocesses (default: this one)")
    ap.add_argument("--child-run", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-env", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--result", default=None, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv=None, out=sys.stdout, log=sys.stderr):
    args = parse_args(argv)
    if args.child_env:
        return child_env_main(args.result)
    if args.child_run:
        return child_run_main(args.child_run, args.result, args.steps)
    try:
        selected = cases_mod.select(args.cases)
    except KeyError as e:
        log.write("calibrate: no case matches %s (see --list)\n" % e)
        return 2
    if args.list:
        try:
            print_list(selected, out)
        except BrokenPipeError:  # --list | head
            pass
        return 0
    if args.steps < 1:
        log.write("calibrate: --steps must be at least 1\n")
        return 2
    try:
        env = probe_environment(args)
    except RuntimeError as e:
        log.write("calibrate: cannot measure here: %s\n" % e)
        return 2
    gpu = args.gpu_name or gpu_slug(env["gpu_name"], env["total_bytes"])
    out_path = args.out or "calibration-%s-%s.tsv" % (gpu, datetime.date.today().isoformat())
    args.sweeplint_path = None
    try:
        import compare
        args.sweeplint_path = compare.find_sweeplint(args.sweeplint)
    except Exception:
        if args.sweeplint:
            log.write("calibrate: sweeplint %r not usable; capacity cases will use probe runs\n" % args.sweeplint)
    done = set()
    if os.path.exists(out_path):
        if args.resume:
            try:
                old_comments, old = measured.read(out_path)
            except (OSError, measured.TsvError) as e:
                log.write("calibrate: cannot resume %s: %s\n" % (out_path, e))
                return 2
            old_gpu = measured.comment_values(old_comments).get("gpu")
            if old_gpu and old_gpu != gpu:
                log.write("calibrate: %s was measured on %r, this GPU is %r\n" % (out_path, old_gpu, gpu))
                return 2
            done = {r["id"] for r in old}
            f = open(out_path, "a", encoding="utf-8")
        elif args.force:
            f = open(out_path, "w", encoding="utf-8")
        else:
            log.write("calibrate: %s exists (use --resume to continue it or --force to overwrite)\n" % out_path)
            return 2
    else:
        f = open(out_path, "w", encoding="utf-8")
    with f:
        if not done and f.tell() == 0:
            f.write(measured.format_rows([], env_comments(env, gpu, args.steps)))
        elif args.resume:
            f.write("# resumed %s\n" % datetime.datetime.now().isoformat(timespec="seconds"))
        runner = Runner(args, env, gpu, f, log)
        runner.done = done
        left = runner.run(selected)
    log.write("calibrate: wrote %s\n" % out_path)
    return 3 if left else 0


# ---------------------------------------------------------------------------
# Child processes. Everything below imports torch & co lazily.

def _version(dist):
    try:
        from importlib import metadata
        return metadata.version(dist)
    except Exception:
        return None


def _write_result(path, data):
    with open(path, "w") as f:
        json.dump(data, f)


def child_env_main(result_path):
    info = {"status": "error"}
    try:
        import platform
        info["python"] = platform.python_version()
        try:
            import torch
        except ImportError:
            info["error"] = "torch is not installed (pip install torch transformers peft; see docs/calibration.md)"
            return 1
        if not torch.cuda.is_available():
            info["error"] = "torch sees no CUDA device"
            return 1
        props = torch.cuda.get_device_properties(0)
        free, total = torch.cuda.mem_get_info(0)
        info.update({
            "gpu_name": props.name, "total_bytes": int(total), "cc": "%d.%d" % (props.major, props.minor),
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
            "transformers": _version("transformers"), "peft": _version("peft"),
            # recorded, not imported: the DPO/GRPO cases are TRL's computation written out (workloads.py)
            "trl": _version("trl"), "accelerate": _version("accelerate"),
            "sentence_transformers": _version("sentence-transformers"),
            "pynvml": _version("nvidia-ml-py") or _version("pynvml"),
        })
        if info["transformers"] is None:
            info["error"] = "transformers is not installed"
            return 1
        try:
            import bitsandbytes  # noqa: F401
            info["bitsandbytes"] = _version("bitsandbytes") or "yes"
        except Exception:
            info["bitsandbytes"] = None
        # optional kernels: cases that need them are skipped (and say so) where they are missing
        for mod, dist in (("flash_attn", "flash-attn"), ("liger_kernel", "liger-kernel")):
            try:
                __import__(mod)
                info[mod] = _version(dist) or "yes"
            except Exception:
                info[mod] = None
        try:
            import pynvml
            pynvml.nvmlInit()
            drv = pynvml.nvmlSystemGetDriverVersion()
            info["driver"] = drv.decode() if isinstance(drv, bytes) else drv
        except Exception:
            try:
                info["driver"] = subprocess.run(
                    ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                    capture_output=True, text=True, timeout=20).stdout.split("\n")[0].strip() or None
            except Exception:
                info["driver"] = None
        info["status"] = "ok"
        return 0
    except Exception as e:  # report, never crash without a result
        info["error"] = "%s: %s" % (type(e).__name__, e)
        return 1
    finally:
        _write_result(result_path, info)


class Monitor:
    """Device memory in use: NVML (pynvml) when present, else cudaMemGetInfo via torch.
    A background thread samples every few milliseconds and keeps the maximum."""

    def __init__(self):
        self.nvml = None
        self.handle = None
        self.baseline = 0
        self.peak = 0
        self.source = "mem_get_info"
        self.torch = None
        self.thread = None
        self.stop_event = None

    def open_nvml(self):
        """Before CUDA is touched: find the device in NVML and read the idle baseline."""
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
        if visible.startswith("MIG-"):
            return  # NVML's device numbers are the whole GPU; cudaMemGetInfo sees the slice
        try:
            import pynvml
            pynvml.nvmlInit()
            if visible.startswith("GPU-"):
                handle = pynvml.nvmlDeviceGetHandleByUUID(visible)
            else:
                handle = pynvml.nvmlDeviceGetHandleByIndex(int(visible) if visible.isdigit() else 0)
            self.nvml, self.handle, self.source = pynvml, handle, "pynvml"
            self.baseline = self.used()
        except Exception:
            self.nvml = None

    def attach(self, torch):
        self.torch = torch

    def used(self):
        if self.nvml is not None:
            return int(self.nvml.nvmlDeviceGetMemoryInfo(self.handle).used)
        free, total = self.torch.cuda.mem_get_info(0)
        return int(total - free)

    def sample(self):
        u = self.used()
        if u > self.peak:
            self.peak = u
        return u

    def start(self, interval=0.003):
        import threading
        self.stop_event = threading.Event()

        def loop():
            while not self.stop_event.is_set():
                try:
                    self.sample()
                except Exception:
                    return
                self.stop_event.wait(interval)
        self.thread = threading.Thread(target=loop, daemon=True)
        self.thread.start()

    def stop(self):
        if self.thread is not None:
            self.stop_event.set()
            self.thread.join()
            self.thread = None
        self.sample()


def _is_oom(torch, exc):
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and ("out of memory" in text.lower() or "CUBLAS_STATUS_ALLOC_FAILED" in text)


def _make_config(transformers, cfg):
    d = dict(cfg)
    model_type = d.pop("model_type")
    try:
        return transformers.AutoConfig.for_model(model_type, **d)
    except (TypeError, ValueError):
        if "rope_scaling" not in d:
            raise
        # transformers >= 5 names the RoPE settings rope_parameters
        rope = dict(d.pop("rope_scaling"))
        rope["rope_theta"] = d.pop("rope_theta", 10000.0)
        d["rope_parameters"] = rope
        return transformers.AutoConfig.for_model(model_type, **d)


_AUTO = {"bi-encoder": "AutoModel", "seq-cls": "AutoModelForSequenceClassification",
         "seq2seq": "AutoModelForSeq2SeqLM", "causal-lm": "AutoModelForCausalLM"}
_PEFT_TASK = {"bi-encoder": "FEATURE_EXTRACTION", "seq-cls": "SEQ_CLS", "seq2seq": "SEQ_2_SEQ_LM",
              "causal-lm": "CAUSAL_LM"}
_ATTN = {"eager": "eager", "sdpa": "sdpa", "flash": "flash_attention_2"}


def _tf_version_at_least(transformers, major, minor):
    m = re.match(r"(\d+)\.(\d+)", transformers.__version__)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (major, minor)


def _build_random(torch, auto, config, attn, dtype, dev):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(dev):
            model = auto.from_config(config, attn_implementation=attn)
    finally:
        torch.set_default_dtype(old)
    return model


def build_model(case, torch, transformers, dev):
    """The model of a case on dev, ready to train (GC, LoRA/QLoRA applied), its config, and what
    the case holds beside it (workloads.Built: the program's head, a passage encoder, a reference
    model). fsdp_init=per_unit builds it on the meta device (FSDP materialises it unit by unit)."""
    import gc
    import workloads
    s = case["settings"]
    task = s["task"]
    cfg = dict(case["config"])
    if task == "seq-cls":
        cfg["num_labels"] = 2
    generate = s.get("mode") == "generate"
    if task in ("causal-lm", "seq2seq") or (s.get("part") == "base" and "use_cache" in cfg):
        cfg["use_cache"] = generate  # training keeps no KV cache; generation does
    config = _make_config(transformers, cfg)
    auto = getattr(transformers, workloads.model_class_name(case, _AUTO[task]))
    attn = _ATTN[s["attn"]]
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[s["dtype"]]
    gc_on = bool(s["gradient_checkpointing"])
    if s["quant"] != "none":
        # The real path: a checkpoint on disk loaded through bitsandbytes.
        import shutil
        tmp = tempfile.mkdtemp(prefix="sl-calib-ckpt-")
        try:
            m = _build_random(torch, auto, config, attn, dtype, dev)
            m.save_pretrained(tmp, safe_serialization=True)
            del m
            gc.collect()
            torch.cuda.empty_cache()
            if s["quant"] == "nf4":
                q = transformers.BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                                    bnb_4bit_compute_dtype=dtype, bnb_4bit_use_double_quant=True)
            else:
                q = transformers.BitsAndBytesConfig(load_in_8bit=True)
            kw = {"dtype": dtype} if _tf_version_at_least(transformers, 4, 56) else {"torch_dtype": dtype}
            model = auto.from_pretrained(tmp, quantization_config=q, device_map={"": dev.index or 0},
                                         attn_implementation=attn, **kw)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        import peft
        if case.get("kbit_prepare", True):
            # upcasts the non-quantised parameters (norms, embeddings, lm head) to fp32
            model = peft.prepare_model_for_kbit_training(model, use_gradient_checkpointing=gc_on)
        elif gc_on:
            model.gradient_checkpointing_enable()
            model.enable_input_require_grads()
    elif s.get("fsdp_init") == "per_unit":
        model = _build_random(torch, auto, config, attn, dtype, torch.device("meta"))
        if gc_on:
            model.gradient_checkpointing_enable()
    else:
        model = _build_random(torch, auto, config, attn, dtype, dev)
        if next(model.parameters()).dtype != dtype:
            model.to(dtype)
        model.to(dev)
        if gc_on:
            model.gradient_checkpointing_enable()
    if s.get("liger"):
        # Liger kernels patched into this instance: fused linear cross-entropy (no full logits),
        # RMSNorm, SwiGLU, RoPE
        from liger_kernel.transformers import _apply_liger_kernel_to_instance
        _apply_liger_kernel_to_instance(model=model)
    if s["lora_r"]:
        import peft
        if gc_on and s["quant"] == "none":
            model.enable_input_require_grads()
        save = [m for m in (s.get("modules_to_save") or "").split(",") if m]
        lcfg = peft.LoraConfig(r=int(s["lora_r"]), lora_alpha=2 * int(s["lora_r"]), lora_dropout=0.0,
                               target_modules=s["lora_targets"].split(",") if s["lora_targets"] else None,
                               modules_to_save=save or None, bias="none", task_type=_PEFT_TASK[task])
        model = peft.get_peft_model(model, lcfg)
    if generate:
        model.eval()
    else:
        model.train()

    def build_again():
        again = _build_random(torch, auto, config, attn, dtype, dev)
        if gc_on and not generate:
            again.gradient_checkpointing_enable()
        again.to(device=dev, dtype=dtype)  # nn.Module.to: in place
        return again
    built = workloads.finish_model(case, model, torch, dev, dtype, build_again)
    return model, config, built


def _decoder_layer_classes(model):
    """The transformer block classes of a model (FSDP's auto-wrap unit): *DecoderLayer/*Layer/*Block."""
    names = set(getattr(model, "_no_split_modules", None) or [])
    found = set()
    for m in model.modules():
        if type(m).__name__ in names:
            found.add(type(m))
    return found


def wrap_fsdp(case, model, torch, dev):
    """The model wrapped by FSDP at world size 1: one process group of one rank, each
    transformer block its own unit (auto-wrap), the strategy and precision policy of the case.

    dtype=bf16, amp=off: pure bf16 (parameters, gradients and optimizer state in bf16, no
    master copy); dtype=fp32, amp=bf16: fp32 sharded parameters with bf16 compute
    (MixedPrecision(param_dtype=bf16)), i.e. an fp32 master.
    """
    import functools
    import socket
    import torch.distributed as dist
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp import MixedPrecision, ShardingStrategy
    from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
    if not dist.is_initialized():
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(port))
        dist.init_process_group("nccl", rank=0, world_size=1)
    s = case["settings"]
    strategy = {"full_shard": ShardingStrategy.FULL_SHARD, "shard_grad_op": ShardingStrategy.SHARD_GRAD_OP,
                "hybrid_shard": ShardingStrategy.HYBRID_SHARD, "no_shard": ShardingStrategy.NO_SHARD}[s["fsdp"]]
    mp = None
    if s["amp"] == "bf16":
        mp = MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16,
                            buffer_dtype=torch.bfloat16)
    policy = functools.partial(transformer_auto_wrap_policy,
                               transformer_layer_cls=_decoder_layer_classes(model))
    import workloads
    init = workloads.fsdp_param_init(case, dev)
    extra = {"param_init_fn": init} if init is not None else {}
    return FSDP(model, sharding_strategy=strategy, auto_wrap_policy=policy, mixed_precision=mp,
                device_id=dev, use_orig_params=True, **extra)


def make_batch(case, config, torch, dev, step=0):
    """The batch of a step (random token ids; step matters for dynamically padded cases)."""
    import workloads
    s = case["settings"]
    b, L = int(s["batch_size"]), int(s["seq_len"])
    vocab = int(config.vocab_size)
    g = torch.Generator(device=dev)
    g.manual_seed(1234 + step)

    def ids(n, length):
        return torch.randint(5, vocab, (n, length), device=dev, generator=g)

    special = workloads.special_batch(case, config, torch, dev, g, ids, step)
    if special is not None:
        return special

    ones = torch.ones((b, L), dtype=torch.long, device=dev)
    task = s["task"]
    if task == "bi-encoder":
        return {"texts": [(ids(b, L), ones) for _ in range(int(s["texts_per_example"]))]}
    if task == "seq-cls":
        return {"input_ids": ids(b, L), "attention_mask": ones,
                "labels": torch.randint(0, 2, (b,), device=dev, generator=g)}
    if task == "seq2seq":
        return {"input_ids": ids(b, L), "attention_mask": ones, "labels": ids(b, int(s["target_len"]))}
    x = ids(b, L)
    return {"input_ids": x, "attention_mask": ones, "labels": x}


def embed(model, case, ids, mask):
    """The normalised sentence embeddings of one forward pass (CLS or mean pooling)."""
    import torch.nn.functional as F
    h = model(input_ids=ids, attention_mask=mask).last_hidden_state
    if case["pooling"] == "cls":
        e = h[:, 0]
    else:
        m = mask.unsqueeze(-1).to(h.dtype)
        e = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
    return F.normalize(e, p=2, dim=-1)


def mnrl_loss(embs, torch):
    """MultipleNegativesRankingLoss over the columns' embeddings: cosine similarity × 20 of each
    query against every in-batch candidate, cross-entropy on the diagonal."""
    import torch.nn.functional as F
    q, docs = embs[0], torch.cat(embs[1:], 0)
    return F.cross_entropy(q @ docs.T * 20.0, torch.arange(q.size(0), device=q.device))


def compute_loss(model, case, batch, torch, built=None):
    import workloads
    s = case["settings"]
    if s.get("algorithm") == "dpo":
        return workloads.dpo_loss(model, built, case, batch, torch)
    if s.get("algorithm") == "grpo":
        return workloads.grpo_loss(model, built, case, batch, torch)
    if built is not None and built.head is not None:
        return workloads.head_loss(model, built, batch, torch)
    if s["task"] != "bi-encoder":
        return model(**batch).loss
    # sentence-transformers MultipleNegativesRankingLoss: each text column is its own forward pass
    if built is not None and built.passage is not None:
        return mnrl_loss(workloads.separate_embeddings(model, built, case, batch, embed), torch)
    return mnrl_loss([embed(model, case, ids, mask) for ids, mask in batch["texts"]], torch)


def cached_mnrl_backward(model, case, batch, torch, scale=None):
    """One CachedMultipleNegativesRankingLoss step (GradCache, as sentence-transformers does):
    every column embedded in mini-batches under no_grad, the loss and its gradient with respect
    to the embeddings, then each mini-batch re-run with grad and backpropagated from its cached
    gradient. Returns the loss (already backpropagated)."""
    mb = int(case["settings"]["mini_batch_size"])

    cols = []
    with torch.no_grad():
        for ids, mask in batch["texts"]:
            cols.append(torch.cat([embed(model, case, ids[i:i + mb], mask[i:i + mb])
                                   for i in range(0, ids.size(0), mb)], 0))
    reps = [c.detach().float().requires_grad_() for c in cols]
    loss = mnrl_loss(reps, torch)
    (scale(loss) if scale else loss).backward()
    for (ids, mask), rep in zip(batch["texts"], reps):
        for i in range(0, ids.size(0), mb):
            e = embed(model, case, ids[i:i + mb], mask[i:i + mb])
            e.float().backward(rep.grad[i:i + mb])
    return loss


def generate_once(model, case, config, torch, dev):
    """model.generate over a batch of random prompts: exactly max_new_tokens new tokens
    (min_new_tokens, no EOS stop), greedy, beam search or sampling (workloads.generate_kwargs),
    the KV cache on."""
    import workloads
    s = case["settings"]
    b, L = int(s["batch_size"]), int(s["seq_len"])
    g = torch.Generator(device=dev)
    g.manual_seed(1234)
    ids = torch.randint(5, int(config.vocab_size), (b, L), device=dev, generator=g)
    new = int(s["max_new_tokens"])
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=new,
                             min_new_tokens=new, use_cache=True, pad_token_id=0,
                             **workloads.generate_kwargs(case))
    return int(out.shape[-1]) - L


def eval_pass(model, case, config, torch, dev, amp):
    """The evaluation forward at eval_batch_size under no_grad (model.eval()), as HF Trainer's
    evaluation loop runs it; the loss and logits are computed, nothing is kept."""
    import contextlib
    ev = json.loads(json.dumps(case))
    ev["settings"]["batch_size"] = int(case["settings"]["eval_batch_size"])
    batch = make_batch(ev, config, torch, dev)
    model.eval()
    ctx = torch.autocast("cuda", dtype=amp) if amp is not None else contextlib.nullcontext()
    with torch.no_grad(), ctx:
        loss = compute_loss(model, ev, batch, torch)
        float(loss)
    model.train()


def make_optimizer(case, params, torch, transformers):
    name = case["settings"]["optimizer"]
    if name in ("adamw_torch", "adamw_hf", "adam"):
        return torch.optim.AdamW(params, lr=5e-5, weight_decay=0.0)
    if name == "adamw_torch_fused":
        return torch.optim.AdamW(params, lr=5e-5, weight_decay=0.0, fused=True)
    if name == "adafactor":
        from transformers.optimization import Adafactor
        return Adafactor(params, lr=1e-4, scale_parameter=False, relative_step=False, warmup_init=False)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3)
    if name in ("adamw_bnb_8bit", "adamw_8bit"):
        import bitsandbytes as bnb
        return bnb.optim.AdamW8bit(params, lr=5e-5)
    raise ValueError("optimizer %r is not supported by the harness" % name)


def _restart_peaks(torch, dev, mon):
    """The torch peak statistics and the device-used peak count from here."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats(dev)
    mon.peak = 0
    mon.sample()


def run_case(case, steps, mon):
    """Train a case for `steps` steps; the measurement dict (status ok/oom/error).

    A case whose `phase` is 'load' measures FSDP's model loading alone (the peaks count from
    before the model is built to after it is wrapped; no step runs); 'save' runs the steps, then
    measures the checkpoint save alone (the state dict of workloads.fsdp_state_dict)."""
    import workloads
    t0 = time.time()
    res = {"id": case["id"], "status": "error", "steps_done": 0}
    mon.open_nvml()
    import torch
    import transformers
    mon.attach(torch)
    res["nvml_source"] = mon.source
    res["nvml_baseline"] = mon.baseline if mon.source == "pynvml" else 0
    res["alloc_conf"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF") or None
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    torch.zeros(1, device=dev)
    torch.cuda.synchronize()
    res["context_bytes"] = mon.used() - res["nvml_baseline"]
    s = case["settings"]
    phase = case.get("phase")
    try:
        if phase == "load":
            # FSDP's loading is the measured phase: the peaks count from before the build
            res["init_reserved"] = torch.cuda.memory_reserved(dev)
            res["init_allocated"] = torch.cuda.memory_allocated(dev)
            _restart_peaks(torch, dev, mon)
            mon.start()
        model, config, built = build_model(case, torch, transformers, dev)
        import gc
        gc.collect()
        if phase == "load":
            model = wrap_fsdp(case, model, torch, dev)
            torch.cuda.synchronize()
            mon.sample()
            params = list(model.parameters())
            res["params"] = sum(p.numel() for p in params)
            res["trainable"] = sum(p.numel() for p in params if p.requires_grad)
            res["phase"] = "load"
            res["status"] = "ok"
            return res
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        res["init_reserved"] = torch.cuda.memory_reserved(dev)
        res["init_allocated"] = torch.cuda.memory_allocated(dev)
        # the device peak counts from here: building (random init, the QLoRA checkpoint
        # round trip) is not part of a training step
        _restart_peaks(torch, dev, mon)
        mon.start()
        params = list(model.parameters())
        res["params"] = sum(p.numel() for p in params)
        res["held_params"] = built.params() or None
        trainable = [p for p in params if p.requires_grad] + built.trainable()
        res["trainable"] = sum(p.numel() for p in trainable)
        res["attn_impl"] = getattr(getattr(model, "config", config), "_attn_implementation", None)
        mode = s.get("mode", "train")
        if mode == "generate":
            for _ in range(max(1, min(steps, 2))):
                res["new_tokens"] = generate_once(model, case, config, torch, dev)
                torch.cuda.synchronize()
                mon.sample()
                res["steps_done"] += 1
            res["status"] = "ok"
            return res
        if s.get("fsdp"):
            model = wrap_fsdp(case, model, torch, dev)
            trainable = [p for p in model.parameters() if p.requires_grad]
        if s.get("torch_compile"):
            model = torch.compile(model)
        opt = make_optimizer(case, trainable, torch, transformers)
        amp = {"off": None, "fp16": torch.float16, "bf16": torch.bfloat16}[s["amp"]]
        scaler = None
        if amp is torch.float16:
            # init_scale 1: random weights must not overflow into skipped steps (a skipped
            # step allocates no optimizer state and would hide it from the measurement)
            try:
                scaler = torch.amp.GradScaler("cuda", init_scale=1.0)
            except (AttributeError, TypeError):
                scaler = torch.cuda.amp.GradScaler(init_scale=1.0)
        batch = make_batch(case, config, torch, dev)
        lengths = []
        import contextlib
        with workloads.sdpa_context(case, torch):
            for step in range(steps):
                if workloads.per_step_batches(case) and step > 0:
                    del batch
                    batch = make_batch(case, config, torch, dev, step)
                if s.get("algorithm") == "grpo":
                    # the generation phase of the step: its KV cache and the weights, before the step
                    batch = workloads.grpo_rollout(model, case, batch, torch)
                    if step == 0:
                        torch.cuda.synchronize()
                        res["generation_peak_allocated"] = torch.cuda.max_memory_allocated(dev)
                if s.get("padding") == "longest":
                    lengths.append(int(batch["input_ids"].shape[1]))
                ctx = torch.autocast("cuda", dtype=amp) if amp is not None else contextlib.nullcontext()
                if s.get("mini_batch_size"):
                    with ctx:
                        cached_mnrl_backward(model, case, batch, torch,
                                             scale=scaler.scale if scaler is not None else None)
                else:
                    with ctx:
                        loss = compute_loss(model, case, batch, torch, built)
                    (scaler.scale(loss) if scaler is not None else loss).backward()
                    del loss
                if scaler is not None:
                    scaler.step(opt)
                    scaler.update()
                else:
                    opt.step()
                opt.zero_grad(set_to_none=True)
                torch.cuda.synchronize()
                mon.sample()
                res["steps_done"] += 1
        if lengths:
            res["step_lengths"] = ",".join(str(n) for n in lengths)
        if case.get("sdpa_backend"):
            res["sdpa_kernel"] = case["sdpa_backend"]
        if s["optimizer"] not in ("sgd",):
            res["optimizer_state"] = len(opt.state) > 0
        if phase == "save":
            # the checkpoint save after the steps: shards, optimizer states, the gathered units
            del batch
            res["train_peak_allocated"] = torch.cuda.max_memory_allocated(dev)
            res["train_peak_reserved"] = torch.cuda.max_memory_reserved(dev)
            _restart_peaks(torch, dev, mon)
            state = workloads.fsdp_state_dict(model, case, torch)
            torch.cuda.synchronize()
            mon.sample()
            del state
            res["phase"] = "save"
        if mode == "eval":
            # the measured peak is the evaluation's: training built the optimizer state, which
            # stays resident; the peak statistics restart here
            del batch
            _restart_peaks(torch, dev, mon)
            eval_pass(model, case, config, torch, dev, amp)
            torch.cuda.synchronize()
            mon.sample()
            res["phase"] = "eval"
        res["status"] = "ok"
    except Exception as e:
        if _is_oom(torch, e):
            res["status"] = "oom"
        res["error"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:300])
    finally:
        try:
            torch.cuda.synchronize()
        except Exception:
            pass
        mon.stop()
        res["peak_allocated"] = torch.cuda.max_memory_allocated(dev)
        res["peak_reserved"] = torch.cuda.max_memory_reserved(dev)
        res["nvml_peak_used"] = mon.peak
        res["wall_s"] = time.time() - t0
    return res


def child_run_main(case_path, result_path, steps):
    with open(case_path) as f:
        case = json.load(f)
    try:
        res = run_case(case, steps, Monitor())
    except Exception as e:
        res = {"id": case.get("id"), "status": "error", "error": "%s: %s" % (type(e).__name__, e)}
    _write_result(result_path, res)
    return 0 if res["status"] in ("ok", "oom") else 1


if __name__ == "__main__":
    sys.exit(main())
