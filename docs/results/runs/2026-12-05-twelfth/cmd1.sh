#!/usr/bin/env bash
# The GPU suite at this session's first HEAD (928bd74), then the cuda-samples and JAX rows:
# native, acs, ACS_DISABLE=1; 5 interleaved processes per mode for the cuda-samples, 4 for JAX;
# CPUs 2-9; lower quartile of the repeats (ACS_REAL_ESTIMATOR).
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 280 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=lower-quartile
left=$(( 575 - ($(date +%s)-t0) ))
ACS_REAL_HARD=$((left*55/100)) timeout $((left*55/100+5)) scripts/bench_real.sh --out $R/samples --budget $((left*55/100-5)) --reps 5 \
  --only '^(?!torch|jax|warp|cupy)' > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; tail -14 $R/samples/real_programs.md
left=$(( 575 - ($(date +%s)-t0) ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/jax --budget $((left-5)) --reps 4 --only '^jax' > $R/jax.log 2>&1
echo "jax rc=$? at $(( $(date +%s)-t0 )) s"; tail -7 $R/jax/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
