#!/usr/bin/env bash
# The GPU suite (defaults) with the fourteenth session's changes, then PyTorch at batch 1:
# native, acs, ACS_DISABLE=1 and ACS_RELAY=auto, interleaved, CPUs 2-9, fast-state estimator,
# in the time left, then one ACS_STATS=1 run under the relay (how many launches it relays). gpuH.sh [SECONDS] (default 575).
set -u
T=${1:-575}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; command -v perf py-spy nsys ncu; ls /usr/local/cuda/bin 2>/dev/null | tr "\n" " "; echo
timeout 235 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
left=$(( T - ($(date +%s)-t0) ))
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fast-state
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/torch --budget $((left-5)) --reps 5 --no-warmup \
  --modes native,acs,acs_disable --mode relay:ACS_RELAY=auto --stats-mode relay --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; tail -24 $R/torch/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
