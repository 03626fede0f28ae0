#!/usr/bin/env bash
# Nineteenth session, last call, the same library: gpuAA's PyTorch runs spread 2.6x with the
# host's speed (its Python loop 5.9-15.3 ms), so: (1) PyTorch again, native / acs / ACS_GRAPH=auto,
# 6 processes per mode, each mode's fastest; (2) the other real programs (cuda-samples, JAX, Warp,
# CuPy), the same three modes, 3 processes per mode, in what is left. CPUs 2-9.
set -u
T=${1:-575}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# Only the library travels (build-lib/libacs.so, copied from build-gpu): the carry's build, the
# cuda-samples and Warp together were over the command's 64 MiB.
export ACS_LIB=$PWD/build-lib/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
ACS_REAL_HARD=330 timeout 334 scripts/bench_real.sh --out $R/torch --budget 327 --reps 6 --no-warmup \
  --modes native,acs --mode graph:ACS_GRAPH=auto --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\||^Host|^- " $R/torch/real_programs.md
A=$(( T - ($(date +%s)-t0) - 8 ))
ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/rest --budget $((A-3)) --reps 3 \
  --modes native,acs --mode graph:ACS_GRAPH=auto --only '^(?!torch$)' > $R/rest.log 2>&1
echo "rest rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\||^Host|^- " $R/rest/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
