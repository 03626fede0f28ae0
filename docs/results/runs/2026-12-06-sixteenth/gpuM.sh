#!/usr/bin/env bash
# For the session after the sixteenth: the real-program CSV at the final code (the relay on by
# default, its earlier verdict), on a host whose speed holds (run_real.py now times the host
# before every run and says under the table whether it moved), with ACS_DISABLE=1 for issue 15's
# x0.99 target (3 modes fit one command; gpuN.sh has ACS_RELAY=off). gpuN.sh runs the GPU suite
# and radixSortThrust alone. gpuM.sh [SECONDS] (default 575). CPUs 2-9; each mode's fastest process.
set -u
T=${1:-575}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fastest
A=$((T-10))
ACS_REAL_HARD=$A timeout $((A+5)) scripts/bench_real.sh --out $R/real --budget $((A-5)) --reps 3 --no-warmup \
  --modes native,acs,acs_disable > $R/real.log 2>&1
echo "real rc=$? at $(( $(date +%s)-t0 )) s"; tail -48 $R/real/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
