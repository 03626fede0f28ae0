#!/usr/bin/env python3
"""The Python package (python/), without a GPU: installed offline with
`pip install --no-build-isolation --no-deps --target DIR`, then used from DIR:
python -m acs run on a script, acs.run, acs.library_path, the console script.

Uses the first Python with pip, setuptools and wheel (this one, then
/usr/bin/python3, which Debian's python3-pip serves); none: SKIPPED (exit 77).
Environment: ACS_TEST_SOURCE, ACS_TEST_LIB, ACS_TEST_VERSION, ACS_TEST_WORK.
"""
import os
import shutil
import subprocess
import sys
import unittest

SOURCE = os.environ["ACS_TEST_SOURCE"]
LIB = os.environ["ACS_TEST_LIB"]
VERSION = os.environ["ACS_TEST_VERSION"]
WORK = os.environ["ACS_TEST_WORK"]
TARGET = os.path.join(WORK, "site")

SCRIPT = """\
import os, sys
print("preload=" + os.environ.get("LD_PRELOAD", ""))
print("args=" + " ".join(sys.argv[1:]))
sys.exit(5)
"""


def python_with_pip():
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", "import setuptools, wheel, pip"],
                                                 capture_output=True).returncode == 0:
            return py
    return None


PY = python_with_pip()


def env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("ACS_") and k not in ("LD_PRELOAD", "PYTHONPATH")}
    e["PYTHONPATH"] = TARGET
    e.update(extra)
    return e


def py(*args, **extra):
    return subprocess.run([PY, *args], capture_output=True, text=True, env=env(**extra), cwd=WORK, timeout=120)


def setUpModule():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    # From a copy: pip builds in the source folder and would leave build/ there;
    # copying also turns acs/plot_trace.py, a link to scripts/, into a file.
    copy = os.path.join(WORK, "python")
    shutil.copytree(os.path.join(SOURCE, "python"), copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    r = subprocess.run([PY, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
                        "--target", TARGET, copy], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"pip install failed:\n{r.stdout}{r.stderr}")
    with open(os.path.join(WORK, "script.py"), "w") as f:
        f.write(SCRIPT)


class Package(unittest.TestCase):
    def test_installed_files(self):
        self.assertTrue(os.path.isfile(os.path.join(TARGET, "acs", "cli.py")))
        plot = os.path.join(TARGET, "acs", "plot_trace.py")
        self.assertTrue(os.path.isfile(plot) and not os.path.islink(plot), "plot_trace.py must be a copy")
        r = py("-c", "import acs; print(acs.__file__, acs.__version__)")
        self.assertTrue(r.stdout.startswith(TARGET), r.stdout + r.stderr)
        self.assertEqual(r.stdout.split()[1], VERSION)

    def test_python_m_acs_runs_a_script_under_the_preload(self):
        r = py("-m", "acs", "run", "--lib", LIB, "script.py", "a", "--b")
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn(f"preload={os.path.abspath(LIB)}\n", r.stdout)
        self.assertIn("args=a --b\n", r.stdout)

    def test_python_m_acs_run_module(self):
        r = py("-m", "acs", "run", "--lib", LIB, "--window", "8", "-m", "script", "x", PYTHONPATH=f"{TARGET}:{WORK}")
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn("args=x\n", r.stdout)

    def test_acs_run_returns_the_exit_code(self):
        code = ("import acs, sys; sys.exit(10 + acs.run(['sh', '-c', 'test \"$ACS_STATS\" = 1 && echo $LD_PRELOAD; exit 4'],"
                " lib=sys.argv[1], stats=True))")
        r = py("-c", code, LIB)
        self.assertEqual(r.returncode, 14, r.stderr)
        self.assertEqual(r.stdout.strip(), os.path.abspath(LIB))

    def test_library_path(self):
        r = py("-c", "import acs; print(acs.library_path())", ACS_LIB=LIB)
        self.assertEqual(r.stdout.strip(), os.path.abspath(LIB))
        r = py("-c", "import acs\ntry:\n  acs.library_path()\nexcept acs.LibraryNotFound as e:\n  print('not found:', e)")
        prefix = py("-c", "import sys; print(sys.prefix)").stdout.strip()
        if not any(os.path.exists(os.path.join(prefix, d, "libacs.so")) for d in ("lib", "lib64")):
            self.assertIn("not found: no libacs.so found", r.stdout, r.stderr)

    def test_console_script(self):
        acs = os.path.join(TARGET, "bin", "acs")
        self.assertTrue(os.access(acs, os.X_OK), "pip did not install the acs command")
        r = subprocess.run([PY, acs, "--version"], capture_output=True, text=True, env=env())
        self.assertEqual(r.stdout.strip(), f"acs {VERSION}")
        self.assertEqual(subprocess.run([PY, acs, "run", "--lib", LIB, "--", "sh", "-c", "exit 6"],
                                        env=env()).returncode, 6)


if __name__ == "__main__":
    if PY is None:
        print("SKIPPED: no Python with pip, setuptools and wheel (Debian: python3-pip python3-setuptools python3-wheel)")
        sys.exit(77)
    unittest.main(verbosity=2)
