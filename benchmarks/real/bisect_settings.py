#!/usr/bin/env python3
"""Which of acs's settings costs time on a few small cuda-samples: each program's own time
line (or, for two of them, the whole process's wall time), natively and under LD_PRELOAD=libacs.so with each setting, interleaved, medians of
--reps runs, printed as native / mode ratios. A quick complement to scripts/bench_real.sh
(which it does not replace: no output digests, no warm-up).

    benchmarks/real/bisect_settings.py --lib build/interpose/libacs.so --bin .real-src/bin \\
        [--reps 3] [--mode NAME:VAR=VAL,...]...

The cuda-samples are those scripts/bench_real.sh builds (benchmarks/real/cuda_samples.toml).
"""
import argparse
import os
import re
import statistics
import subprocess
import time

# name -> (arguments, regex of the time or rate (None: the process's wall time, start-up and
# exit included), True when the regex reads a rate)
PROGRAMS = {
    "mergeSort": ([], r"^Time: ([0-9.]+) ms", False),
    "radixSortThrust": ([], r"Throughput = ([0-9.]+) MElements/s", True),
    "sortingNetworks": ([], r"Average time: ([0-9.]+) ms", False),
    "FDTD3d": (["-dimx=128", "-dimy=128", "-dimz=128", "-timesteps=10"], r"Throughput = ([0-9.]+) MPoints/s", True),
    # Whole processes: what acs costs at start and exit (hardware queues, code reading, threads).
    "conjugateGradient": ([], None, False),
    "simpleCooperativeGroups_shared": ([], None, False),
}
DEFAULT_MODES = ["acs:", "disable:ACS_DISABLE=1", "queues16:ACS_CONNECTIONS=16", "start_redirected:ACS_START_ASIDE=0", "aside_off:ACS_STEP_ASIDE=0",
                 "ptx_off:ACS_PTX=0", "infer_off:ACS_INFER=off", "inline:ACS_ISSUE=inline"]


def parse_mode(text):
    name, _, assignments = text.partition(":")
    env = dict(a.split("=", 1) for a in assignments.split(",") if a)
    return name, env


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--bin", required=True, help="folder of the built cuda-samples")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="", help="regex of the programs to run (default: all)")
    ap.add_argument("--mode", action="append", help="NAME:VAR=VAL,... (default: a set of settings)")
    args = ap.parse_args()
    modes = [("native", None)] + [parse_mode(m) for m in (args.mode or DEFAULT_MODES)]
    for name, (extra, rx, is_rate) in PROGRAMS.items():
        if not re.search(args.only, name):
            continue
        cmd = [os.path.join(args.bin, name)] + extra
        if not os.access(cmd[0], os.X_OK):
            print(f"{name}: not built in {args.bin}: skipped")
            continue
        times = {m: [] for m, _ in modes}
        for _ in range(args.reps):
            for m, env_extra in modes:
                env = dict(os.environ)
                if env_extra is not None:
                    env["LD_PRELOAD"] = os.path.abspath(args.lib)
                    env.update(env_extra)
                started = time.perf_counter()
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120).stdout
                wall_ms = (time.perf_counter() - started) * 1e3
                # Every match counts, as in scripts/bench_real.sh (sortingNetworks prints one
                # time per array length; the first includes each kernel's first launch).
                found = [float(v) for v in re.findall(rx, out, re.M)] if rx is not None else []
                if rx is None:
                    value = wall_ms
                elif not found:
                    value = float("nan")
                else:
                    value = sum(1e3 / v for v in found) if is_rate else sum(found)
                times[m].append(value)
        base = statistics.median(times["native"])
        cells = [f"{m}={statistics.median(v):.4g} (x{base / statistics.median(v):.2f})" for m, v in times.items()]
        print(name, " ".join(cells), flush=True)


if __name__ == "__main__":
    main()
