# Sourced by run_case.sh and scripts/stress_case.sh; needs per_run_timeout (seconds).
# Runs COMMAND with stdout and stderr to OUT and ERR; past the deadline, appends what
# each of its threads is blocked in to ERR (kernel stacks, and eu-stack's user stacks
# where installed), then stops it: exit status 124, as timeout(1) gives.
run_with_deadline() {  # run_with_deadline OUT ERR COMMAND...
  local out=$1 err=$2
  shift 2
  "$@" >"$out" 2>"$err" &
  local pid=$! ticks=0 t
  while kill -0 "$pid" 2>/dev/null; do
    if ((ticks >= per_run_timeout * 10)); then
      {
        echo "---- run_case.sh: still running after ${per_run_timeout}s; its threads:"
        for t in /proc/"$pid"/task/*; do
          echo "thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)) in $(cat "$t/wchan" 2>/dev/null)"
          cat "$t/stack" 2>/dev/null
        done
        if command -v eu-stack >/dev/null; then eu-stack -p "$pid" 2>&1 | head -n 300; fi
      } >>"$err"
      kill -TERM "$pid" 2>/dev/null
      t=0
      while kill -0 "$pid" 2>/dev/null && ((t < 100)); do
        sleep 0.1
        t=$((t + 1))
      done
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      return 124
    fi
    sleep 0.1
    ticks=$((ticks + 1))
  done
  wait "$pid"
}
