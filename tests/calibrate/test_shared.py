#!/usr/bin/python3
"""The harness against the published calibration/measured.tsv in ../shared (exit 77 without it)."""
import io
import json
import os
import sys
import unittest
from unittest import mock

import calib_test_util as u
import compare
import measured

PUBLISHED = os.path.join(u.SHARED, "calibration", "measured.tsv")


class PublishedTsvTest(unittest.TestCase):
    def test_header_is_ours(self):
        with open(PUBLISHED, encoding="utf-8") as f:
            first = f.readline().rstrip("\n")
        self.assertEqual(tuple(first.split("\t")), measured.COLUMNS)

    def test_reader_reads_every_row(self):
        with open(PUBLISHED, encoding="utf-8") as f:
            lines = [line for line in f.read().splitlines() if line.strip() and not line.startswith("#")]
        _, rows = measured.read(PUBLISHED)
        self.assertEqual(len(rows), len(lines) - 1)
        for r in rows:
            self.assertIn(r["metric"], measured.METRICS)
            float(r["value_mib"])
            roles = measured.row_roles(r)
            self.assertIn("grad_accum=%s" % r["grad_accum"], roles)
            self.assertIn("optimizer=%s" % r["optimizer"], roles)

    def test_compare_maps_the_published_metrics(self):
        _, rows = measured.read(PUBLISHED)
        models = {r["model"] for r in rows}
        spec = {"models": {m: {"base_mib": 10000, "params": 300000000, "weights_mib": 1000} for m in models},
                "gpu_mib": 81920, "context_mib": 1000, "slack_mib": 0}
        with u.TempDir() as d, mock.patch.dict(os.environ, u.write_spec(d, spec)):
            out = io.StringIO()
            rc = compare.main(["--sweeplint", u.FAKE_SWEEPLINT, "-f", "json", PUBLISHED], out, io.StringIO())
            self.assertIn(rc, (0, 1))
            data = json.loads(out.getvalue())
            self.assertEqual(data["files"][0]["errors"], [])
            got = {(r["id"], r["metric"]): r["predicted_mib"] for r in data["files"][0]["rows"]}
            by_metric = {}
            for r in rows:
                by_metric.setdefault(r["metric"], []).append(r)
            for r in by_metric.get("nvml_used", []):
                self.assertAlmostEqual(got[(r["id"], "nvml_used")], 10000)
            for r in by_metric.get("reserved_minus_init", []):
                # total - context - the weights of the amp-off estimate (fake: weights_mib)
                self.assertAlmostEqual(got[(r["id"], "reserved_minus_init")], 10000 - 1000 - 1000, places=6)
            calls = u.read_log(d)
            amp_rows = {r["id"] for r in by_metric.get("reserved_minus_init", []) if r["amp"] != "off"}
            self.assertEqual(len(calls), len({r["id"] for r in rows}) + len(amp_rows))
            self.assertTrue(any("grad_accum=4" in c for c in calls))


if __name__ == "__main__":
    if not os.path.exists(PUBLISHED):
        print("skip: %s is absent" % PUBLISHED)
        sys.exit(77)
    unittest.main()
