#!/usr/bin/env bash
# The first call of the twenty-sixth session (the library of ffe6d39 = the twenty-fifth session's):
# the GPU suite (cut at 240 s); host ns per replayed launch (scripts/replay_overhead.sh, 3 rounds)
# against the library before graph_changes (.carry/libacs_head.so, 5abdf3d); then the cuda-samples
# rows, native, acs at its defaults and acs with ACS_GRAPH=auto, 3 processes per mode, medians, on
# the 8 fastest CPUs, with bench_real's ACS_STATS pass. gpuF.sh [SECONDS] (default 560).
set -u
T=${1:-560}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
timeout 240 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" \
  -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|\(Failed\)|\*\*\*Timeout" $R/suite.txt | head -20
ROUNDS=3 BEFORE=$PWD/.carry/libacs_head.so timeout 100 taskset -c $CPUS scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
echo "replay at $(( $(date +%s)-t0 )) s"
A=$(( T - ($(date +%s)-t0) - 8 ))
if (( SLOW <= 8 && A > 60 )); then
  export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
  ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/samples --budget $((A-4)) --reps 3 --no-warmup \
    --modes native,acs --mode graph:ACS_GRAPH=auto --only '^(?!torch$|jax|cupy|warp)' > $R/samples.log 2>&1
  echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/samples/real_programs.md | tail -18
  grep -E "relayed=" $R/samples/real_programs_stats.txt | head -16
else echo "gpuF.sh: the host is slow, or no time is left: no cuda-samples timed"; fi
cd $OUT && tar czf r.tgz r && rm -rf r
