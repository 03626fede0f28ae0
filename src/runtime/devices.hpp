#pragma once
// One scheduler per device primary context, created at the first launch on it
// (its pool streams live in that context). Other contexts (cuCtxCreate, green
// contexts) are foreign: their launches pass through untouched.
//
// Nothing here is ever destroyed: hooks may still run on other threads while
// the process exits, and the driver may be gone by then, so acs tears nothing
// down. A destroyed context's scheduler is abandoned, not freed.
#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "src/runtime/cuda_backend.hpp"
#include "src/runtime/stream_mode.hpp"
#include "interpose/real_driver.hpp"
#include "scheduler/scheduler.hpp"
#include "src/support/hot_flags.hpp"

namespace acs {

struct device_runtime {
  device_runtime(const driver::table& cuda, CUcontext context, CUdevice ordinal, scheduler_config config)
      : device(ordinal), backend(cuda, context), sched(backend, config) {}
  CUdevice device;  // its ordinal: the per-device statistics (its pool streams live in its primary context)
  cuda_backend backend;
  scheduler sched;
  // acs's own bookkeeping failed here, or the context was destroyed: no new kernel goes to the
  // pool. The kernels already there are still joined into their streams before anything
  // needs them (dispatch.cpp, runtime_of): with the lazy join, most are not yet.
  std::atomic<bool> broken{false};
};

struct context_entry {
  CUcontext context = nullptr;
  CUdevice device = -1;
  bool primary = false;                        // a device's primary context: acs manages it
  std::atomic<device_runtime*> runtime{nullptr};
  std::atomic<bool> failed{false};             // the scheduler could not be created
  std::mutex create_mutex;
  stream_mode legacy_mode{stream_mode_policy::from_settings()};  // the context's legacy default stream
};

/// @brief Changes whenever a stream or context handle may have been reused: caches
/// of stream and context lookups compare it.
inline std::atomic<std::uint64_t>& handles_epoch() noexcept { return hot.handles_epoch; }

/// @brief The entry of `context`, classified on first sight; nullptr if that fails.
context_entry* context_of(const driver::table& cuda, CUcontext context);

/// @brief The entry of the calling thread's current context; nullptr when none is current.
context_entry* current_context(const driver::table& cuda);

/// @brief The scheduler of a primary context, created on first use; nullptr if it cannot be.
device_runtime* runtime_for_launch(const driver::table& cuda, context_entry& context);

/// @brief Every scheduler created so far, abandoned ones included (cold paths only).
std::vector<device_runtime*> all_runtimes();

/// @brief The primary contexts that have a scheduler now (cold path: synchronous peer copies).
std::vector<CUcontext> managed_primary_contexts();

/// @brief The known primary contexts of `device` (cold path: device reset).
std::vector<CUcontext> primary_contexts_of(CUdevice device);

/// @brief Drops `context` from the registry and marks its scheduler broken; returns
/// the abandoned entry (still valid: never freed), or nullptr if it was unknown.
context_entry* forget_context(CUcontext context);

}  // namespace acs
