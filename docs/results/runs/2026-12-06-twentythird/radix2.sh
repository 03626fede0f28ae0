#!/usr/bin/env bash
# Fifth call: radixSortThrust, 9 processes per mode: acs, never probed (ACS_FIRST_PROBE=100000),
# ACS_BYPASS=0, ACS_DISABLE=1; ACS_STATS=1 under acs.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=150 timeout 155 scripts/bench_real.sh --out $R/radix2 --budget 145 --reps 9 --modes native,acs \
  --mode noprobe:ACS_FIRST_PROBE=100000 --mode nobypass:ACS_BYPASS=0 --mode disable:ACS_DISABLE=1 \
  --stats-mode acs --only '^radixSortThrust$' > $R/radix2.log 2>&1
python3 benchmarks/real/paired_ratios.py $R/radix2/real_programs.json --base native --modes acs,noprobe,nobypass,disable 2>&1 | tail -3
cut -c1-1800 $R/radix2/real_programs_stats.txt
cd $OUT && tar czf r.tgz r && rm -rf r
