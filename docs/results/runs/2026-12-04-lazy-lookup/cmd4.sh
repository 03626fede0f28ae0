#!/usr/bin/env bash
# The launch-bound cuda-samples rows at this commit: native, acs, ACS_DISABLE=1, and the build before it ("before")
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
left=$(( 330 - ($(date +%s)-t0) ))
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh \
  --out $R/samples --budget $((left-5)) --reps 7 --only '^(FDTD3d|sortingNetworks|mergeSort|scan)$' \
  --mode "before:LD_PRELOAD=$PWD/.carry/old/libacs.so" > $R/bench.log 2>&1
echo "bench rc=$? at $(( $(date +%s)-t0 )) s"
tail -12 $R/samples/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
