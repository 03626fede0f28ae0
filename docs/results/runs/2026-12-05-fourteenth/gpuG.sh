#!/usr/bin/env bash
# gpuG.sh [SECONDS]: PyTorch at batch 1 only, in what device time is left: native, acs
# and ACS_RELAY=auto (to merge with the thirteenth session's gpuA runs: run_real.py --merge), 5 interleaved processes per mode (CPUs
# 2-9, fast-state estimator), as many as fit SECONDS (default 380).
set -u
T=${1:-380}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fast-state
ACS_REAL_HARD=$T timeout $((T+6)) scripts/bench_real.sh --out $R/torch --budget $((T-8)) --reps 5 --no-warmup \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; tail -24 $R/torch/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
