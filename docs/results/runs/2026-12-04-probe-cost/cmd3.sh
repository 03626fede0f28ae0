#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
timeout 230 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite.log 2>&1
tail -25 $R/suite.log > $R/suite_tail.txt
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=300 timeout 320 scripts/bench_real.sh \
  --out $R/torch --budget 290 --reps 4 --only '^torch$' --mode graph:ACS_GRAPH=auto > $R/bench.log 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
