#!/usr/bin/env bash
# Carries a build made on a CPU machine to the GPU machine, whose command may take only 64 MiB
# of ignored files with the working tree, and whose cores are better spent running tests.
#
#   scripts/carry_build.sh pack BUILD [TARBALL]   on the CPU machine (default .carry/BUILD.tgz):
#       the build without objects and static libraries, debug info stripped, and without the
#       test programs that need no GPU (tests/unit, tests/sim, tests/trace: CI runs them);
#       CTest's files stay, so `ctest -L "preload|gpu"` runs there.
#   scripts/carry_build.sh unpack [TARBALL...]    on the GPU machine, in the repository root
#       (default .carry/*.tgz): unpacks; links the path the build was made in to this checkout
#       when they differ (the build's files name it); points the tests at this machine's
#       python3 and cmake.
#
# Then: `ctest --test-dir BUILD -L "preload|gpu" -E "gpu\.bench" -j 12 --timeout 100`, or
# `ACS_LIB=$PWD/BUILD/interpose/libacs.so scripts/bench_real.sh ...`; pass .carry to the device
# command's carry list. Exit status 0 on success.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1

cache_value() {  # BUILD KEY: a value from the build's CMakeCache.txt
  sed -n "s|^$2:[A-Z]*=||p" "$1/CMakeCache.txt" | head -n 1
}

pack() {
  local build=${1:?usage: carry_build.sh pack BUILD [TARBALL]}
  build=$(realpath --relative-to="$root" "$build") || return 1
  case $build in ../*) echo "carry_build.sh: $build is outside the repository" >&2; return 1 ;; esac
  local out=${2:-.carry/$(basename "$build").tgz}
  [ -f "$build/CMakeCache.txt" ] || { echo "carry_build.sh: $build is not a CMake build" >&2; return 1; }
  local stage
  stage=$(mktemp -d) || return 1
  # Test programs CI runs on a machine without a GPU; their CTest files stay.
  local cpu_only=()
  local f
  while IFS= read -r f; do
    cpu_only+=(--exclude="$f")
  done < <(find "$build/tests/unit" "$build/tests/sim" "$build/tests/trace" -maxdepth 1 -type f -perm -u+x 2>/dev/null)
  tar "${cpu_only[@]}" --exclude='*.o' --exclude='*.a' --exclude='.ninja_*' --exclude='CMakeFiles/*.dir' \
    --exclude='Testing' --exclude="$build/tests/package/prefix" -cf - "$build" | tar -xf - -C "$stage" || {
    rm -rf "$stage"
    return 1
  }
  find "$stage" -type f \( -perm -u+x -o -name '*.so*' \) -size +100k -print0 |
    while IFS= read -r -d '' f; do
      if file "$f" | grep -q ELF; then strip --strip-debug "$f"; fi
    done
  mkdir -p "$(dirname "$out")"
  tar -czf "$out" -C "$stage" "$build" || {
    rm -rf "$stage"
    return 1
  }
  rm -rf "$stage"
  echo "carry_build.sh: $out ($(du -h "$out" | cut -f1); the device command's carry takes 64 MiB in all)"
}

unpack() {
  local tarballs=("$@")
  [ ${#tarballs[@]} -gt 0 ] || tarballs=(.carry/*.tgz)
  local t build made py cm
  py=$(command -v python3) cm=$(command -v cmake)
  for t in "${tarballs[@]}"; do
    [ -f "$t" ] || { echo "carry_build.sh: no $t" >&2; return 1; }
    build=$(tar -tzf "$t" | head -n 1 | cut -d/ -f1)
    tar -xzf "$t" || return 1
    made=$(cache_value "$build" CMAKE_HOME_DIRECTORY)
    if [ -n "$made" ] && [ "$made" != "$root" ] && [ ! -e "$made" ]; then
      mkdir -p "$(dirname "$made")" && ln -s "$root" "$made" ||
        { echo "carry_build.sh: cannot link $made to $root: the build's absolute paths fail" >&2; return 1; }
    fi
    # The tests name the interpreter and cmake of the machine that configured the build.
    local old_py old_cm
    old_py=$(cache_value "$build" _Python3_EXECUTABLE) old_cm=$(cache_value "$build" CMAKE_COMMAND)
    find "$build" -name CTestTestfile.cmake -print0 | while IFS= read -r -d '' f; do
      [ -n "$old_py" ] && [ -n "$py" ] && sed -i "s|\"$old_py\"|\"$py\"|g" "$f"
      [ -n "$old_cm" ] && [ -n "$cm" ] && sed -i "s|\"$old_cm\"|\"$cm\"|g" "$f"
    done
    echo "carry_build.sh: $build unpacked (made in ${made:-?}; python3 ${py:-none}, cmake ${cm:-none})"
  done
}

case ${1:-} in
  pack) shift; pack "$@" ;;
  unpack) shift; unpack "$@" ;;
  *) sed -n '2,17p' "$0"; exit 2 ;;
esac
