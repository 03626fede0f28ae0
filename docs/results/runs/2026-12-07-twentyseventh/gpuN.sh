#!/usr/bin/env bash
# The GPU suite at this build (cut at 240 s), then the training row in ROUNDS (default 6) interleaved
# rounds of shorter processes: train_phases.py --iters 100 --warmup 20 under native, acs,
# ACS_RELAY=off and ACS_DISABLE=1; per mode the median of each phase, and per round each mode's
# step_p50 against native's in the same round (the median of those ratios). gpuN.sh
set -u
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
D=docs/results/runs/2026-12-07-twentyseventh
L=$PWD/build-gpu/interpose/libacs.so
timeout 240 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" \
  -j 14 --timeout 100 --output-on-failure > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|\(Failed\)|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
run() {  # MODE: one process's phases line
  local e=()
  case $1 in
    acs) e=(LD_PRELOAD=$L) ;; relayoff) e=(LD_PRELOAD=$L ACS_RELAY=off) ;; disable) e=(LD_PRELOAD=$L ACS_DISABLE=1) ;;
  esac
  env "${e[@]}" timeout 40 taskset -c $CPUS python3 $D/train_phases.py --iters 100 --warmup 20 2>&1 | grep '^phases' | tail -1
}
for i in $(seq 1 ${ROUNDS:-6}); do
  for m in native acs relayoff disable; do echo "$i $m $(run $m)"; done
  [[ $(( $(date +%s)-t0 )) -gt ${BUDGET:-540} ]] && break
done | tee $R/train_rounds.txt
python3 $D/phase_ratios.py $R/train_rounds.txt | tee $R/train_ratios.txt
echo "rounds at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
