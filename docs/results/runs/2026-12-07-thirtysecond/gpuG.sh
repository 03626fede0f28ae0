#!/usr/bin/env bash
# gpuG.sh [SECONDS] (default 580): one call for a session whose device is hard to get: the GPU tests
# that the thirtieth to thirty-second sessions' changes touch (graph replay, frameworks, preload,
# errors; 150 s), the replay host cost with and without sampling and the application's waits for
# issuing thread 0 (../2026-12-07-thirtyfirst/gpuD.sh's middle part), whether graph updates scale
# over threads, then the 2000-kernel rows' issue time against the GPU's (layered and wide, 4 modes,
# one round), then sortingNetworks' probe modes with what is left.
# Carry [".carry/build-gpu.tgz", ".carry/real-bin", ".real-warp"].
set -u
T=${1:-580}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
source docs/results/runs/2026-12-07-thirtyfirst/steps.sh
suite_subset 150
ROUNDS=3 BEFORE=$ACS_LIB BEFORE_ENV=ACS_GRAPH_SAMPLE=0 timeout 120 taskset -c $CPUS scripts/replay_overhead.sh build-gpu \
  > $R/replay_overhead.txt 2>&1
echo "replay_overhead rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/replay_overhead.txt
for row in same update fresh; do
  LD_PRELOAD=$ACS_LIB ACS_GRAPH=auto ACS_STATS=1 timeout 40 taskset -c $CPUS build-gpu/benchmarks/overhead/acs_replay_overhead \
    --only $row 2>&1 | grep -o "row=.*\|issue_waits=[0-9]*\|relay_waits=[0-9]*\|graph_relayed=[0-9]*\|graph_replays=[0-9]*\|graph_skimmed=[0-9]*" |
    tr '\n' ' '; echo
done | tee $R/replay_waits.txt
for e in 2 4 2 4; do
  timeout 20 taskset -c $CPUS build-gpu/benchmarks/overhead/acs_graph_update_threads --graphs $e | sed "s/^/graphs=$e /"
done | tee $R/graph_update_threads.txt
echo "graph_update_threads at $(( $(date +%s)-t0 )) s"
bin=build-gpu/benchmarks/gpu/acs_bench_synth
cycles=$("$bin" --print-clock 2>/dev/null | grep -o '[0-9.]*' | head -1)
for shape in layered wide; do
  common=(--workload $shape --kernel-us 3 --nodes 2000 --width 64 --inputs 1 --reps 5 --csv $R/k2000.csv
          --cycles-per-us "$cycles" --config "synth-$shape-2000")
  timeout 40 taskset -c $CPUS "$bin" "${common[@]}" --variants serial,graph --mode plain | grep -E "median" | sed "s/^/$shape plain /"
  for m in k64w8: k256w32:ACS_GRAPH_KERNELS=256,ACS_GRAPH_WIDTH=32 k4096w64:ACS_GRAPH_KERNELS=4096,ACS_GRAPH_WIDTH=64 off:ACS_GRAPH=off; do
    name=${m%%:*}; vars=${m#*:}; env=()
    [[ -n $vars ]] && IFS=, read -ra env <<< "$vars"
    env LD_PRELOAD=$ACS_LIB ACS_INFER=alloc ACS_GRAPH=auto ACS_STATS=1 "${env[@]}" timeout 40 taskset -c $CPUS \
      "$bin" "${common[@]}" --variants serial --mode "$name" 2>&1 |
      grep -Eo "median .*|graphs_built=[0-9]*|graph_replays=[0-9]*|graph_kernels=[0-9]*|graph_relayed=[0-9]*|issue_waits=[0-9]*|kernels_seen=[0-9]*" |
      tr '\n' ' ' | sed "s/^/$shape $name /"; echo
  done
done | tee $R/k2000.txt
echo "k2000 at $(( $(date +%s)-t0 )) s"
sorting_modes $(( T - ($(date +%s)-t0) - 8 ))
cd $OUT && tar czf r.tgz r && rm -rf r
