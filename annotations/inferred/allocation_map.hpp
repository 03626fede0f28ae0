#pragma once
// Every block of device-accessible memory the application obtained (cudaMalloc,
// cuMemAlloc, managed, pinned host, pools, virtual-memory reservations...), as the alloc
// hooks report it: which allocation contains address X? Thread-safe; lookups
// take a shared lock (one per launch, through `reader`), changes an exclusive one.
//
// A virtual-memory reservation (cuMemAddressReserve) is one allocation, whatever is mapped
// into it and unmapped again: a tensor spanning two mapped chunks is one buffer, not two
// (docs/design.md rule 10). Mappings outside every known reservation are allocations of
// their own.
#include <atomic>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <vector>

#include "scheduler/byte_range.hpp"
#include "src/support/memory_kind.hpp"

namespace acs {

struct allocation {
  byte_range range;
  memory_kind kind = memory_kind::device;
  bool reservation = false;  // a reserved address range: what is mapped into it belongs to it

  friend bool operator==(const allocation&, const allocation&) = default;
};

class allocation_map {
 public:
  /// @brief Records [base, base + bytes). Inside a recorded reservation it records nothing: it is
  /// a mapping of part of it, and the reservation stays the unit. Otherwise entries it overlaps
  /// are dropped first: their frees were missed, or the range was remapped; the newest is what
  /// the device holds now. Zero bytes records nothing.
  void insert(address base, std::uint64_t bytes, memory_kind kind = memory_kind::device);

  /// @brief Records the reserved address range [base, base + bytes), dropping what it overlaps.
  void reserve(address base, std::uint64_t bytes);

  /// @brief Drops the allocation containing `a` (normally its base). False if none does, or if it
  /// is a reservation: unmapping part of one leaves the reservation whole.
  bool erase(address a);

  /// @brief Drops the reservation containing `a`. False if none does.
  bool unreserve(address a);

  /// @brief The allocation containing `a`.
  std::optional<byte_range> find(address a) const;

  /// @brief The nearest allocations below and above an address that lies in none.
  struct neighbours {
    std::optional<allocation> below;  // ends at most `slack` bytes before it
    std::optional<allocation> above;  // starts at most `slack` bytes after it
  };

  /// @brief Several lookups under one shared lock.
  class reader {
   public:
    explicit reader(const allocation_map& map) : map_(map), lock_(map.mutex_) {}
    std::optional<byte_range> find(address a) const noexcept {
      const auto e = map_.find_locked(a);
      return e ? std::optional<byte_range>(e->range) : std::nullopt;
    }
    std::optional<allocation> find_allocation(address a) const noexcept { return map_.find_locked(a); }
    neighbours near(address a, std::uint64_t slack) const noexcept { return map_.near_locked(a, slack); }
    /// @brief Whether `r` overlaps pinned host memory.
    bool touches_host(const byte_range& r) const noexcept { return map_.touches_host_locked(r); }

   private:
    const allocation_map& map_;
    std::shared_lock<std::shared_mutex> lock_;
  };

  /// @brief Changes on every insert and erase: lets caches of lookups know they are stale.
  std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }

  /// @brief Whether any recorded allocation is pinned host memory (cheap: no lock).
  bool holds_host_memory() const noexcept { return host_entries_.load(std::memory_order_acquire) != 0; }

  std::size_t size() const;

 private:
  std::optional<allocation> find_locked(address a) const noexcept;
  neighbours near_locked(address a, std::uint64_t slack) const noexcept;
  bool touches_host_locked(const byte_range& r) const noexcept;
  std::size_t index_of(address a) const noexcept;  // first entry starting after `a`
  void replace_overlapped(const allocation& e);    // under the exclusive lock
  void erase_at(std::size_t i);                    // under the exclusive lock

  mutable std::shared_mutex mutex_;
  std::vector<allocation> entries_;  // sorted by range.first, disjoint
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::size_t> host_entries_{0};
};

/// @brief The process's allocations, fed by memory_allocated / memory_freed / memory_reserved /
/// reservation_freed. Never destroyed.
allocation_map& device_allocations() noexcept;

}  // namespace acs
