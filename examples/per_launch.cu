// Per-launch annotations: before a launch, declare what it reads and writes.
//
// Eight kernels each smooth one slice of one big buffer. Without annotations
// acs sees eight kernels writing the same allocation and runs them one after
// another; with them it knows the slices are disjoint and runs them together.
// Runs the same without acs (every annotation call is then a no-op):
//   ./acs_example_per_launch
//   LD_PRELOAD=libacs.so ACS_STATS=1 ./acs_example_per_launch
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acs/acs.h"

#define CHECK(call)                                                           \
  do {                                                                        \
    const cudaError_t e_ = (call);                                            \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

// out[i] = `rounds` passes of a 3-point average around in[i], within the slice.
__global__ void smooth(float* out, const float* in, int n, int rounds) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float l = in[i > 0 ? i - 1 : i], c = in[i], r = in[i + 1 < n ? i + 1 : i];
    float v = c;
    for (int k = 0; k < rounds; ++k) v = 0.5f * v + 0.25f * (l + r);
    out[i] = v;
  }
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  constexpr int slices = 8, n = 1 << 18, rounds = 2000;
  constexpr std::size_t total = static_cast<std::size_t>(slices) * n;
  std::vector<float> host(total);
  for (std::size_t i = 0; i < total; ++i) host[i] = static_cast<float>(i % 1000) / 1000.0f;

  float *in = nullptr, *out = nullptr;  // one allocation each
  CHECK(cudaMalloc(&in, total * sizeof(float)));
  CHECK(cudaMalloc(&out, total * sizeof(float)));
  CHECK(cudaMemcpy(in, host.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  for (int k = 0; k < slices; ++k) {
    const float* in_k = in + static_cast<std::size_t>(k) * n;
    float* out_k = out + static_cast<std::size_t>(k) * n;
    // C++: typed ranges. The C equivalent:
    //   acs_range r[] = {{in_k, n * sizeof(float)}}, w[] = {{out_k, n * sizeof(float)}};
    //   acs_next_launch(r, 1, w, 1, ACS_EXACT);
    acs::next_launch(acs::reads(acs::elements(in_k, n)), acs::writes(acs::elements(out_k, n)), ACS_EXACT);
    smooth<<<16, 256, 0, stream>>>(out_k, in_k, n, rounds);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaStreamSynchronize(stream));

  std::vector<float> result(total);
  CHECK(cudaMemcpy(result.data(), out, total * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : result) sum += v;
  // Spot check against the host, at slice edges and in the middle.
  int bad = 0;
  for (int k = 0; k < slices; ++k)
    for (int i : {0, n / 2, n - 1}) {
      const float* s = host.data() + static_cast<std::size_t>(k) * n;
      const float l = s[i > 0 ? i - 1 : i], c = s[i], r = s[i + 1 < n ? i + 1 : i];
      float v = c;
      for (int j = 0; j < rounds; ++j) v = 0.5f * v + 0.25f * (l + r);
      const float got = result[static_cast<std::size_t>(k) * n + i];
      if (got - v > 1e-4f || v - got > 1e-4f) ++bad;
    }
  std::printf("per_launch: %d slices, sum %.6e, %s\n", slices, sum, bad == 0 ? "ok" : "WRONG");
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  return bad == 0 ? 0 : 1;
}
