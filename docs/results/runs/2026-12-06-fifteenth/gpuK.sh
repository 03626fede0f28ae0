#!/usr/bin/env bash
# For the session after the fifteenth: what decides whether ACS_RELAY=auto becomes the default.
# The relay with its stop rule (d10d205) against native on every real program: the cuda-samples,
# JAX (with and without command buffers), Warp and CuPy (3 processes per mode), then PyTorch with
# the training row's steady-state timing (5 per mode), then the GPU suite under ACS_RELAY=auto in
# what is left. CPUs 2-9; tables with each mode's fastest process (rerun any estimator with
# `run_real.py --merge DIR --estimator median|fastest|...`). gpuK.sh [SECONDS] (default 575).
set -u
T=${1:-575}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# Where the processes' fast and slow states might come from: SMT siblings among CPUs 2-9, NUMA.
lscpu | grep -E "^(Model name|Thread|Core|Socket|NUMA)" ; for c in 2 3 8 9; do echo "cpu$c siblings $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null)"; done
cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; cat /sys/devices/system/cpu/cpu2/cpufreq/scaling_governor 2>/dev/null
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
A=$((T*43/100)) B=$((T*31/100))  # the others, PyTorch; the suite takes what is left
ACS_REAL_HARD=$A timeout $((A+5)) scripts/bench_real.sh --out $R/others --budget $((A-5)) --reps 3 --no-warmup \
  --modes native --mode relay:ACS_RELAY=auto --stats-mode relay --only '^(?!torch$)' > $R/others.log 2>&1
echo "others rc=$? at $(( $(date +%s)-t0 )) s"; tail -28 $R/others/real_programs.md
ACS_REAL_HARD=$B timeout $((B+5)) scripts/bench_real.sh --out $R/torch --budget $((B-5)) --reps 5 --no-warmup \
  --modes native --mode relay:ACS_RELAY=auto --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; tail -20 $R/torch/real_programs.md
grep -E "^### torch|host calibration" $R/torch/real_programs_runs.log | paste - - | sed 's/: ok, .*calibration (ms, fastest of 5)//' | head -12
left=$(( T - ($(date +%s)-t0) ))
[ $left -gt 30 ] && ACS_RELAY=auto timeout $left ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 --timeout 100 --output-on-failure > $R/suite_relay_auto.txt 2>&1
echo "suite (ACS_RELAY=auto) rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout" $R/suite_relay_auto.txt | head
cd $OUT && tar czf r.tgz r && rm -rf r
