"""Issue 33's prepared cases: what they cover, the roles their rows carry, and the device plan."""
import os
import unittest

import calib_test_util as u
import cases
import compare
import measured
import plan


def issue33():
    return cases.select("issue33")


class CoverageTest(unittest.TestCase):
    """Every item of issue 33's list has a case, with the setting that makes it that item."""

    def setUp(self):
        self.all = issue33()

    def has(self, **kw):
        def ok(c):
            for k, v in kw.items():
                got = c["settings"].get(k, c.get(k))
                if callable(v):
                    if not v(got):
                        return False
                elif got != v:
                    return False
            return True
        return [c for c in self.all if ok(c)]

    def test_at_least_25_new_cases_with_a_tier(self):
        self.assertGreaterEqual(len(self.all), 25)
        ids = [c["id"] for c in cases.all_cases()]
        self.assertEqual(len(ids), len(set(ids)))
        for c in self.all:
            self.assertIn(c["value"], (cases.TIER_UNMEASURED, cases.TIER_NO_ROLE, cases.TIER_UNMODELLED))
            self.assertFalse(c["default"], c["id"])
            self.assertIsNone(c["capacity"])

    def test_the_issues_list(self):
        self.assertTrue(self.has(frozen="backbone", task="seq-cls"), "frozen backbone + the class's head")
        self.assertTrue(self.has(frozen="backbone", part="base", head_params=lambda v: bool(v)),
                        "frozen bare model + a head the program adds")
        self.assertTrue(self.has(part="encoder", task="bi-encoder", texts_per_example=2), "T5EncoderModel bi-encoder")
        self.assertEqual(self.has(part="encoder")[0]["config"]["model_type"], "t5")
        dual = self.has(task="bi-encoder", query_len=lambda v: v > 0, texts_per_example=3)
        self.assertEqual({c["settings"]["separate_encoders"] for c in dual}, {True, False}, "dual encoders, hard negative")
        self.assertTrue(self.has(mode="generate", num_beams=lambda v: v > 1, batch_size=lambda v: v > 1))
        self.assertTrue(self.has(mode="generate", do_sample=True, num_return_sequences=lambda v: v > 1))
        for arch, task in (("klue-roberta-base", "seq-cls"), ("llama-3.2-1b", "causal-lm")):
            pair = [c for c in self.has(task=task, padding=lambda v: bool(v)) if c["arch"] == arch]
            self.assertEqual({c["settings"]["padding"] for c in pair}, {"max_length", "longest"})
            self.assertEqual({(c["settings"]["batch_size"], c["settings"]["seq_len"]) for c in pair}.__len__(), 1,
                             "the same batch and bound")
        self.assertEqual({c["settings"]["fsdp_init"] for c in self.has(phase="load")}, {"device", "per_unit"})
        self.assertEqual({c["settings"]["fsdp_state_dict"] for c in self.has(phase="save")},
                         {"full_device", "full", "sharded"})
        exp = self.has(alloc_conf="expandable_segments:True", gradient_checkpointing=True)
        self.assertGreaterEqual(len(exp), 2)
        self.assertTrue(all(c["config"]["model_type"] in ("llama", "qwen2") for c in exp))
        self.assertTrue({"qwen3", "gemma2", "phi3", "whisper"} <= {c["config"]["model_type"] for c in self.all})
        dpo = self.has(algorithm="dpo")
        self.assertEqual({c["method"] for c in dpo}, {"full", "lora"})
        self.assertTrue(any(c["settings"]["ref_model"] == "precomputed" for c in dpo), "DPO without a reference")
        self.assertTrue(any(c["method"] == "lora" and c["settings"]["ref_model"] not in ("", "precomputed")
                            for c in dpo), "LoRA DPO with a reference copy")
        grpo = self.has(algorithm="grpo")
        self.assertTrue(grpo and all(c["settings"]["num_generations"] > 1 and c["settings"]["completion_len"] > 0
                                     for c in grpo))
        long_ = self.has(sdpa_backend="flash", seq_len=lambda v: 8192 <= v <= 16384)
        self.assertEqual({c["settings"]["seq_len"] for c in long_}, {8192, 16384})

    def test_settings_travel_as_roles(self):
        """What the estimate needs is in the row's notes as role=value tokens; the rest is information."""
        for c in self.all:
            notes = measured.note_values(cases.tsv_row(c, "h100-80gb", "nvml_used", 1)["notes"])
            roles = dict(r.split("=", 1) for r in measured.row_roles(cases.tsv_row(c, "h100-80gb", "nvml_used", 1)))
            for role, unset in cases.EXTRA_ROLES.items():
                v = c["settings"][role]
                if v == unset:
                    self.assertNotIn(role, notes, c["id"])
                    continue
                text = str(v).lower() if isinstance(v, bool) else str(v)
                self.assertEqual(notes[role], text, c["id"])
                if role in cases.INFO_ROLES:
                    self.assertNotIn(role, roles)
                else:
                    self.assertEqual(roles[role], text, c["id"])
            for key in ("alloc_conf", "sdpa_backend"):
                if c[key]:
                    self.assertEqual(notes[key], c[key])

    def test_roles_are_sweeplint_roles(self):
        """Every role a note passes is one rules/keys.yaml names, except issue 31's (branch rl)."""
        with open(os.path.join(u.REPO, "rules", "keys.yaml")) as f:
            keys = f.read()
        rl = {"algorithm", "ref_model", "beta", "num_generations", "prompt_len", "completion_len"}
        for role in cases.EXTRA_ROLES:
            if role in cases.INFO_ROLES or role in rl:
                continue
            self.assertIn("role: %s\n" % role, keys, role)
            self.assertIn(role, measured.NOTE_ROLES)

    def test_configs_of_the_new_families(self):
        for key in ("qwen3-0.6b", "gemma-2-2b", "phi-3-mini", "whisper-small"):
            cfg = cases.hf_config(key)
            self.assertEqual(cfg["architectures"][0].lower().startswith(cfg["model_type"][:4]), True, key)


class PlanTest(unittest.TestCase):
    def setUp(self):
        self.model = plan.fit()
        self.timed = plan.order(issue33(), self.model)

    def test_fit_reads_the_measured_wall_times(self):
        a, k, per_decode = self.model
        _, rows = measured.read(plan.DEFAULT_FIXTURE)
        walls = [float(measured.note_values(r["notes"])["wall_s"]) for r in rows if r["metric"] == "nvml_used"]
        self.assertTrue(min(walls) - 5 <= a <= max(walls), a)
        self.assertGreaterEqual(k, 0.0)
        self.assertGreater(per_decode, 0.0)  # the beam-search row: 40.6 s for 2 x 256 decoding steps

    def test_order_is_by_tier_then_time(self):
        keys = [(c["value"], sec) for c, sec in self.timed]
        self.assertEqual(keys, sorted(keys))
        gen = [sec for c, sec in self.timed if c["settings"]["mode"] == "generate"]
        train = [sec for c, sec in self.timed if c["settings"]["mode"] == "train" and not c["settings"]["algorithm"]]
        self.assertGreater(min(gen), max(train), "a generation case costs more than a short training case")

    def test_parts_fit_the_budget_and_cover_every_case(self):
        split = plan.parts(self.timed, plan.DEFAULT_BUDGET_S)
        self.assertEqual(sorted(c["id"] for p in split for c, _ in p), sorted(c["id"] for c in issue33()))
        for p in split:
            self.assertTrue(len(p) == 1 or sum(sec for _, sec in p) <= plan.DEFAULT_BUDGET_S)
        self.assertGreaterEqual(len(split), 2)
        first = [c["value"] for c, _ in split[0]]
        self.assertEqual(set(first), {cases.TIER_UNMEASURED}, "part 1 holds what nothing has measured")

    def test_ids_of_a_part(self):
        import io
        out, err = io.StringIO(), io.StringIO()
        self.assertEqual(plan.main(["--part", "1", "--ids"], out, err), 0)
        ids = out.getvalue().strip().split(",")
        self.assertEqual(ids, [c["id"] for c, _ in plan.parts(self.timed, plan.DEFAULT_BUDGET_S)[0]])
        self.assertEqual(plan.main(["--part", "99", "--ids"], io.StringIO(), err), 2)


class PhaseViewTest(unittest.TestCase):
    """compare.py reads FSDP's load and save phases from load_bytes / save_bytes, or as a bound."""

    EST = {"total_bytes": 14000 * u.MIB, "fits": True, "load_bytes": 5000 * u.MIB,
           "breakdown": {"cuda_context": 1280 * u.MIB, "slack": 838 * u.MIB, "weights": 2357 * u.MIB}}

    def row(self, phase, metric="nvml_used", value=4000):
        r = {c: "" for c in measured.COLUMNS}
        r.update(id="x", metric=metric, value_mib=value, notes="fsdp=full_shard; measured_phase=%s" % phase)
        return r

    def test_a_phase_the_estimate_sizes(self):
        view = compare.phase_view(self.EST, self.row("load"))
        self.assertEqual(view["total_bytes"], 5000 * u.MIB)
        self.assertEqual(compare.predicted_bytes("nvml_used", view, self.row("load")), 5000 * u.MIB)
        self.assertEqual(compare.predicted_bytes("torch_reserved", view, self.row("load")), 3720 * u.MIB)
        self.assertEqual(compare.predicted_bytes("torch_allocated", view, self.row("load")),
                         3720 * u.MIB - compare.slack_min_bytes())
        self.assertIsNone(compare.predicted_bytes("reserved_minus_init", view, self.row("load")))

    def test_a_phase_below_the_step_is_a_bound(self):
        view = compare.phase_view(self.EST, self.row("save"))
        self.assertEqual(view["bound_bytes"], 14000 * u.MIB)
        self.assertIsNone(compare.predicted_bytes("nvml_used", view, self.row("save")))

        class Est:
            def estimate(self, row, amp_off=False):
                return PhaseViewTest.EST
        rows = [self.row("save", "nvml_used", 9000), self.row("save", "torch_reserved", 13000),
                self.row("save", "oom", 0)]
        res = compare.compare_rows(rows, {}, Est())
        self.assertEqual([(b["metric"], b["ok"]) for b in res["bounds"]],
                         [("nvml_used", True), ("torch_reserved", False)])  # 13000 > 14000 - 1280
        summary = compare.summarize(res["rows"], res["verdicts"], bounds=res["bounds"])
        self.assertEqual(summary["bounds_wrong"], ["x torch_reserved"])
        self.assertFalse(summary["pass"])

    def test_slack_min_is_read_from_the_rules(self):
        with open(os.path.join(u.REPO, "rules", "calibration.yaml")) as f:
            text = f.read()
        i = text.index("name: slack_min")
        self.assertIn("value: %d" % (compare.slack_min_bytes() // u.MIB), text[i:i + 60])


if __name__ == "__main__":
    unittest.main()
