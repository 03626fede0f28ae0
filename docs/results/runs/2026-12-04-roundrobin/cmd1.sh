#!/usr/bin/env bash
# Torch rows, round-robin timing in each process: native, acs, ACS_DISABLE=1; 6 interleaved processes each;
# then the per-operator host cost (op_overhead.py, 3 processes per configuration)
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
export TORCH_EXTENSIONS_DIR=/tmp/acs-ext
PYTHONPATH=$PWD/python timeout 150 python3 -m acs.torch build > $R/ext_build.log 2>&1; echo "ext rc=$? in $(( $(date +%s)-t0 )) s" >> $R/ext_build.log
tail -1 $R/ext_build.log
left=$(( 440 - ($(date +%s)-t0) ))
ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_HARD=$left timeout $((left+15)) scripts/bench_real.sh \
  --out $R/torch --budget $((left-10)) --reps 6 --only '^torch$' > $R/bench.log 2>&1
tail -24 $R/torch/real_programs.md
echo "bench done at $(( $(date +%s)-t0 )) s"
timeout $(( 565 - ($(date +%s)-t0) )) python3 benchmarks/torch/op_overhead.py --lib $PWD/build-gpu/interpose/libacs.so \
  --iterations 3000 --repeats 3 > $R/op_overhead.txt 2>&1; echo "op_overhead rc=$? at $(( $(date +%s)-t0 )) s"
cat $R/op_overhead.txt | head -12
cd $OUT && tar czf r.tgz r && rm -rf r
