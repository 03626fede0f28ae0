#include "window.hpp"

#include <algorithm>

namespace acs {
namespace {

// An empty hull has first > last and so overlaps nothing.
bool any_overlap(const std::vector<byte_range>& a, const byte_range& a_hull,
                 const std::vector<byte_range>& b, const byte_range& b_hull) noexcept {
  if (a.empty() || b.empty() || !overlaps(a_hull, b_hull)) return false;
  for (const byte_range& x : a) {
    if (!overlaps(x, b_hull)) continue;
    for (const byte_range& y : b)
      if (overlaps(x, y)) return true;
  }
  return false;
}

}  // namespace

byte_range hull_of(const std::vector<byte_range>& ranges) noexcept {
  byte_range h{address_max, 0};
  for (const byte_range& r : ranges) {
    h.first = std::min(h.first, r.first);
    h.last = std::max(h.last, r.last);
  }
  return h;
}

bool depends_on(const window_entry& e, const access_set& a, const byte_range& read_hull,
                const byte_range& write_hull) noexcept {
  return any_overlap(e.writes, e.write_hull, a.reads, read_hull)      // read after write
         || any_overlap(e.reads, e.read_hull, a.writes, write_hull)   // write after read
         || any_overlap(e.writes, e.write_hull, a.writes, write_hull); // write after write
}

window::window(unsigned capacity) : capacity_(capacity < 1 ? 1 : capacity) {
  entries_.resize(capacity_);
  order_.reserve(capacity_);
  free_.reserve(capacity_);
  for (slot_id s = capacity_; s-- > 0;) free_.push_back(s);
}

void window::dependencies(std::uintptr_t vstream, const access_set& access, std::uint64_t group,
                          std::vector<slot_id>& out) const {
  const byte_range read_hull = hull_of(access.reads);
  const byte_range write_hull = hull_of(access.writes);
  for (const slot_id s : order_) {
    const window_entry& e = entries_[s];
    if (e.vstream != vstream) continue;
    if ((group != 0 && e.group == group) || depends_on(e, access, read_hull, write_hull))
      out.push_back(s);
  }
}

slot_id window::insert(std::uintptr_t vstream, std::uint64_t group, const access_set& access,
                       unsigned stream, std::uint64_t seq, event_handle event) {
  const slot_id s = free_.back();
  free_.pop_back();
  window_entry& e = entries_[s];
  e.vstream = vstream;
  e.group = group;
  e.stream = stream;
  e.seq = seq;
  e.event = event;
  e.age = next_age_++;
  e.reads.assign(access.reads.begin(), access.reads.end());  // keeps capacity: no allocation in steady state
  e.writes.assign(access.writes.begin(), access.writes.end());
  e.read_hull = hull_of(e.reads);
  e.write_hull = hull_of(e.writes);
  order_.push_back(s);
  return s;
}

void window::remove(slot_id s) {
  const auto it = std::find(order_.begin(), order_.end(), s);
  if (it == order_.end()) return;
  order_.erase(it);
  free_.push_back(s);
}

}  // namespace acs
