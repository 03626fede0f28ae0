#!/usr/bin/env bash
# PyTorch rows (native, acs), 3 processes per mode, medians, on the 8 fastest CPUs, at this
# session's library, for the real-program table. gpuQ.sh [SECONDS] (default 450).
set -u
T=${1:-450}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/torch --budget $((A-4)) --reps 3 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/torch/real_programs.md | tail -20
cd $OUT && tar czf r.tgz r && rm -rf r
