#!/usr/bin/env bash
# After the fix (membarrier registered at load): membarrier's costs on this host; the cuda-samples
# (5 processes per mode), JAX (4), CuPy and Warp (3): native, acs, ACS_DISABLE=1, CPUs 2-9,
# lower quartile of the repeats.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
uname -r; gcc -O2 -pthread docs/results/runs/2026-12-05-twelfth/membarrier_cost.c -o /tmp/mbc && for n in 0 4 16; do /tmp/mbc $n; done
ctest --test-dir build-gpu -R "bypass_fence" 2>&1 | grep -E "tests passed|Failed"
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=lower-quartile
ACS_REAL_HARD=190 timeout 195 scripts/bench_real.sh --out $R/samples --budget 185 --reps 5 --only '^(?!torch|jax|warp|cupy)' > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; tail -16 $R/samples/real_programs.md
ACS_REAL_HARD=100 timeout 105 scripts/bench_real.sh --out $R/jax --budget 95 --reps 4 --only '^jax' > $R/jax.log 2>&1
echo "jax rc=$? at $(( $(date +%s)-t0 )) s"; tail -7 $R/jax/real_programs.md
left=$(( 575 - ($(date +%s)-t0) ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/other --budget $((left-5)) --reps 3 --only '^(cupy|warp)$' > $R/other.log 2>&1
echo "other rc=$? at $(( $(date +%s)-t0 )) s"; tail -8 $R/other/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
