#pragma once
// The CUDA driver functions acs itself calls, taken straight from libcuda so
// that they never pass through acs's own hooks (which export dlsym and wrap
// cuGetProcAddress). Resolved once, by name and ABI version, as nccl's
// cudawrap does:
//   dlopen("libcuda.so.1", RTLD_NOLOAD)      the application already loaded it;
//   the real dlsym (dlvsym, libc's version)   libacs exports a dlsym of its own;
//   cuGetProcAddress_v2(name, version)        the ABI of that version, not the
//                                             newest (cuStreamGetCtx became _v2
//                                             in 12.5 with another signature).
// Stream functions are taken in their legacy-stream form; acs never passes the
// handle 0, only explicit CU_STREAM_LEGACY / CU_STREAM_PER_THREAD handles.
#include <cuda.h>
#include <cudaTypedefs.h>

// _(name, version in which this ABI appeared, required)
#define ACS_RUNTIME_DRIVER_FUNCTIONS(_)     \
  _(cuCtxGetCurrent, 4000, true)            \
  _(cuCtxPushCurrent, 4000, true)           \
  _(cuCtxPopCurrent, 4000, true)            \
  _(cuCtxGetDevice, 2000, true)             \
  _(cuDevicePrimaryCtxGetState, 7000, true) \
  _(cuDevicePrimaryCtxRetain, 7000, true)   \
  _(cuDevicePrimaryCtxRelease, 11000, true) \
  _(cuStreamCreate, 2000, true)             \
  _(cuStreamDestroy, 4000, true)            \
  _(cuStreamGetCtx, 9020, true)             \
  _(cuStreamGetFlags, 5050, true)           \
  _(cuStreamIsCapturing, 10000, true)       \
  _(cuStreamWaitEvent, 3020, true)          \
  _(cuStreamSynchronize, 2000, true)        \
  _(cuEventCreate, 2000, true)              \
  _(cuEventRecord, 2000, true)              \
  _(cuEventQuery, 2000, true)               \
  _(cuEventDestroy, 4000, true)             \
  _(cuPointerGetAttribute, 4000, true)      \
  _(cuFuncGetParamInfo, 12040, false)       \
  _(cuKernelGetParamInfo, 12040, false)     \
  _(cuFuncGetName, 12030, false)            \
  _(cuKernelGetName, 12030, false)         \
  _(cuDeviceGetAttribute, 2000, false)      \
  _(cuFuncGetModule, 11000, false)          \
  _(cuLibraryGetKernel, 12000, false)       \
  _(cuKernelGetFunction, 12000, false)      \
  _(cuKernelGetLibrary, 12050, false)       \
  _(cuLaunchKernel, 4000, false)

namespace acs::driver {

// One typed pointer per function. Members are named after the PFN, not the
// cuda.h macro: `fn.cuEventDestroy` is the cuEventDestroy_v2 ABI (version 4000).
struct table {
#define ACS_DRIVER_MEMBER(name, version, required) PFN_##name##_v##version name##_;
  ACS_RUNTIME_DRIVER_FUNCTIONS(ACS_DRIVER_MEMBER)
#undef ACS_DRIVER_MEMBER
};

/// @brief The real driver functions, or nullptr when libcuda is not loaded (yet)
/// or lacks a required function (then logged once). Thread-safe, cheap after success.
const table* real() noexcept;

/// @brief True once resolution failed for good (libcuda loaded but unusable).
bool unavailable() noexcept;

/// @brief libc's dlsym, never the one libacs exports (which a call from inside libacs
/// would bind to); nullptr if it cannot be found.
using dlsym_fn = void* (*)(void*, const char*);
dlsym_fn libc_dlsym() noexcept;

/// @brief Tests only: makes real() return `fake` (a simulated driver), or resolve again when nullptr.
void use_for_testing(const table* fake) noexcept;

}  // namespace acs::driver
