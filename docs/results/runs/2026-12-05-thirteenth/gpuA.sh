#!/usr/bin/env bash
# Run in this session once a device came (late): the GPU suite at HEAD (default settings), the
# relay's GPU benchmark (scripts/relay_overlap.sh, gpu variant, 3 rounds), then PyTorch at batch 1
# natively, under acs and under ACS_RELAY=auto (3 interleaved processes per mode, CPUs 2-9,
# fast-state estimator).
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
ROUNDS=3 VARIANTS=gpu HOST_US="0 2 5 10 20" timeout 90 taskset -c 2-9 scripts/relay_overlap.sh build-gpu > $R/relay_overlap.txt 2>&1
echo "relay_overlap rc=$? at $(( $(date +%s)-t0 )) s"; cat $R/relay_overlap.txt
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so ACS_REAL_CPUS=2-9 ACS_REAL_ESTIMATOR=fast-state
left=$(( 575 - ($(date +%s)-t0) ))
ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/torch --budget $((left-5)) --reps 3 --no-warmup \
  --modes native,acs --mode relay:ACS_RELAY=auto --only '^torch$' > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"; tail -24 $R/torch/real_programs.md
cd $OUT && tar czf r.tgz r && rm -rf r
