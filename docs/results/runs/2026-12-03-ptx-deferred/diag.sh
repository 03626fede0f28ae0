#!/usr/bin/env bash
# Interleaved runs of cuda-samples programs in several preload modes; prints per-mode medians.
# usage: diag.sh OUTDIR REPS PROGRAM... ; modes from $MODES (name=ENV... ; LIB=path picks the library)
set -u
out=$1; reps=$2; shift 2
bin=${BIN:-.real-src/bin}
lib=${LIB:-$PWD/build-gpu/interpose/libacs.so}
mkdir -p "$out"
IFS=';' read -ra modes <<< "$MODES"
for prog in "$@"; do
  case $prog in
    mergeSort) re='^Time: ([0-9.]+) ms' ;;
    sortingNetworks) re='Average time: ([0-9.]+) ms' ;;
    *) re="${RE:-Time}" ;;
  esac
  for ((r = 0; r < reps; r++)); do
    order=("${modes[@]}"); if ((r % 2)); then order=(); for ((i=${#modes[@]}-1;i>=0;i--)); do order+=("${modes[i]}"); done; fi
    for m in "${order[@]}"; do
      name=${m%%=*}; envs=${m#*=}
      pre=$lib; e=()
      for kv in $envs; do case $kv in LIB=*) pre=${kv#LIB=} ;; NATIVE) pre='' ;; *) e+=("$kv") ;; esac; done
      if [ -n "$pre" ]; then e+=("LD_PRELOAD=$pre"); fi
      env "${e[@]}" "$bin/$prog" ${ARGS:-} > "$out/$prog.$name.$r.out" 2> "$out/$prog.$name.$r.err"
      t=$(grep -E "$re" "$out/$prog.$name.$r.out" | sed -E "s/.*$re.*/\1/" | awk '{s+=$1} END {printf "%.4f", s}')
      echo "$prog $name $r $t" >> "$out/times.txt"
    done
  done
done
python3 - "$out/times.txt" <<'PY'
import sys, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p, m, r, t = line.split(); d[(p, m)].append(float(t))
progs = sorted({p for p, _ in d})
for p in progs:
    base = statistics.median(d[(p, 'native')]) if (p, 'native') in d else None
    for (q, m), v in d.items():
        if q != p: continue
        med = statistics.median(v)
        print(f"{p:18s} {m:12s} median {med:8.4f} min {min(v):8.4f} max {max(v):8.4f} n={len(v)}" + (f"  x{base/med:.3f}" if base else ""))
PY
