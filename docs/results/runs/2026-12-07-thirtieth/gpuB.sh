#!/usr/bin/env bash
# gpuB.sh [SUITE_S] [SECONDS] (default 280 and 570): one call for the whole session where the device
# is hard to get. (1) The GPU suite at this session's library (ctest -L "preload|gpu", benchmarks
# aside), cut at SUITE_S; (2) then, while SECONDS last: the calls that change the launch
# conditions in training (with the value before), sortingNetworks (native, acs, no probe, no PTX;
# 9 processes each), Warp (native, acs, ACS_DISABLE=1; 7 each), every PyTorch row (5 each). Carry [".carry/build-gpu.tgz", ".carry/real-bin", ".real-warp"].
set -u
S=${1:-280} T=${2:-570}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
timeout $S ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" \
  -j 14 --timeout 120 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"
grep -E "tests passed|\(Failed\)|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
grep -c "Test *#" $R/suite.txt
export ACS_REAL_BIN=$PWD/.carry/real-bin ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
left() { echo $(( T - ($(date +%s)-t0) )); }
D=docs/results/runs/2026-12-07-twentyseventh
LD_PRELOAD=$ACS_LIB ACS_LOG_LEVEL=debug timeout 30 taskset -c $CPUS python3 $D/train_phases.py --iters 20 --warmup 5 2>&1 |
  grep -E "may change whether|a change of the launch conditions" > $R/condition_sequence.txt
sed -E 's/function 0x[0-9a-f]+/function F/; s/kernel 0x[0-9a-f]+/kernel K/' $R/condition_sequence.txt |
  sort | uniq -c | sort -rn | head -30 | tee $R/condition_calls.txt
echo "conditions at $(( $(date +%s)-t0 )) s"
if [[ $(left) -gt 70 ]]; then
  ACS_REAL_HARD=56 timeout 60 scripts/bench_real.sh --out $R/sorting --budget 52 --reps 9 \
    --modes native,acs --mode probe_off:ACS_FIRST_PROBE=100000 --mode ptx_off:ACS_PTX=0 \
    --only '^sortingNetworks$' > $R/sorting.log 2>&1
  echo "sorting rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/sorting/real_programs.md | tail -4
  cut -d, -f1-8 $R/sorting/real_programs_modes.csv 2>/dev/null | head -8
fi
if [[ $(left) -gt 80 ]]; then
  W=$(( $(left) > 116 ? 100 : $(left) - 16 ))
  ACS_REAL_HARD=$W timeout $((W+4)) scripts/bench_real.sh --out $R/warp --budget $((W-4)) --reps 7 \
    --modes native,acs,acs_disable --only '^warp$' > $R/warp.log 2>&1
  echo "warp rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/warp/real_programs.md | tail -8
fi
A=$(( T - ($(date +%s)-t0) - 12 ))
if [[ $A -gt 60 ]]; then
  ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/torch --budget $((A-4)) --reps 5 --no-warmup \
    --modes native,acs --only '^torch$' > $R/torch.log 2>&1
  echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/torch/real_programs.md | tail -20
fi
cd $OUT && tar czf r.tgz r && rm -rf r
