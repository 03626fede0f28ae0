#!/usr/bin/env bash
# The README's trace picture: a wide DAG (8 chains of 30 µs kernels, shared
# cudart) traced under acs, drawn over its last timed repetition.
#   scripts/trace_picture.sh BUILD_DIR OUTPUT.png
set -euo pipefail
build=$1
png=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
json=$build/trace_wide.json
ACS_TRACE=$json LD_PRELOAD=$build/interpose/libacs.so \
  "$build/benchmarks/gpu/acs_bench_synth_shared" --workload wide --nodes 64 --width 8 --reps 1 \
  --variants serial --csv /dev/null >/dev/null
# The last 64 dispatched kernels are the timed repetition.
read -r t0 t1 < <(python3 - "$json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
ks = sorted((e["ts"], e["ts"] + e["dur"]) for e in events
            if e.get("ph") == "X" and e.get("cat") == "kernel" and e.get("args", {}).get("acs") == "dispatched")
last = ks[-64:]
print(last[0][0] - 20, max(end for _, end in last) + 20)
PY
)
python3 "$root/scripts/plot_trace.py" "$json" -o "$png" --start-us "$t0" --end-us "$t1" \
  --title "acs: 64 kernels of 30 µs in 8 independent chains, issued on one stream"
