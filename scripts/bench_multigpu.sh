#!/usr/bin/env bash
# Data-parallel scaling of the DRL-like benchmark (benchmarks/gpu/drl.cu) over N GPUs, one
# process per GPU (CUDA_VISIBLE_DEVICES=i), natively and under acs: each process steps its own
# batch of environments (weak scaling, as data-parallel RL does), all of them at once.
#
#   scripts/bench_multigpu.sh [--gpus N] [--workload ant|humanoid|walker2d] [--reps N]
#                             [--out DIR] [--build DIR] [--no-build] [-- EXTRA drl ARGS]
#
#   --gpus N     the largest count measured (default: every visible GPU); counts 1, 2, 4... N
#   --workload   the robot (default ant)
#   --reps N     timed reps per process (default 5; median reported, after 1 warm-up)
#   --out DIR    results folder (default: results/multigpu in the repository)
#   --build DIR  build folder, shared with scripts/bench.sh (default: build-bench-gpu/)
#   --no-build   use the programs already built in --build
#
# Writes DIR/multigpu.csv (one row per process: gpus, mode, gpu, median ms, check) and
# DIR/summary.md (per GPU count and mode: mean per-process step time, aggregate throughput,
# scaling efficiency against 1 GPU, acs against native), printed last. ACS_LIB=/path/libacs.so
# uses that library; other ACS_* settings reach the runs under acs.
# Exit status: 0 when every run passed its bit-for-bit check, 1 otherwise; 0, saying so, when
# fewer than 2 GPUs are visible (nothing to scale over).
# NVLink multicast stays off in every run (NCCL_NVLS_ENABLE=0 and the PyTorch and NVSHMEM
# equivalents), although this benchmark uses no NCCL.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/results/multigpu
build=$root/build-bench-gpu
gpus=''
workload=ant
reps=5
do_build=1
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --gpus) gpus=$2; shift ;;
    --workload) workload=$2; shift ;;
    --reps) reps=$2; shift ;;
    --out) out=$2; shift ;;
    --build) build=$2; shift ;;
    --no-build) do_build=0 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "bench_multigpu.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

# --- 1. Two GPUs at least, or nothing to measure.
visible=0
if command -v nvidia-smi >/dev/null 2>&1; then
  visible=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
fi
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  listed=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c . || true)
  [ "$listed" -lt "$visible" ] && visible=$listed
fi
if [ "$visible" -lt 2 ]; then
  echo "bench_multigpu.sh: $visible GPU(s) visible; data-parallel scaling needs 2 or more: nothing measured here."
  exit 0
fi
[ -z "$gpus" ] && gpus=$visible
if [ "$gpus" -gt "$visible" ]; then
  echo "bench_multigpu.sh: --gpus $gpus but only $visible visible: measuring up to $visible"
  gpus=$visible
fi
# The devices the processes get, in order (CUDA_VISIBLE_DEVICES of the caller respected).
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=',' read -ra devices <<<"$CUDA_VISIBLE_DEVICES"
else
  mapfile -t devices < <(seq 0 $((visible - 1)))
fi
echo "== DRL data-parallel scaling, workload $workload, up to $gpus GPUs: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"

# --- 2. Build (as scripts/bench.sh does, into the same folder).
bindir=$build/gpu
acsdir=$build/acs
lib=${ACS_LIB:-}
mkdir -p "$build" "$out"
if [ "$do_build" = 1 ]; then
  jobs=${ACS_BENCH_JOBS:-16}
  cmake -S "$root/benchmarks/gpu" -B "$bindir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >"$build/gpu.log" 2>&1 &&
    cmake --build "$bindir" -j "$jobs" --target acs_bench_drl >>"$build/gpu.log" 2>&1 ||
    { echo "== building the benchmark FAILED (log: $build/gpu.log)"; exit 1; }
  if [ -z "$lib" ]; then
    cmake -S "$root" -B "$acsdir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACS_BUILD_TESTS=OFF \
      -DACS_BUILD_BENCHMARKS=OFF -DACS_BUILD_CUDA_PROGRAMS=OFF >"$build/acs.log" 2>&1 &&
      cmake --build "$acsdir" -j "$jobs" --target acs >>"$build/acs.log" 2>&1 ||
      echo "== building libacs.so FAILED (log: $build/acs.log)"
  fi
fi
[ -z "$lib" ] && lib=$(find "$acsdir" -name libacs.so -not -path '*/CMakeFiles/*' 2>/dev/null | head -n 1)
[ -x "$bindir/acs_bench_drl" ] || { echo "== missing $bindir/acs_bench_drl"; exit 1; }
[ -n "$lib" ] && [ -f "$lib" ] || { echo "== no libacs.so (set ACS_LIB=...): cannot compare"; exit 1; }

# --- 3. Run: for each count k, k processes at once, natively, then under acs.
csv=$out/multigpu.csv
log=$out/runs.log
rm -f "$csv" "$log" "$out"/proc_*.csv
echo "gpus,mode,gpu,median_ms,check" >"$csv"
counts=()
for ((k = 1; k < gpus; k *= 2)); do counts+=("$k"); done
counts+=("$gpus")
failed=0
for k in "${counts[@]}"; do
  for mode in native acs; do
    pids=()
    for ((i = 0; i < k; ++i)); do
      envs=(CUDA_VISIBLE_DEVICES="${devices[$i]}")
      [ "$mode" = acs ] && envs+=(LD_PRELOAD="$lib" ACS_INFER=alloc)
      part=$out/proc_${k}_${mode}_$i.csv
      rm -f "$part"
      env "${envs[@]}" timeout 300 "$bindir/acs_bench_drl" --workload "$workload" --variants serial \
        --reps "$reps" --csv "$part" --mode "$mode" --config "drl-$workload-dp$k" "${extra[@]}" \
        >"$out/.out_$i" 2>&1 &
      pids+=($!)
    done
    for ((i = 0; i < k; ++i)); do
      rc=0
      wait "${pids[$i]}" || rc=$?
      { echo "### gpus=$k mode=$mode gpu=${devices[$i]} exit=$rc"; cat "$out/.out_$i"; } >>"$log"
      part=$out/proc_${k}_${mode}_$i.csv
      if [ "$rc" -ne 0 ] || [ ! -s "$part" ]; then
        echo "gpus=$k $mode gpu ${devices[$i]}: FAILED (exit $rc; $log)"
        failed=1
        continue
      fi
      python3 - "$part" "$k" "$mode" "${devices[$i]}" >>"$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r = rows[-1]
print(f"{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{r['median_ms']},{r['check']}")
PY
      grep -q ',MISMATCH$' "$csv" && failed=1
    done
    rm -f "$out"/.out_*
  done
done

# --- 4. Report.
python3 - "$csv" "$workload" >"$out/summary.md" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
per = defaultdict(list)
for r in rows:
    per[(int(r["gpus"]), r["mode"])].append(float(r["median_ms"]))
def throughput(k, mode):  # steps per second over every process
    ms = per.get((k, mode))
    return sum(1000.0 / m for m in ms) if ms else None
print(f"# DRL data parallel ({sys.argv[2]}), one process per GPU\n")
print("| GPUs | mode | step ms (mean of processes) | steps/s (all) | efficiency vs 1 GPU | acs vs native |")
print("| --- | --- | --- | --- | --- | --- |")
for k in sorted({k for k, _ in per}):
    for mode in ("native", "acs"):
        ms = per.get((k, mode))
        if not ms:
            continue
        t, t1 = throughput(k, mode), throughput(1, mode)
        eff = f"{t / (k * t1):.2f}" if t1 else "-"
        nat = throughput(k, "native")
        vs = f"x{t / nat:.2f}" if mode == "acs" and nat else ""
        print(f"| {k} | {mode} | {sum(ms) / len(ms):.3f} | {t:.1f} | {eff} | {vs} |")
bad = [r for r in rows if r["check"] != "ok"]
print(f"\n{len(rows)} runs, {len(bad)} with output differing from the serial reference.")
PY
cat "$out/summary.md"
echo "== results in $out (multigpu.csv, summary.md, runs.log)"
exit $failed
