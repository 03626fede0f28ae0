#!/usr/bin/env bash
# Twentieth session, first call, the library of 5ee0224 (this session's launch-path changes: futex
# recycler, annotations' early return, the memo's predicted entry, the stack key words,
# recent_footprint): (1) the GPU suite; (2) replay_overhead.sh with bodies of 64 and 8 kernels,
# BEFORE= the nineteenth session's final library (build-lib/libacs.so, gpuAB's) as a fourth mode
# of the same rounds; (3) the short-kernel and 2000-kernel rows of scripts/bench.sh in what is left.
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 330 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 \
  --timeout 100 > $R/suite.txt 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $R/suite.txt
echo "== at $(( $(date +%s)-t0 )) s"
export BEFORE=$PWD/build-lib/libacs.so
ROUNDS=3 timeout 90 scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
ROUNDS=3 ARGS="--kernels 8" timeout 90 scripts/replay_overhead.sh build-gpu > $R/ro8.txt 2>&1; cat $R/ro8.txt
unset BEFORE
echo "== at $(( $(date +%s)-t0 )) s"
A=$(( T - ($(date +%s)-t0) - 10 ))
if (( A > 60 )); then
  ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_BENCH_DEADLINE=$((A-8)) ACS_BENCH_GRAPH_KERNELS=256 \
    timeout $A taskset -c 2-9 scripts/bench.sh --build build-gpu/benchmarks --no-build --out $R/short --reps 9 \
    --only 'short$|^dynnn-|2000$' > $R/short.log 2>&1
  echo "short rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/short/short_kernels.csv 2>/dev/null
  grep -E "^\|" $R/short.log | tail -16
fi
cd $OUT && tar czf r.tgz r && rm -rf r
