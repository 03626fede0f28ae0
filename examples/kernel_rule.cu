// Per-kernel rules: register, once, how a kernel's footprint follows from its
// arguments; every later launch of it is annotated with no code at the call.
//
// y_k = a * x_k + y_k on slices of two big buffers (the ACS paper's
// get_addresses). The rule reads x and y and writes y, n elements each.
//   ./acs_example_kernel_rule
//   LD_PRELOAD=libacs.so ACS_STATS=1 ./acs_example_kernel_rule
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

// y[i] = a * x[i] + y[i], `rounds` times over (to give the kernel some length).
__global__ void saxpy(float* y, const float* x, float a, int n, int rounds) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = y[i];
    for (int r = 0; r < rounds; ++r) v = a * x[i] + v * 0.5f;
    y[i] = v;
  }
}

// The rule receives the launch's own arguments, typed. The C equivalent:
//   static void saxpy_rule(acs_footprint* fp, void* const* args, void* user) {
//     float* y = *(float* const*)args[0];
//     const float* x = *(const float* const*)args[1];
//     int n = *(const int*)args[3];
//     acs_footprint_read(fp, x, n * sizeof(float));
//     acs_footprint_read(fp, y, n * sizeof(float));
//     acs_footprint_write(fp, y, n * sizeof(float));
//   }
//   cudaFunction_t f;  cudaGetFuncBySymbol(&f, (const void*)saxpy);
//   acs_register_kernel(f, saxpy_rule, NULL, ACS_EXACT);
void saxpy_rule(acs::footprint& fp, float* y, const float* x, float, int n, int) {
  fp.reads(x, static_cast<std::size_t>(n));
  fp.reads(y, static_cast<std::size_t>(n));
  fp.writes(y, static_cast<std::size_t>(n));
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  // Once, for the current device (a no-op returning ACS_NOT_LOADED without acs).
  acs::register_kernel(saxpy, saxpy_rule, ACS_EXACT);

  constexpr int slices = 8, n = 1 << 18, rounds = 1000;
  constexpr std::size_t total = static_cast<std::size_t>(slices) * n;
  std::vector<float> hx(total), hy(total);
  for (std::size_t i = 0; i < total; ++i) {
    hx[i] = static_cast<float>(i % 17) / 17.0f;
    hy[i] = static_cast<float>(i % 5);
  }
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, total * sizeof(float)));
  CHECK(cudaMalloc(&y, total * sizeof(float)));
  CHECK(cudaMemcpy(x, hx.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  for (int pass = 0; pass < 2; ++pass)
    for (int k = 0; k < slices; ++k) {
      saxpy<<<16, 256, 0, stream>>>(y + static_cast<std::size_t>(k) * n, x + static_cast<std::size_t>(k) * n,
                                    2.0f, n, rounds);
      CHECK(cudaGetLastError());
    }
  CHECK(cudaStreamSynchronize(stream));

  std::vector<float> result(total);
  CHECK(cudaMemcpy(result.data(), y, total * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  double sum = 0;
  for (std::size_t i = 0; i < total; ++i) {
    float v = hy[i];
    for (int pass = 0; pass < 2; ++pass)
      for (int r = 0; r < rounds; ++r) v = 2.0f * hx[i] + v * 0.5f;
    if (result[i] - v > 1e-4f || v - result[i] > 1e-4f) ++bad;
    sum += result[i];
  }
  std::printf("kernel_rule: %d slices x 2 passes, sum %.6e, %s\n", slices, sum, bad == 0 ? "ok" : "WRONG");
  acs::unregister_kernel(saxpy);
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  return bad == 0 ? 0 : 1;
}
