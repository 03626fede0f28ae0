#!/usr/bin/env bash
# radixSortThrust with each iteration's time printed (radix_iters.py builds it from the sample's own
# source, one fprintf added): where in the run do acs's 2-5% go? Modes interleaved per round:
# native, acs, never probed, ACS_RELAY=off, ACS_PTX=0, ACS_ISSUE=inline. Then the per-iteration medians by mode.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r${TAG:-}; mkdir -p $R
[[ -f build-gpu/interpose/libacs.so ]] ||
  { rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1; }
LIB=$PWD/build-gpu/interpose/libacs.so
BIN=.real-src/bin/radixSortThrust_iters
lscpu -e > $R/lscpu.txt 2>&1
declare -A ENV=([native]="" [acs]="LD_PRELOAD=$LIB" [noprobe]="LD_PRELOAD=$LIB ACS_FIRST_PROBE=100000"
                [norelay]="LD_PRELOAD=$LIB ACS_RELAY=off" [noptx]="LD_PRELOAD=$LIB ACS_PTX=0" [inline]="LD_PRELOAD=$LIB ACS_ISSUE=inline"
                [before]="LD_PRELOAD=$PWD/.carry/libacs_before.so")
MODES=${MODES:-native acs noprobe norelay noptx inline}  # before: the library before this session's relay rule
ROUNDS=${ROUNDS:-15}
for ((i = 0; i < ROUNDS; i++)); do
  for m in $MODES; do
    env ${ENV[$m]} taskset -c ${CPUS:-2-9} $BIN > $R/$m.$i.out 2> $R/$m.$i.err
  done
done
for ((i = 0; i < 6; i++)); do
  env LD_PRELOAD=$LIB ACS_STATS_FILE=$R/acs_stats.txt taskset -c ${CPUS:-2-9} $BIN > /dev/null 2> $R/stats.$i.err
done
env LD_PRELOAD=$LIB ACS_STATS=1 ACS_LOG_LEVEL=debug taskset -c ${CPUS:-2-9} $BIN 2>&1 | grep -v "cuGetProcAddress\|dlsym\|launch via" > $R/debug.txt
python3 - "$R" $MODES <<'PY'
import glob, statistics, sys, os
R = sys.argv[1]
modes = sys.argv[2:]
per = {}
for m in modes:
    runs = []
    for f in sorted(glob.glob(f"{R}/{m}.*.err")):
        t = [float(l.split()[2]) for l in open(f) if l.startswith("iter ")]
        if len(t) == 100: runs.append(t)
    per[m] = runs
ranges = [(0, 1), (1, 10), (10, 20), (20, 40), (40, 100), (0, 100)]
print("mode     procs  " + "  ".join(f"it{a}-{b - 1}".rjust(9) for a, b in ranges) + "   (median over processes of the range's summed µs)")
base = {}
for m in modes:
    cells = []
    for a, b in ranges:
        v = statistics.median(sum(r[a:b]) for r in per[m]) if per[m] else float("nan")
        if m == "native": base[(a, b)] = v
        cells.append(f"{v:9.0f}")
    print(f"{m:8s} {len(per[m]):5d}  " + "  ".join(cells))
print("ratio native/mode (>1: mode slower)")
for m in modes[1:]:
    print(f"{m:8s}        " + "  ".join(f"{base[(a, b)] / statistics.median(sum(r[a:b]) for r in per[m]):9.3f}" for a, b in ranges))
# paired by round: total time
for m in modes[1:]:
    pr = [sum(n) / sum(x) for n, x in zip(per["native"], per[m])]
    print(f"paired native/{m}: median {statistics.median(pr):.3f} over {len(pr)} rounds")
# per iteration medians for the first 30 iterations
print("iteration medians (µs), first 30:")
for m in modes:
    print(f"{m:8s} " + " ".join(f"{statistics.median(r[k] for r in per[m]):5.0f}" for k in range(30)))
PY
tr ' ' '\n' < $R/acs_stats.txt | grep -E "^probe_|^relayed|^pid" | paste -sd' ' | sed 's/pid=/\npid=/g'
grep -h "^iter" $R/stats.*.err | awk '{s[$2]+=$3; n[$2]++} END {for (k in s) if (s[k]/n[k] > 600) print "slow iteration (ACS_STATS runs):", k, s[k]/n[k]}' | sort -n -k5 | head
[[ -n ${TAG:-} ]] || { cd $OUT && tar czf r.tgz r && rm -rf r; }
