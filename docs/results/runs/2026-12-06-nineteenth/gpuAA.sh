#!/usr/bin/env bash
# Nineteenth session, fourth call, the library of gpuZ (lanes, footprint memo; suite 313/313):
# (1) the short-kernel and 2000-kernel rows of scripts/bench.sh, 9 reps, with ACS_GRAPH_KERNELS=256
#     too; (2) PyTorch (torch_models.py: the torchvision/timm models, the dynamic networks, the
#     training run) natively, under acs, and under acs with ACS_GRAPH=auto: 3 processes per mode,
#     each mode's fastest, CPUs 2-9. gpuAA.sh [SECONDS] (default 560).
set -u
T=${1:-560}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_BENCH_DEADLINE=230 ACS_BENCH_GRAPH_KERNELS=256 \
  timeout 240 taskset -c 2-9 scripts/bench.sh --build build-gpu/benchmarks --no-build --out $R/short --reps 9 \
  --only 'short$|^dynnn-|2000$' > $R/short.log 2>&1
echo "short rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/short/short_kernels.csv 2>/dev/null
grep -E "^\|" $R/short.log | tail -16
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/real --budget $((A-3)) --reps 3 \
  --modes native,acs --mode graph:ACS_GRAPH=auto --only '^torch$' > $R/real.log 2>&1
echo "real rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\||^Host|^- " $R/real/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
