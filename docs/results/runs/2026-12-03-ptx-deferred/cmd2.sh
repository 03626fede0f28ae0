#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || tail $R/unpack.log
T0=$(date +%s)
MODES='native=NATIVE;acs=;disable=ACS_DISABLE=1;noptx=ACS_PTX=0' timeout 120 .carry/diag.sh $R/ms 9 mergeSort > $R/ms.txt 2>&1
MODES='native=NATIVE;acs=;disable=ACS_DISABLE=1;noptx=ACS_PTX=0' timeout 100 .carry/diag.sh $R/sn 7 sortingNetworks > $R/sn.txt 2>&1
echo "diag $(( $(date +%s) - T0 )) s" >> $R/times.txt
ACS_GRAPH=auto timeout 280 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite_auto.log 2>&1
echo "suite $(( $(date +%s) - T0 )) s" >> $R/times.txt
left=$(( 560 - ( $(date +%s) - T0 ) ))
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=$((left - 5)) timeout $left scripts/bench_real.sh --out $R/real --budget $((left - 30)) --no-warmup \
  --only 'FDTD3d|conjugateGradient|convolutionSeparable|jacobi|mergeSort|radixSortThrust|reduction|scan|simpleCooperativeGroups|simpleHyperQ|simpleStreams|sortingNetworks' \
  --mode graph:ACS_GRAPH=auto > $R/real.log 2>&1
echo "real $(( $(date +%s) - T0 )) s" >> $R/times.txt
cd $OUT && tar czf r.tgz r && rm -rf r
