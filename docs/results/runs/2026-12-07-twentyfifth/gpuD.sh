#!/usr/bin/env bash
# A second call, if device time is left after gpuC.sh: PyTorch (the 14 inference rows, the dynamic
# networks, the training run), native against acs at its defaults, 3 processes per mode, medians,
# with bench_real's ACS_STATS pass (relayed= per stream); then JAX, Warp and CuPy in what is left.
# gpuD.sh [SECONDS] (default 330).
set -u
T=${1:-330}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
if (( SLOW > 8 )); then echo "gpuD.sh: the host is slow: nothing timed"; cd $OUT && tar czf r.tgz r && rm -rf r; exit 0; fi
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
for part in torch other; do
  A=$(( T - ($(date +%s)-t0) - 8 )); (( A > 30 )) || break
  only='^torch$'; [[ $part == other ]] && only='^(jax|cupy|warp)'
  ACS_REAL_HARD=$A timeout $((A+4)) scripts/bench_real.sh --out $R/$part --budget $((A-4)) --reps 3 --no-warmup \
    --modes native,acs --only "$only" > $R/$part.log 2>&1
  echo "$part rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/$part/real_programs.md | tail -20
  grep -E "relayed=" $R/$part/real_programs_stats.txt | head -20
done
cd $OUT && tar czf r.tgz r && rm -rf r
