#pragma once
// A coarse map from address to the window slots whose ranges may touch it, so
// that a new kernel is compared exactly only with the few entries that can
// overlap it, not with the whole window. Addresses fold into 1024 buckets of
// 1 MiB (modulo 1 GiB): a collision costs an exact check, never a missed
// overlap. A range spanning more than 32 buckets is kept in a "wide" set that
// every query sees.
#include <cstdint>
#include <vector>

#include "scheduler/byte_range.hpp"

namespace acs {

class address_buckets {
 public:
  static constexpr unsigned bucket_shift = 20;
  static constexpr unsigned bucket_count = 1024;
  static constexpr std::uint64_t max_span = 32;

  explicit address_buckets(unsigned slots);

  void add(std::uint32_t slot, const byte_range& r) noexcept { update(slot, r, true); }
  // Removes every trace of `slot` left by `r`; call for each range the slot added.
  void remove(std::uint32_t slot, const byte_range& r) noexcept { update(slot, r, false); }
  // ORs into `out` (words() words) the slots whose ranges may overlap `q`.
  void candidates(const byte_range& q, std::uint64_t* out) const noexcept;

  unsigned words() const noexcept { return words_; }

 private:
  void update(std::uint32_t slot, const byte_range& r, bool set) noexcept;

  unsigned words_;
  std::vector<std::uint64_t> masks_;  // bucket_count * words_
  std::vector<std::uint64_t> wide_;   // words_
  std::vector<std::uint32_t> wide_count_;  // per slot: its wide ranges
};

}  // namespace acs
