#!/usr/bin/env bash
# The real-program benchmark in one command (issue 15; benchmarks/real/README.md): programs
# nobody on this project wrote (PyTorch/torchvision/timm, JAX, NVIDIA Warp, CuPy, NVIDIA
# cuda-samples) run natively, under LD_PRELOAD=libacs.so and under ACS_DISABLE=1, interleaved,
# medians compared, outputs compared bit for bit, then once under ACS_STATS=1.
#
#   scripts/bench_real.sh [--out DIR] [--reps N] [--only REGEX] [--modes LIST] [--mode NAME:VAR=VAL[,...]]...
#                         [--stats-mode NAME]... [--build DIR] [--budget S] [--no-warmup]
#
#   --out DIR     results (default docs/results): real_programs.csv, real_programs_modes.csv,
#                 real_programs_stats.txt, real_programs.md, real_programs_runs.log, build.log
#   --reps N      timed runs per mode and program (default: the manifests', 2 for the Python
#                 programs, whose rows are medians of in-process iterations, 3 for PyTorch
#                 and the cuda-samples)
#   --only RE     only the programs (processes) whose manifest name matches, e.g. 'torch|scan'
#   --modes LIST  the base modes, in run order (default native,acs,acs_disable)
#   --mode M      one more preloaded mode, e.g. graph_off:ACS_GRAPH=off (repeatable)
#   --stats-mode NAME  one more ACS_STATS=1 run per program, under that --mode's settings
#                 (repeatable): its counters go to real_programs_stats.txt as "PROGRAM (NAME):"
#   --build DIR   where libacs.so is built (default build-real/)
#   --budget S    seconds for the whole command, build included (default 330): the programs
#                 left when it is spent are reported as skipped; no run goes past 570 s
#   --no-warmup   skip the untimed warm-up runs (page cache, Warp/CuPy kernel caches)
#
# Environment: ACS_LIB=/path/libacs.so uses that library instead of building one;
# ACS_BENCH_JOBS build parallelism (default 16); ACS_REAL_HARD seconds after which no run
# goes on (default 570: one device command's limit, less what came before it); ACS_REAL_BIN the built cuda-samples
# (default .real-src/bin); ACS_REAL_CPUS (e.g. 2-7, default unpinned) runs every program, in
# every mode, on those CPUs only (run_real.py --cpus); ACS_REAL_ESTIMATOR=lower-quartile makes the
# tables' ms the lower quartile of the repeats instead of their median (where a machine's processes
# fall into a fast and a slow state, as the H100/H200 hosts' did; run_real.py --estimator), =fast-state
# the median of each mode's repeats within 15% of its fastest, counted per mode; ACS_* settings reach the preloaded runs. Needs .deps (or Debian's
# fmt) to build, .real-warp (benchmarks/real/fetch_warp.sh) for Warp and the built
# cuda-samples; what is missing is reported, not skipped silently.
# Exit status: 0 when every run succeeded with identical outputs, or without a GPU; else 1.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/docs/results
build=$root/build-real
reps=''
budget=330
warmup=1
only=''
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift ;;
    --reps) reps=$2; shift ;;
    --only) args+=(--only "$2"); only=$2; shift ;;
    --modes) args+=(--modes "$2"); shift ;;
    --mode) args+=(--mode "$2"); shift ;;
    --stats-mode) args+=(--stats-mode "$2"); shift ;;
    --build) build=$2; shift ;;
    --budget) budget=$2; shift ;;
    --no-warmup) warmup=0 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "bench_real.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "bench_real.sh: no NVIDIA GPU found (nvidia-smi): nothing to measure here; run it on a GPU machine."
  exit 0
fi
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)
mkdir -p "$out" "$build"
rm -f "$build"/warm*.log
blog=$out/build.log
: >"$blog"
py=${PYTHON:-python3}
here=$root/benchmarks/real
echo "== real programs on $gpu"

# --- Preparation, in parallel: libacs.so, the Warp package, and untimed native warm-ups
# (they fill the page cache with the frameworks' libraries, Warp's and CuPy's kernel caches
# and JAX's compilation cache, so that the first timed run does not pay for it).
lib=${ACS_LIB:-}
lib_pid=''
if [ -z "$lib" ]; then
  (cmake -S "$root" -B "$build/acs" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACS_BUILD_TESTS=OFF \
     -DACS_BUILD_BENCHMARKS=OFF -DACS_BUILD_CUDA_PROGRAMS=OFF >"$build/acs.log" 2>&1 &&
   cmake --build "$build/acs" -j "${ACS_BENCH_JOBS:-16}" --target acs >>"$build/acs.log" 2>&1) &
  lib_pid=$!
fi
# Warp: unpacked outside the repository (119 MB), so that .real-warp travels as the tarball.
tarball=$(ls -t "$root"/.real-warp/warp-lang-*-cuda.tar.xz 2>/dev/null | head -n 1)
warp=${TMPDIR:-/tmp}/acs-real-warp
if [ -n "$tarball" ] && [ "$(cat "$warp/unpacked" 2>/dev/null)" != "$(basename "$tarball")" ]; then
  rm -rf "$warp/site"
  if "$py" -c 'import sys, tarfile; kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}; tarfile.open(sys.argv[1]).extractall(sys.argv[2], **kw)' "$tarball" "$warp/site"; then
    basename "$tarball" >"$warp/unpacked"
  else
    echo "== unpacking $tarball FAILED"
  fi
fi
[ -z "$tarball" ] && echo "== no .real-warp/warp-lang-*-cuda.tar.xz (benchmarks/real/fetch_warp.sh): Warp is reported missing"
warm_pids=()
warm() { echo "### warm-up: $*"; timeout 300 "$@" 2>&1 | tail -n 5; }
# Only the programs --only picks are warmed (its regex is Python's, as run_real.py reads it).
picked() { [ -z "$only" ] || "$py" -c 'import re, sys; sys.exit(not re.search(sys.argv[1], sys.argv[2]))' "$only" "$1"; }
if [ "$warmup" = 1 ]; then
  (
    picked torch && warm "$py" -c 'import torch, torchvision, timm; x = torch.zeros(1, 1, 8, 8, device="cuda"); print(torch.nn.functional.conv2d(x, x[:, :, :3, :3]).sum().item())'
    jaxc=${TMPDIR:-/tmp}/acs-real-jax-cache  # the compiled steps, for both settings (programs.toml)
    picked jax-nocmdbuf && warm env XLA_PYTHON_CLIENT_PREALLOCATE=false XLA_FLAGS=--xla_gpu_enable_command_buffer= \
      "$py" "$here/jax_physics.py" --quick --cache "$jaxc"
    picked jax-cmdbuf && warm env XLA_PYTHON_CLIENT_PREALLOCATE=false "$py" "$here/jax_physics.py" --quick --cache "$jaxc"
    picked cupy && warm "$py" "$here/cupy_program.py" --quick
  ) >"$build/warm1.log" 2>&1 &
  warm_pids+=($!)
  if [ -e "$warp/site/warp" ] && picked warp; then  # the longest: NVRTC compiles warp.sim's kernels
    warm env PYTHONPATH="$warp/site" WARP_CACHE_PATH="$warp/cache" "$py" "$here/warp_sim.py" --warmup-only \
      >"$build/warm2.log" 2>&1 &
    warm_pids+=($!)
  fi
fi
if [ -n "$lib_pid" ]; then
  if wait "$lib_pid"; then
    lib=$(find "$build/acs" -name libacs.so -not -path '*/CMakeFiles/*' | head -n 1)
  else
    grep -E -i 'error|FAILED' "$build/acs.log" | head -n 20
    echo "== building libacs.so FAILED (log: $build/acs.log): native runs only"
  fi
  cat "$build/acs.log" >>"$blog"
fi
for p in "${warm_pids[@]}"; do wait "$p"; done
cat "$build"/warm*.log >>"$blog" 2>/dev/null
echo "== prepared in $(elapsed) s; libacs.so: ${lib:-none}"

# --- The runs: torch, the cuda-samples, JAX, Warp, CuPy (the manifests' priorities).
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
settings=$(env | grep -E '^ACS_' | grep -v -E '^ACS_(LIB|REAL_BIN|BENCH_JOBS)=' | sort | tr '\n' ' ')
meta="$gpu; $(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit; libacs.so ${lib:-none}${settings:+; $settings}; prepared in $(elapsed) s"
left=$(( budget - $(elapsed) ))
hard=$(( ${ACS_REAL_HARD:-570} - $(elapsed) ))
[ "$left" -lt 10 ] && left=10
libargs=()
[ -n "$lib" ] && libargs=(--lib "$lib")
[ -n "$reps" ] && args+=(--reps "$reps")
"$py" "$here/run_real.py" "$here/programs.toml" "$here/cuda_samples.toml" "${libargs[@]}" --out "$out" \
  --bin-dir "${ACS_REAL_BIN:-$root/.real-src/bin}" --deadline "$left" --hard-deadline "$hard" \
  --meta "$meta" "${args[@]}"
# (run_real.py prints the table last.)
