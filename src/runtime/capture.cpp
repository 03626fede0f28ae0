#include "src/runtime/capture.hpp"

#include <optional>

#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "src/runtime/dispatch.hpp"
#include "src/support/config.hpp"
#include "src/support/log.hpp"
#include "src/runtime/streams.hpp"

namespace acs {

namespace {

struct capture {
  CUstreamCaptureMode mode;
  std::uintptr_t thread;  // per_thread_stream_key() of the thread that began it
};

struct alignas(64) busy_flag {
  std::atomic<bool> busy{false};
  bool in_use = false;  // owned by a live thread (guarded by the registry mutex)
};

struct capture_state {
  std::mutex mutex;
  std::unordered_map<std::uintptr_t, capture> active;  // by stream key
  std::vector<busy_flag*> flags;                       // one per thread that launched; reused
};

capture_state& state() {
  static auto* const s = new capture_state;  // never destroyed
  return *s;
}

std::atomic<int> global_captures{0};
std::atomic<int> all_captures{0};
// Initial-exec, as streams.cpp's caches: read by every launch on acs's path (unsafe_section), and
// libacs.so is preloaded, so its thread-locals live in the initial TLS block (no __tls_get_addr).
thread_local int thread_local_captures [[gnu::tls_model("initial-exec")]] = 0;

// The calling thread's busy flag, taken from the registry on first use and
// handed back when the thread exits.
class thread_flag {
 public:
  std::atomic<bool>* get() {
    if (flag_ == nullptr) {
      capture_state& s = state();
      std::lock_guard lock(s.mutex);
      for (busy_flag* f : s.flags)
        if (!f->in_use) {
          flag_ = f;
          break;
        }
      if (flag_ == nullptr) flag_ = s.flags.emplace_back(new busy_flag);
      flag_->in_use = true;
    }
    return &flag_->busy;
  }
  ~thread_flag() {
    if (flag_ == nullptr) return;
    std::lock_guard lock(state().mutex);
    flag_->busy.store(false);
    flag_->in_use = false;
  }

 private:
  busy_flag* flag_ = nullptr;
};
thread_local thread_flag this_thread_flag [[gnu::tls_model("initial-exec")]];

// Capture never happens on the legacy stream, so 0 can only be the per-thread
// default stream; that one is keyed per thread, like everywhere else.
std::uintptr_t capture_key(CUstream stream) noexcept {
  if (stream == nullptr || stream == CU_STREAM_PER_THREAD) return per_thread_stream_key();
  return reinterpret_cast<std::uintptr_t>(stream);
}

void count(const capture& c, int delta) noexcept {
  all_captures.fetch_add(delta, std::memory_order_relaxed);
  if (c.mode == CU_STREAM_CAPTURE_MODE_GLOBAL) global_captures.fetch_add(delta);
  // Non-relaxed captures end on the thread that began them (CUDA requires it).
  if (c.mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL && c.thread == per_thread_stream_key())
    thread_local_captures += delta;
}

// After a global capture was counted: wait for every thread already inside an
// unsafe section to leave it. New ones see the count and stay out.
void wait_for_unsafe_sections() {
  std::vector<busy_flag*> flags;
  {
    std::lock_guard lock(state().mutex);
    flags = state().flags;
  }
  for (busy_flag* f : flags)
    while (f->busy.load()) std::this_thread::yield();
}

}  // namespace

bool stream_capturing(const driver::table& cuda, CUstream stream) noexcept {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuda.cuStreamIsCapturing_(stream, &status) != CUDA_SUCCESS) return true;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

namespace {
// Sections nest (a launch's section, then a flush's in the scheduler): an inner one takes the
// outermost's answer and leaves the flag to it.
thread_local unsigned section_depth [[gnu::tls_model("initial-exec")]] = 0;
thread_local std::atomic<bool>* outermost_flag [[gnu::tls_model("initial-exec")]] = nullptr;
}  // namespace

unsafe_section::unsafe_section() noexcept {
  if (section_depth++ > 0) {
    flag_ = outermost_flag;
    nested_ = true;
    return;
  }
  try {
    std::atomic<bool>* flag = this_thread_flag.get();
    flag->store(true);  // seq_cst: ordered before the load below (and the capture's count)
    if (global_captures.load() > 0 || thread_local_captures > 0) {
      flag->store(false);
    } else {
      flag_ = flag;
    }
  } catch (...) {
    flag_ = nullptr;
  }
  outermost_flag = flag_;
}

unsafe_section::~unsafe_section() {
  --section_depth;
  if (nested_) return;
  outermost_flag = nullptr;
  // Release: everything done inside happens before a waiting capture_began sees it.
  if (flag_ != nullptr) flag_->store(false, std::memory_order_release);
}

unsafe_call_guard& scheduler_unsafe_call_guard() noexcept {
  struct section_guard final : unsafe_call_guard {
    static std::optional<unsafe_section>& section() noexcept {
      thread_local std::optional<unsafe_section> s;
      return s;
    }
    bool enter() noexcept override { return section().emplace().allowed(); }
    void leave() noexcept override { section().reset(); }
  };
  static section_guard guard;
  return guard;
}

void capture_began(CUstream stream, CUstreamCaptureMode mode) noexcept {
  // Relayed launches (ACS_RELAY) were made before the capture: issued before it begins, on any
  // device, so that none lands in it or breaks it (a legacy-stream launch during a capture).
  if (settings().relays()) device_work_issued();
  try {
    const capture c{mode, per_thread_stream_key()};
    {
      capture_state& s = state();
      std::lock_guard lock(s.mutex);
      auto [it, inserted] = s.active.try_emplace(capture_key(stream), c);
      if (!inserted) {  // its end was never reported: replace it
        count(it->second, -1);
        it->second = c;
      }
      count(c, +1);
    }
    if (mode == CU_STREAM_CAPTURE_MODE_GLOBAL) wait_for_unsafe_sections();
    log::print_once(log_level::info, "capture",
                    "stream capture seen: launches on capturing streams pass straight through");
  } catch (...) {
    log::warn_once("capture:error", "acs could not track a stream capture");
  }
}

void capture_ended(CUstream stream) noexcept {
  try {
    capture_state& s = state();
    std::lock_guard lock(s.mutex);
    const auto it = s.active.find(capture_key(stream));
    if (it == s.active.end()) return;
    count(it->second, -1);
    s.active.erase(it);
  } catch (...) {
  }
}

bool capture_in_progress_anywhere() noexcept { return all_captures.load(std::memory_order_relaxed) > 0; }

bool capture_forbids_unsafe_calls() noexcept {
  return global_captures.load() > 0 || thread_local_captures > 0;
}

}  // namespace acs
