#!/usr/bin/env bash
# Issue 3's overhead figures in one run: the launch_overhead program natively and
# under acs, alternately, ROUNDS times each (host timings on a VM drift from one
# process to the next: medians of interleaved runs, not one run each), plus
# interposition alone (ACS_DISABLE=1) and the eager join (ACS_JOIN=eager).
#   scripts/launch_overhead.sh [BUILD_DIR]     default build-device; ROUNDS=5
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-device}
rounds=${ROUNDS:-5}
bin=$build/benchmarks/overhead/acs_launch_overhead
lib=$build/interpose/libacs.so
get() { sed -n "s/.*$1=\([0-9.a-f]*\).*/\1/p" <<<"$2"; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
declare -A host chain
sums=""
for ((r = 0; r < rounds; r++)); do
  for mode in native acs hooks eager; do
    case $mode in
      native) out=$("$bin") ;;
      acs) out=$(LD_PRELOAD=$lib "$bin") ;;
      hooks) out=$(LD_PRELOAD=$lib ACS_DISABLE=1 "$bin") ;;
      eager) out=$(LD_PRELOAD=$lib ACS_JOIN=eager "$bin") ;;
    esac
    host[$mode]+=" $(get host_us_per_launch "$out")"
    chain[$mode]+=" $(get chain_ms "$out")"
    sums+=" $(get checksum "$out")"
  done
done
for mode in native acs hooks eager; do
  printf '%-7s host us/launch:%s   chain ms:%s\n' "$mode" "${host[$mode]}" "${chain[$mode]}"
done
n=$(median <<<"${host[native]}"); a=$(median <<<"${host[acs]}"); h=$(median <<<"${host[hooks]}")
e=$(median <<<"${host[eager]}"); cn=$(median <<<"${chain[native]}"); ca=$(median <<<"${chain[acs]}")
awk -v n="$n" -v a="$a" -v h="$h" -v e="$e" -v cn="$cn" -v ca="$ca" -v r="$rounds" 'BEGIN {
  printf "host cost added per launch (medians of %d interleaved runs): %.3f us (native %.3f us, acs %.3f us; goal <= 1 us)\n", r, a - n, n, a
  printf "  interposition alone (ACS_DISABLE=1): %+.3f us; with ACS_JOIN=eager: %+.3f us\n", h - n, e - n
  printf "2000-kernel chain of 15-60 us: native %.3f ms, acs %.3f ms: %+.2f%% (goal <= +3%%)\n", cn, ca, 100 * (ca / cn - 1)
}'
[[ $(tr ' ' '\n' <<<"$sums" | grep -v '^$' | sort -u | wc -l) == 1 ]] && echo "outputs identical: yes" ||
  { echo "outputs identical: NO"; exit 1; }
