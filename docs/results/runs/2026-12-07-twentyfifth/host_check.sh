# Sourced by gpuA.sh and gpuB.sh: the host's CPU speeds (benchmarks/real/cpu_speeds.py), the 8
# fastest CPUs in $CPUS, and SLOW = how many of the 16 are slower than 8 ms (a quiet host: ~6 ms).
python3 benchmarks/real/cpu_speeds.py --rounds 2 | tee $R/cpu_speeds.txt
CPUS=$(python3 benchmarks/real/cpu_speeds.py --rounds 2 --pick 8)
SLOW=$(awk 'NR > 1 && $2 > 8.0' $R/cpu_speeds.txt | wc -l)
echo "picked CPUs $CPUS; CPUs slower than 8 ms: $SLOW of 16"
export CPUS
