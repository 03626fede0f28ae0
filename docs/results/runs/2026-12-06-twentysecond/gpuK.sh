#!/usr/bin/env bash
# Twenty-second session: the real programs other than PyTorch at this session's library (relayed
# graphs), native / acs / ACS_GRAPH=auto, 3 interleaved processes per mode, medians, every run on
# CPUs 2-9, then the paired ratios (issue 15's rows, issue 16's graphs-on-against-off rule); in
# what is left, PyTorch's acs and graph modes with ACS_STATS=1 under each (why graphs on cost
# PyTorch 1-5% in gpuI).   gpuK.sh [SECONDS]
set -u
T=${1:-560}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=median
A=$(( T * 2 / 3 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/rest --budget $((A-3)) --reps 3 \
  --modes native,acs --mode graph:ACS_GRAPH=auto --stats-mode graph --only '^(?!torch$)' > $R/rest.log 2>&1
tail -3 $R/rest.log; [[ -f $R/rest/real_programs.md ]] && grep -E "^\||^Host" $R/rest/real_programs.md
[[ -f $R/rest/real_programs.json ]] && python3 benchmarks/real/paired_ratios.py $R/rest/real_programs.json --base native --modes acs,graph 2>&1 | tail -30
echo "== at $(( $(date +%s)-t0 )) s"
B=$(( T - ($(date +%s)-t0) - 15 ))
(( B > 60 )) && ACS_REAL_HARD=$B timeout $((B+4)) scripts/bench_real.sh --out $R/torch --budget $((B-3)) --reps 2 \
  --no-warmup --modes acs --mode graph:ACS_GRAPH=auto --stats-mode graph --only '^torch$' > $R/torch.log 2>&1
[[ -f $R/torch/real_programs_stats.txt ]] && cut -c1-2500 $R/torch/real_programs_stats.txt
[[ -f $R/torch/real_programs.json ]] && python3 benchmarks/real/paired_ratios.py $R/torch/real_programs.json --base acs --modes graph 2>&1 | tail -20
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
