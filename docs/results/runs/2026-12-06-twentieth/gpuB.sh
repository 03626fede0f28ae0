#!/usr/bin/env bash
# Twentieth session: why do PyTorch processes under acs fall into two states (gpuAB, gpuAA:
# googlenet 3.2-3.5 ms in some acs processes, 5.4-6.7 ms in others, native 4.2-4.6), while native
# processes beside them do not? Hypothesis: the relay's lane thread (it spins 200 us after each
# call) shares a physical core with the program's thread (SMT siblings). Test: googlenet and
# dyn-moe, native, acs and acs with ACS_RELAY=off, pinned to (a) CPUs 2-9 as bench_real does, (b) one logical CPU on each
# of 4 cores, (c) the two siblings of one core, (d) two CPUs on two cores; reps interleaved; then
# where the threads ran in a 2-9 acs process. gpuB.sh [SECONDS]
set -u
T=${1:-300}
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
lscpu > $R/lscpu.txt; lscpu -p=CPU,CORE,SOCKET,NODE | grep -v '^#' > $R/topo.csv
grep -E "^(Model name|Thread|Core|Socket|CPU\(s\))" $R/lscpu.txt
# (b) one CPU on each of the cores of CPUs 2..: the first CPU seen of each core, 4 cores
DISTINCT=$(awk -F, '$1>=2 && !seen[$2]++ {print $1}' $R/topo.csv | head -4 | paste -sd,)
TWO=$(echo $DISTINCT | cut -d, -f1,2)
# (c) a core with two CPUs, both of them
SIB_CORE=$(awk -F, '$1>=2 {n[$2]++; c[$2]=c[$2] (c[$2]?",":"") $1} END {for (k in n) if (n[k]>=2) {print c[k]; exit}}' $R/topo.csv)
echo "distinct=$DISTINCT two=$TWO siblings=$SIB_CORE"
LIB=$PWD/build-lib/cur/libacs.so  # this session's library (5ee0224)
run() {  # MODE CPUS TAG
  local env=()
  [[ $1 == acs ]] && env=(LD_PRELOAD=$LIB)
  [[ $1 == norelay ]] && env=(LD_PRELOAD=$LIB ACS_RELAY=off)
  # acs with its probes' verdicts logged: which processes relayed, and for how long
  [[ $1 == acslog ]] && env=(LD_PRELOAD=$LIB ACS_LOG_LEVEL=debug)
  local out log=$R/stderr.$1.$(echo "$2" | tr ',' '_').$3
  out=$(env "${env[@]}" taskset -c $2 timeout 60 python3 benchmarks/real/torch_models.py --only '^(googlenet|dyn-moe)$' \
        --iters 20 2>$log | sed -n 's/^real-result: name=\([^ ]*\) .* ms=\([0-9.]*\).*/\1=\2/p' | paste -sd' ')
  local verdicts=""
  [[ $1 == acslog ]] && verdicts="relayed_probes=$(grep -c 'launches relayed' $log) unrelayed_probes=$(grep -c \
    "made on the program's thread" $log) relay_stops=$(grep -c 'the program waited for' $log)"
  echo "$3 mode=$1 cpus=$2 $out $verdicts" | tee -a $R/runs.txt
}
sets=("2-9")
[[ -n $SIB_CORE ]] && sets+=("$SIB_CORE")
sets+=("$DISTINCT" "$TWO")
rep=0
while (( $(date +%s) - t0 < T - 100 )) && (( rep < 5 )); do
  for c in "${sets[@]}"; do for m in native acs norelay; do run $m "$c" "rep=$rep"; done; done
  run acslog 2-9 "rep=$rep"
  rep=$((rep+1))
done
# Where the threads run: an acs process on 2-9, sampled every 0.5 s.
(env LD_PRELOAD=$LIB taskset -c 2-9 python3 benchmarks/real/torch_models.py --only '^googlenet$' --iters 60 \
   > /dev/null 2>&1 & p=$!; for i in $(seq 1 30); do sleep 0.5; ps -L -o tid=,psr=,pcpu=,comm= -p $p 2>/dev/null | \
   awk -v t=$i '$3>5 {print "t=" t, $0}'; done; wait $p) > $R/threads.txt 2>&1
tail -40 $R/threads.txt
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
