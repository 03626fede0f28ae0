// Runtime hooks: one exported wrapper per ACS_RUNTIME_HOOKS line and the launch handlers.
//
// These only see programs (and libraries) that link libcudart.so dynamically: PyTorch, most
// Python packages, `nvcc -cudart shared`. Statically linked cudart is seen at the driver level
// (hooks_driver.cpp). A runtime hook runs the real runtime with the re-entry guard held, so the
// driver calls the runtime makes on its behalf pass straight through: each operation is
// reported once, by the outermost hook, which also knows the most (default-stream variant,
// host stub).
#include <atomic>
#include <climits>
#include <cstdlib>

#include "interpose/hooks_entry.hpp"
#include "interpose/hooks_export.hpp"
#include "interpose/hooks_generic.hpp"
#include "interpose/hooks_launch.hpp"
#include "interpose/real_driver.hpp"
#include "interpose/real_runtime.hpp"
#include "src/support/config.hpp"
#include "src/support/thread_cache.hpp"

namespace acs::hooks {
namespace {

// Calls per hook, counted only while debug logging is on, and printed at exit.
enum class runtime_id : unsigned {
#define ACS_RUNTIME_ID(symbol, kind) symbol,
  ACS_RUNTIME_HOOKS(ACS_RUNTIME_ID)
#undef ACS_RUNTIME_ID
  count_
};
constexpr std::size_t runtime_hook_count = static_cast<std::size_t>(runtime_id::count_);
constinit hook_counters<runtime_hook_count> counters;

void print_summary() noexcept {
  static constexpr const char* names[] = {ACS_RUNTIME_HOOKS(ACS_HOOKS_NAME)};
  counters.print(names);
}

void count_call(runtime_id id, bool nested) noexcept {
  counters.count(static_cast<std::size_t>(id), nested, print_summary);
}

// Host stubs and kernels resolved to CUfunctions, per thread: the look-ups cost about a
// microsecond (a PyTorch launch spent 1.2 µs in the hook before reaching acs's runtime), and the
// same few hundred kernels come back at every step. A function depends on the current context;
// unloading code or tearing a context down bumps the generation (forget_launch_functions).
std::atomic<std::uint64_t> functions_generation{1};
struct cached_function {
  CUcontext context;
  CUfunction function;
};
thread_local thread_cache<const void*, cached_function, 256> recent_functions;

// `lookup` resolves `key` in the current context; cached while nothing is unloaded.
template <class Lookup>
CUfunction cached(const void* key, Lookup&& lookup) noexcept {
  const driver::table* cu = driver::real();
  CUcontext context = nullptr;
  if (cu == nullptr || cu->cuCtxGetCurrent_(&context) != CUDA_SUCCESS || context == nullptr) return lookup();
  const std::uint64_t generation = functions_generation.load(std::memory_order_acquire);
  if (const cached_function* hit = recent_functions.find(key, generation); hit != nullptr && hit->context == context)
    return hit->function;
  const CUfunction f = lookup();
  if (f != nullptr) recent_functions.store(key, generation, {context, f});
  return f;
}

// The CUfunction behind a host stub (cudaLaunchKernel's `func`), for the current device.
//
// Sticky-error note: cudaGetFuncBySymbol is a runtime call, and a failing runtime call replaces
// the thread's last error, which the application reads later with cudaGetLastError. So the
// look-up is only made when no error is pending (cudaPeekAtLastError, which changes nothing),
// and an error it causes itself is cleared again with cudaGetLastError, which then restores
// exactly the state seen before: no error. If the launch itself fails, its own error is recorded
// by the launch as usual. (Sticky errors cannot be cleared, by anyone: nothing to preserve.)
CUfunction function_of_stub(const void* func) noexcept {
  const real::runtime_reals* rt = real::runtime();
  if (rt == nullptr || func == nullptr || rt->cudaPeekAtLastError == nullptr ||
      rt->cudaGetFuncBySymbol == nullptr || rt->cudaGetLastError == nullptr) {
    return nullptr;
  }
  if (rt->cudaPeekAtLastError() != cudaSuccess) return nullptr;
  cudaFunction_t function = nullptr;
  if (rt->cudaGetFuncBySymbol(&function, func) != cudaSuccess) {
    (void)rt->cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<CUfunction>(function);
}

// The CUfunction of a cudaKernel_t (what <<<>>> passes to __cudaLaunchKernel; it is a CUkernel)
// in the current context: a driver call, which leaves the runtime's error state alone. nullptr
// when there is no current context (or no driver yet).
CUfunction kernel_function(cudaKernel_t kernel) noexcept {
  const driver::table* cu = driver::real();
  CUfunction function = nullptr;
  if (cu == nullptr || cu->cuKernelGetFunction_ == nullptr ||
      cu->cuKernelGetFunction_(&function, reinterpret_cast<CUkernel>(kernel)) != CUDA_SUCCESS)
    return nullptr;
  return function;
}

bool context_is_current() noexcept {
  const driver::table* cu = driver::real();
  CUcontext current = nullptr;
  return cu != nullptr && cu->cuCtxGetCurrent_(&current) == CUDA_SUCCESS && current != nullptr;
}

// A thread's first runtime call may be the launch itself (NVIDIA's simpleCooperativeGroups sample):
// the runtime initialises the thread's device and makes its primary context current only inside
// the launch, after this hook asked the driver for the kernel's function. The hook has it done
// first: cudaSetDevice of the thread's current device does exactly that (CUDA 12 and later) and
// nothing else. The same care of the last error as function_of_stub.
bool make_device_context_current() noexcept {
  const real::runtime_reals* rt = real::runtime();
  if (rt == nullptr || rt->cudaPeekAtLastError == nullptr || rt->cudaGetDevice == nullptr ||
      rt->cudaSetDevice == nullptr || rt->cudaGetLastError == nullptr || rt->cudaPeekAtLastError() != cudaSuccess)
    return false;
  int device = 0;
  if (rt->cudaGetDevice(&device) != cudaSuccess || rt->cudaSetDevice(device) != cudaSuccess) {
    (void)rt->cudaGetLastError();
    return false;
  }
  return true;
}

CUfunction function_of_kernel(cudaKernel_t kernel) noexcept {
  if (kernel == nullptr) return nullptr;
  if (const CUfunction function = kernel_function(kernel)) return function;
  if (!context_is_current() && make_device_context_current())
    if (const CUfunction function = kernel_function(kernel)) return function;
  return function_of_stub(static_cast<const void*>(kernel));
}

CUfunction cached_function_of_stub(const void* func) noexcept {
  return cached(func, [func] { return function_of_stub(func); });
}

CUfunction cached_function_of_kernel(cudaKernel_t kernel) noexcept {
  return cached(static_cast<const void*>(kernel), [kernel] { return function_of_kernel(kernel); });
}

// launch_request::find_function of a cudaKernel_t (a host stub's is cached_function_of_stub).
CUfunction find_function_of_kernel(const void* kernel) noexcept {
  return cached_function_of_kernel(static_cast<cudaKernel_t>(const_cast<void*>(kernel)));
}

launch_shape shape_of(dim3 grid, dim3 block, std::size_t shared) noexcept {
  launch_shape s{{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, static_cast<unsigned>(shared), false};
  if (shared > UINT_MAX) s.attributes = true;  // not expressible to the driver: issue it now
  return s;
}

}  // namespace

void forget_launch_functions() noexcept { functions_generation.fetch_add(1, std::memory_order_acq_rel); }

CUfunction function_of_host_stub(const void* stub) noexcept { return cached_function_of_stub(stub); }

template <>
struct special<hook_api::runtime> {
  // cudaLaunchKernel, cudaLaunchKernel_ptsz: `func` is a host stub (or a cudaKernel_t cast to it).
  template <class Entry>
  static cudaError_t call(decltype(&::cudaLaunchKernel) real, const void* func, dim3 grid, dim3 block,
                          void** args, std::size_t shared, cudaStream_t stream) noexcept {
    return launch<Entry>(real, func, cached_function_of_stub, grid, block, args, shared, stream);
  }

  // __cudaLaunchKernel, __cudaLaunchKernel_ptsz: what <<<>>> compiles to under nvcc 13.
  template <class Entry>
  static cudaError_t call(decltype(&::__cudaLaunchKernel) real, cudaKernel_t kernel, dim3 grid, dim3 block,
                          void** args, std::size_t shared, cudaStream_t stream) noexcept {
    return launch<Entry>(real, kernel, find_function_of_kernel, grid, block, args, shared, stream);
  }

  // Those two take the same arguments but for what names the kernel (`Kernel`): a host stub or a
  // cudaKernel_t, whose CUfunction `find` looks up when acs needs it (launch_request).
  template <class Entry, class Real, class Kernel>
  static cudaError_t launch(Real real, Kernel kernel, CUfunction (*find)(const void*) noexcept, dim3 grid, dim3 block,
                            void** args, std::size_t shared, cudaStream_t stream) noexcept {
    struct arguments {
      Real real;
      Kernel kernel;
      dim3 grid, block;
      void** args;
      std::size_t shared;
    } saved{real, kernel, grid, block, args, shared};
    const launch_closure issue{[](void* context, CUstream on) noexcept -> int {
                                 const auto& a = *static_cast<const arguments*>(context);
                                 return a.real(a.kernel, a.grid, a.block, a.args, a.shared, on);
                               },
                               &saved};
    launch_request request{stream, Entry::zero, nullptr, args, nullptr, Entry::name, shape_of(grid, block, shared),
                           find, static_cast<const void*>(kernel)};
    return static_cast<cudaError_t>(dispatch(request, issue));
  }

  // cudaLaunchKernelExC, cudaLaunchKernelExC_ptsz: the stream is in the config.
  template <class Entry>
  static cudaError_t call(decltype(&::cudaLaunchKernelExC) real, const cudaLaunchConfig_t* config,
                          const void* func, void** args) noexcept {
    if (config == nullptr) return real(config, func, args);  // the runtime reports the error
    const bool reorder_programmatic = settings().pdl_reorder;
    if (const auto why = ordering_of(config->attrs, config->numAttrs, reorder_programmatic)) {
      stream_work_begins(config->stream, Entry::zero);
      const cudaError_t result = real(config, func, args);
      launched_as_is(Entry::name, config->stream, Entry::zero, *why);
      return result;
    }
    struct arguments {
      decltype(&::cudaLaunchKernelExC) real;
      const cudaLaunchConfig_t* config;
      const void* func;
      void** args;
    } saved{real, config, func, args};
    const launch_closure issue{[](void* context, CUstream on) noexcept -> int {
                                 const auto& a = *static_cast<const arguments*>(context);
                                 cudaLaunchConfig_t moved = *a.config;  // attributes shared, unchanged
                                 cudaLaunchAttribute copy[max_moved_attributes];
                                 if (on != a.config->stream)  // on a pool stream: no programmatic dependency
                                   moved.attrs = const_cast<cudaLaunchAttribute*>(
                                       moved_attributes<cudaLaunchAttribute>(a.config->attrs, a.config->numAttrs, copy));
                                 moved.stream = on;
                                 return a.real(&moved, a.func, a.args);
                               },
                               &saved};
    launch_shape shape = shape_of(config->gridDim, config->blockDim, config->dynamicSmemBytes);
    shape.attributes = attributes_follow(config->attrs, config->numAttrs, reorder_programmatic);
    launch_request request{config->stream, Entry::zero, nullptr, args, nullptr, Entry::name, shape,
                           cached_function_of_stub, func};
    return static_cast<cudaError_t>(dispatch(request, issue));
  }

  // cudaGraphInstantiateWithParams: uploads into uploadStream when asked to.
  template <class Entry>
  static cudaError_t call(decltype(&::cudaGraphInstantiateWithParams) real, cudaGraphExec_t* exec,
                          cudaGraph_t graph, cudaGraphInstantiateParams* params) noexcept {
    const bool uploads = params != nullptr && (params->flags & cudaGraphInstantiateFlagUpload) != 0;
    if (uploads) stream_work_begins(params->uploadStream, Entry::zero);
    const cudaError_t result = real(exec, graph, params);
    if (uploads) stream_barrier(params->uploadStream, Entry::zero);
    return result;
  }

  // cudaMalloc3D: linear memory of pitch * height * depth bytes.
  template <class Entry>
  static cudaError_t call(decltype(&::cudaMalloc3D) real, cudaPitchedPtr* out, cudaExtent extent) noexcept {
    const cudaError_t result = real(out, extent);
    if (result == cudaSuccess && out != nullptr && out->ptr != nullptr) {
      memory_allocated(reinterpret_cast<CUdeviceptr>(out->ptr), out->pitch * extent.height * extent.depth);
    }
    return result;
  }
};

namespace {

#define ACS_RUNTIME_ENTRY(symbol, kind) ACS_HOOKS_ENTRY(symbol, kind, runtime, real::runtime(), runtime_id::symbol)
ACS_RUNTIME_HOOKS(ACS_RUNTIME_ENTRY)
#undef ACS_RUNTIME_ENTRY
ACS_RUNTIME_HOOKS(ACS_HOOKS_EXPORT_LINE)

}  // namespace
}  // namespace acs::hooks
