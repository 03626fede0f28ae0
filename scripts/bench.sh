#!/usr/bin/env bash
# The GPU benchmark matrix in one command: builds libacs.so and the benchmark programs
# (benchmarks/gpu), runs every workload as serial, annotated, oracle (hand-scheduled
# streams) and CUDA graph, then the serial program under the preload with ACS_INFER=alloc
# and ACS_INFER=const, and the annotated one under the preload, all in the same run; writes results/ and prints
# the summary table last.
#
#   scripts/bench.sh [--quick] [--only REGEX] [--out DIR] [--build DIR] [--no-build] [--reps N]
#   scripts/bench.sh --real [ARGS...]   the real-program benchmark instead: scripts/bench_real.sh ARGS
#
#   --quick      smoke run: one short configuration per workload, small sizes, 2 reps
#   --only RE    only configurations whose name matches RE (grep -E), e.g. 'synth|drl-ant'
#   --out DIR    results folder (default: results/ in the repository)
#   --build DIR  build folder (default: build-bench-gpu/ in the repository)
#   --no-build   use the programs already built in --build
#   --reps N     timed reps per variant (default 5; median reported, after 1 warm-up)
#
# Environment: ACS_LIB=/path/libacs.so uses that library instead of building one;
# ACS_BENCH_GRAPH_CONFIGS (grep -E, default '-short$|-2000$|-k1$|-k6$|^dynnn-') the configurations also
# run with graph replay (ACS_GRAPH=auto), whose rows go to DIR/short_kernels.csv, and with
# ACS_GRAPH=auto ACS_STEP_ASIDE=0 (chained streams replayed too: mode acs_graph_chained, bench.csv);
# ACS_BENCH_GRAPH_KERNELS (default none), e.g. "8 16": those configurations also run with
# ACS_GRAPH_KERNELS=N, as mode acs_graph_kN in bench.csv;
# ACS_BENCH_JOBS build parallelism (default 16); ACS_BENCH_DEADLINE seconds after which
# the remaining configurations are skipped (default 540); CUDA_ARCH (default 90).
# ACS_* settings such as ACS_WINDOW or ACS_STREAMS reach the runs under the preload.
#
# Writes DIR/bench.csv (one row per configuration, mode and variant), DIR/acs_stats.txt
# (the acs-stats lines of the preloaded runs: one untimed ACS_STATS=1 run per configuration, and
# one more with ACS_GRAPH=auto for the graph configurations), DIR/runs.log (every program's output),
# DIR/summary.md, DIR/short_kernels.csv and, with matplotlib, DIR/speedup.png and
# DIR/kernel_length.png.
# Exit status: 0 when every run passed its bit-for-bit check; 1 otherwise; 0 without a GPU.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/results
build=$root/build-bench-gpu
quick=0
only=''
do_build=1
reps=5
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --only) only=$2; shift ;;
    --out) out=$2; shift ;;
    --build) build=$2; shift ;;
    --no-build) do_build=0 ;;
    --reps) reps=$2; shift ;;
    --real) shift; exec "$root/scripts/bench_real.sh" "$@" ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
jobs=${ACS_BENCH_JOBS:-16}
# Configurations also run under ACS_GRAPH=auto (mode acs_graph; short_kernels.csv).
graph_configs=${ACS_BENCH_GRAPH_CONFIGS:-'-short$|-2000$|-k1$|-k6$|^dynnn-'}
graph_kernels=${ACS_BENCH_GRAPH_KERNELS:-}  # e.g. "8 16": those also with ACS_GRAPH_KERNELS=N
deadline=${ACS_BENCH_DEADLINE:-540}
run_timeout=${ACS_BENCH_RUN_TIMEOUT:-90}
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }

# --- 1. A GPU, or nothing to do.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "bench.sh: no NVIDIA GPU found (nvidia-smi): nothing to benchmark here; run it on a GPU machine."
  exit 0
fi
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)
echo "== acs benchmarks on $gpu (quick=$quick)"

# --- 2. Build: libacs.so from the project with its CUDA programs off (the preload needs
# nothing else), and benchmarks/gpu as a project of its own; both at once.
acsdir=$build/acs
bindir=$build/gpu
lib=${ACS_LIB:-}
mkdir -p "$build" "$out"
if [ "$do_build" = 1 ]; then
  echo "== build in $build (-j$jobs)"
  build_lib() {
    cmake -S "$root" -B "$acsdir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACS_BUILD_TESTS=OFF \
      -DACS_BUILD_BENCHMARKS=OFF -DACS_BUILD_CUDA_PROGRAMS=OFF >"$build/acs.log" 2>&1 &&
      cmake --build "$acsdir" -j "$jobs" --target acs >>"$build/acs.log" 2>&1
  }
  build_programs() {
    cmake -S "$root/benchmarks/gpu" -B "$bindir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >"$build/gpu.log" 2>&1 &&
      cmake --build "$bindir" -j "$jobs" --target acs_bench_programs >>"$build/gpu.log" 2>&1
  }
  lib_pid=''
  if [ -z "$lib" ]; then build_lib & lib_pid=$!; fi
  if ! build_programs; then
    grep -E -i 'error|FAILED' "$build/gpu.log" | head -n 20
    echo "== building the benchmark programs FAILED (log: $build/gpu.log)"
    [ -n "$lib_pid" ] && wait "$lib_pid"
    exit 1
  fi
  if [ -n "$lib_pid" ] && ! wait "$lib_pid"; then
    grep -E -i 'error|FAILED' "$build/acs.log" | head -n 20
    echo "== building libacs.so FAILED (log: $build/acs.log)"
  fi
fi
if [ -z "$lib" ]; then
  lib=$(find "$acsdir" -name libacs.so -not -path '*/CMakeFiles/*' 2>/dev/null | head -n 1)
fi
if [ -n "$lib" ] && [ ! -f "$lib" ]; then
  echo "== ACS_LIB=$lib does not exist"
  lib=''
fi
if [ -z "$lib" ]; then
  echo "== WARNING: no libacs.so (set ACS_LIB=...): the runs under acs are SKIPPED"
fi
for b in synth drl dynnn branchy; do
  [ -x "$bindir/acs_bench_$b" ] || { echo "== missing $bindir/acs_bench_$b"; exit 1; }
done
echo "== built in $(elapsed) s; libacs.so: ${lib:-none}"

# --- 3. Run.
csv=$out/bench.csv
stats=$out/acs_stats.txt
log=$out/runs.log
rm -f "$csv" "$stats" "$log" "$out/summary.md" "$out/short_kernels.csv" "$out/speedup.png" "$out/kernel_length.png"
failures=()
skipped=()
qflag=()
[ "$quick" = 1 ] && qflag=(--quick) && reps=2

# Runs one program; keeps its output in runs.log; prints one line.
run_one() {  # name mode env... -- binary args...
  local name=$1 mode=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local bin=$1; shift
  local s rc
  s=$(date +%s%N)
  {
    echo "### $name $mode: ${envs[*]} $bin $*"
    env "${envs[@]}" timeout "$run_timeout" "$bindir/$bin" "$@" --mode "$mode" --config "$name"
  } >>"$log" 2>"$out/.stderr"
  rc=$?
  cat "$out/.stderr" >>"$log"
  grep -h '^acs-stats:' "$out/.stderr" | sed "s|^|$name $mode |" >>"$stats"
  local ms=$(( ($(date +%s%N) - s) / 1000000 ))
  case $rc in
    0) printf '  %-28s %-10s ok    %d.%d s\n' "$name" "$mode" $((ms / 1000)) $((ms % 1000 / 100)) ;;
    1) printf '  %-28s %-10s MISMATCH or bad input (see runs.log)\n' "$name" "$mode"; failures+=("$name/$mode: mismatch") ;;
    124) printf '  %-28s %-10s TIMEOUT\n' "$name" "$mode"; failures+=("$name/$mode: timeout") ;;
    *) printf '  %-28s %-10s FAILED rc=%s (see runs.log)\n' "$name" "$mode" "$rc"; failures+=("$name/$mode: rc=$rc") ;;
  esac
  return 0
}

# One configuration: the plain variants, then serial and annotated under the preload.
# An argument "calibrated:ROBOT" becomes the DRL --work for 30 us kernels on this GPU.
bench() {  # name binary args...
  local name=$1 bin=acs_bench_$2; shift 2
  if [ -n "$only" ] && ! echo "$name" | grep -Eq "$only"; then return; fi
  if [ "$(elapsed)" -ge "$deadline" ]; then skipped+=("$name"); return; fi
  local args=() a
  for a in "$@"; do
    case $a in calibrated:*) work_for "${a#calibrated:}"; a=$work ;; esac
    args+=("$a")
  done
  local common=(--csv "$csv" --reps "$reps" --cycles-per-us "$cycles" "${qflag[@]}" "${args[@]}")
  run_one "$name" plain -- "$bin" "${common[@]}"
  if [ -n "$lib" ]; then
    # Timed runs without ACS_STATS: its measured figures come from CUPTI, which
    # costs host time per launch. The counters come from one untimed run after.
    run_one "$name" acs_infer LD_PRELOAD="$lib" ACS_INFER=alloc -- "$bin" "${common[@]}" --variants serial
    run_one "$name" acs_const LD_PRELOAD="$lib" ACS_INFER=const -- "$bin" "${common[@]}" --variants serial
    run_one "$name" acs_annot LD_PRELOAD="$lib" -- "$bin" "${common[@]}" --variants annotated
    # Short kernels (the host's launch rate bounds them): also with graph replay (issue 16).
    if echo "$name" | grep -Eq -- "$graph_configs"; then
      run_one "$name" acs_graph LD_PRELOAD="$lib" ACS_INFER=alloc ACS_GRAPH=auto -- "$bin" "${common[@]}" --variants serial
      # Chained streams kept with the scheduler, so that their launches are replayed too (bench.csv only).
      run_one "$name" acs_graph_chained LD_PRELOAD="$lib" ACS_INFER=alloc ACS_GRAPH=auto ACS_STEP_ASIDE=0 \
        -- "$bin" "${common[@]}" --variants serial
      local gk
      for gk in $graph_kernels; do  # segments cut every gk kernels (bench.csv rows only)
        run_one "$name" "acs_graph_k$gk" LD_PRELOAD="$lib" ACS_INFER=alloc ACS_GRAPH=auto ACS_GRAPH_KERNELS="$gk" \
          -- "$bin" "${common[@]}" --variants serial
      done
    fi
    run_one "$name" acs_stats LD_PRELOAD="$lib" ACS_INFER=alloc ACS_STATS=1 -- "$bin" \
      --csv /dev/null --reps 1 --cycles-per-us "$cycles" "${qflag[@]}" "${args[@]}" --variants serial
    # The graph counters (built, replayed, updated, why segments were flushed or issued plainly).
    if echo "$name" | grep -Eq -- "$graph_configs"; then
      run_one "$name" acs_graph_stats LD_PRELOAD="$lib" ACS_INFER=alloc ACS_GRAPH=auto ACS_STATS=1 -- "$bin" \
        --csv /dev/null --reps 1 --cycles-per-us "$cycles" "${qflag[@]}" "${args[@]}" --variants serial
    fi
  fi
}

# Sets $work for a robot (cached: one calibration per robot).
declare -A work_cache
work_for() {  # robot
  if [ -z "${work_cache[$1]:-}" ]; then
    local w=8
    if [ "$quick" = 0 ]; then
      w=$(timeout "$run_timeout" "$bindir/acs_bench_drl" --workload "$1" --calibrate-us 30 \
            --cycles-per-us "$cycles" 2>>"$log") || w=''
      [ -n "$w" ] || { echo "  (calibrating $1 failed: --work 64)"; w=64; }
      echo "  $1: --work $w for 30 us kernels"
    fi
    work_cache[$1]=$w
  fi
  work=${work_cache[$1]}
}

# The SM clock, once, so that every process spins the same number of cycles.
cycles=$(timeout "$run_timeout" "$bindir/acs_bench_synth" --print-clock 2>>"$log") || cycles=''
if [ -z "$cycles" ]; then
  echo "== measuring the SM clock failed (see $log)"
  exit 1
fi
echo "== SM clock: $cycles cycles/us"

echo "== runs (each: plain, acs_infer, acs_annot)"
if [ "$quick" = 1 ]; then
  bench synth-random-long synth --workload random --kernel-us 30
  bench synth-chain-long synth --workload chain --kernel-us 30
  bench drl-ant-long drl --workload ant --work calibrated:ant
  bench dynnn-instanas dynnn --workload instanas
  bench dynnn-routing dynnn --workload routing
  bench dynnn-condconv dynnn --workload condconv
  bench branchy-inception branchy --workload inception
  bench branchy-nasnet branchy --workload nasnet
else
  # The lead's targets first, so that a deadline cuts the rest.
  for shape in random layered wide chain; do
    bench "synth-$shape-long" synth --workload "$shape" --kernel-us 30
  done
  for robot in ant humanoid walker2d; do
    bench "drl-$robot-long" drl --workload "$robot" --work "calibrated:$robot"
  done
  for shape in random layered wide chain; do
    bench "synth-$shape-short" synth --workload "$shape" --kernel-us 3
  done
  for robot in ant humanoid walker2d; do
    bench "drl-$robot-short" drl --workload "$robot" --work 1
  done
  # Issue 16's own yardstick: a 2000-kernel DAG of 3 us kernels, 64 wide, one input.
  for shape in random layered wide; do
    bench "synth-$shape-2000" synth --workload "$shape" --kernel-us 3 --nodes 2000 --width 64 --inputs 1
  done
  for model in instanas routing condconv; do bench "dynnn-$model" dynnn --workload "$model"; done
  for model in inception nasnet; do bench "branchy-$model" branchy --workload "$model"; done
  # Kernel-length sweep on the random DAG (3 and 30 us are above).
  for us in 1 6 10 15 60; do
    bench "synth-random-k$us" synth --workload random --kernel-us "$us"
  done
  # The same programs linked with the shared cudart (acs then sees runtime calls).
  bench synth-random-long-shared synth_shared --workload random --kernel-us 30
  bench drl-ant-long-shared drl_shared --workload ant --work calibrated:ant
fi
rm -f "$out/.stderr"

# --- 4. Summary and plots.
meta="$gpu; $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet 2>/dev/null || echo '+changes'); libacs.so: ${lib:-none}; $(env | grep -E '^ACS_' | tr '\n' ' ')"
extra=()
for f in "${failures[@]}"; do extra+=(--failure "$f"); done
for s in "${skipped[@]}"; do extra+=(--skipped "$s"); done
[ -z "$lib" ] && extra+=(--failure "libacs.so missing: no runs under acs")
if ! python3 "$root/scripts/plot_bench.py" --csv "$csv" --out "$out" --meta "$meta" "${extra[@]}"; then
  echo "== plot_bench.py FAILED; the raw results are in $csv"
  failures+=("plot_bench.py")
fi
echo "== done in $(elapsed) s; results in $out"
echo
[ -f "$out/summary.md" ] && cat "$out/summary.md"
[ ${#failures[@]} -eq 0 ] && [ -n "$lib" ]
