#!/usr/bin/env bash
# Host ns per launch on the application's thread where graph replay applies (issue 16's target:
# <= 500 ns per replayed launch, acs's decision included): benchmarks/overhead/replay_overhead.cu
# natively, under acs without graphs (ACS_GRAPH=off) and with them (ACS_GRAPH=auto), ROUNDS
# interleaved processes each; each mode's median (STAT=min: its fastest) per row, and one
# ACS_STATS=1 run with graphs, for the replay counters. Every process's checksum must agree.
#   scripts/replay_overhead.sh [BUILD_DIR]     default build-device; ROUNDS=5; ARGS="--kernels 64"
# BEFORE=PATH/libacs.so adds a mode `before`: that library with graphs (ACS_GRAPH=auto), in the same
# rounds, so that a change to the replay path is measured against the library without it;
# BEFORE_ENV="NAME=VALUE ..." adds settings to that mode only (BEFORE=the same library with
# BEFORE_ENV=ACS_RELAY=off: graphs launched on the application's thread, against relayed).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-device}
rounds=${ROUNDS:-5}
stat=${STAT:-median}
[[ $stat == median || $stat == min ]] || { echo "replay_overhead.sh: STAT=$stat: expected median or min" >&2; exit 2; }
bin=$build/benchmarks/overhead/acs_replay_overhead
lib=$build/interpose/libacs.so
[[ -x $bin && -f $lib ]] || { echo "replay_overhead.sh: $bin or $lib was not built (needs the CUDA compiler)" >&2; exit 1; }
read -r -a args <<<"${ARGS:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # MODE: one process, appended to $tmp/MODE
  case $1 in
    native) "$bin" "${args[@]}" ;;
    acs) LD_PRELOAD=$lib ACS_GRAPH=off "$bin" "${args[@]}" ;;
    graph) LD_PRELOAD=$lib ACS_GRAPH=auto "$bin" "${args[@]}" ;;
    before) env ${BEFORE_ENV:-} LD_PRELOAD="$BEFORE" ACS_GRAPH=auto "$bin" "${args[@]}" ;;
  esac >>"$tmp/$1"
}
modes=(native acs graph)
if [[ -n ${BEFORE:-} ]]; then
  [[ -f $BEFORE ]] || { echo "replay_overhead.sh: BEFORE=$BEFORE is not a file" >&2; exit 2; }
  modes+=(before)
fi
for ((r = 0; r < rounds; r++)); do for mode in "${modes[@]}"; do run $mode; done; done
LD_PRELOAD=$lib ACS_GRAPH=auto ACS_STATS=1 "$bin" "${args[@]}" >/dev/null 2>"$tmp/stats"
pick() {  # MODE ROW FIELD: the mode's median (or fastest) value of the field in that row
  sed -n "s/^row=$2 .*$3=\([0-9.]*\).*/\1/p" "$tmp/$1" | sort -g |
    awk -v stat="$stat" '{v[NR]=$1} END {print (stat == "min") ? v[1] : v[int((NR+1)/2)]}'
}
echo "replay_overhead: $rounds processes per mode, each mode's $stat; args: ${args[*]:-(defaults)};" \
  "settings: $(env | grep -E '^ACS_' | grep -v '^ACS_GRAPH=' | sort | tr '\n' ' ' || true)${BEFORE:+; before: $BEFORE ${BEFORE_ENV:-}}"
printf '%-8s %12s %12s %12s %14s %14s %14s' row native_ns acs_ns graph_ns native_iter_us acs_iter_us graph_iter_us
[[ -n ${BEFORE:-} ]] && printf ' %12s %14s' before_ns before_iter_us
echo
for row in same update fresh captured wide rooted chains8 layered8; do
  printf '%-8s %12s %12s %12s %14s %14s %14s' $row "$(pick native $row host_ns)" "$(pick acs $row host_ns)" \
    "$(pick graph $row host_ns)" "$(pick native $row iteration_us)" "$(pick acs $row iteration_us)" \
    "$(pick graph $row iteration_us)"
  [[ -n ${BEFORE:-} ]] && printf ' %12s %14s' "$(pick before $row host_ns)" "$(pick before $row iteration_us)"
  echo
done
grep -o "graph_replays=[0-9]*\|graph_updates=[0-9]*\|graphs_built=[0-9]*\|graph_kernels=[0-9]*\|graph_relayed=[0-9]*\|graph_skimmed=[0-9]*\|issue_waits=[0-9]*\|relay_waits=[0-9]*" \
  "$tmp/stats" | tr '\n' ' '
echo
sums=$(cat "${modes[@]/#/$tmp/}" | sed -n 's/^checksum=//p' | sort -u | wc -l)
[[ $sums == 1 ]] && echo "outputs identical: yes" || { echo "outputs identical: NO ($sums checksums)"; exit 1; }
