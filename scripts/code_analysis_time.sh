#!/usr/bin/env bash
# Developer's tool (no GPU needed): the CPU time of acs's PTX analysis of a CUDA program's code,
# which acs's background thread spends once the program's first footprint asks for it (a
# stream's first probe; docs/design.md §4). radixSortThrust (cuda-samples): 21 kernels, 46 ms on
# the CPU machine, of which the program launches 3.
#   scripts/code_analysis_time.sh PROGRAM [BUILD_DIR] [CC]     default build-gpu, 90
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
program=${1:?usage: code_analysis_time.sh PROGRAM [BUILD_DIR] [CC]}
build=${2:-$root/build-gpu}
bin=$build/benchmarks/cpu/acs_code_analysis_time
[[ -x $bin ]] || { echo "code_analysis_time.sh: $bin was not built" >&2; exit 1; }
command -v objcopy >/dev/null || { echo "code_analysis_time.sh: objcopy (binutils) is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objcopy -O binary --only-section=.nv_fatbin "$program" "$tmp/fatbin"
[[ -s $tmp/fatbin ]] || { echo "code_analysis_time.sh: $program has no .nv_fatbin section (no embedded device code)" >&2; exit 1; }
"$bin" "$tmp/fatbin" "${3:-90}"
