#include "scheduler/stream_pool.hpp"

namespace acs {

stream_pool::~stream_pool() {
  for (const pool_stream& s : streams_) gpu_.destroy_stream(s.handle);
}

backend_status stream_pool::create(unsigned count, int priority) {
  const std::size_t before = streams_.size();
  backend_status status = 0;
  for (unsigned i = 0; i < count; ++i) {
    stream_handle h{};
    status = priority == 0 ? gpu_.create_stream(&h) : gpu_.create_stream_with_priority(&h, priority);
    if (status != 0) break;
    pool_stream s;
    s.handle = h;
    s.priority = priority;
    streams_.push_back(std::move(s));
  }
  for (pool_stream& s : streams_) s.waited.resize(streams_.size(), 0);
  return streams_.size() == before ? status : 0;
}

unsigned stream_pool::pick_least_loaded(std::uintptr_t claimant, int priority) const noexcept {
  // One ordered key per stream: usable (its priority, not held by another
  // application stream), then fewest in the window, then known idle, then least
  // recently chosen. A branch-free minimum over a few dozen streams.
  auto key = [&](const pool_stream& s) {
    const bool usable = s.priority == priority && (s.owner == claimant || s.owner == no_owner);
    const std::uint64_t busy = s.known_idle() ? 0 : 1;
    return (std::uint64_t{!usable} << 63) | (std::uint64_t{s.in_window} << 48) | (busy << 47) |
           (s.last_pick & ((std::uint64_t{1} << 47) - 1));
  };
  unsigned best = 0;
  std::uint64_t best_key = ~std::uint64_t{0};
  for (unsigned i = 0; i < streams_.size(); ++i) {
    const std::uint64_t k = key(streams_[i]);
    if (k < best_key) {
      best = i;
      best_key = k;
    }
  }
  return (best_key >> 63) != 0 ? none : best;
}

bool stream_pool::note_wait(unsigned to, unsigned from, std::uint64_t seq) noexcept {
  if (to == from) return false;  // stream order already covers it
  std::uint64_t& known = streams_[to].waited[from];
  if (known >= seq || streams_[from].known_complete >= seq) return false;
  known = seq;
  return true;
}

}  // namespace acs
