#!/usr/bin/env bash
# After gpuN: (1) the fake-driver tests at the fixed test program (preload.fake_driver_*: the
# relay_order crash was the test's own, a kernel launched with 2 of its 3 arguments); (2) the
# training row as the real-program table measures it, after resnet18's inference rows in the same
# process (torch_models.py --only 'train|resnet18': the relay established by inference meets the
# training loop; train_phases.py starts with training, and relayed 309 of 70,908 launches),
# ROUNDS (default 4) interleaved rounds of native / acs / ACS_RELAY=off, the mode order rotated
# each round; (3) one acs process of the same with ACS_STATS=1, its whole report kept. gpuO.sh
set -u
cd "$(dirname "$0")/../../../.."
source docs/results/runs/2026-12-07-twentyfifth/prelude.sh
L=$PWD/build-gpu/interpose/libacs.so
timeout 100 ctest --test-dir build-gpu -R "preload\.fake_driver" -j 14 --timeout 90 --output-on-failure > $R/fake_suite.txt 2>&1
echo "fake-driver tests rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|\(Failed\)|Timeout|Skipped|Not Run" $R/fake_suite.txt | head
run() {  # MODE: one process's train and resnet18 ms
  local e=()
  case $1 in acs) e=(LD_PRELOAD=$L) ;; relayoff) e=(LD_PRELOAD=$L ACS_RELAY=off) ;; esac
  env "${e[@]}" timeout 60 taskset -c $CPUS python3 benchmarks/real/torch_models.py --only 'train|resnet18' 2>&1 |
    sed -n 's/.*name=\([a-z0-9-]*\) .* ms=\([0-9.]*\).*/\1 \2/p' | tr '\n' ' '
}
modes=(native acs relayoff)
for i in $(seq 1 ${ROUNDS:-4}); do
  for k in 0 1 2; do m=${modes[$(( (i + k) % 3 ))]}; echo "$i $m $(run $m)"; done
  [[ $(( $(date +%s)-t0 )) -gt 400 ]] && break
done | tee $R/train_rounds.txt
python3 - $R/train_rounds.txt <<'PY' | tee $R/train_ratios.txt
import collections, statistics, sys
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    for name, ms in zip(f[2::2], f[3::2]):
        rows[(name, f[0])][f[1]] = float(ms)
for name in sorted({n for n, _ in rows}):
    per = [r for (n, _), r in rows.items() if n == name]
    for m in ("acs", "relayoff"):
        paired = [r["native"] / r[m] for r in per if "native" in r and m in r]
        med = statistics.median([r[m] for r in per if m in r])
        print(f"{name} {m}: median {med:.3f} ms (native {statistics.median([r['native'] for r in per]):.3f}); "
              f"paired x{statistics.median(paired):.3f} (x{min(paired):.3f}-x{max(paired):.3f}, {len(paired)} rounds)")
PY
LD_PRELOAD=$L ACS_STATS=1 timeout 60 taskset -c $CPUS python3 benchmarks/real/torch_models.py --only 'train|resnet18' > $R/train_stats.txt 2>&1
grep -E "relayed|passed through|name=" $R/train_stats.txt
echo "done at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
