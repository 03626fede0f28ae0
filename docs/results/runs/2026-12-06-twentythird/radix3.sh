#!/usr/bin/env bash
# radixSortThrust, 9 processes per mode: what costs acs 2-4% there (its probe finds nothing, and
# ACS_FIRST_PROBE=100000, no probe at all, read x0.99): the PTX read its first probe starts
# (ACS_PTX=0), the relay (ACS_RELAY=off), no probe; then one process under ACS_LOG_LEVEL=debug.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
[[ -x build-gpu/interpose/libacs.so || -f build-gpu/interpose/libacs.so ]] ||
  { rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1; }
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=median
ACS_REAL_HARD=120 timeout 125 scripts/bench_real.sh --out $R/radix3 --budget 115 --reps 9 --modes native,acs \
  --mode noptx:ACS_PTX=0 --mode norelay:ACS_RELAY=off --mode noprobe:ACS_FIRST_PROBE=100000 \
  --only '^radixSortThrust$' > $R/radix3.log 2>&1
python3 benchmarks/real/paired_ratios.py $R/radix3/real_programs.json --base native --modes acs,noptx,norelay,noprobe 2>&1 | tail -3
grep "^Host" $R/radix3/real_programs.md
taskset -c 2-9 env LD_PRELOAD=$ACS_LIB ACS_LOG_LEVEL=debug ACS_STATS=1 .real-src/bin/radixSortThrust > $R/debug.txt 2>&1
grep -v "^$" $R/debug.txt | cut -c1-300 | head -40
cd $OUT && tar czf r.tgz r && rm -rf r
