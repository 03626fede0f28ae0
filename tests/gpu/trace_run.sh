#!/usr/bin/env bash
# Runs a GPU test program natively, then under LD_PRELOAD=libacs.so with
# ACS_TRACE=<out>/<name>.json and ACS_STATS=1, and checks that:
#   - both runs exit alike and print the same stdout (tracing changes nothing);
#   - the trace passes every --check of acs_trace_check ("--overlap A B": one
#     check with its arguments, split on spaces) or, with --no-trace,
#     no trace was written;
#   - the acs-stats line meets every --expect (KEY OP NUMBER);
#   - with --warn-once TEXT, the acs run's stderr has exactly one line with TEXT;
#   - with --compare-disabled GAIN, a third run under ACS_DISABLE=1 (also
#     measured) has achieved_concurrency <= 1.2 and the acs run at least GAIN
#     more: acs raised the concurrency measured on the GPU.
#
# Usage: trace_run.sh --name NAME --lib LIBACS --checker ACS_TRACE_CHECK --out-dir DIR
#                     [--acs-env K=V]... [--check ARG]... [--expect COND]...
#                     [--warn-once TEXT] [--no-trace] [--compare-disabled GAIN]
#                     -- PROGRAM [ARGS...]
# Exit status: 0 pass, 1 fail, 77 skipped (no CUDA device).
set -u

name="" lib="" checker="" out_dir="" warn_once="" no_trace=0 gain=""
acs_env=() checks=() expects=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --checker) checker=$2; shift 2 ;;
    --out-dir) out_dir=$2; shift 2 ;;
    --acs-env) acs_env+=("$2"); shift 2 ;;
    --check) checks+=("$2"); shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --warn-once) warn_once=$2; shift 2 ;;
    --no-trace) no_trace=1; shift ;;
    --compare-disabled) gain=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "trace_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 1 && -n "$name" && -n "$out_dir" ]] || { echo "usage: see trace_run.sh" >&2; exit 2; }
mkdir -p "$out_dir"
base="$out_dir/$name"
trace="$base.json"
failures=()
fail() { failures+=("$1"); echo "  FAIL: $1"; }

unset_acs=(-u LD_PRELOAD)
while IFS= read -r v; do unset_acs+=(-u "$v"); done < <(compgen -e | grep '^ACS_' || true)

run() {  # run TAG ENV... -- PROGRAM ARGS...: sets rc_TAG
  local tag=$1; shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  timeout --kill-after=10 180 env "${envs[@]}" "$@" >"$base.$tag.out" 2>"$base.$tag.err"
  printf -v "rc_$tag" '%d' "$?"
}

stat_of() {  # stat_of FILE KEY: the value of KEY in FILE's last acs-stats line
  grep -a '^acs-stats:' "$1" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p" | tail -n 1
}

run native "${unset_acs[@]}" -- "$@"
if [[ $rc_native -eq 77 ]]; then
  reason=$(grep -a -m1 '^SKIPPED:' "$base.native.out" | sed 's/^SKIPPED: *//')
  echo "SKIPPED: ${reason:-no CUDA device}"
  echo "[gpu-test] SKIP $name: ${reason:-no CUDA device}"
  exit 77
fi
if [[ $rc_native -ne 0 ]]; then
  tail -n 20 "$base.native.out" "$base.native.err"
  echo "[gpu-test] FAIL $name: native run failed (exit $rc_native)"
  exit 1
fi
if [[ -z "$lib" || ! -f "$lib" ]]; then
  echo "[gpu-test] FAIL $name: libacs.so not found ('$lib'): build target acs first"
  exit 1
fi

rm -f "$trace"
# The traces check pool work: streams start redirected (ACS_START_ASIDE=0) unless --acs-env says otherwise.
run acs "${unset_acs[@]}" LD_PRELOAD="$lib" ACS_TRACE="$trace" ACS_STATS=1 ACS_START_ASIDE=0 "${acs_env[@]}" -- "$@"
[[ $rc_acs -eq $rc_native ]] || fail "exit status differs: native $rc_native, acs $rc_acs"
if ! cmp -s "$base.native.out" "$base.acs.out"; then
  fail "stdout differs from the native run"
  diff -u "$base.native.out" "$base.acs.out" | head -n 30
fi
grep -a '^acs-stats:' "$base.acs.err" | tail -n 1

if [[ $no_trace -eq 1 ]]; then
  [[ ! -e "$trace" ]] || fail "a trace was written although acs had to back off"
elif [[ ! -s "$trace" ]]; then
  fail "no trace written to $trace"
elif [[ ${#checks[@]} -gt 0 ]]; then
  words=()
  for c in "${checks[@]}"; do read -ra w <<<"$c"; words+=("${w[@]}"); done
  "$checker" "$trace" "${words[@]}" || fail "trace checks failed ($trace)"
fi

if [[ -n "$warn_once" ]]; then
  count=$(grep -a -c -F -- "$warn_once" "$base.acs.err")
  [[ $count -eq 1 ]] && echo "  ok   warned once: $warn_once" \
    || fail "expected one stderr line with '$warn_once', found $count"
fi

for cond in "${expects[@]}"; do
  [[ $cond =~ ^([A-Za-z0-9_]+)(\>=|\<=|==|!=|\>|\<)(-?[0-9.]+)$ ]] || { fail "bad condition '$cond'"; continue; }
  key=${BASH_REMATCH[1]} op=${BASH_REMATCH[2]} want=${BASH_REMATCH[3]}
  got=$(stat_of "$base.acs.err" "$key")
  if [[ -z "$got" ]]; then fail "no $key in the acs-stats line"; continue; fi
  # One line: mawk allows no line break inside a ?: chain.
  if awk -v a="$got" -v b="$want" -v op="$op" 'BEGIN { a += 0; b += 0; if (op == ">=") ok = a >= b; else if (op == "<=") ok = a <= b; else if (op == "==") ok = a == b; else if (op == "!=") ok = a != b; else if (op == ">") ok = a > b; else ok = a < b; exit ok ? 0 : 1 }'; then
    echo "  ok   $key=$got ($op $want)"
  else
    fail "$key=$got, expected $op $want"
  fi
done

if [[ -n "$gain" ]]; then
  run off "${unset_acs[@]}" LD_PRELOAD="$lib" ACS_STATS=1 ACS_DISABLE=1 -- "$@"
  cmp -s "$base.native.out" "$base.off.out" || fail "stdout under ACS_DISABLE=1 differs from the native run"
  on_c=$(stat_of "$base.acs.err" achieved_concurrency)
  off_c=$(stat_of "$base.off.err" achieved_concurrency)
  [[ $(stat_of "$base.off.err" measured) == 1 ]] || fail "ACS_DISABLE=1 run has no measured figures (measured=$(stat_of "$base.off.err" measured))"
  if [[ -n "$on_c" && -n "$off_c" ]]; then
    if awk -v on="$on_c" -v off="$off_c" -v g="$gain" 'BEGIN { exit (off <= 1.2 && on >= off + g) ? 0 : 1 }'; then
      echo "  ok   achieved_concurrency: acs $on_c vs ACS_DISABLE=1 $off_c (gain >= $gain)"
    else
      fail "achieved_concurrency: acs $on_c vs ACS_DISABLE=1 $off_c, expected off <= 1.2 and a gain >= $gain"
    fi
  else
    fail "achieved_concurrency missing (acs '$on_c', disabled '$off_c')"
  fi
fi

if [[ ${#failures[@]} -gt 0 ]]; then
  echo "---- acs stderr (last 20 lines)"
  tail -n 20 "$base.acs.err"
  echo "[gpu-test] FAIL $name: $(IFS=';'; echo "${failures[*]}")"
  exit 1
fi
echo "[gpu-test] PASS $name"
exit 0
