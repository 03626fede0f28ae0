#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || tail $R/unpack.log
for k in 256 64 256; do
  ACS_GRAPH=auto ACS_GRAPH_KERNELS=$k timeout 40 ctest --test-dir build-gpu -R "graph_replay.loop_spin_mapped" --output-on-failure -V > $R/spin_k$k.$RANDOM.log 2>&1
done
cd $OUT && tar czf r.tgz r && rm -rf r
