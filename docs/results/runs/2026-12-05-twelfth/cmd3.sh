#!/usr/bin/env bash
# PyTorch rows after the fix: native, acs; 9 interleaved processes per mode, CPUs 2-9, lower quartile.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=lower-quartile
ACS_REAL_HARD=440 timeout 445 scripts/bench_real.sh --out $R/torch --budget 435 --reps 9 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; tail -18 $R/torch/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
