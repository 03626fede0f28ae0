#pragma once
// The scheduler's backend on a real GPU: the unhooked CUDA driver, in one
// device's primary context.
//
// Error-state note. These are driver calls: they never touch the runtime's
// last-error slot, so cudaGetLastError / cudaPeekAtLastError report what they
// would without acs, and acs never calls either. A failing bookkeeping call
// here returns its CUresult to the scheduler, which degrades (launch in place);
// it creates no sticky error (only a faulting kernel does).
#include <cuda.h>

#include <unordered_set>

#include "scheduler/backend.hpp"
#include "src/runtime/dispatch.hpp"
#include "interpose/real_driver.hpp"

namespace acs {

// The opaque kernel the scheduler hands back to backend::launch: the hooks'
// closure, and whether (and with what result) it was issued.
struct pending_launch {
  launch_closure closure;
  const launch_request* request = nullptr;  // for detach: what the launch is
  bool issued = false;
  int status = 0;
};

class cuda_backend final : public backend {
 public:
  cuda_backend(const driver::table& cuda, CUcontext context) noexcept : cuda_(cuda), context_(context) {}

  backend_status create_stream(stream_handle* out) override;
  // cuStreamCreateWithPriority; CUDA_ERROR_NOT_SUPPORTED for a non-zero priority without it.
  backend_status create_stream_with_priority(stream_handle* out, int priority) override;
  backend_status create_event(event_handle* out) override;
  backend_status record_event(event_handle event, stream_handle stream) override;
  backend_status wait_event(stream_handle stream, event_handle event) override;
  event_state query_event(event_handle event) override;
  backend_status synchronize(stream_handle stream) override;
  // `kernel` is a pending_launch: re-issues the application's launch on `stream`.
  backend_status launch(const void* kernel, stream_handle stream) override;
  // A launch is detached (copied, to be issued later through cuLaunchKernel) only when it has
  // no attributes and no `extra`, its parameter layout is known, its grid is within the
  // device's limits, and a launch of the same function with the same block and shared memory
  // size succeeded before: then it fails only if the context itself fails.
  const void* detach(const void* kernel) override;
  backend_status launch_detached(const void* kernel, stream_handle stream) override;
  void issuing_thread_started() noexcept override;
  void destroy_stream(stream_handle stream) noexcept override;
  void destroy_event(event_handle event) noexcept override;

 private:
  struct launch_kind {
    CUfunction function;
    unsigned block[3];
    unsigned shared_bytes;
    friend bool operator==(const launch_kind&, const launch_kind&) = default;
  };
  struct launch_kind_hash {
    std::size_t operator()(const launch_kind& k) const noexcept;
  };

  const driver::table& cuda_;
  CUcontext context_;
  // Launch kinds that succeeded. Used under the scheduler's lock only.
  std::unordered_set<launch_kind, launch_kind_hash> succeeded_;
};

}  // namespace acs
