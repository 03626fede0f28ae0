#!/usr/bin/env bash
# Seventeenth session, after gpuN (the GPU suite at 4cc3f2b: 313/313): (1) radixSortThrust alone,
# the one row below x0.98, in five modes interleaved, 5 processes each, to see which part of acs its
# ~3% comes from: the relay (relay_off), the probes (noprobe: ACS_FIRST_PROBE=100000), the hooks
# alone (acs_disable); then scripts/call_overhead.sh on the GPU (shared and static cudart); (2) the real-program CSV at the final
# code with an ACS_DISABLE=1 column (issue 15's x0.99 target), every program but Warp, 3 processes
# per mode; (3) Warp in what is left. CPUs 2-9; each mode's fastest process.
# gpuO.sh [SECONDS] (default 570).
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
left() { echo $(( T - ($(date +%s)-t0) - 6 )); }
ACS_REAL_HARD=40 timeout 44 scripts/bench_real.sh --out $R/radix --budget 38 --reps 5 --no-warmup \
  --modes native,acs,acs_disable --mode relay_off:ACS_RELAY=off --mode noprobe:ACS_FIRST_PROBE=100000 \
  --only '^radixSortThrust$' > $R/radix.log 2>&1
echo "radix rc=$? at $(( $(date +%s)-t0 )) s"; grep -A2 "^| program" $R/radix/real_programs.md; tail -1 $R/radix/real_programs.md
# Host ns per CUDA call on the GPU (issue 15's <= 30 ns target), shared and static cudart.
ROUNDS=3 timeout 100 taskset -c 2-9 scripts/call_overhead.sh build-gpu > $R/call_overhead.txt 2>&1
echo "call_overhead rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/call_overhead.txt | head -40
A=$(( $(left) - 130 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/real --budget $((A-3)) --reps 3 --no-warmup \
  --modes native,acs,acs_disable --only '^(?!warp$)' > $R/real.log 2>&1
echo "real rc=$? at $(( $(date +%s)-t0 )) s"; tail -44 $R/real/real_programs.md
B=$(left)
[ $B -gt 40 ] && ACS_REAL_HARD=$B timeout $((B+3)) scripts/bench_real.sh --out $R/warp --budget $((B-2)) --reps 3 \
  --no-warmup --modes native,acs,acs_disable --only '^warp$' > $R/warp.log 2>&1
echo "warp rc=$? at $(( $(date +%s)-t0 )) s"; tail -12 $R/warp/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
