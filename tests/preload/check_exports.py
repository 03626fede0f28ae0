#!/usr/bin/env python3
"""Checks what a preload library exports and what it needs.

  * exported (nm -D --defined-only) = the hooked symbols of the table (all but `pass` lines)
    + dlsym + acs_* names: no C++/std/spdlog/fmt symbol, no stray CUDA name;
  * the runtime hooks carry the symbol version of the toolkit's libcudart (--runtime-library),
    the driver hooks, dlsym and acs_* none (libacs.map says why);
  * with --annotation-header: every acs_v1_* entry point the header documents is exported;
  * no undefined CUDA symbol and no DT_NEEDED on libcuda, libcudart, libspdlog, libfmt;
  * no PLT/GOT relocation against one of its own hook names: acs never calls its own hooks.

Usage: check_exports.py --library libacs.so --dump <hook_table_dump>
                        [--runtime-library libcudart.so] [--annotation-header include/acs/acs.h]
"""
import argparse
import re
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", required=True)
    parser.add_argument("--dump", required=True, help="the hook_table_dump program")
    parser.add_argument("--annotation-header")
    parser.add_argument("--runtime-library")
    args = parser.parse_args()
    problems = []

    hooked = {}
    for line in run(args.dump).splitlines():
        api, symbol, kind = line.split()
        if kind != "pass":
            hooked[symbol] = api

    def versions(library):
        found = {}
        for line in run("nm", "-D", "--defined-only", library).splitlines():
            fields = line.split()
            if len(fields) < 3 or fields[1] == "A":  # "A": a version definition, not a symbol
                continue
            name, _, version = fields[2].partition("@")
            found[name] = version.lstrip("@")
        return found

    exported = versions(args.library)
    defined = set(exported)
    cudart = versions(args.runtime_library) if args.runtime_library else {}
    for symbol, api in sorted(hooked.items()):
        if symbol not in exported:
            continue
        want = cudart.get(symbol, "") if api == "runtime" else ""
        if api == "runtime" and not cudart:
            continue  # no runtime library to compare with
        if exported[symbol] != want:
            problems.append(f"{symbol}: symbol version '{exported[symbol]}', expected '{want}'")
    for symbol in ("dlsym",) + tuple(s for s in defined if s.startswith("acs_")):
        if exported.get(symbol):
            problems.append(f"{symbol}: versioned '{exported[symbol]}', must be unversioned")

    annotation = {s for s in defined if s.startswith("acs_")}
    for symbol in sorted(set(hooked) - defined):
        problems.append(f"hook not exported: {symbol}")
    for symbol in sorted(defined - set(hooked) - annotation - {"dlsym"}):
        problems.append(f"exported but not a hook nor acs_*: {symbol}")

    if args.annotation_header:
        with open(args.annotation_header) as f:
            documented = set(re.findall(r"\bacs_v1_[a-z_]+\b", f.read()))
        documented = {s for s in documented if not s.endswith("_fn")}
        for symbol in sorted(documented - defined):
            problems.append(f"annotation entry point not exported: {symbol}")

    for line in run("nm", "-D", "--undefined-only", args.library).splitlines():
        symbol = line.split()[-1].split("@")[0]
        if re.match(r"(cu|__cuda)", symbol):
            problems.append(f"undefined CUDA symbol (would need libcuda/libcudart at link time): {symbol}")

    for line in run("readelf", "-dW", args.library).splitlines():
        match = re.search(r"\(NEEDED\).*\[(.*)\]", line)
        if match and re.match(r"lib(cuda|cudart|spdlog|fmt)\b", match.group(1)):
            problems.append(f"DT_NEEDED on {match.group(1)}")

    for line in run("readelf", "-rW", args.library).splitlines():
        if "JUMP_SLOT" not in line and "GLOB_DAT" not in line:
            continue
        fields = line.split()
        symbol = fields[4].split("@")[0] if len(fields) >= 5 else ""
        if symbol in hooked or symbol == "dlsym":
            problems.append(f"libacs calls its own hook {symbol} (relocation {fields[2]})")

    print(f"{len(hooked)} hooks, {len(defined)} exported symbols, {len(annotation)} acs_* symbols")
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
