#!/usr/bin/env bash
# Issue 16's 2000-kernel rows (scripts/bench.sh's synth-{random,layered,wide}-2000: 3 µs kernels,
# 64 wide, one input) with graphs relayed to the issuing thread (the default with ACS_GRAPH=auto)
# against ACS_RELAY=off (graphs updated and launched on the application's thread), interleaved
# processes, ROUNDS each; the CUDA graph and serial from the plain program in the same rounds.
#   relay2000.sh BUILD OUT_CSV     (ROUNDS=3, REPS=9)
set -u
build=$1; csv=$2; rounds=${ROUNDS:-3}; reps=${REPS:-9}
bin=$build/benchmarks/gpu/acs_bench_synth; lib=$build/interpose/libacs.so
cycles=$("$bin" --print-clock 2>/dev/null | grep -o '[0-9.]*' | head -1)
for ((r = 0; r < rounds; r++)); do
  for shape in random layered wide; do
    common=(--workload $shape --kernel-us 3 --nodes 2000 --width 64 --inputs 1 --reps $reps --csv "$csv"
            --cycles-per-us "$cycles" --config "synth-$shape-2000")
    "$bin" "${common[@]}" --variants serial,graph --mode plain >/dev/null
    LD_PRELOAD=$lib ACS_INFER=alloc ACS_GRAPH=auto "$bin" "${common[@]}" --variants serial --mode relay >/dev/null
    LD_PRELOAD=$lib ACS_INFER=alloc ACS_GRAPH=auto ACS_RELAY=off "$bin" "${common[@]}" --variants serial --mode norelay >/dev/null
  done
done
LD_PRELOAD=$lib ACS_INFER=alloc ACS_GRAPH=auto ACS_STATS=1 "$bin" --workload wide --kernel-us 3 --nodes 2000 \
  --width 64 --inputs 1 --reps 3 --cycles-per-us "$cycles" --variants serial 2>&1 >/dev/null | grep -o "graph_[a-z]*=[0-9]*" | tr '\n' ' '
echo
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((r["config"], r["mode"], r["variant"]), []).append(float(r["median_ms"]))
    if r["check"] != "ok": print("MISMATCH", r["config"], r["mode"], r["variant"])
print(f"{'config':22} {'serial ms':>9} {'CUDA graph':>10} {'relayed':>9} {'ACS_RELAY=off':>13} {'relayed/off':>11}  (speed-ups over serial, medians of {len(by.get(('synth-wide-2000','plain','serial'),[]))} processes)")
for c in sorted({k[0] for k in by}):
    med = lambda m, v: statistics.median(by.get((c, m, v), [float("nan")]))
    s = med("plain", "serial")
    g, a, b = med("plain", "graph"), med("relay", "serial"), med("norelay", "serial")
    print(f"{c:22} {s:9.3f} {'x%.2f' % (s/g):>10} {'x%.2f' % (s/a):>9} {'x%.2f' % (s/b):>13} {'x%.3f' % (b/a):>11}")
PY
