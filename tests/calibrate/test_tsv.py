"""The measured TSV: writer, reader, notes settings, and the rows a case result becomes."""
import unittest

import calib_test_util
import calibrate
import cases
import measured

MIB = calib_test_util.MIB
# The header line of calibration/measured.tsv as published (test_shared checks the file itself).
HEADER = ("id\tsource\tmodel\ttask\tbatch\tgrad_accum\tseq_len\ttarget_len\tdtype\tamp\tgc\toptimizer\t"
          "method\tlora_r\tattn\tgpu\tmetric\tvalue_mib\tnotes")


class WriterTest(unittest.TestCase):
    def test_header_is_the_measured_tsv_header(self):
        text = measured.format_rows([], ["gpu=h100-80gb x=1"])
        lines = text.splitlines()
        self.assertEqual(lines[0], "# gpu=h100-80gb x=1")
        self.assertEqual(lines[1], HEADER)

    def test_round_trip_every_case_and_metric(self):
        rows = []
        for c in cases.all_cases():
            for metric in ("nvml_used", "torch_allocated", "torch_reserved", "reserved_minus_init", "oom"):
                rows.append(cases.tsv_row(c, "h100-80gb", metric, 1234, "params=5 wall_s=1.0"))
        text = measured.format_rows(rows, ["one", "two\tthree"])
        comments, back = measured.parse(text)
        self.assertEqual(comments, ["one", "two three"])
        self.assertEqual(len(back), len(rows))
        for want, got in zip(rows, back):
            for col in measured.COLUMNS:
                self.assertEqual(str(want[col]), got[col], col)
            self.assertEqual(len(text.splitlines()[got["_line"] - 1].split("\t")), 19)

    def test_fields_lose_tabs_and_newlines(self):
        row = cases.tsv_row(cases.all_cases()[0], "gpu", "oom", 0, "a\tb\nc")
        line = measured.format_row(row)
        self.assertEqual(line.count("\t"), len(measured.COLUMNS) - 1)
        self.assertEqual(line.count("\n"), 1)
        self.assertTrue(line.rstrip("\n").endswith("a b c"))

    def test_missing_column_is_an_error(self):
        row = cases.tsv_row(cases.all_cases()[0], "gpu", "oom", 0)
        del row["attn"]
        with self.assertRaises(measured.TsvError):
            measured.format_row(row)

    def test_reader_rejects_bad_files(self):
        with self.assertRaises(measured.TsvError):
            measured.parse("id\tsource\n")
        with self.assertRaises(measured.TsvError):
            measured.parse(HEADER + "\n" + "a\tb\n")
        with self.assertRaises(measured.TsvError):
            measured.parse("# only a comment\n")

    def test_to_mib_rounds(self):
        self.assertEqual(measured.to_mib(MIB), 1)
        self.assertEqual(measured.to_mib(MIB + MIB // 2 - 1), 1)
        self.assertEqual(measured.to_mib(MIB + MIB // 2), 2)
        self.assertEqual(measured.to_mib(0), 0)


class NotesAndRolesTest(unittest.TestCase):
    def _case(self, case_id):
        return [c for c in cases.all_cases() if c["id"] == case_id][0]

    def test_qlora_row_roles(self):
        c = self._case("llama1b-b4-s1024-bf16-gc-sdpa-qlora16")
        row = cases.tsv_row(c, "h100-80gb", "nvml_used", 1, "params=3")
        self.assertEqual(row["method"], "qlora")
        notes = measured.note_values(row["notes"])
        self.assertEqual(notes["lora_targets"], cases.LLAMA_ALL)
        self.assertEqual(notes["quant"], "nf4")
        self.assertEqual(notes["params"], "3")
        roles = measured.row_roles(row)
        self.assertIn("lora_r=16", roles)
        self.assertIn("quant=nf4", roles)
        self.assertIn("lora_targets=" + cases.LLAMA_ALL, roles)
        self.assertIn("gradient_checkpointing=true", roles)
        self.assertIn("dtype=bf16", roles)
        self.assertFalse(any(r.startswith("target_len=") for r in roles))
        self.assertFalse(any(r.startswith("texts_per_example=") for r in roles))

    def test_bi_encoder_and_seq2seq_roles(self):
        bi = cases.tsv_row(self._case("bgem3-b8-s256-ampfp16-gc-sdpa-k3"), "g", "oom", 0)
        roles = measured.row_roles(bi)
        self.assertIn("texts_per_example=3", roles)
        self.assertIn("model=BAAI/bge-m3", roles)
        self.assertIn("amp=fp16", roles)
        self.assertIn("task=bi-encoder", roles)
        self.assertFalse(any(r.startswith("lora_r=") for r in roles))
        s2s = cases.tsv_row(self._case("mt5b-b8-s256-t256-fp32-nogc-eager-adafactor"), "g", "oom", 0)
        roles = measured.row_roles(s2s, model="/tmp/cfg")
        self.assertIn("target_len=256", roles)
        self.assertIn("model=/tmp/cfg", roles)
        self.assertIn("optimizer=adafactor", roles)
        self.assertIn("attn=eager", roles)

    def test_published_notes_carry_no_settings(self):
        notes = "CUDA 11.2, no lazy loading: context alone measured 1343 MiB; weights loaded 2631 MiB"
        self.assertEqual(measured.note_values(notes), {})
        self.assertEqual(measured.note_values("quant=nf4; lora_targets=q_proj,v_proj, x"),
                         {"quant": "nf4", "lora_targets": "q_proj,v_proj"})

    def test_settings_key_ignores_metric_and_value(self):
        c = self._case("kluerob-cls-b32-s128-fp32-nogc-sdpa")
        a = cases.tsv_row(c, "g", "nvml_used", 10, "wall_s=1")
        b = cases.tsv_row(c, "g", "oom", 0, "wall_s=2")
        self.assertEqual(measured.settings_key(a), measured.settings_key(b))
        d = dict(a, batch=64)
        self.assertNotEqual(measured.settings_key(a), measured.settings_key(d))


class ResultRowsTest(unittest.TestCase):
    def setUp(self):
        self.case = cases.all_cases()[0]

    def test_completed_case_gives_five_metrics(self):
        res = {"status": "ok", "nvml_peak_used": 9000 * MIB, "nvml_baseline": 3 * MIB,
               "peak_allocated": 6000 * MIB + 5, "peak_reserved": 7000 * MIB, "init_reserved": 1300 * MIB,
               "init_allocated": 1290 * MIB, "context_bytes": 510 * MIB, "params": 42, "trainable": 40,
               "attn_impl": "sdpa", "steps_done": 3, "nvml_source": "pynvml", "wall_s": 2.5}
        rows = calibrate.result_rows(self.case, "h100-80gb", res)
        got = {r["metric"]: r["value_mib"] for r in rows}
        self.assertEqual(got, {"nvml_used": 9000 - 3, "torch_allocated": 6000, "torch_reserved": 7000,
                               "reserved_minus_init": 7000 - 1300, "oom": 0})
        notes = measured.note_values(rows[0]["notes"])
        self.assertEqual(notes["params"], "42")
        self.assertEqual(notes["ctx_mib"], "510")
        self.assertEqual(notes["init_reserved_mib"], "1300")
        self.assertEqual(notes["texts_per_example"], "2")
        self.assertTrue(all(r["id"] == self.case["id"] and r["gpu"] == "h100-80gb" for r in rows))

    def test_oom_case_gives_one_row(self):
        res = {"status": "oom", "error": "OutOfMemoryError: CUDA out of memory. Tried",
               "peak_allocated": 70000 * MIB, "peak_reserved": 71000 * MIB}
        rows = calibrate.result_rows(self.case, "h100-80gb", res)
        self.assertEqual([(r["metric"], r["value_mib"]) for r in rows], [("oom", 1)])
        notes = measured.note_values(rows[0]["notes"])
        self.assertEqual(notes["at_oom_peak_reserved"], "71000")


if __name__ == "__main__":
    unittest.main()
