#!/usr/bin/env bash
# On the CPU machine, before gpuU.sh: what it carries, in a fresh checkout. The build (build-gpu,
# RelWithDebInfo, -Werror) packed as .carry/build-gpu.tgz, and .carry/libacs_before_repeats.so,
# the library at df33711 (the stats counter of condition changes, before attribute repeats were
# no change), built in a worktree and stripped. Carry [".carry"] (about 22 MiB).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root"
scripts/install_deps.sh test
[[ -f build-gpu/build.ninja ]] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_WERROR=ON
ninja -C build-gpu
mkdir -p .carry
scripts/carry_build.sh pack build-gpu
out=.carry/libacs_before_repeats.so
if [[ ! -f $out ]]; then
  wt=$(mktemp -d)
  git worktree add -f -q "$wt" df33711
  cmake -S "$wt" -B "$wt/b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  ninja -C "$wt/b" interpose/libacs.so > /dev/null
  cp -L "$wt/b/interpose/libacs.so" "$out" && strip --strip-debug "$out"
  git worktree remove --force "$wt"
fi
du -sh .carry
