#!/usr/bin/env bash
# Where PyTorch's time goes under acs when every launch is passed through (stepped aside).
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
LIB=$PWD/build-gpu/interpose/libacs.so
M=googlenet,mixnet_s,resnet18
declare -A ENVS=(
 [native]=""
 [acs]="LD_PRELOAD=$LIB"
 [disable]="LD_PRELOAD=$LIB ACS_DISABLE=1"
 [noinfer]="LD_PRELOAD=$LIB ACS_INFER=off"
 [nostep]="LD_PRELOAD=$LIB ACS_PROBE_BACKLOG=0"
 [stage]="LD_PRELOAD=$PWD/.carry/stage/libacs.so"
)
ORDER="native acs disable noinfer stage"
for rep in 1 2 3 4; do
  for mode in $ORDER; do
    env ${ENVS[$mode]} timeout 100 python3 .carry/torch_diag.py $M 100 > $R/$mode.$rep.out 2> $R/$mode.$rep.err
  done
  ORDER=$(echo $ORDER | tr ' ' '\n' | tac | tr '\n' ' ')
done
env LD_PRELOAD=$LIB ACS_LOG_LEVEL=debug timeout 100 python3 .carry/torch_diag.py googlenet 100 > $R/debug.out 2> $R/debug.err
env LD_PRELOAD=$LIB ACS_STATS=1 timeout 100 python3 .carry/torch_diag.py googlenet 100 > $R/stats.out 2> $R/stats.err
command -v perf > $R/perf.txt 2>&1
timeout 200 python3 benchmarks/torch/op_overhead.py --lib $LIB --iterations 3000 --repeats 3 > $R/op_overhead.txt 2>&1
for f in $R/*.out; do echo "$(basename $f) $(tr '\n' ' ' < $f)"; done > $R/summary.txt
cd $OUT && tar czf r.tgz r && rm -rf r
