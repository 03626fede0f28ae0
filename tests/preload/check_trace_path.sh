#!/bin/sh
# check_trace_path.sh PROGRAM LIBACS: runs the fake-driver program under acs with ACS_TRACE in a
# folder that does not exist. It must exit 0, and acs must say so once, when tracing starts
# (not only at exit, once the whole run is lost).
program=$1 libacs=$2
path=/nonexistent-acs-test-folder/trace.json
out=$(LD_PRELOAD=$libacs ACS_TRACE=$path "$program" side_effects_cuda 2>&1 >/dev/null)
status=$?
echo "$out"
[ "$status" -eq 0 ] || { echo "check_trace_path: the program failed (exit $status)"; exit 1; }
count=$(printf '%s\n' "$out" | grep -c "ACS_TRACE='$path'")
[ "$count" -eq 1 ] || { echo "check_trace_path: $count warnings about ACS_TRACE, expected 1"; exit 1; }
echo "check_trace_path: one warning"
