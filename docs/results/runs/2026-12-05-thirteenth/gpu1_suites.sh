#!/usr/bin/env bash
# The GPU suite at HEAD with the default settings, then again with every stepped-aside stream
# relayed (ACS_RELAY=always: the relay under the real driver, every test's output compared as usual).
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 250 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
ACS_RELAY=always timeout 250 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite_relay.txt 2>&1
echo "suite (ACS_RELAY=always) rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite_relay.txt | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
