#!/usr/bin/env bash
# Would relaying more help training? train_phases.py (standalone training, where the relay's waits
# verdict keeps it off most of the time: 309 of 70,908 launches relayed in gpuM) under native, acs
# and ACS_RELAY=always, ROUNDS (default 5) rounds, the order rotated each round; then one
# ACS_STATS=1 process with ACS_RELAY=always. gpuS.sh
set -u
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
D=docs/results/runs/2026-12-07-twentyseventh
L=$PWD/build-gpu/interpose/libacs.so
run() {
  local e=()
  case $1 in acs) e=(LD_PRELOAD=$L) ;; always) e=(LD_PRELOAD=$L ACS_RELAY=always) ;; esac
  env "${e[@]}" timeout 40 taskset -c $CPUS python3 $D/train_phases.py --iters 100 --warmup 20 2>&1 | grep '^phases' | tail -1
}
modes=(native acs always)
for i in $(seq 1 ${ROUNDS:-5}); do
  for k in 0 1 2; do m=${modes[$(( (i + k) % 3 ))]}; echo "$i $m $(run $m)"; done
  [[ $(( $(date +%s)-t0 )) -gt 190 ]] && break
done | tee $R/train_rounds.txt
python3 $D/phase_ratios.py $R/train_rounds.txt | tee $R/train_ratios.txt
LD_PRELOAD=$L ACS_RELAY=always ACS_STATS=1 timeout 40 taskset -c $CPUS python3 $D/train_phases.py --iters 100 --warmup 20 2>&1 |
  grep -E "^phases|relayed|passed through" | tee $R/train_stats.txt
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
