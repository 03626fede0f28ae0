#!/usr/bin/env bash
# For the session after the sixteenth, with gpuM.sh: the GPU suite at the final code (the relay on
# by default, its earlier verdict, the cgroup CPU limit), then radixSortThrust alone (below x1.00
# in every run so far, with and without the relay), 7 processes per mode, in what is left.
# gpuN.sh [SECONDS] (default 575). CPUs 2-9 for the benchmark; each mode's fastest process.
set -u
T=${1:-575}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout $((T*65/100)) ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout" $R/suite.txt | head
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
left=$(( T - ($(date +%s)-t0) - 5 ))
[ $left -gt 30 ] && ACS_REAL_HARD=$left timeout $((left+3)) scripts/bench_real.sh --out $R/radix --budget $((left-3)) \
  --reps 7 --no-warmup --modes native,acs,acs_disable --mode relay_off:ACS_RELAY=off --only '^radixSortThrust$' > $R/radix.log 2>&1
echo "radix rc=$? at $(( $(date +%s)-t0 )) s"; tail -6 $R/radix/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
