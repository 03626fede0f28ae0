#!/usr/bin/env bash
# Torch rows: native, acs, ACS_DISABLE=1, acs.torch (ACS_TORCH=1), ACS_GRAPH=auto; 5 interleaved processes each
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
export TORCH_EXTENSIONS_DIR=/tmp/acs-ext
t0=$(date +%s)
PYTHONPATH=$PWD/python timeout 150 python3 -m acs.torch build > $R/ext_build.log 2>&1; echo "ext rc=$? in $(( $(date +%s)-t0 )) s" >> $R/ext_build.log
tail -3 $R/ext_build.log
left=$(( 530 - ($(date +%s)-t0) ))
B=$PWD/python/acs/torch/_boot
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=$left timeout $((left+15)) scripts/bench_real.sh \
  --out $R/torch --budget $((left-10)) --reps 5 --only '^torch$' \
  --mode "torch:ACS_TORCH=1,PYTHONPATH=$B:$PWD/python" --mode graph:ACS_GRAPH=auto --stats-mode torch \
  > $R/bench.log 2>&1
tail -30 $R/torch/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
