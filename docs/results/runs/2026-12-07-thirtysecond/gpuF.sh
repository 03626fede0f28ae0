#!/usr/bin/env bash
# gpuF.sh [SECONDS] (default 300): where issue 16's 2000-kernel rows (synth-{layered,wide,random}-2000,
# 3 µs kernels, 64 wide) spend their time under ACS_GRAPH=auto. The bench now prints, per variant,
# `issue`: the host's time until the workload's last launch returned, beside the GPU's time; issue
# close to the GPU's time says the application's launch rate bounds the row, issue far below it
# says the GPU (lanes, graph launches) does. Modes: segments of 64 (default), 256, 512 and the whole
# DAG (4096) with 8, 16, 32 and 64 lanes, graphs off, and the plain CUDA graph and serial
# baselines in the same rounds (2 interleaved processes per mode). Carry [".carry/build-gpu.tgz"].
set -u
T=${1:-300}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
bin=build-gpu/benchmarks/gpu/acs_bench_synth; lib=$PWD/build-gpu/interpose/libacs.so
cycles=$("$bin" --print-clock 2>/dev/null | grep -o '[0-9.]*' | head -1)
modes="k64w8: k64w16:ACS_GRAPH_WIDTH=16 k256w8:ACS_GRAPH_KERNELS=256 k256w32:ACS_GRAPH_KERNELS=256,ACS_GRAPH_WIDTH=32 \
k512w64:ACS_GRAPH_KERNELS=512,ACS_GRAPH_WIDTH=64 k4096w8:ACS_GRAPH_KERNELS=4096 k4096w64:ACS_GRAPH_KERNELS=4096,ACS_GRAPH_WIDTH=64 \
off:ACS_GRAPH=off"
for r in 0 1; do
  for shape in layered wide random; do
    [[ $(( $(date +%s)-t0 )) -lt $((T - 25)) ]] || break 2
    common=(--workload $shape --kernel-us 3 --nodes 2000 --width 64 --inputs 1 --reps 7 --csv $R/k2000.csv
            --cycles-per-us "$cycles" --config "synth-$shape-2000")
    taskset -c $CPUS "$bin" "${common[@]}" --variants serial,graph --mode plain | grep -E "median" | sed "s/^/r$r /"
    for m in $modes; do
      name=${m%%:*}; vars=${m#*:}; env=()
      [[ -n $vars ]] && IFS=, read -ra env <<< "$vars"
      stats=(); [[ $r == 1 ]] && stats=(ACS_STATS=1)
      env LD_PRELOAD=$lib ACS_INFER=alloc ACS_GRAPH=auto "${env[@]}" "${stats[@]}" timeout 60 taskset -c $CPUS \
        "$bin" "${common[@]}" --variants serial --mode "$name" 2>&1 |
        grep -Eo "median .*|graphs_built=[0-9]*|graph_replays=[0-9]*|graph_kernels=[0-9]*|graph_relayed=[0-9]*|issue_waits=[0-9]*|relay_waits=[0-9]*|kernels_seen=[0-9]*" |
        tr '\n' ' ' | sed "s/^/r$r $shape $name /"; echo
    done
  done
done | tee $R/k2000.txt
echo "k2000 at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
