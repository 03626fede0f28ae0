#!/bin/sh
# check_bypass.sh PROGRAM LIBACS: the hooks' bypass (src/support/bypass.hpp). fake_driver_app's
# threads_serial_then_loop runs 4 threads, each a 6000-launch dependent chain on its own stream
# (after a 100-launch warm-up and a pause),
# then 3000 launches each independent of the one before. Under acs every stream steps aside in the
# chain, and the bypass opens: most of the chain's launches go from the hook straight to the
# driver. Each loop must still be found and redirected to the pool (with ACS_BYPASS=0, within the
# probe gap's limit of 1024 launches; the bypass adds at most one sampled batch of 64), while the
# other threads' launches may be inside the bypass; every launch runs before its stream's sync
# returns (the program checks that, natively too).
#   - the debug log says the bypass opened;
#   - acs's path handled at most 60% of the 36400 launches (all of them with ACS_BYPASS=0);
#   - at least 4 * (3000 - 1024 - 64 - 2 * 32) = 7392 launches ran on acs's pool streams.
# Then pdl_loop: 20000 launches that each allow programmatic dependent launch, which acs passes as
# they are (XLA's): the bypass opens from them too, and acs's path handles at most 1/32 of them.
program=$1 libacs=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
env -u LD_PRELOAD "$program" threads_serial_then_loop >/dev/null || { echo "check_bypass: failed without acs" >&2; exit 1; }
LD_PRELOAD=$libacs ACS_LOG_LEVEL=debug ACS_PROBE_BACKLOG=0 ACS_NO_PTX=arguments "$program" threads_serial_then_loop \
  >"$log" 2>&1 || { tail -40 "$log" >&2; echo "check_bypass: failed under acs" >&2; exit 1; }
handled=$(sed -n 's/.*cuLaunchKernel: \([0-9]*\) calls handled.*/\1/p' "$log" | head -n 1)
pool=$(sed -n "s/^launches on acs's pool streams: \([0-9]*\)$/\1/p" "$log")
opened=$(grep -c "launches and stream operations bypass acs" "$log")
echo "check_bypass: bypass opened $opened times; acs's path handled $handled of 36400 launches; $pool on the pool"
[ "$opened" -ge 1 ] || { echo "check_bypass: the bypass never opened" >&2; exit 1; }
[ -n "$handled" ] && [ "$handled" -le 21840 ] || { echo "check_bypass: acs's path handled too many launches" >&2; exit 1; }
[ -n "$pool" ] && [ "$pool" -ge 7392 ] || { echo "check_bypass: the loops were not redirected within the limit" >&2; exit 1; }
# With ACS_START_ASIDE=0 each stream starts redirected and steps aside after its chain's first 32
# launches; the bypass opens once all four have, and closes when the loops are redirected again.
LD_PRELOAD=$libacs ACS_START_ASIDE=0 ACS_LOG_LEVEL=debug ACS_PROBE_BACKLOG=0 ACS_NO_PTX=arguments "$program" \
  threads_serial_then_loop >"$log" 2>&1 || { tail -40 "$log" >&2; echo "check_bypass: failed with ACS_START_ASIDE=0" >&2; exit 1; }
pool=$(sed -n "s/^launches on acs's pool streams: \([0-9]*\)$/\1/p" "$log")
opened=$(grep -c "launches and stream operations bypass acs" "$log")
echo "check_bypass: ACS_START_ASIDE=0: bypass opened $opened times; $pool launches on the pool"
[ "$opened" -ge 1 ] && [ -n "$pool" ] && [ "$pool" -ge 7392 ] ||
  { echo "check_bypass: with ACS_START_ASIDE=0 the bypass never opened or the loops stayed aside" >&2; exit 1; }
env -u LD_PRELOAD "$program" pdl_loop || { echo "check_bypass: pdl_loop failed without acs" >&2; exit 1; }
LD_PRELOAD=$libacs ACS_LOG_LEVEL=debug "$program" pdl_loop >"$log" 2>&1 ||
  { tail -40 "$log" >&2; echo "check_bypass: pdl_loop failed under acs" >&2; exit 1; }
handled=$(sed -n 's/.*cuLaunchKernelEx: \([0-9]*\) calls handled.*/\1/p' "$log" | head -n 1)
echo "check_bypass: pdl_loop: acs's path handled $handled of 20000 launches"
[ -n "$handled" ] && [ "$handled" -le 625 ] || { echo "check_bypass: pdl_loop's launches did not bypass acs" >&2; exit 1; }
