#!/usr/bin/env bash
# Issue 16's 2000-kernel rows (scripts/bench.sh's synth-{random,layered,wide}-2000: 3 µs kernels,
# 64 wide, one input) under ACS_GRAPH=auto with several graph shapes: with relayed graphs the
# driver's per-branch cost of cuGraphLaunch (why ACS_GRAPH_WIDTH is 8) is paid on issuing thread 0,
# not on the application's thread, so wider lanes may now pay. Interleaved processes, ROUNDS each;
# serial and the CUDA graph from the plain program in the same rounds.
#   width2000.sh BUILD OUT_CSV     (ROUNDS=2, REPS=9; MODES="name:VAR=V,VAR=V ...")
# ACS_GRAPH_RELAY_WIDTH existed only from ce9e186 to 7d78e87 (taken out after this sweep): the
# default modes need a library of ce9e186; later libraries ignore it (every rw mode is then w8).
set -u
build=$1; csv=$2; rounds=${ROUNDS:-2}; reps=${REPS:-9}
modes=${MODES:-"w8: w16:ACS_GRAPH_WIDTH=16 w32:ACS_GRAPH_WIDTH=32 k128w16:ACS_GRAPH_WIDTH=16,ACS_GRAPH_KERNELS=128 off:ACS_RELAY=off"}
bin=$build/benchmarks/gpu/acs_bench_synth; lib=$build/interpose/libacs.so
cycles=$("$bin" --print-clock 2>/dev/null | grep -o '[0-9.]*' | head -1)
for ((r = 0; r < rounds; r++)); do
  for shape in random layered wide; do
    common=(--workload $shape --kernel-us 3 --nodes 2000 --width 64 --inputs 1 --reps $reps --csv "$csv"
            --cycles-per-us "$cycles" --config "synth-$shape-2000")
    "$bin" "${common[@]}" --variants serial,graph --mode plain >/dev/null
    for m in $modes; do
      name=${m%%:*}; vars=${m#*:}; env=()
      [[ -n $vars ]] && IFS=, read -ra env <<< "$vars"
      env LD_PRELOAD=$lib ACS_INFER=alloc ACS_GRAPH=auto "${env[@]}" "$bin" "${common[@]}" --variants serial --mode "$name" >/dev/null
    done
  done
done
python3 - "$csv" "$modes" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
modes = [m.split(":")[0] for m in sys.argv[2].split()]
by = {}
for r in rows:
    by.setdefault((r["config"], r["mode"], r["variant"]), []).append(float(r["median_ms"]))
    if r["check"] != "ok": print("MISMATCH", r["config"], r["mode"], r["variant"])
print("speed-ups over serial, medians of the rounds' processes")
print(f"{'config':20} {'serial ms':>9} {'graph':>7} " + " ".join(f"{m:>8}" for m in modes))
for c in sorted({k[0] for k in by}):
    med = lambda m, v: statistics.median(by.get((c, m, v), [float("nan")]))
    s = med("plain", "serial")
    print(f"{c:20} {s:9.3f} {'x%.2f' % (s / med('plain', 'graph')):>7} " +
          " ".join(f"{'x%.2f' % (s / med(m, 'serial')):>8}" for m in modes))
PY
