#!/usr/bin/env bash
# Where acs's per-operator cost in eager PyTorch comes from: the CUDA calls each operator makes
# (natively and under acs), and op_overhead for the cuDNN operators with ACS_PTX=0 as a mode
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
L=$PWD/build-gpu/interpose/libacs.so
timeout 60 python3 benchmarks/torch/op_calls.py > $R/op_calls_native.txt 2>&1; echo "native rc=$?"
LD_PRELOAD=$L ACS_STATS=1 timeout 60 python3 benchmarks/torch/op_calls.py > $R/op_calls_acs.txt 2>&1; echo "acs rc=$?"
cat $R/op_calls_native.txt; echo ----; cat $R/op_calls_acs.txt | cut -c1-1500
echo "at $(( $(date +%s)-t0 )) s"
export TORCH_EXTENSIONS_DIR=/tmp/acs-ext
PYTHONPATH=$PWD/python timeout 150 python3 -m acs.torch build > $R/ext_build.log 2>&1; echo "ext rc=$?"
timeout $(( 560 - ($(date +%s)-t0) )) python3 benchmarks/torch/op_overhead.py --lib $L --ops add,linear,conv2d,batch_norm \
  --iterations 3000 --repeats 5 --mode noptx:ACS_PTX=0 --mode inline:ACS_ISSUE=inline > $R/op_overhead.txt 2>&1; echo "op_overhead rc=$? at $(( $(date +%s)-t0 )) s"
cat $R/op_overhead.txt
cd $OUT && tar czf r.tgz r && rm -rf r
