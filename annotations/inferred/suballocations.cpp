#include "annotations/inferred/suballocations.hpp"

#include <iterator>
#include <mutex>

namespace acs {

suballocation_map::entries::const_iterator suballocation_map::containing(address a) const noexcept {
  auto it = entries_.upper_bound(a);  // first entry starting after a
  if (it == entries_.begin()) return entries_.end();
  --it;
  return a <= it->second ? it : entries_.end();
}

void suballocation_map::drop_overlapping(address first, address last) {
  auto it = entries_.upper_bound(first);
  if (it != entries_.begin() && std::prev(it)->second >= first) --it;
  while (it != entries_.end() && it->first <= last) it = entries_.erase(it);
}

void suballocation_map::insert(address base, std::uint64_t bytes) {
  const made_range m = make_range(base, bytes);
  if (m.issue == range_issue::empty) return;
  std::unique_lock lock(mutex_);
  drop_overlapping(m.range.first, m.range.last);
  entries_.emplace(m.range.first, m.range.last);
  count_.store(entries_.size(), std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

std::size_t suballocation_map::erase(address base, std::uint64_t bytes) {
  std::unique_lock lock(mutex_);
  const std::size_t before = entries_.size();
  if (bytes == 0) {
    const auto it = containing(base);
    if (it != entries_.end()) entries_.erase(it);
  } else {
    const made_range m = make_range(base, bytes);
    drop_overlapping(m.range.first, m.range.last);
  }
  count_.store(entries_.size(), std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return before - entries_.size();
}

std::optional<byte_range> suballocation_map::find(address a) const {
  std::shared_lock lock(mutex_);
  const auto it = containing(a);
  if (it == entries_.end()) return std::nullopt;
  return byte_range{it->first, it->second};
}

void suballocation_map::clear() {
  std::unique_lock lock(mutex_);
  entries_.clear();
  count_.store(0, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

suballocation_map::reader::reader(const suballocation_map& map) : map_(map), lock_(map.mutex_, std::defer_lock) {
  if (!map.empty()) lock_.lock();
}

suballocation_map::unit suballocation_map::reader::lookup_unit(const byte_range& allocation,
                                                               address a) const noexcept {
  if (!lock_.owns_lock()) return {allocation, true};  // nothing was registered when we looked
  const entries& e = map_.entries_;
  auto above = e.upper_bound(a);
  if (above != e.begin()) {
    const auto below = std::prev(above);
    if (a <= below->second) {
      // Inside a sub-allocation: trusted only if it lies inside the allocation.
      if (allocation.first <= below->first && below->second <= allocation.last)
        return {{below->first, below->second}, true};
      return {allocation, false};
    }
    if (below->second >= allocation.first) return {allocation, false};  // subdivided below a
  }
  if (above != e.end() && above->first <= allocation.last) return {allocation, false};  // above a
  return {allocation, true};  // no sub-allocation in it: the allocation as before
}

suballocation_map& device_suballocations() noexcept {
  static auto* const map = new suballocation_map;  // used by hooks until the very end
  return *map;
}

}  // namespace acs
