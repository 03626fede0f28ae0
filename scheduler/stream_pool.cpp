#include "scheduler/stream_pool.hpp"

namespace acs {

stream_pool::~stream_pool() {
  for (const pool_stream& s : streams_) gpu_.destroy_stream(s.handle);
}

backend_status stream_pool::create(unsigned count, int priority) {
  priority_set k{priority, size(), size(), no_owner};
  backend_status status = 0;
  for (unsigned i = 0; i < count; ++i) {
    stream_handle h{};
    status = priority == 0 ? gpu_.create_stream(&h) : gpu_.create_stream_with_priority(&h, priority);
    if (status != 0) break;
    pool_stream s;
    s.handle = h;
    s.priority = priority;
    s.set = static_cast<unsigned>(sets_.size());
    streams_.push_back(std::move(s));
  }
  for (pool_stream& s : streams_) s.waited.resize(streams_.size(), 0);
  k.end = size();
  sets_.push_back(k);
  return k.begin == k.end ? status : 0;
}

unsigned stream_pool::set_of(int priority) const noexcept {
  for (unsigned k = 0; k < sets_.size(); ++k)
    if (sets_[k].priority == priority) return k;
  return none;
}

// One ordered key per stream: fewest in the window, then known idle, then
// least recently chosen. A branch-free minimum over a few dozen streams; the
// unusable ones get the greatest key.
template <class Usable>
unsigned stream_pool::least_loaded(const priority_set& k, Usable usable) const noexcept {
  auto key = [&](const pool_stream& s) {
    const std::uint64_t busy = s.known_idle() ? 0 : 1;
    return (std::uint64_t{!usable(s)} << 63) | (std::uint64_t{s.in_window} << 48) | (busy << 47) |
           (s.last_pick & ((std::uint64_t{1} << 47) - 1));
  };
  unsigned best = none;
  std::uint64_t best_key = ~std::uint64_t{0};
  for (unsigned i = k.begin; i < k.end; ++i) {
    const std::uint64_t v = key(streams_[i]);
    if (v < best_key) {
      best = i;
      best_key = v;
    }
  }
  return (best_key >> 63) != 0 ? none : best;
}

unsigned stream_pool::pick_least_loaded(std::uintptr_t claimant, unsigned k) noexcept {
  priority_set& set = sets_[k];
  if (set.holder == claimant || set.holder == no_owner)
    return least_loaded(set, [](const pool_stream&) { return true; });
  // Other application streams hold some of these: check each stream, and find
  // out whether a single holder is left.
  std::uintptr_t only = no_owner;
  for (unsigned i = set.begin; i < set.end && only != several_owners; ++i) {
    const std::uintptr_t o = streams_[i].owner;
    if (o != no_owner && o != only) only = only == no_owner ? o : several_owners;
  }
  set.holder = only;
  return least_loaded(set, [claimant](const pool_stream& s) {
    return s.owner == claimant || s.owner == no_owner || s.free_for_others();
  });
}

void stream_pool::disown(std::uintptr_t owner, std::uintptr_t heir) noexcept {
  for (pool_stream& s : streams_) {
    if (s.owner != owner) continue;
    s.owner = heir;
    sets_[s.set].holder = several_owners;  // found out again at the next pick
  }
}

bool stream_pool::note_wait(unsigned to, unsigned from, std::uint64_t seq) noexcept {
  if (to == from) return false;  // stream order already covers it
  std::uint64_t& known = streams_[to].waited[from];
  if (known >= seq || streams_[from].known_complete >= seq) return false;
  known = seq;
  return true;
}

}  // namespace acs
