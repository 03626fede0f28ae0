#!/usr/bin/env bash
# One device command for what matters most if only one can run (about 570 s): (1) the GPU suite
# at this session's library, cut at SUITE_S (default 190); (2) the rows below x0.98, native and
# acs interleaved, medians: every PyTorch row (5 processes per mode, 150 s), the six cuda-samples
# that read below x0.99 (7 per mode, 110 s), Warp (7 per mode, the rest). Carry
# [".carry/build-gpu.tgz", ".carry/real-bin", ".real-warp"] (gpuV.sh says what real-bin is).
# gpuX.sh [SUITE_S] [SECONDS] (default 190 and 570).
set -u
S=${1:-190} T=${2:-570}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
timeout $S ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" \
  -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|\(Failed\)|\*\*\*Timeout" $R/suite.txt | head -20
export ACS_REAL_BIN=$PWD/.carry/real-bin ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=150 timeout 154 scripts/bench_real.sh --out $R/torch --budget 146 --reps 5 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/torch/real_programs.md | tail -20
ACS_REAL_HARD=110 timeout 114 scripts/bench_real.sh --out $R/samples --budget 106 --reps 7 \
  --modes native,acs --only '^(sortingNetworks|radixSortThrust|mergeSort|FDTD3d|jacobiCudaGraphs-nograph|jacobiCudaGraphs-graph|simpleCooperativeGroups-shared)$' \
  > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/samples/real_programs.md | tail -12
A=$(( T - ($(date +%s)-t0) - 10 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/warp --budget $((A-4)) --reps 7 \
  --modes native,acs --only '^warp$' > $R/warp.log 2>&1
echo "warp rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/warp/real_programs.md | tail -8
cd $OUT && tar czf r.tgz r && rm -rf r
