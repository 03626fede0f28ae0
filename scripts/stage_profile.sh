#!/usr/bin/env bash
# Developer's tool (GPU machine): where the host time of an intercepted launch
# goes. Builds libacs twice (normal, and with -DACS_STAGE_TIMERS=ON), then runs
# the launch-overhead comparison (scripts/launch_overhead.sh), and prints the
# mean time of each launch stage (src/support/stage_timer.hpp) and which hooks a launch calls.
#   scripts/stage_profile.sh [LAUNCHES]     default 1000
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
launches=${1:-1000}
export PATH=/usr/local/cuda/bin:$PATH
# build-device is scripts/device_check.sh's build: reused as it is configured, if it exists.
[[ -f $root/build-device/CMakeCache.txt ]] ||
  cmake -S "$root" -B "$root/build-device" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_BUILD_TESTS=OFF \
    -DACS_BUILD_BENCHMARKS=OFF >/dev/null || exit 1
cmake -S "$root" -B "$root/build-stage" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_BUILD_TESTS=OFF \
  -DACS_BUILD_BENCHMARKS=OFF -DACS_STAGE_TIMERS=ON >/dev/null || exit 1
for b in device stage; do
  cmake --build "$root/build-$b" -j "$(nproc)" --target acs acs_launch_overhead acs_join_pattern >/dev/null || exit 1
done
bin=$root/build-device/benchmarks/overhead/acs_launch_overhead
lib=$root/build-device/interpose/libacs.so
"$root/scripts/launch_overhead.sh" "$root/build-device"
echo "== stages (timers cost host time themselves)"
LD_PRELOAD=$root/build-stage/interpose/libacs.so "$root/build-stage/benchmarks/overhead/acs_launch_overhead" \
  --launches "$launches"
echo "== hooks called (debug log)"
LD_PRELOAD=$lib ACS_LOG_LEVEL=debug "$bin" --launches 100 --reps 1 2>&1 | grep -E "calls handled" | head -40
echo "== join pattern, native"
"$root/build-device/benchmarks/overhead/acs_join_pattern"
