#include "src/runtime/driver_inference.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "src/runtime/background.hpp"

#include "src/support/config.hpp"
#include "annotations/inferred/inference_memo.hpp"
#include "annotations/inferred/loaded_code.hpp"
#include "src/support/log.hpp"
#include "interpose/real_driver.hpp"
#include "src/support/stats.hpp"
#include "src/support/thread_cache.hpp"

namespace acs::inference {

namespace {

class driver_layout_reader final : public layout_reader {
 public:
  bool read(const void* function, param_layout& out) override {
    const driver::table* cuda = driver::real();
    if (cuda == nullptr) return false;
    // cuLaunchKernel accepts a CUkernel cast to CUfunction: try both readers.
    const auto f = static_cast<CUfunction>(const_cast<void*>(function));
    if (cuda->cuFuncGetParamInfo_ != nullptr && read_with(cuda->cuFuncGetParamInfo_, f, out)) {
      const char* name = nullptr;
      if (cuda->cuFuncGetName_ != nullptr && cuda->cuFuncGetName_(&name, f) == CUDA_SUCCESS) {
        add_kinds(name, out);
        if (settings().read_ptx) add_writes(*cuda, owner_of_function(*cuda, f, name), name, out);
      }
      return true;
    }
    const auto k = static_cast<CUkernel>(const_cast<void*>(function));
    if (cuda->cuKernelGetParamInfo_ == nullptr || !read_with(cuda->cuKernelGetParamInfo_, k, out)) return false;
    const char* name = nullptr;
    if (cuda->cuKernelGetName_ != nullptr && cuda->cuKernelGetName_(&name, k) == CUDA_SUCCESS) {
      add_kinds(name, out);
      if (settings().read_ptx) add_writes(*cuda, owner_of_kernel(*cuda, k, name), name, out);
    }
    return true;
  }

  // The C++ signature says which parameters point to const data and which reach
  // memory through device-side pointers. Used only when it lists as many
  // parameters as the driver reports.
  static void add_kinds(const char* name, param_layout& out) {
    const auto kinds = kernel_parameters(name);
    if (!kinds || kinds->size() != out.size()) return;
    for (std::size_t i = 0; i < out.size(); ++i) out[i].kind = (*kinds)[i];
  }

  // The recorded library, newest first, whose kernel of this name satisfies `is_it`.
  template <class Match>
  static const void* library_with(const driver::table& cuda, const char* name, Match is_it) {
    if (cuda.cuLibraryGetKernel_ == nullptr) return nullptr;
    for (const void* library : process_code().libraries()) {
      CUkernel k = nullptr;
      if (cuda.cuLibraryGetKernel_(&k, static_cast<CUlibrary>(const_cast<void*>(library)), name) == CUDA_SUCCESS &&
          is_it(k))
        return library;
    }
    return nullptr;
  }

  // The module or library the function was loaded from, among those acs saw loaded.
  static const void* owner_of_function(const driver::table& cuda, CUfunction f, const char* name) {
    CUmodule module = nullptr;
    if (cuda.cuFuncGetModule_ == nullptr || cuda.cuFuncGetModule_(&module, f) != CUDA_SUCCESS) module = nullptr;
    if (module != nullptr)
      if (const void* owner = process_code().owner_of_module(module)) return owner;
    // A library's kernel, loaded into this context: the library whose kernel of this
    // name is `f` here. Its module's other functions then resolve at once.
    if (cuda.cuKernelGetFunction_ == nullptr) return nullptr;
    const void* library = library_with(cuda, name, [&](CUkernel k) {
      CUfunction g = nullptr;
      return cuda.cuKernelGetFunction_(&g, k) == CUDA_SUCCESS && g == f;
    });
    if (library != nullptr && module != nullptr) process_code().found_in(module, library);
    return library;
  }

  static const void* owner_of_kernel(const driver::table& cuda, CUkernel k, const char* name) {
    CUlibrary library = nullptr;
    if (cuda.cuKernelGetLibrary_ != nullptr && cuda.cuKernelGetLibrary_(&library, k) == CUDA_SUCCESS)
      return library;
    return library_with(cuda, name, [&](CUkernel other) { return other == k; });
  }

  // The compute capability of the current context's device as major * 10 + minor; 0 if unknown.
  static std::uint32_t current_capability(const driver::table& cuda) {
    CUdevice device = 0;
    int major = 0, minor = 0;
    if (cuda.cuCtxGetDevice_(&device) != CUDA_SUCCESS || cuda.cuDeviceGetAttribute_ == nullptr ||
        cuda.cuDeviceGetAttribute_(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
        cuda.cuDeviceGetAttribute_(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
      return 0;
    return static_cast<std::uint32_t>(major * 10 + minor);
  }

  // What the kernel's PTX says it writes through (loaded_code.hpp), for the device
  // of the current context. Used only when its parameters match the driver's layout.
  // Only with ACS_PTX (the callers check it before looking for the owner).
  static void add_writes(const driver::table& cuda, const void* owner, const char* name, param_layout& out) {
    const std::uint32_t cc = owner != nullptr ? current_capability(cuda) : 0;
    const auto writes = cc != 0 ? process_code().writes(owner, name, cc) : nullptr;
    const bool usable = writes != nullptr && apply_writes(*writes, out);
    stats::count_function(usable);
    if (!usable) {
      ACS_LOG_DEBUG("kernel {}: no usable PTX: {}", name,
                    settings().no_ptx == no_ptx_mode::everything ? "it conflicts with everything (ACS_NO_PTX)"
                                                                 : "every pointer argument counts as written");
      return;
    }
    ACS_LOG_DEBUG("kernel {}: PTX read, {} parameter words written through{}{}{}", name,
                  writes->written_words.size(), writes->writes_globals ? ", and __device__ variables" : "",
                  writes->reads_indirect ? "; reads through pointers read from memory" : "",
                  writes->uses_textures ? "; uses textures or surfaces" : "");
  }

 private:
  // Parameters are counted by asking until the driver says the index is out of
  // range. A kernel without parameters reads as a failure, which is safe: its
  // footprint is unknown anyway (it can only work on __device__ variables).
  template <class Getter, class Handle>
  static bool read_with(Getter get, Handle handle, param_layout& out) {
    out.clear();
    for (std::size_t i = 0; i <= max_param_bytes; ++i) {
      std::size_t offset = 0, size = 0;
      const CUresult r = get(handle, i, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE && i > 0) return true;
      if (r != CUDA_SUCCESS || offset > max_param_bytes || size > max_param_bytes) return false;
      out.push_back({static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(size)});
    }
    return false;
  }
};

// cuPointerGetAttribute costs 1.1 µs on a miss, and the same scalar argument
// comes back launch after launch: answers are cached per thread, and dropped as
// soon as any allocation or free changes what they could be.
class driver_pointer_probe final : public pointer_probe {
 public:
  explicit driver_pointer_probe(const allocation_map& allocations) : allocations_(allocations) {}

  bool is_device_pointer(address value) noexcept override {
    thread_local thread_cache<address, bool, 64> answers;
    return answers.get(value, allocations_.generation(), [&] { return ask_driver(value); });
  }

 private:
  static bool ask_driver(address value) noexcept {
    const driver::table* cuda = driver::real();
    if (cuda == nullptr) return true;  // cannot tell: assume the worst
    CUdeviceptr start = 0;
    const CUresult r = cuda->cuPointerGetAttribute_(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                                   static_cast<CUdeviceptr>(value));
    // INVALID_VALUE: not memory the driver knows. Any other failure: cannot tell.
    return r != CUDA_ERROR_INVALID_VALUE;
  }

  const allocation_map& allocations_;
};

struct process_sources {
  driver_layout_reader reader;
  layout_cache layouts{reader};
  driver_pointer_probe probe{device_allocations()};
};

process_sources& sources() {
  static auto* const s = new process_sources;  // never destroyed: hooks run until the end
  return *s;
}

}  // namespace

const param_layout* layout_of(CUfunction function) { return sources().layouts.find(function); }

inference_result infer(CUfunction function, void* const* params, void* const* extra,
                       const inference_options& options, access_set& out) {
  process_sources& s = sources();
  thread_local inference_memo memo;  // inference_memo.hpp
  return memo.infer(s.layouts.find(function), params, extra, device_allocations(), s.probe, out, options);
}

words_status pointer_arguments(CUfunction function, void* const* params, void* const* extra,
                               std::vector<pointer_argument>& out) {
  process_sources& s = sources();
  return pointer_arguments(s.layouts.find(function), params, extra, device_allocations(), s.probe, out);
}

namespace {
// Analyses and layout reads posted to the background thread and not finished.
constinit std::atomic<int> work_ahead{0};

// Counts one piece of work ahead until the returned token is gone (the job run or dropped).
std::shared_ptr<void> count_ahead() {
  work_ahead.fetch_add(1, std::memory_order_acq_rel);
  try {
    return std::shared_ptr<void>(nullptr, [](void*) { work_ahead.fetch_sub(1, std::memory_order_acq_rel); });
  } catch (...) {  // the deleter ran: not counted
    return nullptr;
  }
}

// Functions whose layout a probe asked for: each is read once, on the background thread.
struct layout_requests {
  std::mutex mutex;
  std::unordered_set<const void*> asked;
};

layout_requests& requests() {
  static auto* const r = new layout_requests;  // never destroyed: hooks run until the end
  return *r;
}

void forget_request(const void* function) noexcept {
  try {
    layout_requests& r = requests();
    std::lock_guard lock(r.mutex);
    r.asked.erase(function);
  } catch (...) {
  }
}

// Reads `function`'s layout on acs's background thread, in the current context (a CUfunction
// belongs to one: finding the library it came from compares the library's kernel in that
// context). The read costs tens of microseconds at a function's first launch (its parameters one
// by one, its name demangled, its owner found), which a probe must not add to the launch path.
// Probes come only from streams of a primary context, current for the launch; a primary
// context's handle stays valid after a reset (pushing an inactive one fails, and the request is
// forgotten). False when it cannot be read there (no current context, no background thread):
// the caller then reads it itself.
bool read_layout_ahead(CUfunction function) noexcept {
  const driver::table* cuda = driver::real();
  CUcontext context = nullptr;
  if (cuda == nullptr || cuda->cuCtxGetCurrent_ == nullptr || cuda->cuCtxPushCurrent_ == nullptr ||
      cuda->cuCtxPopCurrent_ == nullptr || cuda->cuCtxGetCurrent_(&context) != CUDA_SUCCESS || context == nullptr)
    return false;
  try {
    layout_requests& r = requests();
    {
      std::lock_guard lock(r.mutex);
      if (!r.asked.insert(function).second) return true;  // being read
    }
    auto ahead = count_ahead();
    if (ahead.use_count() == 0) {
      forget_request(function);
      return false;
    }
    const bool queued = background::post([function, context, ahead] {
      const driver::table* real = driver::real();
      if (real == nullptr || real->cuCtxPushCurrent_(context) != CUDA_SUCCESS) {
        forget_request(function);  // the context went away: a later probe asks again
        return;
      }
      (void)sources().layouts.find(function);
      CUcontext popped = nullptr;
      (void)real->cuCtxPopCurrent_(&popped);
    });
    if (!queued) forget_request(function);
    return queued;
  } catch (...) {
    return false;
  }
}

}  // namespace

bool work_ahead_pending() noexcept { return work_ahead.load(std::memory_order_acquire) != 0; }

bool layout_known(CUfunction function) noexcept { return sources().layouts.cached(function); }

bool layout_ready(CUfunction function) noexcept {
  return layout_known(function) || !read_layout_ahead(function);
}

namespace {

// Until some launch needs an inferred footprint, loaded code is only recorded: a program whose
// streams never leave the stream path (fewer launches than ACS_FIRST_PROBE on each, or stepped
// aside) never has its PTX read. On the H200 the analysis at load cost cuda-samples' mergeSort
// (49 launches, lazily loaded kernels, all straight to their stream) 8% of its time: x0.92 of
// native, x0.996 with ACS_PTX=0 (docs/results/runs/2026-12-03-ptx-deferred/).
constinit std::atomic<bool> code_wanted{false};

// The compute capability of device 0 (major * 10 + minor), 0 if unknown. No context is needed to
// ask, and most processes have one kind of GPU.
std::uint32_t first_device_capability() noexcept {
  const driver::table* cuda = driver::real();
  int major = 0, minor = 0;
  if (cuda == nullptr || cuda->cuDeviceGetAttribute_ == nullptr ||
      cuda->cuDeviceGetAttribute_(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0) != CUDA_SUCCESS ||
      cuda->cuDeviceGetAttribute_(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0) != CUDA_SUCCESS)
    return 0;
  return static_cast<std::uint32_t>(major * 10 + minor);
}

// Posts `analyse(cc)` for acs's background thread, counted as work ahead (cc: device 0's).
template <class Analyse>
void post_analysis(Analyse analyse) noexcept {
  std::shared_ptr<void> ahead = count_ahead();
  if (ahead.use_count() == 0) return;
  try {
    (void)background::post([analyse, ahead] {
      if (const std::uint32_t cc = first_device_capability()) analyse(cc);
    });
  } catch (...) {  // out of memory: each launch that needs an image analyses it itself
  }
}

void analyse_on_background(const void* handle) noexcept {
  post_analysis([handle](std::uint32_t cc) { process_code().analyse_ahead(handle, cc); });
}

// Everything loaded so far, in one job: listed and analysed on the background thread. A framework
// loads thousands of images (libtorch_cuda's translation units, cuBLASLt's 2,782 fatbins), and a
// job posted for each cost the launch that first needed code 0.5-4 ms for 5,000 (this machine).
void analyse_all_on_background() noexcept {
  post_analysis([](std::uint32_t cc) {
    for (const void* handle : process_code().handles()) process_code().analyse_ahead(handle, cc);
  });
}

}  // namespace

// The image is recorded before the flag is read (seq_cst), and code_needed sets the flag before it
// lists the images: a load racing with the first footprint is analysed by one side or both (a
// second analysis ahead does nothing).
void read_code_ahead(const void* handle) noexcept {
  if (code_wanted.load()) analyse_on_background(handle);
}

void code_needed() noexcept {
  if (code_wanted.load(std::memory_order_relaxed) || code_wanted.exchange(true)) return;
  analyse_all_on_background();
}

void forget_code_needed_for_testing() noexcept { code_wanted.store(false); }

void functions_unloaded() noexcept {
  try {
    sources().layouts.clear();
    layout_requests& r = requests();
    std::lock_guard lock(r.mutex);
    r.asked.clear();  // a handle may now name another kernel: it is read again
  } catch (...) {
  }
}

}  // namespace acs::inference
