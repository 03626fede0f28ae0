#!/usr/bin/env bash
# gpuD.sh [SUITE_S] [SECONDS] (default 170 and 560): the thirty-first session's first call where the
# device is hard to get. (1) The GPU tests its and the thirtieth session's changes touch (graph
# replay, whose gpu.graph_replay.* tests run under ACS_GRAPH=auto and now sample after barren
# segments; the frameworks, which load and unload code; the preload and error tests), cut at
# SUITE_S; (2) the training's condition calls with the value before (an unload now forgets only
# its own code's attribute values); (3) scripts/replay_overhead.sh with the row `fresh` (no segment
# recurs): graphs with sampling (`graph`) against ACS_GRAPH_SAMPLE=0 (`before`) and graphs off
# (`acs`), 3 interleaved processes each; (4) whether the driver's updates of distinct graph
# executables scale over threads (acs_graph_update_threads, 2 and 4 executables, 3 processes each),
# and how often the application waited for the updating thread per replay row (ACS_STATS);
# (5) sortingNetworks (native, acs, no first probe, no PTX) while SECONDS last. Carry [".carry/build-gpu.tgz", ".carry/real-bin", ".real-warp"].
set -u
S=${1:-170} T=${2:-560}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
source docs/results/runs/2026-12-07-thirtyfirst/steps.sh
suite_subset $S
condition_calls
ROUNDS=3 BEFORE=$ACS_LIB BEFORE_ENV=ACS_GRAPH_SAMPLE=0 timeout 150 taskset -c $CPUS scripts/replay_overhead.sh build-gpu \
  > $R/replay_overhead.txt 2>&1
echo "replay_overhead rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/replay_overhead.txt
# Whether the application waits for issuing thread 0 where every node is updated: its waits per row.
for row in same update fresh; do
  LD_PRELOAD=$ACS_LIB ACS_GRAPH=auto ACS_STATS=1 timeout 60 taskset -c $CPUS build-gpu/benchmarks/overhead/acs_replay_overhead \
    --only $row 2>&1 | grep -o "row=.*\|issue_waits=[0-9]*\|relay_waits=[0-9]*\|graph_relayed=[0-9]*\|graph_replays=[0-9]*\|graph_skimmed=[0-9]*" |
    tr '\n' ' '; echo
done | tee $R/replay_waits.txt
for e in 2 4 2 4 2 4; do
  timeout 30 taskset -c $CPUS build-gpu/benchmarks/overhead/acs_graph_update_threads --graphs $e | sed "s/^/graphs=$e /"
done | tee $R/graph_update_threads.txt
echo "graph_update_threads at $(( $(date +%s)-t0 )) s"
sorting_modes $(( T - ($(date +%s)-t0) - 8 ))
cd $OUT && tar czf r.tgz r && rm -rf r
