#pragma once
// Sub-allocations: ranges inside a known allocation that the program declared to be
// allocations of their own while in use (acs_suballocation, include/acs/acs.h). A caching
// allocator (PyTorch's, through the acs.torch integration) keeps many tensors in one
// cudaMalloc segment; with its blocks registered here, inference and the completion of
// declarations take the block, not the whole segment, as the unit a pointer reaches.
//
// Soundness rests on three rules (docs/design.md §4):
//  * a sub-allocation refines only the known allocation it lies in: one that crosses an
//    allocation's edge is ignored, so a stale entry can never reach outside its allocation;
//  * an address inside an allocation that holds sub-allocations but inside none of them is
//    "uncharted": its unit is the whole allocation, and the completion of a declaration must
//    add it even when a declared range touches the allocation (lookup_unit's `charted`);
//  * removing a sub-allocation only makes later lookups coarser; the ranges already in the
//    scheduler's window are bytes, so memory reused at once stays ordered (rule 7).
//
// Thread-safe: lookups share a lock, and skip it altogether while nothing is registered
// (programs that never call acs_suballocation pay one atomic load per launch).
#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>

#include "scheduler/byte_range.hpp"

namespace acs {

class suballocation_map {
 public:
  /// @brief Records [base, base + bytes) as in use; entries it overlaps are dropped first
  /// (their end was missed, or the range was split differently). Zero bytes records nothing.
  void insert(address base, std::uint64_t bytes);

  /// @brief Drops every entry that overlaps [base, base + bytes), or, with zero bytes, the
  /// entry containing `base`. Returns how many were dropped.
  std::size_t erase(address base, std::uint64_t bytes);

  /// @brief The entry containing `a`.
  std::optional<byte_range> find(address a) const;

  std::size_t size() const noexcept { return count_.load(std::memory_order_acquire); }
  /// @brief Changes on every insert, erase and clear: lets caches of lookups know they are stale.
  std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_acquire); }
  bool empty() const noexcept { return size() == 0; }

  /// @brief Drops everything (tests).
  void clear();

  /// @brief The unit that a pointer `a` inside `allocation` reaches.
  struct unit {
    byte_range range;     // the sub-allocation, or the whole allocation
    bool charted = true;  // false: the allocation is subdivided but `a` lies in no sub-allocation
  };

  /// @brief Several lookups under one shared lock (none while the map is empty).
  class reader {
   public:
    explicit reader(const suballocation_map& map);
    /// @brief The unit of `a`, a byte of `allocation` (a known allocation).
    unit lookup_unit(const byte_range& allocation, address a) const noexcept;

   private:
    const suballocation_map& map_;
    std::shared_lock<std::shared_mutex> lock_;  // not held when the map was empty
  };

 private:
  using entries = std::map<address, address>;  // first -> last, disjoint
  entries::const_iterator containing(address a) const noexcept;
  void drop_overlapping(address first, address last);

  mutable std::shared_mutex mutex_;
  entries entries_;
  std::atomic<std::size_t> count_{0};
  std::atomic<std::uint64_t> generation_{0};
};

/// @brief The process's sub-allocations, fed by acs_suballocation. Never destroyed.
suballocation_map& device_suballocations() noexcept;

}  // namespace acs
