#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || tail $R/unpack.log
T0=$(date +%s)
OLD=$PWD/build-gpu/interpose/libacs.so; NEW=$PWD/.carry/fixed/libacs.so
for i in $(seq 1 20); do
  for L in old new; do
    lib=$OLD; [ $L = new ] && lib=$NEW
    LD_PRELOAD=$lib .real-src/bin/reduction > $R/red.out 2> $R/red.err; echo "$L $?" >> $R/reduction_rc.txt
  done
done
echo "reduction $(( $(date +%s) - T0 )) s" >> $R/times.txt
ACS_LIB=$NEW ACS_REAL_HARD=200 timeout 210 scripts/bench_real.sh --out $R/real --budget 190 --no-warmup --reps 9 \
  --only 'FDTD3d|jacobiCudaGraphs-nograph|sortingNetworks|mergeSort|reduction' --mode noptx:ACS_PTX=0 > $R/real.log 2>&1
echo "real $(( $(date +%s) - T0 )) s" >> $R/times.txt
S=build-gpu/benchmarks/gpu/acs_bench_synth; D=build-gpu/benchmarks/gpu/acs_bench_drl
for r in 1 2 3; do
  for w in random layered wide chain ant; do
    if [ $w = ant ]; then B="$D --workload ant --work 1"; else B="$S --workload $w --kernel-us 3"; fi
    timeout 40 $B --variants serial,graph --reps 5 2>/dev/null | grep -E "median" | sed "s/^/$w native $r /" >> $R/synth.txt
    ks="64 256 1024"; [ $r = 2 ] && ks="1024 256 64"
    for k in $ks; do
      ACS_GRAPH=auto ACS_GRAPH_KERNELS=$k LD_PRELOAD=$NEW timeout 40 $B --variants serial --reps 5 2>/dev/null | grep -E "median" | sed "s/^/$w k$k $r /" >> $R/synth.txt
    done
  done
  [ $(( $(date +%s) - T0 )) -gt 520 ] && break
done
echo "synth $(( $(date +%s) - T0 )) s" >> $R/times.txt
cd $OUT && tar czf r.tgz r && rm -rf r
