#!/usr/bin/env bash
# The cuda-samples (native, acs, ACS_GRAPH=auto), 5 processes per mode, medians, on the 8 fastest
# CPUs, at this session's library (the same libacs.so as gpuM-gpuO). gpuP.sh [SECONDS] (default 500).
set -u
T=${1:-500}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/samples --budget $((A-4)) --reps 5 --no-warmup \
  --modes native,acs --mode graph:ACS_GRAPH=auto --only '^(?!torch$|jax|cupy|warp)' > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/samples/real_programs.md | tail -18
cd $OUT && tar czf r.tgz r && rm -rf r
