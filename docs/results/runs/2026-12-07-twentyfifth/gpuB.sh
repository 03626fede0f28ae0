#!/usr/bin/env bash
# Second call: PyTorch (14 inference rows, the dynamic networks, the training run), native against
# acs at its defaults, 3 processes per mode, medians, with the ACS_STATS pass; then the GPU suite
# in what is left. gpuB.sh [SECONDS] (default 570).
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
if (( SLOW <= 8 )); then
  ACS_REAL_HARD=300 timeout 305 scripts/bench_real.sh --out $R/torch --budget 296 --reps 3 \
    --modes native,acs --only '^torch$' > $R/torch.log 2>&1
  echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| " $R/torch/real_programs.md | tail -18
  grep -E "relayed=|concurrency" $R/torch/real_programs_stats.txt | head -20
else echo "gpuB.sh: the host is slow: PyTorch not timed"; fi
left=$(( T - ($(date +%s)-t0) - 8 ))
timeout $left ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" \
  -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout" $R/suite.txt | head
cd $OUT && tar czf r.tgz r && rm -rf r
