#!/usr/bin/env bash
# Copies fmt's headers and GoogleTest's sources from this machine's
# Debian packages into .deps/ (git-ignored), for building on a machine that has
# CUDA but cannot install packages (the GPU machine: pass .deps in `carry`).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/include
cp -r /usr/include/fmt .deps/include/
rm -rf .deps/googletest && cp -r /usr/src/googletest .deps/googletest
du -sh .deps
