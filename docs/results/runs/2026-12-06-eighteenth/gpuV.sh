#!/usr/bin/env bash
# Eighteenth session, last call, at fcf62fd's library: issue 16's yardstick rows
# (synth-{random,layered,wide}-2000: 2000 kernels of 3 us, 64 wide, one input; scripts/bench.sh,
# 9 reps, with ACS_GRAPH_KERNELS=256 too), then eager PyTorch at batch 1 natively, under acs and
# under acs with ACS_GRAPH=auto, 5 processes per mode, each mode's fastest, in what is left.
# gpuV.sh [SECONDS] (default 560).
set -u
T=${1:-560}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_BENCH_DEADLINE=150 ACS_BENCH_GRAPH_KERNELS=256 \
  timeout 200 taskset -c 2-9 scripts/bench.sh --build build-gpu/benchmarks --no-build --out $R/k2000 --reps 9 \
  --only '2000$' > $R/k2000.log 2>&1
echo "k2000 rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/k2000/short_kernels.csv 2>/dev/null
grep -E "2000" $R/k2000/bench.csv 2>/dev/null | cut -d, -f1,6,7,11-14 | head -40
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
A=$(( T - ($(date +%s)-t0) - 8 ))
[ $A -gt 60 ] && ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/real --budget $((A-3)) --reps 5 --no-warmup \
  --modes native,acs --mode graph:ACS_GRAPH=auto --only '^torch$' > $R/real.log 2>&1
echo "real rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\||^Host|^- " $R/real/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
