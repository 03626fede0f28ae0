// The runtime side of dispatch.hpp: what acs does with each call the hooks classify.
//
// Launch path, in order (each check is cheap; the first that fails passes the
// launch through on the application's own stream, untouched):
//   settings allow it (ACS_DISABLE, CUDA_LAUNCH_BLOCKING) and libcuda is usable;
//   the stream resolves to a device's primary context;
//   the hooks identified the kernel;
//   no capture forbids unsafe calls on this thread, and the stream is not capturing;
//   the device's scheduler exists (created here at the first launch).
// Then the footprint is computed and the scheduler dispatches the launch; the
// backend calls the hooks' closure with a pool stream.
//
// A launch passed through is still work issued directly on its stream: it
// must follow the stream's redirected kernels, and later ones must follow it,
// so it is a barrier (rule 2). Before any work on a stream, the stream joins
// its pool work (the lazy join): CUDA calls, never made on a capturing stream.
#include "src/runtime/dispatch.hpp"

#include <atomic>

#include "annotations/inferred/allocation_map.hpp"
#include "src/support/config.hpp"
#include "src/support/log.hpp"
#include "src/runtime/capture.hpp"
#include "src/runtime/cuda_backend.hpp"
#include "src/runtime/devices.hpp"
#include "interpose/real_driver.hpp"
#include "src/runtime/footprint.hpp"
#include "src/runtime/start.hpp"
#include "src/runtime/streams.hpp"
#include "src/support/stage_timer.hpp"
#include "src/support/stats.hpp"
#include "src/runtime/driver_inference.hpp"
#include "annotations/inferred/loaded_code.hpp"
#include "src/trace/session.hpp"

namespace acs {

namespace {

// Counted every time, said once per reason (without a lock: launches on a
// capturing or foreign stream may come by the thousand).
void note_reason(pass_reason why) noexcept {
  stats::count_pass(why);
  static std::atomic<bool> said[stats::reason_count]{};
  const auto i = static_cast<std::size_t>(why);
  if (i >= stats::reason_count || said[i].load(std::memory_order_relaxed) || said[i].exchange(true)) return;
  switch (why) {
    case pass_reason::disabled: break;   // said when the settings were read
    case pass_reason::capturing: break;  // said by capture tracking
    case pass_reason::cooperative: log::info("cooperative launches pass straight through"); break;
    case pass_reason::ordering_attribute:
      log::info("launches with ordering attributes (programmatic dependent launch...) pass straight through");
      break;
    case pass_reason::foreign_context:
      log::info("launches outside a device's primary context (or with no current context) pass straight through");
      break;
    case pass_reason::unknown_function:
      log::warn("a launch whose kernel could not be identified passes straight through");
      break;
    case pass_reason::internal_error:
      log::warn("acs's own bookkeeping failed: launches pass straight through");
      break;
    case pass_reason::count_: break;
  }
}

void internal_failure(const char* where) noexcept {
  log::print_once(log_level::warn, where, "acs failed internally in {}; it degrades to pass-through", where);
}

// The scheduler of `stream`'s device, if acs manages it; `t` receives the stream.
device_runtime* runtime_of(CUstream stream, default_stream zero, stream_target& t) {
  const driver::table* cuda = driver::real();
  if (cuda == nullptr || !resolve_stream(*cuda, stream, zero, t) || !t.context->primary) return nullptr;
  device_runtime* rt = t.context->runtime.load(std::memory_order_acquire);
  return rt != nullptr && !rt->broken.load(std::memory_order_relaxed) ? rt : nullptr;
}

// A join would become a node of the stream's capture: never on a capturing
// stream (its redirected kernels were joined when the capture began).
bool joinable(const stream_target& t) {
  const driver::table* cuda = driver::real();
  return !capture_in_progress_anywhere() ||
         (cuda != nullptr && !stream_capturing(*cuda, reinterpret_cast<CUstream>(t.stream.handle)));
}

// Work is about to be issued directly on the application's stream (rule 2).
void before_work_on(CUstream stream, default_stream zero) {
  stream_target t;
  if (device_runtime* rt = runtime_of(stream, zero, t); rt != nullptr && joinable(t)) rt->sched.before_barrier(t.stream);
}

// Work was issued directly on the application's stream (rule 2).
void barrier_on(CUstream stream, default_stream zero) {
  stream_target t;
  if (device_runtime* rt = runtime_of(stream, zero, t)) rt->sched.barrier(t.stream);
}

enum class then { barrier, nothing };

int issue_directly(pending_launch& launch, const launch_request& r, pass_reason why, then after) noexcept {
  launch_passed_through();
  if (after == then::barrier && !launch.issued) {
    try {
      before_work_on(r.stream, r.stream_zero);
    } catch (...) {
      internal_failure("join before a direct launch");
    }
  }
  if (!launch.issued) {
    launch.status = launch.closure(r.stream);  // exactly as the application asked
    launch.issued = true;
  }
  note_reason(why);
  if (after == then::barrier) {
    try {
      // Resolved after the launch: a first runtime call may have made the context current.
      barrier_on(r.stream, r.stream_zero);
    } catch (...) {
      internal_failure("barrier after a direct launch");
    }
  }
  return launch.status;
}

// Reused by every launch of a thread: steady state does not allocate.
declared::launch_footprint& scratch_footprint() {
  thread_local declared::launch_footprint f;
  return f;
}

}  // namespace

bool active() noexcept { return !settings().pass_through() && !driver::unavailable(); }

int dispatch_launch(const launch_request& r, launch_closure issue) noexcept {
  pending_launch launch{issue, &r};
  device_runtime* rt = nullptr;
  try {
    ACS_STAGE(hook_entry);
    runtime_started();
    stats::count_kernel();
    if (!active()) return issue_directly(launch, r, pass_reason::disabled, then::nothing);
    const driver::table* cuda = driver::real();
    if (cuda == nullptr) return issue_directly(launch, r, pass_reason::disabled, then::nothing);
    ACS_STAGE(prologue);

    stream_target t;
    if (!resolve_stream(*cuda, r.stream, r.stream_zero, t))
      return issue_directly(launch, r, pass_reason::foreign_context, then::barrier);
    if (!t.context->primary) return issue_directly(launch, r, pass_reason::foreign_context, then::nothing);
    if (r.function == nullptr) return issue_directly(launch, r, pass_reason::unknown_function, then::barrier);

    ACS_STAGE(stream);

    // Every capture begins through a hook: without one in progress, no stream
    // is capturing and the driver need not be asked.
    const unsafe_section section;
    if (!section.allowed() ||
        (capture_in_progress_anywhere() && stream_capturing(*cuda, reinterpret_cast<CUstream>(t.stream.handle))))
      return issue_directly(launch, r, pass_reason::capturing, then::barrier);
    ACS_STAGE(capture);

    rt = runtime_for_launch(*cuda, *t.context);
    if (rt == nullptr || rt->broken.load(std::memory_order_relaxed))
      return issue_directly(launch, r, pass_reason::internal_error, then::nothing);
    ACS_STAGE(runtime);

    declared::launch_footprint& footprint = scratch_footprint();
    plan_launch(r, footprint);
    if (footprint.barrier_before) rt->sched.barrier(t.stream);  // acs_barrier()
    ACS_STAGE(footprint);
    const int status = rt->sched.launch(t.stream, footprint.access, &launch, footprint.group);
    ACS_STAGE(after_launch);
    return status;
  } catch (...) {
    // The scheduler's state may be inconsistent: this device passes through from
    // now on. Every kernel it dispatched was joined into its stream, so the
    // application's order holds.
    if (rt != nullptr) rt->broken.store(true, std::memory_order_relaxed);
    return issue_directly(launch, r, pass_reason::internal_error, then::nothing);
  }
}

void launched_directly(CUstream stream, default_stream stream_zero, pass_reason why) noexcept {
  runtime_started();
  launch_passed_through();
  stats::count_kernel();
  note_reason(why);
  if (!active()) return;
  try {
    barrier_on(stream, stream_zero);
  } catch (...) {
    internal_failure("launched_directly");
  }
}

void stream_work_begins(CUstream stream, default_stream stream_zero) noexcept {
  runtime_started();
  if (!active()) return;
  try {
    before_work_on(stream, stream_zero);
  } catch (...) {
    internal_failure("stream_work_begins");
  }
}

void stream_barrier(CUstream stream, default_stream stream_zero) noexcept {
  runtime_started();
  if (!active()) return;
  try {
    barrier_on(stream, stream_zero);
  } catch (...) {
    internal_failure("stream_barrier");
  }
}

std::uint64_t stream_sync_begins(CUstream stream, default_stream stream_zero) noexcept {
  runtime_started();
  if (!active()) return scheduler::sync_point();
  try {
    stream_target t;
    if (device_runtime* rt = runtime_of(stream, stream_zero, t); rt != nullptr && joinable(t))
      return rt->sched.join(t.stream);
  } catch (...) {
    internal_failure("stream_sync_begins");
  }
  return scheduler::sync_point();
}

// The point first: every kernel stamped before it was queued before it, so the drain issues it.
std::uint64_t device_sync_begins() noexcept {
  const std::uint64_t point = scheduler::sync_point();
  device_work_issued();
  return point;
}

void device_work_issued() noexcept {
  if (!active()) return;
  try {
    for (device_runtime* rt : all_runtimes()) rt->sched.drain();
  } catch (...) {
    internal_failure("device_work_issued");
  }
}

void stream_synchronized(CUstream stream, default_stream stream_zero, std::uint64_t point) noexcept {
  runtime_started();
  if (!active()) return;
  try {
    const driver::table* cuda = driver::real();
    stream_target t;
    if (cuda == nullptr || !resolve_stream(*cuda, stream, stream_zero, t) || !t.context->primary) return;
    device_runtime* rt = t.context->runtime.load(std::memory_order_acquire);
    if (rt != nullptr && !rt->broken.load(std::memory_order_relaxed)) rt->sched.synchronized(t.stream.key, point);
  } catch (...) {
    internal_failure("stream_synchronized");
  }
}

// cudaDeviceSynchronize and cuCtxSynchronize wait for the current context only:
// other devices' schedulers keep their entries.
void device_synchronized(std::uint64_t point) noexcept {
  runtime_started();
  if (!active()) return;
  try {
    const driver::table* cuda = driver::real();
    context_entry* e = cuda != nullptr ? current_context(*cuda) : nullptr;
    if (e == nullptr || !e->primary) return;
    device_runtime* rt = e->runtime.load(std::memory_order_acquire);
    if (rt != nullptr && !rt->broken.load(std::memory_order_relaxed)) rt->sched.device_synchronized(point);
  } catch (...) {
    internal_failure("device_synchronized");
  }
}

void stream_destroyed(CUstream stream) noexcept {
  runtime_started();
  if (!active() || stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD) return;
  try {
    stream_target was;
    forget_stream(stream, was);
    // Every scheduler, not only the one it was cached for: cheap, and robust
    // should the cache have missed it.
    for (device_runtime* rt : all_runtimes()) rt->sched.forget(reinterpret_cast<std::uintptr_t>(stream));
  } catch (...) {
    internal_failure("stream_destroyed");
  }
}

void teardown_begins() noexcept {
  device_work_issued();
  try {
    trace_flush();
  } catch (...) {
    internal_failure("teardown_begins");
  }
}

void device_reset(CUdevice device) noexcept {
  try {
    for (const CUcontext context : primary_contexts_of(device)) context_destroyed(context);
  } catch (...) {
    internal_failure("device_reset");
  }
}

void modules_unloaded(const void* handle) noexcept {
  inference::functions_unloaded();
  try {
    inference::process_code().unloaded(handle);
  } catch (...) {
    internal_failure("modules_unloaded");
  }
}

// Often nested in another entry point (the runtime loads its modules lazily): it only
// records the image, and starts nothing (no tracing, no driver call).
void code_loaded(const void* handle, bool library, const void* image) noexcept {
  if (!active() || !settings().read_ptx) return;
  try {
    inference::process_code().loaded(
        handle, library ? inference::code_handle_kind::library : inference::code_handle_kind::module, image);
  } catch (...) {
    internal_failure("code_loaded");
  }
}

void context_destroyed(CUcontext context) noexcept {
  try {
    if (const context_entry* e = forget_context(context)) forget_streams_of(e);
  } catch (...) {
    internal_failure("context_destroyed");
  }
}

void memory_allocated(CUdeviceptr base, std::size_t bytes, memory_kind kind) noexcept {
  runtime_started();
  if (!active()) return;
  try {
    device_allocations().insert(base, bytes, kind);
  } catch (...) {
    internal_failure("memory_allocated");
  }
}

void memory_reserved(CUdeviceptr base, std::size_t bytes) noexcept {
  runtime_started();
  if (!active()) return;
  try {
    device_allocations().reserve(base, bytes);
  } catch (...) {
    internal_failure("memory_reserved");
  }
}

void reservation_freed(CUdeviceptr base) noexcept {
  runtime_started();
  if (!active()) return;
  try {
    device_allocations().unreserve(base);
  } catch (...) {
    internal_failure("reservation_freed");
  }
}

void memory_freed(CUdeviceptr base) noexcept {
  runtime_started();
  if (!active()) return;
  try {
    device_allocations().erase(base);
  } catch (...) {
    internal_failure("memory_freed");
  }
}

}  // namespace acs
