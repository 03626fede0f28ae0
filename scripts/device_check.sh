#!/usr/bin/env bash
# Everything that needs a GPU, in one command, for a GPU machine: builds once,
# then runs the preload and GPU test suites, the sample application and the
# launch-overhead measurement; with ACS_DEVICE_BENCH=1 also the benchmark matrix.
#   scripts/device_check.sh [LOG_DIR]        default: build-device/logs
# LOG_DIR receives at most 7 files: ctest.log, gpu.log, and the benchmark's
# summary.md, bench.csv, acs_stats.txt and two plots.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
logs=${1:-$root/build-device/logs}
build=$root/build-device
mkdir -p "$logs" "$build"
export PATH=/usr/local/cuda/bin:$PATH
out=$logs/gpu.log
exec > >(tee "$out") 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_BUILD_BENCHMARKS=OFF \
  >"$build/configure.log" 2>&1 || { tail -30 "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" -- -k 0 >"$build/build.log" 2>&1 || grep -E "FAILED|error" "$build/build.log" | head -20
echo "== built in $(( $(date +%s) - t0 )) s"
# A hung run is stopped (with its threads' stacks in the log) well before CTest's limit.
GPU_TEST_RUN_TIMEOUT=${GPU_TEST_RUN_TIMEOUT:-90} ctest --test-dir "$build" -L "preload|gpu" -j 6 --timeout 240 --output-on-failure >"$logs/ctest.log" 2>&1
grep -E "tests passed|tests failed|\*\*\*|Not Run" "$logs/ctest.log" | head -40
grep -ah '^\[gpu-test\] FAIL' "$build/Testing/Temporary/LastTest.log" | head -20
echo "== tests done at $(( $(date +%s) - t0 )) s"
"$root/scripts/run_sample.sh" "$build" 2>&1 | tail -14
echo "== sample done at $(( $(date +%s) - t0 )) s"
"$root/scripts/launch_overhead.sh" "$build"
echo "== overhead done at $(( $(date +%s) - t0 )) s"
if [[ ${ACS_DEVICE_TRACE:-0} == 1 ]]; then
  # A picture for the README: a wide DAG (8 chains of 30 µs kernels), shared cudart,
  # traced under acs, then drawn.
  ACS_TRACE=$build/trace_wide.json LD_PRELOAD=$build/interpose/libacs.so \
    "$build/benchmarks/gpu/acs_bench_synth_shared" --workload wide --nodes 64 --width 8 --reps 1 \
    --variants serial --csv /dev/null >/dev/null 2>&1
  python3 "$root/scripts/plot_trace.py" "$build/trace_wide.json" -o "$logs/trace_wide.png" \
    --title "acs: synth wide DAG (8 chains), serial program under the preload"
  ls -la "$logs/trace_wide.png"
fi
if [[ ${ACS_DEVICE_BENCH:-0} == 1 ]]; then
  ACS_LIB=$build/interpose/libacs.so "$root/scripts/bench.sh" --out "$build/bench" 2>&1 | tail -42
  cp "$build"/bench/{summary.md,bench.csv,acs_stats.txt,speedup.png,kernel_length.png} "$logs/" 2>/dev/null
fi
