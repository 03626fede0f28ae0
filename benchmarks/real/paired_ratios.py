#!/usr/bin/env python3
"""Paired ratios and an A/A bound from one bench_real.sh output (real_programs.json).

run_real.py runs the modes of a repeat one after another (native, acs, ..., then the next
repeat), so repeat i of two modes ran side by side in time. For each row and mode this prints
the mode's speed-up over the base mode, the median over repeats of base_ms[i] / mode_ms[i] (a
slow spell of the host falls on both sides of a pair; > 1: the mode is faster), and beside it
the A/A spread: the same statistic between the base mode's own even and odd
repeats, and between the mode's own. A difference between two modes smaller than the A/A spread
says nothing about them. Processes of one program measure all its rows at once (PyTorch's), so
its rows are not independent evidence.

  paired_ratios.py REAL_PROGRAMS_JSON [--base acs] [--modes graph,...]
"""
import argparse
import json
import statistics
import sys


def paired(base, other):
    """Median over i of base[i] / other[i]: > 1 where `other` is faster. None if they do not line up."""
    if not base or len(base) != len(other) or not all(other):
        return None
    return statistics.median(b / o for b, o in zip(base, other))


def split_halves(xs):
    """The mode against itself: even repeats over the odd ones (paired by position)."""
    even, odd = xs[0::2], xs[1::2]
    n = min(len(even), len(odd))
    return paired(even[:n], odd[:n]) if n else None


def rows_of(results, base, modes):
    out = []
    for r in results:
        ms = {m: pm["ms"] for m, pm in r["modes"].items()}
        if base not in ms:
            continue
        row = {"program": r["program"], "aa_base": split_halves(ms[base]), "modes": {}}
        for m in modes:
            if m in ms:
                row["modes"][m] = (paired(ms[base], ms[m]), split_halves(ms[m]))
        out.append(row)
    return out


def fmt(x):
    return "-" if x is None else f"{x:.3f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--base", default="acs", help="the mode the others are compared with (default acs)")
    ap.add_argument("--modes", help="comma-separated modes (default: all others but acs_stats)")
    a = ap.parse_args(argv)
    data = json.load(open(a.json))
    names = [m for m in data.get("mode_names", []) if m != a.base] if not a.modes else a.modes.split(",")
    rows = rows_of(data["results"], a.base, [m for m in names if m != "acs_stats"])
    modes = sorted({m for r in rows for m in r["modes"]})
    print(f"speed-up = median over repeats i of {a.base} ms[i] / mode ms[i]; A/A: the same between a mode's even "
          "and odd repeats")
    print(f"{'program':22s} {'A/A ' + a.base:>10s} " + " ".join(f"{'x ' + m:>14s} {'A/A ' + m:>10s}" for m in modes))
    for r in rows:
        cells = " ".join(f"{fmt(r['modes'].get(m, (None, None))[0]):>14s} {fmt(r['modes'].get(m, (None, None))[1]):>10s}"
                         for m in modes)
        print(f"{r['program']:22s} {fmt(r['aa_base']):>10s} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
