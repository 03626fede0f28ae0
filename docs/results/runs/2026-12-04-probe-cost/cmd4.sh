#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=170 timeout 180 scripts/bench_real.sh \
  --out $R/torch --budget 160 --reps 3 --only '^torch$' > $R/bench.log 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
