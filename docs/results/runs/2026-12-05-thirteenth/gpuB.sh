#!/usr/bin/env bash
# Run in this session after gpuA.sh: the GPU suite with every stepped-aside stream relayed
# (ACS_RELAY=always), then PyTorch at batch 1 again, natively, under acs and under ACS_RELAY=auto,
# with more processes (5 per mode, CPUs 2-9, fast-state estimator).
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
ACS_RELAY=always timeout 250 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite_relay.txt 2>&1
echo "suite (ACS_RELAY=always) rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite_relay.txt | head -20
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fast-state
left=$(( 570 - ($(date +%s)-t0) ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/torch --budget $((left-5)) --reps 5 --no-warmup \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; tail -24 $R/torch/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
