#!/usr/bin/env bash
# PyTorch, short processes, as many as fit: five models per process (torch_models.py --only), each
# process pinned to CPUs 2-9; modes native, acs (the bypass on), nobypass (ACS_BYPASS=0), in
# rotating order. Prints per-process rows; summarise_torch.py compares the modes.
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
[ -f build-gpu/interpose/libacs.so ] || scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1
L=$PWD/build-gpu/interpose/libacs.so
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
only='^(resnet18|googlenet|densenet121|mobilenet_v3_small|dyn-branch)$'
modes=(native acs nobypass)
i=0
while [ $(( $(date +%s) - t0 )) -lt ${BUDGET:-300} ]; do
  for k in 0 1 2; do
    m=${modes[$(( (i + k) % 3 ))]}
    case $m in
      native) env=() ;;
      acs) env=(LD_PRELOAD=$L) ;;
      nobypass) env=(LD_PRELOAD=$L ACS_BYPASS=0) ;;
    esac
    env "${env[@]}" taskset -c 2-9 $PY benchmarks/real/torch_models.py --only "$only" 2>>$R/stderr.txt |
      sed -n "s/^real-result: /mode=$m proc=$i /p" >> $R/rows.txt
  done
  i=$((i + 1))
done
echo "$i rounds in $(( $(date +%s) - t0 )) s"
$PY docs/results/runs/2026-12-05-eleventh/summarise_torch.py $R/rows.txt | tee $R/summary.txt
cd $OUT && tar czf r.tgz r && rm -rf r
