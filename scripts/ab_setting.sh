#!/usr/bin/env bash
# A/B of one acs setting on the synthetic long-kernel DAGs (GPU machine): for each round and
# shape, the plain serial and oracle variants, then the serial program under the preload
# (ACS_INFER=$INFER, default alloc) once per value, interleaved so that drift hits every value alike.
# Prints, per shape and value, the median over rounds of each run's median time and the
# share of the oracle's gain.
#   scripts/ab_setting.sh VARIABLE "VALUE1 VALUE2 ..." [ROUNDS]      e.g. ACS_MERGE "never adaptive" 3
# Environment: BUILD (default build-ab), SHAPES (default "wide layered random"), KERNEL_US (30),
# INFER (the ACS_INFER of every run, default alloc).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
var=$1 values=$2 rounds=${3:-3}
build=${BUILD:-$root/build-ab}
shapes=${SHAPES:-wide layered random}
export PATH=/usr/local/cuda/bin:$PATH
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_BUILD_TESTS=OFF \
  -DACS_BUILD_BENCHMARKS=OFF >/dev/null && cmake --build "$build" --target acs acs_bench_synth >/dev/null ||
  { echo "build failed"; exit 1; }
bin=$build/benchmarks/gpu/acs_bench_synth lib=$build/interpose/libacs.so
cycles=$("$bin" --print-clock) || { echo "no GPU clock"; exit 1; }
out=$(mktemp -d)
common=(--kernel-us "${KERNEL_US:-30}" --cycles-per-us "$cycles" --reps 5)
for ((r = 0; r < rounds; r++)); do
  for shape in $shapes; do
    "$bin" --workload "$shape" "${common[@]}" --variants serial,oracle --csv "$out/plain.csv" >/dev/null 2>&1
    for v in $values; do
      env LD_PRELOAD="$lib" ACS_INFER="${INFER:-alloc}" "$var=$v" "$bin" --workload "$shape" "${common[@]}" \
        --variants serial --csv "$out/$v.csv" >/dev/null 2>&1
    done
  done
done
# median_ms is column 11; workload 3; variant 7.
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
times() { awk -F, -v w="$2" -v k="$3" '$3 == w && $7 == k {print $11}' "$1"; }
for shape in $shapes; do
  serial=$(times "$out/plain.csv" "$shape" serial | median)
  oracle=$(times "$out/plain.csv" "$shape" oracle | median)
  awk -v w="$shape" -v s="$serial" -v o="$oracle" 'BEGIN { printf "%-8s serial %.3f ms, oracle %.3f ms (x%.2f)\n", w, s, o, s / o }'
  for v in $values; do
    t=$(times "$out/$v.csv" "$shape" serial | median)
    all=$(times "$out/$v.csv" "$shape" serial | tr '\n' ' ')
    awk -v s="$serial" -v o="$oracle" -v t="$t" -v n="$var=$v" -v all="$all" 'BEGIN {
      printf "  %-22s %.3f ms  x%.2f  share %3.0f%%   (runs: %s)\n", n, t, s / t, 100 * (s / t - 1) / (s / o - 1), all }'
  done
done
rm -rf "$out"
