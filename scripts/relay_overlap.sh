#!/usr/bin/env bash
# What ACS_RELAY gains and costs on a framework-shaped loop: the program runs W µs of its own host
# work before each launch of a dependent chain. Natively, under acs without the relay
# (ACS_RELAY=off: the stream stepped aside, its launches go straight to the driver) and under
# ACS_RELAY=auto (the default: acs's issuing thread makes them),
# ROUNDS interleaved processes each (default 5): the median µs per iteration, native / mode
# (x > 1: faster than native), and the µs the program's thread spends inside one launch call,
# natively and relayed. Two variants:
#   fake  benchmarks/cpu/launch_relay_fake.cpp on the fake driver, whose launch call takes
#         LAUNCH_NS (default 3000, a real launch's 2-5 µs): no GPU needed
#   gpu   benchmarks/overhead/launch_relay.cu on the GPU (a tiny kernel); its outputs' checksums
#         must agree between the modes
# The relay needs a second CPU for its thread: on a machine with one, it can only cost.
#   scripts/relay_overlap.sh [BUILD_DIR]   default build; ROUNDS=5 LAUNCH_NS=3000 HOST_US="0 1 2 5 10 20"
#                                          VARIANTS="fake gpu"
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
lib=$build/interpose/libacs.so
[[ -f $lib ]] || { echo "relay_overlap: $lib was not built" >&2; exit 1; }
rounds=${ROUNDS:-5}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for variant in ${VARIANTS:-fake gpu}; do
  env=()
  if [[ $variant == fake ]]; then
    bin=$build/benchmarks/cpu/acs_launch_relay_fake
    env=(LD_LIBRARY_PATH="$build/tests/preload/fake_driver${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
         FAKE_CUDA_LAUNCH_NS="${LAUNCH_NS:-3000}")
    what="fake driver, launch ${LAUNCH_NS:-3000} ns"
  else
    bin=$build/benchmarks/overhead/acs_launch_relay
    what="GPU"
  fi
  if [[ ! -x $bin ]]; then
    echo "$variant: $bin was not built: skipped"
    continue
  fi
  if env "${env[@]}" "$bin" --iterations 10 --reps 1 | grep -q "no CUDA device"; then
    echo "$variant: no CUDA device: skipped"
    continue
  fi
  echo "$variant ($what): $rounds interleaved processes per mode; CPUs: $(nproc)"
  printf '%-8s %10s %10s %10s %9s %9s %12s %12s\n' host_us native_us acs_us relay_us acs_x relay_x \
    native_call_us relay_call_us
  for w in ${HOST_US:-0 1 2 5 10 20}; do
    declare -A got=() call=() sums=()
    for ((r = 0; r < rounds; r++)); do
      for mode in native acs relay; do
        case $mode in
          native) out=$(env -u LD_PRELOAD "${env[@]}" "$bin" --host-us "$w") ;;
          acs) out=$(env "${env[@]}" LD_PRELOAD="$lib" ACS_RELAY=off "$bin" --host-us "$w") ;;
          relay) out=$(env "${env[@]}" LD_PRELOAD="$lib" ACS_RELAY=auto "$bin" --host-us "$w") ;;
        esac
        got[$mode]+="$(sed -n 's/.*iteration_us=\([0-9.]*\).*/\1/p' <<<"$out") "
        call[$mode]+="$(sed -n 's/.*launch_us=\([0-9.]*\).*/\1/p' <<<"$out") "
        sum=$(sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' <<<"$out")
        [[ -z $sum ]] || sums[$sum]=1  # the fake's kernels compute nothing: no checksum
      done
    done
    (( ${#sums[@]} <= 1 )) || { echo "relay_overlap: $variant, W=$w: the outputs differ between modes" >&2; exit 1; }
    n=$(tr ' ' '\n' <<<"${got[native]}" | grep . | median)
    a=$(tr ' ' '\n' <<<"${got[acs]}" | grep . | median)
    y=$(tr ' ' '\n' <<<"${got[relay]}" | grep . | median)
    nc=$(tr ' ' '\n' <<<"${call[native]}" | grep . | median)
    yc=$(tr ' ' '\n' <<<"${call[relay]}" | grep . | median)
    awk -v w="$w" -v n="$n" -v a="$a" -v y="$y" -v nc="$nc" -v yc="$yc" \
      'BEGIN { printf "%-8s %10.3f %10.3f %10.3f %8.2fx %8.2fx %12.3f %12.3f\n", w, n, a, y, n / a, n / y, nc, yc }'
    unset got call sums
  done
done
