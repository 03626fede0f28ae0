#!/bin/sh
# check_memcheck.sh PROGRAM LIBACS [INTERPOSITION_TESTS RECORDING_LIB RUNTIME_DIR]: fake_driver_app's
# modes under valgrind's memcheck, with acs preloaded, in the three ways acs issues a launch: aside
# and relayed by acs's thread (ACS_RELAY=always), through the pool (streams start redirected), and
# replayed as graphs (ACS_GRAPH=auto); then, if given, the interposition tests
# (test_interposition.cpp, with acs's recording build preloaded and the fake runtime first on the
# library path) in the settings their CTest entries use. Every run must pass its own checks and memcheck must report no error: an
# invalid read or write, a use of uninitialised memory (--error-exitcode). A timing-dependent
# fault that crashes one run in hundreds on a busy machine (a program passing two parameters to a
# three-parameter kernel: acs copies what the layout names, past the array) fails here every time.
# The preloaded library is not built with a sanitizer (ASan needs its runtime first in the
# process), so this is the memory check of acs inside a program. Skips (77) without valgrind.
program=$1 libacs=$2 interposition=${3:-} recording=${4:-} runtime_dir=${5:-}
command -v valgrind >/dev/null 2>&1 || { echo "check_memcheck: valgrind is not installed: skipped"; exit 77; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0 runs=0
check() {  # SETTINGS MODE...: each mode once under memcheck with SETTINGS
  settings=$1; shift
  for mode in "$@"; do
    runs=$((runs + 1))
    if ! env $settings ACS_STATS=1 LD_PRELOAD="$libacs" valgrind -q --error-exitcode=99 "$program" "$mode" >"$log" 2>&1; then
      cat "$log" >&2
      echo "check_memcheck: $mode failed under memcheck with $settings" >&2
      failed=$((failed + 1))
    fi
  done
}
common="deferred_error_sticky deferred_error_sticky_chain chain_replay graph_arguments deferred_error_fault
  deferred_error_attribute launch_loop launch_sync_loop threads_handoff_loop serial_phase_then_loop
  first_launch_lookups threads_serial_then_loop pdl_loop"
# relay_order checks the driver's call order exactly: a relayed stream's only, the pool reorders.
check "ACS_RELAY=always ACS_START_ASIDE=1" $common relay_order
check "ACS_START_ASIDE=0" $common
check "ACS_GRAPH=auto FAKE_CUDA_GRAPHS=1" $common relay_order
if [ -n "$interposition" ]; then
  # SUITES|SETTINGS, as tests/preload/CMakeLists.txt runs them
  for spec in "-interposition_disabled*|" "interposition_pdl.*|ACS_PDL=reorder" \
              "interposition_disabled.*|ACS_DISABLE=1" "interposition_disabled_stats.*|ACS_DISABLE=1 ACS_STATS=1"; do
    filter=${spec%%|*} settings=${spec#*|}
    runs=$((runs + 1))
    if ! env $settings LD_PRELOAD="$recording" LD_LIBRARY_PATH="$runtime_dir:${LD_LIBRARY_PATH:-}" \
        valgrind -q --error-exitcode=99 "$interposition" --gtest_filter="$filter" >"$log" 2>&1; then
      cat "$log" >&2
      echo "check_memcheck: the interposition tests ($filter) failed under memcheck with '$settings'" >&2
      failed=$((failed + 1))
    fi
  done
fi
[ "$failed" -eq 0 ] || { echo "check_memcheck: $failed of $runs runs failed" >&2; exit 1; }
echo "check_memcheck: $runs runs under memcheck (fake_driver_app's modes${interposition:+, the interposition tests}), no error"
