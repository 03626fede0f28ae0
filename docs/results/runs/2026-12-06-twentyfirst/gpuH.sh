#!/usr/bin/env bash
# Twenty-first session, last command: (1) the GPU suite at the final library (a written range no
# longer listed as read, the held footprints read back from the segment key, detach's copy);
# (2) replay_overhead.sh (bodies of 64 and 8 kernels) with BEFORE= the nineteenth library.
#   gpuH.sh [SECONDS]
set -u
T=${1:-470}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 285 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 \
  --timeout 100 > $R/suite.txt 2>&1
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $R/suite.txt
echo "== suite done at $(( $(date +%s)-t0 )) s"
export BEFORE=$PWD/build-lib/libacs.so
left() { echo $(( T - ($(date +%s)-t0) - 10 )); }
(( $(left) > 60 )) && { ROUNDS=3 timeout $(( $(left) < 90 ? $(left) : 90 )) scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt; }
(( $(left) > 40 )) && { ROUNDS=3 ARGS="--kernels 8" timeout $(( $(left) < 70 ? $(left) : 70 )) scripts/replay_overhead.sh build-gpu > $R/ro8.txt 2>&1; cat $R/ro8.txt; }
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
