#!/usr/bin/env python3
"""Tests of paired_ratios.py: pairs by repeat, the A/A split, rows that do not line up."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paired_ratios  # noqa: E402


class PairedRatios(unittest.TestCase):
    def test_a_slow_spell_on_both_sides_of_a_pair_cancels(self):
        # The host halves its speed in repeats 2-3: both modes slow down alike; the mode is 2x faster.
        base = [4.0, 4.0, 8.0, 8.0]
        mode = [2.0, 2.0, 4.0, 4.0]
        self.assertAlmostEqual(paired_ratios.paired(base, mode), 2.0)
        self.assertAlmostEqual(paired_ratios.split_halves([1.0, 2.0, 1.0, 2.0]), 0.5)

    def test_rows_that_do_not_line_up_give_no_ratio(self):
        self.assertIsNone(paired_ratios.paired([1.0, 2.0], [1.0]))
        self.assertIsNone(paired_ratios.paired([], []))
        self.assertIsNone(paired_ratios.split_halves([1.0]))

    def test_the_command_prints_each_row(self):
        data = {"mode_names": ["native", "acs", "graph"], "results": [
            {"program": "alpha", "modes": {"native": {"ms": [2.0, 2.0]}, "acs": {"ms": [1.0, 3.0]},
                                           "graph": {"ms": [0.5, 1.5]}}}]}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(data, f)
        try:
            out = subprocess.run([sys.executable, paired_ratios.__file__, f.name], capture_output=True, text=True,
                                 check=True).stdout
        finally:
            os.unlink(f.name)
        row = next(line for line in out.splitlines() if line.startswith("alpha"))
        # acs/graph pairs 1.0/0.5 and 3.0/1.5: x2.000; acs/native 1.0/2.0 and 3.0/2.0: median 1.0.
        self.assertIn("2.000", row)
        self.assertIn("1.000", row)


if __name__ == "__main__":
    unittest.main()
