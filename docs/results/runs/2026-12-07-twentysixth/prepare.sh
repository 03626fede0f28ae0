#!/usr/bin/env bash
# On the CPU machine, before gpuL.sh / gpuK.sh / gpuJ.sh: everything they carry, in a fresh checkout.
#   the build (build-gpu, RelWithDebInfo, -Werror) packed as .carry/build-gpu.tgz;
#   the baseline libraries, each built in a worktree at its commit and stripped:
#     .carry/libacs_ffe6d39.so            (before the footprint memo's change: gpuK's replay A/B)
#     .carry/libacs_before_waits_rule.so  (acd037a, before the twenty-fourth session's relay rule: gpuJ)
#   the cuda-samples programs in .real-src (needs the `fetch` tool's mirror of NVIDIA/cuda-samples,
#   given as CUDA_SAMPLES=/work/.mirror/NVIDIA+cuda-samples/repo; skipped without it).
# Carry [".carry", ".real-src"] (about 48 MiB of the 64).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root"
scripts/install_deps.sh test
[[ -f build-gpu/build.ninja ]] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_WERROR=ON
ninja -C build-gpu
mkdir -p .carry
scripts/carry_build.sh pack build-gpu
for spec in ffe6d39:libacs_ffe6d39.so acd037a:libacs_before_waits_rule.so; do
  commit=${spec%%:*} out=.carry/${spec#*:}
  [[ -f $out ]] && continue
  wt=$(mktemp -d)
  git worktree add -f -q "$wt" "$commit"
  cmake -S "$wt" -B "$wt/b" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  ninja -C "$wt/b" interpose/libacs.so > /dev/null
  cp -L "$wt/b/interpose/libacs.so" "$out" && strip --strip-debug "$out"
  git worktree remove --force "$wt"
done
if [[ -n ${CUDA_SAMPLES:-} ]]; then
  python3 benchmarks/real/build_cuda_samples.py --src "$CUDA_SAMPLES" --jobs 2
else
  echo "prepare.sh: CUDA_SAMPLES not set: no cuda-samples built (gpuK/gpuJ/gpuL do not need them)"
fi
du -sh .carry .real-src 2>/dev/null || true
