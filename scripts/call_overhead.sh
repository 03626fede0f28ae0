#!/usr/bin/env bash
# Host ns per CUDA call natively, with the hooks alone (ACS_DISABLE=1) and under acs, for the
# programs of benchmarks/overhead/call_overhead.cu (shared and static cudart): medians of
# ROUNDS interleaved runs, and the differences against native.
#   scripts/call_overhead.sh [BUILD_DIR]     default build-device; ROUNDS=5
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-device}
rounds=${ROUNDS:-5}
lib=$build/interpose/libacs.so
tmp=$(mktemp -d)
for variant in shared static; do
  bin=$build/benchmarks/overhead/acs_call_overhead_$variant
  for ((r = 0; r < rounds; r++)); do
    "$bin" >>"$tmp/$variant.native"
    LD_PRELOAD=$lib ACS_DISABLE=1 "$bin" >>"$tmp/$variant.hooks"
    LD_PRELOAD=$lib "$bin" >>"$tmp/$variant.acs"
  done
  python3 - "$tmp" "$variant" <<'PY'
import collections, statistics, sys
tmp, variant = sys.argv[1], sys.argv[2]
def read(mode):
    d = collections.defaultdict(list)
    for line in open(f"{tmp}/{variant}.{mode}"):
        if line.startswith("call="):
            name, ns = line.split()
            d[name[5:]].append(float(ns[3:]))
    return {k: statistics.median(v) for k, v in d.items()}
n, h, a = read("native"), read("hooks"), read("acs")
print(f"{variant} cudart: ns per call, medians of interleaved runs")
print(f"{'call':28s} {'native':>8s} {'hooks':>8s} {'acs':>8s} {'acs-native':>11s}")
for k in n:
    print(f"{k:28s} {n[k]:8.1f} {h.get(k, float('nan')):8.1f} {a.get(k, float('nan')):8.1f} {a.get(k, float('nan')) - n[k]:+11.1f}")
PY
done
rm -rf "$tmp"
