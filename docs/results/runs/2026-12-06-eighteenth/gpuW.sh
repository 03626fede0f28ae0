#!/usr/bin/env bash
# Eighteenth session, a short last call: are the 2000-kernel rows' 64-kernel segments rebuilt
# every rep? (gpuV: ACS_GRAPH_KERNELS=256 ran x1.6-2.7 faster than the default 64; 31 segments per
# pass on each of two streams against ACS_GRAPH_CACHE=64 executables.) synth wide-2000 and
# layered-2000 under ACS_GRAPH=auto with the default cache, ACS_GRAPH_CACHE=512, and
# ACS_GRAPH_KERNELS=256: 3 timed processes each, then one ACS_STATS=1 process each (9 reps).
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bin=build-gpu/benchmarks/gpu/acs_bench_synth
for w in wide layered; do
  for i in 1 2 3; do
    for c in default cache512 k256; do
      case $c in default) e=() ;; cache512) e=(ACS_GRAPH_CACHE=512) ;; k256) e=(ACS_GRAPH_KERNELS=256) ;; esac
      m=$(env LD_PRELOAD=$PWD/build-gpu/interpose/libacs.so ACS_INFER=alloc ACS_GRAPH=auto "${e[@]}" taskset -c 2-9 timeout 40 \
        $bin --csv /dev/null --reps 9 --cycles-per-us 1990 --workload $w --kernel-us 3 --nodes 2000 --width 64 --inputs 1 \
        --variants serial 2>&1 | grep -o 'median *[0-9.]* ms' | head -1)
      echo "$w $c $i: $m"
    done
  done
  for c in default cache512 k256; do
    case $c in default) e=() ;; cache512) e=(ACS_GRAPH_CACHE=512) ;; k256) e=(ACS_GRAPH_KERNELS=256) ;; esac
    env LD_PRELOAD=$PWD/build-gpu/interpose/libacs.so ACS_INFER=alloc ACS_GRAPH=auto ACS_STATS=1 "${e[@]}" taskset -c 2-9 timeout 40 \
      $bin --csv /dev/null --reps 9 --cycles-per-us 1990 --workload $w --kernel-us 3 --nodes 2000 --width 64 --inputs 1 \
      --variants serial > $R/${w}_${c}_stats.txt 2>&1
    echo "$w $c stats: $(grep -o 'median *[0-9.]* ms' $R/${w}_${c}_stats.txt | head -1) $(grep -o 'kernels_seen=[0-9]*\|graphs_built=[0-9]*\|graph_replays=[0-9]*\|graph_updates=[0-9]*\|graph_evictions=[0-9]*\|graph_kernels=[0-9]*\|passed=[0-9]*' $R/${w}_${c}_stats.txt | head -7 | tr '\n' ' ')"
  done
done
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
