#!/usr/bin/env bash
# The twenty-eighth session's gpuV.sh, which did not fit the carry. The rows below x0.98 again, with
# more processes: every PyTorch row (the training row among them; 5 processes per mode), Warp
# (7 per mode) and the cuda-samples that read below x0.99 (7 per mode); native and acs
# interleaved, medians. Carry [".carry/build-gpu.tgz", ".carry/real-bin", ".real-warp"] (about 62 MiB with the
# tracked files): the six cuda-samples programs it runs, copied from .real-src/bin with their
# LICENSE and ORIGIN (the twenty-eighth gpuV.sh's carry, all of .real-src, was over the 64 MiB).
# gpuV.sh [SECONDS] (default 560).
set -u
T=${1:-560}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
export ACS_REAL_BIN=$PWD/.carry/real-bin ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=200 timeout 204 scripts/bench_real.sh --out $R/torch --budget 196 --reps 5 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/torch/real_programs.md | tail -20
ACS_REAL_HARD=150 timeout 154 scripts/bench_real.sh --out $R/warp --budget 146 --reps 7 \
  --modes native,acs --only '^warp$' > $R/warp.log 2>&1
echo "warp rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/warp/real_programs.md | tail -8
A=$(( T - ($(date +%s)-t0) - 12 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/samples --budget $((A-4)) --reps 7 \
  --modes native,acs --only '^(sortingNetworks|radixSortThrust|mergeSort|FDTD3d|jacobiCudaGraphs-nograph|jacobiCudaGraphs-graph|simpleCooperativeGroups-shared)$' \
  > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/samples/real_programs.md | tail -12
cd $OUT && tar czf r.tgz r && rm -rf r
