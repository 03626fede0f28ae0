#!/usr/bin/env bash
# The GPU suite in one command, for a machine with a GPU: configures and builds
# acs with its tests (CMake + Ninja), runs every CTest test labelled `gpu`
# and prints a summary.
#
#   scripts/gpu_suite.sh [BUILD_DIR]          default: build-gpu-device in the repository
#
# Environment: ACS_BUILD_JOBS (default 16), ACS_TEST_JOBS (parallel tests, default 4;
# the concurrency tests always run alone), CUDA_ARCH (default 90). ACS_* settings
# such as ACS_WINDOW or ACS_STREAMS reach the runs under acs, not the native ones.
# Each test's outputs (native and acs, stdout and stderr) stay in
# BUILD_DIR/tests/gpu/out/. Exit status: 0 when no test failed.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-gpu-device}
build_jobs=${ACS_BUILD_JOBS:-16}
test_jobs=${ACS_TEST_JOBS:-4}
t0=$(date +%s)

echo "== acs GPU suite in $build"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
else
  echo "(no nvidia-smi: the GPU tests will report SKIPPED if no device is visible)"
fi

mkdir -p "$build"
if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >"$build/configure.log" 2>&1; then
  cat "$build/configure.log"
  echo "== configure FAILED"
  exit 1
fi

# Everything; if some unrelated part does not build, still build what the GPU
# tests and the sample need, and say so.
if ! cmake --build "$build" -j "$build_jobs" >"$build/build.log" 2>&1; then
  grep -E 'error|FAILED' "$build/build.log" | head -n 30
  echo "== full build FAILED (log: $build/build.log); building only acs_gpu_tests and acs_sample"
  if ! cmake --build "$build" -j "$build_jobs" --target acs_gpu_tests acs_sample; then
    echo "== build of the GPU tests FAILED"
    exit 1
  fi
fi
t1=$(date +%s)
echo "== built in $((t1 - t0)) s"

ctest --test-dir "$build" -L gpu --output-on-failure -j "$test_jobs" 2>&1 | tee "$build/gpu_suite.log"
status=${PIPESTATUS[0]}
t2=$(date +%s)

# One line per test from run_case.sh, then the totals.
log=$build/Testing/Temporary/LastTest.log
echo
echo "== summary (tests ran in $((t2 - t1)) s; outputs in $build/tests/gpu/out)"
if [[ -f $log ]]; then
  lines=$(grep -ah '^\[gpu-test\]' "$log" | sort -k3 || true)
  pass=$(grep -c '^\[gpu-test\] PASS' <<<"$lines" || true)
  fail=$(grep -c '^\[gpu-test\] FAIL' <<<"$lines" || true)
  skip=$(grep -c '^\[gpu-test\] SKIP' <<<"$lines" || true)
  grep '^\[gpu-test\] FAIL' <<<"$lines" || true
  grep '^\[gpu-test\] PASS gpu\.concurrency' <<<"$lines" || true  # the measured overlap, for the record
  echo "harness: $pass passed, $fail failed, $skip skipped"
fi
# CTest's own totals, its list of failed tests, and how many it skipped.
grep -E '% tests passed' "$build/gpu_suite.log" || true
awk '/^The following tests FAILED:/ { on = 1 } on && NF' "$build/gpu_suite.log"
skipped=$(grep -c '(Skipped)$' "$build/gpu_suite.log" || true)
[[ $skipped -gt 0 ]] && echo "skipped by CTest: $skipped (a skipped test printed why, e.g. SKIPPED: no CUDA device)"
echo "== GPU suite $([[ $status -eq 0 ]] && echo PASSED || echo FAILED) in $((t2 - t0)) s"
exit "$status"
