#!/usr/bin/env bash
# The last device minutes: sortingNetworks, radixSortThrust and simpleCooperativeGroups, 7
# processes per mode: native, acs, ACS_FIRST_PROBE=100000 (no probe in the run), ACS_BYPASS=0.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=lower-quartile
ACS_REAL_HARD=115 timeout 120 scripts/bench_real.sh --out $R/s --budget 110 --reps 7 --no-warmup --modes native,acs \
  --mode noprobe:ACS_FIRST_PROBE=100000 --mode nobypass:ACS_BYPASS=0 \
  --only '^(sortingNetworks|radixSortThrust|simpleCooperativeGroups-shared)$' > $R/s.log 2>&1
echo "rc=$?"; tail -6 $R/s/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
