#!/usr/bin/env bash
# On the CPU machine, before gpuW.sh: the build (build-gpu, RelWithDebInfo, -Werror) packed as
# .carry/build-gpu.tgz, and .carry/libacs_before_kernel_repeats.so, the library at d41d3da (a
# function's attribute repeats are no change, a CUkernel's still are), built in a worktree and
# stripped. Carry [".carry"] (about 22 MiB), or with gpuV's real programs
# [".carry/build-gpu.tgz", ".carry/libacs_before_kernel_repeats.so", ".real-src", ".real-warp"].
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root"
scripts/install_deps.sh test
[[ -f build-gpu/build.ninja ]] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_WERROR=ON
ninja -C build-gpu
mkdir -p .carry
rm -f .carry/libacs_before_repeats.so  # the twenty-seventh session's baseline: not carried
scripts/carry_build.sh pack build-gpu
out=.carry/libacs_before_kernel_repeats.so
if [[ ! -f $out ]]; then
  wt=$(mktemp -d)
  git worktree add -f -q "$wt" d41d3da
  cmake -S "$wt" -B "$wt/b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  ninja -C "$wt/b" interpose/libacs.so > /dev/null
  cp -L "$wt/b/interpose/libacs.so" "$out" && strip --strip-debug "$out"
  git worktree remove --force "$wt"
fi
du -sh .carry
