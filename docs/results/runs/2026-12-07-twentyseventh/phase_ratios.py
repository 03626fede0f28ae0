#!/usr/bin/env python3
"""Reads gpuM/gpuN's rounds ("ROUND MODE phases k=v ..."): per mode the median of each field, and
the median over rounds of the mode's step_p50 against native's in the same round (paired, so that
a slow spell of the host that lasts a round falls on both). phase_ratios.py FILE"""
import collections
import statistics
import sys

rows = collections.defaultdict(dict)  # round -> mode -> {field: value}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4 or f[2] != "phases":
        continue
    rows[f[0]][f[1]] = {k: float(v) for k, v in (kv.split("=") for kv in f[3:])}
modes = list(dict.fromkeys(m for r in rows.values() for m in r))
for m in modes:
    fields = collections.defaultdict(list)
    for r in rows.values():
        for k, v in r.get(m, {}).items():
            fields[k].append(v)
    paired = [r["native"]["step_p50"] / r[m]["step_p50"] for r in rows.values() if m in r and "native" in r]
    print(f"{m:9} " + " ".join(f"{k}={statistics.median(v):.0f}" for k, v in fields.items()) +
          (f"  x{statistics.median(paired):.3f} of native (paired median of {len(paired)} rounds; "
           f"range x{min(paired):.3f}-x{max(paired):.3f})" if paired else ""))
