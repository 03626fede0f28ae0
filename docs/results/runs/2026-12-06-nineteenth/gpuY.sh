#!/usr/bin/env bash
# Nineteenth session, second call: graphs laid on lanes (ACS_GRAPH_WIDTH, segment_replay.hpp).
# 1. scripts/replay_overhead.sh (bodies of 64) with ACS_GRAPH_WIDTH 8 (the new default) and 64
#    (every independent kernel its own branch, as before), and the new hand-built layered8 row.
# 2. synth's 2000-kernel and short rows: plain (serial, oracle, CUDA graph) once, then acs with
#    graphs, ACS_GRAPH_WIDTH 4, 8, 16, 64, segments of 64 and 256 kernels; 2 processes each.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for w in 8 64; do
  ACS_GRAPH_WIDTH=$w ROUNDS=3 scripts/replay_overhead.sh build-gpu > $R/ro64_w$w.txt 2>&1
  echo "== ACS_GRAPH_WIDTH=$w"; cat $R/ro64_w$w.txt
done
echo "== at $(( $(date +%s)-t0 )) s"
sb=build-gpu/benchmarks/gpu/acs_bench_synth
lib=$PWD/build-gpu/interpose/libacs.so
cyc=$($sb --print-clock)
med() { grep -o 'median *[0-9.]* ms' | head -1 | grep -o '[0-9.]*'; }
for row in "random 2000" "layered 2000" "wide 2000" "random short" "layered short" "wide short"; do
  set -- $row
  a=(--workload $1 --kernel-us 3 --csv /dev/null --reps 9 --cycles-per-us $cyc)
  [ $2 = 2000 ] && a+=(--nodes 2000 --width 64 --inputs 1)
  timeout 60 $sb "${a[@]}" > $R/plain_$1_$2.txt 2>&1
  echo "== $1-$2 plain: $(grep -E 'median' $R/plain_$1_$2.txt | awk '{print $3, $6}' | tr '\n' ' ')"
  for k in 64 256; do
    line=""
    for w in 4 8 16 64; do
      v=""
      for i in 1 2; do
        v="$v $(LD_PRELOAD=$lib ACS_INFER=alloc ACS_GRAPH=auto ACS_GRAPH_KERNELS=$k ACS_GRAPH_WIDTH=$w timeout 60 $sb "${a[@]}" --variants serial 2>&1 | med)"
      done
      line="$line w$w:$v"
    done
    echo "   acs graphs k$k:$line"
  done
done
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
