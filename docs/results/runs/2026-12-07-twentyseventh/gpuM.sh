#!/usr/bin/env bash
# The training row's regression (x0.88 of native under acs's defaults, x0.97 with ACS_RELAY=off:
# twenty-sixth session, gpuI), per phase: train_phases.py (forward, backward on autograd's thread,
# optimizer step, the closing synchronize; medians of 200 steps) in ROUNDS interleaved rounds of
# native; acs (this build); acs at acd037a (.carry/libacs_before_waits_rule.so); ACS_RELAY=off;
# ACS_RELAY=always. Then one process of each library with ACS_STATS=1 (its whole report kept),
# then the replay A/B of gpuK.sh (host ns per replayed launch against .carry/libacs_ffe6d39.so).
# gpuM.sh [SECONDS] (default 560).
set -u
T=${1:-560}
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
D=docs/results/runs/2026-12-07-twentyseventh
L=$PWD/build-gpu/interpose/libacs.so P=$PWD/.carry/libacs_before_waits_rule.so
run() {  # MODE: one process's phases line
  local e=()
  case $1 in
    acs) e=(LD_PRELOAD=$L) ;; before) e=(LD_PRELOAD=$P) ;;
    relayoff) e=(LD_PRELOAD=$L ACS_RELAY=off) ;; always) e=(LD_PRELOAD=$L ACS_RELAY=always) ;;
  esac
  env "${e[@]}" timeout 60 taskset -c $CPUS python3 $D/train_phases.py 2>&1 | grep '^phases' | tail -1
}
for i in $(seq 1 ${ROUNDS:-3}); do
  for m in native acs before relayoff always; do echo "$i $m $(run $m)"; done
done | tee $R/train_phases.txt
python3 - $R/train_phases.txt <<'PY' | tee $R/train_phases_medians.txt
import statistics, sys, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    f = line.split()
    for kv in f[3:]:
        k, v = kv.split("=")
        t[f[1]][k].append(float(v))
for m, ks in t.items():
    print(m, " ".join(f"{k}={statistics.median(v):.0f}" for k, v in ks.items()))
PY
echo "phases at $(( $(date +%s)-t0 )) s"
for lib in $L $P; do
  echo "== $lib"; LD_PRELOAD=$lib ACS_STATS=1 timeout 60 taskset -c $CPUS python3 $D/train_phases.py --iters 100 2>&1 | grep -E "^phases|\[acs\]"
done > $R/train_stats.txt 2>&1
echo "stats at $(( $(date +%s)-t0 )) s"
A=$(( T - ($(date +%s)-t0) - 8 ))
ROUNDS=3 BEFORE=$PWD/.carry/libacs_ffe6d39.so timeout $A taskset -c $CPUS scripts/replay_overhead.sh build-gpu > $R/ro64.txt 2>&1; cat $R/ro64.txt
echo "replay at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
