#include "window.hpp"

#include "overlap_scan.hpp"

#include <algorithm>

namespace acs {
window::window(unsigned capacity) : capacity_(capacity < 1 ? 1 : capacity) {
  entries_.resize(capacity_);
  order_.reserve(capacity_);
  free_.reserve(capacity_);
  marked_.resize((capacity_ + 63) / 64);
  for (slot_id s = capacity_; s-- > 0;) free_.push_back(s);
}

void window::flat_ranges::clear() noexcept {
  first.clear();
  last.clear();
  owner.clear();
  begin = 0;
}

void window::flat_ranges::add(const byte_range& r, slot_id s, std::uint32_t g) {
  first.push_back(r.first);
  last.push_back(r.last);
  owner.push_back(std::uint64_t{s} << 32 | g);
}

bool window::scan(const flat_ranges& index, const std::vector<byte_range>& queries) const {
  hits_.resize(index.size());
  return mark_overlaps(index.first.data() + index.begin, index.last.data() + index.begin, index.size(),
                       queries.data(), queries.size(), hits_.data());
}

void window::collect(const flat_ranges& index, std::uintptr_t vstream) const {
  const std::size_t n = index.size();
  const std::uint64_t* owner = index.owner.data() + index.begin;
  for (std::size_t i = 0; i < n; ++i) {
    if (hits_[i] == 0) continue;
    const auto s = static_cast<slot_id>(owner[i] >> 32);
    const window_entry& e = entries_[s];
    if (e.live && e.generation == static_cast<std::uint32_t>(owner[i]) && e.vstream == vstream)
      marked_[s / 64] |= std::uint64_t{1} << (s % 64);
  }
}

void window::dependencies(std::uintptr_t vstream, const access_set& access, std::uint64_t group,
                          std::vector<slot_id>& out) const {
  std::fill(marked_.begin(), marked_.end(), std::uint64_t{0});
  // Earlier writes against our reads and writes (RAW, WAW); earlier reads against our writes (WAR).
  queries_.assign(access.reads.begin(), access.reads.end());
  queries_.insert(queries_.end(), access.writes.begin(), access.writes.end());
  bool any = false;
  if (scan(writes_, queries_)) {
    collect(writes_, vstream);
    any = true;
  }
  if (!access.writes.empty() && scan(reads_, access.writes)) {
    collect(reads_, vstream);
    any = true;
  }
  if (!any && group == 0) return;
  for (const slot_id s : order_) {
    const window_entry& e = entries_[s];
    const bool marked = (marked_[s / 64] >> (s % 64)) & 1;
    if (marked || (group != 0 && e.group == group && e.vstream == vstream)) out.push_back(s);
  }
}

slot_id window::insert(std::uintptr_t vstream, std::uint64_t group, const access_set& access,
                       unsigned stream, std::uint64_t seq, event_handle event, std::uint64_t launch_id) {
  const slot_id s = free_.back();
  free_.pop_back();
  window_entry& e = entries_[s];
  e.live = true;
  ++e.generation;
  e.vstream = vstream;
  e.group = group;
  e.stream = stream;
  e.seq = seq;
  e.event = event;
  e.age = next_age_++;
  e.launch_id = launch_id;
  e.reads.assign(access.reads.begin(), access.reads.end());  // keeps capacity: no allocation in steady state
  e.writes.assign(access.writes.begin(), access.writes.end());
  index(s);
  live_ranges_ += e.reads.size() + e.writes.size();
  order_.push_back(s);
  return s;
}

void window::index(slot_id s) {
  window_entry& e = entries_[s];
  e.read_pos = reads_.first.size();
  e.write_pos = writes_.first.size();
  for (const byte_range& r : e.reads) reads_.add(r, s, e.generation);
  for (const byte_range& r : e.writes) writes_.add(r, s, e.generation);
}

void window::forget(slot_id s) {
  window_entry& e = entries_[s];
  e.live = false;
  live_ranges_ -= e.reads.size() + e.writes.size();
  free_.push_back(s);
  // The oldest ranges sit at the front of the index: skip them at no cost.
  if (e.read_pos == reads_.begin) reads_.begin += e.reads.size();
  if (e.write_pos == writes_.begin) writes_.begin += e.writes.size();
}

void window::compact_if_stale() {
  if (4 * (reads_.size() + writes_.size()) <= 5 * live_ranges_ + 32 &&
      reads_.begin + writes_.begin <= 4 * live_ranges_ + 256)
    return;
  reads_.clear();
  writes_.clear();
  for (const slot_id s : order_) index(s);
}

void window::remove(slot_id s) {
  const auto it = std::find(order_.begin(), order_.end(), s);
  if (it == order_.end()) return;
  order_.erase(it);
  forget(s);
  compact_if_stale();
}

}  // namespace acs
