"""tools/calibrate/device_run.sh end to end against the fake GPU stack (fixtures/fakegpu).

Every part of issue 33's plan runs as the device tool would run it: the real parent and one real
case process per case, with `torch`, `transformers`, `peft` and `pynvml` replaced by the fakes,
which record what the case allocated and called. The test proves that every case builds, runs
its step function and writes well-formed rows, that each workload does what its case says (the
log), and — with $SWEEPLINT set (meson passes the build's binary) — that compare.py estimates
every row the moment it exists. The numbers are the fake's, not a GPU's.
"""
import collections
import json
import os
import subprocess
import unittest

import calib_test_util as u
import cases
import measured
import plan

FAKEGPU = os.path.join(u.FIXTURES, "fakegpu")
DEVICE_RUN = os.path.join(u.TOOLS, "device_run.sh")
METRICS = ["nvml_used", "torch_allocated", "torch_reserved", "reserved_minus_init", "oom"]
RL_ROLES = ("algorithm",)


class DeviceRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = u.TempDir()
        cls.dir = cls.tmp.__enter__()
        cls.log = os.path.join(cls.dir, "fakegpu.jsonl")
        cls.nparts = len(plan.parts(plan.order(cases.select("issue33"), plan.fit()), plan.DEFAULT_BUDGET_S))
        cls.rows, cls.comments, cls.outputs = [], [], {}
        for part in range(1, cls.nparts + 1):
            out = os.path.join(cls.dir, "out%d" % part)
            env = dict(os.environ, PYTHONPATH=FAKEGPU, OUT=out, FAKEGPU_LOG=cls.log, PYTHON=u.PYTHON,
                       PYTHONDONTWRITEBYTECODE="1")
            p = subprocess.run(["bash", DEVICE_RUN, str(part)], capture_output=True, text=True, env=env,
                               timeout=600)
            cls.outputs[part] = (p.returncode, p.stdout + p.stderr, sorted(os.listdir(out)))
            comments, rows = measured.read(os.path.join(out, "issue33-part%d.tsv" % part))
            cls.rows += rows
            cls.comments += comments
        with open(cls.log) as f:
            cls.events = [json.loads(line) for line in f]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.__exit__(None, None, None)

    def ev(self, case_id, op):
        return [e for e in self.events if e["case"] == case_id and e["op"] == op]

    def notes(self, case_id):
        return measured.note_values([r for r in self.rows if r["id"] == case_id][0]["notes"])

    def test_every_part_writes_its_files_and_exits_0(self):
        for part, (rc, text, files) in self.outputs.items():
            self.assertEqual(rc, 0, text)
            self.assertEqual(files, ["env.txt", "issue33-part%d.tsv" % part, "part%d.log" % part])
            self.assertIn("torch 0.0.fake", text)
            self.assertIn("trl missing", text)  # the machine's libraries are checked and printed

    def test_every_case_wrote_five_well_formed_rows(self):
        by_id = collections.defaultdict(list)
        for r in self.rows:
            by_id[r["id"]].append(r)
        self.assertEqual(sorted(by_id), sorted(c["id"] for c in cases.select("issue33")))
        self.assertFalse([c for c in self.comments if c.startswith(("failed", "skipped"))], self.comments)
        env = measured.comment_values(self.comments)
        self.assertEqual(env["gpu"], "h100-80gb")
        self.assertEqual(env["trl"], "none")
        for cid, group in by_id.items():
            self.assertEqual([r["metric"] for r in group], METRICS, cid)
            self.assertEqual(len({measured.settings_key(r) for r in group}), 1, cid)
            for r in group:
                float(r["value_mib"])
                self.assertEqual(r["gpu"], "h100-80gb")
            self.assertEqual(group[-1]["value_mib"], "0", cid)
            n = measured.note_values(group[0]["notes"])
            self.assertEqual(n["steps"], "0" if cid.endswith(("-load-device", "-load-meta")) else
                             ("2" if "-gen-" in cid else "3"), cid)
            case = [c for c in cases.select("issue33") if c["id"] == cid][0]
            roles = cases.tsv_row(case, "g", "m", 0)["notes"]
            self.assertTrue(group[0]["notes"].startswith(roles + "; " if roles else "params="), cid)

    def test_what_each_workload_ran(self):
        # DPO: [chosen, rejected] forwards of 2 x batch sequences; a reference copy is a second build
        for cid, builds, forwards in (("qwen3-dpo-b2-s1024-bf16-gc-sdpa", 2, 6),
                                      ("qwen3-dpo-b2-s1024-bf16-gc-sdpa-precomputed", 1, 3),
                                      ("llama1b-dpo-b4-s1024-bf16-gc-sdpa-lora16-all", 1, 6),
                                      ("llama1b-dpo-b4-s1024-bf16-gc-sdpa-lora16-all-refcopy", 2, 6)):
            b = int(cid.split("-b")[1].split("-")[0])
            self.assertEqual(len(self.ev(cid, "build")), builds, cid)
            fw = self.ev(cid, "forward")
            self.assertEqual(len(fw), forwards, cid)
            self.assertTrue(all(e["shape"] == [2 * b, 1024] for e in fw), cid)
        # GRPO: a sampled rollout of exactly completion_len tokens, then prompt + completion with
        # logits for the completion only; beta != 0 adds the reference's forward
        for cid, per_step in (("qwen3-grpo-b8-p256-c256-bf16-gc-sdpa", 1), ("qwen3-grpo-b8-p256-c256-bf16-gc-sdpa-beta", 2)):
            gen = self.ev(cid, "generate")
            self.assertEqual(len(gen), 3)
            self.assertTrue(all(g["rows"] == 8 and g["min_new"] == 256 and g["do_sample"] for g in gen))
            fw = self.ev(cid, "forward")
            self.assertEqual(len(fw), 3 * per_step)
            self.assertTrue(all(e["shape"] == [8, 512] and e["logits_to_keep"] == 257 for e in fw))
        self.assertEqual(len(self.ev("qwen3-grpo-b8-p256-c256-bf16-gc-sdpa-beta", "build")), 2)
        # generation: beams, and sampling with num_return_sequences
        g = self.ev("qwen3-gen-b8-p512-new256-beams4-bf16-sdpa", "generate")
        self.assertTrue(g and all(e["num_beams"] == 4 and e["rows"] == 8 and not e["do_sample"] for e in g))
        g = self.ev("llama1b-gen-b8-p512-new256-sample-nrs4-bf16-sdpa", "generate")
        self.assertTrue(g and all(e["num_return_sequences"] == 4 and e["do_sample"] for e in g))
        self.assertEqual(self.notes("llama1b-gen-b8-p512-new256-sample-nrs4-bf16-sdpa")["generated_tokens"], "256")
        # FSDP: meta-device init materialises through param_init_fn; load cases run no step;
        # save cases measure after a peak reset, with the state dict type of the case
        load = self.ev("llama1b-b1-s512-bf16-gc-sdpa-fsdp-load-meta", "fsdp_wrap")
        self.assertTrue(load and load[0]["param_init_fn"])
        self.assertFalse(self.ev("llama1b-b1-s512-bf16-gc-sdpa-fsdp-load-device", "fsdp_wrap")[0]["param_init_fn"])
        for cid in ("llama1b-b1-s512-bf16-gc-sdpa-fsdp-load-device", "llama1b-b1-s512-bf16-gc-sdpa-fsdp-load-meta"):
            self.assertFalse(self.ev(cid, "forward"), cid)
            self.assertEqual(self.notes(cid)["measured_phase"], "load")
        for cid, kind, cfg in (("llama1b-b1-s512-bf16-gc-sdpa-fsdp-save-fulldevice", "FULL_STATE_DICT", "offload_to_cpu=False"),
                               ("llama1b-b1-s512-bf16-gc-sdpa-fsdp-save-full", "FULL_STATE_DICT", "rank0_only=True"),
                               ("llama1b-b1-s512-bf16-gc-sdpa-fsdp-save-sharded", "SHARDED_STATE_DICT", "offload_to_cpu=True")):
            sd = self.ev(cid, "state_dict_type")
            self.assertEqual(len(sd), 1, cid)
            self.assertIn(kind, sd[0]["kind"])
            self.assertIn(cfg, sd[0]["config"])
            self.assertEqual(self.notes(cid)["measured_phase"], "save")
            self.assertIn("train_peak_allocated_mib", self.notes(cid))
            ops = [e["op"] for e in self.events if e["case"] == cid]
            self.assertEqual(ops[-1], "state_dict_type")
            self.assertEqual(ops[-2], "reset_peaks")  # the save phase's own peak
        # dynamic padding: each step padded to its longest example, the bound at the second step
        self.assertEqual(self.notes("llama1b-b4-s2048-bf16-gc-sdpa-padlongest")["step_lengths"], "1024,2048,1536")
        self.assertEqual(self.notes("kluerob-cls-b32-s512-fp32-nogc-sdpa-padlongest")["step_lengths"], "256,512,384")
        ids = [e["shape"] for e in self.ev("llama1b-b4-s2048-bf16-gc-sdpa-padmax", "randint") if len(e["shape"]) == 2]
        self.assertEqual(ids, [[4, 2048]])
        # SDPA's flash kernel; the allocator's configuration reaches the case process
        for cid in ("llama1b-b1-s8192-bf16-gc-sdpa-flash", "qwen3-b1-s16384-bf16-gc-sdpa-flash"):
            self.assertIn("FLASH_ATTENTION", self.ev(cid, "sdpa_kernel")[0]["backends"][0])
        self.assertEqual(self.notes("llama3b-b2-s2048-bf16-gc-sdpa-expseg")["alloc_conf_seen"], "expandable_segments:True")
        self.assertNotIn("alloc_conf_seen", self.notes("qwen3-b8-s2048-bf16-gc-sdpa"))
        # the classes built: the encoder stack alone, the bare model under a head, Whisper's
        self.assertEqual(self.ev("t5benc-bi-b32-s256-ampbf16-nogc-eager", "build")[0]["model"], "T5EncoderModel")
        self.assertEqual(self.ev("llama1b-base-b8-s1024-bf16-nogc-sdpa-frozen-head", "build")[0]["model"], "AutoModel")
        self.assertEqual(self.ev("whispers-b16-s1500-t448-ampbf16-nogc-sdpa", "build")[0]["model"],
                         "AutoModelForSpeechSeq2Seq")
        feats = self.ev("whispers-b16-s1500-t448-ampbf16-nogc-sdpa", "randn")
        self.assertEqual(feats[0]["shape"], [16, 80, 3000])
        self.assertEqual(len(self.ev("bgem3-b32-q64-s256-ampfp16-gc-sdpa-k3-sep", "build")), 2)
        q = [e["shape"] for e in self.ev("bgem3-b32-q64-s256-ampfp16-gc-sdpa-k3", "randint")]
        self.assertEqual(q[:3], [[32, 64], [32, 256], [32, 256]])  # query, positive, hard negative

    @unittest.skipUnless(os.environ.get("SWEEPLINT"), "needs $SWEEPLINT (meson passes the build's binary)")
    def test_compare_estimates_every_row_as_soon_as_it_exists(self):
        paths = [os.path.join(self.dir, "out%d" % p, "issue33-part%d.tsv" % p) for p in range(1, self.nparts + 1)]
        p = subprocess.run([u.PYTHON, u.COMPARE, "--sweeplint", os.environ["SWEEPLINT"], "-f", "json"] + paths,
                           capture_output=True, text=True, timeout=600)
        data = json.loads(p.stdout)
        compared = {r["id"] for f in data["files"] for r in f["rows"]}
        bounds = {b["id"] for f in data["files"] for b in f["bounds"]}
        errors = [e for f in data["files"] for e in f["errors"]]
        for c in cases.select("issue33"):
            if c["settings"]["algorithm"] and any("unknown role 'algorithm'" in e for e in errors
                                                  if e.startswith(c["id"] + ":")):
                continue  # issue 31's roles: estimated once branch rl has landed
            self.assertTrue(c["id"] in compared or c["id"] in bounds, c["id"])
        self.assertFalse([e for e in errors if "unknown role 'algorithm'" not in e], errors)


if __name__ == "__main__":
    unittest.main()
