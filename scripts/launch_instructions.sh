#!/usr/bin/env bash
# Developer's tool (no GPU needed): instructions acs executes on the application's thread per
# launch, on the fake driver of tests/preload (benchmarks/cpu/call_overhead_fake.cpp), counted by
# valgrind's callgrind. Two runs of N1 and N2 calls; the difference over (N2 - N1) launches cancels
# what a process does once (start-up, the first probes). Instruction counts move only a few percent
# with the host's load (the idle flush and the issuing thread run on wall time), so they compare two
# builds, or two settings, where timings on a noisy host cannot.
#   scripts/launch_instructions.sh [BUILD_DIR] [ROW]    default build-gpu, cuLaunchKernel_four_apart
#   ROW: a row of acs_call_overhead_fake (--list in its output): cuLaunchKernel_four_apart
#   (independent launches), cuLaunchKernel_chain, cuLaunchKernel_never_recurs, ...
# Settings come from the environment; the default is the graph-replay profile of docs/design.md
# §8.1 (ACS_GRAPH=auto ACS_NO_PTX=arguments ACS_START_ASIDE=0: every launch redirected, held and
# replayed); PROFILE=plain leaves acs's defaults. N1=2048 N2=6144 by default. Under PROFILE=plain a
# stream's probes decide by timing, which valgrind slows unevenly: the same row gave 200 to 2,240
# instructions per launch from run to run (twentieth session), so compare plain rows over several
# runs, or with ACS_DISABLE=1 (96 instructions over native per launch on the fake driver).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-gpu}
row=${2:-cuLaunchKernel_four_apart}
n1=${N1:-2048}
n2=${N2:-6144}
bin=$build/benchmarks/cpu/acs_call_overhead_fake
lib=$build/interpose/libacs.so
command -v valgrind >/dev/null || { echo "launch_instructions.sh: valgrind is not installed" >&2; exit 1; }
[[ -x $bin && -f $lib ]] || { echo "launch_instructions.sh: $bin or $lib was not built" >&2; exit 1; }
(( n2 > n1 && n1 > 0 )) || { echo "launch_instructions.sh: need 0 < N1 < N2" >&2; exit 2; }
profile=()
[[ ${PROFILE:-replay} == plain ]] || profile=(ACS_GRAPH="${ACS_GRAPH:-auto}" ACS_NO_PTX="${ACS_NO_PTX:-arguments}"
                                              ACS_START_ASIDE="${ACS_START_ASIDE:-0}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The fake's own libcuda first (the benchmark's rpath finds it); FAKE_CUDA_GRAPHS=1: it offers graphs.
total() {  # CALLS: instructions of the main thread (callgrind's first thread file)
  env FAKE_CUDA_GRAPHS=1 "${profile[@]}" LD_PRELOAD="$lib" valgrind --tool=callgrind --separate-threads=yes \
    --callgrind-out-file="$tmp/cg.$1" "$bin" --reps 1 --calls "$1" --only "$row" >/dev/null 2>"$tmp/log.$1" ||
    { echo "launch_instructions.sh: the run of $1 calls failed:" >&2; tail -5 "$tmp/log.$1" >&2; exit 1; }
  sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$tmp/cg.$1-01" | head -n 1
}
a=$(total "$n1")
b=$(total "$n2")
# One launch per call (--reps 1: one timed loop, no warm-up).
echo "$row (${profile[*]:-acs defaults}): $(( (b - a) / (n2 - n1) )) instructions per launch on the application's thread"
