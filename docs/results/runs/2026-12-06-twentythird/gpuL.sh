#!/usr/bin/env bash
# Twenty-third session (relayed graphs only where the program goes on launching; a graph's copies
# released under one lock):
# (1) the 2000-kernel rows with wider graph lanes (width2000.sh), relayed and not; (2) replay_overhead.sh, the same library
# under ACS_RELAY=off as BEFORE (the 8-kernel rows should now match it); (3) the whole GPU suite
# under ACS_GRAPH=auto (issue 16 asks for it).   gpuL.sh [SECONDS]
set -u
T=${1:-570}
cd "$(dirname "$0")/../../../.."
D=docs/results/runs/2026-12-06-twentythird
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
ROUNDS=2 timeout 130 $D/width2000.sh build-gpu $R/width2000.csv > $R/width2000.txt 2>&1
grep -q speed-ups $R/width2000.txt || ROUNDS=0 $D/width2000.sh build-gpu $R/width2000.csv >> $R/width2000.txt 2>&1; cat $R/width2000.txt
echo "== at $(( $(date +%s)-t0 )) s"
export BEFORE=$PWD/build-gpu/interpose/libacs.so BEFORE_ENV=ACS_RELAY=off
ROUNDS=2 timeout 50 scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
ROUNDS=2 ARGS="--kernels 8" timeout 35 scripts/replay_overhead.sh build-gpu > $R/ro8.txt 2>&1; cat $R/ro8.txt
unset BEFORE BEFORE_ENV
echo "== at $(( $(date +%s)-t0 )) s"
A=$(( T - ($(date +%s)-t0) - 15 ))
ACS_GRAPH=auto timeout $A ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" \
  -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
grep -E "tests passed|Failed|\(Failed\)|Timeout|Total Test|Not Run" $R/suite.txt | tail -20
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
