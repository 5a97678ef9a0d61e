"""calibrate.py: --list without torch, and whole runs against a fake case subprocess."""
import importlib.util
import json
import os
import subprocess
import unittest

import calib_test_util as u
import calibrate
import cases
import measured

MIB = u.MIB
FAKE_GPU_MIB = 81559  # what fake_python.py reports by default

# Run calibrate.py's main with the GPU stack made unimportable, so that a module-level
# import of any of them fails the test even on a machine that has them installed.
BLOCKER = r"""
import sys, runpy
BLOCK = {"torch", "transformers", "peft", "bitsandbytes", "sentence_transformers", "pynvml", "numpy"}
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCK:
            raise ImportError("blocked for the test: " + name)
        return None
sys.meta_path.insert(0, Blocker())
sys.argv = [sys.argv[1]] + sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def run_cli(*args, env=None):
    e = dict(os.environ if env is None else env)
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([u.PYTHON, "-c", BLOCKER, u.CALIBRATE] + list(args), capture_output=True,
                          text=True, env=e, timeout=300)


class ListTest(unittest.TestCase):
    def test_list_runs_without_torch(self):
        p = run_cli("--list")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0].split()[:3], ["id", "model", "task"])
        n = len(cases.default_cases())
        self.assertEqual(lines[-1], "%d cases" % n)
        self.assertEqual(len(lines), n + 2)
        listed = [line.split()[0] for line in lines[1:-1]]
        self.assertEqual(listed, [c["id"] for c in cases.default_cases()])

    def test_list_with_selection(self):
        p = run_cli("--list", "--cases", "mt5b-*,cap-llama1b-above")
        self.assertEqual(p.returncode, 0, p.stderr)
        listed = [line.split()[0] for line in p.stdout.splitlines()[1:-1]]
        want = [c["id"] for c in cases.all_cases() if c["id"].startswith("mt5b-") or c["id"] == "cap-llama1b-above"]
        self.assertEqual(listed, want)
        self.assertIn("115%cap", p.stdout)
        p = run_cli("--list", "--cases", "all")
        self.assertEqual(p.stdout.splitlines()[-1], "%d cases" % len(cases.all_cases()))

    def test_unknown_case_is_a_usage_error(self):
        p = run_cli("--list", "--cases", "nope-*")
        self.assertEqual(p.returncode, 2)
        self.assertIn("no case matches", p.stderr)

    @unittest.skipIf(importlib.util.find_spec("torch") is not None, "torch is installed here")
    def test_measuring_without_torch_says_so(self):
        with u.TempDir() as d:
            out = os.path.join(d, "x.tsv")
            p = run_cli("--cases", "kluerob-cls-b32-s128-fp32-nogc-sdpa", "--out", out)
            self.assertEqual(p.returncode, 2)
            self.assertIn("torch is not installed", p.stderr)
            self.assertFalse(os.path.exists(out))


class FakeRunTest(unittest.TestCase):
    """Whole runs with --python pointing at a fake that answers like the case subprocess."""

    def setUp(self):
        self.tmp = u.TempDir()
        self.dir = self.tmp.__enter__()
        self.out = os.path.join(self.dir, "m.tsv")
        self.env = dict(os.environ)
        self.env["FAKE_PYTHON_LOG"] = os.path.join(self.dir, "ran.log")
        self.env["FAKE_NO_BNB"] = "1"

    def tearDown(self):
        self.tmp.__exit__(None, None, None)

    def ran(self):
        with open(self.env["FAKE_PYTHON_LOG"]) as f:
            return f.read().split()

    def calibrate(self, *args, env=None):
        return run_cli("--python", u.FAKE_PYTHON, "--out", self.out, *args, env=env or self.env)

    def rows_by_id(self):
        comments, rows = measured.read(self.out)
        by = {}
        for r in rows:
            by.setdefault(r["id"], {})[r["metric"]] = r
        return comments, by

    def test_rows_environment_and_skips(self):
        p = self.calibrate("--cases", "kluerob-cls-b32-s128-fp32-nogc-sdpa,llama1b-*-qlora16",
                           "--sweeplint", os.path.join(self.dir, "absent"))
        self.assertEqual(p.returncode, 0, p.stderr)
        comments, by = self.rows_by_id()
        env = measured.comment_values(comments)
        self.assertEqual(env["gpu"], "h100-80gb")
        self.assertEqual(env["gpu_total_mib"], str(FAKE_GPU_MIB))
        self.assertEqual(env["driver"], "550.00")
        self.assertEqual(env["steps"], "3")
        self.assertEqual(set(by), {"kluerob-cls-b32-s128-fp32-nogc-sdpa"})
        metrics = by["kluerob-cls-b32-s128-fp32-nogc-sdpa"]
        self.assertEqual(set(metrics), {"nvml_used", "torch_allocated", "torch_reserved",
                                        "reserved_minus_init", "oom"})
        self.assertEqual(metrics["oom"]["value_mib"], "0")
        self.assertEqual(metrics["nvml_used"]["gpu"], "h100-80gb")
        self.assertEqual(metrics["nvml_used"]["source"], "sweeplint tools/calibrate")
        self.assertTrue(any(c.startswith("skipped llama1b-b4-s1024-bf16-gc-sdpa-qlora16: needs bitsandbytes")
                            for c in comments))
        self.assertEqual(self.ran(), ["kluerob-cls-b32-s128-fp32-nogc-sdpa"])

    def test_capacity_from_probe_runs(self):
        p = self.calibrate("--cases", "cap-*", "--sweeplint", os.path.join(self.dir, "absent"))
        self.assertEqual(p.returncode, 0, p.stderr)
        _, by = self.rows_by_id()
        total = FAKE_GPU_MIB
        for group, probes in (("cap-bgem3", (4, 16)), ("cap-llama1b", (1, 4))):
            b1, b2 = probes
            m1 = float(by["%s-probe-b%d" % (group, b1)]["nvml_used"]["value_mib"])
            m2 = float(by["%s-probe-b%d" % (group, b2)]["nvml_used"]["value_mib"])
            per_batch = (m2 - m1) / (b2 - b1)
            below = by[group + "-below"]
            used = float(below["nvml_used"]["value_mib"])
            self.assertLessEqual(used, 0.85 * total)
            self.assertGreater(used + per_batch + 1, 0.85 * total)
            self.assertIn("batch_from=probes", below["nvml_used"]["notes"])
            above = by[group + "-above"]
            self.assertEqual(set(above), {"oom"})
            self.assertEqual(above["oom"]["value_mib"], "1")
            self.assertGreaterEqual(m1 + (int(above["oom"]["batch"]) - b1) * per_batch, 1.15 * total - 1)
        # the probes ran once per group, not once per capacity case
        self.assertEqual(sorted(self.ran()).count("cap-bgem3-probe-b4"), 1)

    def test_capacity_from_sweeplint(self):
        spec = {"models": {"BAAI/bge-m3": {"base_mib": 3000, "per_token_kib": 48, "params": 1},
                           "config:llama": {"base_mib": 9000, "per_token_kib": 200, "params": 1}},
                "gpu_mib": FAKE_GPU_MIB}
        env = dict(self.env, **u.write_spec(self.dir, spec))
        env["FAKE_PYTHON_LOG"] = self.env["FAKE_PYTHON_LOG"]
        env["FAKE_NO_BNB"] = "1"
        p = self.calibrate("--cases", "cap-*", "--sweeplint", u.FAKE_SWEEPLINT, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        _, by = self.rows_by_id()
        self.assertFalse([i for i in by if "probe" in i])
        for case_id, m, seq, texts in (("cap-bgem3", spec["models"]["BAAI/bge-m3"], 512, 2),
                                       ("cap-llama1b", spec["models"]["config:llama"], 1024, 1)):
            def est(b):
                return m["base_mib"] * MIB + m["per_token_kib"] * 1024 * b * seq * texts
            target_below, target_above = 0.85 * FAKE_GPU_MIB * MIB, 1.15 * FAKE_GPU_MIB * MIB
            rows = by[case_id + "-below"]
            b = int(next(iter(rows.values()))["batch"])
            self.assertLessEqual(est(b), target_below)
            self.assertGreater(est(b + 1), target_below)
            self.assertIn("batch_from=sweeplint", next(iter(rows.values()))["notes"])
            b = int(next(iter(by[case_id + "-above"].values()))["batch"])
            self.assertGreaterEqual(est(b), target_above)
            self.assertLess(est(b - 1), target_above)

    def test_resume_and_refusing_to_overwrite(self):
        first = "kluerob-cls-b32-s128-fp32-nogc-sdpa"
        second = "mminilm-b64-s128-ampfp16-nogc-sdpa"
        self.assertEqual(self.calibrate("--cases", first).returncode, 0)
        p = self.calibrate("--cases", first + "," + second)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--resume", p.stderr)
        p = self.calibrate("--cases", first + "," + second, "--resume")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.ran(), [first, second])
        with open(self.out) as f:
            self.assertEqual(f.read().count("id\tsource\t"), 1)
        _, by = self.rows_by_id()
        self.assertEqual(set(by), {first, second})
        p = self.calibrate("--cases", first, "--resume", "--gpu-name", "a100-40gb")
        self.assertEqual(p.returncode, 2)
        self.assertIn("measured on", p.stderr)

    def test_time_budget_stops_and_says_what_is_left(self):
        p = self.calibrate("--cases", "kluerob-cls-*", "--time-budget", "0.001")
        self.assertEqual(p.returncode, 3)
        comments, by = self.rows_by_id()
        self.assertEqual(len(by), 1)
        left = [c for c in comments if c.startswith("not run")]
        self.assertEqual(len(left), 1)
        n = len(cases.select("kluerob-cls-*"))
        self.assertEqual(len(left[0].split(": ", 1)[1].split(",")), n - 1)


class PlanningTest(unittest.TestCase):
    def test_solve_batch(self):
        def f(b):
            return 1000 + 37 * b
        for target in (1037, 1073, 1074, 1500, 5000):
            b = calibrate.solve_batch(f, target, above=False)
            self.assertLessEqual(f(b), target)
            self.assertGreater(f(b + 1), target)
            a = calibrate.solve_batch(f, target + 1, above=True)
            self.assertGreaterEqual(f(a), target + 1)
            self.assertTrue(a == 1 or f(a - 1) < target + 1)
        self.assertIsNone(calibrate.solve_batch(f, 999, above=False))
        self.assertIsNone(calibrate.solve_batch(f, 10 ** 9, above=True, bmax=64))
        self.assertEqual(calibrate.solve_batch(f, 10 ** 9, above=False, bmax=64), 64)

    def test_linear_batch(self):
        # 100 + 10·b: 85% of 1000 = 850 -> b 75; 1150 -> 105
        self.assertEqual(calibrate.linear_batch(2, 120, 6, 160, 850, above=False), 75)
        self.assertEqual(calibrate.linear_batch(2, 120, 6, 160, 855, above=False), 75)
        self.assertEqual(calibrate.linear_batch(2, 120, 6, 160, 855, above=True), 76)
        self.assertIsNone(calibrate.linear_batch(2, 120, 6, 120, 850, above=False))
        self.assertIsNone(calibrate.linear_batch(2, 120, 6, 160, 50, above=False))

    def test_gpu_slug(self):
        G = 1 << 30
        self.assertEqual(calibrate.gpu_slug("NVIDIA H100 80GB HBM3", 79 * G), "h100-80gb")
        self.assertEqual(calibrate.gpu_slug("NVIDIA A100-SXM4-40GB", 39 * G), "a100-40gb")
        self.assertEqual(calibrate.gpu_slug("NVIDIA A100-SXM4-80GB", 79 * G), "a100-80gb")
        self.assertEqual(calibrate.gpu_slug("NVIDIA L40S", 44 * G), "l40s")
        self.assertEqual(calibrate.gpu_slug("NVIDIA L4", 22 * G), "l4")
        self.assertEqual(calibrate.gpu_slug("Tesla T4", 15 * G), "t4")
        self.assertEqual(calibrate.gpu_slug("NVIDIA GeForce RTX 4090", 23 * G), "rtx4090")
        self.assertEqual(calibrate.gpu_slug("Tesla V100-SXM2-16GB", 15 * G), "v100-16gb")
        self.assertEqual(calibrate.gpu_slug("NVIDIA RTX 6000 Ada Generation", 47 * G), "rtx-6000-ada-generation")

    def test_child_case_is_json_with_the_batch(self):
        case = [c for c in cases.all_cases() if c["id"] == "cap-bgem3-below"][0]
        probe = calibrate.with_batch(case, 4, "cap-bgem3-probe-b4")
        self.assertEqual(probe["settings"]["batch_size"], 4)
        self.assertIsNone(probe["capacity"])
        self.assertEqual(case["settings"]["batch_size"], 0)
        json.dumps(probe)


if __name__ == "__main__":
    unittest.main()
