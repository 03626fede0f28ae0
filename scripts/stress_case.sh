#!/usr/bin/env bash
# Hunts intermittent hangs: runs one GPU test program many times, several at once, under
# each of a list of settings, and reports every run that did not finish in time, with
# what its threads were blocked in (tests/gpu/run_with_deadline.sh).
#
#   scripts/stress_case.sh [options] -- PROGRAM [ARGS...]
#     --lib LIBACS       libacs.so (default build-device/interpose/libacs.so)
#     --runs N           runs per setting (default 20)
#     --jobs J           runs at once (default 6)
#     --timeout S        per run (default 60)
#     --setting 'K=V K=V'  one setting: environment for the run; "native" runs without
#                        the preload. Repeatable; default: native, ACS_STATS=1.
#     --out DIR          logs of the runs that hung or failed (default: a temp dir)
# Prints one line per setting: runs, exit statuses seen, hangs, run times. Exit status 1 if
# any hung.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lib=$root/build-device/interpose/libacs.so runs=20 jobs=6 out=""
per_run_timeout=60  # read by run_with_deadline
export per_run_timeout
settings=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lib) lib=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --timeout) per_run_timeout=$2; shift 2 ;;
    --setting) settings+=("$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "stress_case.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 1 ]] || { echo "usage: stress_case.sh [options] -- PROGRAM [ARGS...]" >&2; exit 2; }
[[ ${#settings[@]} -gt 0 ]] || settings=(native "ACS_STATS=1")
[[ -n $out ]] || out=$(mktemp -d)
mkdir -p "$out"
# shellcheck source=../tests/gpu/run_with_deadline.sh
source "$root/tests/gpu/run_with_deadline.sh"

one() {  # one SETTING_INDEX RUN
  local env_args=(-u LD_PRELOAD) setting=${settings[$1]} base="$out/s$1.r$2"
  shift 2
  # shellcheck disable=SC2206  # settings are plain K=V words
  [[ $setting == native ]] || env_args+=(LD_PRELOAD="$lib" $setting)
  local t0 t1
  t0=$(date +%s.%N)
  run_with_deadline "$base.out" "$base.err" env "${env_args[@]}" "$@"
  local rc=$?
  t1=$(date +%s.%N)
  echo "$rc" >"$base.rc"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$base.secs"
  [[ $rc != 0 ]] || rm -f "$base.out" "$base.err"
}

hung=0
for i in "${!settings[@]}"; do
  for ((r = 0; r < runs; r++)); do
    one "$i" "$r" "$@" &
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
  done
  wait
  codes=$(cat "$out"/s"$i".r*.rc | sort | uniq -c | awk '{printf "%s%sx exit %s", sep, $1, $2; sep=", "}')
  h=$(grep -lx 124 "$out"/s"$i".r*.rc 2>/dev/null | wc -l)
  hung=$((hung + h))
  secs=$(sort -g "$out"/s"$i".r*.secs | awk '{v[NR]=$1} END {printf "%s / %s / %s", v[1], v[int((NR+1)/2)], v[NR]}')
  echo "setting '${settings[$i]}': $runs runs ($codes); hung: $h; seconds min / median / max: $secs"
  for f in $(grep -lx 124 "$out"/s"$i".r*.rc 2>/dev/null); do
    echo "---- $(basename "${f%.rc}") stdout:"; tail -n 15 "${f%.rc}.out"
    echo "---- stderr:"; tail -n 80 "${f%.rc}.err"
  done
done
exit $((hung > 0))
