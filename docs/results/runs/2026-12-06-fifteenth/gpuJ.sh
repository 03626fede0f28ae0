#!/usr/bin/env bash
# The relay that stops where the program keeps waiting for it (d10d205), where it last lost or is
# unmeasured: jacobiCudaGraphs-nograph (x0.81 relayed in gpuI), radixSortThrust, JAX with and
# without command buffers, Warp, CuPy: native and ACS_RELAY=auto, 3 processes per mode, CPUs 2-9,
# lower quartile; one ACS_STATS=1 run per program under the relay. gpuJ.sh [SECONDS] (default 160).
set -u
T=${1:-160}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=lower-quartile
left=$(( T - ($(date +%s)-t0) ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/relay --budget $((left-5)) --reps 3 --no-warmup \
  --modes native --mode relay:ACS_RELAY=auto --stats-mode relay \
  --only '^(jacobiCudaGraphs-nograph|radixSortThrust|jax-nocmdbuf|jax-cmdbuf|warp|cupy)$' > $R/relay.log 2>&1
echo "relay rc=$? at $(( $(date +%s)-t0 ))"; tail -14 $R/relay/real_programs.md
grep -o "^[a-zA-Z-]* (relay): acs-stats: kernels_seen=[0-9]*\|relayed=[0-9]*\|relay_waits=[0-9]*" $R/relay/real_programs_stats.txt | paste -sd' ' | head -c 1500; echo
cd $OUT && tar czf r.tgz r && rm -rf r
