#!/usr/bin/env bash
# For the session after the seventeenth, with gpuQ.sh: the cuda-samples, JAX and Warp rows,
# native / acs / ACS_DISABLE=1, 5 processes per mode, each mode's fastest, with the warm-up runs
# (on a fresh machine Warp compiles its kernels in its first run: gpuO's native Warp runs ran out
# of time without them). CPUs 2-9. gpuR.sh [SECONDS] (default 570).
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/real --budget $((A-3)) --reps 5 \
  --modes native,acs,acs_disable --only '^(?!torch$|cupy$)' > $R/real.log 2>&1
echo "real rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\||^Host|^- " $R/real/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
