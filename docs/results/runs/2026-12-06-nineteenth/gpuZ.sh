#!/usr/bin/env bash
# Nineteenth session, third call, the library with lanes (ACS_GRAPH_WIDTH=8) and the footprint
# memo (annotations/inferred/inference_memo.hpp): the GPU suite, then replay_overhead.sh with
# bodies of 64 and 8 kernels.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 360 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 \
  --timeout 100 > $R/suite.txt 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $R/suite.txt
echo "== at $(( $(date +%s)-t0 )) s"
ROUNDS=3 scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
ROUNDS=3 ARGS="--kernels 8" scripts/replay_overhead.sh build-gpu > $R/ro8.txt 2>&1; cat $R/ro8.txt
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
