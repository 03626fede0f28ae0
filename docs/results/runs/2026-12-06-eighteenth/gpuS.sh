#!/usr/bin/env bash
# Eighteenth session, first call: the GPU suite at aaa7c3e's library (the relay's cgroup CPU check moved
# off the program's launches in 8f04f4f, not yet run on a GPU),
# then the cuda-samples that time their first launches (scan, FDTD3d, convolutionSeparable,
# mergeSort, sortingNetworks, radixSortThrust), native / acs / ACS_RELAY=off, 7 processes per
# mode, in what is left. Then gpuQ.sh. gpuS.sh [SECONDS] (default 570).
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout $((T*60/100)) ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout" $R/suite.txt | head
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
left=$(( T - ($(date +%s)-t0) - 6 ))
[ $left -gt 30 ] && ACS_REAL_HARD=$left timeout $((left+3)) scripts/bench_real.sh --out $R/short --budget $((left-3)) \
  --reps 7 --no-warmup --modes native,acs --mode relay_off:ACS_RELAY=off \
  --only '^(scan|FDTD3d|convolutionSeparable|mergeSort|sortingNetworks|radixSortThrust)$' > $R/short.log 2>&1
echo "short rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\||^Host" $R/short/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
