#!/usr/bin/env python3
"""The acs command (scripts/acs), without a GPU: run, stats, plot, doctor, --help.

Environment (set by tests/cli/CMakeLists.txt): ACS_TEST_COMMAND (the command),
ACS_TEST_LIB (a built libacs.so), ACS_TEST_VERSION (the project's version).
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

COMMAND = os.environ["ACS_TEST_COMMAND"]
LIB = os.environ["ACS_TEST_LIB"]
VERSION = os.environ["ACS_TEST_VERSION"]
# A program that makes one CUDA call (cuInit, through the test suite's fake driver): acs prints
# and writes statistics only in processes that used CUDA.
FAKE_CUDA = os.environ["ACS_TEST_FAKE_CUDA"]
CUDA_PROGRAM = [sys.executable, "-c", f"import ctypes; ctypes.CDLL({FAKE_CUDA!r}).cuInit(0)"]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def clean_env(**extra):
    """The environment without any ACS_* setting or preload, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACS_") and k != "LD_PRELOAD"}
    env.update(extra)
    return env


def acs(*args, env=None, command=COMMAND, python=sys.executable, **kw):
    return subprocess.run([python, command, *args], capture_output=True, text=True,
                          env=clean_env() if env is None else env, timeout=120, **kw)


def python_with_matplotlib():
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", "import matplotlib"],
                                                 capture_output=True).returncode == 0:
            return py
    return None


class Run(unittest.TestCase):
    def test_preloads_libacs(self):
        r = acs("run", "--lib", LIB, "--", "sh", "-c", "echo $LD_PRELOAD")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), os.path.abspath(LIB))

    def test_libacs_is_mapped_in_the_program(self):
        r = acs("run", "--lib", LIB, "--", "sh", "-c", "cat /proc/$$/maps")
        self.assertIn(os.path.basename(os.path.realpath(LIB)), r.stdout)

    def test_exit_status_passes_through(self):
        for status in (0, 3, 77):
            r = acs("run", "--lib", LIB, "--", "sh", "-c", f"exit {status}")
            self.assertEqual(r.returncode, status, r.stderr)

    def test_exec_keeps_pid_and_signals(self):
        p = subprocess.Popen([sys.executable, COMMAND, "run", "--lib", LIB, "--", "sh", "-c", "echo $$"],
                             stdout=subprocess.PIPE, text=True, env=clean_env())
        out, _ = p.communicate(timeout=60)
        self.assertEqual(int(out), p.pid, "acs must exec the program, not run it as a child")
        r = acs("run", "--lib", LIB, "--", "sh", "-c", "kill -TERM $$")
        self.assertEqual(r.returncode, -15)

    def test_each_flag_sets_its_variable(self):
        cases = [
            (["--window", "8"], {"ACS_WINDOW": "8"}),
            (["--streams", "4"], {"ACS_STREAMS": "4"}),
            (["--stats"], {"ACS_STATS": "1"}),
            (["--infer", "const"], {"ACS_INFER": "const"}),
            (["--relay", "auto"], {"ACS_RELAY": "auto"}),
            (["--trace", "t.json"], {"ACS_TRACE": os.path.join(os.getcwd(), "t.json")}),
            (["--stats-file", "s.txt"], {"ACS_STATS_FILE": os.path.join(os.getcwd(), "s.txt")}),
            ([], {}),
        ]
        for flags, expected in cases:
            with self.subTest(flags=flags):
                r = acs("run", "--lib", LIB, *flags, "--", "sh", "-c", "env")
                self.assertEqual(r.returncode, 0, r.stderr)
                got = dict(l.split("=", 1) for l in r.stdout.splitlines() if l.startswith("ACS_"))
                self.assertEqual(got, expected)

    def test_flags_override_the_environment_and_others_pass(self):
        r = acs("run", "--lib", LIB, "--window", "4", "--", "sh", "-c", "echo $ACS_WINDOW $ACS_JOIN",
                env=clean_env(ACS_WINDOW="64", ACS_JOIN="eager"))
        self.assertEqual(r.stdout.split(), ["4", "eager"])

    def test_bad_values_are_refused(self):
        for flags, words in ((["--window", "0"], "--window"), (["--streams", "x"], "--streams"),
                             (["--infer", "all"], "--infer"), (["--relay", "1"], "--relay")):
            with self.subTest(flags=flags):
                r = acs("run", "--lib", LIB, *flags, "--", "true")
                self.assertEqual(r.returncode, 2)
                self.assertIn(words, r.stderr)

    def test_appends_to_an_existing_preload(self):
        other = "/nonexistent/libother.so"
        r = acs("run", "--lib", LIB, "--", "sh", "-c", "echo $LD_PRELOAD", env=clean_env(LD_PRELOAD=other))
        self.assertEqual(r.stdout.strip(), f"{other}:{os.path.abspath(LIB)}")

    def test_same_library_already_preloaded_is_kept_once(self):
        r = acs("run", "--lib", LIB, "--", "sh", "-c", "echo $LD_PRELOAD", env=clean_env(LD_PRELOAD=LIB))
        self.assertEqual(r.stdout.strip(), LIB)

    def test_another_libacs_already_preloaded_is_an_error(self):
        r = acs("run", "--lib", LIB, "--", "true", env=clean_env(LD_PRELOAD="/elsewhere/libacs.so"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("another libacs.so", r.stderr)

    def test_acs_torch_puts_the_integrations_boot_directory_on_pythonpath(self):
        boot = os.path.join(REPO, "python", "acs", "torch", "_boot")
        r = acs("run", "--lib", LIB, "--", "sh", "-c", "echo $PYTHONPATH", env=clean_env(ACS_TORCH="1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip().split(os.pathsep)[0], boot)
        r = acs("run", "--lib", LIB, "--", "sh", "-c", "echo x$PYTHONPATH", env=clean_env())
        self.assertEqual(r.stdout.strip(), "x", "without ACS_TORCH the environment is left alone")

    def test_missing_program_and_nothing_to_run(self):
        r = acs("run", "--lib", LIB, "--", "no-such-program-acs-test")
        self.assertEqual(r.returncode, 127)
        self.assertIn("no-such-program-acs-test", r.stderr)
        r = acs("run", "--lib", LIB)
        self.assertEqual(r.returncode, 2)
        self.assertIn("nothing to run", r.stderr)


class Lookup(unittest.TestCase):
    """Where libacs.so is found: --lib, ACS_LIB, the installation, the build tree."""

    def layout(self, root, launcher_dir, package_dir):
        os.makedirs(launcher_dir)
        shutil.copy(COMMAND, os.path.join(launcher_dir, "acs"))
        shutil.copytree(os.path.join(REPO, "python", "acs"), os.path.join(package_dir, "acs"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        return os.path.join(launcher_dir, "acs")

    def preload_of(self, command, *flags, env=None):
        return acs("run", *flags, "--", "sh", "-c", "echo $LD_PRELOAD", command=command, env=env)

    def test_installed_layout_then_acs_lib_then_lib_flag(self):
        with tempfile.TemporaryDirectory() as prefix:
            command = self.layout(prefix, os.path.join(prefix, "bin"), os.path.join(prefix, "share", "acs", "python"))
            r = self.preload_of(command)
            self.assertEqual(r.returncode, 2, "no library installed yet: must fail")
            self.assertIn("no libacs.so found", r.stderr)
            self.assertIn(os.path.join(prefix, "lib", "libacs.so"), r.stderr, "the message lists where it looked")
            os.makedirs(os.path.join(prefix, "lib"))
            installed = os.path.join(prefix, "lib", "libacs.so")
            os.symlink(os.path.realpath(LIB), installed)
            self.assertEqual(self.preload_of(command).stdout.strip(), installed)
            r = self.preload_of(command, env=clean_env(ACS_LIB=LIB))
            self.assertEqual(r.stdout.strip(), os.path.abspath(LIB), "ACS_LIB comes before the installation")
            r = self.preload_of(command, "--lib", installed, env=clean_env(ACS_LIB=LIB))
            self.assertEqual(r.stdout.strip(), installed, "--lib comes before ACS_LIB")
            r = self.preload_of(command, env=clean_env(ACS_LIB="/nonexistent/libacs.so"))
            self.assertEqual(r.returncode, 2, "a missing ACS_LIB is an error, not a fallback")
            self.assertIn("ACS_LIB", r.stderr)

    def test_build_tree_of_a_checkout(self):
        with tempfile.TemporaryDirectory() as repo:
            command = self.layout(repo, os.path.join(repo, "scripts"), os.path.join(repo, "python"))
            for marker in ("CMakeLists.txt", os.path.join("python", "pyproject.toml")):
                open(os.path.join(repo, marker), "w").close()
            os.makedirs(os.path.join(repo, "build", "interpose"))
            built = os.path.join(repo, "build", "interpose", "libacs.so")
            os.symlink(os.path.realpath(LIB), built)
            r = self.preload_of(command)
            self.assertEqual(r.stdout.strip(), built, r.stderr)


class Help(unittest.TestCase):
    def test_version(self):
        r = acs("--version")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, f"acs {VERSION}"))

    def test_help_names_every_command(self):
        r = acs("--help")
        self.assertEqual(r.returncode, 0)
        for word in ("run", "stats", "plot", "doctor"):
            self.assertIn(word, r.stdout)
        r = acs("run", "--help")
        for variable in ("ACS_WINDOW", "ACS_STREAMS", "ACS_STATS", "ACS_STATS_FILE", "ACS_TRACE", "ACS_INFER"):
            self.assertIn(variable, r.stdout)


class Stats(unittest.TestCase):
    sample = os.path.join(DATA, "stats_sample.txt")

    def test_pretty_prints_each_process(self):
        r = acs("stats", self.sample)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("== process 1 of 2", r.stdout)
        self.assertIn("== process 2 of 2 (pid 4242)", r.stdout)
        for label, value in (("launches seen", "512"), ("passed: capturing", "12"),
                             ("GPU busy fraction", "87.0%"), ("mean window occupancy", "17.25")):
            line = next((l for l in r.stdout.splitlines() if label in l), "")
            self.assertTrue(line.endswith(value), f"{label}: {line!r}")
        # Per device (several GPUs in one process): each device's figures under its ordinal.
        lines = r.stdout.splitlines()
        self.assertIn("Per device", lines)
        device1 = lines[lines.index("  device 1"):]
        dispatched = next((l for l in device1 if "dispatched to the pool" in l), "")
        self.assertTrue(dispatched.endswith("200"), dispatched)
        self.assertNotIn("Other", r.stdout)
        self.assertIn("not measured", r.stdout)
        self.assertNotIn("Other", r.stdout)

    def test_json(self):
        r = acs("stats", "--json", self.sample)
        records = json.loads(r.stdout)
        self.assertEqual([x["kernels_seen"] for x in records], [512, 7])
        self.assertEqual(records[0]["busy_fraction"], 0.87)

    def test_knows_every_field_of_the_librarys_line(self):
        with tempfile.TemporaryDirectory() as d:
            captured = os.path.join(d, "stderr.txt")
            with open(captured, "w") as f:
                subprocess.run(CUDA_PROGRAM, stderr=f, env=clean_env(ACS_STATS="1", LD_PRELOAD=LIB), check=True)
            r = acs("stats", captured)
            with open(captured) as f:
                self.assertEqual(r.returncode, 0, r.stderr + f.read())
            self.assertNotIn("Other", r.stdout, "a field of src/stats.cpp's line that acs stats does not name")

    def test_stats_file_end_to_end(self):
        """acs run --stats-file F, then acs stats F: one line per process, appended."""
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "stats.txt")
            for _ in range(2):
                r = acs("run", "--lib", LIB, "--stats-file", f, "--", *CUDA_PROGRAM)
                self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.exists(f), "libacs.so wrote no ACS_STATS_FILE")
            self.assertNotIn("acs-stats:", r.stderr, "ACS_STATS_FILE alone prints nothing on stderr")
            r = acs("stats", f)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("== process 2 of 2 (pid ", r.stdout, "one line per process, appended")

    def test_an_unwritable_stats_file_is_said_and_the_numbers_go_to_stderr(self):
        r = subprocess.run(CUDA_PROGRAM, capture_output=True, text=True, timeout=120,
                           env=clean_env(LD_PRELOAD=LIB, ACS_STATS_FILE="/nonexistent/folder/stats.txt"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ACS_STATS_FILE: cannot append to /nonexistent/folder/stats.txt", r.stderr)
        self.assertIn("acs-stats:", r.stderr)

    def test_no_stats_line(self):
        r = acs("stats", os.path.join(DATA, "cuobjdump", "README.md"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no 'acs-stats:' line", r.stderr)
        r = acs("stats", "/nonexistent/stats.txt")
        self.assertEqual(r.returncode, 1)


class Plot(unittest.TestCase):
    def test_draws_the_sample_trace(self):
        py = python_with_matplotlib()
        if py is None:
            self.skipTest("no Python with matplotlib (Debian: python3-matplotlib)")
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, "out.png")
            r = acs("plot", os.path.join(DATA, "trace_small.json"), "-o", png, python=py)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertGreater(os.path.getsize(png), 10_000)
            r = acs("plot", os.path.join(DATA, "stats_sample.txt"), "-o", png, python=py)
            self.assertNotEqual(r.returncode, 0, "a file that is not a trace must be refused")


class Doctor(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.bin = os.path.join(self.tmp.name, "bin")
        os.makedirs(self.bin)
        for name in ("app", "app_sass", "plain"):  # the files the recorded outputs are of
            open(os.path.join(self.tmp.name, name), "w").close()

    def tearDown(self):
        self.tmp.cleanup()

    def fake_cuobjdump(self):
        with open(os.path.join(self.bin, "cuobjdump"), "w") as f:
            f.write(f'#!/bin/sh\nexec "{sys.executable}" "{os.path.join(HERE, "fake_cuobjdump.py")}" "$@"\n')
        os.chmod(os.path.join(self.bin, "cuobjdump"), 0o755)
        return clean_env(PATH=self.bin + os.pathsep + os.environ["PATH"])

    def test_machine_report(self):
        r = acs("doctor", "--lib", LIB)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"acs {VERSION}", r.stdout)
        self.assertIn(f"libacs.so: {os.path.abspath(LIB)} (--lib)", r.stdout)
        try:
            ctypes.CDLL("libcuda.so.1")
            has_driver = True
        except OSError:
            has_driver = False
        if not has_driver:
            self.assertIn("no GPU", r.stdout)
        self.assertIn("CUDA toolkit:", r.stdout)

    def test_without_cuobjdump_says_so(self):
        if os.path.exists("/usr/local/cuda/bin/cuobjdump"):
            self.skipTest("this toolkit has cuobjdump")
        env = clean_env(PATH="/usr/bin:/bin")
        r = acs("doctor", os.path.join(self.tmp.name, "app"), env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cuobjdump is not here", r.stdout)

    def test_kernels_with_and_without_ptx(self):
        env = self.fake_cuobjdump()
        r = acs("doctor", os.path.join(self.tmp.name, "app"), os.path.join(self.tmp.name, "app_sass"),
                os.path.join(self.tmp.name, "plain"), env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        out = r.stdout
        self.assertIn("app: machine code for sm_90; PTX for sm_90", out)
        self.assertIn("2 kernels, 2 with PTX", out)
        self.assertIn("app_sass: machine code for sm_80, sm_90; PTX for no architecture", out)
        self.assertIn("2 kernels, 0 with PTX", out)
        self.assertIn("plain: no CUDA device code", out)
        rows = [l.split() for l in out.splitlines() if "saxpy" in l]
        self.assertEqual(rows[0][:2], ["sm_90", "sm_90"], out)  # app: PTX and SASS
        self.assertEqual(rows[1][:2], ["-", "sm_80,sm_90"], out)  # app_sass: SASS only
        demangled = shutil.which("c++filt") is not None
        self.assertIn("saxpy(int, float, float const*, float*)" if demangled else "_Z5saxpyifPKfPf", out)

    def test_missing_file(self):
        r = acs("doctor", "/nonexistent/app", env=self.fake_cuobjdump())
        self.assertEqual(r.returncode, 1)
        self.assertIn("/nonexistent/app: no such file", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
