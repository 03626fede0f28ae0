#pragma once
// Every block of device-accessible memory the application obtained (cudaMalloc,
// cuMemAlloc, managed, pinned host, pools, mapped VMM ranges...), as the alloc
// hooks report it: which allocation contains address X? Thread-safe; lookups
// take a shared lock (one per launch, through `reader`), changes an exclusive one.
#include <atomic>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <vector>

#include "scheduler/byte_range.hpp"

namespace acs {

class allocation_map {
 public:
  /// @brief Records [base, base + bytes). Entries it overlaps are dropped first:
  /// their frees were missed, or the range was remapped; the newest is what the
  /// device holds now. Zero bytes records nothing.
  void insert(address base, std::uint64_t bytes);

  /// @brief Drops the allocation containing `a` (normally its base). False if none does.
  bool erase(address a);

  /// @brief The allocation containing `a`.
  std::optional<byte_range> find(address a) const;

  /// @brief The nearest allocations below and above an address that lies in none.
  struct neighbours {
    std::optional<byte_range> below;  // ends at most `slack` bytes before it
    std::optional<byte_range> above;  // starts at most `slack` bytes after it
  };

  /// @brief Several lookups under one shared lock.
  class reader {
   public:
    explicit reader(const allocation_map& map) : map_(map), lock_(map.mutex_) {}
    std::optional<byte_range> find(address a) const noexcept { return map_.find_locked(a); }
    neighbours near(address a, std::uint64_t slack) const noexcept { return map_.near_locked(a, slack); }

   private:
    const allocation_map& map_;
    std::shared_lock<std::shared_mutex> lock_;
  };

  /// @brief Changes on every insert and erase: lets caches of lookups know they are stale.
  std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }

  std::size_t size() const;

 private:
  std::optional<byte_range> find_locked(address a) const noexcept;
  neighbours near_locked(address a, std::uint64_t slack) const noexcept;
  std::size_t index_of(address a) const noexcept;  // first entry starting after `a`

  mutable std::shared_mutex mutex_;
  std::vector<byte_range> ranges_;  // sorted by first, disjoint
  std::atomic<std::uint64_t> generation_{0};
};

/// @brief The process's allocations, fed by memory_allocated / memory_freed. Never destroyed.
allocation_map& device_allocations() noexcept;

}  // namespace acs
