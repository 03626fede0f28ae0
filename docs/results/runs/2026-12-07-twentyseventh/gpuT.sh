#!/usr/bin/env bash
# How often does the training loop change its launch conditions (cuFuncSetAttribute and the like:
# each one drains acs's issuing threads and makes every launch kind unproven, so that its next
# launch cannot be relayed)? One short train_phases.py process with ACS_STATS=1 under acs's
# defaults and one with ACS_RELAY=always; the new condition_changes counter. gpuT.sh
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
[[ -f build-gpu/interpose/libacs.so ]] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > /dev/null 2>&1
L=$PWD/build-gpu/interpose/libacs.so D=docs/results/runs/2026-12-07-twentyseventh
for e in "ACS_RELAY=auto" "ACS_RELAY=always"; do
  echo "== $e"; env $e LD_PRELOAD=$L ACS_STATS=1 timeout 40 python3 $D/train_phases.py --iters 40 --warmup 10 2>&1 |
    grep -E "^phases|relayed|may change|passed through|acs-stats" | sed 's/ graphs_built.*condition_changes/ ... condition_changes/'
done | tee $R/conditions.txt
cd $OUT && tar czf r.tgz r && rm -rf r
