#!/usr/bin/env bash
# Sixteenth session: with ACS_RELAY=auto the default (and the relay judged as soon as the program
# waited 16 times), the GPU suite at default settings, then the real-program CSV: native against
# acs at its defaults, every program, 3 interleaved processes per mode (PyTorch included), CPUs
# 2-9, each mode's fastest process. gpuL.sh [SECONDS] (default 575).
set -u
T=${1:-575}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 230 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout" $R/suite.txt | head
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
left=$(( T - ($(date +%s)-t0) - 10 ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/real --budget $((left-5)) --reps 3 --no-warmup \
  --modes native,acs > $R/real.log 2>&1
echo "real rc=$? at $(( $(date +%s)-t0 )) s"; tail -42 $R/real/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
