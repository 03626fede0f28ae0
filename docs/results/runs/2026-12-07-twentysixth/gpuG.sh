#!/usr/bin/env bash
# The second call: the one GPU test gpuF's 240 s cut (gpu.examples.kernel_rule), then the
# cuda-samples (native, acs, ACS_GRAPH=auto) and PyTorch (native, acs), 3 processes per mode,
# medians, on the 8 fastest CPUs, timed whatever the host's speed (the speeds are recorded: this
# is likely the session's last machine). gpuG.sh [SECONDS] (default 540).
set -u
T=${1:-540}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
timeout 60 ctest --test-dir build-gpu -R "gpu\.examples\.kernel_rule" --timeout 55 --output-on-failure > $R/kernel_rule.txt 2>&1
echo "kernel_rule rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|Failed|Timeout" $R/kernel_rule.txt
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
A=$(( (T - ($(date +%s)-t0)) / 2 - 4 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/samples --budget $((A-4)) --reps 3 --no-warmup \
  --modes native,acs --mode graph:ACS_GRAPH=auto --only '^(?!torch$|jax|cupy|warp)' > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/samples/real_programs.md | tail -18
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/torch --budget $((A-4)) --reps 3 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/torch/real_programs.md | tail -20
python3 benchmarks/real/cpu_speeds.py --rounds 2 > $R/cpu_speeds_after.txt 2>&1; cat $R/cpu_speeds_after.txt | head -3
cd $OUT && tar czf r.tgz r && rm -rf r
