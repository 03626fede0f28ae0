#!/usr/bin/env bash
# The GPU suite with ACS_RELAY=auto (as if it were the default), then the cuda-samples, JAX, CuPy
# and Warp rows: native, acs, ACS_RELAY=auto; CPUs 2-9; lower quartile.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ACS_RELAY=auto timeout 285 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 --output-on-failure > $R/suite_relay_auto.txt 2>&1
echo "suite (ACS_RELAY=auto) rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite_relay_auto.txt | head -20
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=lower-quartile
ACS_REAL_HARD=150 timeout 155 scripts/bench_real.sh --out $R/samples --budget 145 --reps 4 \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^(?!torch|jax|warp|cupy)' > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; tail -16 $R/samples/real_programs.md
left=$(( 570 - ($(date +%s)-t0) ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/py --budget $((left-5)) --reps 3 \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^(jax|cupy|warp)' > $R/py.log 2>&1
echo "py rc=$? at $(( $(date +%s)-t0 )) s"; tail -12 $R/py/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
