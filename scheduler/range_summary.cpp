#include "scheduler/range_summary.hpp"

#include <algorithm>

namespace acs {
namespace {

constexpr std::size_t max_groups = 8;

bool touches(const byte_range& a, const byte_range& b) noexcept {
  // Overlapping or adjacent: merging them loses nothing.
  const bool a_before = a.last < b.first && b.first - a.last > 1;
  const bool b_before = b.last < a.first && a.first - b.last > 1;
  return !a_before && !b_before;
}

}  // namespace

void bounded_cover::add(const byte_range& r) {
  // Insert in order, then merge what touches it.
  auto it = std::lower_bound(ranges_.begin(), ranges_.end(), r,
                             [](const byte_range& a, const byte_range& b) { return a.first < b.first; });
  it = ranges_.insert(it, r);
  std::size_t i = static_cast<std::size_t>(it - ranges_.begin());
  if (i > 0 && touches(ranges_[i - 1], ranges_[i])) {
    ranges_[i - 1] = hull(ranges_[i - 1], ranges_[i]);
    ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
  }
  while (i + 1 < ranges_.size() && touches(ranges_[i], ranges_[i + 1])) {
    ranges_[i] = hull(ranges_[i], ranges_[i + 1]);
    ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(i + 1));
  }
  // Over the limit: close the smallest gap. Conservative, never loses a byte.
  while (ranges_.size() > limit_) {
    std::size_t best = 0;
    address best_gap = address_max;
    for (std::size_t j = 0; j + 1 < ranges_.size(); ++j) {
      const address gap = ranges_[j + 1].first - ranges_[j].last;
      if (gap < best_gap) {
        best_gap = gap;
        best = j;
      }
    }
    ranges_[best] = hull(ranges_[best], ranges_[best + 1]);
    ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(best + 1));
  }
}

bool bounded_cover::covers(const byte_range& r) const noexcept {
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [&](const byte_range& c) { return c.first <= r.first && r.last <= c.last; });
}

event_handle range_summary::fold(const window_entry& entry) {
  for (const byte_range& r : entry.reads) reads_.add(r);
  for (const byte_range& r : entry.writes) writes_.add(r);
  if (entry.group != 0) note_group(entry.group);
  last_stamp_ = std::max(last_stamp_, entry.stamp);
  return hold({entry.stream, entry.seq, entry.event});
}

void range_summary::note_group(std::uint64_t group) {
  if (all_groups_ || std::find(groups_.begin(), groups_.end(), group) != groups_.end()) return;
  if (groups_.size() < max_groups) {
    groups_.push_back(group);
  } else {
    all_groups_ = true;
    groups_.clear();
  }
}

event_handle range_summary::hold(const folded_event& f) {
  for (folded_event& held : events_) {
    if (held.stream != f.stream) continue;
    if (held.seq >= f.seq) return f.event;  // the held one already covers it
    const event_handle replaced = held.event;
    held = f;
    return replaced;
  }
  events_.push_back(f);
  return 0;
}

bool range_summary::depends(const access_set& access, std::uint64_t group) const noexcept {
  if (events_.empty()) return false;
  if (group != 0 && (all_groups_ || std::find(groups_.begin(), groups_.end(), group) != groups_.end()))
    return true;
  return conflicts(reads_.ranges(), writes_.ranges(), access);
}

void range_summary::absorb(range_summary& other, std::vector<event_handle>& released) {
  for (const byte_range& r : other.reads_.ranges()) reads_.add(r);
  for (const byte_range& r : other.writes_.ranges()) writes_.add(r);
  if (other.all_groups_) {
    all_groups_ = true;
    groups_.clear();
  }
  for (std::uint64_t g : other.groups_) note_group(g);
  last_stamp_ = std::max(last_stamp_, other.last_stamp_);
  for (const folded_event& f : other.events_) {
    if (const event_handle unneeded = hold(f); unneeded != 0) released.push_back(unneeded);
  }
  other.events_.clear();
  other.reads_.clear();
  other.writes_.clear();
  other.groups_.clear();
  other.all_groups_ = false;
  other.last_stamp_ = 0;
}

void range_summary::clear_held(std::vector<event_handle>& released) {
  for (const folded_event& f : events_) released.push_back(f.event);
  events_.clear();
  reads_.clear();
  writes_.clear();
  groups_.clear();
  all_groups_ = false;
  last_stamp_ = 0;
}

}  // namespace acs
