#!/usr/bin/env bash
# PyTorch again (native, acs; 5 processes per mode, medians) and the JAX and CuPy rows (native,
# acs; 3 processes per mode), at this session's library. gpuR.sh [SECONDS] (default 480).
set -u
T=${1:-480}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=200 timeout 204 scripts/bench_real.sh --out $R/torch --budget 196 --reps 5 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/torch/real_programs.md | tail -20
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/jaxcupy --budget $((A-4)) --reps 3 --no-warmup \
  --modes native,acs --only 'jax|cupy' > $R/jaxcupy.log 2>&1
echo "jax/cupy rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/jaxcupy/real_programs.md | tail -20
cd $OUT && tar czf r.tgz r && rm -rf r
