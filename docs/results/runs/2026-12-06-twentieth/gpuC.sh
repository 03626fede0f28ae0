#!/usr/bin/env bash
# Twentieth session (the device was scarce: gpuA and gpuB never started; this is both, shortened):
# (1) the GPU suite at 5ee0224's library (this session's launch-path changes);
# (2) replay_overhead.sh, bodies of 64 and 8 kernels, BEFORE= the nineteenth session's library;
# (3) gpuB.sh's PyTorch diagnosis (native / acs / ACS_RELAY=off on CPU sets) in what is left.
set -u
T=${1:-575}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout $(( T - 40 < 330 ? T - 40 : 330 )) ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 \
  --timeout 100 > $R/suite.txt 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $R/suite.txt
echo "== at $(( $(date +%s)-t0 )) s"
export BEFORE=$PWD/build-lib/libacs.so
left() { echo $(( T - ($(date +%s)-t0) - 10 )); }
(( $(left) > 60 )) && { ROUNDS=3 timeout $(( $(left) < 80 ? $(left) : 80 )) scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt; }
(( $(left) > 50 )) && { ROUNDS=3 ARGS="--kernels 8" timeout $(( $(left) < 60 ? $(left) : 60 )) scripts/replay_overhead.sh build-gpu > $R/ro8.txt 2>&1; cat $R/ro8.txt; }
unset BEFORE
echo "== at $(( $(date +%s)-t0 )) s"
A=$(( T - ($(date +%s)-t0) - 12 ))
(( A > 70 )) && OUT=$R/torch bash docs/results/runs/2026-12-06-twentieth/gpuB.sh $A
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
