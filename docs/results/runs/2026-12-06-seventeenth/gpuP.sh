#!/usr/bin/env bash
# Seventeenth session, after gpuO (whose host calibration read ~6 or ~12 ms from run to run): is
# that per CPU (some of CPUs 2-9 slow: pick the others) or over time (nothing to pick)?
# (1) benchmarks/real/cpu_speeds.py on CPUs 1-15, 8 rounds; (2) the 6 fastest picked; (3) PyTorch
# and radixSortThrust, native / acs / ACS_DISABLE=1, 3 processes per mode, pinned to them;
# (4) the per-CPU table again. gpuP.sh [SECONDS] (default 230).
set -u
T=${1:-230}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep -E "^(Model name|Thread|Core|Socket|NUMA node\(s\)|CPU max MHz|CPU MHz)" 
python3 benchmarks/real/cpu_speeds.py --cpus 1-15 --rounds 8 | tee $R/cpu_speeds_before.txt
P=$(python3 benchmarks/real/cpu_speeds.py --cpus 1-15 --rounds 3 --pick 6); echo "picked CPUs $P"
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$P ACS_REAL_ESTIMATOR=fastest
A=$(( T - ($(date +%s)-t0) - 20 ))
ACS_REAL_HARD=$A timeout $((A+3)) scripts/bench_real.sh --out $R/real --budget $((A-2)) --reps 3 --no-warmup \
  --modes native,acs,acs_disable --only '^(torch|radixSortThrust)$' > $R/real.log 2>&1
echo "real rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\|" $R/real/real_programs.md; grep -E "^Host speed" $R/real/real_programs.md
python3 benchmarks/real/cpu_speeds.py --cpus 1-15 --rounds 4 | tee $R/cpu_speeds_after.txt
cd $OUT && tar czf r.tgz r && rm -rf r
