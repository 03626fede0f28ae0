#!/usr/bin/env bash
# Twenty-first session: PyTorch's two states under acs (docs/results/runs/2026-12-06-twentieth/).
# Many short processes (googlenet and dyn-moe, 20 iterations each), interleaved: native; `old`, the
# nineteenth session's library (build-lib/libacs.so, the one that showed the states); `acs`, this
# session's (build-lib/cur: the relay stops where its stretches are slower than without it), with
# its verdicts logged; and this one with ACS_RELAY=off; all pinned to CPUs 2-9 as bench_real.sh
# pins them; then `old` on one CPU of each of four cores and on two SMT siblings. For every process
# under acs, where its threads ran:
# /proc/PID/task/*/stat sampled every 0.1 s: the samples where the program's main thread ran while
# another of its threads (acs-issue0: the relay's lane) ran on the same CPU or on its core's sibling.
#   gpuE.sh [SECONDS]   writes $OUT/r (runs.txt: one line per process)
set -u
T=${1:-540}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
taskset -cp 0,1 $$ > /dev/null  # this script and its sampler off the programs' CPUs (2-9)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
lscpu > $R/lscpu.txt; lscpu -p=CPU,CORE,SOCKET,NODE | grep -v '^#' > $R/topo.csv
grep -E "^(Model name|Thread|Core|Socket|CPU\(s\)|NUMA)" $R/lscpu.txt
DISTINCT=$(awk -F, '$1>=2 && !seen[$2]++ {print $1}' $R/topo.csv | head -4 | paste -sd,)
SIB_CORE=$(awk -F, '$1>=2 {n[$2]++; c[$2]=c[$2] (c[$2]?",":"") $1} END {for (k in n) if (n[k]>=2) {print c[k]; exit}}' $R/topo.csv)
echo "distinct=$DISTINCT siblings=$SIB_CORE"
LIB=$PWD/build-lib/cur/libacs.so
OLD=$PWD/build-lib/libacs.so
core_of() { awk -F, -v c=$1 '$1==c {print $2}' $R/topo.csv; }
sample() {  # PID LOG: every 0.1 s, the main thread's state and CPU, then each other running thread's CPU:name
  # PID is timeout's, which runs Python as its child (gpuF's samples read timeout itself): its child.
  local p=$1 c="" i
  for i in $(seq 1 50); do c=$(pgrep -P $1 | head -n 1); [[ -n $c ]] && break; sleep 0.02; done
  [[ -n $c ]] && p=$c
  while kill -0 $p 2>/dev/null; do
    local line=$(awk '{print $3, $39}' /proc/$p/stat 2>/dev/null) t
    for t in /proc/$p/task/*; do
      [[ ${t##*/} == $p ]] && continue
      read -r st cpu < <(awk '{print $3, $39}' $t/stat 2>/dev/null)
      [[ $st == R ]] && line="$line $cpu:$(tr ' ' _ < $t/comm 2>/dev/null)"
    done
    echo "$line"
    sleep 0.1
  done > $2
}
summary() {  # LOG: samples; the main thread running beside another running thread; on its CPU; on its sibling
  awk -v topo=$R/topo.csv 'BEGIN {while ((getline l < topo) > 0) {split(l, f, ","); core[f[1]] = f[2]}}
    {n++; if ($1 != "R" || NF < 3) next; both++; s = 0; b = 0
     for (i = 3; i <= NF; i++) {split($i, c, ":"); if (c[1] == $2) s = 1; else if (core[c[1]] == core[$2]) b = 1}
     same += s; sib += b}
    END {printf "samples=%d beside=%d same_cpu=%d sibling_cpu=%d", n, both, same, sib}' $1
}
run() {  # MODE CPUS TAG
  local env=()
  [[ $1 == acs ]] && env=(LD_PRELOAD=$LIB ACS_LOG_LEVEL=debug)
  [[ $1 == old ]] && env=(LD_PRELOAD=$OLD)
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
  local verdicts=""
  [[ $1 == acs ]] && verdicts="relayed_probes=$(grep -c 'launches relayed' $R/err.$tag) unrelayed_probes=$(grep -c \
    "made on the program's thread" $R/err.$tag) pace_stops=$(grep -c 'is slower here' $R/err.$tag) wait_stops=$(grep -c \
    'the program waited for' $R/err.$tag)"
  echo "$3 mode=$1 cpus=$2 $out $host $place $verdicts" | tee -a $R/runs.txt
}
rep=0
while (( $(date +%s) - t0 < T * 2 / 3 - 30 )); do
  for m in native old acs norelay; do run $m 2-9 "rep=$rep"; done
  rep=$((rep+1))
done
while (( $(date +%s) - t0 < T - 40 )); do
  run old "$DISTINCT" "rep=$rep"
  [[ -n $SIB_CORE ]] && run old "$SIB_CORE" "rep=$rep"
  run native "$DISTINCT" "rep=$rep"
  rep=$((rep+1))
done
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
