#!/usr/bin/env bash
# The GPU suite at this session's first HEAD; sortingNetworks with its first probe moved out of
# the timed region (noprobe); then PyTorch pinned to CPUs near the GPU, as many interleaved
# processes per mode as the time allows (native, acs).
set -u
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
t0=$(date +%s)
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/^0000//')
echo "gpu-local cpus: $(cat /sys/bus/pci/devices/$bus/local_cpulist 2>/dev/null) numa: $(cat /sys/bus/pci/devices/$bus/numa_node 2>/dev/null)"
lscpu | grep -E "^(CPU\(s\)|NUMA|Model name|Thread|Core)" ; nvidia-smi topo -m 2>/dev/null | head -4
timeout 280 ctest --test-dir build-gpu -L "preload|gpu" -E "gpu\.bench|preload\.exports|preload\.hook_table" -j 12 --timeout 100 > $R/suite.txt 2>&1
echo "suite rc=$? at $(( $(date +%s)-t0 )) s"; grep -E "tests passed|FAILED|Failed|\*\*\*Timeout|Not Run" $R/suite.txt | head -20
L=$PWD/build-gpu/interpose/libacs.so
ACS_LIB=$L ACS_REAL_HARD=70 timeout 75 scripts/bench_real.sh --out $R/samples --budget 65 --reps 7 --no-warmup \
  --only '^sortingNetworks$' --modes native,acs --mode "noprobe:ACS_FIRST_PROBE=100000" > $R/samples.log 2>&1
echo "samples rc=$? at $(( $(date +%s)-t0 )) s"; tail -4 $R/samples/real_programs.md
left=$(( 580 - ($(date +%s)-t0) ))
ACS_REAL_CPUS=${PIN:-2-9} ACS_LIB=$L ACS_REAL_HARD=$left timeout $((left+5)) scripts/bench_real.sh --out $R/torch --budget $((left-5)) --reps 12 \
  --only '^torch$' --no-warmup --modes native,acs > $R/torch.log 2>&1
echo "torch rc=$? at $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
