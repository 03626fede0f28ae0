#!/usr/bin/env bash
# Last call, only on a quiet host: the CPUs' speeds first (benchmarks/real/cpu_speeds.py; on the
# second call's host the calibration loop read 6-14 ms, twice its usual 6); stops there when even
# the 8 fastest CPUs are slow. Then radixSortThrust per iteration (native, acs, before, never
# probed) and the cuda-samples (native, acs, before) on those 8 CPUs.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
[[ -f build-gpu/interpose/libacs.so ]] ||
  { rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1; }
python3 benchmarks/real/cpu_speeds.py --rounds 2 | tee $R/cpu_speeds.txt
CPUS=$(python3 benchmarks/real/cpu_speeds.py --rounds 2 --pick 8)
SLOW=$(awk 'NR > 1 && $2 > 8.0' $R/cpu_speeds.txt | wc -l)
echo "picked CPUs $CPUS; CPUs slower than 8 ms: $SLOW of 16"
if (( SLOW > 8 )); then echo "final.sh: the host is slow: nothing measured"; cd $OUT && tar czf r.tgz r && rm -rf r; exit 0; fi
export CPUS
TAG=/radix MODES="native acs before noprobe" ROUNDS=12 timeout 80 bash docs/results/runs/2026-12-07-twentyfourth/radix_iters.sh 2>&1 | head -16
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=95 timeout 100 scripts/bench_real.sh --out $R/samples --budget 90 --reps 3 --modes native,acs \
  --mode before:LD_PRELOAD=$PWD/.carry/libacs_before.so --only '^(?!torch$|jax|cupy|warp)' > $R/samples.log 2>&1
python3 benchmarks/real/paired_ratios.py $R/samples/real_programs.json --base native --modes acs,before 2>&1 | tail -12
grep "^Host" $R/samples/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
