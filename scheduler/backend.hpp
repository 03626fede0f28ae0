#pragma once
// The scheduler's only window on the GPU. The real backend calls the unhooked
// CUDA driver; the simulated device in tests/sim implements the same calls.
#include <cstdint>

namespace acs {

// Opaque handles: a CUstream / CUevent for the real GPU, an index in the simulator.
using stream_handle = std::uintptr_t;
using event_handle = std::uintptr_t;

// A backend error code; 0 is success. For the real GPU it is the CUresult or
// cudaError_t of the call that failed, passed back to the application unchanged.
using backend_status = int;

// What a backend returns for a call it cannot make (CUDA's cudaErrorNotSupported).
inline constexpr backend_status status_not_supported = 801;

enum class event_state : std::uint8_t { complete, pending, error };

class backend {
 public:
  virtual ~backend() = default;
  // A stream that does not synchronise with the legacy default stream, of the default priority.
  virtual backend_status create_stream(stream_handle* out) = 0;
  // The same, with CUDA's stream priority `priority` (lower is more urgent, 0 the default; the
  // GPU clamps it to its range). A backend without priorities can only make priority 0.
  virtual backend_status create_stream_with_priority(stream_handle* out, int priority) {
    return priority == 0 ? create_stream(out) : status_not_supported;
  }
  // An event without timing.
  virtual backend_status create_event(event_handle* out) = 0;
  virtual backend_status record_event(event_handle event, stream_handle stream) = 0;
  virtual backend_status wait_event(stream_handle stream, event_handle event) = 0;
  virtual event_state query_event(event_handle event) = 0;
  // Host waits for the stream: the last resort when a kernel could not be joined.
  virtual backend_status synchronize(stream_handle stream) = 0;
  // Enqueue an opaque kernel (the interposer's launch closure, or a simulated kernel).
  virtual backend_status launch(const void* kernel, stream_handle stream) = 0;
  // For issuing from another thread (issue_queue.hpp): a copy of `kernel` that stays valid
  // after the launch call returns, or nullptr when this launch must be issued now, by the
  // caller (its arguments cannot be copied, or its status is not known to be success:
  // a deferred launch has none to give back).
  virtual const void* detach(const void* /*kernel*/) { return nullptr; }
  // Issues a copy from `detach`, and frees it.
  virtual backend_status launch_detached(const void* /*kernel*/, stream_handle /*stream*/) { return 1; }
  // Called first on the issuing thread (a real GPU: its context made current there).
  virtual void issuing_thread_started() noexcept {}
  // Teardown; errors are ignored (the driver may already be gone at exit).
  virtual void destroy_stream(stream_handle stream) noexcept = 0;
  virtual void destroy_event(event_handle event) noexcept = 0;
};

}  // namespace acs
