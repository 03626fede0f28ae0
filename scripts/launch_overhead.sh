#!/usr/bin/env bash
# Issue 3's overhead figures in one run: the launch_overhead program natively,
# under acs, and natively again (to show the noise), then the differences.
#   scripts/launch_overhead.sh [BUILD_DIR]     default build-device
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-device}
bin=$build/benchmarks/overhead/acs_launch_overhead
lib=$build/interpose/libacs.so
native1=$("$bin")
acs=$(LD_PRELOAD=$lib "$bin")
hooks=$(LD_PRELOAD=$lib ACS_DISABLE=1 "$bin")
eager=$(LD_PRELOAD=$lib ACS_JOIN=eager "$bin")
native2=$("$bin")
echo "native:        $native1"
echo "acs:           $acs"
echo "hooks only:    $hooks   (ACS_DISABLE=1: interposition without scheduling)"
echo "eager join:    $eager   (ACS_JOIN=eager)"
echo "native again:  $native2"
get() { sed -n "s/.*$1=\([0-9.a-f]*\).*/\1/p" <<<"$2"; }
awk -v n1="$(get host_us_per_launch "$native1")" -v n2="$(get host_us_per_launch "$native2")" \
    -v a="$(get host_us_per_launch "$acs")" -v h="$(get host_us_per_launch "$hooks")" \
    -v e="$(get host_us_per_launch "$eager")" -v c1="$(get chain_ms "$native1")" \
    -v c2="$(get chain_ms "$native2")" -v ca="$(get chain_ms "$acs")" 'BEGIN {
  n = (n1 + n2) / 2; c = (c1 + c2) / 2
  printf "host cost added per launch: %.3f us (native %.3f us, acs %.3f us; goal <= 1 us)\n", a - n, n, a
  printf "  of which interposition alone (ACS_DISABLE=1): %.3f us\n", h - n
  printf "  with ACS_JOIN=eager instead: %.3f us\n", e - n
  printf "2000-kernel chain of 15-60 us: native %.3f ms, acs %.3f ms: %+.2f%% (goal <= +3%%)\n", c, ca, 100 * (ca / c - 1)
}'
[[ $(get checksum "$native1") == $(get checksum "$acs") ]] && echo "outputs identical: yes" || { echo "outputs identical: NO"; exit 1; }
