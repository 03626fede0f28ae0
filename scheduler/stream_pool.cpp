#include "scheduler/stream_pool.hpp"

namespace acs {

stream_pool::~stream_pool() {
  for (const pool_stream& s : streams_) gpu_.destroy_stream(s.handle);
}

backend_status stream_pool::create(unsigned count) {
  backend_status status = 0;
  for (unsigned i = 0; i < count; ++i) {
    stream_handle h{};
    status = gpu_.create_stream(&h);
    if (status != 0) break;
    pool_stream s;
    s.handle = h;
    streams_.push_back(std::move(s));
  }
  for (pool_stream& s : streams_) s.waited.assign(streams_.size(), 0);
  return streams_.empty() ? status : 0;
}

unsigned stream_pool::pick_least_loaded() const noexcept {
  // One ordered key per stream: fewest in the window, then known idle, then
  // least recently chosen. A branch-free minimum over a few dozen streams.
  auto key = [](const pool_stream& s) {
    const std::uint64_t busy = s.known_idle() ? 0 : 1;
    return (std::uint64_t{s.in_window} << 48) | (busy << 47) | (s.last_pick & ((std::uint64_t{1} << 47) - 1));
  };
  unsigned best = 0;
  std::uint64_t best_key = key(streams_[0]);
  for (unsigned i = 1; i < streams_.size(); ++i) {
    const std::uint64_t k = key(streams_[i]);
    if (k < best_key) {
      best = i;
      best_key = k;
    }
  }
  return best;
}

bool stream_pool::note_wait(unsigned to, unsigned from, std::uint64_t seq) noexcept {
  if (to == from) return false;  // stream order already covers it
  std::uint64_t& known = streams_[to].waited[from];
  if (known >= seq || streams_[from].known_complete >= seq) return false;
  known = seq;
  return true;
}

}  // namespace acs
