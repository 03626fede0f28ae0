#!/usr/bin/env bash
# The bypass (43e6a59): the GPU suite with it on (the default), then PyTorch pinned to CPUs 2-9:
# native, acs, and acs without the bypass (ACS_BYPASS=0), interleaved, as many processes as fit.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 280 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
L=$PWD/build-gpu/interpose/libacs.so
left=$(( 585 - ($(date +%s)-t0) ))
ACS_REAL_CPUS=2-9 ACS_LIB=$L ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/torch --budget $((left-5)) --reps 12 \
  --only '^torch$' --no-warmup --modes native,acs --mode "nobypass:ACS_BYPASS=0" > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
