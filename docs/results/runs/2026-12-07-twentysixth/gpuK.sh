#!/usr/bin/env bash
# For the next machine, at this session's final library (the footprint memo reads only the argument
# words inference reads): the GPU suite (cut at 240 s), then host ns per replayed launch
# (scripts/replay_overhead.sh, 3 rounds) against the library before it (.carry/libacs_ffe6d39.so,
# measured in gpuF: 351 ns same arguments, 549 every node updated). The update row's kernel,
# bump(float* p, float v), changes its float at every body, which made every launch a memo miss
# before. gpuK.sh [SECONDS] (default 400).
set -u
T=${1:-400}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
timeout 240 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" \
  -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|\(Failed\)|\*\*\*Timeout" $R/suite.txt | head -20
A=$(( T - ($(date +%s)-t0) - 8 ))
ROUNDS=3 BEFORE=$PWD/.carry/libacs_ffe6d39.so timeout $A taskset -c $CPUS scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
echo "replay at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
