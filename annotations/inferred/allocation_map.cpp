#include "annotations/inferred/allocation_map.hpp"

#include <algorithm>
#include <mutex>

namespace acs {

std::size_t allocation_map::index_of(address a) const noexcept {
  const auto it = std::upper_bound(entries_.begin(), entries_.end(), a,
                                   [](address v, const allocation& e) { return v < e.range.first; });
  return static_cast<std::size_t>(it - entries_.begin());
}

std::optional<allocation> allocation_map::find_locked(address a) const noexcept {
  const std::size_t i = index_of(a);
  if (i == 0 || a > entries_[i - 1].range.last) return std::nullopt;
  return entries_[i - 1];
}

allocation_map::neighbours allocation_map::near_locked(address a, std::uint64_t slack) const noexcept {
  neighbours n;
  const std::size_t i = index_of(a);
  if (i > 0 && entries_[i - 1].range.last < a && a - entries_[i - 1].range.last <= slack) n.below = entries_[i - 1];
  if (i < entries_.size() && entries_[i].range.first - a <= slack) n.above = entries_[i];
  return n;
}

bool allocation_map::touches_host_locked(const byte_range& r) const noexcept {
  if (host_entries_.load(std::memory_order_relaxed) == 0) return false;
  // The entry holding r.first (if any), then every entry starting inside r.
  std::size_t i = index_of(r.first);
  if (i > 0 && entries_[i - 1].range.last >= r.first) --i;
  for (; i < entries_.size() && entries_[i].range.first <= r.last; ++i)
    if (entries_[i].kind == memory_kind::host) return true;
  return false;
}

void allocation_map::erase_at(std::size_t i) {
  if (entries_[i].kind == memory_kind::host) host_entries_.fetch_sub(1, std::memory_order_acq_rel);
  entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
}

void allocation_map::replace_overlapped(const allocation& e) {
  // Entries are disjoint and sorted, so their ends are sorted too.
  auto first = std::lower_bound(entries_.begin(), entries_.end(), e.range.first,
                                [](const allocation& x, address v) { return x.range.last < v; });
  auto last = first;
  while (last != entries_.end() && last->range.first <= e.range.last) ++last;
  const auto hosts = std::count_if(first, last, [](const allocation& x) { return x.kind == memory_kind::host; });
  host_entries_.fetch_sub(static_cast<std::size_t>(hosts), std::memory_order_acq_rel);
  first = entries_.erase(first, last);
  entries_.insert(first, e);
  if (e.kind == memory_kind::host) host_entries_.fetch_add(1, std::memory_order_acq_rel);
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

void allocation_map::insert(address base, std::uint64_t bytes, memory_kind kind) {
  const made_range m = make_range(base, bytes);
  if (m.issue == range_issue::empty) return;
  std::unique_lock lock(mutex_);
  // A mapping into a reservation acs saw: the reservation is the unit (docs/design.md rule 10).
  if (const auto holder = find_locked(m.range.first); holder && holder->reservation && m.range.last <= holder->range.last)
    return;
  replace_overlapped({m.range, kind, false});
}

void allocation_map::reserve(address base, std::uint64_t bytes) {
  const made_range m = make_range(base, bytes);
  if (m.issue == range_issue::empty) return;
  std::unique_lock lock(mutex_);
  replace_overlapped({m.range, memory_kind::device, true});
}

bool allocation_map::erase(address a) {
  std::unique_lock lock(mutex_);
  const std::size_t i = index_of(a);
  if (i == 0 || a > entries_[i - 1].range.last || entries_[i - 1].reservation) return false;
  erase_at(i - 1);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return true;
}

bool allocation_map::unreserve(address a) {
  std::unique_lock lock(mutex_);
  const std::size_t i = index_of(a);
  if (i == 0 || a > entries_[i - 1].range.last || !entries_[i - 1].reservation) return false;
  erase_at(i - 1);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return true;
}

std::optional<byte_range> allocation_map::find(address a) const {
  std::shared_lock lock(mutex_);
  const auto e = find_locked(a);
  return e ? std::optional<byte_range>(e->range) : std::nullopt;
}

std::size_t allocation_map::size() const {
  std::shared_lock lock(mutex_);
  return entries_.size();
}

allocation_map& device_allocations() noexcept {
  static auto* const map = new allocation_map;  // used by hooks until the very end
  return *map;
}

}  // namespace acs
