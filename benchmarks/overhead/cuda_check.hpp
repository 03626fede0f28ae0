#pragma once
// CHECK(call): a failed runtime call ends the measuring program with its error (exit status 2).
// These programs measure; a failure must not go on to print a figure. And fold_buffers, their
// output's checksum.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                             \
  do {                                                                                       \
    const cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));      \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

// An FNV-1a hash of the first 32 floats of each device buffer, folded into `h`: what the
// benchmarks print as checksum= for their scripts' identical-output check.
inline unsigned long long fold_buffers(const std::vector<float*>& buffers,
                                       unsigned long long h = 1469598103934665603ull) {
  std::vector<float> host(32);
  for (float* b : buffers) {
    CHECK(cudaMemcpy(host.data(), b, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (const float f : host) {
      unsigned bits;
      std::memcpy(&bits, &f, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
    }
  }
  return h;
}
