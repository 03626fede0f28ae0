#pragma once
// Driver entry points, fetched through the runtime as Triton-like code does.
// The programs must not link libcuda.so.1 directly: without a driver they
// would then fail to start instead of skipping.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "common.cuh"

namespace acs_test {

// A driver function through the runtime; the program fails if the driver lacks it.
inline void* driver_entry_point(const char* symbol, unsigned version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  ACS_CHECK(cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || p == nullptr) {
    std::fprintf(stderr, "FAILED: driver entry point %s not found\n", symbol);
    std::exit(1);
  }
  return p;
}

struct driver_api {
  PFN_cuLaunchKernel_v4000 launch_kernel = nullptr;
  PFN_cuLaunchKernelEx_v11060 launch_kernel_ex = nullptr;
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;

  static const driver_api& get() {
    static const driver_api api = [] {
      driver_api a;
      a.launch_kernel = reinterpret_cast<PFN_cuLaunchKernel_v4000>(resolve("cuLaunchKernel", 4000));
      a.launch_kernel_ex = reinterpret_cast<PFN_cuLaunchKernelEx_v11060>(resolve("cuLaunchKernelEx", 11060));
      a.get_error_name = reinterpret_cast<PFN_cuGetErrorName_v6000>(resolve("cuGetErrorName", 6000));
      return a;
    }();
    return api;
  }

  const char* name(CUresult r) const {
    const char* s = nullptr;
    if (get_error_name(r, &s) != CUDA_SUCCESS || s == nullptr) return "CUDA_ERROR_<unknown>";
    return s;
  }

 private:
  static void* resolve(const char* symbol, unsigned version) { return driver_entry_point(symbol, version); }
};

inline CUfunction cu_function(const void* kernel) {
  cudaFunction_t f = nullptr;
  ACS_CHECK(cudaGetFuncBySymbol(&f, kernel));
  return reinterpret_cast<CUfunction>(f);
}

}  // namespace acs_test
