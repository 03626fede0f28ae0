#!/usr/bin/env bash
# Twenty-second session, first command: (1) the GPU suite's 10 PyTorch/CuPy/Triton framework tests
# at the final library (they last ran at 56b47e2); (2) replay_overhead.sh (bodies of 64 and 8
# kernels) with BEFORE= the nineteenth library; (3) the PyTorch rows, native / acs /
# ACS_GRAPH=auto, interleaved processes, medians, in what is left.   gpuI.sh [SECONDS]
set -u
T=${1:-540}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
timeout 200 ctest --test-dir build-gpu -L "preload|gpu" -R "frameworks|triton" -j 5 --timeout 150 \
  --output-on-failure > $R/frameworks.txt 2>&1; tail -15 $R/frameworks.txt
echo "== at $(( $(date +%s)-t0 )) s"
export BEFORE=$PWD/build-lib/libacs.so
ROUNDS=3 timeout 80 scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
ROUNDS=3 ARGS="--kernels 8" timeout 60 scripts/replay_overhead.sh build-gpu > $R/ro8.txt 2>&1; cat $R/ro8.txt
unset BEFORE
echo "== at $(( $(date +%s)-t0 )) s"
A=$(( T - ($(date +%s)-t0) - 20 ))
(( A > 80 )) && ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=median \
  timeout $A scripts/bench_real.sh --out $R/torch --budget $(( A - 10 )) --reps 4 --no-warmup --modes native,acs \
  --mode graph:ACS_GRAPH=auto --only '^torch$' > $R/torch.log 2>&1
tail -5 $R/torch.log
[[ -f $R/torch/real_programs.md ]] && cat $R/torch/real_programs.md
for f in $R/torch/real_programs.json; do [[ -f $f ]] && python3 benchmarks/real/paired_ratios.py $f --base native --modes acs,graph 2>&1 | tail -25; done
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
