#!/usr/bin/env bash
# The one list of what building and testing acs needs, and its installer.
#
#   scripts/install_deps.sh [--check] [build|test]     default: test
#     build   what libacs.so, the sample and the acs command need (scripts/run_sample.sh)
#     test    that, plus what the whole test suite uses (scripts/test.sh, .ci/run)
#     --check report only: never install
#   scripts/install_deps.sh --list [build|test]        the Debian package names, one a line
#
# A package counts as present when dpkg says it is installed, or when what it
# provides is there anyway (the command, header, library or Python module; the
# headers and GoogleTest that scripts/vendor_deps.sh copies into .deps/ count).
# Missing ones are installed with apt-get when run as root; otherwise the script
# prints the one command that would install them and exits 1. Nothing missing:
# no apt-get call, no network. ACS_SKIP_DEPS=1 skips every check (a machine that
# provides all of this in a way these checks cannot see).
# The CUDA 13 toolkit is not a Debian package: it is checked, never installed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self="$root/scripts/install_deps.sh"
say() { echo "install_deps: $*"; }

check_only=0 list=0 wanted_set=test
for arg in "$@"; do
  case $arg in
    --check) check_only=1 ;;
    --list) list=1 ;;
    build | test) wanted_set=$arg ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$self"; exit 0 ;;
    *) echo "install_deps: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

# package | set | what it provides, as a test that succeeds when present without the package
deps=(
  "cmake|build|have_cmake"
  "ninja-build|build|have ninja"
  "g++|build|have g++"
  "binutils|build|have ld && have nm && have readelf"
  "libfmt-dev|build|have_header fmt/format.h"
  "libgtest-dev|build|have_header gtest/gtest.h || vendored googletest"
  "libgmock-dev|build|have_header gmock/gmock.h || vendored googletest"
  "libzstd1|build|have_lib libzstd.so.1"   # read at run time: kernels' compressed PTX
  "liblz4-1|build|have_lib liblz4.so.1"
  "python3|build|have python3"             # the acs command; CMake's test set-up
  "libbenchmark-dev|test|have_header benchmark/benchmark.h"
  "python3-matplotlib|test|have_module matplotlib"
  "python3-pip|test|have_module pip"
  "python3-setuptools|test|have_module setuptools"
  "python3-wheel|test|have_module wheel"
  "pkg-config|test|have pkg-config"
  "valgrind|test|have valgrind"             # preload.fake_driver_memcheck; scripts/launch_instructions.sh
)

have() { command -v "$1" >/dev/null 2>&1; }
have_cmake() {  # CMake >= 3.24 (the top-level CMakeLists.txt)
  local v major minor
  v=$(cmake --version 2>/dev/null | sed -n '1s/[^0-9]*\([0-9]*\)\.\([0-9]*\).*/\1 \2/p') || return 1
  [[ -n $v ]] && read -r major minor <<<"$v" && ((major > 3 || (major == 3 && minor >= 24)))
}
have_header() { have g++ && echo "#include <$1>" | g++ -E -x c++ -I"$root/.deps/include" - >/dev/null 2>&1; }
vendored() { [[ -f $root/.deps/$1/CMakeLists.txt ]]; }  # scripts/vendor_deps.sh
have_lib() {  # ldconfig is in /sbin, which a user's PATH may lack
  local lc; lc=$(command -v ldconfig || echo /sbin/ldconfig)
  # grep reads to the end (no -q): under pipefail, ldconfig killed by SIGPIPE would count as absent
  [[ -x $lc ]] && "$lc" -p 2>/dev/null | grep "[[:space:]]$1 " >/dev/null
}
# The system Python is the one Debian's packages serve; CTest uses the first with the module.
have_module() {
  local py
  for py in python3 /usr/bin/python3; do
    have "$py" && "$py" -c "import $1" >/dev/null 2>&1 && return 0
  done
  return 1
}
installed() { have dpkg-query && [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == "install ok installed" ]]; }

wanted=()
for d in "${deps[@]}"; do
  IFS='|' read -r pkg in_set _ <<<"$d"
  [[ $in_set == build || $wanted_set == test ]] && wanted+=("$pkg")
done
if ((list)); then printf '%s\n' "${wanted[@]}"; exit 0; fi
if [[ ${ACS_SKIP_DEPS:-0} == 1 ]]; then say "ACS_SKIP_DEPS=1: not checking dependencies"; exit 0; fi

missing_now() {
  missing=()
  local d pkg in_set probe
  for d in "${deps[@]}"; do
    IFS='|' read -r pkg in_set probe <<<"$d"
    [[ $in_set == build || $wanted_set == test ]] || continue
    installed "$pkg" || eval "$probe" || missing+=("$pkg")
  done
}

cuda_toolkit() {
  have nvcc || [[ -x /usr/local/cuda/bin/nvcc ]] || {
    say "the CUDA 13 toolkit is missing (no nvcc on PATH or in /usr/local/cuda/bin)."
    say "It is not a Debian package: install it from NVIDIA into /usr/local/cuda, then run this again."
    return 1
  }
}

missing_now
if ((${#missing[@]} == 0)); then
  say "all ${#wanted[@]} dependencies ($wanted_set) present"
  cuda_toolkit
  exit 0
fi
say "missing ($wanted_set): ${missing[*]}"
apt_line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if ((check_only)); then
  say "to install them: sudo $self $wanted_set"
  exit 1
fi
if ! have apt-get || ! have dpkg-query; then
  say "no apt-get here (not Debian or Ubuntu): install the equivalents of these packages with"
  say "this system's package manager, then run this again: ${missing[*]}"
  exit 1
fi
if [[ $(id -u) != 0 ]]; then
  say "not root, so nothing was installed. The one command that installs them:"
  if have sudo; then echo "    sudo $self $wanted_set"; else echo "    su -c '$self $wanted_set'"; fi
  say "(it runs: $apt_line)"
  exit 1
fi
say "installing with apt-get: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
missing_now
if ((${#missing[@]})); then
  say "still missing after apt-get: ${missing[*]}"
  exit 1
fi
say "installed; all ${#wanted[@]} dependencies ($wanted_set) present"
cuda_toolkit
