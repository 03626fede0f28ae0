#include "annotations/inferred/allocation_map.hpp"

#include <algorithm>
#include <mutex>

namespace acs {

std::size_t allocation_map::index_of(address a) const noexcept {
  const auto it = std::upper_bound(ranges_.begin(), ranges_.end(), a,
                                   [](address v, const byte_range& r) { return v < r.first; });
  return static_cast<std::size_t>(it - ranges_.begin());
}

std::optional<byte_range> allocation_map::find_locked(address a) const noexcept {
  const std::size_t i = index_of(a);
  if (i == 0 || a > ranges_[i - 1].last) return std::nullopt;
  return ranges_[i - 1];
}

allocation_map::neighbours allocation_map::near_locked(address a, std::uint64_t slack) const noexcept {
  neighbours n;
  const std::size_t i = index_of(a);
  if (i > 0 && ranges_[i - 1].last < a && a - ranges_[i - 1].last <= slack) n.below = ranges_[i - 1];
  if (i < ranges_.size() && ranges_[i].first - a <= slack) n.above = ranges_[i];
  return n;
}

void allocation_map::insert(address base, std::uint64_t bytes) {
  const made_range m = make_range(base, bytes);
  if (m.issue == range_issue::empty) return;
  const byte_range r = m.range;
  std::unique_lock lock(mutex_);
  // Entries are disjoint and sorted, so their ends are sorted too.
  auto first = std::lower_bound(ranges_.begin(), ranges_.end(), r.first,
                                [](const byte_range& e, address v) { return e.last < v; });
  auto last = first;
  while (last != ranges_.end() && last->first <= r.last) ++last;
  first = ranges_.erase(first, last);
  ranges_.insert(first, r);
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

bool allocation_map::erase(address a) {
  std::unique_lock lock(mutex_);
  const std::size_t i = index_of(a);
  if (i == 0 || a > ranges_[i - 1].last) return false;
  ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(i - 1));
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return true;
}

std::optional<byte_range> allocation_map::find(address a) const {
  std::shared_lock lock(mutex_);
  return find_locked(a);
}

std::size_t allocation_map::size() const {
  std::shared_lock lock(mutex_);
  return ranges_.size();
}

allocation_map& device_allocations() noexcept {
  static auto* const map = new allocation_map;  // used by hooks until the very end
  return *map;
}

}  // namespace acs
