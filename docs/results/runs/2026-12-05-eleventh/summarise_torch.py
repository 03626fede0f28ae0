#!/usr/bin/env python3
"""Summarises cmd3.sh's rows: per model and mode the median and lower quartile of the per-process
ms, ratios against native, whether every digest equals native's; and a per-process score (the
geometric mean over models of ms / native median), whose distribution shows the machine's
process states."""
import collections
import math
import statistics as st
import sys

rows = collections.defaultdict(lambda: collections.defaultdict(list))
digests = collections.defaultdict(set)
procs = collections.defaultdict(lambda: collections.defaultdict(dict))
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    rows[f["name"]][f["mode"]].append(float(f["ms"]))
    digests[(f["name"], f["mode"])].add(f["sha256"])
    procs[f["mode"]][f["proc"]][f["name"]] = float(f["ms"])


def q1(xs):
    xs = sorted(xs)
    return xs[(len(xs) - 1) // 4]


modes = ["native", "acs", "nobypass"]
print("| model | mode | processes | median ms | x native (median) | lower quartile ms | x native (quartile) | identical |")
print("|---|---|---|---|---|---|---|---|")
for name in rows:
    n = rows[name]["native"]
    for m in modes:
        xs = rows[name][m]
        if not xs:
            continue
        same = digests[(name, m)] == digests[(name, "native")] and len(digests[(name, m)]) == 1
        print(f"| {name} | {m} | {len(xs)} | {st.median(xs):.3f} | x{st.median(n) / st.median(xs):.3f} | "
              f"{q1(xs):.3f} | x{q1(n) / q1(xs):.3f} | {'yes' if same else 'NO'} |")
ref = {name: st.median(rows[name]["native"]) for name in rows}
print()
for m in modes:
    scores = sorted(math.exp(st.mean(math.log(v / ref[k]) for k, v in p.items())) for p in procs[m].values() if p)
    if scores:
        print(f"{m}: {len(scores)} processes, score median {st.median(scores):.3f}, lower quartile {q1(scores):.3f}: "
              + " ".join(f"{s:.2f}" for s in scores))
