#!/usr/bin/env bash
# Everything that needs a GPU, in one command, for a GPU machine: builds once,
# then runs the preload and GPU test suites, the sample application and the
# benchmark smoke run. Logs go to $1 (default: build-device/logs).
#   scripts/device_check.sh [LOG_DIR] [--bench-full]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
logs=${1:-$root/build-device/logs}
build=$root/build-device
mkdir -p "$logs"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/gpu.txt"
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_BUILD_BENCHMARKS=OFF \
  >"$logs/configure.log" 2>&1 || { tail -30 "$logs/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" -- -k 0 >"$logs/build.log" 2>&1 || grep -E "FAILED|error" "$logs/build.log" | head -20
echo "== built in $(( $(date +%s) - t0 )) s"
ctest --test-dir "$build" -L "preload|gpu" -j 6 --timeout 120 --output-on-failure >"$logs/ctest.log" 2>&1
grep -E "tests passed|tests failed|\*\*\*|Failed|Not Run" "$logs/ctest.log" | head -60
grep -ah '^\[gpu-test\] FAIL' "$build/Testing/Temporary/LastTest.log" | head -20
echo "== tests done at $(( $(date +%s) - t0 )) s"
"$root/scripts/run_sample.sh" "$build" >"$logs/sample.log" 2>&1; tail -15 "$logs/sample.log"
echo "== sample done at $(( $(date +%s) - t0 )) s"
