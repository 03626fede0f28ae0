#!/usr/bin/env bash
# Twenty-first session: PyTorch's two states under acs (docs/results/runs/2026-12-06-twentieth/).
# Many short processes (googlenet and dyn-moe, 20 iterations each), interleaved: native, acs, acs
# with ACS_RELAY=off, all pinned to CPUs 2-9 as bench_real.sh pins them; then acs on one CPU of each
# of four cores and on two SMT siblings. For every process under acs, where its threads ran:
# /proc/PID/task/*/stat sampled every 0.1 s (the program's main thread, acs-issue0: the relay's
# lane), counting samples where both were running on the same CPU or on siblings of one core.
#   gpuE.sh [SECONDS]   writes $OUT/r (runs.txt: one line per process)
set -u
T=${1:-540}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
lscpu > $R/lscpu.txt; lscpu -p=CPU,CORE,SOCKET,NODE | grep -v '^#' > $R/topo.csv
grep -E "^(Model name|Thread|Core|Socket|CPU\(s\)|NUMA)" $R/lscpu.txt
DISTINCT=$(awk -F, '$1>=2 && !seen[$2]++ {print $1}' $R/topo.csv | head -4 | paste -sd,)
SIB_CORE=$(awk -F, '$1>=2 {n[$2]++; c[$2]=c[$2] (c[$2]?",":"") $1} END {for (k in n) if (n[k]>=2) {print c[k]; exit}}' $R/topo.csv)
echo "distinct=$DISTINCT siblings=$SIB_CORE"
LIB=$PWD/build-lib/cur/libacs.so
core_of() { awk -F, -v c=$1 '$1==c {print $2}' $R/topo.csv; }
sample() {  # PID LOG: every 0.1 s, the CPU and state of the main thread and of acs-issue0
  local p=$1 main lane
  while kill -0 $p 2>/dev/null; do
    main=$(awk '{print $3, $39}' /proc/$p/stat 2>/dev/null)
    lane=""
    for t in /proc/$p/task/*; do
      [[ $(cat $t/comm 2>/dev/null) == acs-issue0 ]] && { lane=$(awk '{print $3, $39}' $t/stat 2>/dev/null); break; }
    done
    echo "$main | $lane"
    sleep 0.1
  done > $2
}
summary() {  # LOG: samples; both running (R) on one CPU; on siblings of one core
  awk -v topo=$R/topo.csv 'BEGIN {while ((getline l < topo) > 0) {split(l, f, ","); core[f[1]] = f[2]}}
    $4 != "" {n++; if ($1 == "R" && $4 == "R") {both++; if ($2 == $5) same++; else if (core[$2] == core[$5]) sib++}}
    END {printf "samples=%d both_running=%d same_cpu=%d sibling_cpu=%d", n, both, same, sib}' $1
}
run() {  # MODE CPUS TAG
  local env=()
  [[ $1 == acs ]] && env=(LD_PRELOAD=$LIB)
  [[ $1 == norelay ]] && env=(LD_PRELOAD=$LIB ACS_RELAY=off)
  local tag=$1.$(echo "$2" | tr ',' '_').$3
  env "${env[@]}" taskset -c $2 timeout 60 python3 benchmarks/real/torch_models.py --only '^(googlenet|dyn-moe)$' \
        --iters 20 > $R/out.$tag 2> $R/err.$tag &
  local p=$! place=""
  [[ $1 != native ]] && { sample $p $R/threads.$tag & }
  wait $p
  wait
  [[ $1 != native ]] && place=$(summary $R/threads.$tag)
  local out=$(sed -n 's/^real-result: name=\([^ ]*\) .* ms=\([0-9.]*\).*/\1=\2/p' $R/out.$tag | paste -sd' ')
  local host=$(sed -n 's/.*python loop \([0-9.]*\) before.*/loop=\1/p' $R/err.$tag)
  echo "$3 mode=$1 cpus=$2 $out $host $place" | tee -a $R/runs.txt
}
rep=0
while (( $(date +%s) - t0 < T * 2 / 3 - 30 )); do
  for m in native acs norelay; do run $m 2-9 "rep=$rep"; done
  rep=$((rep+1))
done
while (( $(date +%s) - t0 < T - 40 )); do
  run acs "$DISTINCT" "rep=$rep"
  [[ -n $SIB_CORE ]] && run acs "$SIB_CORE" "rep=$rep"
  run native "$DISTINCT" "rep=$rep"
  rep=$((rep+1))
done
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
