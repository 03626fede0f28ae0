#!/usr/bin/env bash
# Settings compared on three short-kernel rows (GPU machine, programs already built): for each
# setting, synth random (3 us kernels), dynnn condconv and drl ant (work 1) run serially under
# the preload, 5 reps each; prints the median ms, then the counters of one ACS_STATS=1 run.
# One process per setting and row: where a stream steps aside depends on the run, so repeat
# the command before trusting a difference of less than about 20%.
#   scripts/settings_short.sh "ACS_GRAPH=off" "ACS_GRAPH=auto ACS_GRAPH_ASIDE=1" ...
# Environment: BUILD (default build-gpu: its interpose/libacs.so and benchmarks/gpu programs).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build-gpu}
lib=$build/interpose/libacs.so bin=$build/benchmarks/gpu
[ -e "$lib" ] && [ -x "$bin/acs_bench_synth" ] || { echo "settings_short.sh: build $build first"; exit 1; }
cycles=$("$bin/acs_bench_synth" --print-clock) || { echo "settings_short.sh: no GPU clock"; exit 1; }
for setting in "$@"; do
  for w in "synth --workload random --kernel-us 3" "dynnn --workload condconv" "drl --workload ant --work 1"; do
    set -- $w
    program=$1
    shift
    common=("$@" --variants serial --reps 5 --cycles-per-us "$cycles")
    # shellcheck disable=SC2086  # the setting is a list of VAR=VALUE words
    ms=$(env $setting LD_PRELOAD="$lib" ACS_INFER=alloc timeout 60 "$bin/acs_bench_$program" "${common[@]}" 2>&1 |
      awk '/ serial .*median/ {for (i = 1; i < NF; ++i) if ($i == "median") {print $(i + 1); exit}}')
    # shellcheck disable=SC2086
    counters=$(env $setting LD_PRELOAD="$lib" ACS_INFER=alloc ACS_STATS=1 timeout 60 "$bin/acs_bench_$program" \
      "${common[@]}" 2>&1 | grep -E '^acs-stats:' | tr ' ' '\n' |
      grep -E '^(dispatched|passed|graph_kernels|graph_replays)=' | tr '\n' ' ')
    echo "$setting | $w | median ${ms:-FAILED} ms | $counters"
  done
done
