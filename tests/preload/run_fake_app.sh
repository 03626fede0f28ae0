#!/bin/sh
# run_fake_app.sh PROGRAM LIBACS MODE [RUNS [DEFERRED [KEY]]]: runs the fake-driver program
# (fake_driver_app.cpp) in MODE natively, then RUNS times (default 1) under LD_PRELOAD=LIBACS with
# ACS_STATS=1. Every run must exit 0 (the program checks its own results). With DEFERRED=required
# (the default), the acs-stats lines must also show launches issued by acs's threads (deferred > 0,
# over all runs: on a loaded machine a run may find them asleep every time and make its launches
# itself): otherwise nothing was proved of them. DEFERRED=any: a mode whose check is about
# something else (side_effects_cuda: the environment at cuInit) needs only the stats line.
# KEY, if given: a counter of the acs-stats line that must also be non-zero over all runs.
# The pool paths are under test: streams start redirected unless the caller says otherwise.
program=$1 libacs=$2 mode=$3 runs=${4:-1} need_deferred=${5:-required} key=${6:-}
export ACS_START_ASIDE="${ACS_START_ASIDE:-0}"
env -u LD_PRELOAD "$program" "$mode" || { echo "run_fake_app: $mode failed without acs" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run=1 total=0 keyed=0
# On a loaded machine (ctest -j) every run may find acs's threads asleep: up to 12 more runs
# while what must be seen was not seen yet, each of them checked like the others.
extra=12
unseen() { { [ "$need_deferred" != any ] && [ "$total" -eq 0 ]; } || { [ -n "$key" ] && [ "$keyed" -eq 0 ]; }; }
while [ "$run" -le "$runs" ] || { [ "$run" -le $((runs + extra)) ] && unseen; }; do
  LD_PRELOAD=$libacs ACS_STATS=1 "$program" "$mode" 2>"$log"
  status=$?
  [ "$status" -eq 0 ] || { cat "$log" >&2; echo "run_fake_app: $mode failed under acs (run $run, exit $status)" >&2; exit 1; }
  deferred=$(sed -n 's/.*acs-stats:.* deferred=\([0-9]*\).*/\1/p' "$log")
  [ -n "$deferred" ] || { cat "$log" >&2; echo "run_fake_app: $mode: no acs-stats line" >&2; exit 1; }
  total=$((total + deferred))
  if [ -n "$key" ]; then
    value=$(sed -n "s/.*acs-stats:.* $key=\([0-9]*\).*/\1/p" "$log")
    keyed=$((keyed + ${value:-0}))
  fi
  run=$((run + 1))
done
runs=$((run - 1))
[ "$need_deferred" = any ] || [ "$total" -gt 0 ] || { echo "run_fake_app: $mode: acs's threads issued no launch in $runs run(s)" >&2; exit 1; }
[ -z "$key" ] || [ "$keyed" -gt 0 ] || { echo "run_fake_app: $mode: $key stayed 0 in $runs run(s)" >&2; exit 1; }
echo "run_fake_app: $mode passed natively and $runs time(s) under acs ($total launches issued by acs's threads)"
