// A small CUDA program that must behave identically with and without LD_PRELOAD=libacs.so:
// same standard output, same exit status (tests/preload/run_compare.cmake). Without a GPU every
// call fails with the same error either way, and it exits with 77 (the test then reports SKIPPED,
// once both runs agreed); with one, it computes and checks a result.
// Built twice: with the static cudart (nvcc's default) and the shared one.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>

__global__ void scale(float* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__device__ float symbol_value;

static int report(const char* what, cudaError_t e) {
  std::printf("%-28s %d %s\n", what, static_cast<int>(e), cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}

int main() {
  int failures = 0;
  int devices = -1;
  failures += report("cudaGetDeviceCount", cudaGetDeviceCount(&devices));
  std::printf("devices %d\n", devices);

  constexpr int n = 1 << 12;
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float* device = nullptr;
  failures += report("cudaMalloc", cudaMalloc(&device, sizeof host));
  failures += report("cudaMemcpy to device", cudaMemcpy(device, host, sizeof host, cudaMemcpyHostToDevice));
  cudaStream_t stream = nullptr;
  failures += report("cudaStreamCreate", cudaStreamCreate(&stream));
  scale<<<n / 256, 256, 0, stream>>>(device, 2.0f, n);
  failures += report("launch (<<<>>>)", cudaGetLastError());
  void* args[] = {&device, nullptr, nullptr};
  float a = 0.5f;
  int count = n;
  args[1] = &a;
  args[2] = &count;
  failures += report("cudaLaunchKernel", cudaLaunchKernel(reinterpret_cast<const void*>(&scale), dim3(n / 256),
                                                          dim3(256), args, 0, stream));
  failures += report("cudaMemcpyAsync to host",
                     cudaMemcpyAsync(host, device, sizeof host, cudaMemcpyDeviceToHost, stream));
  failures += report("cudaStreamSynchronize", cudaStreamSynchronize(stream));
  const float one = 1.0f;
  failures += report("cudaMemcpyToSymbol", cudaMemcpyToSymbol(symbol_value, &one, sizeof one));
  failures += report("cudaDeviceSynchronize", cudaDeviceSynchronize());
  failures += report("cudaGetLastError", cudaGetLastError());
  int wrong = 0;
  for (int i = 0; i < n && devices > 0; ++i) wrong += host[i] != static_cast<float>(i);
  std::printf("wrong values %d\n", wrong);
  failures += report("cudaFree", cudaFree(device));
  if (stream != nullptr) failures += report("cudaStreamDestroy", cudaStreamDestroy(stream));

  // The driver as Triton and CuPy reach it.
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  std::printf("dlopen(libcuda.so.1) %s\n", cuda != nullptr ? "found" : "not found");
  if (cuda != nullptr) {
    auto init = reinterpret_cast<CUresult (*)(unsigned)>(dlsym(cuda, "cuInit"));
    std::printf("cuInit %d\n", init != nullptr ? static_cast<int>(init(0)) : -1);
    std::printf("cuLaunchKernelEx %s\n", dlsym(cuda, "cuLaunchKernelEx") != nullptr ? "found" : "missing");
  }
  std::printf("failures %d\n", failures);
  if (devices <= 0) return 77;  // nothing was computed: skipped, not passed
  const int status = failures + (wrong != 0 ? 100 : 0);
  return status > 125 ? 125 : status;
}
