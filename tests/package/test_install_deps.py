#!/usr/bin/env python3
"""scripts/install_deps.sh, without touching the machine: apt-get, dpkg-query and
id are stubs on a PATH that holds nothing else (but dirname, sed and grep), so
every package it checks through PATH looks missing. The stub apt-get records its
calls and "installs" into the stub dpkg's list. Also --check on the real machine.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "install_deps.sh")
# Found only through PATH (the stubbed one), so certainly missing here.
THROUGH_PATH = ["cmake", "ninja-build", "g++", "binutils", "libfmt-dev",
                "libbenchmark-dev", "python3", "pkg-config"]

DPKG_QUERY = """#!/bin/sh
# dpkg-query -W -f='${Status}' PACKAGE
for package; do :; done
grep -qx "$package" "$STATE/installed" 2>/dev/null && printf 'install ok installed' && exit 0
exit 1
"""
APT_GET = """#!/bin/sh
echo "apt-get $*" >>"$STATE/apt.log"
[ "$1" = install ] || exit 0
for a in "$@"; do case $a in -*|install) ;; *) echo "$a" >>"$STATE/installed" ;; esac; done
"""


class InstallDeps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.bin = os.path.join(self.tmp.name, "bin")
        os.makedirs(self.bin)
        for tool in ("dirname", "sed", "grep"):
            os.symlink(shutil.which(tool), os.path.join(self.bin, tool))
        self.stub("dpkg-query", DPKG_QUERY)
        self.stub("apt-get", APT_GET)
        self.uid(0)

    def tearDown(self):
        self.tmp.cleanup()

    def stub(self, name, text):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)

    def uid(self, n):
        self.stub("id", f"#!/bin/sh\necho {n}\n")

    def run_script(self, *args, **env):
        full = {"PATH": self.bin, "STATE": self.tmp.name, **env}
        return subprocess.run(["/bin/bash", SCRIPT, *args], capture_output=True, text=True, env=full, timeout=120)

    def apt_calls(self):
        try:
            with open(os.path.join(self.tmp.name, "apt.log")) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def missing_line(self, out):
        line = next(l for l in out.splitlines() if "missing (" in l)
        return line.split(": ", 2)[2].split()

    def test_root_installs_what_is_missing_once(self):
        r = self.run_script("test")
        missing = self.missing_line(r.stdout)
        for p in THROUGH_PATH:
            self.assertIn(p, missing)
        calls = self.apt_calls()
        self.assertEqual(calls[0], "apt-get update -qq")
        self.assertEqual(calls[1].split()[-len(missing):], missing, "installs exactly what was missing")
        self.assertIn("installing with apt-get", r.stdout)
        self.assertIn("installed; all", r.stdout)
        again = self.run_script("test")
        self.assertEqual(again.returncode, r.returncode)
        self.assertIn("dependencies (test) present", again.stdout)
        self.assertEqual(len(self.apt_calls()), 2, "nothing missing: no apt-get call")

    def test_build_set_is_smaller(self):
        r = self.run_script("build")
        missing = self.missing_line(r.stdout)
        self.assertIn("libfmt-dev", missing)
        for p in ("python3-matplotlib", "libbenchmark-dev", "pkg-config"):
            self.assertNotIn(p, missing)

    def test_not_root_prints_the_command_and_fails(self):
        self.uid(1000)
        r = self.run_script("test")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not root, so nothing was installed", r.stdout)
        self.assertRegex(r.stdout, r"\n    su -c '\S+/scripts/install_deps.sh test'\n")
        self.assertEqual(self.apt_calls(), [])
        self.stub("sudo", "#!/bin/sh\nexit 99\n")
        r = self.run_script("test")
        self.assertRegex(r.stdout, r"\n    sudo \S+/scripts/install_deps.sh test\n")

    def test_no_apt(self):
        os.remove(os.path.join(self.bin, "apt-get"))
        r = self.run_script()
        self.assertEqual(r.returncode, 1)
        self.assertIn("no apt-get here", r.stdout)

    def test_check_never_installs(self):
        r = self.run_script("--check")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(self.apt_calls(), [])

    def test_skip_and_list_and_bad_argument(self):
        r = self.run_script(ACS_SKIP_DEPS="1")
        self.assertEqual((r.returncode, self.apt_calls()), (0, []))
        listed = self.run_script("--list").stdout.split()
        self.assertEqual(listed[0], "cmake")
        self.assertIn("python3-matplotlib", listed)
        self.assertNotIn("python3-matplotlib", self.run_script("--list", "build").stdout.split())
        self.assertEqual(self.run_script("--bogus").returncode, 2)

    def test_this_machine_has_everything(self):
        """CI ran the installer before the build: --check must agree that nothing is missing."""
        r = subprocess.run(["bash", SCRIPT, "--check", "test"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
