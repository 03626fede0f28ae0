#!/usr/bin/env bash
# Eighteenth session, last call, at fcf62fd's library (the carry also holds replay_overhead's new
# `captured` row): (1) scripts/replay_overhead.sh, 5 processes per mode, with the default segments
# of 64 kernels and with ACS_GRAPH_KERNELS=16 and 8 (gpuU: 1.9 us per replayed launch with bodies of
# 64 kernels, 0.75 with bodies of 8: how much is the driver's graph launch, the `captured` row);
# (2) gpu.examples.kernel_rule, the one test gpuU's suite did not reach before its time limit;
# (3) issue 16's yardstick rows, synth-{random,layered,wide}-2000 (2000 kernels of 3 us, 64 wide,
# one input; scripts/bench.sh, 9 reps, with ACS_GRAPH_KERNELS=256 too). gpuV.sh [SECONDS] (default 420).
set -u
T=${1:-420}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for k in 64 16 8; do
  ACS_GRAPH_KERNELS=$k ROUNDS=5 timeout 90 taskset -c 2-9 scripts/replay_overhead.sh build-gpu > $R/replay_overhead_seg$k.txt 2>&1
  echo "== ACS_GRAPH_KERNELS=$k rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/replay_overhead_seg$k.txt
done
timeout 60 ctest --test-dir build-gpu -R "^gpu\.examples\.kernel_rule$" --output-on-failure > $R/kernel_rule.txt 2>&1
echo "kernel_rule rc=$?"; grep -E "tests passed|Failed" $R/kernel_rule.txt
left=$(( T - ($(date +%s)-t0) - 15 ))
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_BENCH_DEADLINE=$((left-40)) ACS_BENCH_GRAPH_KERNELS=256 \
  timeout $left taskset -c 2-9 scripts/bench.sh --build build-gpu/benchmarks --no-build --out $R/k2000 --reps 9 \
  --only '2000$' > $R/k2000.log 2>&1
echo "k2000 rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/k2000/short_kernels.csv 2>/dev/null
grep -E "2000" $R/k2000/bench.csv 2>/dev/null | cut -d, -f1,6,7,11-14 | head -40
cd $OUT && tar czf r.tgz r && rm -rf r
