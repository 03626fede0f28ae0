#!/usr/bin/env bash
# Seventh call (warm machine after radix3): radixSortThrust, 25 processes per mode: native, acs,
# ACS_PTX=0, ACS_RELAY=off, never probed (ACS_FIRST_PROBE=100000).
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=150 timeout 155 scripts/bench_real.sh --out $R/radix4 --budget 145 --reps 25 --modes native,acs \
  --mode noptx:ACS_PTX=0 --mode norelay:ACS_RELAY=off --mode noprobe:ACS_FIRST_PROBE=100000 \
  --only '^radixSortThrust$' > $R/radix4.log 2>&1
python3 benchmarks/real/paired_ratios.py $R/radix4/real_programs.json --base native --modes acs,noptx,norelay,noprobe 2>&1 | tail -3
cd $OUT && tar czf r.tgz r && rm -rf r
