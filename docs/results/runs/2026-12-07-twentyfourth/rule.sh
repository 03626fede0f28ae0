#!/usr/bin/env bash
# Second call: the relay rule (a probe that counts the program's waits for the GPU starts no relay
# where the program waits at least once per 4 launches). radixSortThrust per iteration: native,
# acs (the rule), before (the library without it, .carry/libacs_before.so), never probed; then
# cuda-samples native / acs / before and PyTorch native / acs (with its ACS_STATS counters: does it
# still relay?), interleaved, paired medians.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
[[ -f build-gpu/interpose/libacs.so ]] ||
  { rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1; }
TAG=/radix MODES="native acs before noprobe" ROUNDS=12 timeout 100 bash docs/results/runs/2026-12-07-twentyfourth/radix_iters.sh 2>&1 | head -30
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=median
BEFORE=before:LD_PRELOAD=$PWD/.carry/libacs_before.so
ACS_REAL_HARD=105 timeout 110 scripts/bench_real.sh --out $R/samples --budget 100 --reps 3 --modes native,acs \
  --mode $BEFORE --only '^(?!torch$|jax|cupy|warp)' > $R/samples.log 2>&1
python3 benchmarks/real/paired_ratios.py $R/samples/real_programs.json --base native --modes acs,before 2>&1 | tail -20
ACS_REAL_HARD=130 timeout 135 scripts/bench_real.sh --out $R/torch --budget 125 --reps 3 --no-warmup \
  --modes native,acs --only '^torch$' > $R/torch.log 2>&1
python3 benchmarks/real/paired_ratios.py $R/torch/real_programs.json --base native --modes acs 2>&1 | tail -20
sed 's/: acs-stats:.* relayed=\([0-9]*\).* relay_waits=\([0-9]*\).*/: relayed=\1 relay_waits=\2/' $R/torch/real_programs_stats.txt | head -20
sed 's/: acs-stats:.* relayed=\([0-9]*\).* relay_waits=\([0-9]*\).*/: relayed=\1 relay_waits=\2/' $R/samples/real_programs_stats.txt | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
