#!/usr/bin/env bash
# The launch-bound cuda-samples rows (native, acs, "before" = 18ad27c), 7 interleaved processes
# per mode; then PyTorch, native and acs, for what time is left.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
L=$PWD/build-gpu/interpose/libacs.so
ACS_LIB=$L ACS_REAL_HARD=130 timeout 135 scripts/bench_real.sh --out $R/samples --budget 125 --reps 7 --no-warmup \
  --only '^(FDTD3d|sortingNetworks|mergeSort|scan)$' --modes native,acs --mode "before:LD_PRELOAD=$PWD/.carry/old/libacs.so" > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; tail -7 $R/samples/real_programs.md
left=$(( 265 - ($(date +%s)-t0) ))
ACS_LIB=$L ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/torch --budget $((left-5)) --reps 6 \
  --only '^torch$' --no-warmup --modes native,acs > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
