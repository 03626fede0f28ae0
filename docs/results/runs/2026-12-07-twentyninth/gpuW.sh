#!/usr/bin/env bash
# gpuW.sh [SUITE_S] [ROUNDS_UNTIL_S] (default 240 and 400), after ./prepare.sh, carry [".carry"].
# (1) The GPU suite at this session's library (a failing own call of acs no longer waits on the
# host for every pool stream; cut at SUITE_S). (2) The training row, train_phases.py (standalone
# training) in ROUNDS (default 4) rounds of native / acs / acs before a CUkernel's attribute
# repeats were no change (.carry/libacs_before_kernel_repeats.so, d41d3da), the order rotated,
# paired medians (phase_ratios.py), until ROUNDS_UNTIL_S. (3) One ACS_STATS=1 process of each
# library: condition_changes, condition_repeats, relayed, relay_in_place, relay_waits,
# uncopied_*. (4) The calls that still change the launch conditions (ACS_LOG_LEVEL=debug).
set -u
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
D=docs/results/runs/2026-12-07-twentyseventh  # train_phases.py, phase_ratios.py
L=$PWD/build-gpu/interpose/libacs.so P=$PWD/.carry/libacs_before_kernel_repeats.so
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
