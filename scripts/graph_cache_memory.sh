#!/usr/bin/env bash
# The memory graph replay's executable cache holds (issue 16), on a GPU machine:
# benchmarks/overhead/graph_cache_memory.cu under the preload with ACS_GRAPH=off and =auto, at
# two shape counts, interleaved ROUNDS times (medians). The executables kept come from an
# ACS_STATS=1 run of each (graphs_built - graph_evictions); the cost per executable is the
# growth with graphs on over graphs off, between the two shape counts, divided by the
# executables kept between them (the fixed costs of graph replay cancel out).
#
#   scripts/graph_cache_memory.sh [BUILD_DIR]    default build-gpu; ROUNDS=3, SHAPES="32 256"
#
# ACS_STEP_ASIDE=0 in every run: the measure is of the cache, not of when a stream is
# redirected. Prints one line per shape count and a last line "per executable: ...".
# Exit status 0, or 1 when a run fails or a checksum differs from the native run's.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-gpu}
bin=$build/benchmarks/overhead/acs_graph_cache_memory
lib=$build/interpose/libacs.so
rounds=${ROUNDS:-3}
read -r -a shapes <<<"${SHAPES:-32 256}"
[ ${#shapes[@]} -eq 2 ] || { echo "graph_cache_memory.sh: SHAPES must name two counts" >&2; exit 1; }
for f in "$bin" "$lib"; do
  [ -e "$f" ] || { echo "graph_cache_memory.sh: $f is missing (build $build first)" >&2; exit 1; }
done
field() { sed -n "s/.*[ :]$1=\([-0-9a-f]*\).*/\1/p" <<<"$2" | tail -n 1; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
status=0
declare -A dev host kept sum
for n in "${shapes[@]}"; do
  out=$("$bin" --shapes "$n" 2>&1)
  rc=$?
  [ $rc -eq 77 ] && { echo "graph_cache_memory.sh: no CUDA device: nothing to measure"; exit 0; }
  [ $rc -eq 0 ] || { echo "native run failed: $out" >&2; exit 1; }
  sum[$n]=$(field checksum "$out")
  for mode in off auto; do
    out=$(LD_PRELOAD=$lib ACS_STEP_ASIDE=0 ACS_GRAPH=$mode ACS_STATS=1 "$bin" --shapes "$n" 2>&1) ||
      { status=1; echo "$out" >&2; }
    built=$(field graphs_built "$out") evicted=$(field graph_evictions "$out")
    [ -n "$built" ] || { status=1; echo "graph_cache_memory.sh: no acs-stats line (ACS_GRAPH=$mode, $n shapes)" >&2; }
    kept[$n,$mode]=$(( ${built:-0} - ${evicted:-0} ))
  done
done
for ((r = 0; r < rounds; r++)); do
  for n in "${shapes[@]}"; do
    for mode in off auto; do
      out=$(LD_PRELOAD=$lib ACS_STEP_ASIDE=0 ACS_GRAPH=$mode "$bin" --shapes "$n" 2>&1) || { status=1; echo "$out" >&2; }
      [ "$(field checksum "$out")" = "${sum[$n]}" ] || { status=1; echo "checksum differs: $out" >&2; }
      dev[$n,$mode]+=" $(field device_bytes "$out")"
      host[$n,$mode]+=" $(field host_bytes "$out")"
    done
  done
done
declare -A growth_dev growth_host
for n in "${shapes[@]}"; do
  d_off=$(median <<<"${dev[$n,off]}"); d_on=$(median <<<"${dev[$n,auto]}")
  h_off=$(median <<<"${host[$n,off]}"); h_on=$(median <<<"${host[$n,auto]}")
  growth_dev[$n]=$(( d_on - d_off )); growth_host[$n]=$(( h_on - h_off ))
  echo "shapes=$n executables_kept=${kept[$n,auto]} (graphs off: ${kept[$n,off]}) device bytes off=$d_off auto=$d_on" \
       "host bytes off=$h_off auto=$h_on (medians of $rounds)"
done
a=${shapes[0]} b=${shapes[1]}
k=$(( kept[$b,auto] - kept[$a,auto] ))
if [ "$k" -le 0 ]; then
  echo "per executable: not measured (no more executables kept at $b shapes than at $a)"; exit 1
fi
echo "per executable: device $(( (growth_dev[$b] - growth_dev[$a]) / k )) bytes, host" \
     "$(( (growth_host[$b] - growth_host[$a]) / k )) bytes ($k more executables kept at $b shapes than at $a)"
exit $status
