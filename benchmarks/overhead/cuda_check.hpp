#pragma once
// CHECK(call): a failed runtime call ends the measuring program with its error (exit status 2).
// These programs measure; a failure must not go on to print a figure.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                             \
  do {                                                                                       \
    const cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));      \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)
