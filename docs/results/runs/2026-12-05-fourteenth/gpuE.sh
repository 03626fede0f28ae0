#!/usr/bin/env bash
# One call for the device time left: PyTorch at batch 1, native, acs and ACS_RELAY=auto, 5
# interleaved processes per mode (CPUs 2-9, fast-state estimator); then the GPU suite under
# ACS_RELAY=auto (as if it were the default) in the time left.
# gpuE.sh [SECONDS]: the whole command's time (default 525): half for each part.
set -u
T=${1:-525}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fast-state
ACS_REAL_HARD=$((T/2)) timeout $((T/2+6)) scripts/bench_real.sh --out $R/torch --budget $((T/2-7)) --reps 5 --no-warmup \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; tail -24 $R/torch/real_programs.md
left=$(( T - ($(date +%s)-t0) ))
ACS_RELAY=auto timeout $left ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 --timeout 100 --output-on-failure > $R/suite_relay_auto.txt 2>&1
echo "suite (ACS_RELAY=auto) rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite_relay_auto.txt | head -20
grep -c "Test *#" $R/suite_relay_auto.txt
cd $OUT && tar czf r.tgz r && rm -rf r
