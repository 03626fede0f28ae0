#!/usr/bin/env bash
# Eighteenth session, third call, at fcf62fd's library (gpuT found gpuS's build on the warm machine
# and ran aaa7c3e's: this one unpacks the carry always).
# (1) scripts/replay_overhead.sh: host ns per launch on the application's thread, natively, acs
#     without graphs, acs with ACS_GRAPH=auto; 5 processes per mode; bodies of 64 and of 8 kernels;
# (2) the GPU suite at this library;
# (3) synth-wide-short under ACS_GRAPH=auto, 5 processes with ACS_STATS=1, with and without
#     ACS_STEP_ASIDE=0 (gpuT: 0.89 against 0.50 ms between the two modes);
# (4) the short-kernel rows of scripts/bench.sh, 9 reps, with ACS_GRAPH_KERNELS=256 too, in what
#     is left. gpuU.sh [SECONDS] (default 570).
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git log --oneline -1 2>/dev/null
ROUNDS=5 timeout 120 taskset -c 2-9 scripts/replay_overhead.sh build-gpu > $R/replay_overhead.txt 2>&1
ROUNDS=5 ARGS="--kernels 8 --bodies 1000 --warmup 400" timeout 90 taskset -c 2-9 scripts/replay_overhead.sh build-gpu > $R/replay_overhead_8.txt 2>&1
echo "replay_overhead rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/replay_overhead.txt $R/replay_overhead_8.txt
timeout 270 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout" $R/suite.txt | head
for i in 1 2 3 4 5; do
  for m in graph chained; do
    extra=(); [ $m = chained ] && extra=(ACS_STEP_ASIDE=0)
    env LD_PRELOAD=$PWD/build-gpu/interpose/libacs.so ACS_INFER=alloc ACS_GRAPH=auto ACS_STATS=1 "${extra[@]}" \
      taskset -c 2-9 timeout 30 build-gpu/benchmarks/gpu/acs_bench_synth --csv /dev/null --reps 9 --cycles-per-us 1990 \
      --workload wide --kernel-us 3 --variants serial > $R/wide_${m}_$i.txt 2>&1
    echo "wide $m $i: $(grep -o 'median *[0-9.]* ms' $R/wide_${m}_$i.txt | head -1) $(grep -o 'kernels_seen=[0-9]*\|dispatched=[0-9]*\|passed=[0-9]*\|graph_replays=[0-9]*\|graph_kernels=[0-9]*\|graphs_built=[0-9]*\|graph_flush_idle=[0-9]*\|graph_plain_new_shape=[0-9]*\|probes_busy=[0-9]*\|graph_call_by_call=[0-9]*' $R/wide_${m}_$i.txt | tr '\n' ' ')"
  done
done
echo "wide at $(( $(date +%s)-t0 )) s"
left=$(( T - ($(date +%s)-t0) - 10 ))
[ $left -gt 60 ] && ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_BENCH_DEADLINE=$((left-20)) ACS_BENCH_GRAPH_KERNELS=256 \
  timeout $left taskset -c 2-9 scripts/bench.sh --build build-gpu/benchmarks --no-build --out $R/short --reps 9 \
  --only 'short$|^dynnn-' > $R/short.log 2>&1
echo "short rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/short/short_kernels.csv 2>/dev/null
grep -E "acs_graph" $R/short/bench.csv 2>/dev/null | cut -d, -f1,6,7,11-14 | head -40
cd $OUT && tar czf r.tgz r && rm -rf r
