// A fake libcudart.so.13 for the preload tests. Like the real runtime, it reaches the driver
// only through dlopen("libcuda.so.1") + dlsym("cuGetProcAddress_v2") + cuGetProcAddress, so with
// libacs preloaded its driver calls go through acs's driver wrappers, nested inside acs's
// runtime hooks. It keeps a per-thread last error like the real one, and, like it, makes the
// primary context current on a thread's first runtime call (lazily, inside that call).
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "fake_calls.hpp"

extern "C" {
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void**, size_t, cudaStream_t);
}

namespace {

thread_local cudaError_t last_error = cudaSuccess;
std::mutex mutex;
std::map<const void*, CUfunction>& stubs() {
  static auto* m = new std::map<const void*, CUfunction>;
  return *m;
}

struct driver {
  PFN_cuGetProcAddress_v12000 get = nullptr;
  PFN_cuLaunchKernel_v4000 launch = nullptr;
  PFN_cuLaunchKernel_v7000_ptsz launch_ptsz = nullptr;
  PFN_cuMemcpyAsync_v4000 memcpy_async = nullptr;
  PFN_cuMemAlloc_v3020 alloc = nullptr;
  PFN_cuMemFree_v3020 free = nullptr;
  PFN_cuStreamBeginCapture_v10010 begin_capture = nullptr;
  PFN_cuStreamSynchronize_v2000 synchronize = nullptr;
  PFN_cuCtxSetCurrent_v4000 set_current = nullptr;
  PFN_cuFuncSetAttribute_v9000 set_attribute = nullptr;
};

template <class F>
void get(const driver& d, const char* symbol, F& out, cuuint64_t flags = CU_GET_PROC_ADDRESS_DEFAULT) {
  void* p = nullptr;
  d.get(symbol, &p, 13000, flags, nullptr);
  out = reinterpret_cast<F>(p);
}

const driver& cu() {
  static const driver d = [] {
    driver r;
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) return r;
    r.get = reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(h, "cuGetProcAddress_v2"));
    if (r.get == nullptr) return r;
    get(r, "cuLaunchKernel", r.launch);
    get(r, "cuLaunchKernel", r.launch_ptsz, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
    get(r, "cuMemcpyAsync", r.memcpy_async);
    get(r, "cuMemAlloc", r.alloc);
    get(r, "cuMemFree", r.free);
    get(r, "cuStreamBeginCapture", r.begin_capture);
    get(r, "cuStreamSynchronize", r.synchronize);
    get(r, "cuCtxSetCurrent", r.set_current);
    get(r, "cuFuncSetAttribute", r.set_attribute);
    return r;
  }();
  return d;
}

// The runtime's lazy initialisation: the thread's device's primary context becomes current.
void initialise() {
  if (cu().set_current != nullptr) cu().set_current(reinterpret_cast<CUcontext>(0xc0));
}

cudaError_t result(CUresult r) {
  const cudaError_t e = r == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
  if (e != cudaSuccess) last_error = e;
  return e;
}

CUfunction function_of(const void* stub) {
  std::lock_guard lock(mutex);
  const auto it = stubs().find(stub);
  return it != stubs().end() ? it->second : reinterpret_cast<CUfunction>(const_cast<void*>(stub));
}

}  // namespace

extern "C" {

// Registers a host stub, as __cudaRegisterFunction does for a real program.
void fake_cudart_register(const void* stub, CUfunction function) {
  std::lock_guard lock(mutex);
  stubs()[stub] = function;
}

// How many times a host stub was looked up (cudaGetFuncBySymbol).
std::atomic<int> stub_lookups{0};
int fake_cudart_stub_lookups() { return stub_lookups.load(); }

cudaError_t cudaGetFuncBySymbol(cudaFunction_t* out, const void* stub) {
  initialise();
  stub_lookups.fetch_add(1);
  std::lock_guard lock(mutex);
  const auto it = stubs().find(stub);
  if (it == stubs().end()) return last_error = cudaErrorInvalidDeviceFunction;
  *out = reinterpret_cast<cudaFunction_t>(it->second);
  return cudaSuccess;
}
cudaError_t cudaPeekAtLastError() { return last_error; }
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  if (device != 0) return last_error = cudaErrorInvalidDevice;
  initialise();
  return cudaSuccess;
}
cudaError_t cudaGetLastError() {
  const cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

// As the real runtime does: the driver's call on the stub's function (the numbering agrees).
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  initialise();
  if (cu().set_attribute == nullptr) return last_error = cudaErrorInitializationError;
  return result(cu().set_attribute(function_of(func), static_cast<CUfunction_attribute>(attr), value));
}

cudaError_t cudaLaunchKernel(const void* func, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  return result(cu().launch(function_of(func), g.x, g.y, g.z, b.x, b.y, b.z, static_cast<unsigned>(shared), s, args,
                            nullptr));
}
cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  return result(cu().launch_ptsz(function_of(func), g.x, g.y, g.z, b.x, b.y, b.z, static_cast<unsigned>(shared), s,
                                 args, nullptr));
}
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  initialise();
  const auto f = reinterpret_cast<CUfunction>(reinterpret_cast<std::uintptr_t>(k) + 1);
  return result(cu().launch(f, g.x, g.y, g.z, b.x, b.y, b.z, static_cast<unsigned>(shared), s, args, nullptr));
}
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void** args, size_t shared, cudaStream_t s) {
  const auto f = reinterpret_cast<CUfunction>(reinterpret_cast<std::uintptr_t>(k) + 1);
  return result(cu().launch_ptsz(f, g.x, g.y, g.z, b.x, b.y, b.z, static_cast<unsigned>(shared), s, args, nullptr));
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind, cudaStream_t s) {
  return result(cu().memcpy_async(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), n, s));
}
cudaError_t cudaMalloc(void** p, size_t n) {
  CUdeviceptr d = 0;
  const cudaError_t e = result(cu().alloc(&d, n));
  *p = reinterpret_cast<void*>(d);
  return e;
}
cudaError_t cudaFree(void* p) { return result(cu().free(reinterpret_cast<CUdeviceptr>(p))); }
// Pinned host memory: an address of its own, without the driver; registering does nothing.
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned) {
  static std::uint64_t next = 0x7f90'0000'0000;
  std::lock_guard lock(mutex);
  *p = reinterpret_cast<void*>(next);
  next += (n + 0xfff) & ~std::uint64_t{0xfff};
  return cudaSuccess;
}
cudaError_t cudaHostRegister(void*, size_t, unsigned) { return cudaSuccess; }
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode) {
  return result(cu().begin_capture(s, static_cast<CUstreamCaptureMode>(mode)));
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) { return result(cu().synchronize(s)); }
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** p, unsigned version,
                                             unsigned long long flags, cudaDriverEntryPointQueryResult* status) {
  if (cu().get == nullptr) return cudaErrorNotSupported;
  CUdriverProcAddressQueryResult s{};
  const CUresult r = cu().get(symbol, p, static_cast<int>(version), flags, &s);
  if (status != nullptr) *status = static_cast<cudaDriverEntryPointQueryResult>(s);
  return r == CUDA_SUCCESS ? cudaSuccess : (last_error = cudaErrorSymbolNotFound);
}

}  // extern "C"
