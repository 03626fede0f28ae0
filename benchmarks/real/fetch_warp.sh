#!/usr/bin/env bash
# Prepares the NVIDIA Warp package that warp_sim.py imports on the GPU machine, which has no
# internet: downloads warp-lang's wheel from PyPI (for Python 3.12, Linux x86-64), keeps what
# a CUDA run needs and packs it into .real-warp/warp-lang-VERSION-cuda.tar.xz (git-ignored;
# carry .real-warp). scripts/bench_real.sh unpacks it into $TMPDIR/acs-real-warp/site.
#
#   benchmarks/real/fetch_warp.sh [VERSION]      (default 1.4.2)
#
# Why 1.4.2: warp.sim (removed in 1.10) and small enough to carry. Newer wheels carry a
# larger warp.so (1.5.1: 152 MB, 37 MB xz-compressed; 1.6-1.9: 255-272 MB, ~70 MB
# compressed), and the carry limit is 64 MiB with the repository and .deps. The 1.4.2
# wheel is built with the CUDA 12 runtime (needs driver >= 525; CUDA 13 drivers run it) and
# compiles kernels with the NVRTC inside warp.so: nothing else is needed from CUDA.
# Removed: bin/warp-clang.so (LLVM/Clang, 66 MB: compiles kernels for the CPU device only;
# without it Warp reports no CPU device and runs on CUDA), tests/, and the example assets
# that warp_sim.py does not load. Licence: the NVIDIA Software License of the wheel
# (warp_lang-*.dist-info/LICENSE.md, kept), which permits installing and using it.
#
# Environment: PYTHON (default python3) for the check at the end, which imports the packed
# copy and needs numpy; without numpy the check is skipped.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
version=${1:-1.4.2}
python=${PYTHON:-python3}
dest=$root/.real-warp
out=$dest/warp-lang-$version-cuda.tar.xz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$dest"

python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -d "$tmp/whl" "warp-lang==$version"
wheel=$(ls "$tmp"/whl/warp_lang-*.whl)
python3 -m zipfile -e "$wheel" "$tmp/site"
site=$tmp/site
rm -f "$site/warp/bin/warp-clang.so"
rm -rf "$site/warp/tests"
find "$site/warp/examples/assets" -type f ! -name cartpole.urdf ! -name quadruped.urdf ! -name nv_ant.xml -delete
echo "kept: $(du -sh "$site" | cut -f1) of the unpacked wheel ($(du -h "$wheel" | cut -f1) as a wheel)"
tar -C "$site" -cf - . | xz -T0 -6 >"$out.part"
mv "$out.part" "$out"
echo "wrote $out ($(du -h "$out" | cut -f1))"

# Check: the packed copy imports and initialises (on a machine without CUDA it reports no
# device: the CPU device needs the removed warp-clang.so).
if "$python" -c 'import numpy' 2>/dev/null; then
  check=$tmp/check
  mkdir -p "$check"
  tar -C "$check" -xJf "$out"
  PYTHONPATH=$check WARP_CACHE_PATH=$tmp/cache "$python" - <<'EOF'
import warp as wp, warp.sim, warp.examples
wp.config.quiet = True
wp.init()
print(f"check: warp {wp.__version__} imports; CUDA available: {wp.is_cuda_available()}, "
      f"CPU device: {wp.is_cpu_available()} (expected False: warp-clang.so removed)")
EOF
  PYTHONPATH=$check WARP_CACHE_PATH=$tmp/cache "$python" "$root/benchmarks/real/warp_sim.py" --quick 2>&1 | tail -n 1 || true
else
  echo "check skipped: $python has no numpy (set PYTHON=...)"
fi
