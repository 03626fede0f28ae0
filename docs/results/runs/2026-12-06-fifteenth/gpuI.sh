#!/usr/bin/env bash
# Run right after gpuH.sh on the same warm machine (passed inline to the device; recorded here):
# the GPU suite under ACS_RELAY=auto (as if it were the default), then the cuda-samples rows:
# native, acs, ACS_RELAY=auto, 3 processes per mode, CPUs 2-9, lower quartile.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
ACS_RELAY=auto timeout 235 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 --timeout 100 --output-on-failure > $R/suite_relay_auto.txt 2>&1
echo "suite relay rc=$? at $(( $(date +%s)-t0 ))"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite_relay_auto.txt | head
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=lower-quartile
left=$(( 520 - ($(date +%s)-t0) ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/samples --budget $((left-5)) --reps 3 --no-warmup \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^(?!torch|jax|warp|cupy)' > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 ))"; tail -18 $R/samples/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
