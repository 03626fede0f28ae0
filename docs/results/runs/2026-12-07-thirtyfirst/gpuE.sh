#!/usr/bin/env bash
# gpuE.sh [SECONDS] (default 560): graph replay's sampling (ACS_GRAPH_SAMPLE) on the short-kernel
# rows and the dynamic networks, whose segments recur (the synthetic DAGs, the DRL steps) or
# depend on the input (dynnn-*): the matrix twice, with the default 32 and with 0 (every segment
# examined, as before), each with its own serial and CUDA graph baselines (bench.sh runs them in
# turn, not interleaved: compare the acs_graph columns through their speed-ups over serial).
# Carry [".carry/build-gpu.tgz"].
set -u
T=${1:-560}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
source docs/results/runs/2026-12-07-thirtyfirst/steps.sh
half=$(( (T - ($(date +%s)-t0) - 10) / 2 ))
for sample in 32 0; do
  ACS_GRAPH_SAMPLE=$sample ACS_BENCH_DEADLINE=$((half - 20)) timeout $half taskset -c $CPUS \
    scripts/bench.sh --build build-gpu/benchmarks --no-build --out $R/short_s$sample --reps 5 \
    --only 'short$|^dynnn-' > $R/short_s$sample.log 2>&1
  echo "ACS_GRAPH_SAMPLE=$sample rc=$? at $(( $(date +%s)-t0 )) s"
  cat $R/short_s$sample/short_kernels.csv 2>/dev/null
  grep -o "graph_skimmed=[0-9]*" $R/short_s$sample/acs_stats.txt 2>/dev/null | sort | uniq -c | head
done
cd $OUT && tar czf r.tgz r && rm -rf r
