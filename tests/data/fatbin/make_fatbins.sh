#!/usr/bin/env bash
# Regenerates the test fatbins from kernels.cu (nvcc 13: PTX compressed with zstd by default,
# with LZ4 blocks in --compress-mode=speed).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -fatbin -arch=sm_90 kernels.cu -o sm90.fatbin
nvcc -fatbin -gencode arch=compute_80,code=[sm_80,compute_80] -gencode arch=compute_90,code=[sm_90,compute_90] \
  kernels.cu -o sm80_sm90.fatbin
nvcc -fatbin -gencode arch=compute_80,code=compute_80 kernels.cu -o ptx80_only.fatbin
nvcc -fatbin -arch=sm_90 --no-compress kernels.cu -o sm90_uncompressed.fatbin
nvcc -fatbin -arch=sm_90 --compress-mode=speed kernels.cu -o sm90_lz4.fatbin  # LZ4 blocks (flag 0x2000)
nvcc -ptx -arch=sm_90 kernels.cu -o sm90.ptx
