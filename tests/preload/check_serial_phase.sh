#!/bin/sh
# check_serial_phase.sh PROGRAM LIBACS: a stream that stepped aside during a long serialised phase
# is redirected again soon after its launches become independent (docs/design.md, "Never slower:
# stepping aside": the probe gap stops doubling at 1024 launches). fake_driver_app's
# serial_phase_then_loop launches a 20000-launch dependent chain, then 3000 independent launches;
# the fake driver's streams are always idle, so ACS_PROBE_BACKLOG=0 lets a probe count them.
# At least 3000 - 1024 - 2 * 16 of the loop's launches must reach the pool; with the gap left to
# double (to 16384 after such a phase), none did.
program=$1 libacs=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
field() { sed -n "s/.*acs-stats:.* $1=\([0-9]*\).*/\1/p" "$log"; }
env -u LD_PRELOAD "$program" serial_phase_then_loop || { echo "check_serial_phase: failed without acs" >&2; exit 1; }
LD_PRELOAD=$libacs ACS_STATS=1 ACS_PROBE_BACKLOG=0 ACS_NO_PTX=arguments "$program" serial_phase_then_loop 2>"$log" ||
  { cat "$log" >&2; echo "check_serial_phase: failed under acs" >&2; exit 1; }
dispatched=$(field dispatched)
[ -n "$dispatched" ] || { cat "$log" >&2; echo "check_serial_phase: no acs-stats line" >&2; exit 1; }
echo "check_serial_phase: dispatched=$dispatched of the loop's 3000 launches"
[ "$dispatched" -ge 1944 ] ||
  { echo "check_serial_phase: the loop after the serial phase was not redirected within 1024 launches" >&2; exit 1; }
