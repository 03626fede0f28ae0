// Test-only implementation of interpose/dispatch.hpp that forwards every launch unchanged.
// libacs.so is linked with it only while the real runtime (acs_runtime) does not exist yet.
#include "dispatch.hpp"

namespace acs {

int dispatch_launch(const launch_request& request, launch_closure issue) noexcept {
  return issue(request.stream);
}
void launched_directly(CUstream, default_stream, pass_reason) noexcept {}
void stream_work_begins(CUstream, default_stream) noexcept {}
void stream_barrier(CUstream, default_stream) noexcept {}
std::uint64_t stream_sync_begins(CUstream, default_stream) noexcept { return 0; }
std::uint64_t device_sync_begins() noexcept { return 0; }
void stream_synchronized(CUstream, default_stream, std::uint64_t) noexcept {}
void device_synchronized(std::uint64_t) noexcept {}
void stream_destroyed(CUstream) noexcept {}
void capture_began(CUstream, CUstreamCaptureMode) noexcept {}
void capture_ended(CUstream) noexcept {}
bool capture_forbids_unsafe_calls() noexcept { return false; }
void memory_allocated(CUdeviceptr, std::size_t) noexcept {}
void memory_freed(CUdeviceptr) noexcept {}
void device_work_issued() noexcept {}
bool active() noexcept { return false; }
void teardown_begins() noexcept {}
void context_destroyed(CUcontext) noexcept {}
void device_reset(CUdevice) noexcept {}
void modules_unloaded(const void*) noexcept {}
void code_loaded(const void*, bool, const void*) noexcept {}

}  // namespace acs
