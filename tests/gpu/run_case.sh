#!/usr/bin/env bash
# Runs one GPU test program twice, natively and under LD_PRELOAD=libacs.so
# (with ACS_STATS=1), and checks that:
#   - both runs exit with the same status and print the same stdout, byte for byte;
#   - the acs run printed its `acs-stats:` line (proof that libacs.so was loaded);
#   - every --expect condition holds on the acs run's stats and the program's
#     own `acs-test: key=value` stderr lines, every --expect-native on the native run's.
#
# Usage: run_case.sh --name NAME --lib LIBACS [options] -- PROGRAM [ARGS...]
#   --env K=V            environment for both runs
#   --acs-env K=V        environment for the acs run only (e.g. ACS_DISABLE=1)
#   --expect COND        KEY OP NUMBER, OP one of >= <= == != > <; KEY may list
#                        alternative names as a|b (the first one present is used)
#   --expect-native COND
#   --out-dir DIR        where both runs' stdout/stderr are kept (default: a temp dir)
#   --timeout SECONDS    per run (default: $GPU_TEST_RUN_TIMEOUT, else 180)
# Exit status: 0 pass, 1 fail, 77 skipped (no CUDA device: CTest SKIP_RETURN_CODE).
# Prints one result line starting with "[gpu-test]"; scripts/gpu_suite.sh collects them.
set -u

name="" lib="" out_dir="" per_run_timeout=${GPU_TEST_RUN_TIMEOUT:-180}
both_env=() acs_env=() expects=() native_expects=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --env) both_env+=("$2"); shift 2 ;;
    --acs-env) acs_env+=("$2"); shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --expect-native) native_expects+=("$2"); shift 2 ;;
    --out-dir) out_dir=$2; shift 2 ;;
    --timeout) per_run_timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_case.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 1 && -n "$name" ]] || { echo "usage: run_case.sh --name NAME --lib LIB [options] -- PROGRAM [ARGS...]" >&2; exit 2; }
# Most cases test the pool paths, which a short program would never reach with streams starting
# aside (ACS_START_ASIDE, default 1): they start redirected unless the case or the caller says
# otherwise (the start_aside.* cases run the default).
if [[ -z "${ACS_START_ASIDE:-}" ]] && ! printf '%s\n' "${acs_env[@]}" | grep -q '^ACS_START_ASIDE='; then
  acs_env=(ACS_START_ASIDE=0 "${acs_env[@]}")
fi

if [[ -z "$out_dir" ]]; then
  out_dir=$(mktemp -d)
  trap 'rm -rf "$out_dir"' EXIT
fi
mkdir -p "$out_dir"
base="$out_dir/$name"
failures=()

fail_line() { failures+=("$1"); }
rc_native=0 rc_acs=0 secs_native=0 secs_acs=0  # set by run()

# The native run: no preload, none of acs's variables.
unset_acs=(-u LD_PRELOAD)
while IFS= read -r v; do unset_acs+=(-u "$v"); done < <(compgen -e | grep '^ACS_' || true)

# shellcheck source=run_with_deadline.sh
source "$(dirname "${BASH_SOURCE[0]}")/run_with_deadline.sh"

run() {  # run TAG ENV... -- PROGRAM ARGS...: sets rc_TAG and secs_TAG
  local tag=$1; shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  local t0 t1
  t0=$(date +%s.%N)
  run_with_deadline "$base.$tag.out" "$base.$tag.err" env "${envs[@]}" "$@"
  local rc=$?
  t1=$(date +%s.%N)
  printf -v "rc_$tag" '%d' "$rc"
  printf -v "secs_$tag" '%s' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
}

run native "${unset_acs[@]}" "${both_env[@]}" -- "$@"

if [[ $rc_native -eq 77 ]]; then
  reason=$(grep -a -m1 '^SKIPPED:' "$base.native.out" "$base.native.err" 2>/dev/null | head -1 | sed 's/^[^:]*:SKIPPED: *//')
  echo "SKIPPED: ${reason:-no CUDA device}"
  echo "[gpu-test] SKIP $name: ${reason:-no CUDA device}"
  exit 77
fi

show_tail() {  # show_tail FILE LABEL
  if [[ -s "$1" ]]; then
    echo "---- $2 (last 25 lines of $1)"
    tail -n 25 "$1"
  fi
}

if [[ $rc_native -ne 0 ]]; then
  if [[ $rc_native -eq 124 || $rc_native -eq 137 ]]; then
    fail_line "native run timed out after ${per_run_timeout}s"
  else
    fail_line "native run failed (exit $rc_native): the test itself is broken or the GPU misbehaves"
  fi
  show_tail "$base.native.out" "native stdout"
  show_tail "$base.native.err" "native stderr"
  echo "[gpu-test] FAIL $name: ${failures[*]}"
  exit 1
fi

if [[ -z "$lib" || ! -f "$lib" ]]; then
  echo "[gpu-test] FAIL $name: libacs.so not found ('$lib'): build target acs first"
  exit 1
fi

# The acs run keeps any ACS_* settings of the caller (ACS_WINDOW, ACS_STREAMS...).
run acs -u LD_PRELOAD "${both_env[@]}" LD_PRELOAD="$lib" ACS_STATS=1 "${acs_env[@]}" -- "$@"

if grep -aq 'ld.so: object .* cannot be preloaded' "$base.acs.err"; then
  fail_line "libacs.so could not be preloaded"
fi
if [[ $rc_acs -eq 124 || $rc_acs -eq 137 ]]; then
  fail_line "acs run timed out after ${per_run_timeout}s (hang?)"
  show_tail "$base.acs.out" "acs stdout, as far as it got"
  sed -n '/^---- run_case.sh: still running/,$p' "$base.acs.err" | head -n 150
elif [[ $rc_acs -ne $rc_native ]]; then
  fail_line "exit status differs: native $rc_native, acs $rc_acs"
fi
if ! cmp -s "$base.native.out" "$base.acs.out"; then
  fail_line "stdout differs from the native run"
  echo "---- diff native (-) vs acs (+), first 40 lines"
  diff -u "$base.native.out" "$base.acs.out" | head -n 40
fi

# key=value pairs: the last acs-stats line, then the program's acs-test lines.
# shellcheck disable=SC2034  # filled and read through namerefs
declare -A acs_kv=() native_kv=()
parse_kv() {  # parse_kv ARRAY FILE PREFIX
  # shellcheck disable=SC2178
  local -n kv=$1
  local line tok toks
  while IFS= read -r line; do
    read -ra toks <<<"${line#*:}"
    for tok in "${toks[@]}"; do
      [[ $tok == *=* ]] && kv[${tok%%=*}]=${tok#*=}
    done
  done < <(grep -a "^$3" "$2" || true)
}
stats_line=$(grep -a '^acs-stats:' "$base.acs.err" | tail -n 1)
if [[ -z "$stats_line" ]]; then
  fail_line "no acs-stats line on stderr: libacs.so was not loaded or ACS_STATS=1 is not honoured"
else
  parse_kv acs_kv <(echo "$stats_line") 'acs-stats:'
fi
parse_kv acs_kv "$base.acs.err" 'acs-test:'
parse_kv native_kv "$base.native.err" 'acs-test:'

check() {  # check ARRAY COND LABEL
  # shellcheck disable=SC2178
  local -n kv=$1
  local cond=$2 label=$3
  if [[ ! $cond =~ ^([A-Za-z0-9_.|]+)(\>=|\<=|==|!=|\>|\<)(-?[0-9.]+)$ ]]; then
    fail_line "bad condition '$cond'"; return
  fi
  local keys=${BASH_REMATCH[1]} op=${BASH_REMATCH[2]} want=${BASH_REMATCH[3]} key="" k
  IFS='|' read -ra alts <<<"$keys"
  for k in "${alts[@]}"; do
    if [[ -n "${kv[$k]+set}" ]]; then key=$k; break; fi
  done
  if [[ -z "$key" ]]; then
    fail_line "$label: no value for '$keys' (have: ${!kv[*]})"; return
  fi
  local got=${kv[$key]}
  if awk -v a="$got" -v b="$want" -v op="$op" 'BEGIN {
        if (a !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) exit 2
        a += 0; b += 0
        if (op == ">=") ok = a >= b
        else if (op == "<=") ok = a <= b
        else if (op == "==") ok = a == b
        else if (op == "!=") ok = a != b
        else if (op == ">") ok = a > b
        else ok = a < b
        exit ok ? 0 : 1 }'; then
    echo "  ok   $label $key=$got ($op $want)"
  else
    fail_line "$label: $key=$got, expected $op $want"
  fi
}
for c in "${native_expects[@]}"; do check native_kv "$c" native; done
if [[ -n "$stats_line" ]]; then
  for c in "${expects[@]}"; do check acs_kv "$c" acs; done
fi

summary="native ${secs_native}s, acs ${secs_acs}s"
[[ -n "$stats_line" ]] && summary+=" | ${stats_line#acs-stats: }"
measured=$(grep -a '^acs-test:' "$base.acs.err" | tail -n 1)
[[ -n "$measured" ]] && summary+=" | measured under acs: ${measured#acs-test: }"
if [[ ${#failures[@]} -gt 0 ]]; then
  show_tail "$base.acs.err" "acs stderr"
  for f in "${failures[@]}"; do echo "  FAIL: $f"; done
  joined=$(printf '%s; ' "${failures[@]}")
  echo "[gpu-test] FAIL $name: ${joined%; } ($summary)"
  exit 1
fi
echo "[gpu-test] PASS $name ($summary)"
exit 0
