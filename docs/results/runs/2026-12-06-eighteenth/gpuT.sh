#!/usr/bin/env bash
# Eighteenth session, second call: graph replay (issue 16) at fcf62fd's library (a replayed
# launch's key hashed in place: 1,946 -> 1,710 instructions on the fake driver).
# (1) scripts/replay_overhead.sh: host ns per launch on the application's thread, natively, acs
#     without graphs, acs with ACS_GRAPH=auto; 5 processes per mode, interleaved;
# (2) the gpu.graph_replay.* tests (ACS_GRAPH=auto) at this library;
# (3) the short-kernel rows of scripts/bench.sh, 9 reps, also with ACS_GRAPH_KERNELS=256
#     (mode acs_graph_k256), in what is left. gpuT.sh [SECONDS] (default 570).
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ROUNDS=5 timeout 120 taskset -c 2-9 scripts/replay_overhead.sh build-gpu > $R/replay_overhead.txt 2>&1
echo "replay_overhead rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/replay_overhead.txt
timeout 150 ctest --test-dir build-gpu -R "^gpu\.graph_replay\." -j 12 --timeout 100 --output-on-failure > $R/graph_tests.txt 2>&1
echo "graph tests rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout" $R/graph_tests.txt | head
left=$(( T - ($(date +%s)-t0) - 10 ))
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_BENCH_DEADLINE=$((left-20)) ACS_BENCH_GRAPH_KERNELS=256 \
  timeout $left taskset -c 2-9 scripts/bench.sh --build build-gpu/benchmarks --no-build --out $R/short --reps 9 \
  --only 'short$|^dynnn-' > $R/short.log 2>&1
echo "short rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/short/short_kernels.csv 2>/dev/null
grep -E "acs_graph" $R/short/bench.csv 2>/dev/null | cut -d, -f1,6,7,11-14 | head -40
cd $OUT && tar czf r.tgz r && rm -rf r
