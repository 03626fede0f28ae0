#!/usr/bin/env python3
"""Tests of run_real.py without a GPU: a fake program (a Python script whose behaviour the
environment selects) and a fake preload (a tiny .so built with cc that prints an acs-stats:
line at exit under ACS_STATS=1). Run: python3 benchmarks/real/test_run_real.py"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "run_real.py")

FAKE_PROGRAM = textwrap.dedent(r'''
    import os, sys, time
    preloaded = bool(os.environ.get("LD_PRELOAD"))
    kind = sys.argv[1]

    def run_index():
        """How many runs of this mode came before this one (counted in FAKE_DIR)."""
        count_file = os.path.join(os.environ["FAKE_DIR"], "acs" if preloaded else "native")
        n = len(open(count_file).read()) if os.path.exists(count_file) else 0
        open(count_file, "a").write("x")
        return n

    if kind == "lines":
        slow = 2.0 if preloaded and not os.environ.get("ACS_DISABLE") else 1.0
        d = "bad" if preloaded and os.environ.get("FAKE_MISMATCH") else "abc"
        print(f"real-result: name=alpha suite=fake ms={1.0 * slow} sha256={d}")
        print("real-result: name=beta ms=4.0 sha256=def")
        if os.environ.get("FAKE_ROW_ERROR"):
            print("real-result: name=gamma suite=fake error=RuntimeError: no such kernel here")
            sys.exit(1)
    elif kind == "stdout":
        print("result 42")
        slow = float(os.environ.get("FAKE_SLOW", "1"))
        print(f"Time = {(0.5 if preloaded else 0.25) * slow:.5f} s, Throughput = 1 GB/s")
        print("Throughput = 2.0000 MElements/s, Size = 1000 Elements")
    elif kind == "hang":
        time.sleep(60)
    elif kind == "hang_preloaded":
        time.sleep(60 if preloaded else 0)
    elif kind == "varies":
        print(time.time_ns())
    elif kind == "affinity":
        cpus = sorted(os.sched_getaffinity(0))
        print(f"real-result: name=pinned ms=1.0 sha256={'-'.join(map(str, cpus))}")
    elif kind == "bimodal":
        # Each mode's runs in turn take 1, 9, 9, 2 ms: median 5.5, lower quartile 1.
        print(f"real-result: name=states ms={[1.0, 9.0, 9.0, 2.0][run_index() % 4]} sha256=same")
    elif kind == "states":
        # Two rows per process; the process's state scales both (x1, 1.9, 1.1, 1.4 in turn), and
        # row b reads fast (11) in the last, slow process.
        n = run_index()
        f = [1.0, 1.9, 1.1, 1.4][n % 4]
        print(f"real-result: name=a ms={f} sha256=same")
        print(f"real-result: name=b ms={11.0 if n % 4 == 3 else 10.0 * f} sha256=same")
    elif kind == "fail_preloaded":
        sys.exit(3 if preloaded else 0)
''')

FAKE_PRELOAD = r'''
#include <stdio.h>
#include <stdlib.h>
__attribute__((destructor)) static void at_exit_stats(void) {
  const char* s = getenv("ACS_STATS");
  if (s && s[0] == '1') fprintf(stderr, "acs-stats: fake kernels=0\n");
}
'''


# A program timed from its output (Time = ... s), its digest the rest of its output; the fake
# reports twice native's time under the preload, times FAKE_SLOW.
SECOND_PROGRAM = '''
            [[program]]
            name = "second"
            suite = "s2"
            cmd = ["{python}", "PROG", "stdout"]
            time = "regex"
            time_regex = 'Time = (?P<t>[0-9.]+) s'
            time_scale = 1000
            digest = "stdout"
            drop = ['Time =']
'''

class RunRealTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="run_real_test.")
        cls.prog = os.path.join(cls.tmp, "fake.py")
        with open(cls.prog, "w") as f:
            f.write(FAKE_PROGRAM)
        cls.lib = os.path.join(cls.tmp, "libfake.so")
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            raise unittest.SkipTest("no C compiler for the fake preload")
        src = os.path.join(cls.tmp, "fake.c")
        with open(src, "w") as f:
            f.write(FAKE_PRELOAD)
        subprocess.run([cc, "-shared", "-fPIC", "-o", cls.lib, src], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def manifest(self, body):
        path = os.path.join(self.tmp, f"m{self.id().split('.')[-1]}.toml")
        with open(path, "w") as f:
            f.write(textwrap.dedent(body).replace("PROG", self.prog))
        return path

    def run_runner(self, manifest, *extra, env=None):
        out = os.path.join(self.tmp, "out-" + self.id().split(".")[-1])
        cmd = [sys.executable, RUNNER, manifest, "--lib", self.lib, "--out", out, "--reps", "3",
               "--allow-no-gpu", "--timeout", "5", *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})})
        return p, out

    def read_csv(self, out, name="real_programs.csv"):
        with open(os.path.join(out, name), newline="") as f:
            return list(csv.DictReader(f))

    def test_lines_program(self):
        m = self.manifest('''
            [[program]]
            name = "fake"
            suite = "fake-suite"
            cmd = ["{python}", "PROG", "lines"]
        ''')
        p, out = self.run_runner(m, "--mode", "extra:FOO=1")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(out, "real_programs.csv")) as f:
            self.assertEqual(f.readline().strip(), "program,suite,native_ms,acs_ms,speedup,identical")
        rows = {r["program"]: r for r in self.read_csv(out)}
        self.assertEqual(rows["alpha"]["suite"], "fake")
        self.assertEqual(rows["beta"]["suite"], "fake-suite")
        self.assertEqual(rows["alpha"]["native_ms"], "1.000")
        self.assertEqual(rows["alpha"]["acs_ms"], "2.000")
        self.assertEqual(rows["alpha"]["speedup"], "0.500")
        self.assertEqual(rows["alpha"]["identical"], "yes")
        modes = {(r["program"], r["mode"]): r for r in self.read_csv(out, "real_programs_modes.csv")}
        self.assertEqual(modes[("alpha", "acs_disable")]["median_ms"], "1.000")
        self.assertEqual(modes[("alpha", "native")]["runs"], "3")
        self.assertEqual(modes[("alpha", "extra")]["env"], "FOO=1")
        self.assertEqual(modes[("alpha", "acs_stats")]["runs"], "1")
        with open(os.path.join(out, "real_programs_stats.txt")) as f:
            self.assertIn("fake: acs-stats: fake kernels=0", f.read())
        # The table is printed last, then the host's speed over the runs (timed before each).
        tail = p.stdout.rstrip().splitlines()
        self.assertTrue(tail[-3].startswith("Geometric mean"), p.stdout)
        self.assertTrue(tail[-1].startswith("Host speed (a fixed Python loop timed before each run"), p.stdout)
        self.assertIn("over 13 runs", tail[-1])  # 3 reps of 4 modes and the stats pass
        # Interleaved: A B C C B A A B C, then the stats pass.
        with open(os.path.join(out, "real_programs_runs.log")) as f:
            order = [l.split()[2] for l in f if l.startswith("### ")]
        base = ["native", "acs", "acs_disable", "extra"]
        self.assertEqual(order, base + base[::-1] + base + ["acs_stats"])

    def test_the_lower_quartile_follows_the_fast_state(self):
        m = self.manifest('''
            [[program]]
            name = "fake"
            suite = "fake-suite"
            cmd = ["{python}", "PROG", "bimodal"]
        ''')
        for estimator, expected in (("median", "5.500"), ("lower-quartile", "1.000")):
            state = tempfile.mkdtemp(dir=self.tmp)
            p, out = self.run_runner(m, "--reps", "4", "--modes", "native,acs", "--no-stats",
                                     "--estimator", estimator, env={"FAKE_DIR": state})
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            row = self.read_csv(out)[0]
            self.assertEqual((row["native_ms"], row["acs_ms"]), (expected, expected), estimator)
            modes = {r["mode"]: r for r in self.read_csv(out, "real_programs_modes.csv")}
            self.assertEqual((modes["acs"]["median_ms"], modes["acs"]["lower_quartile_ms"]), ("5.500", "1.000"))

    def test_the_fast_state_is_the_processs_over_all_its_rows(self):
        m = self.manifest('''
            [[program]]
            name = "fake"
            suite = "fake-suite"
            time = "lines"
            digest = "lines"
            cmd = ["{python}", "PROG", "states"]
        ''')
        # Scored over both rows, runs 1 and 3 are slow: a = median(1.0, 1.1), b = median(10, 11).
        # Row b alone would count its 11 of run 3 as fast (10, 11, 11: 11.000); the lower quartile
        # takes the lowest; the median mixes the states.
        expected = {"fast-state": ("1.050", "10.500"), "lower-quartile": ("1.000", "10.000"),
                    "median": ("1.250", "11.000"), "fastest": ("1.000", "10.000")}
        for estimator, (a, b) in expected.items():
            state = tempfile.mkdtemp(dir=self.tmp)
            p, out = self.run_runner(m, "--reps", "4", "--modes", "native,acs", "--no-stats",
                                     "--estimator", estimator, env={"FAKE_DIR": state})
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            rows = {r["program"]: r for r in self.read_csv(out)}
            self.assertEqual((rows["a"]["native_ms"], rows["a"]["acs_ms"]), (a, a), estimator)
            self.assertEqual((rows["b"]["native_ms"], rows["b"]["acs_ms"]), (b, b), estimator)
            modes = [r for r in self.read_csv(out, "real_programs_modes.csv") if r["program"] == "b"]
            self.assertEqual([r["fast_runs"] for r in modes], ["2", "2"] if estimator == "fast-state" else ["", ""])
            if estimator == "fast-state":
                with open(os.path.join(out, "real_programs.md")) as f:
                    self.assertIn("fake: native 2/4, acs 2/4.", f.read())

    def test_cpus_pin_every_run(self):
        m = self.manifest('''
            [[program]]
            name = "fake"
            suite = "fake-suite"
            cmd = ["{python}", "PROG", "affinity"]
        ''')
        first = min(os.sched_getaffinity(0))
        p, out = self.run_runner(m, "--reps", "1", "--cpus", str(first))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(out, "real_programs_runs.log")) as f:
            log = f.read()
        # Every mode's run saw only that CPU (the digest is the CPU list), and the heading says so.
        self.assertEqual(log.count(f"sha256={first}\n"), 4, log)
        with open(os.path.join(out, "real_programs.md")) as f:
            self.assertIn(f"every run pinned to CPUs {first}", f.read())
        # A malformed list is refused before anything runs.
        p, _ = self.run_runner(m, "--reps", "1", "--cpus", "3-1")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("expected a list", p.stderr)

    def test_stats_mode(self):
        m = self.manifest('''
            [[program]]
            name = "fake"
            suite = "fake-suite"
            cmd = ["{python}", "PROG", "lines"]
        ''')
        p, out = self.run_runner(m, "--reps", "1", "--mode", "extra:FOO=1", "--stats-mode", "extra")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(out, "real_programs_runs.log")) as f:
            order = [l.split()[2] for l in f if l.startswith("### ")]
        self.assertEqual(order, ["native", "acs", "acs_disable", "extra", "acs_stats", "extra_stats"])
        with open(os.path.join(out, "real_programs_stats.txt")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines, ["fake: acs-stats: fake kernels=0", "fake (extra): acs-stats: fake kernels=0"])
        modes = {(r["program"], r["mode"]): r for r in self.read_csv(out, "real_programs_modes.csv")}
        self.assertEqual(modes[("alpha", "extra_stats")]["env"], "FOO=1 ACS_STATS=1")
        # Only a preloaded mode that the command runs can have a stats pass.
        p, _ = self.run_runner(m, "--reps", "1", "--stats-mode", "nosuch")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--stats-mode nosuch", p.stdout + p.stderr)

    def test_mismatch_and_row_error(self):
        m = self.manifest('''
            [[program]]
            name = "fake"
            suite = "fake"
            cmd = ["{python}", "PROG", "lines"]
        ''')
        p, out = self.run_runner(m, env={"FAKE_MISMATCH": "1"})
        self.assertEqual(p.returncode, 1)
        rows = {r["program"]: r for r in self.read_csv(out)}
        self.assertEqual(rows["alpha"]["identical"], "no")
        self.assertEqual(rows["beta"]["identical"], "yes")
        p, out = self.run_runner(m, env={"FAKE_ROW_ERROR": "1"})
        rows = {r["program"]: r for r in self.read_csv(out)}
        self.assertEqual(rows["gamma"]["identical"], "failed")
        self.assertIn("no such kernel here", p.stdout)
        # The process exited 1, but the rows it printed still count.
        self.assertEqual(rows["alpha"]["identical"], "yes")
        self.assertEqual(rows["alpha"]["acs_ms"], "2.000")

    def test_stdout_digest_regex_time_and_wall(self):
        m = self.manifest(r'''
            [[program]]
            name = "own-time"
            suite = "s"
            cmd = ["{python}", "PROG", "stdout"]
            time = "regex"
            time_regex = 'Time = (?P<t>[0-9.]+) s'
            time_scale = 1000
            digest = "stdout"
            drop = ['Time =']

            [[program]]
            name = "rate-time"
            suite = "s"
            cmd = ["{python}", "PROG", "stdout"]
            time = "regex"
            time_regex = 'Throughput = (?P<rate>[0-9.]+) MElements/s, Size = (?P<n>[0-9]+)'
            time_scale = 1e-3
            digest = "stdout"
            drop = ['Time =']

            [[program]]
            name = "wall"
            suite = "s"
            cmd = ["{python}", "PROG", "stdout"]
            time = "wall"
            digest = "stdout"
        ''')
        p, out = self.run_runner(m)
        rows = {r["program"]: r for r in self.read_csv(out)}
        self.assertEqual(rows["own-time"]["native_ms"], "250.000")
        self.assertEqual(rows["own-time"]["acs_ms"], "500.000")
        self.assertEqual(rows["own-time"]["identical"], "yes")
        self.assertEqual(rows["rate-time"]["native_ms"], "0.500")
        self.assertGreater(float(rows["wall"]["native_ms"]), 0)
        # Without the filter the timing line differs under the preload.
        self.assertEqual(rows["wall"]["identical"], "no")
        self.assertEqual(p.returncode, 1)

    def test_failures_are_reported(self):
        m = self.manifest('''
            [[program]]
            name = "hang"
            suite = "s"
            cmd = ["{python}", "PROG", "hang"]
            timeout = 1
            reps = 1
            time = "wall"
            digest = "stdout"

            [[program]]
            name = "missing"
            suite = "s"
            cmd = ["{bin}/no_such_program"]
            time = "wall"

            [[program]]
            name = "crash"
            suite = "s"
            cmd = ["{python}", "PROG", "fail_preloaded"]
            time = "wall"
            digest = "stdout"

            [[program]]
            name = "varies"
            suite = "s"
            cmd = ["{python}", "PROG", "varies"]
            time = "wall"
            digest = "stdout"
        ''')
        p, out = self.run_runner(m, "--bin-dir", self.tmp)
        self.assertEqual(p.returncode, 1)
        rows = {r["program"]: r for r in self.read_csv(out)}
        self.assertEqual(set(rows), {"hang", "missing", "crash", "varies"})
        self.assertEqual(rows["hang"]["identical"], "failed")
        self.assertEqual(rows["missing"]["identical"], "missing")
        self.assertEqual(rows["crash"]["identical"], "failed")
        self.assertNotEqual(rows["crash"]["native_ms"], "")
        self.assertEqual(rows["crash"]["acs_ms"], "")
        self.assertEqual(rows["varies"]["identical"], "native-varies")
        self.assertIn("timeout after 1 s", p.stdout)
        self.assertIn("missing", p.stdout)
        self.assertIn("crash: acs 3/3, acs_disable 3/3, acs_stats 1/1 runs: rc=3", p.stdout)

    def test_deadline_and_only(self):
        m = self.manifest('''
            [[program]]
            name = "first"
            suite = "s"
            cmd = ["{python}", "PROG", "lines"]
            [[program]]
            name = "second"
            suite = "s"
            cmd = ["{python}", "PROG", "lines"]
        ''')
        p, out = self.run_runner(m, "--deadline", "0")
        self.assertEqual(p.returncode, 1)
        self.assertIn("SKIPPED: first", p.stdout)
        self.assertIn("SKIPPED: second", p.stdout)
        self.assertEqual({r["identical"] for r in self.read_csv(out)}, {"skipped"})
        p, out = self.run_runner(m, "--hard-deadline", "0")
        self.assertIn("not run (hard deadline)", p.stdout)
        p, out = self.run_runner(m, "--only", "^second$", "--no-stats")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("1 programs", p.stdout)

    def test_merge_takes_each_program_from_the_last_run_that_measured_it(self):
        m = self.manifest('''
            [[program]]
            name = "first"
            suite = "s"
            cmd = ["{python}", "PROG", "lines"]
        ''' + SECOND_PROGRAM)
        first, second, third = (os.path.join(self.tmp, f"merge-{i}") for i in range(3))
        p, _ = self.run_runner(m, "--deadline", "0", "--out", first)  # both skipped
        self.assertEqual(p.returncode, 1)
        p, _ = self.run_runner(m, "--only", "^second$", "--out", second)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        p, _ = self.run_runner(m, "--only", "^first$", "--out", third)
        merged = os.path.join(self.tmp, "merged")
        p = subprocess.run([sys.executable, RUNNER, "--merge", first, second, third, "--out", merged],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        rows = {r["program"]: r for r in self.read_csv(merged)}
        self.assertEqual(set(rows), {"alpha", "beta", "second"})
        self.assertEqual(rows["second"]["speedup"], "0.500")
        self.assertEqual(rows["alpha"]["identical"], "yes")
        with open(os.path.join(merged, "real_programs.md")) as f:
            md = f.read()
        self.assertNotIn("SKIPPED", md)  # the first run's skips were measured later
        self.assertIn("merged from", md)
        with open(os.path.join(merged, "real_programs_stats.txt")) as f:
            self.assertEqual(f.read().count("acs-stats: fake kernels=0"), 2)
        p = subprocess.run([sys.executable, RUNNER, "--merge", self.tmp, "--out", merged],
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("real_programs.json", p.stderr)

    def test_merge_takes_the_acs_column_from_another_mode_when_asked(self):
        m = self.manifest(SECOND_PROGRAM)
        run = os.path.join(self.tmp, "acs-mode-run")
        p, _ = self.run_runner(m, "--modes", "native,acs", "--mode", "twice:FAKE_SLOW=2", "--out", run)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        plain = {r["program"]: r for r in self.read_csv(run)}
        merged = os.path.join(self.tmp, "acs-mode-merged")
        p = subprocess.run([sys.executable, RUNNER, "--merge", run, "--out", merged, "--acs-mode", "twice"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        rows = {r["program"]: r for r in self.read_csv(merged)}
        # The fake program under FAKE_SLOW=2 reports twice acs's time: the acs column is that mode's.
        self.assertAlmostEqual(float(rows["second"]["acs_ms"]), 2 * float(plain["second"]["acs_ms"]), places=2)
        with open(os.path.join(merged, "real_programs.md")) as f:
            md = f.read()
        self.assertIn("acs column: mode twice", md)
        self.assertNotIn("twice (x)", md)
        p = subprocess.run([sys.executable, RUNNER, "--merge", run, "--out", merged, "--acs-mode", "nosuch"],
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("no such mode", p.stderr)

    def test_the_hosts_speed_is_told_and_a_slow_host_flagged(self):
        sys.path.insert(0, HERE)
        import run_real
        self.assertIsNone(run_real.host_speed_line([None, None]))
        steady = run_real.host_speed_line([5.0, 5.1, 4.9, 5.2, None])
        self.assertIn("median 5.05 ms over 4 runs, 4.90-5.20 ms; 0 run(s) more than 15% slower", steady)
        self.assertNotIn("with care", steady)
        # One run at half speed: flagged.
        moved = run_real.host_speed_line([5.0, 5.1, 4.9, 10.2])
        self.assertIn("1 run(s) more than 15% slower", moved)
        self.assertIn("compare its ratios with care", moved)
        # A process of several rows counts each of its runs once.
        results = [{"process": "torch", "modes": {"native": {"host_ms": [5.0, 6.0]}}},
                   {"process": "torch", "modes": {"native": {"host_ms": [5.0, 6.0]}}},
                   {"process": "scan", "modes": {"native": {"host_ms": [7.0]}, "acs": {}}}]
        self.assertEqual(sorted(run_real.host_speeds(results)), [5.0, 6.0, 7.0])
        self.assertGreater(run_real.host_speed_ms(), 0)

    def test_a_stats_pass_left_out_is_skipped_not_failed(self):
        sys.path.insert(0, HERE)
        import run_real
        prog = {"name": "fake", "suite": "s", "time": "lines"}
        row = {"fake": {"ms": 1.0, "digest": "d", "error": None, "suite": "s"}}
        ok = {"status": "ok", "wall_ms": 5.0}
        late = {"status": "not run (hard deadline)", "wall_ms": None}
        runs = [("native", ok, row), ("acs", ok, row), ("acs_stats", late, {})]
        [r] = run_real.summarise(prog, ["native", "acs"], runs)
        self.assertEqual(r["identical"], "yes")
        self.assertNotIn("acs_stats", r["modes"])
        # A timed mode whose every run the deadline left out or stopped: the row is cut, not failed
        # (acs did nothing wrong), and not "yes" either (nothing to compare).
        stopped = {"status": "cut by the hard deadline after 2 s", "wall_ms": 2000.0}
        for cut in (late, stopped):
            [r] = run_real.summarise(prog, ["native", "acs"], runs[:1] + [("acs", cut, {})])
            self.assertEqual(r["identical"], "cut")
            self.assertNotIn("acs", r["modes"])
        # One of two runs stopped: the other counts.
        [r] = run_real.summarise(prog, ["native", "acs"], runs[:2] + [("acs", stopped, {})])
        self.assertEqual(r["identical"], "yes")
        self.assertEqual(r["modes"]["acs"]["runs"], 1)
        # A run that failed on its own still fails the row.
        [r] = run_real.summarise(prog, ["native", "acs"], runs[:1] + [("acs", {"status": "rc=3", "wall_ms": 1.0}, {})])
        self.assertEqual(r["identical"], "failed")

    def test_a_run_the_command_ran_out_of_time_for_is_cut_not_failed(self):
        m = self.manifest('''
            [[program]]
            name = "hang"
            suite = "s"
            cmd = ["{python}", "PROG", "hang"]
            timeout = 30
            time = "wall"
            digest = "stdout"
        ''')
        p, out = self.run_runner(m, "--hard-deadline", "1.5", "--timeout", "30")
        self.assertEqual(p.returncode, 1)  # not every run measured
        self.assertNotIn("FAILED", p.stdout)
        self.assertIn("SKIPPED: hang: native 3/3, acs 3/3, acs_disable 3/3 runs cut by the hard deadline", p.stdout)
        self.assertIn("its ACS_STATS=1 pass (acs_stats) not run (hard deadline)", p.stdout)
        self.assertEqual([r["identical"] for r in self.read_csv(out)], ["cut"])
        # (With time to spare, the program's own limit is a failure: test_failures_are_reported.)

    def test_a_run_cut_long_after_its_programs_other_runs_finished_is_a_hang(self):
        sys.path.insert(0, HERE)
        import run_real
        ok = {"status": "ok", "wall_ms": 900.0}
        earlier = [("native", ok, {})]
        self.assertTrue(run_real.hung({"status": "timeout after 5 s", "wall_ms": 5000.0}, earlier))
        self.assertFalse(run_real.hung({"status": "timeout after 2 s", "wall_ms": 2000.0}, earlier))
        self.assertFalse(run_real.hung({"status": "timeout after 5 s", "wall_ms": 5000.0}, []))
        # End to end: native finishes in well under a second; under the preload it hangs, and the
        # deadline that stops it comes long after: failed, not cut.
        m = self.manifest('''
            [[program]]
            name = "hangs_preloaded"
            suite = "s"
            cmd = ["{python}", "PROG", "hang_preloaded"]
            timeout = 30
            time = "wall"
            digest = "stdout"
        ''')
        p, out = self.run_runner(m, "--hard-deadline", "4", "--timeout", "30", "--modes", "native,acs", "--no-stats")
        self.assertIn("FAILED: hangs_preloaded", p.stdout)
        self.assertEqual([r["identical"] for r in self.read_csv(out)], ["failed"])

    def test_no_gpu_exits_zero(self):
        if shutil.which("nvidia-smi"):
            self.skipTest("this machine has nvidia-smi")
        m = self.manifest('''
            [[program]]
            name = "x"
            suite = "s"
            cmd = ["{python}", "PROG", "lines"]
        ''')
        p = subprocess.run([sys.executable, RUNNER, m, "--out", os.path.join(self.tmp, "nogpu")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("no NVIDIA GPU", p.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "nogpu")))


class ManifestTest(unittest.TestCase):
    """The committed manifests: complete entries, and time regexes that match the timing
    lines the programs print (written here from their printf formats)."""

    PRINTED = {
        "scan": "scan, Throughput = 2000.0000 MElements/s, Time = 0.00001 s, Size = 1024 Elements, NumDevsUsed = 1\n"
                "scan, Throughput = 50000.0000 MElements/s, Time = 0.00005 s, Size = 262144 Elements, NumDevsUsed = 1",
        "reduction": "Reduction, Throughput = 2000.0000 GB/s, Time = 0.00003 s, Size = 16777216 Elements, NumDevsUsed = 1",
        "sortingNetworks": "Average time: 0.100000 ms\n\nAverage time: 0.200000 ms",
        "mergeSort": "Time: 12.500000 ms",
        "radixSortThrust": "radixSortThrust, Throughput = 2000.0000 MElements/s, Time = 0.00052 s, Size = 1048576 elements",
        "convolutionSeparable": "convolutionSeparable, Throughput = 9437.1840 MPixels/sec, Time = 0.00100 s, Size = 9437184 Pixels",
        "FDTD3d": "FDTD3d, Throughput = 2097.1520 MPoints/s, Time = 0.00100 s, Size = 2097152 Points, NumDevsUsed = 1",
        "jacobiCudaGraphs-nograph": "GPU Processing time: 45.500000 (ms)",
        "jacobiCudaGraphs-graph": "GPU Processing time: 20.000000 (ms)",
        "simpleHyperQ": "Measured time for sample = 0.021s",
        "simpleStreams": "memcopy:\t1.23\nkernel:\t\t2.00\nnon-streamed:\t3.50\n4 streams:\t2.10",
    }
    EXPECTED_MS = {"scan": 0.000512 + 0.00524288, "reduction": 0.033554432, "sortingNetworks": 0.3, "mergeSort": 12.5,
                   "radixSortThrust": 0.524288, "convolutionSeparable": 1.0, "FDTD3d": 1.0,
                   "jacobiCudaGraphs-nograph": 45.5, "jacobiCudaGraphs-graph": 20.0, "simpleHyperQ": 21.0,
                   "simpleStreams": 2.1}

    def programs(self):
        sys.path.insert(0, HERE)
        import run_real
        paths = [os.path.join(HERE, m) for m in ("programs.toml", "cuda_samples.toml")]
        return run_real, run_real.load_programs(paths, "/bin-dir", "python3")

    def test_entries_are_complete(self):
        _, progs = self.programs()
        self.assertGreaterEqual(len([p for p in progs if p["suite"] == "cuda-samples"]), 6)
        for p in progs:
            for key in ("what", "origin", "licence"):
                self.assertTrue(p.get(key), f"{p['name']} lacks {key}")
            self.assertIn(p["time"], ("lines", "wall", "regex"))
            self.assertIn(p["digest"], ("lines", "stdout", "none"))
            if p["time"] == "regex":
                self.assertIn("time_regex", p)
            for d in p.get("drop", []):
                re.compile(d)
        self.assertEqual(progs[0]["name"], "torch")  # priorities: the longest first

    def test_time_regexes_match_the_printed_lines(self):
        run_real, progs = self.programs()
        regex_progs = {p["name"]: p for p in progs if p["time"] == "regex"}
        self.assertEqual(set(regex_progs), set(self.PRINTED))
        for name, text in self.PRINTED.items():
            p = regex_progs[name]
            self.assertAlmostEqual(run_real.regex_time(p, text), self.EXPECTED_MS[name], places=6, msg=name)
            # The timing lines are all dropped from the digest.
            left = [l for l in text.splitlines() if l and not any(re.search(d, l) for d in p["drop"])]
            self.assertEqual(left, [], name)


class CpuSpeedsTest(unittest.TestCase):
    """benchmarks/real/cpu_speeds.py: which CPUs run the host loop fastest."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, HERE)
        import cpu_speeds
        cls.m = cpu_speeds

    def test_cpu_lists_are_ranges(self):
        self.assertEqual(self.m.cpu_list({2, 3, 4, 7}), "2-4,7")
        self.assertEqual(self.m.cpu_list({5}), "5")
        self.assertEqual(self.m.cpu_list({1, 3, 5, 6}), "1,3,5-6")

    def test_the_fastest_are_by_median_not_by_one_lucky_round(self):
        times = {1: [10.0, 5.0, 10.0], 2: [6.0, 6.5, 6.0], 3: [6.2, 6.1, 9.0], 4: [9.0, 9.5, 9.1]}
        self.assertEqual(self.m.fastest(times, 2), {2, 3})
        self.assertEqual(self.m.fastest(times, 1), {2})

    def test_every_cpu_is_timed_each_round_and_picked_cpus_are_usable(self):
        allowed = sorted(os.sched_getaffinity(0))
        times = self.m.measure(allowed[:2], 2)
        self.assertEqual(set(times), set(allowed[:2]))
        self.assertTrue(all(len(v) == 2 and all(t > 0 for t in v) for v in times.values()))
        p = subprocess.run([sys.executable, os.path.join(HERE, "cpu_speeds.py"), "--rounds", "1", "--pick", "1"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(int(p.stdout.strip()), allowed)
        p = subprocess.run([sys.executable, os.path.join(HERE, "cpu_speeds.py"), "--pick", str(len(allowed) + 1)],
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--pick", p.stderr)


class InterleavedTimingTest(unittest.TestCase):
    """real_common.time_interleaved: round-robin order, and a failing step dropped alone."""

    def test_round_robin_and_failure(self):
        sys.path.insert(0, HERE)
        from real_common import time_interleaved
        calls, syncs = [], []

        def step(key, fail_at=None):
            def run():
                calls.append(key)
                if fail_at is not None and calls.count(key) == fail_at:
                    raise RuntimeError(f"{key} failed")
                return calls.count(key)
            return run

        res = time_interleaved({"a": step("a"), "b": step("b", fail_at=4), "c": step("c")},
                               lambda: syncs.append(1), warmup=1, rounds=3, per_round=2)
        # warm-ups, then rounds of two iterations each; b fails on its 4th call (round 2) and
        # is not run again
        self.assertEqual(calls, ["a", "b", "c"] + ["a", "a", "b", "b", "c", "c"] + ["a", "a", "b", "c", "c"]
                         + ["a", "a", "c", "c"])
        self.assertIsInstance(res["b"], RuntimeError)
        ms, outs = res["a"]
        self.assertGreaterEqual(ms, 0.0)
        self.assertEqual(outs, [2, 7])  # the first and the last timed call's return values
        self.assertEqual(res["c"][1], [2, 7])


if __name__ == "__main__":
    unittest.main(verbosity=2)
