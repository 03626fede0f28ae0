#!/usr/bin/env bash
# Third call (same warm machine as gpuL and gpuK; carry .carry and .real-src, the cuda-samples
# binaries built here by benchmarks/real/build_cuda_samples.py): the cuda-samples rows, native / acs /
# ACS_GRAPH=auto / ACS_DISABLE=1, 3 interleaved processes per mode, paired ratios.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=330 timeout 335 scripts/bench_real.sh --out $R/cs --budget 325 --reps 3 --modes native,acs \
  --mode graph:ACS_GRAPH=auto --mode disable:ACS_DISABLE=1 --only '^(?!torch$|jax|cupy|warp)' > $R/cs.log 2>&1
grep -E "^\||^Host" $R/cs/real_programs.md
python3 benchmarks/real/paired_ratios.py $R/cs/real_programs.json --base native --modes acs,graph,disable 2>&1 | tail -20
cd $OUT && tar czf r.tgz r && rm -rf r
