#pragma once
// The contract between the hooks (interpose/hooks_*) and the runtime that
// decides what to do with each call (src/runtime/).
// Hooks classify a call and call exactly one of these; they never touch the
// scheduler directly. All functions are noexcept: nothing escapes into the host.
#include <cuda.h>

#include <cstdint>

#include "src/support/memory_kind.hpp"
#include "src/support/pass_reason.hpp"

namespace acs {

// How a launch entry point names the stream: `_ptsz`/`_ptds` variants (and the
// runtime's per-thread build) read stream 0 as the per-thread default stream.
enum class default_stream : std::uint8_t { legacy, per_thread };

// Re-issues the intercepted launch, unchanged but for the stream, through the
// real (unhooked) entry point. Returns that entry point's own status code
// (a cudaError_t or a CUresult, as an int) for the application to see.
struct launch_closure {
  int (*issue)(void* context, CUstream stream) = nullptr;
  void* context = nullptr;
  int operator()(CUstream stream) const { return issue(context, stream); }
};

// The launch's configuration, for issuing it later from acs's own thread through the driver
// (issue_queue.hpp). Only launches without attributes are ever issued that way.
struct launch_shape {
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared_bytes = 0;
  bool attributes = true;  // launch attributes (or an unknown configuration): issue it now
};

struct launch_request {
  CUstream stream = nullptr;              // as the application passed it
  default_stream stream_zero = default_stream::legacy;
  CUfunction function = nullptr;          // nullptr when it could not be determined (or not yet)
  void** params = nullptr;                // one pointer per kernel parameter, or nullptr
  void** extra = nullptr;                 // cuLaunchKernel's `extra`, or nullptr
  const char* api = "";                   // entry point name, for logs and stats
  launch_shape shape;
  // The runtime hooks name the kernel by a host stub or a cudaKernel_t, whose CUfunction costs
  // a look-up: they leave `function` empty and give this instead, which dispatch_launch calls
  // only for a launch that needs the function (a probe, the pool, a replayed segment). A
  // stepped-aside stream's other launches, most of eager PyTorch's, never pay for it. The
  // look-up may make the thread's device context current (a thread's first call).
  CUfunction (*find_function)(const void* kernel) noexcept = nullptr;
  const void* kernel = nullptr;           // what find_function is given
};

// The launch's CUfunction, looked up once (find_function) if the hook did not give it; nullptr
// when it cannot be determined.
inline CUfunction function_of(launch_request& r) noexcept {
  if (r.function == nullptr && r.find_function != nullptr) {
    r.function = r.find_function(r.kernel);
    r.find_function = nullptr;
  }
  return r.function;
}

// The program makes a CUDA call: every hook calls this first. The first call sets up what acs
// must do before the program's first context exists (CUDA_DEVICE_MAX_CONNECTIONS): no hooked
// call can come later than cuInit, which is hooked. Until then acs has no side effect (rule 14).
void cuda_in_use() noexcept;

// Before an operation that waits for, or releases, what the device's work may use (device
// synchronize, free, context teardown): every launch acs accepted is issued to the GPU first.
void device_work_issued() noexcept;

// A kernel launch the hooks may hand to the scheduler. Returns the status the
// application must see. The runtime may pass it through (launch on the
// application's own stream) for any reason; it then logs the reason once.
int dispatch_launch(launch_request& request, launch_closure issue) noexcept;

// Work is about to be issued directly on `stream` (an operation of rule 2, or
// a launch passed through): call just before forwarding it. The stream then
// waits for its kernels acs moved to pool streams (the lazy join), and for
// what the legacy stream's implicit synchronisation asks. Nothing happens on
// a capturing stream. `stream` may be 0, the legacy or per-thread handle.
void stream_work_begins(CUstream stream, default_stream stream_zero) noexcept;

// The launch was issued on the application's stream as-is (for `why`), after
// stream_work_begins. Keeps the stream's contract: later redirected kernels
// must follow it.
void launched_directly(CUstream stream, default_stream stream_zero, pass_reason why) noexcept;

// Any other stream-ordered operation was issued on `stream` (rule 2).
// Call stream_work_begins before forwarding it, and this after.
void stream_barrier(CUstream stream, default_stream stream_zero) noexcept;

// A synchronous peer copy (cuMemcpyPeer, cudaMemcpyPeer, their 3D twins) is serialised with the
// work of its source and destination devices as well as with the current one's. acs does not
// read which devices those are: the copy counts as work on the default stream (legacy, or
// per-thread for the _ptds twins) of every device it manages, more order and never less. Call
// peer_copy_begins before the current device's stream_work_begins and peer_copy_done after its
// stream_barrier; they cover the other devices.
void peer_copy_begins(default_stream stream_zero) noexcept;
void peer_copy_done(default_stream stream_zero) noexcept;

// Host synchronisation: take a point before forwarding the sync (or stream
// query) and pass it once the sync succeeded. Only work issued before the point
// is known complete: another thread may launch while the sync waits.
// stream_sync_begins first joins the stream's pool work into it.
std::uint64_t stream_sync_begins(CUstream stream, default_stream stream_zero) noexcept;
std::uint64_t device_sync_begins() noexcept;
void stream_synchronized(CUstream stream, default_stream stream_zero, std::uint64_t point) noexcept;
void device_synchronized(std::uint64_t point) noexcept;

/// @brief The program waits for the GPU on this thread (a stream, event or device synchronize):
/// counted per thread, for the probes' relay verdict (stream_mode_policy::relay).
void program_waits_for_gpu() noexcept;
void stream_destroyed(CUstream stream) noexcept;

// Stream capture began or ended (any thread), with the capture mode used.
void capture_began(CUstream stream, CUstreamCaptureMode mode) noexcept;
void capture_ended(CUstream stream) noexcept;
// True while a capture on another thread forbids unsafe calls (query, sync) on this one.
bool capture_forbids_unsafe_calls() noexcept;

// Device memory the application obtained or released (runtime or driver, any kind).
void memory_allocated(CUdeviceptr base, std::size_t bytes, memory_kind kind = memory_kind::device) noexcept;
void memory_freed(CUdeviceptr base) noexcept;
// A virtual address range reserved (cuMemAddressReserve) or released (cuMemAddressFree): what is
// mapped into it counts as one allocation, whatever is mapped and unmapped (docs/design.md rule 10).
void memory_reserved(CUdeviceptr base, std::size_t bytes) noexcept;
void reservation_freed(CUdeviceptr base) noexcept;

// Teardown: a context is destroyed or a device reset (cuCtxDestroy,
// cuDevicePrimaryCtxReset, cudaDeviceReset). teardown_begins comes before
// forwarding, while the context still exists (traces are flushed); the others
// after it succeeded: the context's streams, pool streams included, are gone
// and their handles may come back for new ones.
void teardown_begins() noexcept;
void context_destroyed(CUcontext context) noexcept;
void device_reset(CUdevice device) noexcept;
// cuModuleUnload / cuLibraryUnload: cached per-function data must go.
void modules_unloaded(const void* handle) noexcept;
// Code is about to be unloaded (inside launch_conditions_change_begins' bracket): graph replay's
// executables, which keep the code they were built from, are destroyed on every device.
void modules_unloading() noexcept;
// A module or library (`library`) was loaded from `image` (cuModuleLoadData, cuLibraryLoadData...).
void code_loaded(const void* handle, bool library, const void* image) noexcept;

// Whether acs is active at all (config, environment, a GPU present).
bool active() noexcept;
// A hook passes its call straight through because the settings say so (ACS_DISABLE,
// CUDA_LAUNCH_BLOCKING): only what runs without acs too starts (the trace of ACS_STATS), and a
// launch is counted (ACS_STATS: seen, passed through as disabled).
void passing_through(bool launch) noexcept;

// A call that may change whether launches succeed (a function's attributes, the context's limits,
// unloading code) is bracketed by these: every launch acs deferred to its issuing threads is
// issued before it, none is deferred while it runs, and after it no launch counts as known to
// succeed until one succeeds again (docs/design.md rule 6).
void launch_conditions_change_begins() noexcept;
void launch_conditions_changed() noexcept;
// A set of one attribute of one function (cuFuncSetAttribute; cudaFuncSetAttribute, with its host
// stub's CUfunction in the current context; `device` -1) or of one CUkernel for one device
// (cuKernelSetAttribute): `set(context)` makes the real call and returns its status. Bracketed as
// above unless it sets the value the last such set gave (src/runtime/launch_conditions.hpp,
// set_function_attribute). And: every remembered value forgotten, after any other call that may
// change the conditions, code unloaded or a context torn down.
int function_attribute_set(const void* function, int attribute, int value, int (*set)(void* context),
                           void* context, int device = -1) noexcept;
void function_attributes_forgotten() noexcept;
// cuModuleUnload (`library` false) or cuLibraryUnload of `handle`, made by `unload(context)`, which
// returns its status: the values remembered for what that code may hold are forgotten first, and
// only those (launch_conditions.hpp, unload_code). Inside the bracket above.
int code_unload(const void* handle, bool library, int (*unload)(void* context), void* context) noexcept;

// A hooked call returned `status` (a CUresult or cudaError_t, not success). After a context
// error (sticky: a kernel fault...) no launch is deferred any more, so that each later launch
// reaches the driver and returns the error, as it would without acs.
void call_failed(int status) noexcept;

}  // namespace acs
