#!/usr/bin/env bash
# Runs the subranges program in both styles through tests/gpu/run_case.sh
# (natively, then under LD_PRELOAD=libacs.so: stdout identical byte for byte),
# then checks across the styles:
#   - the same results (stdout) whatever the style;
#   - more launches dispatched with nothing to wait for (acs-stats `independent`)
#     annotated than inferred: the declared sub-ranges exposed parallelism.
# Usage: compare_styles.sh --harness run_case.sh --lib libacs.so --name NAME --out-dir DIR -- PROGRAM
# Exit: 0 pass, 1 fail, 77 skipped (no CUDA device).
set -u
harness="" lib="" name="" out_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --harness) harness=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --out-dir) out_dir=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "compare_styles.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 1 && -n "$harness" && -n "$name" && -n "$out_dir" ]] || { echo "usage: see the header" >&2; exit 2; }
mkdir -p "$out_dir"
program=("$@")

status=0
for style in annotated inferred; do
  # The inferred style is a chain (every kernel touches the whole allocation), from which acs
  # would step aside after 32 launches: this compares what the scheduler makes of each
  # style's footprints, so every launch must reach it.
  bash "$harness" --name "$name.$style" --lib "$lib" --out-dir "$out_dir" --expect "passed==0" \
    --acs-env ACS_STEP_ASIDE=0 -- "${program[@]}" --style=$style
  rc=$?
  [[ $rc -eq 77 ]] && exit 77
  [[ $rc -ne 0 ]] && status=1
done
[[ $status -ne 0 ]] && { echo "[gpu-test] FAIL $name: a style failed its native/acs comparison"; exit 1; }

if ! cmp -s "$out_dir/$name.annotated.native.out" "$out_dir/$name.inferred.native.out"; then
  echo "[gpu-test] FAIL $name: results differ between the annotated and the inferred program"
  diff "$out_dir/$name.annotated.native.out" "$out_dir/$name.inferred.native.out" | head -20
  exit 1
fi

independent() {  # the `independent` count of the last acs-stats line of FILE
  grep -a '^acs-stats:' "$1" | tail -n 1 | tr ' ' '\n' | sed -n 's/^independent=//p'
}
annotated=$(independent "$out_dir/$name.annotated.acs.err")
inferred=$(independent "$out_dir/$name.inferred.acs.err")
if [[ -z "$annotated" || -z "$inferred" ]]; then
  echo "[gpu-test] FAIL $name: no acs-stats independent= value (annotated '$annotated', inferred '$inferred')"
  exit 1
fi
echo "  independent dispatches: annotated $annotated, inferred $inferred"
grep -ah '^acs-test: style=' "$out_dir/$name.annotated.acs.err" "$out_dir/$name.inferred.acs.err" | sed 's/^/  /'
if (( annotated <= inferred )); then
  echo "[gpu-test] FAIL $name: annotations exposed no parallelism (independent: annotated $annotated <= inferred $inferred)"
  exit 1
fi
echo "[gpu-test] PASS $name (independent: annotated $annotated > inferred $inferred)"
exit 0
