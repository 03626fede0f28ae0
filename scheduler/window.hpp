#pragma once
// The bounded scheduling window of one device: the kernels in flight, in issue
// order, with their footprints. Answers "which of them does a new kernel
// depend on" for read-after-write, write-after-read and write-after-write.
#include <cstdint>
#include <vector>

#include "scheduler/address_buckets.hpp"
#include "scheduler/backend.hpp"
#include "scheduler/byte_range.hpp"

namespace acs {

using slot_id = std::uint32_t;

struct window_entry {
  std::uintptr_t vstream = 0;
  std::uint64_t group = 0;      // non-zero: an annotation scope, always ordered within
  unsigned stream = 0;          // pool stream index
  std::uint64_t seq = 0;        // its sequence number on that pool stream
  event_handle event = 0;       // recorded after it on the pool stream, when first needed (scheduler.cpp)
  std::uint64_t launch_id = 0;  // for observers
  std::uint64_t stamp = 0;      // process-wide issue order (scheduler::sync_point)
  bool merged = false;          // holds its producers' footprints too (chain_merging.hpp)
  std::vector<byte_range> reads;
  std::vector<byte_range> writes;
  access_set own;               // when merged: the kernel's own footprint alone
};

class window {
 public:
  explicit window(unsigned capacity);

  unsigned capacity() const noexcept { return capacity_; }
  unsigned size() const noexcept { return static_cast<unsigned>(order_.size()); }
  bool full() const noexcept { return size() >= capacity_; }
  bool empty() const noexcept { return order_.empty(); }

  // Appends the slots of `vstream`'s entries that `access` (or `group`) depends
  // on, in no particular order.
  void dependencies(std::uintptr_t vstream, const access_set& access, std::uint64_t group,
                    std::vector<slot_id>& out) const;

  // Adds an entry; the window must not be full.
  slot_id insert(std::uintptr_t vstream, std::uint64_t group, const access_set& access,
                 unsigned stream, std::uint64_t seq, event_handle event, std::uint64_t launch_id = 0,
                 std::uint64_t stamp = 0);

  window_entry& operator[](slot_id s) noexcept { return entries_[s]; }
  const window_entry& operator[](slot_id s) const noexcept { return entries_[s]; }

  // The oldest entry; the window must not be empty.
  slot_id oldest() const noexcept { return order_.front(); }
  void remove(slot_id s);

  // Visits live entries oldest first.
  template <class F>
  void for_each(F&& f) const {
    for (const slot_id s : order_) f(s);
  }

  // Visits live entries oldest first; `f(slot)` returning true removes the entry
  // after `f` has seen it (and may release its event).
  template <class F>
  void remove_if(F&& f) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      const slot_id s = order_[i];
      if (f(s)) {
        forget(s);
      } else {
        order_[kept++] = s;
      }
    }
    order_.resize(kept);
  }

 private:
  void forget(slot_id s);

  unsigned capacity_;
  std::vector<window_entry> entries_;
  std::vector<slot_id> order_;  // live slots, oldest first
  std::vector<slot_id> free_;
  address_buckets read_index_;
  address_buckets write_index_;
  mutable std::vector<std::uint64_t> candidates_;  // bitset over slots
};

}  // namespace acs
