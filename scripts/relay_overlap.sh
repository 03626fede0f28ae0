#!/usr/bin/env bash
# What ACS_RELAY gains and costs on a framework-shaped loop, without a GPU: the fake driver's
# launch call takes LAUNCH_NS (default 3000, a real launch's 2-5 µs), and the program runs W µs of
# its own host work before each launch (benchmarks/cpu/launch_relay_fake.cpp). Natively, under acs
# (the stream stepped aside: its launches go straight to the driver) and under ACS_RELAY=auto (acs's
# issuing thread makes them), ROUNDS interleaved processes each (default 5): the median µs per
# iteration, and native / mode (x > 1: faster than native). The relay needs a second CPU for its
# thread: on a machine with one, it can only cost.
#   scripts/relay_overlap.sh [BUILD_DIR]     default build; ROUNDS=5 LAUNCH_NS=3000 HOST_US="0 1 2 5 10 20"
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
bin=$build/benchmarks/cpu/acs_launch_relay_fake
lib=$build/interpose/libacs.so
[[ -x $bin && -f $lib ]] || { echo "relay_overlap: $bin or $lib was not built" >&2; exit 1; }
rounds=${ROUNDS:-5}
export LD_LIBRARY_PATH="$build/tests/preload/fake_driver${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FAKE_CUDA_LAUNCH_NS=${LAUNCH_NS:-3000}
echo "fake launch: ${FAKE_CUDA_LAUNCH_NS} ns; $rounds interleaved processes per mode; CPUs: $(nproc)"
printf '%-8s %10s %10s %10s %9s %9s\n' host_us native_us acs_us relay_us acs_x relay_x
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for w in ${HOST_US:-0 1 2 5 10 20}; do
  declare -A got=()
  for ((r = 0; r < rounds; r++)); do
    got[native]+="$(env -u LD_PRELOAD "$bin" --host-us "$w" | sed -n 's/.*iteration_us=//p') "
    got[acs]+="$(LD_PRELOAD=$lib "$bin" --host-us "$w" | sed -n 's/.*iteration_us=//p') "
    got[relay]+="$(LD_PRELOAD=$lib ACS_RELAY=auto "$bin" --host-us "$w" | sed -n 's/.*iteration_us=//p') "
  done
  n=$(tr ' ' '\n' <<<"${got[native]}" | grep . | median)
  a=$(tr ' ' '\n' <<<"${got[acs]}" | grep . | median)
  y=$(tr ' ' '\n' <<<"${got[relay]}" | grep . | median)
  awk -v w="$w" -v n="$n" -v a="$a" -v y="$y" \
    'BEGIN { printf "%-8s %10.3f %10.3f %10.3f %8.2fx %8.2fx\n", w, n, a, y, n / a, n / y }'
  unset got
done
