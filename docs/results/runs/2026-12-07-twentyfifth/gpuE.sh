#!/usr/bin/env bash
# The last try, with under 6 minutes of device time left: the GPU tests of graphs (the program's own
# and acs's replay: ctest -R graph) at this library, then replay A/B (scripts/replay_overhead.sh,
# 64-kernel bodies, 3 rounds, against .carry/libacs_head.so). gpuE.sh [SECONDS] (default 240).
set -u
T=${1:-240}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
timeout $((T * 55 / 100)) ctest --test-dir build-gpu -L "preload|gpu" -R graph -E "gpu\.bench" -j 14 --timeout 100 \
  --output-on-failure > $R/suite_graph.txt 2>&1
echo "graph tests rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|\(Failed\)|\*\*\*Timeout" $R/suite_graph.txt | head
left=$(( T - ($(date +%s)-t0) - 5 ))
ROUNDS=3 BEFORE=$PWD/.carry/libacs_head.so timeout $left taskset -c $CPUS scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
echo "replay at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
