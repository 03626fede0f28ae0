#!/usr/bin/env bash
# Everything but PyTorch: JAX, Warp, CuPy, cuda-samples; native, acs, ACS_DISABLE=1, ACS_GRAPH=auto
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=535 timeout 550 scripts/bench_real.sh \
  --out $R/other --budget 525 --only '^(?!torch)' --mode graph:ACS_GRAPH=auto \
  > $R/bench.log 2>&1
tail -40 $R/other/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
