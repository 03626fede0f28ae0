#!/usr/bin/env bash
# Installs what the build needs (scripts/install_deps.sh build), builds
# libacs.so and the sample (benchmarks/sample), then runs it: the same workload
# natively (serial) and under LD_PRELOAD=libacs.so, each in its own process,
# with both times, their ratio and whether the outputs are identical.
# Without a GPU the sample says so and exits 0.
#
#   scripts/run_sample.sh [BUILD_DIR] [-- SAMPLE_ARGS...]
#     BUILD_DIR    default: build-gpu-device in the repository
#     SAMPLE_ARGS  e.g. --chains=32 --length=8 --target-us=50 --runs=9
# Environment: ACS_BUILD_JOBS (default: the number of cores), CUDA_ARCH
# (default 90), ACS_LIB (the library to preload, default: the one just built).
# Other ACS_* settings reach the acs run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-gpu-device
if [[ $# -gt 0 && $1 != -- ]]; then
  build=$1
  shift
fi
[[ $# -gt 0 && $1 == -- ]] && shift

"$root/scripts/install_deps.sh" build
# nvcc where NVIDIA's installers put it, as scripts/test.sh does: a fresh shell may not have it.
export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { echo "run_sample.sh: no nvcc on PATH or in /usr/local/cuda/bin: install the CUDA 13 toolkit" >&2; exit 1; }
mkdir -p "$build"
# Configured every time (a second or two when nothing changed), naming the compiler: a build
# folder configured before the toolkit was found would otherwise stay without CUDA programs.
generator=()
[[ -f $build/CMakeCache.txt ]] || generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
if ! cmake --build "$build" -j "${ACS_BUILD_JOBS:-$(nproc)}" --target acs acs_sample >"$build/sample_build.log" 2>&1; then
  tail -n 30 "$build/sample_build.log"
  echo "run_sample.sh: building acs and acs_sample failed (log: $build/sample_build.log)" >&2
  exit 1
fi

sample=$build/benchmarks/sample/acs_sample
lib_arg=()
[[ -n ${ACS_LIB:-} ]] && lib_arg=(--lib="$ACS_LIB")
# The sample applies LD_PRELOAD to its own acs child; it must not run under it itself.
exec env -u LD_PRELOAD "$sample" "${lib_arg[@]}" "$@"
