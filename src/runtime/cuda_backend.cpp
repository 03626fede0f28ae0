#include "src/runtime/cuda_backend.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "src/runtime/driver_inference.hpp"
#include "src/support/log.hpp"
#include "src/support/stage_timer.hpp"

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

backend_status cuda_backend::create_stream(stream_handle* out) { return create_stream_with_priority(out, 0); }

backend_status cuda_backend::create_stream_with_priority(stream_handle* out, int priority) {
  if (priority != 0 && cuda_.cuStreamCreateWithPriority_ == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  in_context guard(cuda_, context_);
  CUstream s = nullptr;
  const CUresult r = priority == 0 ? cuda_.cuStreamCreate_(&s, CU_STREAM_NON_BLOCKING)
                                   : cuda_.cuStreamCreateWithPriority_(&s, CU_STREAM_NON_BLOCKING, priority);
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
  const launch_request* r = p->request;
  if (p->status == 0 && r != nullptr && r->function != nullptr && !r->shape.attributes)
    succeeded_.insert({r->function, {r->shape.block[0], r->shape.block[1], r->shape.block[2]}, r->shape.shared_bytes});
  return p->status;
}

namespace {

// A launch copied for the issuing thread: its parameter values live in `values`.
struct detached_launch {
  CUfunction function = nullptr;
  launch_shape shape;
  std::vector<void*> params;
  std::vector<unsigned char> values;
};

bool grid_within_limits(const launch_shape& s) noexcept {
  constexpr unsigned max_x = 0x7fffffffu, max_yz = 65535u;  // every device since compute capability 3.0
  return s.grid[0] >= 1 && s.grid[0] <= max_x && s.grid[1] >= 1 && s.grid[1] <= max_yz && s.grid[2] >= 1 &&
         s.grid[2] <= max_yz;
}

}  // namespace

std::size_t cuda_backend::launch_kind_hash::operator()(const launch_kind& k) const noexcept {
  std::size_t h = std::hash<const void*>{}(k.function);
  for (const unsigned v : {k.block[0], k.block[1], k.block[2], k.shared_bytes}) h = h * 1000003u ^ v;
  return h;
}

const void* cuda_backend::detach(const void* kernel) {
  const auto* p = static_cast<const pending_launch*>(kernel);
  const launch_request* r = p->request;
  if (cuda_.cuLaunchKernel_ == nullptr || r == nullptr || r->function == nullptr || r->shape.attributes ||
      r->extra != nullptr || !grid_within_limits(r->shape))
    return nullptr;
  const launch_shape& s = r->shape;
  if (!succeeded_.contains({r->function, {s.block[0], s.block[1], s.block[2]}, s.shared_bytes})) return nullptr;
  const inference::param_layout* layout = inference::layout_of(r->function);
  if (layout == nullptr || (r->params == nullptr && !layout->empty())) return nullptr;
  auto d = std::make_unique<detached_launch>();
  d->function = r->function;
  d->shape = s;
  std::size_t bytes = 0;
  for (const inference::param_info& i : *layout) bytes = std::max<std::size_t>(bytes, std::size_t{i.offset} + i.size);
  d->values.resize(bytes);
  d->params.resize(layout->size());
  for (std::size_t i = 0; i < layout->size(); ++i) {
    const inference::param_info& info = (*layout)[i];
    if (r->params[i] == nullptr) return nullptr;  // the driver will report it: issue it now
    std::memcpy(d->values.data() + info.offset, r->params[i], info.size);
    d->params[i] = d->values.data() + info.offset;
  }
  return d.release();
}

backend_status cuda_backend::launch_detached(const void* kernel, stream_handle stream) {
  const std::unique_ptr<const detached_launch> d(static_cast<const detached_launch*>(kernel));
  const launch_shape& s = d->shape;
  const CUresult r = cuda_.cuLaunchKernel_(d->function, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1],
                                           s.block[2], s.shared_bytes, as_stream(stream),
                                           const_cast<void**>(d->params.data()), nullptr);
  if (r != CUDA_SUCCESS)
    log::print_once(log_level::warn, "issue:launch_failed",
                    "a launch issued by acs's thread failed (CUresult {}) though its kind had launched before; "
                    "acs now runs launches in place (its status could not be given back)",
                    static_cast<int>(r));
  return r;
}

void cuda_backend::issuing_thread_started() noexcept {
  CUcontext current = nullptr;
  if (cuda_.cuCtxGetCurrent_(&current) != CUDA_SUCCESS || current != context_) (void)cuda_.cuCtxPushCurrent_(context_);
}

// Teardown ignores errors: at exit the driver may already be gone.
void cuda_backend::destroy_stream(stream_handle stream) noexcept {
  cuda_.cuStreamDestroy_(as_stream(stream));
}

void cuda_backend::destroy_event(event_handle event) noexcept {
  cuda_.cuEventDestroy_(as_event(event));
}

}  // namespace acs
