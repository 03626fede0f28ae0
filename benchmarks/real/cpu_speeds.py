#!/usr/bin/env python3
"""How fast each CPU runs the fixed Python loop of run_real.py's host calibration, one CPU at a time.

On the GPU hosts that run the real-program benchmark, a run's host calibration read either about
6 or about 12 ms from one run to the next (2026-12-06, gpuN and gpuO), which moves host-bound rows
(eager PyTorch) by as much as acs does. This tells apart CPUs that are slow (another tenant on
their cores: pick the others) from a host whose speed changes over time (nothing to pick).

    cpu_speeds.py [--cpus LIST] [--rounds N]        a table: one row per CPU, one column per round
    cpu_speeds.py [--cpus LIST] [--rounds N] --pick K
                                                    prints the K CPUs with the lowest median, as
                                                    a list for run_real.py --cpus (ACS_REAL_CPUS)
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_real import host_speed_ms, parse_cpus  # noqa: E402


def cpu_list(cpus):
    """Contiguous runs as ranges: {2, 3, 4, 7} -> '2-4,7'."""
    out, run = [], []
    for c in sorted(cpus):
        if run and c != run[-1] + 1:
            out.append(run)
            run = []
        run.append(c)
    if run:
        out.append(run)
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in out)


def measure(cpus, rounds):
    """{cpu: [ms per round]}: each round visits every CPU once, so that a host whose speed moves
    over time shows it in a column, and a slow CPU in a row."""
    times = {c: [] for c in cpus}
    for _ in range(rounds):
        for c in cpus:
            times[c].append(host_speed_ms({c}))
    return times


def fastest(times, k):
    """The k CPUs with the lowest median time."""
    ranked = sorted(times, key=lambda c: (statistics.median(times[c]), c))
    return set(ranked[:k])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cpus", help="CPUs to time (default: every CPU this process may use)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pick", type=int, help="print the K fastest CPUs instead of the table")
    args = ap.parse_args()
    allowed = os.sched_getaffinity(0)
    cpus = sorted(parse_cpus(args.cpus) if args.cpus else allowed)
    if not set(cpus) <= allowed:
        raise SystemExit(f"cpu_speeds.py: --cpus {args.cpus}: not all of them are available to this process")
    if args.pick is not None and not 1 <= args.pick <= len(cpus):
        raise SystemExit(f"cpu_speeds.py: --pick {args.pick}: between 1 and {len(cpus)}")
    times = measure(cpus, max(1, args.rounds))
    if args.pick is not None:
        print(cpu_list(fastest(times, args.pick)))
        return
    print("cpu  median_ms  per round (ms, the fastest of 3 timings of run_real.py's host loop)")
    for c in cpus:
        print(f"{c:3d}  {statistics.median(times[c]):9.2f}  " + " ".join(f"{t:6.2f}" for t in times[c]))


if __name__ == "__main__":
    main()
