#!/usr/bin/env bash
# For the session after the seventeenth, with gpuR.sh: the GPU hosts' CPUs ran at full or half
# speed from one second to the next (cpu_speeds.py, gpuP), so 3 processes per mode gave ratios good
# to about ±10% only. (1) scripts/call_overhead.sh on the GPU, the fastest of 7 rounds (a slow
# round only adds time); (2) PyTorch and CuPy, native / acs / ACS_DISABLE=1, 5 processes per mode,
# each mode's fastest. CPUs 2-9. gpuQ.sh [SECONDS] (default 570).
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 benchmarks/real/cpu_speeds.py --cpus 2-9 --rounds 4 > $R/cpu_speeds.txt 2>&1
VARIANTS="shared static" ROUNDS=7 STAT=min CALLS=5000 timeout 90 taskset -c 2-9 scripts/call_overhead.sh build-gpu > $R/call_overhead_min.txt 2>&1
echo "call_overhead rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/call_overhead_min.txt
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/real --budget $((A-3)) --reps 5 --no-warmup \
  --modes native,acs,acs_disable --only '^(torch|cupy)$' > $R/real.log 2>&1
echo "real rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\||^Host|^- " $R/real/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
