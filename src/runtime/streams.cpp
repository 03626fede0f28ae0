#include "src/runtime/streams.hpp"

#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/support/log.hpp"
#include "src/support/process.hpp"
#include "src/support/thread_cache.hpp"
#include "src/support/hot_flags.hpp"
#include "src/support/hot_path.hpp"

namespace acs {

namespace {

struct stream_info {
  context_entry* context = nullptr;
  stream_kind kind = stream_kind::blocking;
  stream_mode* mode = nullptr;
  int priority = 0;  // its pool streams' (docs/design.md rule 12)
};

constexpr std::atomic<int>& redirected = hot.redirected_streams;

// Stream modes outlive their streams: another thread may still hold a pointer it resolved just
// before the stream was destroyed (a program that uses a stream while destroying it is wrong,
// but must not make acs touch freed memory). So they are never freed, and a forgotten stream's
// mode serves the next new stream.
class mode_pool {
 public:
  stream_mode* take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return new stream_mode(stream_mode_policy::from_settings());
    stream_mode* m = free_.back();
    free_.pop_back();
    return m;
  }
  // The stream is gone: it no longer counts among the redirected ones.
  void give_back(stream_mode* m) noexcept {
    if (m == nullptr) return;
    if (m->counted()) redirected.fetch_sub(1, std::memory_order_acq_rel);
    m->reset();
    try {
      std::lock_guard lock(mutex_);
      free_.push_back(m);
    } catch (...) {  // kept out of the pool: a few bytes lost, nothing wrong
    }
  }

 private:
  std::mutex mutex_;
  std::vector<stream_mode*> free_;
};

mode_pool& modes() {
  static auto* const p = new mode_pool;  // never destroyed, as the table
  return *p;
}

struct stream_table {
  std::shared_mutex mutex;
  std::unordered_map<CUstream, stream_info> streams;
};

stream_table& table() {
  static auto* const t = new stream_table;  // never destroyed: hooks run until the end
  return *t;
}

// Answers of this thread, valid while handles_epoch() is unchanged.
thread_local thread_cache<CUstream, stream_info, 8> recent_streams [[gnu::tls_model("initial-exec")]];  // read at every launch: as devices.cpp's

// The driver's view of a created stream; false for an invalid handle.
bool query_stream(const driver::table& cuda, CUstream s, stream_info& out) {
  CUcontext context = nullptr;
  unsigned flags = 0;
  if (cuda.cuStreamGetCtx_(s, &context) != CUDA_SUCCESS || cuda.cuStreamGetFlags_(s, &flags) != CUDA_SUCCESS)
    return false;
  out.context = context_of(cuda, context);
  out.kind = (flags & CU_STREAM_NON_BLOCKING) != 0 ? stream_kind::non_blocking : stream_kind::blocking;
  // Without the query (an old driver), the default priority: what the pool streams had before.
  if (cuda.cuStreamGetPriority_ == nullptr || cuda.cuStreamGetPriority_(s, &out.priority) != CUDA_SUCCESS)
    out.priority = 0;
  return out.context != nullptr;
}

ACS_HOT bool lookup(const driver::table& cuda, CUstream s, stream_info& out) {
  const std::uint64_t epoch = handles_epoch().load(std::memory_order_acquire);
  if (const stream_info* hit = recent_streams.find(s, epoch)) {
    out = *hit;
    return true;
  }
  stream_table& t = table();
  bool found = false;
  {
    std::shared_lock lock(t.mutex);
    if (const auto it = t.streams.find(s); it != t.streams.end()) {
      out = it->second;
      found = true;
    }
  }
  if (!found) {
    if (!query_stream(cuda, s, out)) return false;
    out.mode = modes().take();
    std::unique_lock lock(t.mutex);
    // Destroyed meanwhile? Then the answer may be about the old stream: use it, don't keep it
    // (its mode is then never given back: a few bytes, for a program racing with itself).
    if (handles_epoch().load(std::memory_order_acquire) == epoch) {
      const auto [it, inserted] = t.streams.emplace(s, out);
      if (!inserted) {  // another thread resolved it first: use its mode
        lock.unlock();
        modes().give_back(out.mode);
        out = it->second;
      }
    }
  }
  recent_streams.store(s, epoch, out);
  return true;
}

std::atomic<std::uintptr_t> next_thread_key{0};

// A thread's per-thread default stream ends with the thread: its schedulers
// forget it then (bookkeeping only, no CUDA call), so that threads coming and
// going leave nothing behind. It is one stream per context: one mode each.
struct per_thread_stream {
  const std::uintptr_t key = (next_thread_key.fetch_add(1, std::memory_order_relaxed) << 2) | 3;
  std::vector<std::pair<const context_entry*, stream_mode*>> modes_by_context;

  stream_mode* mode_in(const context_entry* context) {
    for (const auto& [c, m] : modes_by_context)
      if (c == context) return m;
    modes_by_context.emplace_back(context, modes().take());
    return modes_by_context.back().second;
  }
  ~per_thread_stream() {
    if (process::forked_child()) return;  // the parent's threads may hold the schedulers' locks
    try {
      for (device_runtime* rt : all_runtimes()) rt->sched.forget(key);
    } catch (...) {
    }
    for (const auto& [c, m] : modes_by_context) modes().give_back(m);
  }
};

per_thread_stream& this_thread_stream() noexcept {
  thread_local per_thread_stream stream;
  return stream;
}

}  // namespace

std::uintptr_t per_thread_stream_key() noexcept { return this_thread_stream().key; }

static_assert(sizeof(CUstream) == sizeof(std::uintptr_t));

ACS_HOT bool resolve_stream(const driver::table& cuda, CUstream stream, default_stream zero, stream_target& out) {
  const CUstream s = normalise_stream(stream, zero);
  if (s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) {
    out.context = current_context(cuda);
    if (out.context == nullptr) return false;
    const bool legacy = s == CU_STREAM_LEGACY;
    // The legacy stream's key is its handle: one per context, as schedulers are.
    out.stream.key = legacy ? reinterpret_cast<std::uintptr_t>(CU_STREAM_LEGACY) : per_thread_stream_key();
    out.stream.handle = reinterpret_cast<stream_handle>(s);
    // The per-thread default stream synchronises with the legacy stream like a blocking stream.
    out.stream.kind = legacy ? stream_kind::legacy : stream_kind::blocking;
    out.mode = legacy ? &out.context->legacy_mode : this_thread_stream().mode_in(out.context);
    out.stream.priority = 0;  // both default streams have the default priority
    out.stream.thread_relative = !legacy;
    return true;
  }
  stream_info info;
  if (!lookup(cuda, s, info)) return false;
  out.context = info.context;
  out.stream.key = reinterpret_cast<std::uintptr_t>(s);
  out.stream.handle = reinterpret_cast<stream_handle>(s);
  out.stream.kind = info.kind;
  out.mode = info.mode;
  out.stream.priority = info.priority;
  return true;
}

bool forget_stream(CUstream stream, stream_target& was) {
  stream_table& t = table();
  std::unique_lock lock(t.mutex);
  // Bumped under the lock, so a lookup racing with this cannot keep a stale answer.
  handles_epoch().fetch_add(1, std::memory_order_acq_rel);
  const auto it = t.streams.find(stream);
  if (it == t.streams.end()) return false;
  was.context = it->second.context;
  was.stream = {reinterpret_cast<std::uintptr_t>(stream), reinterpret_cast<stream_handle>(stream), it->second.kind,
                it->second.priority};
  modes().give_back(it->second.mode);
  t.streams.erase(it);
  return true;
}

void forget_streams_of(context_entry* context) {
  stream_table& t = table();
  std::unique_lock lock(t.mutex);
  handles_epoch().fetch_add(1, std::memory_order_acq_rel);
  std::erase_if(t.streams, [&](const auto& kv) {
    if (kv.second.context != context) return false;
    modes().give_back(kv.second.mode);
    return true;
  });
  // The legacy stream's mode stays with the abandoned entry; it no longer counts.
  if (context->legacy_mode.counted()) redirected.fetch_sub(1, std::memory_order_acq_rel);
  context->legacy_mode.reset();
}

}  // namespace acs
