#include "runtime_cuda_backend.hpp"

#include "stage_timer.hpp"

namespace acs {

namespace {

CUstream as_stream(stream_handle s) noexcept { return reinterpret_cast<CUstream>(s); }
CUevent as_event(event_handle e) noexcept { return reinterpret_cast<CUevent>(e); }

// Pool streams and events belong to the device's primary context, whatever
// context the launching thread has current. Creation is rare: push and pop.
class in_context {
 public:
  in_context(const driver::table& cuda, CUcontext context) noexcept : cuda_(cuda) {
    CUcontext current = nullptr;
    if (cuda_.cuCtxGetCurrent_(&current) == CUDA_SUCCESS && current == context) return;
    pushed_ = cuda_.cuCtxPushCurrent_(context) == CUDA_SUCCESS;
  }
  ~in_context() {
    CUcontext popped = nullptr;
    if (pushed_) cuda_.cuCtxPopCurrent_(&popped);
  }
  in_context(const in_context&) = delete;
  in_context& operator=(const in_context&) = delete;

 private:
  const driver::table& cuda_;
  bool pushed_ = false;
};

}  // namespace

backend_status cuda_backend::create_stream(stream_handle* out) {
  in_context guard(cuda_, context_);
  CUstream s = nullptr;
  const CUresult r = cuda_.cuStreamCreate_(&s, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS) *out = reinterpret_cast<stream_handle>(s);
  return r;
}

backend_status cuda_backend::create_event(event_handle* out) {
  in_context guard(cuda_, context_);
  CUevent e = nullptr;
  const CUresult r = cuda_.cuEventCreate_(&e, CU_EVENT_DISABLE_TIMING);
  if (r == CUDA_SUCCESS) *out = reinterpret_cast<event_handle>(e);
  return r;
}

backend_status cuda_backend::record_event(event_handle event, stream_handle stream) {
  return cuda_.cuEventRecord_(as_event(event), as_stream(stream));
}

backend_status cuda_backend::wait_event(stream_handle stream, event_handle event) {
  return cuda_.cuStreamWaitEvent_(as_stream(stream), as_event(event), CU_EVENT_WAIT_DEFAULT);
}

backend_status cuda_backend::synchronize(stream_handle stream) {
  return cuda_.cuStreamSynchronize_(as_stream(stream));
}

event_state cuda_backend::query_event(event_handle event) {
  switch (cuda_.cuEventQuery_(as_event(event))) {
    case CUDA_SUCCESS: return event_state::complete;
    case CUDA_ERROR_NOT_READY: return event_state::pending;
    default: return event_state::error;
  }
}

backend_status cuda_backend::launch(const void* kernel, stream_handle stream) {
  auto* p = static_cast<pending_launch*>(const_cast<void*>(kernel));
  ACS_STAGE(schedule);
  p->status = p->closure(as_stream(stream));
  p->issued = true;
  ACS_STAGE(gpu_launch);
  return p->status;
}

// Teardown ignores errors: at exit the driver may already be gone.
void cuda_backend::destroy_stream(stream_handle stream) noexcept {
  cuda_.cuStreamDestroy_(as_stream(stream));
}

void cuda_backend::destroy_event(event_handle event) noexcept {
  cuda_.cuEventDestroy_(as_event(event));
}

}  // namespace acs
