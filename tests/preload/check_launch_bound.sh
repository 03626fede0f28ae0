#!/bin/sh
# check_launch_bound.sh PROGRAM LIBACS: with ACS_GRAPH=auto, a stream the GPU keeps up with (the
# fake driver's streams are always idle) is redirected only where its host is launch-bound
# (docs/design.md, "Never slower: stepping aside"; the fake kernel has no PTX, so its footprint
# comes from its arguments: ACS_NO_PTX=arguments): fake_driver_app's launch_loop (a tight loop
# of independent launches) must reach the pool, with probes_launch_bound counted, and
# launch_loop_busy_host (50 us of host work between the same launches) must stay aside.
program=$1 libacs=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
field() { sed -n "s/.*acs-stats:.* $1=\([0-9]*\).*/\1/p" "$log"; }
# One attempt of a mode: 0 when it behaved as the rule says. A probed launch's time in the hook
# is the host's own measure, so a loaded machine (a launch preempted for longer than the 50 us
# of host work) can mislead one probe: each mode gets three attempts. Without the rule every
# attempt fails the same way (the fake's streams are idle: nothing else can redirect them).
attempt() {  # mode
  LD_PRELOAD=$libacs ACS_STATS=1 ACS_GRAPH=auto ACS_NO_PTX=arguments "$program" "$1" 2>"$log" ||
    { cat "$log" >&2; echo "check_launch_bound: $1 failed under acs" >&2; exit 1; }
  dispatched=$(field dispatched) bound=$(field probes_launch_bound) idle=$(field probes_idle)
  [ -n "$dispatched" ] && [ -n "$bound" ] || { cat "$log" >&2; echo "check_launch_bound: $1: no acs-stats line" >&2; exit 1; }
  echo "check_launch_bound: $1: dispatched=$dispatched probes_idle=$idle probes_launch_bound=$bound"
  case $1 in
    launch_loop) [ "$dispatched" -gt 0 ] && [ "$bound" -gt 0 ] ;;
    launch_loop_busy_host) [ "$dispatched" -eq 0 ] ;;
  esac
}
for mode in launch_loop launch_loop_busy_host; do
  env -u LD_PRELOAD "$program" "$mode" || { echo "check_launch_bound: $mode failed without acs" >&2; exit 1; }
  attempt "$mode" || attempt "$mode" || attempt "$mode" || {
    case $mode in
      launch_loop) echo "check_launch_bound: a launch-bound host's independent launches never reached the pool (3 attempts)" >&2 ;;
      launch_loop_busy_host) echo "check_launch_bound: a stream whose host is busy between launches onto an idle stream was redirected (3 attempts)" >&2 ;;
    esac
    exit 1
  }
done
