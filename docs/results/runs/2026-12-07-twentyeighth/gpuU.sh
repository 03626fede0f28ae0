#!/usr/bin/env bash
# The twenty-seventh session's gpuU.sh with its time caps as arguments: gpuU.sh [SUITE_S] [ROUNDS_UNTIL_S]
# (default 240 and 400). For the next machine (about 450 s at the defaults, one call): (1) the GPU suite at this session's final library
# (attribute repeats are no change; cut at 240 s); (2) the training row, train_phases.py (standalone
# training) in ROUNDS (default 4) rounds of native / acs / acs before attribute repeats were no
# change (.carry/libacs_before_repeats.so, df33711), the order rotated, paired medians
# (phase_ratios.py); (3) one ACS_STATS=1 process of each library: condition_changes,
# condition_repeats, relayed, relay_in_place, relay_waits, uncopied_*; (4) which calls still change
# the conditions (ACS_LOG_LEVEL=debug, counted by entry point and attribute). If repeats are what
# kept training from relaying, acs relays far more of its launches than before, with fewer waits.
# Run ../2026-12-07-twentyseventh/prepare.sh first.
set -u
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
D=docs/results/runs/2026-12-07-twentyseventh  # train_phases.py, phase_ratios.py
L=$PWD/build-gpu/interpose/libacs.so P=$PWD/.carry/libacs_before_repeats.so
timeout ${1:-240} ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" \
  -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|\(Failed\)|\*\*\*Timeout" $R/suite.txt | head -20
run() {
  local e=()
  case $1 in acs) e=(LD_PRELOAD=$L) ;; before) e=(LD_PRELOAD=$P) ;; esac
  env "${e[@]}" timeout 40 taskset -c $CPUS python3 $D/train_phases.py --iters 100 --warmup 20 2>&1 | grep '^phases' | tail -1
}
modes=(native acs before)
for i in $(seq 1 ${ROUNDS:-4}); do
  for k in 0 1 2; do m=${modes[$(( (i + k) % 3 ))]}; echo "$i $m $(run $m)"; done
  [[ $(( $(date +%s)-t0 )) -gt ${2:-400} ]] && break
done | tee $R/train_rounds.txt
python3 $D/phase_ratios.py $R/train_rounds.txt | tee $R/train_ratios.txt
for lib in $L $P; do
  echo "== $lib"; LD_PRELOAD=$lib ACS_STATS=1 timeout 40 taskset -c $CPUS python3 $D/train_phases.py --iters 40 --warmup 10 2>&1 |
    grep -E "^phases|relayed|may change|already held|not copyable|acs-stats" |
    sed 's/ graphs_built=.* probe_code_wait_us=[0-9]*/ .../'
done | tee $R/train_stats.txt
# Which calls change the conditions, by entry point and attribute (ACS_LOG_LEVEL=debug's lines).
LD_PRELOAD=$L ACS_LOG_LEVEL=debug timeout 40 taskset -c $CPUS python3 $D/train_phases.py --iters 20 --warmup 5 2>&1 |
  grep -E "may change whether|a change of the launch conditions" |
  sed -E 's/function 0x[0-9a-f]+/function F/; s/set to [0-9]+ \(before: [^)]*\)/set/' | sort | uniq -c | sort -rn | head -20 |
  tee $R/condition_calls.txt
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
