#pragma once
// The CUDA headers as the hooks see them: every exported variant declared under its own name.
//
// Normally cuda.h and cuda_runtime_api.h map API names onto ABI variants with macros
// (cuMemcpyHtoDAsync -> cuMemcpyHtoDAsync_v2, or _v2_ptsz with per-thread default streams), so
// only one variant of each function is declared. With __CUDA_API_VERSION_INTERNAL, the mode the
// libraries themselves are built in, the headers declare the per-thread variants first and then
// #undef every renaming macro and declare the legacy and default variants too. The hook table
// can then take each hook's type from `decltype(&::symbol)` and is exact by construction.
//
// The hooks' CMake target defines __CUDA_API_VERSION_INTERNAL for its sources; this check catches
// a source that got the CUDA headers some other way first.
#if !defined(__CUDA_API_VERSION_INTERNAL)
#error "interpose hooks must be compiled with __CUDA_API_VERSION_INTERNAL (see interpose/CMakeLists.txt)"
#endif

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <string_view>

extern "C" {
// Declared for nvcc only (crt/device_functions.h, under __CUDACC__). <<<>>> compiles to these.
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                         void** args, size_t sharedMem, cudaStream_t stream);
cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                              void** args, size_t sharedMem, cudaStream_t stream);

// Removed from cuda.h in CUDA 13 but still exported by libcuda for old binaries (prototypes from
// CUDA 12's cuda.h). cuLaunch* take their arguments from cuParamSet*: acs cannot see them.
CUresult CUDAAPI cuLaunch(CUfunction f);
CUresult CUDAAPI cuLaunchGrid(CUfunction f, int grid_width, int grid_height);
CUresult CUDAAPI cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height, CUstream hStream);
CUresult CUDAAPI cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS* launchParamsList,
                                                     unsigned int numDevices, unsigned int flags);
}

namespace acs::hooks::detail {
// Compares a table symbol with its macro expansion: a leftover renaming macro would give a hook
// the type of another ABI variant.
constexpr bool not_renamed(std::string_view expanded, std::string_view written) noexcept {
  return expanded == written;
}
}  // namespace acs::hooks::detail

#define ACS_HOOKS_STR_(x) #x
// Use inside an X-macro body as ACS_HOOKS_ASSERT_NOT_RENAMED(name, #name): `name` arrives there
// macro-expanded, `#name` as written in the table.
#define ACS_HOOKS_ASSERT_NOT_RENAMED(expanded, written)                                    \
  static_assert(::acs::hooks::detail::not_renamed(ACS_HOOKS_STR_(expanded), written),       \
                "a CUDA header still renames " written ": its hook would get another ABI")
