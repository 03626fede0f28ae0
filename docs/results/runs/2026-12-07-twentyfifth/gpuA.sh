#!/usr/bin/env bash
# First call: on a quiet host, radixSortThrust per sort (native, acs, never probed; the
# twenty-fourth session's radix_iters.sh); host ns per replayed launch (scripts/replay_overhead.sh,
# 64-kernel bodies) against the library before this session's graph_changes (.carry/libacs_head.so,
# 5abdf3d); then every real program but PyTorch (cuda-samples, JAX, Warp, CuPy), native against acs
# at its defaults, 3 processes per mode, medians, on the 8 fastest CPUs, with bench_real's ACS_STATS
# pass. gpuA.sh [SECONDS] (default 570).
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
if (( SLOW > 8 )); then echo "gpuA.sh: the host is slow: nothing measured"; cd $OUT && tar czf r.tgz r && rm -rf r; exit 0; fi
TAG=/radix MODES="native acs noprobe" ROUNDS=8 timeout 60 bash docs/results/runs/2026-12-07-twentyfourth/radix_iters.sh 2>&1 | head -12
ROUNDS=3 BEFORE=$PWD/.carry/libacs_head.so timeout 100 taskset -c $CPUS scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
echo "replay at $(( $(date +%s)-t0 )) s"
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/others --budget $((A-4)) --reps 3 \
  --modes native,acs --only '^(?!torch$)' > $R/others.log 2>&1
echo "others rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| " $R/others/real_programs.md | tail -26
grep -E "relayed=|skipped" $R/others/real_programs_stats.txt $R/others/real_programs.md | head -30
cd $OUT && tar czf r.tgz r && rm -rf r
