#!/bin/sh
# check_graph_backend.sh PROGRAM LIBACS: the CUDA graph backend (src/runtime/cuda_graphs.cpp) of the
# real libacs against the fake driver offering graphs (FAKE_CUDA_GRAPHS=1): the fake-driver
# benchmark's independent launches, under ACS_GRAPH=auto, must be built into graphs, replayed and
# updated in place, with no graph call failing. Without a GPU.
program=$1 libacs=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
FAKE_CUDA_GRAPHS=1 ACS_GRAPH=auto ACS_STATS=1 ACS_START_ASIDE=0 ACS_NO_PTX=arguments LD_PRELOAD=$libacs \
  "$program" --calls 2000 --reps 1 >/dev/null 2>"$log" || { cat "$log" >&2; echo "check_graph_backend: the program failed" >&2; exit 1; }
value() { sed -n "s/.*acs-stats:.* $1=\([0-9]*\).*/\1/p" "$log"; }
built=$(value graphs_built) replays=$(value graph_replays) updates=$(value graph_updates)
failures=$(value graph_failures) plain_failed=$(value graph_plain_failed)
echo "graphs_built=$built graph_replays=$replays graph_updates=$updates graph_failures=$failures graph_plain_failed=$plain_failed"
[ -n "$built" ] || { cat "$log" >&2; echo "check_graph_backend: no acs-stats line" >&2; exit 1; }
[ "$built" -gt 0 ] && [ "$replays" -gt 0 ] && [ "$updates" -gt 0 ] && [ "$failures" -eq 0 ] && [ "$plain_failed" -eq 0 ] ||
  { cat "$log" >&2; echo "check_graph_backend: graphs were not built, replayed and updated without failure" >&2; exit 1; }
