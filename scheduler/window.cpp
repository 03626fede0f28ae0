#include "scheduler/window.hpp"

#include <algorithm>

namespace acs {

window::window(unsigned capacity)
    : capacity_(capacity < 1 ? 1 : capacity), read_index_(capacity_), write_index_(capacity_) {
  entries_.resize(capacity_);
  order_.reserve(capacity_);
  free_.reserve(capacity_);
  candidates_.resize(write_index_.words());
  for (slot_id s = capacity_; s-- > 0;) free_.push_back(s);
}

void window::dependencies(std::uintptr_t vstream, const access_set& access, std::uint64_t group,
                          std::vector<slot_id>& out) const {
  std::uint64_t* cand = candidates_.data();
  std::fill(candidates_.begin(), candidates_.end(), std::uint64_t{0});
  // Earlier writes may conflict with any of our ranges; earlier reads only with our writes.
  for (const byte_range& r : access.reads) write_index_.candidates(r, cand);
  for (const byte_range& r : access.writes) {
    write_index_.candidates(r, cand);
    read_index_.candidates(r, cand);
  }
  if (group != 0) {
    for (const slot_id s : order_) {
      const window_entry& e = entries_[s];
      if (e.vstream == vstream && e.group == group) cand[s / 64] |= std::uint64_t{1} << (s % 64);
    }
  }
  // Candidates are few: visit their bits and check them exactly.
  for (unsigned w = 0; w < candidates_.size(); ++w) {
    for (std::uint64_t bits = cand[w]; bits != 0; bits &= bits - 1) {
      const auto s = static_cast<slot_id>(w * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
      const window_entry& e = entries_[s];
      if (e.vstream == vstream && ((group != 0 && e.group == group) || conflicts(e.reads, e.writes, access))) out.push_back(s);
    }
  }
}

slot_id window::insert(std::uintptr_t vstream, std::uint64_t group, const access_set& access,
                       unsigned stream, std::uint64_t seq, event_handle event, std::uint64_t launch_id,
                       std::uint64_t stamp) {
  const slot_id s = free_.back();
  free_.pop_back();
  window_entry& e = entries_[s];
  e.vstream = vstream;
  e.group = group;
  e.stream = stream;
  e.seq = seq;
  e.event = event;
  e.launch_id = launch_id;
  e.stamp = stamp;
  e.merged = false;
  e.reads.assign(access.reads.begin(), access.reads.end());  // keeps capacity: no allocation in steady state
  e.writes.assign(access.writes.begin(), access.writes.end());
  for (const byte_range& r : e.reads) read_index_.add(s, r);
  for (const byte_range& r : e.writes) write_index_.add(s, r);
  order_.push_back(s);
  return s;
}

void window::forget(slot_id s) {
  const window_entry& e = entries_[s];
  for (const byte_range& r : e.reads) read_index_.remove(s, r);
  for (const byte_range& r : e.writes) write_index_.remove(s, r);
  free_.push_back(s);
}

void window::remove(slot_id s) {
  const auto it = std::find(order_.begin(), order_.end(), s);
  if (it == order_.end()) return;
  order_.erase(it);
  forget(s);
}

}  // namespace acs
