#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || tail $R/unpack.log
T0=$(date +%s)
L=$PWD/build-gpu/interpose/libacs.so
ACS_GRAPH_KERNELS=256 ACS_LIB=$L ACS_BENCH_DEADLINE=180 timeout 210 scripts/bench.sh --build build-gpu/benchmarks --no-build --out $R/short256 --only 'short$|^dynnn-' > $R/short256.log 2>&1
echo "short $(( $(date +%s) - T0 )) s" >> $R/times.txt
MODES='native=NATIVE;acs=;disable=ACS_DISABLE=1;eagern=NATIVE CUDA_MODULE_LOADING=EAGER;eagera=CUDA_MODULE_LOADING=EAGER;eagerd=CUDA_MODULE_LOADING=EAGER ACS_DISABLE=1' \
  ARGS='-dimx=128 -dimy=128 -dimz=128 -timesteps=10' RE='FDTD3d, Throughput = ([0-9.]+) MPoints/s' timeout 90 .carry/diag.sh $R/fd 7 FDTD3d > $R/fd.txt 2>&1
echo "fdtd $(( $(date +%s) - T0 )) s" >> $R/times.txt
ACS_GRAPH=auto ACS_GRAPH_KERNELS=256 timeout 110 ctest --test-dir build-gpu -L "preload|gpu" -R "graph|semantics|host_mapped|spin|pdl|launch_paths" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite_graph256.log 2>&1
echo "suite $(( $(date +%s) - T0 )) s" >> $R/times.txt
cd $OUT && tar czf r.tgz r && rm -rf r
