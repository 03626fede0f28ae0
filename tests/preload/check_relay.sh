#!/bin/sh
# check_relay.sh PROGRAM LIBACS: with ACS_RELAY=auto, a stepped-aside stream's launches are
# relayed to acs's issuing thread only where its program is busy between them (docs/design.md,
# "The relay"): fake_driver_app's launch_loop_busy_host (50 us of host work before each launch)
# must have its launches relayed, and launch_loop (the same launches in a tight loop, where the
# thread's hand-off would only slow them) must relay none. Both stay aside (the fake's streams are
# idle, so no probe redirects them). launch_sync_loop (host work, then a launch and a sync that
# waits for it, as an iterative solver's read-back; 3 us launches) has busy gaps too, but the
# program waits for every launch: its probes count the syncs, and the relay never starts
# (stream_mode_policy::relay_waits_per; before that rule it started, and stopped again once the
# program had waited for 16 relayed launches: about 1% of its 4000 launches relayed, and 97% with
# neither rule). threads_handoff_loop (a training step's shape: two threads take turns launching
# on one stream, 10 us of host work before each launch, a sync per turn of both) is relayed like
# the busy host: the relay's order and its verdicts hold across the program's threads. And a
# process that may run on one CPU only (taskset) relays nothing: acs's thread would take that CPU
# from the program.
program=$1 libacs=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
field() { sed -n "s/.*acs-stats:.* $1=\([0-9]*\).*/\1/p" "$log"; }
# One attempt of a mode: 0 when it behaved as the rule says. The gaps are the host's own measure,
# so a loaded machine (the tight loop preempted between two probed launches) can mislead a probe:
# each mode gets three attempts. Without the rule every attempt fails the same way.
attempt() {  # mode
  launch_ns=
  [ "$1" = launch_sync_loop ] && launch_ns=3000
  LD_PRELOAD=$libacs ACS_STATS=1 ACS_RELAY=auto FAKE_CUDA_LAUNCH_NS=$launch_ns "$program" "$1" 2>"$log" ||
    { cat "$log" >&2; echo "check_relay: $1 failed under acs" >&2; exit 1; }
  relayed=$(field relayed) dispatched=$(field dispatched) waits=$(field relay_waits)
  [ -n "$relayed" ] || { cat "$log" >&2; echo "check_relay: $1: no acs-stats line" >&2; exit 1; }
  echo "check_relay: $1: relayed=$relayed relay_waits=$waits dispatched=$dispatched"
  case $1 in
    launch_loop) [ "$relayed" -eq 0 ] ;;
    launch_loop_busy_host) [ "$relayed" -gt 1000 ] ;;
    launch_sync_loop) [ "$relayed" -eq 0 ] ;;
    threads_handoff_loop) [ "$relayed" -gt 5000 ] ;;
  esac
}
for mode in launch_loop_busy_host launch_loop launch_sync_loop threads_handoff_loop; do
  env -u LD_PRELOAD "$program" "$mode" || { echo "check_relay: $mode failed without acs" >&2; exit 1; }
  attempt "$mode" || attempt "$mode" || attempt "$mode" || {
    case $mode in
      launch_loop) echo "check_relay: a tight launch loop's launches were relayed (3 attempts)" >&2 ;;
      launch_loop_busy_host) echo "check_relay: a program busy between its launches had none relayed (3 attempts)" >&2 ;;
      launch_sync_loop) echo "check_relay: a program that waits for each of its launches had some relayed (3 attempts)" >&2 ;;
      threads_handoff_loop) echo "check_relay: two threads taking turns, busy between launches, had too few relayed (3 attempts)" >&2 ;;
    esac
    exit 1
  }
done
# One CPU: the same busy host, pinned to the first CPU it may use, relays nothing (a rule of the
# process's affinity, not of timing: one attempt).
if command -v taskset >/dev/null 2>&1; then
  cpu=$(taskset -pc $$ | sed 's/.*: *//; s/[,-].*//')
  LD_PRELOAD=$libacs ACS_STATS=1 ACS_RELAY=auto taskset -c "$cpu" "$program" launch_loop_busy_host 2>"$log" ||
    { cat "$log" >&2; echo "check_relay: launch_loop_busy_host failed on one CPU" >&2; exit 1; }
  relayed=$(field relayed)
  echo "check_relay: launch_loop_busy_host on CPU $cpu alone: relayed=$relayed"
  [ "$relayed" = 0 ] || { echo "check_relay: a process on one CPU had its launches relayed" >&2; exit 1; }
else
  echo "check_relay: no taskset here: the one-CPU case is not checked"
fi
