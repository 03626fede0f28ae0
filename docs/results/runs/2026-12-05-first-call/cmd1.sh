#!/usr/bin/env bash
# The GPU suite at this commit, then the PyTorch rows: native, acs, and the library this session
# started from ("before", 18ad27c, .carry/old); interleaved processes, as many as the time allows.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 280 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
left=$(( 585 - ($(date +%s)-t0) ))
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh \
  --out $R/torch --budget $((left-5)) --reps 4 --only '^torch$' --no-warmup --modes native,acs \
  --mode "before:LD_PRELOAD=$PWD/.carry/old/libacs.so" > $R/bench.log 2>&1
echo "bench rc=$? at $(( $(date +%s)-t0 )) s"
tail -18 $R/torch/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
