#!/usr/bin/env bash
# gpuD.sh [SUITE_S] [SECONDS] (default 170 and 560): the thirty-first session's first call where the
# device is hard to get. (1) The GPU tests its and the thirtieth session's changes touch (graph
# replay, whose gpu.graph_replay.* tests run under ACS_GRAPH=auto and now sample after barren
# segments; the frameworks, which load and unload code; the preload and error tests), cut at
# SUITE_S; (2) the training's condition calls with the value before (an unload now forgets only
# its own code's attribute values); (3) scripts/replay_overhead.sh with the row `fresh` (no segment
# recurs): graphs with sampling (`graph`) against ACS_GRAPH_SAMPLE=0 (`before`) and graphs off
# (`acs`), 3 interleaved processes each; (4) sortingNetworks (native, acs, no first probe, no PTX)
# while SECONDS last. Carry [".carry/build-gpu.tgz", ".carry/real-bin", ".real-warp"].
set -u
S=${1:-170} T=${2:-560}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
timeout $S ctest --test-dir build-gpu -L "preload|gpu" -R "graph_replay|frameworks|preload|errors" \
  -E "gpu\.bench|preload\.exports|preload\.hook_table|torch_integration|torchrun" -j 14 --timeout 120 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"
grep -E "tests passed|\(Failed\)|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so
D=docs/results/runs/2026-12-07-twentyseventh
LD_PRELOAD=$ACS_LIB ACS_LOG_LEVEL=debug timeout 30 taskset -c $CPUS python3 $D/train_phases.py --iters 20 --warmup 5 2>&1 |
  grep -E "may change whether|a change of the launch conditions" > $R/condition_sequence.txt
sed -E 's/function 0x[0-9a-f]+/function F/; s/kernel 0x[0-9a-f]+/kernel K/' $R/condition_sequence.txt |
  sort | uniq -c | sort -rn | head -30 | tee $R/condition_calls.txt
echo "conditions at $(( $(date +%s)-t0 )) s"
ROUNDS=3 BEFORE=$ACS_LIB BEFORE_ENV=ACS_GRAPH_SAMPLE=0 timeout 150 taskset -c $CPUS scripts/replay_overhead.sh build-gpu \
  > $R/replay_overhead.txt 2>&1
echo "replay_overhead rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/replay_overhead.txt
L=$(( T - ($(date +%s)-t0) - 8 ))
if [[ $L -gt 40 ]]; then
  export ACS_REAL_BIN=$PWD/.carry/real-bin ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
  ACS_REAL_HARD=$L timeout $((L+4)) scripts/bench_real.sh --out $R/sorting --budget $((L-4)) --reps 9 \
    --modes native,acs --mode probe_off:ACS_FIRST_PROBE=100000 --mode ptx_off:ACS_PTX=0 \
    --only '^sortingNetworks$' > $R/sorting.log 2>&1
  echo "sorting rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/sorting/real_programs.md | tail -4
fi
cd $OUT && tar czf r.tgz r && rm -rf r
