#!/usr/bin/env bash
# Nineteenth session, first call: where a replayed launch's host time goes.
# 1. scripts/replay_overhead.sh with bodies of 64 and 8 kernels, and new rows that launch graphs
#    built by hand: K independent nodes (the shape acs replays here), the same after one empty
#    node, 8 chains. 3 processes per mode.
# 2. The stage timers (-DACS_STAGE_TIMERS=ON, build-stage) on the `same` row, graphs on and off,
#    and on synth wide-2000 with 64- and 256-kernel segments.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz .carry/build-stage.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
ROUNDS=3 scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
ROUNDS=3 ARGS="--kernels 8" scripts/replay_overhead.sh build-gpu > $R/ro8.txt 2>&1; cat $R/ro8.txt
echo "== at $(( $(date +%s)-t0 )) s"
bin=build-gpu/benchmarks/overhead/acs_replay_overhead
stage=$PWD/build-stage/interpose/libacs.so
for c in "auto 64 same" "auto 8 same" "off 64 same" "auto 64 update"; do
  set -- $c
  echo "== stages: ACS_GRAPH=$1 --kernels $2 --only $3"
  LD_PRELOAD=$stage ACS_GRAPH=$1 $bin --kernels $2 --only $3 2>&1 | tee $R/stage_$1_$2_$3.txt
done
sb=build-gpu/benchmarks/gpu/acs_bench_synth
cyc=$($sb --print-clock)
for k in 64 256; do
  echo "== stages: synth wide-2000, ACS_GRAPH=auto ACS_GRAPH_KERNELS=$k"
  LD_PRELOAD=$stage ACS_INFER=alloc ACS_GRAPH=auto ACS_GRAPH_KERNELS=$k timeout 60 $sb --csv /dev/null --reps 5 \
    --cycles-per-us $cyc --workload wide --kernel-us 3 --nodes 2000 --width 64 --inputs 1 --variants serial 2>&1 |
    tee $R/stage_wide2000_$k.txt | grep -E "median|acs stage"
done
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
