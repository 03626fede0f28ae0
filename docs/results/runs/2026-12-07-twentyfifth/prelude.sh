# Sourced by gpuA.sh, gpuB.sh and gpuC.sh from the repository's root: $R (results), $t0, the build
# unpacked where the carried one is not there yet, the GPU named; then the host's CPU speeds
# (benchmarks/real/cpu_speeds.py), the 8 fastest CPUs in $CPUS, and SLOW = how many of the 16 are
# slower than 8 ms (a quiet host: about 6 ms).
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
[[ -f build-gpu/interpose/libacs.so ]] ||
  { rm -rf build-gpu build-stage && scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 benchmarks/real/cpu_speeds.py --rounds 2 | tee $R/cpu_speeds.txt
CPUS=$(python3 benchmarks/real/cpu_speeds.py --rounds 2 --pick 8)
SLOW=$(awk 'NR > 1 && $2 > 8.0' $R/cpu_speeds.txt | wc -l)
echo "picked CPUs $CPUS; CPUs slower than 8 ms: $SLOW of 16"
export CPUS
