#!/usr/bin/env bash
# gpuC.sh [SUITE_S] [SECONDS] (default 150 and 240): what this session's changes touch, for a device
# budget too small for gpuB.sh: the GPU tests of graph replay (its executables destroyed at an
# unload), the frameworks (cuDNN, cuBLAS, CuPy load and unload code) and the preload tests, cut at
# SUITE_S; then the training's condition calls with the value before (an unload now forgets only
# its own code's attribute values), and sortingNetworks while SECONDS last. Carry as gpuB.sh.
set -u
S=${1:-150} T=${2:-240}
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
L=$(( T - ($(date +%s)-t0) - 8 ))
if [[ $L -gt 40 ]]; then
  export ACS_REAL_BIN=$PWD/.carry/real-bin ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
  ACS_REAL_HARD=$L timeout $((L+4)) scripts/bench_real.sh --out $R/sorting --budget $((L-4)) --reps 9 \
    --modes native,acs --mode probe_off:ACS_FIRST_PROBE=100000 --mode ptx_off:ACS_PTX=0 \
    --only '^sortingNetworks$' > $R/sorting.log 2>&1
  echo "sorting rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/sorting/real_programs.md | tail -4
fi
cd $OUT && tar czf r.tgz r && rm -rf r
