#include "src/runtime/cuda_backend.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "src/runtime/driver_inference.hpp"
#include "src/runtime/launch_conditions.hpp"
#include "src/support/log.hpp"
#include "src/support/stage_timer.hpp"
#include "src/support/stats.hpp"
#include "src/support/thread_cache.hpp"

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

// A stream or event of the primary context, created with `create(&handle, flags)`.
template <class Handle, class Create>
backend_status create_in(const driver::table& cuda, CUcontext context, Create create, unsigned flags,
                         std::uintptr_t* out) {
  in_context guard(cuda, context);
  Handle h = nullptr;
  const CUresult r = create(&h, flags);
  if (r == CUDA_SUCCESS) *out = reinterpret_cast<std::uintptr_t>(h);
  return r;
}

}  // namespace

backend_status cuda_backend::create_stream(stream_handle* out) { return create_stream_with_priority(out, 0); }

backend_status cuda_backend::create_stream_with_priority(stream_handle* out, int priority) {
  if (priority == 0) return create_in<CUstream>(cuda_, context_, cuda_.cuStreamCreate_, CU_STREAM_NON_BLOCKING, out);
  if (cuda_.cuStreamCreateWithPriority_ == nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  const auto create = [this, priority](CUstream* s, unsigned flags) {
    return cuda_.cuStreamCreateWithPriority_(s, flags, priority);
  };
  return create_in<CUstream>(cuda_, context_, create, CU_STREAM_NON_BLOCKING, out);
}

backend_status cuda_backend::create_event(event_handle* out) {
  return create_in<CUevent>(cuda_, context_, cuda_.cuEventCreate_, CU_EVENT_DISABLE_TIMING, out);
}

// acs's own calls fail only when the context failed (or a bug): then nothing may be deferred.
backend_status cuda_backend::record_event(event_handle event, stream_handle stream) {
  const CUresult r = cuda_.cuEventRecord_(as_event(event), as_stream(stream));
  if (r != CUDA_SUCCESS) launch_conditions::call_failed(r);
  return r;
}

backend_status cuda_backend::wait_event(stream_handle stream, event_handle event) {
  const CUresult r = cuda_.cuStreamWaitEvent_(as_stream(stream), as_event(event), CU_EVENT_WAIT_DEFAULT);
  if (r != CUDA_SUCCESS) launch_conditions::call_failed(r);
  return r;
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

bool cuda_backend::in_own_context() const noexcept {
  CUcontext current = nullptr;
  return cuda_.cuCtxGetCurrent_(&current) == CUDA_SUCCESS && current == context_;
}

cuda_backend::launch_kind cuda_backend::kind_of(const launch_request& r) noexcept {
  return {r.function, {r.shape.block[0], r.shape.block[1], r.shape.block[2]}, r.shape.shared_bytes};
}

namespace {

// The launch kinds this thread last found among a backend's successes, with the generation they
// were found under: a hit skips the set's hash and probe (about 200 instructions of every
// deferred or relayed launch). A slot is valid only for its backend and generation, and a
// backend's set is cleared only when its generation changes, so a hit is never stale.
struct success_slot {
  const void* backend = nullptr;
  CUfunction function = nullptr;
  unsigned block[3] = {};
  unsigned shared_bytes = 0;
  std::uint64_t generation = 0;
};
constexpr std::size_t success_slots = 16;
// Initial-exec, as streams.cpp's caches: libacs.so is preloaded (no __tls_get_addr).
thread_local std::array<success_slot, success_slots> recent_successes [[gnu::tls_model("initial-exec")]];

success_slot& success_slot_of(CUfunction function) noexcept {
  return recent_successes[hash_word(reinterpret_cast<std::uintptr_t>(function)) >> (64 - 4)];
}
static_assert(success_slots == 16, "the index takes the hash's top 4 bits");

}  // namespace

bool cuda_backend::succeeded(const launch_kind& kind) const noexcept {
  const success_slot& s = success_slot_of(kind.function);
  if (s.backend == this && s.generation == generation_ && s.function == kind.function &&
      s.block[0] == kind.block[0] && s.block[1] == kind.block[1] && s.block[2] == kind.block[2] &&
      s.shared_bytes == kind.shared_bytes)
    return true;
  if (!succeeded_.contains(kind)) return false;
  remember_success(kind);
  return true;
}

void cuda_backend::remember_success(const launch_kind& kind) const noexcept {
  success_slot_of(kind.function) = {this, kind.function, {kind.block[0], kind.block[1], kind.block[2]},
                                    kind.shared_bytes, generation_};
}

backend_status cuda_backend::launch(const void* kernel, stream_handle stream) {
  auto* p = static_cast<pending_launch*>(const_cast<void*>(kernel));
  ACS_STAGE(schedule);
  const std::uint64_t generation = launch_conditions::generation();
  p->status = p->closure(as_stream(stream));
  p->issued = true;
  ACS_STAGE(gpu_launch);
  const launch_request* r = p->request;
  // Remembered only if nothing that decides a launch's success changed meanwhile.
  if (p->status == 0 && r != nullptr && r->function != nullptr && !r->shape.attributes &&
      generation == launch_conditions::generation() && launch_conditions::deferral_allowed() && in_own_context()) {
    if (generation_ != generation) {
      succeeded_.clear();
      generation_ = generation;
    }
    succeeded_.insert(kind_of(*r));
    remember_success(kind_of(*r));
  }
  return p->status;
}

namespace {

bool grid_within_limits(const launch_shape& s) noexcept {
  constexpr unsigned max_x = 0x7fffffffu, max_yz = 65535u;  // every device since compute capability 3.0
  return s.grid[0] >= 1 && s.grid[0] <= max_x && s.grid[1] >= 1 && s.grid[1] <= max_yz && s.grid[2] >= 1 &&
         s.grid[2] <= max_yz;
}

}  // namespace

std::size_t cuda_backend::launch_kind_hash::operator()(const launch_kind& k) const noexcept {
  std::uint64_t h = hash_word(reinterpret_cast<std::uintptr_t>(k.function));
  for (const unsigned v : {k.block[0], k.block[1], k.block[2], k.shared_bytes}) h = hash_combine(h, v);
  return static_cast<std::size_t>(h);
}

const void* cuda_backend::detach(const void* kernel) {
  ACS_STAGE(segment_key);
  const auto* p = static_cast<const pending_launch*>(kernel);
  const launch_request* r = p->request;
  if (cuda_.cuLaunchKernel_ == nullptr || r == nullptr || r->function == nullptr) return nullptr;
  // Why not, counted with ACS_STATS (stats::uncopied): which of these keeps a program's launches
  // from the relay is not visible otherwise.
  const auto uncopied = [](stats::uncopied why) noexcept {
    stats::count_uncopied(why);
    return nullptr;
  };
  if (r->shape.attributes) return uncopied(stats::uncopied::attributes);
  if (r->extra != nullptr) return uncopied(stats::uncopied::extra);
  if (!grid_within_limits(r->shape)) return uncopied(stats::uncopied::grid);
  if (!launch_conditions::deferral_allowed()) return uncopied(stats::uncopied::conditions);
  if (const std::uint64_t generation = launch_conditions::generation(); generation != generation_) {
    succeeded_.clear();  // something that decides a launch's success changed since
    generation_ = generation;
    return uncopied(stats::uncopied::unproven);
  }
  if (!succeeded(kind_of(*r))) return uncopied(stats::uncopied::unproven);
  if (!in_own_context()) return uncopied(stats::uncopied::context);
  const launch_shape& s = r->shape;
  const inference::param_layout* layout = inference::layout_of(r->function);
  if (layout == nullptr || (r->params == nullptr && !layout->empty())) return uncopied(stats::uncopied::layout);
  std::unique_ptr<detached_launch> d = detached_.take();
  d->function = r->function;
  d->shape = s;
  // A cached layout's offsets increase without overlap (plausible_layout): the last parameter ends it.
  const std::size_t bytes = layout->empty() ? 0 : std::size_t{layout->back().offset} + layout->back().size;
  d->values.resize(bytes);
  d->params.resize(layout->size());
  for (std::size_t i = 0; i < layout->size(); ++i) {
    const inference::param_info& info = (*layout)[i];
    if (r->params[i] == nullptr) {  // the driver will report it: issue it now
      detached_.give(std::move(d));
      return uncopied(stats::uncopied::layout);
    }
    unsigned char* const to = d->values.data() + info.offset;
    // Pointers and 32-bit scalars, most arguments, copied inline rather than through memcpy's call.
    if (info.size == 8)
      std::memcpy(to, r->params[i], 8);
    else if (info.size == 4)
      std::memcpy(to, r->params[i], 4);
    else
      std::memcpy(to, r->params[i], info.size);
    d->params[i] = to;
  }
  ACS_STAGE(segment_hold);
  return d.release();
}

backend_status cuda_backend::launch_detached(const void* kernel, stream_handle stream) {
  std::unique_ptr<detached_launch> d(static_cast<detached_launch*>(const_cast<void*>(kernel)));
  const launch_shape& s = d->shape;
  const CUresult r = cuda_.cuLaunchKernel_(d->function, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1],
                                           s.block[2], s.shared_bytes, as_stream(stream), d->params.data(), nullptr);
  detached_.give(std::move(d));
  if (r == CUDA_SUCCESS) return r;
  // Only a failed context can get here (detach): every later call reports it, and no launch is
  // deferred from now on, so the next one returns it. Anything else would be a status lost.
  if (launch_conditions::call_failed(r)) {
    log::print_once(log_level::warn, "issue:launch_failed",
                    "a launch issued by acs's thread failed: the CUDA context failed (CUresult {}); every later "
                    "call returns the error",
                    static_cast<int>(r));
  } else {
    launch_conditions::stop_deferral(r);
    log::print_once(log_level::error, "issue:launch_lost",
                    "a launch issued by acs's thread failed with CUresult {}, which acs held impossible: that "
                    "launch did not run and its status was lost; acs defers no launch any more (please report "
                    "this)",
                    static_cast<int>(r));
  }
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
