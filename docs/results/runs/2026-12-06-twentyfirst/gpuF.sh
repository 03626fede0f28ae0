#!/usr/bin/env bash
# Twenty-first session, one command for a scarce device: (1) the GPU suite at this session's
# library (the carried build-gpu); (2) gpuE.sh (PyTorch's two states, with thread placement) in
# what is left; (3) replay_overhead.sh against the nineteenth library if time remains.
#   gpuF.sh [SECONDS]
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 300 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 \
  --timeout 100 > $R/suite.txt 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $R/suite.txt
echo "== suite done at $(( $(date +%s)-t0 )) s"
A=$(( T - ($(date +%s)-t0) - 15 ))
(( A > 60 )) && OUT=$R/torch bash docs/results/runs/2026-12-06-twentyfirst/gpuE.sh $A
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
