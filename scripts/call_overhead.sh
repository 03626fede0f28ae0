#!/usr/bin/env bash
# Host ns per CUDA call natively, with the hooks alone (ACS_DISABLE=1) and under acs: medians of
# ROUNDS interleaved runs, and the differences against native.
#   shared, static  benchmarks/overhead/call_overhead.cu with shared and static cudart (a GPU)
#   fake            benchmarks/cpu/call_overhead_fake.cpp on the fake driver of tests/preload
#                   (and a `graph` column: ACS_GRAPH=auto ACS_STEP_ASIDE=0, the fake offering graphs):
#                   no GPU needed; the fake's own times are not a driver's, so only acs-native
#                   (what acs adds to each call, on the application's thread) means anything.
#                   ACS_ISSUE=inline puts the issuing on that thread too (the fake's launches
#                   are too cheap for a hand-off to another thread to pay)
# A variant whose program was not built (no GPU, or no CUDA compiler; tests or benchmarks off)
# is skipped with a line saying so.
# no-bypass: acs with ACS_BYPASS=0 (every call takes acs's path; src/support/bypass.hpp).
# COLD=KB (fake only): the program walks KB kilobytes of memory between two calls and times each
# call alone (--cold): acs's cost where a framework's own host code evicts it from the caches
# between launches (4096 evicts this 2-core machine's 2 MiB L2 per core: the hot loop's +70 ns
# launch costs about +550 ns there).
# The fake rows also time each of a new process's first 512 launches (--first 512: their mean and
# the slowest), with two idle threads alive as in a CUDA process: a one-time cost on the
# application's thread shows there, not in any loop.
# VARIANTS="shared static" runs only those; CALLS=N calls per loop (the programs' default: 20000);
# STAT=min takes each call's fastest round instead of the median (where the host's CPUs run at
# full or half speed from one second to the next, as the GPU hosts' did on 2026-12-06: a slow
# round only ever adds time).
#   scripts/call_overhead.sh [BUILD_DIR]     default build-device; ROUNDS=5
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-device}
rounds=${ROUNDS:-5}
lib=$build/interpose/libacs.so
tmp=$(mktemp -d)
stat=${STAT:-median}
[[ $stat == median || $stat == min ]] || { echo "call_overhead.sh: STAT=$stat: expected median or min" >&2; exit 2; }
for variant in ${VARIANTS:-shared static fake}; do
  bin=$build/benchmarks/overhead/acs_call_overhead_$variant
  env=()
  if [[ $variant == fake ]]; then
    bin=$build/benchmarks/cpu/acs_call_overhead_fake
    # The fake libcuda first, also where LD_LIBRARY_PATH names a real driver. Its kernel has no
    # PTX: its footprint is read from its arguments (ACS_NO_PTX=arguments), or every launch
    # would conflict with every other and none would reach the pool.
    env=(LD_LIBRARY_PATH="$build/tests/preload/fake_driver${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
         ACS_NO_PTX=arguments)
  fi
  if [[ ! -x $bin ]]; then
    echo "$variant: $bin was not built: skipped"
    continue
  fi
  args=(${CALLS:+--calls "$CALLS"})
  if [[ -n ${COLD:-} ]]; then
    [[ $variant == fake ]] || { echo "$variant: COLD is for the fake rows only: skipped"; continue; }
    args=(--cold "$COLD" --calls 2000 --reps 5)
  fi
  : >"$tmp/$variant.graph"
  for ((r = 0; r < rounds; r++)); do
    env "${env[@]}" "$bin" "${args[@]}" >>"$tmp/$variant.native"
    env "${env[@]}" LD_PRELOAD="$lib" ACS_DISABLE=1 "$bin" "${args[@]}" >>"$tmp/$variant.hooks"
    env "${env[@]}" LD_PRELOAD="$lib" "$bin" "${args[@]}" >>"$tmp/$variant.acs"
    env "${env[@]}" LD_PRELOAD="$lib" ACS_BYPASS=0 "$bin" "${args[@]}" >>"$tmp/$variant.nobypass"
    if [[ $variant == fake ]]; then
      env "${env[@]}" "$bin" --first 512 >>"$tmp/$variant.native"
      env "${env[@]}" LD_PRELOAD="$lib" ACS_DISABLE=1 "$bin" --first 512 >>"$tmp/$variant.hooks"
      env "${env[@]}" LD_PRELOAD="$lib" "$bin" --first 512 >>"$tmp/$variant.acs"
      env "${env[@]}" LD_PRELOAD="$lib" ACS_BYPASS=0 "$bin" --first 512 >>"$tmp/$variant.nobypass"
    fi
    # The fake driver offers graphs on request: the application thread's cost with graph replay.
    if [[ $variant == fake ]]; then
      env "${env[@]}" FAKE_CUDA_GRAPHS=1 LD_PRELOAD="$lib" ACS_GRAPH=auto ACS_STEP_ASIDE=0 "$bin" "${args[@]}" >>"$tmp/$variant.graph"
    fi
  done
  python3 - "$tmp" "$variant" "$stat" <<'PY'
import collections, statistics, sys
tmp, variant, stat = sys.argv[1], sys.argv[2], sys.argv[3]
pick = min if stat == "min" else statistics.median
def read(mode):
    d = collections.defaultdict(list)
    for line in open(f"{tmp}/{variant}.{mode}"):
        if line.startswith("call="):
            name, ns = line.split()
            d[name[5:]].append(float(ns[3:]))
    return {k: pick(v) for k, v in d.items()}
n, h, a, b, g = read("native"), read("hooks"), read("acs"), read("nobypass"), read("graph")
print(f"{variant}: ns per call, {'fastest' if stat == 'min' else 'medians'} of interleaved runs" + (" (the fake driver: only acs-native means anything)" if variant == "fake" else " (cudart)"))
graph = f" {'graph':>8s} {'graph-native':>13s}" if g else ""
print(f"{'call':28s} {'native':>8s} {'hooks':>8s} {'acs':>8s} {'acs-native':>11s} {'no-bypass':>10s} {'no-bypass-native':>17s}" + graph)
for k in n:
    line = (f"{k:28s} {n[k]:8.1f} {h.get(k, float('nan')):8.1f} {a.get(k, float('nan')):8.1f} {a.get(k, float('nan')) - n[k]:+11.1f}"
            f" {b.get(k, float('nan')):10.1f} {b.get(k, float('nan')) - n[k]:+17.1f}")
    if g:
        line += f" {g.get(k, float('nan')):8.1f} {g.get(k, float('nan')) - n[k]:+13.1f}"
    print(line)
PY
done
rm -rf "$tmp"
