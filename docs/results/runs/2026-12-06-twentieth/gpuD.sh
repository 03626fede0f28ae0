#!/usr/bin/env bash
# Twentieth session, with the device time that refused starts left (under 260 s): the GPU suite at
# 5ee0224's library but for the PyTorch/Triton framework tests (about 210 s of its 1,290 s of
# test time), which need longer than this command may run. gpuD.sh [SECONDS]
set -u
T=${1:-180}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout $(( T - ($(date +%s)-t0) - 5 )) ctest --test-dir build-gpu -L "preload|gpu" \
  -E "gpu\.bench|preload\.exports|preload\.hook_table|gpu\.frameworks|triton" -j 14 --timeout 100 > $R/suite.txt 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $R/suite.txt
echo "done at $(( $(date +%s)-t0 )) s"
