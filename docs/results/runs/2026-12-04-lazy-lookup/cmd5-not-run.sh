#!/usr/bin/env bash
# FDTD3d's 4%: which of acs's settings moves it (8 interleaved processes per mode), and one run at debug level
set -u
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R
scripts/carry_build.sh unpack .carry/build-gpu.tgz > $R/unpack.log 2>&1 || echo UNPACK-FAILED
L=$PWD/build-gpu/interpose/libacs.so
ACS_LIB=$L ACS_REAL_HARD=150 timeout 160 scripts/bench_real.sh --out $R/fdtd --budget 145 --reps 8 --only '^FDTD3d$' --no-warmup \
  --mode noptx:ACS_PTX=0 --mode startpool:ACS_START_ASIDE=0 --mode inline:ACS_ISSUE=inline \
  --mode "native_eager:LD_PRELOAD=,CUDA_MODULE_LOADING=EAGER" --mode "acs_eager:CUDA_MODULE_LOADING=EAGER" > $R/bench.log 2>&1
echo "bench rc=$?"
tail -6 $R/fdtd/real_programs.md
LD_PRELOAD=$L ACS_LOG_LEVEL=debug .real-src/bin/FDTD3d -dimx=128 -dimy=128 -dimz=128 -timesteps=10 > $R/debug.out 2> $R/debug.err
grep -v "launch via" $R/debug.err | head -40; grep -c "launch via" $R/debug.err
cd $OUT && tar czf r.tgz r && rm -rf r
