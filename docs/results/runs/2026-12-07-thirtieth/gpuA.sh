#!/usr/bin/env bash
# gpuA.sh [SECONDS] (default 570): the rows still below target, on one machine, before any code
# change of this session (a11f30c). Carry [".carry/build-gpu.tgz", ".carry/real-bin", ".real-warp"]
# (twenty-ninth session's prepare.sh, then the six cuda-samples copied to .carry/real-bin).
# (1) sortingNetworks, 9 processes per mode: native, acs, acs with no probe (ACS_FIRST_PROBE=100000),
# acs reading no PTX (ACS_PTX=0); four more cuda-samples, 7 per mode;
# (2) Warp, 7 per mode: native, acs, ACS_DISABLE=1; (3) every PyTorch row, 5 per mode;
# (4) which calls change the launch conditions in training, with the value they had before.
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
export ACS_REAL_BIN=$PWD/.carry/real-bin ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=60 timeout 64 scripts/bench_real.sh --out $R/sorting --budget 56 --reps 9 \
  --modes native,acs --mode probe_off:ACS_FIRST_PROBE=100000 --mode ptx_off:ACS_PTX=0 \
  --only '^sortingNetworks$' > $R/sorting.log 2>&1
echo "sorting rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/sorting/real_programs.md | tail -4
cat $R/sorting/real_programs_modes.csv 2>/dev/null | head -8
ACS_REAL_HARD=96 timeout 100 scripts/bench_real.sh --out $R/samples --budget 92 --reps 7 --modes native,acs \
  --only '^(radixSortThrust|mergeSort|FDTD3d|jacobiCudaGraphs-nograph)$' > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/samples/real_programs.md | tail -8
ACS_REAL_HARD=120 timeout 124 scripts/bench_real.sh --out $R/warp --budget 116 --reps 7 \
  --modes native,acs,acs_disable --only '^warp$' > $R/warp.log 2>&1
echo "warp rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/warp/real_programs.md | tail -8
cat $R/warp/real_programs_modes.csv 2>/dev/null | head -10
D=docs/results/runs/2026-12-07-twentyseventh
LD_PRELOAD=$ACS_LIB ACS_LOG_LEVEL=debug timeout 40 taskset -c $CPUS python3 $D/train_phases.py --iters 20 --warmup 5 2>&1 |
  grep -E "may change whether|a change of the launch conditions" > $R/condition_sequence.txt
sed -E 's/function 0x[0-9a-f]+/function F/; s/kernel 0x[0-9a-f]+/kernel K/' $R/condition_sequence.txt |
  sort | uniq -c | sort -rn | head -40 | tee $R/condition_calls.txt
echo "conditions at $(( $(date +%s)-t0 )) s"
A=$(( T - ($(date +%s)-t0) - 14 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/torch --budget $((A-4)) --reps 5 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/torch/real_programs.md | tail -20
cd $OUT && tar czf r.tgz r && rm -rf r
