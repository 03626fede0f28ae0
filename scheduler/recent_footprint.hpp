#pragma once
// One footprint kept to be compared with the next one: a stream's previous launch, against
// which stream_mode tells a dependent chain (each launch conflicting with the one before). Up to
// `inline_ranges` reads and writes are kept in place, more in an access_set. Small footprints,
// the common case, are then kept without the vectors' assign and compared by byte_range.hpp's
// inline rule: the vectors and a call to the rule were about 280 of a replayed launch's 2,600
// instructions (scripts/launch_instructions.sh).
#include <cstddef>
#include <cstdint>

#include "scheduler/byte_range.hpp"

namespace acs {

class recent_footprint {
 public:
  static constexpr std::size_t inline_ranges = 4;

  /// @brief Keeps a copy of `f` in place of the one kept before.
  void keep(const access_set& f) {
    if (f.reads.size() <= inline_ranges && f.writes.size() <= inline_ranges) {
      reads_ = static_cast<std::uint8_t>(f.reads.size());
      writes_ = static_cast<std::uint8_t>(f.writes.size());
      for (std::size_t i = 0; i < reads_; ++i) range_[i] = f.reads[i];
      for (std::size_t i = 0; i < writes_; ++i) range_[inline_ranges + i] = f.writes[i];
      spilled_ = false;
      return;
    }
    spill_.reads.assign(f.reads.begin(), f.reads.end());
    spill_.writes.assign(f.writes.begin(), f.writes.end());
    spilled_ = true;
  }

  /// @brief conflicts(kept, later): read after write, write after read or write after write.
  bool conflicts_with(const access_set& later) const noexcept {
    if (spilled_) return conflicts(spill_, later);
    return conflicts({range_, reads_}, {range_ + inline_ranges, writes_}, later.reads, later.writes);
  }

 private:
  byte_range range_[2 * inline_ranges];  // reads first, then writes at inline_ranges
  std::uint8_t reads_ = 0, writes_ = 0;
  bool spilled_ = false;
  access_set spill_;  // when either side has more than inline_ranges
};

}  // namespace acs
