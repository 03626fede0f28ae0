#include "src/runtime/streams.hpp"

#include <array>
#include <shared_mutex>
#include <unordered_map>

#include "src/support/log.hpp"

namespace acs {

namespace {

struct stream_info {
  context_entry* context = nullptr;
  stream_kind kind = stream_kind::blocking;
  int priority = 0;  // its pool streams' (docs/design.md rule 12)
};

struct stream_table {
  std::shared_mutex mutex;
  std::unordered_map<CUstream, stream_info> streams;
};

stream_table& table() {
  static auto* const t = new stream_table;  // never destroyed: hooks run until the end
  return *t;
}

struct cached_stream {
  std::uint64_t epoch = 0;
  CUstream stream = nullptr;
  stream_info info;
};
constexpr std::size_t thread_slots = 8;
thread_local std::array<cached_stream, thread_slots> thread_cache{};

std::size_t slot_of(CUstream s) noexcept {
  const auto v = reinterpret_cast<std::uintptr_t>(s);
  return static_cast<std::size_t>((v >> 4) ^ (v >> 10)) % thread_slots;
}

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

bool lookup(const driver::table& cuda, CUstream s, stream_info& out) {
  const std::uint64_t epoch = handles_epoch().load(std::memory_order_acquire);
  cached_stream& slot = thread_cache[slot_of(s)];
  if (slot.epoch == epoch && slot.stream == s) {
    out = slot.info;
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
    std::unique_lock lock(t.mutex);
    // Destroyed meanwhile? Then the answer may be about the old stream: use it, don't keep it.
    if (handles_epoch().load(std::memory_order_acquire) == epoch) t.streams.emplace(s, out);
  }
  slot = {epoch, s, out};
  return true;
}

std::atomic<std::uintptr_t> next_thread_key{0};

// A thread's per-thread default stream ends with the thread: its schedulers
// forget it then (bookkeeping only, no CUDA call), so that threads coming and
// going leave nothing behind.
struct per_thread_stream {
  const std::uintptr_t key = (next_thread_key.fetch_add(1, std::memory_order_relaxed) << 2) | 3;
  ~per_thread_stream() {
    try {
      for (device_runtime* rt : all_runtimes()) rt->sched.forget(key);
    } catch (...) {
    }
  }
};

}  // namespace

std::uintptr_t per_thread_stream_key() noexcept {
  thread_local const per_thread_stream stream;
  return stream.key;
}

static_assert(sizeof(CUstream) == sizeof(std::uintptr_t));

bool resolve_stream(const driver::table& cuda, CUstream stream, default_stream zero, stream_target& out) {
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
    out.stream.priority = 0;  // both default streams have the default priority
    return true;
  }
  stream_info info;
  if (!lookup(cuda, s, info)) return false;
  out.context = info.context;
  out.stream.key = reinterpret_cast<std::uintptr_t>(s);
  out.stream.handle = reinterpret_cast<stream_handle>(s);
  out.stream.kind = info.kind;
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
  t.streams.erase(it);
  return true;
}

void forget_streams_of(const context_entry* context) {
  stream_table& t = table();
  std::unique_lock lock(t.mutex);
  handles_epoch().fetch_add(1, std::memory_order_acq_rel);
  std::erase_if(t.streams, [&](const auto& kv) { return kv.second.context == context; });
}

}  // namespace acs
