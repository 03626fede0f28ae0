#!/usr/bin/env bash
# Regenerates the nvcc fixtures of this folder (README.md). hand.ptx is written by hand.
set -euo pipefail
cd "$(dirname "$0")"
nvcc -ptx -arch=sm_90 kernels.cu -o kernels.ptx
nvcc -ptx -arch=sm_90a -std=c++17 tma.cu -o tma.ptx
nvcc -ptx -arch=sm_90 tables.cu -o tables.ptx
nvcc -ptx -arch=sm_90 textures.cu -o textures.ptx
