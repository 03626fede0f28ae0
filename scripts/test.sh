#!/usr/bin/env bash
# Installs what is missing (scripts/install_deps.sh), builds everything with
# warnings as errors and runs every test. Without a GPU the GPU tests report
# SKIPPED; on a GPU machine they run. Usage: scripts/test.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh test
build=${1:-build}
export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACS_WERROR=ON >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
