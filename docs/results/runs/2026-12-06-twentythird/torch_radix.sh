#!/usr/bin/env bash
# Fourth call: PyTorch native against acs at this session's library, 4 interleaved processes per
# mode; then radixSortThrust and jacobiCudaGraphs-graph, 9 per mode, with ACS_DISABLE=1 and
# ACS_RELAY=off.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=190 timeout 195 scripts/bench_real.sh --out $R/torch --budget 185 --reps 4 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
python3 benchmarks/real/paired_ratios.py $R/torch/real_programs.json --base native --modes acs 2>&1 | tail -18
ACS_REAL_HARD=100 timeout 105 scripts/bench_real.sh --out $R/radix --budget 95 --reps 9 --modes native,acs \
  --mode disable:ACS_DISABLE=1 --mode norelay:ACS_RELAY=off --only '^(radixSortThrust|jacobiCudaGraphs-graph)$' > $R/radix.log 2>&1
python3 benchmarks/real/paired_ratios.py $R/radix/real_programs.json --base native --modes acs,disable,norelay 2>&1 | tail -5
cd $OUT && tar czf r.tgz r && rm -rf r
