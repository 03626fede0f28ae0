#!/usr/bin/env bash
# Not yet run. The relay's own GPU benchmark (scripts/relay_overlap.sh, gpu variant), then the
# cuda-samples, JAX, CuPy and Warp rows: native, acs, ACS_RELAY=auto; 5 processes
# per mode for the cuda-samples, 4 for the rest; CPUs 2-9; lower quartile.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
# The relay on the GPU itself: host work between tiny launches (benchmarks/overhead/launch_relay.cu).
ROUNDS=5 VARIANTS=gpu timeout 120 taskset -c 2-9 scripts/relay_overlap.sh build-gpu > $R/relay_overlap.txt 2>&1
echo "relay_overlap rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/relay_overlap.txt
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=lower-quartile
ACS_REAL_HARD=250 timeout 255 scripts/bench_real.sh --out $R/samples --budget 245 --reps 5 \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^(?!torch|jax|warp|cupy)' > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; tail -16 $R/samples/real_programs.md
left=$(( 575 - ($(date +%s)-t0) ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/py --budget $((left-5)) --reps 4 \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^(jax|cupy|warp)' > $R/py.log 2>&1
echo "py rc=$? at $(( $(date +%s)-t0 )) s"; tail -12 $R/py/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
