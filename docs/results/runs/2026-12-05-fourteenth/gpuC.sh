#!/usr/bin/env bash
# PyTorch at batch 1 (eager, host-bound): native, acs, acs_disable (everything passed through), ACS_PTX=0 (no code analysis) and
# acs with ACS_RELAY=auto; 5 interleaved processes per mode, CPUs 2-9, fast-state estimator.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fast-state
ACS_REAL_HARD=480 timeout 490 scripts/bench_real.sh --out $R/torch --budget 470 --reps 5 --no-warmup \
  --modes native,acs,acs_disable --mode relay:ACS_RELAY=auto --mode ptx0:ACS_PTX=0 --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; tail -24 $R/torch/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
