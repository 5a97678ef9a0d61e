"""compare.py against a fake `sweeplint estimate`: metric mapping, error bars, verdicts, exit codes."""
import io
import json
import os
import statistics
import subprocess
import unittest
from unittest import mock

import calib_test_util as u
import cases
import compare
import measured

MIB = u.MIB

SPEC = {
    "models": {
        "m/enc": {"base_mib": 10000, "params": 1000000, "weights_mib": 100},
        "m/big": {"base_mib": 25000, "params": 5000000, "weights_mib": 300},
        "config:llama": {"base_mib": 8000, "params": 1235814400, "weights_mib": 2357},
    },
    "gpu_mib": 20000, "context_mib": 500, "slack_mib": 200,
}


def row(case_id, metric, value, model="m/enc", method="full", dtype="fp32", notes="", batch=8, gpu="h100-80gb"):
    r = {c: "" for c in measured.COLUMNS}
    r.update({"id": case_id, "source": "test", "model": model, "task": "seq-cls", "batch": batch,
              "grad_accum": 1, "seq_len": 128, "target_len": 0, "dtype": dtype, "amp": "off", "gc": "false",
              "optimizer": "adamw_torch", "method": method, "lora_r": 8 if method != "full" else 0,
              "attn": "sdpa", "gpu": gpu, "metric": metric, "value_mib": value, "notes": notes})
    return r


def case_a():
    return [row("a", "nvml_used", 11000), row("a", "torch_reserved", 9000), row("a", "torch_allocated", 9300),
            row("a", "reserved_minus_init", 9500), row("a", "oom", 0)]


def expected_errors_a():
    """|error| % of case a, from SPEC by the documented mapping (independent of compare.py)."""
    total, ctx, slack = 10000.0, 500.0, 200.0
    first_load = 100.0  # the weights term of the amp-off estimate (m/enc weights_mib)
    pairs = [(11000, total), (9000, total - ctx), (9300, total - ctx - slack),
             (9500, total - ctx - first_load)]
    return [abs(p - m) / m * 100 for m, p in pairs]


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.tmp = u.TempDir()
        self.dir = self.tmp.__enter__()
        self.env = mock.patch.dict(os.environ, u.write_spec(self.dir, SPEC))
        self.env.start()

    def tearDown(self):
        self.env.stop()
        self.tmp.__exit__(None, None, None)

    def run_compare(self, rows, *extra, comments=()):
        path = os.path.join(self.dir, "m.tsv")
        with open(path, "w") as f:
            f.write(measured.format_rows(rows, comments))
        out, err = io.StringIO(), io.StringIO()
        rc = compare.main(["--sweeplint", u.FAKE_SWEEPLINT, "-f", "json", path] + list(extra), out, err)
        data = json.loads(out.getvalue()) if out.getvalue() else None
        return rc, data, err.getvalue()

    def test_eval_rows_compare_with_the_eval_peak(self):
        est = {"total_bytes": 10 * MIB, "fits": True, "breakdown": {"cuda_context": MIB},
               "eval": {"total_bytes": 30 * MIB, "fits": False, "breakdown": {"cuda_context": MIB, "slack": 2 * MIB}}}
        train_row = row("t", "nvml_used", 10)
        eval_row = row("e", "nvml_used", 30, notes="mode=eval eval_batch_size=64 measured_phase=eval")
        self.assertIs(compare.phase_view(est, train_row), est)
        view = compare.phase_view(est, eval_row)
        self.assertEqual((view["total_bytes"], view["fits"]), (30 * MIB, False))
        self.assertEqual(compare.predicted_bytes("torch_allocated", view, eval_row), 27 * MIB)
        self.assertEqual(est["total_bytes"], 10 * MIB)  # the estimate itself is not changed
        with self.assertRaises(compare.EstimateError):
            compare.phase_view({"total_bytes": 1, "fits": True, "breakdown": {}}, eval_row)
        self.assertIn("mode=eval", measured.row_roles(eval_row))
        self.assertIn("eval_batch_size=64", measured.row_roles(eval_row))

    def test_eval_rows_compare_allocated_only(self):
        # the reserved and device peaks of an evaluation hold the training step's cached
        # blocks (released under pressure): only its allocated peak is its own
        est = {"total_bytes": 50 * MIB, "fits": True, "breakdown": {"cuda_context": MIB, "slack": 4 * MIB},
               "eval": {"total_bytes": 30 * MIB, "fits": True, "breakdown": {"cuda_context": MIB, "slack": 2 * MIB}}}
        eval_row = row("e", "nvml_used", 30, notes="mode=eval eval_batch_size=64 measured_phase=eval")
        view = compare.phase_view(est, eval_row)
        for metric in ("nvml_used", "torch_reserved", "reserved_minus_init"):
            self.assertIsNone(compare.predicted_bytes(metric, view, eval_row, pool=est))
        self.assertEqual(compare.predicted_bytes("torch_allocated", view, eval_row, pool=est), 27 * MIB)
        self.assertEqual(compare.predicted_bytes("nvml_used", view, eval_row), 30 * MIB)

    def test_metric_mapping_median_worst_and_pass(self):
        rc, data, _ = self.run_compare(case_a() + [row("b", "oom", 1, model="m/big")])
        self.assertEqual(rc, 0)
        want = expected_errors_a()
        got = [r["error_pct"] for r in data["files"][0]["rows"]]
        for w, g in zip(want, got):
            self.assertAlmostEqual(w, g, places=6)
        self.assertEqual([r["metric"] for r in data["files"][0]["rows"]],
                         ["nvml_used", "torch_reserved", "torch_allocated", "reserved_minus_init"])
        self.assertAlmostEqual(data["summary"]["median_pct"], statistics.median(want), places=6)
        self.assertAlmostEqual(data["summary"]["worst_pct"], max(want), places=6)
        self.assertEqual(data["summary"]["worst"], "a nvml_used")
        verdicts = {v["id"]: v for v in data["files"][0]["verdicts"]}
        self.assertEqual(set(verdicts), {"a", "b"})
        self.assertEqual(verdicts["b"]["measured"], "oom")
        self.assertTrue(all(v["ok"] for v in verdicts.values()))
        self.assertTrue(data["pass"])
        # one estimate per case, not per row
        self.assertEqual(len(u.read_log(self.dir)), 2)

    def test_worst_bar_fails(self):
        rows = case_a() + [row("c", "nvml_used", 19000, batch=16)]
        rc, data, _ = self.run_compare(rows)
        self.assertEqual(rc, 1)
        self.assertAlmostEqual(data["summary"]["worst_pct"], abs(10000 - 19000) / 19000 * 100, places=6)
        # 19000 MiB of 20000 is within the 10% margin: no verdict for c
        self.assertNotIn("c", [v["id"] for v in data["files"][0]["verdicts"]])
        self.assertFalse(data["pass"])

    def test_median_bar_fails(self):
        rows = [row("a", "nvml_used", 11500), row("a", "torch_reserved", 8500), row("a", "oom", 0)]
        rc, data, _ = self.run_compare(rows)
        errs = [abs(10000 - 11500) / 11500 * 100, abs(9500 - 8500) / 8500 * 100]
        self.assertGreater(statistics.median(errs), 10)
        self.assertLess(max(errs), 20)
        self.assertEqual(rc, 1)
        rc, _, _ = self.run_compare(rows, "--median-bar", "15")
        self.assertEqual(rc, 0)

    def test_wrong_verdict_fails_even_with_good_errors(self):
        rc, data, _ = self.run_compare(case_a() + [row("d", "oom", 1, batch=99)])
        self.assertEqual(rc, 1)
        self.assertEqual(data["summary"]["verdicts_wrong"], ["d"])
        self.assertLessEqual(data["summary"]["worst_pct"], 20)

    def test_metrics_filter(self):
        rc, data, _ = self.run_compare(case_a(), "--metrics", "torch_reserved")
        self.assertEqual([r["metric"] for r in data["files"][0]["rows"]], ["torch_reserved"])
        self.assertEqual(rc, 0)

    def test_config_fallback_for_models_the_catalog_lacks(self):
        rows = [row("l", "nvml_used", 8000, model="meta-llama/Llama-3.2-1B", dtype="bf16"),
                row("l", "oom", 0, model="meta-llama/Llama-3.2-1B", dtype="bf16")]
        rc, data, _ = self.run_compare(rows)
        self.assertEqual(rc, 0)
        self.assertEqual(data["files"][0]["rows"][0]["error_pct"], 0)
        calls = u.read_log(self.dir)
        self.assertEqual(len(calls), 2)
        self.assertIn("model=meta-llama/Llama-3.2-1B", calls[0])
        model_arg = [a for a in calls[1] if a.startswith("model=")][0]
        self.assertTrue(model_arg.endswith("llama-3.2-1b"))
        # the directory was removed afterwards
        self.assertFalse(os.path.exists(model_arg[len("model="):]))

    def test_unknown_model_is_an_error(self):
        rc, data, _ = self.run_compare(case_a() + [row("x", "nvml_used", 100, model="who/knows")])
        self.assertEqual(rc, 1)
        errors = data["files"][0]["errors"]
        self.assertEqual(len(errors), 1)
        self.assertIn("unknown model", errors[0])

    def test_first_load_is_the_weights_term_without_amp(self):
        notes = "quant=nf4 lora_targets=q_proj,v_proj"
        rows = [row("q", "reserved_minus_init", 9000, method="qlora", dtype="bf16", notes=notes)]
        rc, data, _ = self.run_compare(rows)
        pred = data["files"][0]["rows"][0]["predicted_mib"]
        self.assertAlmostEqual(pred, 10000 - 500 - 100, places=6)
        call = u.read_log(self.dir)[0]
        self.assertIn("quant=nf4", call)
        self.assertIn("lora_r=8", call)
        self.assertEqual(call.count("quant=nf4"), 1)
        # amp off already: one estimate serves both the total and the first load
        self.assertEqual(len(u.read_log(self.dir)), 1)

    def test_first_load_under_amp_comes_from_an_amp_off_estimate(self):
        r = row("h", "reserved_minus_init", 9000)
        r["amp"] = "fp16"
        _, data, _ = self.run_compare([r])
        # the fake reports weights × 1.5 under AMP; the first load is the amp-off weights
        self.assertAlmostEqual(data["files"][0]["rows"][0]["predicted_mib"], 10000 - 500 - 100, places=6)
        calls = u.read_log(self.dir)
        self.assertEqual(len(calls), 2)
        self.assertIn("amp=fp16", calls[0])
        self.assertIn("amp=off", calls[1])
        self.assertEqual([a for a in calls[0] if not a.startswith("amp=")],
                         [a for a in calls[1] if not a.startswith("amp=")])

    def test_extra_roles_reach_every_estimate(self):
        self.run_compare(case_a(), "--role", "legacy_runtime=true")
        self.assertTrue(all(c[-1] == "legacy_runtime=true" for c in u.read_log(self.dir)))

    def test_params_mismatch_warns(self):
        rows = [row("p", "nvml_used", 10000, notes="params=2000000"), row("p", "oom", 0)]
        rc, data, _ = self.run_compare(rows)
        self.assertEqual(rc, 0)
        self.assertEqual(len(data["files"][0]["warnings"]), 1)
        self.assertIn("2000000", data["files"][0]["warnings"][0])

    def test_gpu_column_and_override(self):
        self.run_compare([row("a", "nvml_used", 10000, gpu="l40s")])
        self.assertEqual(u.read_log(self.dir)[0][1:3], ["-g", "l40s"])
        self.run_compare([row("a", "nvml_used", 10000, gpu="l40s")], "--gpu", "24GiB")
        self.assertEqual(u.read_log(self.dir)[1][1:3], ["-g", "24GiB"])

    def test_capacity_from_the_header_when_the_estimate_has_none(self):
        est = {"total_bytes": 10 * MIB, "fits": True, "breakdown": {}, "gpu": {}}
        self.assertEqual(compare._capacity_bytes(est, {"gpu_total_mib": "81559"}), 81559 * MIB)
        self.assertIsNone(compare._capacity_bytes(est, {}))

    def test_usage_errors_exit_2(self):
        out, err = io.StringIO(), io.StringIO()
        self.assertEqual(compare.main(["--sweeplint", os.path.join(self.dir, "none"), "x.tsv"], out, err), 2)
        self.assertIn("not found", err.getvalue())
        bad = os.path.join(self.dir, "bad.tsv")
        with open(bad, "w") as f:
            f.write("not\ta\theader\n")
        err = io.StringIO()
        self.assertEqual(compare.main(["--sweeplint", u.FAKE_SWEEPLINT, bad], io.StringIO(), err), 2)
        self.assertIn("header", err.getvalue())

    def test_text_output(self):
        path = os.path.join(self.dir, "t.tsv")
        with open(path, "w") as f:
            f.write(measured.format_rows(case_a()))
        p = subprocess.run([u.PYTHON, u.COMPARE, "--sweeplint", u.FAKE_SWEEPLINT, path],
                           capture_output=True, text=True, env=dict(os.environ))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("median |error|", p.stdout)
        self.assertIn("result: pass", p.stdout)
        self.assertRegex(p.stdout, r"a\s+nvml_used\s+11000\s+10000\s+9\.1%")


class RunEstimateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = u.TempDir()
        self.dir = self.tmp.__enter__()

    def tearDown(self):
        self.tmp.__exit__(None, None, None)

    def script(self, body):
        path = os.path.join(self.dir, "sl")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
        return path

    def test_accepts_exit_1_with_json(self):
        est = {"params": 1, "trainable_params": 1, "total_bytes": 5, "fits": False, "gpu": {}, "breakdown": {}}
        path = self.script("echo '%s'; exit 1" % json.dumps(est))
        self.assertEqual(compare.run_estimate(path, ["model=x"], "t4"), est)

    def test_rejects_junk_and_incomplete_json(self):
        with self.assertRaises(compare.EstimateError):
            compare.run_estimate(self.script("echo nope"), [])
        with self.assertRaises(compare.EstimateError):
            compare.run_estimate(self.script("echo '{\"total_bytes\": 1}'"), [])
        with self.assertRaises(compare.EstimateError) as cm:
            compare.run_estimate(self.script("echo 'sweeplint: bad role' >&2; exit 2"), [])
        self.assertIn("bad role", str(cm.exception))

    def test_passes_roles_in_order(self):
        log = os.path.join(self.dir, "args")
        est = {"total_bytes": 1, "fits": True, "breakdown": {}}
        path = self.script('printf "%%s\\n" "$@" > %s; echo \'%s\'' % (log, json.dumps(est)))
        compare.run_estimate(path, ["model=a", "batch_size=2"], "h100-80gb")
        with open(log) as f:
            self.assertEqual(f.read().split("\n")[:-1],
                             ["estimate", "-g", "h100-80gb", "-f", "json", "model=a", "batch_size=2"])


class EstimatorWithCasesTest(unittest.TestCase):
    def test_every_case_row_becomes_an_estimate_call(self):
        calls = []

        def runner(binary, roles, gpu):
            calls.append(roles)
            return {"total_bytes": 1, "fits": True, "breakdown": {}}
        est = compare.Estimator("sweeplint", None, runner)
        for c in cases.all_cases():
            if c["capacity"]:
                continue
            est.estimate(cases.tsv_row(c, "h100-80gb", "nvml_used", 0))
        est.close()
        for roles in calls:
            keys = [r.split("=", 1)[0] for r in roles]
            self.assertEqual(len(keys), len(set(keys)), roles)
            for key in ("model", "task", "batch_size", "seq_len", "dtype", "amp", "gradient_checkpointing",
                        "optimizer", "attn"):
                self.assertIn(key, keys)


if __name__ == "__main__":
    import unittest as _u
    _u.main()
