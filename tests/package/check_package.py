#!/usr/bin/env python3
"""The installed package, one step per CTest test (tests/package/CMakeLists.txt):

  install       cmake --install BUILD --prefix PREFIX into an empty PREFIX, then
                checks every file: the library's SOVERSION links, the headers and
                the generated version, the CMake and pkg-config files, the command;
  find-package  builds consumer/ (C and C++) against PREFIX with find_package(acs),
                runs it without and with LD_PRELOAD=$<TARGET_FILE:acs::acs>;
  pkg-config    the same with pkg-config --cflags --libs acs and its `preload`;
  command       PREFIX/bin/acs finds PREFIX's libacs.so and plot script by itself.

Options: --build --prefix --libdir --version --source --cmake --generator
--cc --cxx --work (a scratch folder).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

MIB = 1 << 20


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(args, env=None, cwd=None, expect=0):
    r = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    if expect is not None and r.returncode != expect:
        fail(f"{' '.join(args)} exited {r.returncode} (expected {expect}):\n{r.stdout}{r.stderr}")
    return r


def no_preload_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ACS_LIB")}
    env.update(extra)
    return env


def step_install(o):
    shutil.rmtree(o.prefix, ignore_errors=True)
    run([o.cmake, "--install", o.build, "--prefix", o.prefix])
    lib = os.path.join(o.prefix, o.libdir)
    major, minor, patch = o.version.split(".")
    soversion = f"0.{minor}" if major == "0" else major
    chain = [("libacs.so", f"libacs.so.{soversion}"), (f"libacs.so.{soversion}", f"libacs.so.{o.version}")]
    for link, target in chain:
        path = os.path.join(lib, link)
        if not os.path.islink(path) or os.readlink(path) != target:
            fail(f"{path} should be a link to {target}")
    real = os.path.join(lib, f"libacs.so.{o.version}")
    if not os.path.isfile(real) or os.path.islink(real) or os.path.getsize(real) < MIB:
        fail(f"{real} is not the library")
    soname = re.search(r"SONAME\)\s+Library soname: \[(.*)\]", run(["readelf", "-d", real]).stdout)
    if not soname or soname.group(1) != f"libacs.so.{soversion}":
        fail(f"SONAME of {real}: {soname and soname.group(1)}, expected libacs.so.{soversion}")
    include = os.path.join(o.prefix, "include", "acs")
    with open(os.path.join(include, "acs.h")) as a, open(os.path.join(o.source, "include", "acs", "acs.h")) as b:
        if a.read() != b.read():
            fail("the installed acs.h differs from include/acs/acs.h")
    with open(os.path.join(include, "version.h")) as f:
        version_h = f.read()
    for name, value in (("MAJOR", major), ("MINOR", minor), ("PATCH", patch), ("STRING", f'"{o.version}"')):
        if not re.search(rf"#define ACS_VERSION_{name} {re.escape(value)}\n", version_h):
            fail(f"version.h does not define ACS_VERSION_{name} {value}")
    for rel in (f"{o.libdir}/cmake/acs/acsConfig.cmake", f"{o.libdir}/cmake/acs/acsConfigVersion.cmake",
                f"{o.libdir}/cmake/acs/acsTargets.cmake", f"{o.libdir}/pkgconfig/acs.pc",
                "share/acs/plot_trace.py", "share/acs/plot_bench.py", "share/acs/python/acs/cli.py"):
        if not os.path.isfile(os.path.join(o.prefix, rel)):
            fail(f"{rel} was not installed")
    if not os.access(os.path.join(o.prefix, "bin", "acs"), os.X_OK):
        fail("bin/acs was not installed as a program")
    for root, dirs, files in os.walk(o.prefix):
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.path.islink(path) and not os.path.exists(path):
                fail(f"{path} is a dangling link")
    with open(os.path.join(lib, "pkgconfig", "acs.pc")) as f:
        if f"prefix={o.prefix}\n" not in f.read():
            fail("acs.pc does not name the prefix given to cmake --install")
    print(f"installed into {o.prefix}: every file present")


def check_consumer_runs(program, preload):
    r = run([program], env=no_preload_env())
    if "acs not loaded" not in r.stdout:
        fail(f"{program} without the preload: {r.stdout}")
    if not os.path.isfile(preload):
        fail(f"the preload library {preload} does not exist")
    r = run([program], env=no_preload_env(LD_PRELOAD=preload))
    if "acs loaded" not in r.stdout:
        fail(f"{program} under LD_PRELOAD={preload} did not reach libacs.so: {r.stdout}{r.stderr}")


def configure(o, folder, version):
    shutil.rmtree(folder, ignore_errors=True)
    return run([o.cmake, "-S", os.path.join(o.source, "tests", "package", "consumer"), "-B", folder,
                "-G", o.generator, f"-DCMAKE_C_COMPILER={o.cc}", f"-DCMAKE_CXX_COMPILER={o.cxx}",
                f"-DCMAKE_PREFIX_PATH={o.prefix}", f"-DACS_EXPECT_VERSION={version}"], expect=None)


def step_find_package(o):
    wrong = configure(o, os.path.join(o.work, "consumer-wrong-version"), "99.0.0")
    if wrong.returncode == 0 or "99.0.0" not in wrong.stdout + wrong.stderr:
        fail("find_package(acs 99.0.0 EXACT) should fail, naming the version")
    folder = os.path.join(o.work, "consumer-cmake")
    r = configure(o, folder, o.version)
    if r.returncode != 0:
        fail(f"configuring the consumer failed:\n{r.stdout}{r.stderr}")
    run([o.cmake, "--build", folder])
    with open(os.path.join(folder, "preload.txt")) as f:
        preload = f.read().strip()
    if not preload.startswith(o.prefix + os.sep):
        fail(f"$<TARGET_FILE:acs::acs> is {preload}, not inside {o.prefix}")
    r = run([os.path.join(folder, "consumer_c")], env=no_preload_env())
    if f"version {o.version} {o.version}\n" not in r.stdout:  # MAJOR.MINOR.PATCH, then the string
        fail(f"consumer_c printed {r.stdout!r}, expected version {o.version}")
    for program in ("consumer_c", "consumer_cxx"):
        check_consumer_runs(os.path.join(folder, program), preload)
    print("find_package(acs): built against the install tree, runs with and without the preload")


def step_pkg_config(o):
    env = no_preload_env(PKG_CONFIG_PATH=os.path.join(o.prefix, o.libdir, "pkgconfig"))
    version = run(["pkg-config", "--modversion", "acs"], env=env).stdout.strip()
    if version != o.version:
        fail(f"pkg-config --modversion acs: {version}, expected {o.version}")
    flags = run(["pkg-config", "--cflags", "--libs", "acs"], env=env).stdout.split()
    if f"-I{o.prefix}/include" not in flags:
        fail(f"pkg-config --cflags acs gave {flags}")
    preload = run(["pkg-config", "--variable=preload", "acs"], env=env).stdout.strip()
    os.makedirs(o.work, exist_ok=True)
    program = os.path.join(o.work, "consumer_pkg_config")
    source = os.path.join(o.source, "tests", "package", "consumer", "main.c")
    run([o.cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", source, "-o", program] + flags, env=env)
    check_consumer_runs(program, preload)
    print(f"pkg-config: {' '.join(flags)}; preload {preload}")


def step_command(o):
    acs = os.path.join(o.prefix, "bin", "acs")
    env = no_preload_env()
    r = run([sys.executable, acs, "--version"], env=env)
    if r.stdout.strip() != f"acs {o.version}":
        fail(f"acs --version: {r.stdout!r}")
    expected = os.path.join(o.prefix, o.libdir, "libacs.so")
    r = run([sys.executable, acs, "run", "--", "sh", "-c", "echo $LD_PRELOAD"], env=env)
    if r.stdout.strip() != expected:
        fail(f"the installed acs preloaded {r.stdout.strip()!r}, not its own {expected}")
    r = run([sys.executable, acs, "doctor"], env=env)
    if f"libacs.so: {expected} (installed)" not in r.stdout:
        fail(f"acs doctor does not name the installed library:\n{r.stdout}")
    r = run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from acs import cli; "
             "print(cli.plot_script())", os.path.join(o.prefix, "share", "acs", "python")], env=env)
    if r.stdout.strip() != os.path.join(o.prefix, "share", "acs", "plot_trace.py"):
        fail(f"the installed acs plot would use {r.stdout.strip()!r}")
    print(f"{acs}: preloads {expected}, plots with share/acs/plot_trace.py")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("step", choices=["install", "find-package", "pkg-config", "command"])
    for name in ("build", "prefix", "libdir", "version", "source", "cmake", "generator", "cc", "cxx", "work"):
        p.add_argument("--" + name)
    o = p.parse_args()
    {"install": step_install, "find-package": step_find_package, "pkg-config": step_pkg_config,
     "command": step_command}[o.step](o)


if __name__ == "__main__":
    main()
