#include "annotations/inferred/param_layout.hpp"

#include "src/support/thread_cache.hpp"

namespace acs::inference {

namespace {

// Generations are unique across all caches, so one thread-local cache serves
// every layout_cache without mixing them up.
std::atomic<std::uint64_t> next_generation{1};
std::uint64_t fresh_generation() noexcept { return next_generation.fetch_add(1, std::memory_order_relaxed); }

thread_local thread_cache<const void*, const param_layout*, 16> recent_layouts [[gnu::tls_model("initial-exec")]];

}  // namespace

bool plausible_layout(const param_layout& layout) noexcept {
  if (layout.empty()) return false;
  std::uint64_t end = 0;
  for (const param_info& p : layout) {
    if (p.size == 0 || p.offset < end) return false;
    end = std::uint64_t{p.offset} + p.size;
    if (end > max_param_bytes) return false;
  }
  return true;
}

layout_cache::layout_cache(layout_reader& reader) : reader_(reader), generation_(fresh_generation()) {}

const param_layout* layout_cache::find(const void* function) {
  const std::uint64_t generation = generation_.load(std::memory_order_acquire);
  return recent_layouts.get(function, generation, [&] { return lookup_slow(function, generation); });
}

const param_layout* layout_cache::lookup_slow(const void* function, std::uint64_t generation) {
  {
    std::shared_lock lock(mutex_);
    if (const auto it = known_.find(function); it != known_.end()) return it->second;
  }
  param_layout read;
  reads_.fetch_add(1, std::memory_order_relaxed);
  const bool ok = reader_.read(function, read) && plausible_layout(read);
  std::unique_lock lock(mutex_);
  if (const auto it = known_.find(function); it != known_.end()) return it->second;  // another thread won
  const param_layout* layout = ok ? &store_.emplace_back(std::move(read)) : nullptr;
  // A clear() while the driver was asked: the answer may be about the old kernel. Use, don't keep.
  if (generation_.load(std::memory_order_acquire) == generation) known_.emplace(function, layout);
  return layout;
}

bool layout_cache::cached(const void* function) {
  // The thread's cache first: asked at every relayed launch (ACS_RELAY), where a shared lock of
  // the table cost about 80 instructions.
  if (recent_layouts.find(function, generation_.load(std::memory_order_acquire)) != nullptr) return true;
  std::shared_lock lock(mutex_);
  return known_.contains(function);
}

void layout_cache::clear() noexcept {
  std::unique_lock lock(mutex_);
  known_.clear();
  generation_.store(fresh_generation(), std::memory_order_release);
}

}  // namespace acs::inference
