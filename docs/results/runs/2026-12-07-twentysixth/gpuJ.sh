#!/usr/bin/env bash
# For the next machine: why the training row (torch_models.py's train-resnet18: forward on the
# main thread, backward on autograd's thread, SGD) runs at x0.88 of native under acs (gpuI) where
# the twenty-third session measured x0.97. Interleaved processes, ROUNDS rounds (default 6), on
# the 8 fastest CPUs: native; acs (this build); acs at acd037a (.carry/libacs_before_waits_rule.so:
# the twenty-third session's library plus stats counters, before the twenty-fourth session's rule
# that a probe counts the thread's waits); ACS_RELAY=off; ACS_DISABLE=1. Then one ACS_STATS=1
# process of each library (relayed, relay_waits, relay_in_place, issue_waits, probes).
set -u
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
L=$PWD/build-gpu/interpose/libacs.so P=$PWD/.carry/libacs_before_waits_rule.so
run() {  # MODE: one process, its train and resnet18 ms
  local e=()
  case $1 in
    acs) e=(LD_PRELOAD=$L) ;; before) e=(LD_PRELOAD=$P) ;;
    relayoff) e=(LD_PRELOAD=$L ACS_RELAY=off) ;; disable) e=(LD_PRELOAD=$L ACS_DISABLE=1) ;;
  esac
  env "${e[@]}" timeout 60 taskset -c $CPUS python3 benchmarks/real/torch_models.py --only 'train|resnet18' 2>&1 |
    sed -n 's/.*name=\([a-z0-9-]*\) .* ms=\([0-9.]*\).*/\1 \2/p' | tr '\n' ' '
}
for i in $(seq 1 ${ROUNDS:-6}); do
  for m in native acs before relayoff disable; do echo "$i $m $(run $m)"; done
done | tee $R/train_rounds.txt
python3 - $R/train_rounds.txt <<'PY'
import statistics, sys, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    f = line.split()
    for name, ms in zip(f[2::2], f[3::2]):
        t[name][f[1]].append(float(ms))
for name, modes in t.items():
    nat = statistics.median(modes["native"])
    print(name, " ".join(f"{m} {statistics.median(v):.3f} (x{nat / statistics.median(v):.3f})" for m, v in modes.items()))
PY
for lib in $L $P; do
  LD_PRELOAD=$lib ACS_STATS=1 timeout 60 taskset -c $CPUS python3 benchmarks/real/torch_models.py --only 'train' 2>&1 |
    grep -oE "(relayed|relay_waits|relay_in_place|issue_waits|deferred|probes_[a-z_]+|probe_pauses|passed|kernels_seen|barriers)=[0-9]+" | tr '\n' ' '; echo " ($lib)"
done | tee $R/train_stats.txt
cd $OUT && tar czf r.tgz r && rm -rf r
