# Sourced by this run dir's gpu*.sh after ../2026-12-07-twentyfifth/prelude.sh ($R, $t0, $CPUS): the
# steps its scripts share, each writing under $R and printing its summary.
export ACS_LIB=$PWD/build-gpu/interpose/libacs.so

# suite_subset SECONDS: the GPU tests of graph replay, the frameworks (they load and unload code),
# the preload and error tests, cut at SECONDS.
suite_subset() {
  timeout "$1" ctest --test-dir build-gpu -L "preload|gpu" -R "graph_replay|frameworks|preload|errors" \
    -E "gpu\.bench|preload\.exports|preload\.hook_table|torch_integration|torchrun" -j 14 --timeout 120 \
    --output-on-failure > $R/suite.txt 2>&1
  echo "suite rc=$? at $(( $(date +%s)-t0 )) s"
  grep -E "tests passed|\(Failed\)|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
}

# condition_calls: the calls of a resnet18 training loop that change the launch conditions, each
# with the value before (../2026-12-07-twentyseventh/train_phases.py, 20 steps after 5).
condition_calls() {
  LD_PRELOAD=$ACS_LIB ACS_LOG_LEVEL=debug timeout 30 taskset -c $CPUS \
    python3 docs/results/runs/2026-12-07-twentyseventh/train_phases.py --iters 20 --warmup 5 2>&1 |
    grep -E "may change whether|a change of the launch conditions" > $R/condition_sequence.txt
  sed -E 's/function 0x[0-9a-f]+/function F/; s/kernel 0x[0-9a-f]+/kernel K/' $R/condition_sequence.txt |
    sort | uniq -c | sort -rn | head -30 | tee $R/condition_calls.txt
  echo "conditions at $(( $(date +%s)-t0 )) s"
}

# sorting_modes SECONDS: sortingNetworks natively, under acs, without its first probe, with it after
# 512 launches (its ~290 then never probe; the default is 64) and without
# PTX reading, 9 processes each, within SECONDS.
sorting_modes() {
  local l=$1
  [[ $l -gt 40 ]] || return 0
  export ACS_REAL_BIN=$PWD/.carry/real-bin ACS_REAL_CPUS=$CPUS ACS_REAL_ESTIMATOR=median
  ACS_REAL_HARD=$l timeout $((l+4)) scripts/bench_real.sh --out $R/sorting --budget $((l-4)) --reps 9 \
    --modes native,acs --mode probe_off:ACS_FIRST_PROBE=100000 --mode probe512:ACS_FIRST_PROBE=512 --mode ptx_off:ACS_PTX=0 \
    --only '^sortingNetworks$' > $R/sorting.log 2>&1
  echo "sorting rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "^\| |^Host|skipped" $R/sorting/real_programs.md | tail -4
}
