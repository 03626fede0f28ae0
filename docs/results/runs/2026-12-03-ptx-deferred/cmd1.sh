#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || { tail $R/unpack.log; }
nvidia-smi -L > $R/gpu.txt
MODES='native=NATIVE;acs=;disable=ACS_DISABLE=1;noptx=ACS_PTX=0;eagern=NATIVE CUDA_MODULE_LOADING=EAGER;eagera=CUDA_MODULE_LOADING=EAGER;stage=LIB=.carry/stage/libacs.so' \
  timeout 200 .carry/diag.sh $R/ms 9 mergeSort > $R/ms.txt 2>&1
MODES='native=NATIVE;acs=;disable=ACS_DISABLE=1;noptx=ACS_PTX=0;eagern=NATIVE CUDA_MODULE_LOADING=EAGER;eagera=CUDA_MODULE_LOADING=EAGER;stage=LIB=.carry/stage/libacs.so' \
  timeout 150 .carry/diag.sh $R/sn 5 sortingNetworks > $R/sn.txt 2>&1
B=build-gpu/benchmarks/gpu/acs_bench_synth
L=$PWD/build-gpu/interpose/libacs.so
for w in layered wide; do
  timeout 30 $B --workload $w --kernel-us 3 --variants serial,graph --reps 5 > $R/synth_$w.native.txt 2>&1
  for k in 64 128 256 1024; do
    ACS_GRAPH=auto ACS_GRAPH_KERNELS=$k LD_PRELOAD=$L timeout 30 $B --workload $w --kernel-us 3 --variants serial --reps 5 > $R/synth_$w.k$k.txt 2>&1
  done
  ACS_GRAPH=auto ACS_GRAPH_KERNELS=256 ACS_STATS=1 LD_PRELOAD=$L timeout 30 $B --workload $w --kernel-us 3 --variants serial --reps 5 > $R/synth_$w.k256stats.txt 2>&1
  ACS_GRAPH=auto ACS_STATS=1 LD_PRELOAD=$L timeout 30 $B --workload $w --kernel-us 3 --variants serial --reps 5 > $R/synth_$w.k64stats.txt 2>&1
done
cd $OUT && tar czf r.tgz r && rm -rf r
