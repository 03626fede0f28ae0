#!/usr/bin/env bash
# Torch rows only: 6 interleaved processes per mode (native, acs, ACS_DISABLE=1, ACS_GRAPH=auto)
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE > $R/clocks_before.txt 2>&1
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=555 timeout 575 scripts/bench_real.sh \
  --out $R/torch --budget 545 --reps 6 --only '^torch$' --mode graph:ACS_GRAPH=auto --stats-mode graph \
  > $R/bench.log 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE > $R/clocks_after.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
